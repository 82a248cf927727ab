"""PROMPT-DEEPSEEK-WIRE over real HTTP: the ``deepseek-http`` cases (capability ``deepseek-http``).

A case is a list of exchanges. For each, the implementation sends one request through its own
HTTP adapter to the suite's loopback server (`dsh_conformance.deepseek.loopback`), which answers
with the scripted response and records what arrived. Two things are judged: the stream chunks the
implementation observed (as for ``deepseek-stream``), and the recorded requests — `POST
/chat/completions`, the three contractual headers, and the body parsed from the bytes that arrived,
compared as a JSON value with key order; an exchange may also require pieces of the raw body,
and that its body's serialized messages extend the previous exchange's byte for byte. Expectations
are worked out by hand from CONTRACTS.md; a case `dsh-conformance fuzz` writes for its ``http``
family is an `HttpCase` too, a draft (`dsh_conformance.fuzz.found.http_case`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from ..cases.deepseek import (
    CALL,
    CALL_WIRE,
    FIRST,
    KEY,
    STOP,
    WEATHER,
    WEATHER_WIRE,
    WIRE,
    assistant,
    body,
    failed,
    sse,
    stream,
    text,
    tool_call,
    tool_result,
    user,
    wire_request,
)
from ..harness.protocol import Outcome
from ..harness.transport import Implementation
from ..judge.case import Case, mismatches
from ..judge.prefix_stability import prefix_problems
from ..judge.wire_compare import compare_request
from .loopback import LoopbackServer, Recorded, Scripted

Json = Any
REQUIRES: Final = ("deepseek-http",)
_ERROR_HEADERS: Final = (("content-type", "application/json"),)


@dataclass(frozen=True)
class Exchange:
    """One request: what the implementation is asked to send, what the server answers, the body
    that must arrive (``None``: nothing may be sent), and the stream it must observe.
    ``sent_bytes`` are pieces of JSON text the raw body must contain, for the rules about how the
    body is written rather than what it means (a lone surrogate's escape). ``extends_previous``:
    the request is the one before it with its history grown, so its body's serialized messages
    must extend that request's byte for byte ("Byte identity is required between consecutive
    requests of one implementation", PROMPT-DEEPSEEK-WIRE; PROMPT-CACHE-E2E's prefix stability,
    judged by `dsh_conformance.judge.prefix_stability`); the exchange before it reaches the
    server."""

    request: Json
    response: Scripted
    sent: Json | None
    stream: Json
    api_key: str = KEY
    sent_bytes: tuple[bytes, ...] = ()
    extends_previous: bool = False


@dataclass(frozen=True)
class HttpCase:
    """``contracts``: the contract IDs the case checks (PROMPT-DEEPSEEK-WIRE's, unless a case
    says otherwise: a found case's are those of the rule it broke)."""

    id: str
    why: str
    exchanges: tuple[Exchange, ...]
    contracts: tuple[str, ...] = WIRE

    def responses(self) -> list[Scripted]:
        return [exchange.response for exchange in self.exchanges if exchange.sent is not None]

    def case(self, base_url: str) -> Case:
        """The protocol case, once the server's URL is known."""
        ops = tuple(
            {
                "op": "deepseek-http",
                "request": exchange.request,
                "apiKey": exchange.api_key,
                "baseUrl": base_url,
                "expect": exchange.stream,
            }
            for exchange in self.exchanges
        )
        return Case(id=self.id, contracts=self.contracts, why=self.why, ops=ops, requires=REQUIRES)

    def played(self, impl: Implementation) -> tuple[Outcome, list[str]]:
        """``impl``'s outcome on the case against one loopback server, and what is wrong with
        it: the chunks observed (the suite's comparison) and what reached the server
        (`sent_problems`); nothing unless the outcome is ``observed``. What ``test_deepseek_http``
        judges, for a caller outside a test (`dsh_conformance.fuzz.found`)."""
        with LoopbackServer(self.responses()) as server:
            case = self.case(server.base_url)
            outcome = impl.run(case.id, case.sent_scenario())
            recorded = server.recorded
        if outcome.kind != "observed":
            return outcome, []
        return outcome, mismatches(case, outcome.observations) + self.sent_problems(recorded)

    def sent_problems(self, recorded: list[Recorded]) -> list[str]:
        """How the requests that reached the server differ from the expected ones."""
        expected = [exchange for exchange in self.exchanges if exchange.sent is not None]
        if len(recorded) != len(expected):
            return [f"expected {len(expected)} request(s) to reach the server, got {len(recorded)}"]
        problems = []
        previous = b""
        for number, (exchange, got) in enumerate(zip(expected, recorded, strict=True), start=1):
            problems += [
                f"request {number}: the raw body does not contain {piece.decode()}"
                for piece in exchange.sent_bytes
                if piece not in got.body
            ]
            if exchange.extends_previous:
                problems += [
                    f"requests {number - 1} and {number} (1 and 2 below): {problem}"
                    for problem in prefix_problems([previous, got.body])
                ]
            previous = got.body
            try:
                sent_body = json.loads(got.body)
            except ValueError:
                problems.append(f"request {number}: the body is not JSON: {got.body[:200]!r}")
                continue
            observed = {
                "request": {
                    "method": got.method,
                    "url": got.path,
                    "headers": got.headers,
                    "body": sent_body,
                }
            }
            problem = compare_request(exchange.sent, observed)
            if problem:
                problems.append(f"request {number}: {problem}")
        return problems


def sent(expected_body: Json) -> Json:
    return {
        "method": "POST",
        "url": "/chat/completions",
        "headers": {
            "authorization": f"Bearer {KEY}",
            "content-type": "application/json",
            "accept": "text/event-stream",
        },
        "body": expected_body,
    }


def http_failed(code: str, status: int, **facts: Json) -> Json:
    """An HTTP failure's finish: its code, its ``status``, and ``facts`` (``requestId``,
    ``providerRetryAfterMs``), each compared exactly, absent when not given."""
    return {"kind": "error", "failure": {"code": code, "status": status, **facts}}


def parts(data: bytes, size: int) -> tuple[bytes, ...]:
    return tuple(data[i : i + size] for i in range(0, len(data), size))


def streamed(data: bytes, size: int = 7) -> Scripted:
    return Scripted(parts=parts(data, size))


ASK: Final = user(text("Weather in Paris?"))
CALLED: Final = assistant({"type": "reasoning", "text": "Check it."}, CALL)
RESULT: Final = user(tool_result("call_1", text("Sunny, 22°C")))
ANSWER: Final = assistant(text("Sunny, 22°C."))
AGAIN: Final = user(text("Thanks. Again?"))
ASK_WIRE: Final = {"role": "user", "content": "Weather in Paris?"}
CALLED_WIRE: Final = {
    "role": "assistant",
    "content": "",
    "reasoning_content": "Check it.",
    "tool_calls": [CALL_WIRE],
}
RESULT_WIRE: Final = {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 22°C"}
SYSTEM_WIRE: Final = {"role": "system", "content": "Be brief."}


def _request(*messages: Json) -> Json:
    return wire_request(*messages, system="Be brief.", tools=[WEATHER], maxTokens=256)


def _body(*messages: Json) -> Json:
    return body(SYSTEM_WIRE, *messages, tools=[WEATHER_WIRE], max_tokens=256)


_CALL_STREAM: Final = sse(
    FIRST,
    '{"choices":[{"delta":{"content":null,"reasoning_content":"Check it."}}]}',
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
    '"function":{"name":"get_weather","arguments":"{\\"city\\": "}}]}}]}',
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"Paris\\"}"}}]}}]}',
    '{"choices":[{"delta":{},"finish_reason":"tool_calls"}],'
    '"usage":{"prompt_tokens":90,"completion_tokens":12,"prompt_cache_hit_tokens":0}}',
    "[DONE]",
    line_end="\r\n",
)
_ANSWER_STREAM: Final = sse(
    '{"choices":[{"delta":{"content":"Sunny, 22°C."},"finish_reason":"stop"}],"usage":null}',
    '{"choices":[],"usage":{"prompt_tokens":130,"completion_tokens":6,'
    '"prompt_tokens_details":{"cached_tokens":64}}}',
    "[DONE]",
)
_AGAIN_STREAM: Final = sse(
    '{"choices":[{"delta":{"content":"Sunny, 22°C."},"finish_reason":"stop"}],'
    '"usage":{"prompt_tokens":150,"completion_tokens":6,"prompt_cache_hit_tokens":128}}',
    "[DONE]",
)

HTTP_CASES: list[HttpCase] = [
    HttpCase(
        "deepseek-http/tool-round-trip-and-follow-up",
        "Over HTTP: `POST {base}/chat/completions` with `authorization: Bearer <key>`, "
        "`content-type: application/json`, `accept: text/event-stream`; body keys in order; "
        'assistant `content` `""` with `reasoning_content` and `tool_calls`, then the tool '
        'result as `role: "tool"`; the stream (written in 7-byte parts, CRLF framing in the '
        "first) gives the blocks, usage (`inputTokens` = `prompt_tokens` - cache reads: 130 - "
        "64 = 66, 150 - 128 = 22) and finish.",
        (
            Exchange(
                _request(ASK),
                streamed(_CALL_STREAM),
                sent(_body(ASK_WIRE)),
                stream(
                    [
                        {"type": "reasoning", "text": "Check it."},
                        tool_call("call_1", "get_weather", '{"city": "Paris"}'),
                    ],
                    {"kind": "tool-calls"},
                    usage={"inputTokens": 90, "outputTokens": 12, "cacheReadTokens": 0},
                ),
            ),
            Exchange(
                _request(ASK, CALLED, RESULT),
                streamed(_ANSWER_STREAM),
                sent(_body(ASK_WIRE, CALLED_WIRE, RESULT_WIRE)),
                stream(
                    [text("Sunny, 22°C.")],
                    STOP,
                    usage={"inputTokens": 66, "outputTokens": 6, "cacheReadTokens": 64},
                ),
            ),
            Exchange(
                _request(ASK, CALLED, RESULT, ANSWER, AGAIN),
                streamed(_AGAIN_STREAM, size=1),
                sent(
                    _body(
                        ASK_WIRE,
                        CALLED_WIRE,
                        RESULT_WIRE,
                        {"role": "assistant", "content": "Sunny, 22°C."},
                        {"role": "user", "content": "Thanks. Again?"},
                    )
                ),
                stream(
                    [text("Sunny, 22°C.")],
                    STOP,
                    usage={"inputTokens": 22, "outputTokens": 6, "cacheReadTokens": 128},
                ),
            ),
        ),
    ),
    HttpCase(
        "deepseek-http/error-responses",
        "An HTTP error ends the stream with its failure, which carries `status` (the HTTP "
        "status) and no `requestId` (no request-id header): other 429 → `RATE_LIMIT`; 5xx → "
        "`SERVER`; an error body saying the balance is insufficient → `QUOTA` (any status). "
        "(`Retry-After` over HTTP is `deepseek-http/retry-after-on-any-status`'s rule.)",
        (
            Exchange(
                _request(ASK),
                Scripted(429, _ERROR_HEADERS, (b'{"error":{"message":"slow down"}}',)),
                sent(_body(ASK_WIRE)),
                stream([], http_failed("RATE_LIMIT", 429)),
            ),
            Exchange(
                _request(ASK),
                Scripted(502, (("content-type", "text/plain"),), (b"Bad Gateway",)),
                sent(_body(ASK_WIRE)),
                stream([], http_failed("SERVER", 502)),
            ),
            Exchange(
                _request(ASK),
                Scripted(402, _ERROR_HEADERS, (b'{"error":{"message":"Insufficient Balance"}}',)),
                sent(_body(ASK_WIRE)),
                stream([], http_failed("QUOTA", 402)),
            ),
        ),
    ),
    HttpCase(
        "deepseek-http/stream-closed",
        "EOF without `[DONE]` → `STREAM_CLOSED`, also when the body ends right after a "
        "`data:` payload.",
        (
            Exchange(
                _request(ASK),
                streamed(sse('{"choices":[]}')),
                sent(_body(ASK_WIRE)),
                stream([], failed("STREAM_CLOSED")),
            ),
        ),
    ),
]
