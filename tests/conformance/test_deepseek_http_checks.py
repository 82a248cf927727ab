"""The ``deepseek-http`` machinery: the loopback server records faithfully, and the checks of
what reached it can fail; every case's messages fit the protocol schema."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import pytest_socket
from jsonschema import Draft202012Validator

import dsh_conformance
from dsh_conformance.deepseek.deepseek_http import HTTP_CASES, HttpCase
from dsh_conformance.deepseek.http_rules import RULE_CASES
from dsh_conformance.deepseek.loopback import LoopbackServer, Scripted
from dsh_conformance.harness.protocol import run_message

SCHEMA = json.loads(
    (Path(dsh_conformance.__file__).parent / "harness" / "protocol.schema.json").read_text()
)
VALIDATOR = Draft202012Validator(SCHEMA)
CASE = next(case for case in HTTP_CASES if case.id.endswith("stream-closed"))


@pytest.fixture(autouse=True)
def loopback_only() -> None:
    pytest_socket.enable_socket()
    pytest_socket.socket_allow_hosts(["127.0.0.1"], allow_unix_socket=True)


@pytest.mark.parametrize(
    "case", [*HTTP_CASES, *RULE_CASES], ids=[case.id for case in [*HTTP_CASES, *RULE_CASES]]
)
def test_every_case_fits_the_schema(case: HttpCase) -> None:
    built = case.case("http://127.0.0.1:8765")
    assert VALIDATOR.is_valid(run_message(built.id, built.scenario()))


def post(server: LoopbackServer, body: bytes, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(f"{server.base_url}/chat/completions", content=body, headers=headers)


def test_the_server_records_and_answers_in_script_order() -> None:
    script = [Scripted(parts=(b"data: [DO", b"NE]\n\n")), Scripted(418, (), (b"no",))]
    with LoopbackServer(script) as server:
        first = post(server, b"{}", {"x-test": "1"})
        second = post(server, b"[]", {})
        third = post(server, b"", {})
        recorded = server.recorded
    assert (first.status_code, first.content) == (200, b"data: [DONE]\n\n")
    assert (second.status_code, third.status_code, third.text) == (
        418,
        500,
        "mock script exhausted",
    )
    assert [(r.method, r.path, r.body) for r in recorded] == [
        ("POST", "/chat/completions", b"{}"),
        ("POST", "/chat/completions", b"[]"),
        ("POST", "/chat/completions", b""),
    ]
    assert recorded[0].headers["x-test"] == "1"


def test_the_server_reads_a_chunked_body() -> None:
    with LoopbackServer([Scripted()]) as server:
        httpx.post(f"{server.base_url}/x", content=iter([b'{"a":', b"1}"]))
        (recorded,) = server.recorded
    assert recorded.body == b'{"a":1}'


def test_what_reached_the_server_is_checked() -> None:
    (exchange,) = CASE.exchanges
    expected = exchange.sent
    assert expected is not None
    headers = dict(expected["headers"])
    good = json.dumps(expected["body"]).encode()
    reordered = json.dumps(dict(reversed(list(expected["body"].items())))).encode()

    def problems(*bodies: bytes, **header_changes: str) -> list[str]:
        with LoopbackServer([Scripted()] * len(bodies)) as server:
            for body in bodies:
                post(server, body, {**headers, **header_changes})
            return CASE.sent_problems(server.recorded)

    assert problems(good) == []
    assert "in this order" in problems(reordered)[0]
    assert "header accept" in problems(good, accept="*/*")[0]
    assert "not JSON" in problems(b"{")[0]
    assert "expected 1 request(s)" in problems(good, good)[0]
