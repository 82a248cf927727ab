"""The ``http`` fuzz family's machinery (`dsh_conformance.fuzz.http`): the runner answers each
``loopback-received`` op with what reached that exchange's server, the self-check of a body's
bytes fails where PROMPT-DEEPSEEK-WIRE's "as `JSON.stringify` writes it" is broken, and only
there, and a found scenario is written as an `HttpCase` whose own checks judge what the
self-check judged (`dsh_conformance.fuzz.found.http_case`)."""

from __future__ import annotations

import base64
import json

import pytest

from dsh_conformance.deepseek.loopback import Recorded, allow_loopback_sockets
from dsh_conformance.fuzz.engine import Divergence
from dsh_conformance.fuzz.found import as_case, http_case
from dsh_conformance.fuzz.http import PLACEHOLDER, RECEIVED, body_problems, prefix_problems, run
from dsh_conformance.fuzz.oracles import differences, expectations, self_check
from dsh_conformance.harness.transport import load_implementation

_HELLO = b'data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\n'
_HELLO += b"data: [DONE]\n\n"
_REQUEST = {
    "provider": "deepseek",
    "model": "deepseek-chat",
    "messages": [{"role": "user", "content": [{"type": "text", "text": "\ud83d"}]}],
}


def _exchange(
    key: str, status: int, body: bytes, request: dict[str, object] = _REQUEST
) -> list[dict[str, object]]:
    response = {
        "status": status,
        "headers": [["content-type", "text/event-stream"]],
        "parts": [base64.b64encode(body).decode()],
    }
    op = {"op": "deepseek-http", "request": request, "apiKey": key, "baseUrl": PLACEHOLDER}
    return [{**op, "response": response}, {"op": RECEIVED}]


def _observed(raw: bytes) -> dict[str, object]:
    body = json.loads(raw.decode("utf-8", "surrogatepass"))
    return {"request": {"body": body}, "bytes": base64.b64encode(raw).decode()}


@pytest.mark.usefixtures("loopback_only")
def test_each_exchange_gets_its_own_server_and_record() -> None:
    """A refused request (no key: nothing reaches the server) does not shift the next
    exchange's response or record; the reference against itself satisfies both oracles."""
    ops = _exchange("", 200, _HELLO) + _exchange("sk-1", 503, b"busy")
    reference = load_implementation("reference")
    try:
        outcome = run(reference, "fuzz/test", ops)
    finally:
        reference.close()
    assert outcome.kind == "observed", outcome.reason
    first, received, second, arrived = outcome.observations
    assert first["chunks"][-1]["reason"]["failure"]["code"] == "MISSING_CREDENTIAL"
    assert received == {"received": 0}
    assert second["chunks"][-1]["reason"]["failure"]["code"] == "SERVER"
    assert arrived["request"]["url"] == "/chat/completions"
    assert arrived["request"]["body"]["messages"] == [{"role": "user", "content": "\ud83d"}]
    assert b"\\ud83d" in base64.b64decode(arrived["bytes"])
    expected = expectations(ops, outcome.observations)
    assert differences(ops, expected, outcome.observations) == []
    assert self_check(ops, outcome.observations) == []


@pytest.fixture
def loopback_only() -> None:
    allow_loopback_sockets()


def test_well_formed_bodies_pass() -> None:
    raw = b'{"a":"\\ud83d\\ude00x\\\\uD800","b":"\xf0\x9f\x98\x80"}'
    assert body_problems(_observed(raw)) == []


def test_a_raw_lone_surrogate_is_not_utf8() -> None:
    (problem,) = body_problems(_observed('{"a":"\ud800"}'.encode("utf-8", "surrogatepass")))
    assert "not UTF-8" in problem


def test_a_lone_surrogate_escape_in_uppercase() -> None:
    assert body_problems(_observed(b'{"a":"\\uD800x"}')) == [
        "the lone surrogate escape \\uD800 is not lowercase"
    ]
    assert len(body_problems(_observed(b'{"a":"\\uDE00\\uDE00"}'))) == 2


def test_an_escaped_pair_is_not_lone() -> None:
    """JSON.stringify writes a pair as its character; an escaped pair in any case is the same
    JSON value, which the self-check leaves to the differential comparison."""
    assert body_problems(_observed(b'{"a":"\\uD83D\\uDE00"}')) == []


def test_a_body_that_is_not_json() -> None:
    observed = {"request": {"body": None}, "bytes": base64.b64encode(b"{oops").decode()}
    assert body_problems(observed) == ["the body is not JSON: b'{oops'"]


def _grown(first: bytes, second: bytes) -> list[str]:
    """`prefix_problems`'s texts for two exchanges, the second's history one message longer."""
    asked = {"role": "user", "content": [{"type": "text", "text": "\u2014"}]}
    answered = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
    before = {**_REQUEST, "messages": [asked]}
    after = {**_REQUEST, "messages": [asked, answered]}
    ops = [
        {"op": "deepseek-http", "request": before},
        {"op": RECEIVED},
        {"op": "deepseek-http", "request": after},
        {"op": RECEIVED},
    ]
    observed = [{}, _observed(first), {}, _observed(second)]
    return [f"#{index}: {text}" for index, text in prefix_problems(ops, observed)]


def test_a_grown_history_extends_the_serialized_messages() -> None:
    """Judged as the suite's HTTP cases judge it (`dsh_conformance.judge.prefix_stability`): the
    bytes up to the end of the last message stay, whitespace before the closing ``]`` aside (a
    pretty-printer's)."""
    raw = '{"model":"m","messages":[{"role":"user","content":"\u2014"}],"stream":true}'
    grown = raw.replace("}],", '},{"role":"assistant","content":"ok"}],')
    assert _grown(raw.encode(), grown.encode()) == []
    pretty = raw.replace("[{", "[\n  {").replace("}]", "}\n]")
    assert (
        _grown(pretty.encode(), pretty.replace("}\n]", '},\n  {"role":"assistant"}\n]').encode())
        == []
    )


def test_bytes_before_the_messages_written_otherwise_break_the_prefix() -> None:
    """PROMPT-DEEPSEEK-WIRE: "Byte identity is required between consecutive requests of one
    implementation": the two requests overlap in everything but the new message."""
    raw = '{"model":"m","messages":[{"role":"user","content":"\u2014"}],"stream":true}'
    grown = raw.replace("}],", '},{"role":"assistant","content":"ok"}],')
    spaced = raw.replace('"messages":', ' "messages" : ')
    (problem,) = _grown(spaced.encode(), grown.encode())
    assert problem.startswith("#3: request 2's body does not extend request 1's messages"), problem


def test_an_earlier_message_written_otherwise_breaks_the_prefix() -> None:
    raw = '{"model":"m","messages":[{"role":"user","content":"\u2014"}],"stream":true}'
    escaped = raw.replace("\u2014", "\\u2014").replace("}],", '},{"role":"assistant"}],')
    (problem,) = _grown(raw.encode(), escaped.encode())
    assert "inside messages[0] of request 1" in problem, problem


@pytest.mark.usefixtures("loopback_only")
def test_a_connection_closed_before_done_expects_either_code() -> None:
    """Closed short of its `content-length` before `[DONE]`: the contract names no code for a
    broken connection, so the expectation accepts `STREAM_CLOSED` and `TRANSPORT`; closed after
    `[DONE]`, the answer is complete."""
    partial = b'data: {"choices":[{"delta":{"content":"a"}}]}\n\n'
    ops = _exchange("sk-1", 200, partial) + _exchange("sk-1", 200, _HELLO)
    for op in ops[::2]:
        op["response"]["contentLength"] = 500  # type: ignore[index]
    reference = load_implementation("reference")
    try:
        outcome = run(reference, "fuzz/test", ops)
    finally:
        reference.close()
    cut, _, done, _ = expectations(ops, outcome.observations)
    assert cut["stream"]["finish"]["failure"]["code"] == ["STREAM_CLOSED", "TRANSPORT"]
    assert done["stream"]["finish"] == {"kind": "stop"}


@pytest.mark.usefixtures("loopback_only")
def test_a_found_scenario_is_written_as_an_http_case_with_the_self_checks_rules() -> None:
    """Each exchange of a draft becomes an `Exchange`: refused (nothing reached the server:
    ``sent`` is ``None``), a lone surrogate's lowercase escape required in the raw body, and a
    request whose history grows the one before it required to extend that one's serialized
    messages. The reference's own draft passes as an `HttpCase` on the reference; bodies equal
    as JSON values fail it where their bytes break those two rules, and only there."""
    grown = {
        **_REQUEST,
        "messages": [
            *_REQUEST["messages"],  # type: ignore[list-item]
            {"role": "assistant", "content": [{"type": "text", "text": "\u2014"}]},
        ],
    }
    ops = _exchange("", 200, _HELLO) + _exchange("sk-1", 200, _HELLO)
    ops += _exchange("sk-1", 200, _HELLO, grown)
    reference = load_implementation("reference")
    try:
        outcome = run(reference, "fuzz/test", ops)
        observed = outcome.observations
        found = Divergence("http", ops, expectations(ops, observed), observed, [], [])
        case = http_case(as_case(found, impl="reference", against="reference", seed=0))
        assert case.played(reference)[1] == []
    finally:
        reference.close()
    refused, asked, again = case.exchanges
    assert (refused.sent, refused.api_key, len(case.responses())) == (None, "", 2)
    assert [asked.sent_bytes, again.sent_bytes] == [(b"\\ud83d",), (b"\\ud83d",)]
    assert [refused.extends_previous, asked.extends_previous, again.extends_previous] == [
        False,
        False,
        True,
    ]
    assert asked.sent is not None and again.sent is not None
    first = json.dumps(asked.sent["body"], separators=(",", ":")).encode()
    second = json.dumps(again.sent["body"], separators=(",", ":")).encode()

    def judged(*bodies: bytes) -> list[str]:
        headers = asked.sent["headers"]  # type: ignore[index]
        return case.sent_problems(
            [Recorded("POST", "/chat/completions", headers, body) for body in bodies]
        )

    assert judged(first, second) == []
    upper = [body.replace(b"\\ud83d", b"\\uD83D") for body in (first, second)]
    assert judged(*upper) == [
        f"request {number}: the raw body does not contain \\ud83d" for number in (1, 2)
    ]
    (respaced,) = judged(first, json.dumps(again.sent["body"]).encode())
    assert respaced.startswith("requests 1 and 2 (1 and 2 below): request 2's body does not extend")
