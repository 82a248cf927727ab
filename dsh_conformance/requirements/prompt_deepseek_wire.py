"""PROMPT-DEEPSEEK-WIRE, one rule per requirement (CONTRACTS.md, "PROMPT-DEEPSEEK-WIRE").

Split by the DeepSeek issue (16) with the cases it added: every rule of the request, the stream,
the HTTP failures and the refusals before any I/O, each with the cases and goldens that check it.
"""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-DEEPSEEK-WIRE"
_SECTION: Final = "PROMPT-DEEPSEEK-WIRE"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.1",
        (
            "The request body's keys come in a fixed order: model, messages, stream true, "
            "stream_options with include_usage true, then - only those that are set - "
            "thinking, reasoning_effort, tools, temperature, max_tokens, stop."
        ),
        _SECTION,
        (
            "Body, keys in this order: `model`, `messages`, `stream: true`, `stream_options: "
            "{include_usage: true}`, then only when set: `thinking`, `reasoning_effort`, "
            '`tools` (non-empty; `{type: "function", function: {name, description, '
            "parameters}}`), `temperature`, `max_tokens`, `stop`."
        ),
        cases=(
            "deepseek/minimal-request",
            "deepseek/every-optional-field-in-order",
            "deepseek/zero-temperature-sent",
            "deepseek/empty-tool-list-not-sent",
            "deepseek/request-effort-max",
        ),
        tests=(
            "test_wire_request_matches_the_golden[first-request]",
            "test_wire_request_matches_the_golden[after-a-tool-call]",
            "test_wire_request_matches_the_golden[follow-up-turn]",
            "test_wire_request_matches_the_golden[reasoning-content]",
            "test_wire_request_matches_the_golden[empty-user-message]",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.2",
        "No body field is ever null and no cache directive is sent anywhere.",
        _SECTION,
        "Never null, never any cache directive.",
        cases=(
            "deepseek/empty-tool-list-not-sent",
            "deepseek/minimal-request",
        ),
        tests=(
            "test_wire_request_matches_the_golden[first-request]",
            "test_wire_request_matches_the_golden[after-a-tool-call]",
            "test_wire_request_matches_the_golden[follow-up-turn]",
            "test_wire_request_matches_the_golden[reasoning-content]",
            "test_wire_request_matches_the_golden[empty-user-message]",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.3",
        (
            'A set field is sent even when empty: a system text of "" becomes a system '
            "message, and stop [] is sent."
        ),
        _SECTION,
        (
            'Request details: `system: ""` given is sent as a system message (present, even '
            "empty); `stop: []` is sent;"
        ),
        cases=(
            "deepseek/request-empty-system-sent",
            "deepseek/request-empty-stop-sent",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.4",
        "The system text, when present, is the first message with role system.",
        _SECTION,
        (
            '`messages`: the system text first as `{role: "system"}` when present, then the '
            "derived history:"
        ),
        cases=(
            "deepseek/request-empty-system-sent",
            "deepseek-http/tool-round-trip-and-follow-up",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.5",
        (
            "A user message's text blocks are joined into one string; blocks of unknown types "
            "are skipped; a system-role message of the history stays where it is, its text "
            "blocks joined with ''."
        ),
        _SECTION,
        (
            "user text blocks joined into one string; … a system-role message inside the "
            "history stays in place, its text blocks joined with `''`; blocks of unknown types "
            "are skipped;"
        ),
        cases=(
            "deepseek/user-text-blocks-joined",
            "deepseek/request-unknown-blocks-skipped",
            "deepseek/request-system-message-in-history",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.6",
        (
            "Each tool result becomes its own tool message (tool_call_id, content), after the "
            "user text when both exist; a result with no text is sent as (no output); an error "
            "result is sent the same way."
        ),
        _SECTION,
        (
            'each tool result its own `{role: "tool", tool_call_id, content}` (empty → `(no '
            "output)`), after the user text when both exist;"
        ),
        cases=(
            "deepseek/tool-results-after-user-text",
            "deepseek/tool-call-turn-and-its-result",
            "deepseek/request-tool-result-error-flag-not-sent",
            "deepseek/request-tool-result-without-text",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.7",
        (
            'An assistant message\'s content is always a string ("" rather than null), '
            "reasoning_content is sent when non-empty, and each tool call is {id, type "
            "function, function {name, arguments}} in order, the arguments the raw string."
        ),
        _SECTION,
        (
            'assistant `content` always a string (`""`, never null), `reasoning_content` '
            'when non-empty, `tool_calls` `[{id, type: "function", function: {name, '
            "arguments}}]`."
        ),
        cases=(
            "deepseek/tool-call-turn-and-its-result",
            "deepseek/tool-call-turn-without-reasoning",
            "deepseek/assistant-text-and-reasoning",
            "deepseek/request-two-calls-and-empty-arguments",
            "deepseek/request-empty-assistant-message",
        ),
        tests=("test_wire_request_matches_the_golden[after-a-tool-call]",),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.8",
        (
            "A user message of only tool results emits no user message; a user message without "
            "text or results emits a user message with empty content."
        ),
        _SECTION,
        (
            "A user message holding only tool results emits no user message; an empty user "
            'message emits `{role: "user", content: ""}`.'
        ),
        cases=(
            "deepseek/empty-user-message",
            "deepseek/request-empty-user-messages",
            "deepseek/tool-call-turn-and-its-result",
        ),
        tests=("test_wire_request_matches_the_golden[empty-user-message]",),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.9",
        (
            "Wire messages carry only the keys CONTRACTS.md lists for each wire shape: the id, "
            "source and isError the loop logs on its messages do not reach the wire."
        ),
        _SECTION,
        (
            '`messages`: the system text first as `{role: "system"}` when present, then the '
            "derived history:"
        ),
        cases=("deepseek/request-logged-message-fields-not-sent",),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.10",
        (
            "The request carries the headers authorization Bearer <key>, content-type "
            "application/json and accept text/event-stream (names case-insensitive; other "
            "headers are free), to POST {base}/chat/completions."
        ),
        _SECTION,
        (
            "Headers: `authorization: Bearer <key>`, `content-type: application/json`, "
            "`accept: text/event-stream`."
        ),
        cases=(
            "deepseek/minimal-request",
            "deepseek-http/tool-round-trip-and-follow-up",
        ),
        tests=(
            "test_wire_request_matches_the_golden[first-request]",
            "test_wire_request_matches_the_golden[after-a-tool-call]",
            "test_wire_request_matches_the_golden[follow-up-turn]",
            "test_wire_request_matches_the_golden[reasoning-content]",
            "test_wire_request_matches_the_golden[empty-user-message]",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.11",
        (
            "Reasoning effort off sends thinking disabled and no effort; low, high and max "
            "send thinking enabled with that effort."
        ),
        _SECTION,
        "then only when set: `thinking`, `reasoning_effort`",
        cases=(
            "deepseek/effort-off-disables-thinking",
            "deepseek/every-optional-field-in-order",
            "deepseek/request-effort-max",
        ),
        tests=("test_wire_request_matches_the_golden[reasoning-content]",),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.12",
        (
            "Before any I/O, the first refusal that applies: an image block is "
            "UNSUPPORTED_CONTENT; no key or an empty key is MISSING_CREDENTIAL; a key that is "
            "not one or more characters U+0021-U+007E once trimmed is INVALID_CREDENTIAL; an "
            "effort outside off/low/high/max is UNSUPPORTED_REASONING_EFFORT. Nothing reaches "
            "the server."
        ),
        _SECTION,
        (
            "Refused before any I/O (nothing reaches the server), the first that applies of: "
            "an image block for a text-only model → `UNSUPPORTED_CONTENT`; no key or the empty "
            "string → `MISSING_CREDENTIAL`; … else `INVALID_CREDENTIAL` … a reasoning effort "
            "outside `off`/`low`/`high`/`max` → `UNSUPPORTED_REASONING_EFFORT`."
        ),
        cases=(
            "deepseek/refuse-missing-key",
            "deepseek/refuse-invalid-key",
            "deepseek/refuse-unsupported-effort",
            "deepseek/refuse-image-block",
            "deepseek/refusal-order",
            "deepseek-http/refuse-missing-key",
            "deepseek-http/refuse-invalid-key",
            "deepseek-http/refuse-unsupported-effort",
            "deepseek-http/refuse-image-block",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.13",
        (
            "The key is trimmed as JavaScript's String.prototype.trim trims (U+FEFF and "
            "Unicode spaces and line terminators included), a key of only white space is "
            "INVALID_CREDENTIAL, and the trimmed key is the one sent."
        ),
        _SECTION,
        (
            "any other key is trimmed of white space as JavaScript's `String.prototype.trim` "
            "defines it (Unicode `White_Space`, line terminators and U+FEFF) … (a key of "
            "only white space is `INVALID_CREDENTIAL`; the trimmed key is the one sent)"
        ),
        cases=(
            "deepseek/key-trimmed-as-javascript-trims",
            "deepseek/refuse-invalid-key",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.14",
        (
            "The body is written as JSON.stringify writes it: a lone surrogate is the escape "
            "\\udXXX in lowercase hex, never raw bytes or an encoding error; control "
            "characters and U+2028/U+2029 arrive as the same string; a high surrogate followed "
            "by a low one (two text blocks joined) is no lone surrogate but one character."
        ),
        _SECTION,
        (
            "the body is JSON as `JSON.stringify` writes it — in particular a lone surrogate "
            "in any string is written as the escape `\\udXXX` (lowercase hex), never as raw "
            "bytes and never as an encoding error."
        ),
        cases=(
            "deepseek-http/lone-surrogate-and-control-characters",
            "deepseek-http/surrogate-halves-joined-into-one-character",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.15",
        "Bodies are compared as JSON values with key order, numbers and strings by value.",
        _SECTION,
        (
            "Bodies are compared across implementations as JSON values with key order (numbers "
            "by value, strings by value), not as bytes"
        ),
        cases=(
            "deepseek-http/numbers-compared-as-values",
            "deepseek/every-optional-field-in-order",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.16",
        (
            "The stream is SSE data payloads up to [DONE]; nothing after [DONE] is read; a "
            "body that ends without [DONE] (empty, after deltas, inside an event, or cut "
            "mid-body) fails with STREAM_CLOSED (a broken connection may be TRANSPORT); [DONE] "
            "must be the exact payload."
        ),
        _SECTION,
        "Stream: SSE `data:` payloads up to `[DONE]`; EOF without it → `STREAM_CLOSED`;",
        cases=(
            "deepseek/stream-closed-without-done",
            "deepseek/stream-nothing-after-done",
            "deepseek/stream-eof-mid-event-after-deltas",
            "deepseek/stream-done-is-exact",
            "deepseek-http/stream-closed",
            "deepseek-http/eof-mid-event-after-deltas",
            "deepseek-http/closed-mid-body",
            "deepseek-http/closed-after-done",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.17",
        (
            "SSE framing is WHATWG's: lines end in LF, CR or CRLF (mixed, cut anywhere), "
            "comments are dropped, multiple data lines join with a newline, the value after "
            "the colon loses one optional space, only data fields carry a payload, an event "
            "without data dispatches nothing, and the body decodes as UTF-8 with U+FFFD for "
            "invalid bytes."
        ),
        _SECTION,
        (
            "SSE framing follows the WHATWG event-stream format: lines end in LF, CR or CRLF "
            "(a stream ending in a bare CR still ends that line), `:` lines are comments, "
            "multiple `data:` lines of one event join with `\\n`,"
        ),
        cases=(
            "deepseek/stream-comment-lines-ignored",
            "deepseek/stream-multiline-data-joined",
            "deepseek/stream-tool-call-fragments-crlf",
            "deepseek/stream-split-inside-utf8",
            "deepseek/stream-bare-cr-line-ends",
            "deepseek/stream-mixed-line-endings",
            "deepseek/stream-multiline-data-crlf",
            "deepseek/stream-data-without-space",
            "deepseek/stream-other-fields-ignored",
            "deepseek/stream-event-without-data",
            "deepseek/stream-invalid-utf8",
            "deepseek-http/tool-round-trip-and-follow-up",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.18",
        (
            "One leading U+FEFF is dropped; only that character is a BOM (not its Latin-1 "
            "look-alike), only as the stream's first character, and a second one belongs to "
            "the first line."
        ),
        _SECTION,
        (
            "one leading U+FEFF is dropped (only that character is a BOM; a second one is part "
            "of the first line)."
        ),
        cases=(
            "deepseek/stream-leading-bom-dropped",
            "deepseek/stream-double-bom",
            "deepseek/stream-only-feff-is-a-bom",
            "deepseek/stream-bom-only-at-stream-start",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.19",
        (
            "A payload that is blank, not JSON, or not a chunk object of the expected shape is "
            "MALFORMED_RESPONSE: the payload an object; choices a list of objects; delta an "
            "object or null; texts and tool-call id, name, arguments strings or null; "
            "tool_calls a list of objects with an integer index; finish_reason a string or "
            "null; usage an object with non-negative integer counts."
        ),
        _SECTION,
        (
            "A `data:` payload that is blank, not JSON, or JSON that is not a chunk object of "
            "the expected shape is `MALFORMED_RESPONSE`. The expected shape: an object whose "
            "`choices`, when present, is a list of objects"
        ),
        cases=(
            "deepseek/stream-malformed-payloads",
            "deepseek/stream-whitespace-only-payload",
            "deepseek/stream-bare-data-field",
            "deepseek/stream-shape-payload-is-an-object",
            "deepseek/stream-shape-choices-list-of-objects",
            "deepseek/stream-shape-tool-calls-list-of-objects",
            "deepseek/stream-shape-texts-are-strings",
            "deepseek/stream-shape-usage",
            "deepseek/stream-null-delta",
            "deepseek/stream-shape-falsy-choices",
            "deepseek/stream-shape-scalar-choice",
            "deepseek/stream-shape-delta-is-an-object",
            "deepseek/stream-shape-tool-calls-scalars",
            "deepseek/stream-shape-tool-call-index",
            "deepseek/stream-shape-tool-call-id-and-name",
            "deepseek/stream-shape-tool-call-function-not-an-object",
            "deepseek/stream-shape-finish-reason",
            "deepseek/stream-shape-usage-boolean-count",
            "deepseek/stream-non-json-constants",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.20",
        (
            "Content, reasoning and tool-call deltas assemble into blocks: one reasoning and "
            "one text block, one tool-call block per wire index, in order of first appearance "
            "(interleaving appends; indices need not be contiguous); a tool call without id or "
            'name has "" for both; an empty tool_calls list opens nothing. (CONTRACTS.md '
            "states no block rule beyond the stream's chunk vocabulary: these are the "
            "upstream's, upstream/deepseek-adapter.md §3.5.)"
        ),
        _SECTION,
        "Stream: SSE `data:` payloads up to `[DONE]`",
        cases=(
            "deepseek/stream-text-usage-on-finish-chunk",
            "deepseek/stream-tool-call-fragments-crlf",
            "deepseek/stream-reasoning-then-text",
            "deepseek/stream-reasoning-and-text-interleaved",
            "deepseek/stream-parallel-tool-calls-by-index",
            "deepseek/stream-tool-call-without-id-or-name",
            "deepseek/stream-empty-tool-calls-list",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.21",
        (
            "finish_reason stop, tool_calls and length (exactly, case-sensitive) map to stop, "
            "tool-calls and max-tokens; any other reason, the empty one included, is an error "
            'finish whose code is the reason uppercased ("" for "").'
        ),
        _SECTION,
        (
            "`finish_reason` `stop` / `tool_calls` / `length` → stop / tool-calls / "
            "max-tokens, others → error with the reason uppercased; … An empty "
            '`finish_reason` (`""`) is one of the "others": an error finish whose code is '
            '`""` (so a failure code may be empty).'
        ),
        cases=(
            "deepseek/stream-finish-reasons",
            "deepseek/stream-empty-finish-reason",
            "deepseek/stream-finish-reason-case-sensitive",
            "deepseek/stream-null-delta",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.22",
        (
            "A stop finish with no content at all is EMPTY_RESPONSE; reasoning counts as "
            "content, and an empty length or tool_calls finish is not reclassified."
        ),
        _SECTION,
        "A `stop` finish with no content at all is `EMPTY_RESPONSE`.",
        cases=(
            "deepseek/stream-empty-response",
            "deepseek/stream-reasoning-only-then-stop",
            "deepseek/stream-empty-length-finish",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.23",
        (
            "Usage, on the finish chunk or a trailing usage-only chunk (last wins): "
            "cacheReadTokens is prompt_tokens_details.cached_tokens when given (even 0), else "
            "prompt_cache_hit_tokens; inputTokens is prompt_tokens minus cache reads; "
            "outputTokens is completion_tokens; reasoningTokens comes from "
            "completion_tokens_details."
        ),
        _SECTION,
        (
            "usage (on the finish chunk or a trailing usage-only chunk, last wins): "
            "`cacheReadTokens` = `prompt_tokens_details.cached_tokens` else "
            "`prompt_cache_hit_tokens`, `inputTokens` = `prompt_tokens` \u2212 cache reads, "
            "`outputTokens` = `completion_tokens`, `reasoningTokens` from "
            "`completion_tokens_details`."
        ),
        cases=(
            "deepseek/stream-text-usage-on-finish-chunk",
            "deepseek/stream-usage-with-cache-reads",
            "deepseek/stream-cache-hit-tokens-and-last-usage-wins",
            "deepseek/stream-cache-details-zero-wins",
            "deepseek/stream-cache-details-alone",
            "deepseek-http/tool-round-trip-and-follow-up",
            "deepseek/stream-usage-counts-by-value",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.24",
        (
            "HTTP errors map by the first matching rule: 401/403 AUTH; 413 INVALID_REQUEST; "
            "quota wording QUOTA (any other status); 429 RATE_LIMIT; 400 with context wording "
            "CONTEXT_WINDOW_EXCEEDED, other 400 INVALID_REQUEST; 500-599 SERVER; anything else "
            "HTTP_<status>; whatever the body (non-object JSON, empty)."
        ),
        _SECTION,
        (
            "HTTP errors, the first rule that matches wins, in this order: 401/403 → `AUTH`; "
            "413 → `INVALID_REQUEST`; an error body saying the balance/quota is exhausted → "
            "`QUOTA` (any other status); 429 → `RATE_LIMIT`; 400 naming the context length → "
            "`CONTEXT_WINDOW_EXCEEDED`; other 400 → `INVALID_REQUEST`; 5xx → `SERVER`; "
            "anything else → `HTTP_<status>`."
        ),
        cases=(
            "deepseek/http-auth",
            "deepseek/http-quota-whatever-the-status",
            "deepseek/http-rate-limit",
            "deepseek/http-context-window",
            "deepseek/http-invalid-server-and-other",
            "deepseek/http-413-before-quota",
            "deepseek/http-context-wording-only-on-400",
            "deepseek/http-402-without-wording",
            "deepseek/http-599-is-a-server-error",
            "deepseek/http-odd-error-bodies",
            "deepseek-http/error-responses",
            "deepseek-http/5xx-boundary",
            "deepseek-http/error-body-not-utf8",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.25",
        (
            "QUOTA wording is the error body's code, type or message saying the balance, quota "
            "or credits are insufficient, exhausted or exceeded; context wording names the "
            "maximum context length or window or says the input is too long for the model."
        ),
        _SECTION,
        (
            "Error wording: QUOTA when the error body (code, type or message) says the "
            "balance, quota or credits are insufficient, exhausted or exceeded … "
            "CONTEXT_WINDOW_EXCEEDED for a 400 whose message names the maximum context length "
            "or window, or says the input is too long for the model"
        ),
        cases=(
            "deepseek/http-quota-whatever-the-status",
            "deepseek/http-context-window",
            "deepseek-http/error-responses",
            "deepseek/http-quota-wording-across-code-and-type",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.26",
        (
            "Every HTTP failure carries status (the HTTP status) and requestId: x-request-id's "
            "value when that header is present, else x-deepseek-request-id's; an empty value "
            "is none and an empty x-request-id does not fall back."
        ),
        _SECTION,
        (
            "Every HTTP failure carries `status` (the HTTP status) and `requestId`: the "
            "`x-request-id` header's value when the response has that header, else "
            "`x-deepseek-request-id`'s; an empty value is none (an empty `x-request-id` does "
            "not fall back)."
        ),
        cases=(
            "deepseek/http-request-id-headers",
            "deepseek/http-auth",
            "deepseek/http-invalid-server-and-other",
            "deepseek-http/error-responses",
            "deepseek-http/request-id-headers",
            "deepseek-http/5xx-boundary",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.27",
        (
            "A positive Retry-After becomes providerRetryAfterMs on any HTTP failure: ASCII "
            "digits are seconds times 1000 as a double (0 and an overflow to infinity "
            "ignored), anything else an HTTP-date (IMF-fixdate, RFC 850, asctime, GMT) kept "
            "only in the future."
        ),
        _SECTION,
        (
            "A `Retry-After` header in seconds or as an HTTP date becomes the failure's "
            "`providerRetryAfterMs` when it is positive: ASCII digits only are seconds (\u00d7 "
            "1000, ignored when 0 or when the milliseconds overflow a double, e.g. 400 nines; "
            "300 nines are kept); anything else is read as an HTTP-date (RFC 9110: "
            "IMF-fixdate, RFC 850 or asctime, all GMT) and kept only when it lies in the "
            "future … The header counts on any HTTP failure"
        ),
        cases=(
            "deepseek/http-retry-after-seconds",
            "deepseek/http-retry-after-imf-fixdate",
            "deepseek/http-retry-after-header-name-in-any-case",
            "deepseek/http-retry-after-seconds-bounds",
            "deepseek/http-retry-after-neither-seconds-nor-future-date",
            "deepseek/http-retry-after-asctime-and-rfc850",
            "deepseek/http-retry-after-on-any-status",
            "deepseek-http/retry-after-on-any-status",
            "deepseek-http/retry-after-past-date-on-the-clock",
            "deepseek-http/retry-after-date-a-day-ahead-on-the-clock",
            "deepseek/http-retry-after-date-one-millisecond-ahead",
        ),
    ),
)
