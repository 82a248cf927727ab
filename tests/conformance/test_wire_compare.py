"""The ``deepseek-wire`` comparisons reject what the contract rejects, and only that."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.judge.wire_compare import (
    compare_failure,
    compare_request,
    compare_stream,
    ordered_difference,
)
from dsh_conformance.test_golden_wire import contractual_headers_only

Json = Any
TEXT = {"type": "text", "text": "ab"}
GOOD = [
    {"type": "block-start", "index": 0, "blockType": "text"},
    {"type": "text-delta", "index": 0, "text": "a"},
    {"type": "text-delta", "index": 0, "text": "b"},
    {"type": "block-end", "index": 0, "block": TEXT},
    {"type": "usage", "usage": {"inputTokens": 1, "outputTokens": 2}},
    {"type": "finish", "reason": {"kind": "stop"}},
]
EXPECTED = {
    "blocks": [TEXT],
    "usage": {"inputTokens": 1, "outputTokens": 2},
    "finish": {"kind": "stop"},
}


def test_key_order_numbers_and_booleans() -> None:
    assert ordered_difference({"a": 1, "b": [1.0]}, {"a": 1.0, "b": [1]}, "body") is None
    assert "in this order" in str(ordered_difference({"a": 1, "b": 2}, {"b": 2, "a": 1}, "body"))
    assert ordered_difference({"s": True}, {"s": 1}, "body") == "body.s: expected true, got 1"
    assert ordered_difference({"c": ""}, {"c": None}, "body") == 'body.c: expected "", got null'


def test_a_well_formed_stream_passes_whatever_its_delta_cuts() -> None:
    assert compare_stream(EXPECTED, {"chunks": GOOD}) is None
    merged = [*GOOD[:1], {"type": "text-delta", "index": 0, "text": "ab"}, *GOOD[3:]]
    assert compare_stream(EXPECTED, {"chunks": merged}) is None


@pytest.mark.parametrize(
    ("chunks", "problem"),
    [
        (GOOD[:-1], "exactly one finish"),
        ([*GOOD, GOOD[-1]], "exactly one finish"),
        ([GOOD[1], GOOD[0], *GOOD[2:]], "not open"),
        ([*GOOD[:2], *GOOD[3:]], "deltas add up"),
        ([*GOOD[:3], GOOD[4], GOOD[3], GOOD[5]], "usage chunk came before a block-end"),
        ([*GOOD[:4], GOOD[4], GOOD[4], GOOD[5]], "usage chunks"),
        ([*GOOD[:4], GOOD[5]], "usage chunks"),
        ([*GOOD[:5], {"type": "finish", "reason": {"kind": "max-tokens"}}], "finish"),
    ],
    ids=["no-finish", "two-finishes", "delta-before-start", "lost-delta", "usage-first",
         "two-usages", "no-usage", "wrong-finish"],
)  # fmt: skip
def test_stream_rules_can_fail(chunks: list[Json], problem: str) -> None:
    assert problem in str(compare_stream(EXPECTED, {"chunks": chunks}))


def test_http_failures_compare_code_status_retry_after_and_request_id() -> None:
    got = {"failure": {"message": "anything", "code": "RATE_LIMIT", "status": 429}}
    assert compare_failure({"code": "RATE_LIMIT", "status": 429}, got) is None
    assert "code" in str(compare_failure({"code": "SERVER", "status": 429}, got))
    assert "status" in str(compare_failure({"code": "RATE_LIMIT", "status": 503}, got))
    assert "providerRetryAfterMs" in str(
        compare_failure({"code": "RATE_LIMIT", "status": 429, "providerRetryAfterMs": 2000}, got)
    )
    with_retry = {"failure": {**got["failure"], "providerRetryAfterMs": 1}}
    assert "providerRetryAfterMs" in str(
        compare_failure({"code": "RATE_LIMIT", "status": 429}, with_retry)
    )
    with_id = {"failure": {**got["failure"], "requestId": "r-1"}}
    assert "requestId" in str(compare_failure({"code": "RATE_LIMIT", "status": 429}, with_id))
    expected = {"code": "RATE_LIMIT", "status": 429, "requestId": "r-1"}
    assert compare_failure(expected, with_id) is None


def test_a_non_http_failure_compares_its_code_only() -> None:
    got = {"failure": {"message": "x", "code": "STREAM_CLOSED", "requestId": "free"}}
    assert compare_failure({"code": "STREAM_CLOSED"}, got) is None


def test_every_difference_is_reported() -> None:
    failed = {"kind": "error", "failure": {"message": "x", "code": "SERVER", "status": 500}}
    chunks = [*GOOD[:4], {"type": "finish", "reason": failed}]
    expected = {**EXPECTED, "finish": {"kind": "error", "failure": {"code": "AUTH", "status": 401}}}
    expected["blocks"] = []
    problem = str(compare_stream(expected, {"chunks": chunks}))
    for part in ("blocks:", "usage chunks:", "failure code", "failure status"):
        assert part in problem, problem
    got = {"failure": {"message": "x", "code": "SERVER", "status": 500, "requestId": "r"}}
    problem = str(compare_failure({"code": "AUTH", "status": 401}, got))
    for part in ("failure code", "failure status", "failure requestId"):
        assert part in problem, problem


def test_every_request_difference_is_reported() -> None:
    expected = {"method": "POST", "url": "u", "headers": {"accept": "a"}, "body": {"m": 1}}
    got = {"request": {"method": "GET", "url": "v", "headers": {}, "body": {"m": 2}}}
    problem = str(compare_request(expected, got))
    for part in ("method:", "url:", "header accept", "body.m"):
        assert part in problem, problem


def test_an_expected_header_sent_twice_in_two_letter_cases_fails() -> None:
    """HTTP header names are case-insensitive: `Accept` and `accept` are one header sent twice,
    whichever value comes last (the comparison used to keep the last one)."""
    expected = {"headers": {"accept": "a"}}
    once = {"request": {"headers": {"Accept": "a", "x-other": "1"}}}
    twice = {"request": {"headers": {"Accept": "b", "accept": "a"}}}
    assert compare_request(expected, once) is None
    problem = compare_request(expected, twice)
    assert problem is not None and "header accept" in problem and "once" in problem


def test_wire_goldens_judge_the_three_contractual_headers_only() -> None:
    sent = {
        "method": "POST",
        "headers": {"Accept": "a", "user-agent": "x", "Authorization": "b", "content-type": "c"},
        "body": {},
    }
    assert contractual_headers_only(sent) == {
        "method": "POST",
        "headers": {"authorization": "b", "content-type": "c", "accept": "a"},
        "body": {},
    }
    assert contractual_headers_only("not a request") == "not a request"


CALL = {"type": "tool-call", "id": "c", "name": "f", "arguments": "{}"}
CALL_START = {"type": "block-start", "index": 0, "blockType": "tool-call"}
CALL_END = {"type": "block-end", "index": 0, "block": CALL}
CALL_EXPECTED = {"blocks": [CALL], "usage": None, "finish": {"kind": "tool-calls"}}


@pytest.mark.parametrize(
    ("delta", "passes"),
    [
        ({"id": "c", "name": "f"}, True),
        ({"id": ""}, True),
        ({"name": "f"}, False),
        ({"id": None}, False),
        ({"id": "c", "name": None}, False),
    ],
    ids=["id-and-name", "empty-id-no-name", "no-id", "null-id", "null-name"],
)
def test_a_tool_call_delta_has_a_string_id_and_name(delta: Json, passes: bool) -> None:
    """STREAM_CHUNK `tool-call-delta {index, id, name?, argumentsDelta}`, whatever the values so
    far: the shape is checked although the values are the implementation's business."""
    chunk = {"type": "tool-call-delta", "index": 0, **delta, "argumentsDelta": "{}"}
    finish = {"type": "finish", "reason": {"kind": "tool-calls"}}
    problem = compare_stream(CALL_EXPECTED, {"chunks": [CALL_START, chunk, CALL_END, finish]})
    assert (problem is None) is passes, problem


@pytest.mark.parametrize(
    ("failure", "passes"),
    [
        ({"message": "", "code": "E"}, True),
        ({"message": "m", "code": "E", "status": 1, "providerRetryAfterMs": 2, "requestId": "r"},
         True),
        ({"code": "E"}, False),
        ({"message": None, "code": "E"}, False),
        ({"message": "m", "code": "E", "detail": "m"}, False),
    ],
    ids=["message", "every-field", "no-message", "null-message", "unknown-field"],
)  # fmt: skip
def test_a_finish_failure_is_an_llm_failure(failure: Json, passes: bool) -> None:
    """LLM_FAILURE `{message, code, status?, providerRetryAfterMs?, requestId?}`: the message is
    never compared, but it is a string, and nothing else rides along."""
    finish = {"type": "finish", "reason": {"kind": "error", "failure": failure}}
    expected = {"blocks": [], "usage": None, "finish": {"kind": "error", "failure": {"code": "E"}}}
    problem = compare_stream(expected, {"chunks": [finish]})
    assert (problem is None) is passes, problem
