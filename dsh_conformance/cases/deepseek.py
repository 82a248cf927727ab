"""PROMPT-DEEPSEEK-WIRE: the request body and headers, the stream, the HTTP error codes.

Capability ``deepseek-wire``. Every expectation is worked out by hand from CONTRACTS.md (quoted in
each ``why``); the sample stream bodies are the upstream's (`upstream/deepseek-adapter.md` §7.2).
Stream bodies travel as base64 chunks whose boundaries the case chooses: whole, byte by byte, and
cut inside a UTF-8 sequence or a CRLF.
"""

from __future__ import annotations

import base64
from typing import Final

from ..judge.case import Case
from ..scenarios.scenario import Json

WIRE: Final = ("PROMPT-DEEPSEEK-WIRE",)
REQUIRES: Final = ("deepseek-wire",)
KEY: Final = "sk-conformance-fake-key"
BASE: Final = "https://deepseek.example"
MODEL: Final = "deepseek-v4-flash"
STREAM_OPTIONS: Final = {"include_usage": True}
FIRST: Final = '{"choices":[{"delta":{"role":"assistant","content":null,"reasoning_content":""}}]}'
NOW_MS: Final = 1_790_000_000_000  # 2026-09-21T14:13:20Z, the clock of HTTP-date Retry-After


# -- builders -----------------------------------------------------------------------------------


def text(value: str) -> Json:
    return {"type": "text", "text": value}


def user(*blocks: Json) -> Json:
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks: Json) -> Json:
    return {"role": "assistant", "content": list(blocks)}


def tool_call(call_id: str, name: str, arguments: str) -> Json:
    return {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}


def tool_result(call_id: str, *blocks: Json) -> Json:
    return {"type": "tool-result", "toolCallId": call_id, "content": list(blocks)}


def request_op(request: Json, *, expect: Json) -> Json:
    return {
        "op": "deepseek-request",
        "request": request,
        "apiKey": KEY,
        "baseUrl": BASE,
        "expect": expect,
    }


def wire_request(*messages: Json, **fields: Json) -> Json:
    """A request with the fixed fields; ``fields`` come after ``messages``."""
    return {"provider": "deepseek-official", "model": MODEL, "messages": list(messages), **fields}


def body(*messages: Json, **optional: Json) -> Json:
    """The expected body: the four fixed keys, then ``optional`` in the order given."""
    return {
        "model": MODEL,
        "messages": list(messages),
        "stream": True,
        "stream_options": STREAM_OPTIONS,
        **optional,
    }


def sent(expected_body: Json) -> Json:
    return {
        "request": {
            "method": "POST",
            "url": f"{BASE}/chat/completions",
            "headers": {
                "authorization": f"Bearer {KEY}",
                "content-type": "application/json",
                "accept": "text/event-stream",
            },
            "body": expected_body,
        }
    }


def wire_case(case_id: str, why: str, *ops: Json) -> Case:
    return Case(id=f"deepseek/{case_id}", contracts=WIRE, why=why, ops=ops, requires=REQUIRES)


def sse(*payloads: str, line_end: str = "\n") -> bytes:
    return "".join(f"data: {payload}{line_end}{line_end}" for payload in payloads).encode()


def stream_op(*parts: bytes, expect: Json) -> Json:
    chunks = [base64.b64encode(part).decode("ascii") for part in parts]
    return {"op": "deepseek-stream", "chunks": chunks, "expect": expect}


def every_split(data: bytes, *, expect: Json) -> list[Json]:
    """The body whole, byte by byte, and in two parts cut at every position."""
    ops = [stream_op(data, expect=expect), stream_op(*(bytes([b]) for b in data), expect=expect)]
    ops += [stream_op(data[:cut], data[cut:], expect=expect) for cut in range(1, len(data))]
    return ops


def stream(blocks: list[Json], finish: Json, usage: Json = None) -> Json:
    return {"stream": {"blocks": blocks, "usage": usage, "finish": finish}}


def failed(code: str) -> Json:
    return {"kind": "error", "failure": {"code": code}}


STOP: Final = {"kind": "stop"}


def http_op(status: int, text: str, *, headers: Json = None, expect: Json) -> Json:
    """An error response; the expected failure carries its ``status`` ("Every HTTP failure
    carries `status` (the HTTP status)"), and no ``requestId`` unless ``expect`` names one."""
    op = {"op": "deepseek-http-error", "status": status, "body": text, "nowMs": NOW_MS}
    if headers is not None:
        op["headers"] = headers
    op["expect"] = {"failure": {"status": status, **expect["failure"]}}
    return op


def error_body(message: str, *, code: str | None = None, type_: str | None = None) -> str:
    fields = [f'"message":"{message}"']
    if type_ is not None:
        fields.append(f'"type":"{type_}"')
    if code is not None:
        fields.append(f'"code":"{code}"')
    return '{"error":{' + ",".join(fields) + "}}"


def failure(code: str, retry_after_ms: float | None = None, request_id: str | None = None) -> Json:
    expected: Json = {"code": code}
    if retry_after_ms is not None:
        expected["providerRetryAfterMs"] = retry_after_ms
    if request_id is not None:
        expected["requestId"] = request_id
    return {"failure": expected}


# -- the request --------------------------------------------------------------------------------

PARAMETERS: Final = {
    "required": ["city"],
    "type": "object",
    "properties": {"city": {"type": "string"}},
}
WEATHER: Final = {
    "name": "get_weather",
    "description": "Get the weather.",
    "parameters": PARAMETERS,
}
WEATHER_WIRE: Final = {"type": "function", "function": WEATHER}
CALL: Final = tool_call("call_1", "get_weather", '{"city": "Paris"}')
CALL_WIRE: Final = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}

REQUEST_CASES: list[Case] = [
    wire_case(
        "minimal-request",
        "Body keys in order `model`, `messages`, `stream: true`, `stream_options: {include_usage: "
        "true}`, then only fields that are set; headers `authorization: Bearer <key>`, "
        "`content-type: application/json`, `accept: text/event-stream`; `POST {base}/chat/"
        "completions`.",
        request_op(
            wire_request(user(text("hi"))),
            expect=sent(body({"role": "user", "content": "hi"})),
        ),
    ),
    wire_case(
        "every-optional-field-in-order",
        'After the four fixed keys: `thinking`, `reasoning_effort`, `tools` (`{type: "function", '
        "function: {name, description, parameters}}`), `temperature`, `max_tokens`, `stop` — in "
        "that order whatever the request's order. A tool's `parameters` keep their own key order "
        "(keys are compared in order). (Where the system text goes is other cases' rule.)",
        request_op(
            wire_request(
                user(text("weather?")),
                stop=["END"],
                maxTokens=100,
                temperature=0.2,
                tools=[WEATHER],
                reasoningEffort="high",
                sessionId="s-1",
            ),
            expect=sent(
                body(
                    {"role": "user", "content": "weather?"},
                    thinking={"type": "enabled"},
                    reasoning_effort="high",
                    tools=[WEATHER_WIRE],
                    temperature=0.2,
                    max_tokens=100,
                    stop=["END"],
                )
            ),
        ),
    ),
    wire_case(
        "effort-off-disables-thinking",
        "`thinking` is sent when set: effort `off` is thinking disabled, with no "
        "`reasoning_effort`.",
        request_op(
            wire_request(user(text("x")), reasoningEffort="off"),
            expect=sent(body({"role": "user", "content": "x"}, thinking={"type": "disabled"})),
        ),
    ),
    wire_case(
        "zero-temperature-sent",
        "`temperature` is sent when set, and 0 is set (a value, not a missing one).",
        request_op(
            wire_request(user(text("x")), temperature=0),
            expect=sent(body({"role": "user", "content": "x"}, temperature=0)),
        ),
    ),
    wire_case(
        "empty-tool-list-not-sent",
        "`tools` only when non-empty: an empty tool list sends no `tools` key (never null).",
        request_op(
            wire_request(user(text("x")), tools=[]),
            expect=sent(body({"role": "user", "content": "x"})),
        ),
    ),
    wire_case(
        "user-text-blocks-joined",
        "User text blocks are joined into one string.",
        request_op(
            wire_request(user(text("hello "), text("world"))),
            expect=sent(body({"role": "user", "content": "hello world"})),
        ),
    ),
    wire_case(
        "empty-user-message",
        'An empty user message emits `{role: "user", content: ""}`.',
        request_op(wire_request(user()), expect=sent(body({"role": "user", "content": ""}))),
    ),
    wire_case(
        "tool-call-turn-and-its-result",
        'Assistant `content` always a string (`""`, never null), `reasoning_content` when '
        'non-empty, `tool_calls` `[{id, type: "function", function: {name, arguments}}]`; each '
        'tool result its own `{role: "tool", tool_call_id, content}`; a user message holding only '
        "tool results emits no user message.",
        request_op(
            wire_request(
                user(text("Weather in Paris?")),
                assistant({"type": "reasoning", "text": "Check it."}, CALL),
                user(tool_result("call_1", text("Sunny, 22°C"))),
                tools=[WEATHER],
            ),
            expect=sent(
                body(
                    {"role": "user", "content": "Weather in Paris?"},
                    {
                        "role": "assistant",
                        "content": "",
                        "reasoning_content": "Check it.",
                        "tool_calls": [CALL_WIRE],
                    },
                    {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 22°C"},
                    tools=[WEATHER_WIRE],
                )
            ),
        ),
    ),
    wire_case(
        "tool-call-turn-without-reasoning",
        'Assistant `content` is `""`, never null, on a tool-call turn; `reasoning_content` only '
        "when non-empty.",
        request_op(
            wire_request(user(text("go")), assistant(CALL)),
            expect=sent(
                body(
                    {"role": "user", "content": "go"},
                    {"role": "assistant", "content": "", "tool_calls": [CALL_WIRE]},
                )
            ),
        ),
    ),
    wire_case(
        "tool-results-after-user-text",
        'Each tool result its own `role: "tool"` message, after the user text when both exist '
        "(whatever the block order), results in block order; an empty result is `(no output)`.",
        request_op(
            wire_request(
                user(tool_result("c1", text("one")), text("and "), tool_result("c2"), text("more"))
            ),
            expect=sent(
                body(
                    {"role": "user", "content": "and more"},
                    {"role": "tool", "tool_call_id": "c1", "content": "one"},
                    {"role": "tool", "tool_call_id": "c2", "content": "(no output)"},
                )
            ),
        ),
    ),
    wire_case(
        "assistant-text-and-reasoning",
        "Assistant text blocks joined into `content`; reasoning into `reasoning_content`, sent "
        "on a turn without tool calls too, and left out when empty.",
        request_op(
            wire_request(
                user(text("9.11 or 9.8?")),
                assistant({"type": "reasoning", "text": "0.8 > 0.11"}, text("9."), text("8")),
                user(text("why?")),
                assistant({"type": "reasoning", "text": ""}, text("Because.")),
            ),
            expect=sent(
                body(
                    {"role": "user", "content": "9.11 or 9.8?"},
                    {"role": "assistant", "content": "9.8", "reasoning_content": "0.8 > 0.11"},
                    {"role": "user", "content": "why?"},
                    {"role": "assistant", "content": "Because."},
                )
            ),
        ),
    ),
]


# -- the stream ---------------------------------------------------------------------------------

SAMPLE_A: Final = sse(
    FIRST,
    '{"choices":[{"delta":{"content":"hello"}}]}',
    '{"choices":[{"delta":{"content":""},"finish_reason":"stop"}],'
    '"usage":{"prompt_tokens":3,"completion_tokens":1}}',
    "[DONE]",
)


def _arguments(fragment: str) -> str:
    call = '{"index":0,"function":{"arguments":"' + fragment + '"}}'
    return '{"choices":[{"delta":{"tool_calls":[' + call + "]}}]}"


SAMPLE_B: Final = sse(
    FIRST,
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_00_x","type":"function",'
    '"function":{"name":"get_weather","arguments":""}}]}}]}',
    _arguments('{\\"city\\"'),
    _arguments(': \\"Paris\\"}'),
    '{"choices":[{"delta":{"content":""},"finish_reason":"tool_calls"}],'
    '"usage":{"prompt_tokens":28,"completion_tokens":6}}',
    "[DONE]",
    line_end="\r\n",
)
SAMPLE_C: Final = sse(
    FIRST,
    '{"choices":[{"delta":{"content":null,"reasoning_content":"think"}}]}',
    '{"choices":[{"delta":{"content":null,"reasoning_content":"ing"}}]}',
    '{"choices":[{"delta":{"content":"answer","reasoning_content":null}}]}',
    '{"choices":[{"delta":{},"finish_reason":"stop"}]}',
    "[DONE]",
)
SAMPLE_E: Final = sse(
    FIRST,
    '{"choices":[{"delta":{"content":"ok"}}]}',
    '{"choices":[{"delta":{},"finish_reason":"stop"}],"usage":null}',
    '{"choices":[],"usage":{"prompt_tokens":283,"completion_tokens":69,'
    '"prompt_cache_hit_tokens":256,"prompt_cache_miss_tokens":27,'
    '"prompt_tokens_details":{"cached_tokens":256},'
    '"completion_tokens_details":{"reasoning_tokens":24}}}',
    "[DONE]",
)
UNICODE: Final = "h\u00e9\u20ac\U0001f600"  # 1-, 2-, 3- and 4-byte UTF-8 sequences


STREAM_CASES: list[Case] = [
    wire_case(
        "stream-text-usage-on-finish-chunk",
        "SSE `data:` payloads up to `[DONE]`; a text block from the content deltas; usage on the "
        "finish chunk: `inputTokens` = `prompt_tokens` - cache reads (none here), `outputTokens` "
        "= `completion_tokens`; `stop` → stop. Split at every position.",
        *every_split(
            SAMPLE_A,
            expect=stream([text("hello")], STOP, usage={"inputTokens": 3, "outputTokens": 1}),
        ),
    ),
    wire_case(
        "stream-tool-call-fragments-crlf",
        "`tool_calls` fragments of one index make one tool-call block whose arguments are the "
        "fragments joined; `tool_calls` → tool-calls; lines end in CRLF, cut between CR and LF.",
        *every_split(
            SAMPLE_B,
            expect=stream(
                [tool_call("call_00_x", "get_weather", '{"city": "Paris"}')],
                {"kind": "tool-calls"},
                usage={"inputTokens": 28, "outputTokens": 6},
            ),
        ),
    ),
    wire_case(
        "stream-reasoning-then-text",
        "Reasoning deltas make a reasoning block, then content a text block, in order of first "
        "appearance; no usage chunk arrived, so no usage is reported.",
        stream_op(
            SAMPLE_C,
            expect=stream([{"type": "reasoning", "text": "thinking"}, text("answer")], STOP),
        ),
    ),
    wire_case(
        "stream-usage-with-cache-reads",
        "Usage on a trailing usage-only chunk: `cacheReadTokens` = "
        "`prompt_tokens_details.cached_tokens` (256), `inputTokens` = `prompt_tokens` - cache "
        "reads = 283 - 256 = 27, `outputTokens` = 69, `reasoningTokens` from "
        "`completion_tokens_details` = 24.",
        stream_op(
            SAMPLE_E,
            expect=stream(
                [text("ok")],
                STOP,
                usage={
                    "inputTokens": 27,
                    "outputTokens": 69,
                    "cacheReadTokens": 256,
                    "reasoningTokens": 24,
                },
            ),
        ),
    ),
    wire_case(
        "stream-cache-hit-tokens-and-last-usage-wins",
        "`cacheReadTokens` = `prompt_cache_hit_tokens` when there are no details; usage on the "
        "finish chunk *or* a trailing chunk, last wins: 10 - 8 = 2 input tokens.",
        stream_op(
            sse(
                '{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}],'
                '"usage":{"prompt_tokens":99,"completion_tokens":99}}',
                '{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,'
                '"prompt_cache_hit_tokens":8}}',
                "[DONE]",
            ),
            expect=stream(
                [text("a")],
                STOP,
                usage={"inputTokens": 2, "outputTokens": 2, "cacheReadTokens": 8},
            ),
        ),
    ),
    wire_case(
        "stream-finish-reasons",
        "`length` → max-tokens; other reasons → error with the reason uppercased.",
        stream_op(
            sse('{"choices":[{"delta":{"content":"a"},"finish_reason":"length"}]}', "[DONE]"),
            expect=stream([text("a")], {"kind": "max-tokens"}),
        ),
        stream_op(
            sse(
                '{"choices":[{"delta":{"content":"a"},"finish_reason":"content_filter"}]}',
                "[DONE]",
            ),
            expect=stream([text("a")], failed("CONTENT_FILTER")),
        ),
    ),
    wire_case(
        "stream-empty-response",
        "A `stop` finish with no content at all is `EMPTY_RESPONSE` (usage still reported).",
        stream_op(sse("{}", "[DONE]"), expect=stream([], failed("EMPTY_RESPONSE"))),
        stream_op(
            sse(
                '{"choices":[{"delta":{"content":""},"finish_reason":"stop"}],'
                '"usage":{"prompt_tokens":5,"completion_tokens":0}}',
                "[DONE]",
            ),
            expect=stream(
                [], failed("EMPTY_RESPONSE"), usage={"inputTokens": 5, "outputTokens": 0}
            ),
        ),
    ),
    wire_case(
        "stream-closed-without-done",
        "EOF without `[DONE]` → `STREAM_CLOSED`: an empty body, a body with no `[DONE]`, and a "
        "`data: [DONE]` line whose event never ends (no blank line follows).",
        stream_op(expect=stream([], failed("STREAM_CLOSED"))),
        stream_op(sse('{"choices":[]}'), expect=stream([], failed("STREAM_CLOSED"))),
        stream_op(b"data: [DONE]\n", expect=stream([], failed("STREAM_CLOSED"))),
    ),
    wire_case(
        "stream-malformed-payloads",
        "A `data:` payload that is blank, not JSON, or JSON that is not a chunk object of the "
        "expected shape is `MALFORMED_RESPONSE`.",
        stream_op(sse("{bad json", "[DONE]"), expect=stream([], failed("MALFORMED_RESPONSE"))),
        stream_op(b"data:\n\ndata: [DONE]\n\n", expect=stream([], failed("MALFORMED_RESPONSE"))),
        stream_op(sse("[1,2]", "[DONE]"), expect=stream([], failed("MALFORMED_RESPONSE"))),
        stream_op(
            sse('{"choices":"none"}', "[DONE]"), expect=stream([], failed("MALFORMED_RESPONSE"))
        ),
    ),
    wire_case(
        "stream-leading-bom-dropped",
        "A leading BOM is dropped (the first line is then `data:`), also when a split cuts it.",
        *every_split(
            "\ufeff".encode() + sse('{"choices":[{"delta":{"content":"a"}}]}', "[DONE]"),
            expect=stream([text("a")], STOP),
        ),
    ),
    wire_case(
        "stream-comment-lines-ignored",
        "`:` lines are comments: one alone before the first event, one inside an event after its "
        "`data:` line; neither changes the event.",
        *every_split(
            b": keep-alive\n\n"
            b'data: {"choices":[{"delta":{"content":"a"}}]}\n: between\n\n'
            b"data: [DONE]\n\n",
            expect=stream([text("a")], STOP),
        ),
    ),
    wire_case(
        "stream-multiline-data-joined",
        "Multiple `data:` lines of one event join with `\\n` (here a JSON chunk spread over two "
        "lines).",
        *every_split(
            b'data: {"choices":[{"delta":\ndata: {"content":"a"}}]}\n\ndata: [DONE]\n\n',
            expect=stream([text("a")], STOP),
        ),
    ),
    wire_case(
        "stream-split-inside-utf8",
        "Text split inside a multi-byte UTF-8 sequence decodes whole.",
        *every_split(
            sse('{"choices":[{"delta":{"content":"' + UNICODE + '"}}]}', "[DONE]"),
            expect=stream([text(UNICODE)], STOP),
        ),
    ),
    wire_case(
        "stream-bare-cr-line-ends",
        "Lines may end in CR alone, and a stream ending in a bare CR still ends that line (here "
        "the blank line after `[DONE]`).",
        *every_split(
            sse('{"choices":[{"delta":{"content":"a"}}]}', "[DONE]", line_end="\r"),
            expect=stream([text("a")], STOP),
        ),
    ),
    wire_case(
        "stream-nothing-after-done",
        "SSE `data:` payloads *up to* `[DONE]`: what follows is not read.",
        stream_op(
            sse('{"choices":[{"delta":{"content":"a"}}]}', "[DONE]", "{bad json"),
            expect=stream([text("a")], STOP),
        ),
    ),
]


# -- HTTP errors --------------------------------------------------------------------------------


HTTP_CASES: list[Case] = [
    wire_case(
        "http-auth",
        "401/403 → `AUTH`.",
        http_op(401, error_body("Authentication Fails"), expect=failure("AUTH")),
        http_op(403, error_body("Forbidden"), expect=failure("AUTH")),
    ),
    wire_case(
        "http-quota-whatever-the-status",
        "QUOTA when the error body (code, type or message) says the balance, quota or credits "
        "are insufficient, exhausted or exceeded (`Insufficient Balance`, `insufficient_quota`, "
        "`quota exceeded`), whatever the status.",
        http_op(402, error_body("Insufficient Balance"), expect=failure("QUOTA")),
        http_op(429, error_body("slow", code="insufficient_quota"), expect=failure("QUOTA")),
        http_op(400, error_body("quota exceeded"), expect=failure("QUOTA")),
        http_op(503, error_body("x", type_="insufficient_quota"), expect=failure("QUOTA")),
    ),
    wire_case(
        "http-rate-limit",
        "Other 429 → `RATE_LIMIT` (no `Retry-After` here, so no `providerRetryAfterMs`).",
        http_op(429, error_body("slow down"), expect=failure("RATE_LIMIT")),
        http_op(429, "too many", expect=failure("RATE_LIMIT")),
    ),
    wire_case(
        "http-retry-after-seconds",
        "A `Retry-After` in seconds becomes `providerRetryAfterMs`: 2 s → 2000.",
        http_op(
            429,
            error_body("slow down"),
            headers={"retry-after": "2"},
            expect=failure("RATE_LIMIT", 2000),
        ),
    ),
    wire_case(
        "http-retry-after-header-name-in-any-case",
        "HTTP header names are case-insensitive: `Retry-After: 2` is the same header → 2000.",
        http_op(
            429,
            error_body("slow down"),
            headers={"Retry-After": "2"},
            expect=failure("RATE_LIMIT", 2000),
        ),
    ),
    wire_case(
        "http-retry-after-imf-fixdate",
        "A `Retry-After` as an HTTP date (IMF-fixdate) becomes `providerRetryAfterMs`: a date "
        "3 s after the clock → 3000.",
        http_op(
            429,
            "",
            headers={"retry-after": "Mon, 21 Sep 2026 14:13:23 GMT"},
            expect=failure("RATE_LIMIT", 3000),
        ),
    ),
    wire_case(
        "http-context-window",
        "CONTEXT_WINDOW_EXCEEDED for a 400 whose message names the maximum context length or "
        "window, or says the input is too long for the model (`Please reduce the length of the "
        "messages` alone is INVALID_REQUEST).",
        http_op(
            400,
            error_body(
                "This model maximum context length is 128000 tokens; your input exceeds it.",
                type_="invalid_request_error",
                code="context_length_exceeded",
            ),
            expect=failure("CONTEXT_WINDOW_EXCEEDED"),
        ),
        http_op(
            400,
            error_body("The input is too long for the model."),
            expect=failure("CONTEXT_WINDOW_EXCEEDED"),
        ),
        http_op(
            400,
            error_body("Please reduce the length of the messages"),
            expect=failure("INVALID_REQUEST"),
        ),
    ),
    wire_case(
        "http-invalid-server-and-other",
        "Other 400 and 413 → `INVALID_REQUEST`; 5xx → `SERVER`; anything else → `HTTP_<status>`.",
        http_op(400, error_body("bad field"), expect=failure("INVALID_REQUEST")),
        http_op(413, "Payload Too Large", expect=failure("INVALID_REQUEST")),
        http_op(500, "", expect=failure("SERVER")),
        http_op(502, "Bad Gateway", expect=failure("SERVER")),
        http_op(418, error_body("teapot"), expect=failure("HTTP_418")),
        http_op(404, "not found", expect=failure("HTTP_404")),
    ),
    wire_case(
        "http-quota-wording-across-code-and-type",
        "QUOTA when the error body (code, type or message) says the quota is insufficient; the "
        "upstream reads the three as one text, `[error.code, error.type, error.message]` joined "
        "with spaces (upstream notes, deepseek-adapter §4.2 step 3): code `insufficient` and "
        "type `quota` say `insufficient quota`, so a 429 is `QUOTA`, not `RATE_LIMIT`.",
        http_op(
            429,
            error_body("please top up", code="insufficient", type_="quota"),
            expect=failure("QUOTA"),
        ),
    ),
]

CASES: list[Case] = [*REQUEST_CASES, *STREAM_CASES, *HTTP_CASES]
