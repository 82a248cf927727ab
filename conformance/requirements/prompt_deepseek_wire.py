"""PROMPT-DEEPSEEK-WIRE, one rule per requirement (CONTRACTS.md, "PROMPT-DEEPSEEK-WIRE").

OWNED BY THE DEEPSEEK ISSUE (16), which splits it further and adds the rules no case checks yet
(the refusals before any I/O, `status` and `requestId` on HTTP failures, the body clarifications):
this first split, written with the catalog, covers the rules the present cases check.
"""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-DEEPSEEK-WIRE"
_SECTION: Final = "PROMPT-DEEPSEEK-WIRE"
_GOLDEN: Final = "test_wire_request_matches_the_golden"
_ROUND_TRIP: Final = "deepseek-http/tool-round-trip-and-follow-up"
_ERRORS: Final = "deepseek-http/error-responses"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.1",
        "A request is `POST {base}/chat/completions` with the headers `authorization: Bearer "
        "<key>`, `content-type: application/json` and `accept: text/event-stream`.",
        _SECTION,
        "Headers: `authorization: Bearer <key>`, `content-type: application/json`, `accept: "
        "text/event-stream`.",
        cases=("deepseek/minimal-request", _ROUND_TRIP),
        tests=(_GOLDEN,),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.2",
        "The body's keys come in this order: `model`, `messages`, `stream: true`, "
        "`stream_options: {include_usage: true}`, then, only when set, `thinking`, "
        "`reasoning_effort`, `tools`, `temperature`, `max_tokens`, `stop`.",
        _SECTION,
        "Body, keys in this order: `model`, `messages`, `stream: true`, `stream_options: "
        "{include_usage: true}`, then only when set: `thinking`, `reasoning_effort`, `tools`",
        cases=("deepseek/minimal-request", "deepseek/every-optional-field-in-order", _ROUND_TRIP),
        tests=(_GOLDEN,),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.3",
        "No body field is ever null; `tools` is sent only when non-empty, as `{type: "
        '"function", function: {name, description, parameters}}`; a set zero temperature is '
        "sent.",
        _SECTION,
        '`tools` (non-empty; `{type: "function", function: {name, description, parameters}}`), '
        "`temperature`, `max_tokens`, `stop`. Never null, never any cache directive.",
        cases=(
            "deepseek/effort-off-and-zero-temperature",
            "deepseek/every-optional-field-in-order",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.4",
        "The system text comes first, as a `system` message, when present.",
        _SECTION,
        'the system text first as `{role: "system"}` when present',
        cases=("deepseek/every-optional-field-in-order",),
        tests=(f"{_GOLDEN}[first-request]",),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.5",
        "A user message's text blocks are joined into one string; an empty user message is "
        'sent as `{role: "user", content: ""}`.',
        _SECTION,
        "user text blocks joined into one string … an empty user message emits `{role: "
        '"user", content: ""}`.',
        cases=("deepseek/user-text-blocks-joined", "deepseek/empty-user-message"),
        tests=(f"{_GOLDEN}[empty-user-message]",),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.6",
        'Each tool result is its own `{role: "tool", tool_call_id, content}` message (empty '
        "content is `(no output)`), after the user text; a user message of tool results only "
        "sends no user message.",
        _SECTION,
        'each tool result its own `{role: "tool", tool_call_id, content}` (empty → `(no '
        "output)`), after the user text when both exist … A user message holding only tool "
        "results emits no user message",
        cases=(
            "deepseek/tool-call-turn-and-its-result",
            "deepseek/tool-results-after-user-text",
            _ROUND_TRIP,
        ),
        tests=(f"{_GOLDEN}[after-a-tool-call]",),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.7",
        'An assistant message\'s `content` is always a string (`""`, never null), with '
        "`reasoning_content` when non-empty and its tool calls as `tool_calls` `[{id, type: "
        '"function", function: {name, arguments}}]`.',
        _SECTION,
        'assistant `content` always a string (`""`, never null), `reasoning_content` when '
        'non-empty, `tool_calls` `[{id, type: "function", function: {name, arguments}}]`.',
        cases=(
            "deepseek/tool-call-turn-and-its-result",
            "deepseek/tool-call-turn-without-reasoning",
            "deepseek/assistant-text-and-reasoning",
            _ROUND_TRIP,
        ),
        tests=(f"{_GOLDEN}[reasoning-content]", f"{_GOLDEN}[follow-up-turn]"),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.8",
        "The stream is read as SSE `data:` payloads up to `[DONE]`, and nothing after it.",
        _SECTION,
        "Stream: SSE `data:` payloads up to `[DONE]`",
        cases=(
            "deepseek/stream-text-usage-on-finish-chunk",
            "deepseek/stream-nothing-after-done",
            _ROUND_TRIP,
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.9",
        "A stream that ends without `[DONE]` fails STREAM_CLOSED.",
        _SECTION,
        "EOF without it → `STREAM_CLOSED`",
        cases=("deepseek/stream-closed-without-done", "deepseek-http/stream-closed"),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.10",
        "A `data:` payload that is blank, not JSON, or not a chunk object of the expected shape "
        "fails MALFORMED_RESPONSE.",
        _SECTION,
        "A `data:` payload that is blank, not JSON, or JSON that is not a chunk object of the "
        "expected shape is `MALFORMED_RESPONSE`.",
        cases=("deepseek/stream-malformed-payloads",),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.11",
        "SSE framing follows WHATWG: lines end in LF, CR or CRLF (a final bare CR too), `:` "
        "lines are comments, an event's `data:` lines join with `\\n`, one leading BOM is "
        "dropped; bytes split inside a UTF-8 sequence decode whole.",
        _SECTION,
        "SSE framing follows the WHATWG event-stream format: lines end in LF, CR or CRLF (a "
        "stream ending in a bare CR still ends that line), `:` lines are comments, multiple "
        "`data:` lines of one event join with `\\n`, one leading U+FEFF is dropped",
        cases=(
            "deepseek/stream-bom-comments-multiline-data",
            "deepseek/stream-split-inside-utf8-and-bare-cr",
            "deepseek/stream-tool-call-fragments-crlf",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.12",
        "`finish_reason` `stop`, `tool_calls`, `length` finish stop, tool-calls, max-tokens; any "
        "other finishes with an error whose code is the reason uppercased.",
        _SECTION,
        "`finish_reason` `stop` / `tool_calls` / `length` → stop / tool-calls / max-tokens, "
        "others → error with the reason uppercased",
        cases=(
            "deepseek/stream-finish-reasons",
            "deepseek/stream-text-usage-on-finish-chunk",
            "deepseek/stream-tool-call-fragments-crlf",
            "deepseek/stream-reasoning-then-text",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.13",
        "Usage comes from the finish chunk or a trailing usage-only chunk, the last winning: "
        "cache reads from `cached_tokens` else `prompt_cache_hit_tokens`, input = prompt tokens "
        "minus cache reads, output = completion tokens, reasoning tokens from the details.",
        _SECTION,
        "usage (on the finish chunk or a trailing usage-only chunk, last wins): "
        "`cacheReadTokens` = `prompt_tokens_details.cached_tokens` else "
        "`prompt_cache_hit_tokens`, `inputTokens` = `prompt_tokens` \u2212 cache reads, "
        "`outputTokens` = `completion_tokens`, `reasoningTokens` from "
        "`completion_tokens_details`.",
        cases=(
            "deepseek/stream-text-usage-on-finish-chunk",
            "deepseek/stream-usage-with-cache-reads",
            "deepseek/stream-cache-hit-tokens-and-last-usage-wins",
            "deepseek/stream-reasoning-then-text",
        ),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.14",
        "A `stop` finish with no content at all fails EMPTY_RESPONSE.",
        _SECTION,
        "A `stop` finish with no content at all is `EMPTY_RESPONSE`.",
        cases=("deepseek/stream-empty-response",),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.15",
        "HTTP 401 and 403 fail AUTH.",
        _SECTION,
        "401/403 → `AUTH`",
        cases=("deepseek/http-auth",),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.16",
        "An error body saying the balance, quota or credits are insufficient, exhausted or "
        "exceeded fails QUOTA, whatever the status (but 401, 403 and 413).",
        _SECTION,
        "QUOTA when the error body (code, type or message) says the balance, quota or credits "
        "are insufficient, exhausted or exceeded (`Insufficient Balance`, `insufficient_quota`, "
        "`quota exceeded`), whatever the status",
        cases=("deepseek/http-quota-whatever-the-status", _ERRORS),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.17",
        "Any other 429 fails RATE_LIMIT.",
        _SECTION,
        "429 → `RATE_LIMIT`",
        cases=("deepseek/http-rate-limit-and-retry-after", _ERRORS),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.18",
        "A 400 whose message names the maximum context length or window, or says the input is "
        "too long for the model, fails CONTEXT_WINDOW_EXCEEDED.",
        _SECTION,
        "CONTEXT_WINDOW_EXCEEDED for a 400 whose message names the maximum context length or "
        "window, or says the input is too long for the model (`Please reduce the length of the "
        "messages` alone is INVALID_REQUEST).",
        cases=("deepseek/http-context-window",),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.19",
        "413 and any other 400 fail INVALID_REQUEST, 5xx SERVER, anything else HTTP_<status>.",
        _SECTION,
        "413 → `INVALID_REQUEST` … other 400 → `INVALID_REQUEST`; 5xx → `SERVER`; anything "
        "else → `HTTP_<status>`.",
        cases=("deepseek/http-invalid-server-and-other", _ERRORS),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.20",
        "A positive `Retry-After`, in seconds or as a future HTTP date, becomes the failure's "
        "`providerRetryAfterMs`, on any HTTP failure; anything else is ignored.",
        _SECTION,
        "A `Retry-After` header in seconds or as an HTTP date becomes the failure's "
        "`providerRetryAfterMs` when it is positive",
        cases=("deepseek/http-rate-limit-and-retry-after", _ERRORS),
    ),
    Requirement(
        "PROMPT-DEEPSEEK-WIRE.21",
        "Without a base URL the adapter uses `DEEPSEEK_BASE_URL`, else "
        "`https://api.deepseek.com`; without a key, `DEEPSEEK_API_KEY`.",
        "Literal constants (byte-exact)",
        "base default `https://api.deepseek.com`, env `DEEPSEEK_BASE_URL`, key env "
        "`DEEPSEEK_API_KEY`",
        unchecked="the protocol's DeepSeek ops give the base URL and the key with every request "
        "(PROTOCOL.md, `deepseek-request` and `deepseek-http`), so the defaults never apply, and "
        "the suite must not reach the real endpoint.",
    ),
)
