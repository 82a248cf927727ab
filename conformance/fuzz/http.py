"""The ``http`` family: ``deepseek-http`` exchanges with the suite's loopback server
(PROMPT-DEEPSEEK-WIRE over real HTTP, capability ``deepseek-http``).

A scenario is one to three exchanges. Each is a ``deepseek-http`` op (a request the
implementation sends through its own HTTP adapter) carrying, under ``response``, the raw response
its own loopback server (`conformance.deepseek.loopback`) plays back, followed by a
``loopback-received`` op: not sent to the implementation, it stands for what reached that server.
`run` starts one server per exchange on 127.0.0.1 around each run, writes each server's URL into
its op (generated ops hold `PLACEHOLDER`), strips what only the suite reads, and answers the
``loopback-received`` ops from the servers' records. Both oracles then judge it as any scenario:
the differential one compares the stream (`conformance.fuzz.oracles.wire_expectation`) and the
request that arrived (method, URL, the three contractual headers, the body as a JSON value with key
order), and the self-check judges the raw body's bytes (`body_problems`: "the body is JSON as
`JSON.stringify` writes it") and, where a request's history extends the one before it, the prefix
stability of its serialized messages (`prefix_problems`, PROMPT-CACHE-E2E, judged by
`conformance.judge.prefix_stability` as the suite's HTTP cases are).

What is drawn: requests whose texts hold lone surrogates, surrogate halves that join into a pair
across text blocks, control characters and line separators, with keys to trim or refuse (nothing
may reach the server then), some the next request of the one before (its history grown); 200
responses whose SSE body (deltas, finishes, usage, ``[DONE]``) is written in parts cut at any
byte, or closed short of an announced ``content-length`` (before the ``[DONE]`` event or after
it); error responses of any status from 400 to 999, with bodies that are JSON, wording, or not
UTF-8, request ids, and ``Retry-After`` in seconds or as a past HTTP date of each form. What is
left out is in `conformance.fuzz.generate.AVOIDED`.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, Final

from ..deepseek.loopback import LoopbackServer, Recorded, Scripted
from ..harness.protocol import Outcome
from ..harness.transport import Implementation
from ..judge.prefix_stability import prefix_problems as body_prefix_problems

if TYPE_CHECKING:
    from .generate import _Builder

Json = Any
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

#: The ``baseUrl`` of a generated op, replaced by its server's URL when it runs (it matches the
#: schema's pattern, so a scenario is well-formed as drawn).
PLACEHOLDER: Final = "http://127.0.0.1:0"
#: The op that stands for what reached an exchange's server; never sent to an implementation.
RECEIVED: Final = "loopback-received"
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
#: A JSON string escape (every backslash in a JSON text starts one).
_ESCAPE: Final = re.compile(rb"\\(?:u([0-9A-Fa-f]{4})|.)")


def http_steps(builder: _Builder) -> None:
    """One to three exchanges, each a ``deepseek-http`` op and its ``loopback-received``."""
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


def _text(builder: _Builder) -> Json:
    pieces = [builder.pick(PIECES) for _ in range(builder.between(1, 3))]
    return {"type": "text", "text": "".join(pieces)}


def _messages(builder: _Builder, most: int) -> list[Json]:
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


def _request(builder: _Builder) -> Json:
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


def _response(builder: _Builder) -> Json:
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
    return {"status": pick(STATUSES), "headers": headers, "parts": [_b64(body)]}


def _stream(builder: _Builder) -> Json:
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
    response["parts"] = [_b64(body[a:b]) for a, b in bounds if b > a]
    return response


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def scripted(response: Json) -> Scripted:
    """An op's raw ``response`` as the loopback server's `Scripted`."""
    return Scripted(
        status=response["status"],
        headers=tuple((name, value) for name, value in response["headers"]),
        parts=tuple(base64.b64decode(part) for part in response["parts"]),
        content_length=response.get("contentLength"),
    )


def cut_short(op: Json) -> bool:
    """Whether the op's response closes before its announced ``content-length``."""
    response = op.get("response", {})
    length = response.get("contentLength")
    return length is not None and length > sum(
        len(base64.b64decode(part)) for part in response["parts"]
    )


def run(impl: Implementation, case_id: str, ops: list[Json]) -> Outcome:
    """Run ``ops`` on ``impl`` with one loopback server per ``deepseek-http`` op; the
    ``loopback-received`` ops are answered from the servers' records (what reached each)."""
    with ExitStack() as stack:
        sent: list[Json] = []
        servers: list[LoopbackServer] = []
        for op in ops:
            if op["op"] == RECEIVED:
                continue
            if op["op"] == "deepseek-http":
                server = stack.enter_context(LoopbackServer([scripted(op["response"])]))
                servers.append(server)
                op = {k: v for k, v in op.items() if k != "response"}
                op["baseUrl"] = server.base_url
            sent.append(op)
        outcome = impl.run(case_id, {"ops": sent})
        records = [server.recorded for server in servers]
    if outcome.kind != "observed":
        return outcome
    answers = iter(outcome.observations)
    received = iter(records)
    observations = [
        _received(next(received)) if op["op"] == RECEIVED else next(answers) for op in ops
    ]
    return Outcome("observed", observations)


def _received(recorded: list[Recorded]) -> Json:
    """What reached one server: its one request, parsed, with the body's bytes (base64) for the
    self-check; or how many requests arrived when that is not one."""
    if len(recorded) != 1:
        return {"received": len(recorded)}
    got = recorded[0]
    try:
        body = _loads(got.body)
    except ValueError:
        body = None
    request = {"method": got.method, "url": got.path, "headers": got.headers, "body": body}
    return {"request": request, "bytes": _b64(got.body)}


def _loads(data: bytes) -> Json:
    """The body as a JSON value; raw surrogate bytes read as the surrogates they encode, so that
    the differential comparison sees the value and `body_problems` the bytes."""
    return json.loads(data.decode("utf-8", "surrogatepass"))


def body_problems(observed: Json) -> list[str]:
    """What is wrong with a request body's bytes, by PROMPT-DEEPSEEK-WIRE: "the body is JSON as
    `JSON.stringify` writes it — in particular a lone surrogate in any string is written as the
    escape `\\udXXX` (lowercase hex), never as raw bytes and never as an encoding error". So the
    bytes are well-formed UTF-8 holding JSON, and each escape of a lone surrogate is lowercase.
    (Which other characters are escaped is not judged: bodies are compared as JSON values.)"""
    if not isinstance(observed, dict) or not isinstance(observed.get("bytes"), str):
        return []
    raw = base64.b64decode(observed["bytes"])
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return [f"the body is not UTF-8 ({error}): a lone surrogate must go out as an escape"]
    if observed.get("request", {}).get("body") is None:
        return [f"the body is not JSON: {raw[:200]!r}"]
    escapes = list(_ESCAPE.finditer(raw))
    problems = []
    for index, match in enumerate(escapes):
        hexa = match.group(1)
        if hexa is None or not _surrogate(hexa) or hexa == hexa.lower():
            continue
        high = int(hexa, 16) < 0xDC00
        other = escapes[index + 1] if high and index + 1 < len(escapes) else None
        if not high and index:
            other = escapes[index - 1]
        adjacent = other is not None and (
            other.start() == match.end() if high else other.end() == match.start()
        )
        half = other.group(1) if adjacent and other is not None else None
        if half is None or not _surrogate(half) or (int(half, 16) < 0xDC00) == high:
            problems.append(f"the lone surrogate escape \\u{hexa.decode()} is not lowercase")
    return problems


def _surrogate(hexa: bytes) -> bool:
    return 0xD800 <= int(hexa, 16) <= 0xDFFF


def prefix_problems(ops: list[Json], observed: list[Json]) -> list[tuple[int, str]]:
    """``(op index, what is wrong)`` where a request whose history extends the one before it
    (the same call, more messages) is not byte-identical to it where they overlap, judged by
    `conformance.judge.prefix_stability` as the suite's HTTP cases are: PROMPT-CACHE-E2E, "each
    request body's serialized messages extend the previous request's byte for byte", and
    PROMPT-DEEPSEEK-WIRE, "Byte identity is required between consecutive requests of one
    implementation (the prefix stability of PROMPT-CACHE-E2E)"."""
    exchanges = [
        (index + 1, op["request"], observed[index + 1])
        for index, op in enumerate(ops[:-1])
        if op["op"] == "deepseek-http" and ops[index + 1]["op"] == RECEIVED
    ]
    problems = []
    for (_, before, seen), (index, after, got) in itertools.pairwise(exchanges):
        first, second = _json_body(seen), _json_body(got)
        if grown(before, after) and first is not None and second is not None:
            problems += [(index, problem) for problem in body_prefix_problems([first, second])]
    return problems


def _json_body(observed: Json) -> bytes | None:
    """The raw body of a request that reached the server (``None``: none, or one that is not
    UTF-8 JSON, which `body_problems` reports)."""
    if not isinstance(observed, dict) or not isinstance(observed.get("bytes"), str):
        return None
    if observed.get("request", {}).get("body") is None:
        return None
    raw = base64.b64decode(observed["bytes"])
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return raw


def grown(before: Json, after: Json) -> bool:
    """Whether the request ``after`` is ``before`` with its history grown: the same call, more
    messages, the earlier ones the same."""
    kept = {**after, "messages": after["messages"][: len(before["messages"])]}
    return kept == before and len(after["messages"]) > len(before["messages"])
