"""The ``http`` family's draws: ``deepseek-http`` exchanges with the suite's loopback server.

What is drawn: requests whose texts hold lone surrogates, surrogate halves that join into a pair
across text blocks, control characters and line separators, with keys to trim or refuse (nothing
may reach the server then), some the next request of the one before (its history grown); 200
responses whose SSE body (deltas, finishes, usage, ``[DONE]``) is written in parts cut at any
byte, or closed short of an announced ``content-length`` (before the ``[DONE]`` event or after
it); error responses of any status from 400 to 999, with bodies that are JSON, wording, or not
UTF-8, request ids, and ``Retry-After`` in seconds or as a past HTTP date of each form. What is
left out is in `dsh_conformance.fuzz.generate.AVOIDED`. How a scenario runs and is judged is
`dsh_conformance.fuzz.http`.
"""

from __future__ import annotations

from typing import Final

from hypothesis import strategies as st

from ..http import PLACEHOLDER, RECEIVED, b64
from .builder import Builder, Json

#: SSE payloads, each one `data:` line's value: the deltas of a stream, its finishes and usages
#: (well-formed ones: what the wire family draws in its odd shapes, this family reads over HTTP
#: whole, cut or closed short).
DELTAS: Final = (
    '{"choices":[{"delta":{"content":"he"}}]}',
    '{"choices":[{"delta":{"content":"llo"}}]}',
    '{"choices":[{"delta":{"content":"\u00e9\U0001f600"}}]}',
    '{"choices":[{"delta":{"reasoning_content":"th"}}]}',
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"t",'
    '"arguments":"{\\"a\\""}}]}}]}',
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}',
)
FINISHES: Final = (
    '{"choices":[{"delta":{},"finish_reason":"stop"}]}',
    '{"choices":[{"delta":{},"finish_reason":"length"}]}',
    '{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}',
)
USAGES: Final = (
    '{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}',
    '{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,'
    '"prompt_cache_hit_tokens":3,"prompt_cache_miss_tokens":2}}',
)

#: Keys: valid, trimmed (JavaScript's `trim` white space), missing and invalid (refused before any
#: I/O: nothing may reach the server). Never U+0085 (`AVOIDED`).
KEYS: Final = ("sk-1", "sk-1", "sk-1", " sk-2\u3000", "", "k\u00e9y")
#: Text pieces joined into text blocks: a lone high surrogate and a lone low one (a block ending
#: in one and the next starting with the other join into a pair, one character), a character
#: outside the BMP, control characters and DEL, and U+2028, which JSON.stringify leaves raw.
PIECES: Final = (
    "a",
    "\ud83d",
    "\ude00",
    "\udbff",
    "\udfff",
    "\U0001f600",
    "\x00\x1f\x7f",
    "\u2028",
)
STATUSES: Final = (400, 401, 402, 403, 404, 413, 429, 500, 502, 503, 599, 600, 601, 799, 999)
#: Error bodies: JSON with and without the quota and context wordings, plain text, and bodies that
#: are not UTF-8 (with no wording in them: `AVOIDED`).
BODIES: Final = (
    b"",
    b'{"error":{"message":"bad request"}}',
    b'{"error":{"message":"Insufficient Balance"}}',
    b'{"error":{"message":"maximum context length exceeded"}}',
    b"Bad Gateway",
    b'{"error":{"message":"\xff\xfe"}}',
    b"\x80oops\xc3",
)
#: Retry-After values whose outcome does not depend on the clock: seconds (whole, zero, a
#: fraction; a header value goes out as Latin-1 bytes, so no Arabic-Indic digit) and past HTTP
#: dates in the IMF-fixdate, RFC 850 and asctime forms (RFC 9110's own examples, from 1994).
#: Never a future date (`AVOIDED`).
RETRY_AFTERS: Final = (
    "2",
    "0",
    "1.5",
    "Sun, 06 Nov 1994 08:49:37 GMT",
    "Sunday, 06-Nov-94 08:49:37 GMT",
    "Sun Nov  6 08:49:37 1994",
)
_SSE: Final = (("content-type", "text/event-stream"),)
_ERROR_TYPES: Final = (("content-type", "application/json"), ("content-type", "text/plain"))


def http_ops(draw: st.DrawFn, capabilities: frozenset[str]) -> list[Json]:
    """One to three exchanges, each a ``deepseek-http`` op and its ``loopback-received``."""
    builder = Builder(draw, capabilities)
    previous: Json = None
    for _ in range(builder.between(1, 3)):
        if previous is not None and builder.chance(40):
            # The next request of a conversation: the same call, its history grown by a
            # message or two (PROMPT-CACHE-E2E's prefix stability, `prefix_problems`).
            grown = previous["messages"] + _messages(builder, 2)
            request = {**previous, "messages": grown}
        else:
            request = _request(builder)
        previous = request
        op = {
            "op": "deepseek-http",
            "request": request,
            "apiKey": builder.pick(KEYS),
            "baseUrl": PLACEHOLDER,
            "response": _response(builder),
        }
        builder.ops += [op, {"op": RECEIVED}]
    return builder.ops


def _text(builder: Builder) -> Json:
    pieces = [builder.pick(PIECES) for _ in range(builder.between(1, 3))]
    return {"type": "text", "text": "".join(pieces)}


def _messages(builder: Builder, most: int) -> list[Json]:
    """One to ``most`` user and assistant messages."""
    pick, chance = builder.pick, builder.chance
    messages: list[Json] = []
    for _ in range(builder.between(1, most)):
        if chance(30):
            content: list[Json] = [_text(builder)]
            if chance(40):
                content.insert(0, {"type": "reasoning", "text": pick(PIECES)})
            if chance(30):
                call = {"type": "tool-call", "id": "c1", "name": "t", "arguments": "{}"}
                content.append(call)
            messages.append({"role": "assistant", "content": content})
        else:
            blocks = [_text(builder) for _ in range(builder.between(1, 3))]
            messages.append({"role": "user", "content": blocks})
    return messages


def _request(builder: Builder) -> Json:
    pick, chance = builder.pick, builder.chance
    messages = _messages(builder, 3)
    request: Json = {"provider": "deepseek", "model": pick(["deepseek-chat", "deepseek-reasoner"])}
    effort = pick([None, None, "high", "off", "medium"])
    if effort is not None:
        request["reasoningEffort"] = effort
    if chance(20):
        request["temperature"] = 0.7
    request["messages"] = messages
    if chance(40):
        request["system"] = _text(builder)["text"]
    return request


def _response(builder: Builder) -> Json:
    """A 200 with an SSE body (4 in 7), else an error response."""
    if builder.chance(57):
        return _stream(builder)
    pick, chance = builder.pick, builder.chance
    headers = [list(pick(_ERROR_TYPES))]
    if chance(40):
        headers.append([pick(["retry-after", "Retry-After"]), pick(RETRY_AFTERS)])
    if chance(25):
        headers.append([pick(["x-request-id", "x-deepseek-request-id"]), pick(["r1", ""])])
    body = pick(BODIES)
    return {"status": pick(STATUSES), "headers": headers, "parts": [b64(body)]}


def _stream(builder: Builder) -> Json:
    """Deltas, maybe a finish and a usage, maybe ``[DONE]``, cut into parts at drawn bytes;
    sometimes closed short of an announced ``content-length``: anywhere before the ``[DONE]``
    event, or after the whole body."""
    pick, chance = builder.pick, builder.chance
    line_end = pick(["\n", "\r\n"])
    payloads = [pick(DELTAS) for _ in range(builder.between(0, 3))]
    payloads += [pick(FINISHES)] if chance(70) else []
    payloads += [pick(USAGES)] if chance(30) else []
    done = chance(80)
    text = "".join(f"data: {payload}{line_end}{line_end}" for payload in payloads)
    body = text.encode("utf-8", "surrogateescape")
    before_done = len(body)
    if done:
        body += f"data: [DONE]{line_end}{line_end}".encode()
    response: Json = {"status": 200, "headers": [list(header) for header in _SSE]}
    if chance(40):  # the connection drops: the announced length is never reached
        kept = builder.between(0, before_done) if chance(50) else len(body)
        response["contentLength"] = len(body) + 10
        body = body[:kept]
    cuts = sorted({builder.between(0, len(body)) for _ in range(builder.between(0, 3))})
    bounds = zip([0, *cuts], [*cuts, len(body)], strict=True)
    response["parts"] = [b64(body[a:b]) for a, b in bounds if b > a]
    return response
