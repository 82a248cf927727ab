"""PROMPT-DEEPSEEK-WIRE, one rule per case: what the real adapter meets beyond the samples.

Capability ``deepseek-wire``, after the cases of `dsh_conformance.cases.deepseek` (whose builders
these use). Each case checks one sentence of CONTRACTS.md (quoted in its ``why``), and was first
seen failing on a wrong adapter of ``tests/gallery/wrong_impls/`` that breaks that rule alone.
Expectations are worked out by hand from the contract.

Why one module: it is a table, one case per rule of PROMPT-DEEPSEEK-WIRE, each read alone;
the builders they share come from `dsh_conformance.cases.deepseek`, and splitting the table would
shorten no case.
"""

from __future__ import annotations

from typing import Final

from ..judge.case import Case
from ..scenarios.scenario import Json
from .deepseek import (
    BASE,
    KEY,
    NOW_MS,
    STOP,
    assistant,
    body,
    error_body,
    failed,
    failure,
    http_op,
    request_op,
    sent,
    sse,
    stream,
    stream_op,
    text,
    tool_call,
    tool_result,
    user,
    wire_case,
    wire_request,
)

BOM: Final = "\ufeff".encode()
MALFORMED: Final = failed("MALFORMED_RESPONSE")


def content(value: str) -> str:
    """A chunk whose only delta is this text."""
    return '{"choices":[{"delta":{"content":"' + value + '"}}]}'


def refused(code: str) -> Json:
    return {"error": {"kind": code}}


def key_op(request: Json, api_key: str, *, expect: Json) -> Json:
    return {
        "op": "deepseek-request",
        "request": request,
        "apiKey": api_key,
        "baseUrl": BASE,
        "expect": expect,
    }


def whole_and_bytewise(data: bytes, *, expect: Json) -> list[Json]:
    """The body whole, then byte by byte: every line end is cut, a CRLF between its CR and LF."""
    return [stream_op(data, expect=expect), stream_op(*(bytes([b]) for b in data), expect=expect)]


def malformed(*payloads: str) -> list[Json]:
    """Each payload, after a good one, then ``[DONE]``: the stream fails at the payload."""
    return [
        stream_op(sse(content("a"), payload, "[DONE]"), expect=stream([], MALFORMED))
        for payload in payloads
    ]


HELLO: Final = user(text("hi"))
HELLO_WIRE: Final = {"role": "user", "content": "hi"}
IMAGE: Final = {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
SOON: Final = "Mon, 21 Sep 2026 14:13:23 GMT"  # NOW_MS + 3 s
NOW: Final = "Mon, 21 Sep 2026 14:13:20 GMT"  # NOW_MS exactly

# -- HTTP errors ----------------------------------------------------------------------------------

HTTP_RULES: list[Case] = [
    wire_case(
        "http-413-before-quota",
        "HTTP errors, the first rule that matches wins: 401/403 → `AUTH`; 413 → "
        "`INVALID_REQUEST`; an error body saying the balance/quota is exhausted → `QUOTA` (any "
        "other status). A 413 speaking of an exhausted quota is INVALID_REQUEST.",
        http_op(413, error_body("Insufficient Balance"), expect=failure("INVALID_REQUEST")),
        http_op(413, error_body("x", code="insufficient_quota"), expect=failure("INVALID_REQUEST")),
    ),
    wire_case(
        "http-context-wording-only-on-400",
        "`400 naming the context length → CONTEXT_WINDOW_EXCEEDED`: on another status the wording "
        "does not count (413 → `INVALID_REQUEST`, 503 → `SERVER`).",
        http_op(
            413, error_body("maximum context length exceeded"), expect=failure("INVALID_REQUEST")
        ),
        http_op(503, error_body("maximum context length is 128000"), expect=failure("SERVER")),
    ),
    wire_case(
        "http-402-without-wording",
        "QUOTA comes from the error body's wording, not the status: a 402 that does not say the "
        "balance is exhausted is `anything else → HTTP_<status>`.",
        http_op(402, error_body("Payment Required"), expect=failure("HTTP_402")),
        http_op(402, "", expect=failure("HTTP_402")),
    ),
    wire_case(
        "http-599-is-a-server-error",
        "`5xx → SERVER`: 599 is the last 5xx status.",
        http_op(599, "", expect=failure("SERVER")),
    ),
    wire_case(
        "http-request-id-headers",
        "Every HTTP failure carries `requestId`: the `x-request-id` header's value when the "
        "response has that header, else `x-deepseek-request-id`'s; an empty value is none (an "
        "empty `x-request-id` does not fall back). Header names are case-insensitive.",
        http_op(
            500, "", headers={"X-Request-Id": "r-1"}, expect=failure("SERVER", request_id="r-1")
        ),
        http_op(
            500,
            "",
            headers={"x-deepseek-request-id": "d-1"},
            expect=failure("SERVER", request_id="d-1"),
        ),
        http_op(
            500,
            "",
            headers={"x-deepseek-request-id": "d-2", "x-request-id": "r-2"},
            expect=failure("SERVER", request_id="r-2"),
        ),
        http_op(
            500,
            "",
            headers={"x-request-id": "", "x-deepseek-request-id": "d-3"},
            expect=failure("SERVER"),
        ),
        http_op(500, "", headers={"x-deepseek-request-id": ""}, expect=failure("SERVER")),
    ),
    wire_case(
        "http-retry-after-seconds-bounds",
        "ASCII digits only are seconds (x 1000, ignored when 0 or when the milliseconds overflow "
        "a double, e.g. 400 nines; 300 nines are kept): 300 nines are 1e300 s as a double, "
        "1e303 ms. An Arabic-Indic digit three is not an ASCII digit, nor an HTTP date.",
        http_op(429, "", headers={"retry-after": "0"}, expect=failure("RATE_LIMIT")),
        http_op(429, "", headers={"retry-after": "9" * 400}, expect=failure("RATE_LIMIT")),
        http_op(429, "", headers={"retry-after": "9" * 300}, expect=failure("RATE_LIMIT", 1e303)),
        http_op(429, "", headers={"retry-after": "\u0663"}, expect=failure("RATE_LIMIT")),
    ),
    wire_case(
        "http-retry-after-neither-seconds-nor-future-date",
        "Anything but digits is read as an HTTP-date and kept only when it lies in the future (so "
        "`1.5`, garbage and past dates are ignored).",
        http_op(429, "", headers={"retry-after": "1.5"}, expect=failure("RATE_LIMIT")),
        http_op(
            429,
            "",
            headers={"retry-after": "Mon, 21 Sep 2026 14:13:10 GMT"},
            expect=failure("RATE_LIMIT"),
        ),
        http_op(429, "", headers={"retry-after": "in a while"}, expect=failure("RATE_LIMIT")),
    ),
    wire_case(
        "http-retry-after-asctime-and-rfc850",
        "An HTTP-date is IMF-fixdate, RFC 850 or asctime, all GMT: each 3 s after the clock is "
        "3000 ms.",
        http_op(
            429,
            "",
            headers={"retry-after": "Monday, 21-Sep-26 14:13:23 GMT"},
            expect=failure("RATE_LIMIT", 3000),
        ),
        http_op(
            429,
            "",
            headers={"retry-after": "Mon Sep 21 14:13:23 2026"},
            expect=failure("RATE_LIMIT", 3000),
        ),
    ),
    wire_case(
        "http-retry-after-date-one-millisecond-ahead",
        "An HTTP-date is kept only when it lies in the future, and the failure carries the "
        "milliseconds to it: a date 1 ms after the clock (`nowMs` one less than the date's "
        "1790000000000) → 1; the same date at the clock is not in the future → none.",
        {
            **http_op(429, "", headers={"retry-after": NOW}, expect=failure("RATE_LIMIT", 1)),
            "nowMs": NOW_MS - 1,
        },
        http_op(429, "", headers={"retry-after": NOW}, expect=failure("RATE_LIMIT")),
    ),
    wire_case(
        "http-retry-after-on-any-status",
        "The header counts on any HTTP failure (a 503 with `Retry-After: 5` carries 5000).",
        http_op(503, "", headers={"retry-after": "5"}, expect=failure("SERVER", 5000)),
        http_op(
            400,
            error_body("bad"),
            headers={"retry-after": SOON},
            expect=failure("INVALID_REQUEST", 3000),
        ),
    ),
    wire_case(
        "http-odd-error-bodies",
        "The status rules hold whatever the body is: an error body that is not `{error: {message, "
        "type, code}}` (JSON `null`, `error` a string, a top-level `message`, an array, nothing) "
        "has no wording, so 500 → `SERVER`, 429 → `RATE_LIMIT`, 400 → `INVALID_REQUEST`, 401 → "
        "`AUTH`, 413 → `INVALID_REQUEST`.",
        http_op(500, "null", expect=failure("SERVER")),
        http_op(429, '{"error":"slow down"}', expect=failure("RATE_LIMIT")),
        http_op(400, '{"message":"bad request"}', expect=failure("INVALID_REQUEST")),
        http_op(400, "[1,2]", expect=failure("INVALID_REQUEST")),
        http_op(401, "", expect=failure("AUTH")),
        http_op(413, "", expect=failure("INVALID_REQUEST")),
    ),
]

# -- refusals before any I/O ----------------------------------------------------------------------

REFUSAL_RULES: list[Case] = [
    wire_case(
        "refuse-missing-key",
        "No key or the empty string → `MISSING_CREDENTIAL`, before any I/O.",
        key_op(wire_request(HELLO), "", expect=refused("MISSING_CREDENTIAL")),
    ),
    wire_case(
        "refuse-invalid-key",
        "Any other key is trimmed of white space and must then be one or more characters "
        "U+0021-U+007E, else `INVALID_CREDENTIAL` (a key of only white space is "
        "`INVALID_CREDENTIAL`): a newline or a space inside, or only spaces.",
        key_op(wire_request(HELLO), "sk-a\nb", expect=refused("INVALID_CREDENTIAL")),
        key_op(wire_request(HELLO), "sk-a b", expect=refused("INVALID_CREDENTIAL")),
        key_op(wire_request(HELLO), "   ", expect=refused("INVALID_CREDENTIAL")),
        key_op(wire_request(HELLO), "sk-é", expect=refused("INVALID_CREDENTIAL")),
    ),
    wire_case(
        "key-trimmed-as-javascript-trims",
        "The key is trimmed of white space as JavaScript's `String.prototype.trim` defines it "
        "(Unicode White_Space, line terminators and U+FEFF); the trimmed key is the one sent.",
        key_op(
            wire_request(HELLO),
            f"\ufeff\u3000 {KEY}\u2028\t",
            expect=sent(body(HELLO_WIRE)),
        ),
    ),
    wire_case(
        "refuse-unsupported-effort",
        "A reasoning effort outside `off`/`low`/`high`/`max` → `UNSUPPORTED_REASONING_EFFORT`.",
        request_op(
            wire_request(HELLO, reasoningEffort="medium"),
            expect=refused("UNSUPPORTED_REASONING_EFFORT"),
        ),
    ),
    wire_case(
        "refuse-image-block",
        "An image block for a text-only model → `UNSUPPORTED_CONTENT`.",
        request_op(wire_request(user(text("look"), IMAGE)), expect=refused("UNSUPPORTED_CONTENT")),
    ),
    wire_case(
        "refusal-order",
        "Refused before any I/O, the first that applies of: an image block → "
        "`UNSUPPORTED_CONTENT`; no key → `MISSING_CREDENTIAL`; a malformed key → "
        "`INVALID_CREDENTIAL`; an unknown effort → `UNSUPPORTED_REASONING_EFFORT`.",
        key_op(
            wire_request(user(IMAGE), reasoningEffort="medium"),
            "",
            expect=refused("UNSUPPORTED_CONTENT"),
        ),
        key_op(
            wire_request(HELLO, reasoningEffort="medium"), "", expect=refused("MISSING_CREDENTIAL")
        ),
        key_op(
            wire_request(HELLO, reasoningEffort="medium"),
            "sk a",
            expect=refused("INVALID_CREDENTIAL"),
        ),
    ),
]

# -- request details ------------------------------------------------------------------------------

REQUEST_RULES: list[Case] = [
    wire_case(
        "request-empty-system-sent",
        '`system: ""` given is sent as a system message (present, even empty).',
        request_op(
            wire_request(HELLO, system=""),
            expect=sent(body({"role": "system", "content": ""}, HELLO_WIRE)),
        ),
    ),
    wire_case(
        "request-empty-stop-sent",
        "`stop: []` is sent (`stop` only when set, and an empty list is set).",
        request_op(wire_request(HELLO, stop=[]), expect=sent(body(HELLO_WIRE, stop=[]))),
    ),
    wire_case(
        "request-system-message-in-history",
        "A system-role message inside the history stays in place, its text blocks joined with "
        "`''`.",
        request_op(
            wire_request(
                HELLO,
                {"role": "system", "content": [text("Be "), text("brief.")]},
                user(text("ok")),
                system="S",
            ),
            expect=sent(
                body(
                    {"role": "system", "content": "S"},
                    HELLO_WIRE,
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "ok"},
                )
            ),
        ),
    ),
    wire_case(
        "request-unknown-blocks-skipped",
        "Blocks of unknown types are skipped, in user and assistant messages alike (even one "
        "holding a `text`).",
        request_op(
            wire_request(
                user(text("a"), {"type": "plugin-note", "text": "NOT SENT"}, text("b")),
                assistant({"type": "file", "text": "NOT SENT"}, text("c")),
            ),
            expect=sent(
                body({"role": "user", "content": "ab"}, {"role": "assistant", "content": "c"})
            ),
        ),
    ),
    wire_case(
        "request-logged-message-fields-not-sent",
        "Messages as the loop logs them carry `id`, `source` and tool results `isError: false`: "
        "the wire message has only the contract's keys.",
        request_op(
            wire_request(
                {"role": "user", "id": "m-1", "source": "user", "content": [text("go")]},
                {
                    "role": "assistant",
                    "id": "m-2",
                    "source": "model",
                    "content": [tool_call("c1", "f", "{}")],
                },
                {
                    "role": "user",
                    "id": "m-3",
                    "content": [{**tool_result("c1", text("ok")), "isError": False}],
                },
            ),
            expect=sent(
                body(
                    {"role": "user", "content": "go"},
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "f", "arguments": "{}"},
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "c1", "content": "ok"},
                )
            ),
        ),
    ),
    wire_case(
        "request-empty-user-messages",
        'An empty user message emits `{role: "user", content: ""}`: one holding only an empty '
        "text block, or only a block of an unknown type.",
        request_op(
            wire_request(user(text("")), user({"type": "plugin-note"})),
            expect=sent(body({"role": "user", "content": ""}, {"role": "user", "content": ""})),
        ),
    ),
    wire_case(
        "request-tool-result-error-flag-not-sent",
        'Each tool result its own `{role: "tool", tool_call_id, content}`: an error result is '
        "sent the same way, its text as is.",
        request_op(
            wire_request(user({**tool_result("c1", text("boom")), "isError": True})),
            expect=sent(body({"role": "tool", "tool_call_id": "c1", "content": "boom"})),
        ),
    ),
    wire_case(
        "request-tool-result-without-text",
        "A tool result whose text is empty → `(no output)`: an empty text block, or only a "
        "block of another type.",
        request_op(
            wire_request(
                user(tool_result("c1", text("")), tool_result("c2", {"type": "plugin-note"}))
            ),
            expect=sent(
                body(
                    {"role": "tool", "tool_call_id": "c1", "content": "(no output)"},
                    {"role": "tool", "tool_call_id": "c2", "content": "(no output)"},
                )
            ),
        ),
    ),
    wire_case(
        "request-two-calls-and-empty-arguments",
        '`tool_calls` `[{id, type: "function", function: {name, arguments}}]`, one per call in '
        "order, `arguments` the raw string — empty stays empty.",
        request_op(
            wire_request(assistant(tool_call("c1", "f", ""), tool_call("c2", "g", '{"x":1}'))),
            expect=sent(
                body(
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "f", "arguments": ""},
                            },
                            {
                                "id": "c2",
                                "type": "function",
                                "function": {"name": "g", "arguments": '{"x":1}'},
                            },
                        ],
                    }
                )
            ),
        ),
    ),
    wire_case(
        "request-empty-assistant-message",
        'Assistant `content` always a string (`""`, never null): an assistant message with no '
        'blocks is sent with `content: ""`.',
        request_op(
            wire_request(HELLO, assistant(), user(text("?"))),
            expect=sent(
                body(
                    HELLO_WIRE,
                    {"role": "assistant", "content": ""},
                    {"role": "user", "content": "?"},
                )
            ),
        ),
    ),
    wire_case(
        "request-effort-max",
        "`thinking` and `reasoning_effort` when set: effort `max` is thinking enabled with "
        "`reasoning_effort: max`.",
        request_op(
            wire_request(HELLO, reasoningEffort="max"),
            expect=sent(body(HELLO_WIRE, thinking={"type": "enabled"}, reasoning_effort="max")),
        ),
    ),
]

# -- the chunk shape ------------------------------------------------------------------------------

SHAPE_RULES: list[Case] = [
    wire_case(
        "stream-shape-payload-is-an-object",
        "A payload that is JSON but not a chunk object is `MALFORMED_RESPONSE`: JSON `null`, a "
        "number, a string, `true`.",
        *malformed("null", "42", '"text"', "true"),
    ),
    wire_case(
        "stream-shape-choices-list-of-objects",
        "`choices`, when present, is a list of objects: an object, or a list holding `null`, is "
        "`MALFORMED_RESPONSE`.",
        *malformed('{"choices":{"delta":{"content":"b"}}}', '{"choices":[null]}'),
    ),
    wire_case(
        "stream-shape-tool-calls-list-of-objects",
        "`tool_calls` a list of objects each with an integer `index`: a `null` entry is "
        "`MALFORMED_RESPONSE`.",
        *malformed('{"choices":[{"delta":{"tool_calls":[null]}}]}'),
    ),
    wire_case(
        "stream-shape-texts-are-strings",
        "`content`, `reasoning_content`, tool-call `id`, `name` and `arguments` strings or null: a "
        "number or an object there is `MALFORMED_RESPONSE`.",
        *malformed(
            '{"choices":[{"delta":{"content":5}}]}',
            '{"choices":[{"delta":{"reasoning_content":{}}}]}',
            '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":1}}]}}]}',
        ),
    ),
    wire_case(
        "stream-shape-usage",
        "`usage`, when present, an object with non-negative integer `prompt_tokens` and "
        "`completion_tokens` (and integer detail counts when given): an empty object, a string, a "
        "negative or a fractional count is `MALFORMED_RESPONSE`.",
        *malformed(
            '{"choices":[],"usage":{}}',
            '{"choices":[],"usage":"none"}',
            '{"choices":[],"usage":{"prompt_tokens":-1,"completion_tokens":1}}',
            '{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1.5}}',
            '{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,'
            '"prompt_tokens_details":{"cached_tokens":0.5}}}',
        ),
    ),
    wire_case(
        "stream-empty-finish-reason",
        'An empty `finish_reason` (`""`) is one of the "others": an error finish whose code is '
        '`""`.',
        stream_op(
            sse('{"choices":[{"delta":{"content":"a"},"finish_reason":""}]}', "[DONE]"),
            expect=stream([text("a")], failed("")),
        ),
    ),
    wire_case(
        "stream-shape-falsy-choices",
        '`choices`, when present, is a list: an empty object, `0`, `""` or `false` there is '
        "`MALFORMED_RESPONSE`, not an absent `choices`.",
        *malformed('{"choices":{}}', '{"choices":0}', '{"choices":""}', '{"choices":false}'),
    ),
    wire_case(
        "stream-shape-scalar-choice",
        "`choices` a list of objects: a number or a string in the list is `MALFORMED_RESPONSE`.",
        *malformed('{"choices":[5]}', '{"choices":["a"]}'),
    ),
    wire_case(
        "stream-shape-delta-is-an-object",
        "`delta` an object or null: a number, a string or a list is `MALFORMED_RESPONSE`.",
        *malformed(
            '{"choices":[{"delta":5}]}',
            '{"choices":[{"delta":"b"}]}',
            '{"choices":[{"delta":[]}]}',
        ),
    ),
    wire_case(
        "stream-shape-tool-calls-scalars",
        "`tool_calls` a list of objects: a number in its place, or a number in the list, is "
        "`MALFORMED_RESPONSE`.",
        *malformed(
            '{"choices":[{"delta":{"tool_calls":5}}]}',
            '{"choices":[{"delta":{"tool_calls":[5]}}]}',
        ),
    ),
    wire_case(
        "stream-shape-tool-call-index",
        "`tool_calls` a list of objects each with an integer `index`: no index, a string, a "
        "boolean or a fraction is `MALFORMED_RESPONSE`.",
        *malformed(
            '{"choices":[{"delta":{"tool_calls":[{"id":"c","function":{"name":"f"}}]}}]}',
            '{"choices":[{"delta":{"tool_calls":[{"index":"0","id":"c"}]}}]}',
            '{"choices":[{"delta":{"tool_calls":[{"index":true,"id":"c"}]}}]}',
            '{"choices":[{"delta":{"tool_calls":[{"index":0.5,"id":"c"}]}}]}',
        ),
    ),
    wire_case(
        "stream-shape-tool-call-id-and-name",
        "Tool-call `id` and `name` strings or null: a number as the id, an object as the name, "
        "is `MALFORMED_RESPONSE`.",
        *malformed(
            '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":7}]}}]}',
            '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":{}}}]}}]}',
        ),
    ),
    wire_case(
        "stream-shape-tool-call-function-not-an-object",
        "Tool-call `id` a string or null: a number as the id is `MALFORMED_RESPONSE` also when "
        "the call's `function` is a string. The expected shape says nothing of `function` "
        "itself, so whether a string there is malformed or skipped is open, but either way the "
        "id makes the payload malformed: the stream ends `MALFORMED_RESPONSE`, never in a crash.",
        *malformed('{"choices":[{"delta":{"tool_calls":[{"index":0,"id":7,"function":"f"}]}}]}'),
    ),
    wire_case(
        "stream-shape-finish-reason",
        "`finish_reason` a string or null: a number, a boolean or an object is "
        "`MALFORMED_RESPONSE`.",
        *malformed(
            '{"choices":[{"delta":{},"finish_reason":1}]}',
            '{"choices":[{"delta":{},"finish_reason":true}]}',
            '{"choices":[{"delta":{},"finish_reason":{"kind":"stop"}}]}',
        ),
    ),
    wire_case(
        "stream-shape-usage-boolean-count",
        "`usage` with non-negative integer counts: `true` is a boolean, not the count 1, so it is "
        "`MALFORMED_RESPONSE`.",
        *malformed('{"choices":[],"usage":{"prompt_tokens":true,"completion_tokens":1}}'),
    ),
    wire_case(
        "stream-usage-counts-by-value",
        "Usage counts are integers by JSON value (numbers by value: `100` and `100.0` are the "
        "same number): `10.0` prompt tokens with `4.0` cached and `2.0` completion tokens are "
        "the integers 10, 4 and 2, so input 10 - 4 = 6.",
        stream_op(
            sse(
                content("a"),
                '{"choices":[],"usage":{"prompt_tokens":10.0,"completion_tokens":2.0,'
                '"prompt_cache_hit_tokens":4.0}}',
                "[DONE]",
            ),
            expect=stream(
                [text("a")],
                STOP,
                usage={"inputTokens": 6, "outputTokens": 2, "cacheReadTokens": 4},
            ),
        ),
    ),
    wire_case(
        "stream-non-json-constants",
        "Bad JSON → `MALFORMED_RESPONSE`: `NaN`, `Infinity` and `-Infinity` are not JSON, even in "
        "a field the adapter does not read.",
        *malformed(
            '{"choices":[],"x":NaN}', '{"choices":[],"x":Infinity}', '{"choices":[],"x":-Infinity}'
        ),
    ),
]

# -- streams --------------------------------------------------------------------------------------

DONE_A: Final = sse(content("a"), "[DONE]")

STREAM_RULES: list[Case] = [
    wire_case(
        "stream-whitespace-only-payload",
        "A `data:` payload that is blank is `MALFORMED_RESPONSE`: here two spaces.",
        stream_op(b"data:   \n\ndata: [DONE]\n\n", expect=stream([], MALFORMED)),
    ),
    wire_case(
        "stream-done-is-exact",
        "SSE `data:` payloads up to `[DONE]`: `data:  [DONE] ` carries ` [DONE] ` (only the one "
        "space after the colon is dropped), which is not `[DONE]`, and not JSON → "
        "`MALFORMED_RESPONSE`.",
        stream_op(
            sse(content("a")) + b"data:  [DONE] \n\n" + sse("[DONE]"),
            expect=stream([], MALFORMED),
        ),
    ),
    wire_case(
        "stream-data-without-space",
        "WHATWG framing: the value is what follows the colon, minus one space if there is one; "
        "`data:` without a space carries the payload whole.",
        stream_op(
            b'data:{"choices":[{"delta":{"content":"a"}}]}\n\ndata:[DONE]\n\n',
            expect=stream([text("a")], STOP),
        ),
    ),
    wire_case(
        "stream-other-fields-ignored",
        "Only `data:` lines carry the payload: `event:`, `id:`, `retry:` and unknown fields are "
        "ignored.",
        stream_op(
            b"event: message\nid: 7\nretry: 100\n"
            b'data: {"choices":[{"delta":{"content":"a"}}]}\nfoo: bar\n\n'
            b"data: [DONE]\n\n",
            expect=stream([text("a")], STOP),
        ),
    ),
    wire_case(
        "stream-bare-data-field",
        "A line `data` without a colon is the field `data` with an empty value: its event's "
        "payload is blank → `MALFORMED_RESPONSE`.",
        stream_op(sse(content("a")) + b"data\n\n" + sse("[DONE]"), expect=stream([], MALFORMED)),
    ),
    wire_case(
        "stream-event-without-data",
        "An event dispatches only when it had a `data` line: a block of `event:`/`id:` lines "
        "dispatches nothing.",
        stream_op(b"event: ping\nid: 1\n\n" + DONE_A, expect=stream([text("a")], STOP)),
    ),
    wire_case(
        "stream-double-bom",
        "One leading U+FEFF is dropped (a second one is part of the first line): the first line's "
        "field is then not `data`, and its event dispatches nothing.",
        stream_op(BOM + BOM + sse(content("x")) + DONE_A, expect=stream([text("a")], STOP)),
    ),
    wire_case(
        "stream-only-feff-is-a-bom",
        "Only U+FEFF is a BOM: its Latin-1 look-alike `ï»¿` stays in the first field name.",
        stream_op("ï»¿".encode() + sse(content("x")) + DONE_A, expect=stream([text("a")], STOP)),
    ),
    wire_case(
        "stream-bom-only-at-stream-start",
        "Only the stream's first character can be a BOM: a U+FEFF at the start of a later body "
        "chunk is part of its line.",
        stream_op(
            sse(content("a")),
            BOM + sse(content("x")),
            sse("[DONE]"),
            expect=stream([text("a")], STOP),
        ),
    ),
    wire_case(
        "stream-mixed-line-endings",
        "Lines end in LF, CR or CRLF, mixed in one stream.",
        *whole_and_bytewise(
            b'data: {"choices":[{"delta":{"content":"a"}}]}\r\n\r\n'
            + b'data: {"choices":[{"delta":{"content":"b"}}]}\r\r'
            + b'data: {"choices":[{"delta":{"content":"c"}}]}\n\n'
            + b"data: [DONE]\r\n\n",
            expect=stream([text("abc")], STOP),
        ),
    ),
    wire_case(
        "stream-multiline-data-crlf",
        "A CR and its LF in two reads are one line end: CRLF line ends cut between the CR and "
        "the LF inside an event of two `data:` lines, where a second line end would dispatch the "
        "event's first half alone (the join itself is `stream-multiline-data-joined`'s).",
        *whole_and_bytewise(
            b'data: {"choices":[{"delta":\r\ndata: {"content":"a"}}]}\r\n\r\ndata: [DONE]\r\n\r\n',
            expect=stream([text("a")], STOP),
        ),
    ),
    wire_case(
        "stream-invalid-utf8",
        "The body is decoded as the event-stream format says (UTF-8 decode): an invalid byte "
        "becomes U+FFFD.",
        stream_op(
            b'data: {"choices":[{"delta":{"content":"a\xffb"}}]}\n\n' + sse("[DONE]"),
            expect=stream([text("a\ufffdb")], STOP),
        ),
    ),
    wire_case(
        "stream-reasoning-only-then-stop",
        "A `stop` finish with no content at all is `EMPTY_RESPONSE`; reasoning is content: a "
        "reasoning-only answer is a plain stop.",
        stream_op(
            sse(
                '{"choices":[{"delta":{"content":null,"reasoning_content":"hm"}}]}',
                '{"choices":[{"delta":{},"finish_reason":"stop"}]}',
                "[DONE]",
            ),
            expect=stream([{"type": "reasoning", "text": "hm"}], STOP),
        ),
    ),
    wire_case(
        "stream-empty-length-finish",
        "Only a `stop` finish with no content is `EMPTY_RESPONSE`: an empty `length` finish is "
        "max-tokens, an empty `tool_calls` finish tool-calls.",
        stream_op(
            sse('{"choices":[{"delta":{},"finish_reason":"length"}]}', "[DONE]"),
            expect=stream([], {"kind": "max-tokens"}),
        ),
        stream_op(
            sse('{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}', "[DONE]"),
            expect=stream([], {"kind": "tool-calls"}),
        ),
    ),
    wire_case(
        "stream-empty-tool-calls-list",
        "An empty `tool_calls` list opens no block, and the delta's `content` still counts.",
        stream_op(
            sse('{"choices":[{"delta":{"content":"a","tool_calls":[]}}]}', "[DONE]"),
            expect=stream([text("a")], STOP),
        ),
    ),
    wire_case(
        "stream-reasoning-and-text-interleaved",
        "At most one reasoning block and one text block, indices in order of first appearance: "
        "reasoning and text deltas interleaved append to the two blocks.",
        stream_op(
            sse(
                '{"choices":[{"delta":{"reasoning_content":"r1"}}]}',
                content("t1"),
                '{"choices":[{"delta":{"reasoning_content":"r2"}}]}',
                content("t2"),
                "[DONE]",
            ),
            expect=stream([{"type": "reasoning", "text": "r1r2"}, text("t1t2")], STOP),
        ),
    ),
    wire_case(
        "stream-parallel-tool-calls-by-index",
        "One tool-call block per wire `tool_calls[].index`, in order of first appearance: "
        "indices 5 then 2 (not contiguous, not sorted) make blocks 0 and 1.",
        stream_op(
            sse(
                '{"choices":[{"delta":{"tool_calls":[{"index":5,"id":"c5","function":{"name":"f","arguments":"{"}}]}}]}',
                '{"choices":[{"delta":{"tool_calls":[{"index":2,"id":"c2","function":{"name":"g","arguments":"["}}]}}]}',
                '{"choices":[{"delta":{"tool_calls":[{"index":5,"function":{"arguments":"}"}},{"index":2,"function":{"arguments":"]"}}]}}]}',
                '{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}',
                "[DONE]",
            ),
            expect=stream(
                [tool_call("c5", "f", "{}"), tool_call("c2", "g", "[]")], {"kind": "tool-calls"}
            ),
        ),
    ),
    wire_case(
        "stream-tool-call-without-id-or-name",
        'A tool call whose `id` and `name` never arrive has `id: ""` and `name: ""`.',
        stream_op(
            sse(
                '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}',
                '{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}',
                "[DONE]",
            ),
            expect=stream([tool_call("", "", "{}")], {"kind": "tool-calls"}),
        ),
    ),
    wire_case(
        "stream-null-delta",
        "`delta` an object or null: a null delta carries nothing, and its finish counts.",
        stream_op(
            sse(content("a"), '{"choices":[{"delta":null,"finish_reason":"length"}]}', "[DONE]"),
            expect=stream([text("a")], {"kind": "max-tokens"}),
        ),
    ),
    wire_case(
        "stream-cache-details-zero-wins",
        "`cacheReadTokens` = `prompt_tokens_details.cached_tokens` else `prompt_cache_hit_tokens`: "
        "a detail of 0 is given, so it wins over a hit count of 8 (input 10 - 0 = 10).",
        stream_op(
            sse(
                content("a"),
                '{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,'
                '"prompt_cache_hit_tokens":8,"prompt_tokens_details":{"cached_tokens":0}}}',
                "[DONE]",
            ),
            expect=stream(
                [text("a")],
                STOP,
                usage={"inputTokens": 10, "outputTokens": 2, "cacheReadTokens": 0},
            ),
        ),
    ),
    wire_case(
        "stream-cache-details-alone",
        "`cacheReadTokens` = `prompt_tokens_details.cached_tokens` with no hit count beside it "
        "(input 10 - 6 = 4).",
        stream_op(
            sse(
                content("a"),
                '{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,'
                '"prompt_tokens_details":{"cached_tokens":6}}}',
                "[DONE]",
            ),
            expect=stream(
                [text("a")],
                STOP,
                usage={"inputTokens": 4, "outputTokens": 2, "cacheReadTokens": 6},
            ),
        ),
    ),
    wire_case(
        "stream-finish-reason-case-sensitive",
        "`stop` / `tool_calls` / `length` are the exact reasons; others → error with the reason "
        "uppercased: `Stop` → `STOP`, `Content_Filter` → `CONTENT_FILTER`.",
        stream_op(
            sse('{"choices":[{"delta":{"content":"a"},"finish_reason":"Stop"}]}', "[DONE]"),
            expect=stream([text("a")], failed("STOP")),
        ),
        stream_op(
            sse(
                '{"choices":[{"delta":{"content":"a"},"finish_reason":"Content_Filter"}]}', "[DONE]"
            ),
            expect=stream([text("a")], failed("CONTENT_FILTER")),
        ),
    ),
    wire_case(
        "stream-eof-mid-event-after-deltas",
        "EOF without `[DONE]` → `STREAM_CLOSED`, also after deltas, with the body ending inside "
        "an event.",
        stream_op(
            sse(content("a")) + b'data: {"choices":[{"delta":{"content":"b"}}]}\n',
            expect=stream([], failed("STREAM_CLOSED")),
        ),
    ),
]

CASES: list[Case] = [*HTTP_RULES, *REFUSAL_RULES, *REQUEST_RULES, *SHAPE_RULES, *STREAM_RULES]
