"""The ``wire`` family: ops of the ``deepseek-wire`` capability (PROMPT-DEEPSEEK-WIRE).

Each op is a pure function of what it gives, so a scenario is a few independent ops: requests to
serialize (call configs, every message block kind, system, tools, keys to check and trim),
response bodies cut into byte chunks anywhere (content, reasoning and tool-call deltas, finish
reasons, usage with and without cache hits, `[DONE]`, comments, CRLF line ends, a leading BOM),
and error responses (statuses, bodies with and without the quota and context wordings,
`Retry-After` in seconds and as HTTP dates, request ids). What their observations are compared
on is `conformance.fuzz.oracles.wire_expectation`: never a failure's message.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from .generate import _Builder

Json = Any

BASE_URL: Final = "https://api.deepseek.test"
#: Keys: valid, empty, trimmed (spaces, U+00A0, which JavaScript's `trim` trims), and one with a
#: character outside U+0021 to U+007E. Never U+0085 (`AVOIDED`).
KEYS: Final = ("sk-1", "", "  sk-2 ", "\u00a0sk-3\u00a0", "k\u00e9y")
EFFORTS: Final = (None, "off", "low", "high", "max", "medium")
#: SSE payloads, each one `data:` line's value.
PAYLOADS: Final = (
    '{"choices":[{"delta":{"content":"he"}}]}',
    '{"choices":[{"delta":{"content":"llo"}}]}',
    '{"choices":[{"delta":{"content":"\u00e9\U0001f600"}}]}',
    '{"choices":[{"delta":{"reasoning_content":"th"}}]}',
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"t",'
    '"arguments":"{\\"a\\""}}]}}]}',
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}',
    '{"choices":[{"delta":{},"finish_reason":"stop"}]}',
    '{"choices":[{"delta":{},"finish_reason":"length"}]}',
    '{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}',
    '{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}',
    '{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,'
    '"prompt_cache_hit_tokens":3,"prompt_cache_miss_tokens":2}}',
    "[DONE]",
)
STATUSES: Final = (400, 401, 402, 403, 404, 413, 422, 429, 500, 502, 503, 599)
BODIES: Final = (
    "",
    '{"error":{"message":"bad request"}}',
    '{"error":{"message":"Insufficient Balance"}}',
    '{"error":{"message":"maximum context length exceeded"}}',
    "not json",
)
RETRY_AFTERS: Final = (
    "2",
    "0",
    "1.5",
    "Wed, 21 Oct 2015 07:28:00 GMT",
    "Fri, 31 Dec 2100 00:00:00 GMT",
)
NOW_MS: Final = 1_700_000_000_000


def wire_steps(builder: _Builder) -> None:
    """One to four independent wire ops."""
    for _ in range(builder.between(1, 4)):
        kind = builder.pick(["request", "stream", "stream", "error"])
        if kind == "request":
            builder.ops.append(
                {
                    "op": "deepseek-request",
                    "request": _request(builder),
                    "apiKey": builder.pick(KEYS),
                    "baseUrl": BASE_URL,
                }
            )
        elif kind == "stream":
            builder.ops.append({"op": "deepseek-stream", "chunks": _chunks(builder)})
        else:
            builder.ops.append(_error(builder))


def _request(builder: _Builder) -> Json:
    pick, chance = builder.pick, builder.chance
    request: Json = {"provider": "deepseek", "model": pick(["deepseek-chat", "deepseek-reasoner"])}
    effort = pick(EFFORTS)
    if effort is not None:
        request["reasoningEffort"] = effort
    if chance(30):
        request["temperature"] = pick([0, 0.7])
    if chance(30):
        request["maxTokens"] = 100
    if chance(30):
        request["stop"] = pick([[], ["x"]])
    request["messages"] = [_message(builder) for _ in range(builder.between(1, 3))]
    if chance(50):
        request["system"] = pick(["", "S"])
    if chance(30):
        parameters = {"type": "object", "properties": {"b": {"type": "string"}}}
        tools = [{"name": name, "description": "d", "parameters": parameters} for name in "tu"]
        request["tools"] = pick([[], tools[:1], tools])
    if chance(30):
        request["sessionId"] = "s1"
    return request


def _message(builder: _Builder) -> Json:
    pick = builder.pick
    kind = pick(["user", "user", "assistant", "tool", "mixed"])
    if kind == "user":
        text = pick(["hi", "", "a\u2028b\u0007", "\U0001f600"])
        return {"role": "user", "content": [{"type": "text", "text": text}]}
    if kind == "mixed":  # tool results and text in one user message
        result = {
            "type": "tool-result",
            "toolCallId": "c1",
            "content": [{"type": "text", "text": "r"}],
        }
        return {"role": "user", "content": [{"type": "text", "text": "and"}, result]}
    if kind == "tool":
        block: Json = {
            "type": "tool-result",
            "toolCallId": "c1",
            "content": [{"type": "text", "text": pick(["r", ""])}],
        }
        if builder.chance(30):
            block["isError"] = True
        return {"role": "user", "content": [block]}
    content: list[Json] = []
    if builder.chance(40):
        content.append({"type": "reasoning", "text": "th"})
    if builder.chance(70):
        content.append({"type": "text", "text": pick(["ok", ""])})
    if builder.chance(40):
        content.append(
            {
                "type": "tool-call",
                "id": "c1",
                "name": pick(["t", "u"]),
                "arguments": pick(["", "{}"]),
            }
        )
    return {"role": "assistant", "content": content}


def _chunks(builder: _Builder) -> list[str]:
    """A body of SSE events, cut into byte chunks at drawn positions."""
    pick, chance = builder.pick, builder.chance
    end = "\r\n" if chance(20) else "\n"
    lines = []
    for _ in range(builder.between(0, 6)):
        if chance(10):
            lines.append(f": keep-alive{end}")
        lines.append(f"data: {pick(PAYLOADS)}{end}{end}")
    body = ("\ufeff" if chance(10) else "") + "".join(lines)
    data = body.encode()
    cuts = sorted({builder.between(0, len(data)) for _ in range(builder.between(0, 3))})
    parts = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
    return [base64.b64encode(part).decode("ascii") for part in parts if part] or [""]


def _error(builder: _Builder) -> Json:
    pick, chance = builder.pick, builder.chance
    headers: Json = {}
    if chance(40):
        headers["retry-after"] = pick(RETRY_AFTERS)
    if chance(40):
        headers[pick(["x-request-id", "x-deepseek-request-id"])] = pick(["r1", ""])
    return {
        "op": "deepseek-http-error",
        "status": pick(STATUSES),
        "body": pick(BODIES),
        "headers": headers,
        "nowMs": NOW_MS,
    }
