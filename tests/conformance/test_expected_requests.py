"""The requests a loop case's expectations fix (`dsh_conformance.judge.expected_requests`).

Each expected log here is written by hand, and so is what its requests must hold: the header's
config fields and system, the derived messages (LOGGEDLOOP-REQUEST-INVARIANT: "`request.messages`
equals the messages derived from the log at the point of dispatch"; "The session log":
`user/message` → its data, `assistant/message` → `data.message` unless its content is empty,
`tool/result` → `data.message`) and the session's id, at the position of each request, placed by
the pairing of requests with attempts.
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.judge.expected_requests import (
    NO_WHOLE_LOG,
    UNPLACED,
    fixed_requests,
)
from dsh_conformance.scenarios import loopscenario as lp

Json = Any

HI = lp.user("hi", "#1")
REPLY = lp.assistant(1, 1, [lp.text_block("hello")], "#2", [])


def _turn(*inside: Json, reason: Json = lp.COMPLETED) -> list[Json]:
    return [
        lp.turn_start(1),
        lp.step_start(1, 1),
        *inside,
        lp.step_end(1, 1),
        lp.turn_end(1, reason),
    ]


def _observe(**expected: Json) -> Json:
    return lp.observe("a", **expected)


def test_a_request_paired_with_its_attempt_holds_the_messages_before_it() -> None:
    log = _turn(HI, lp.header("initial"), REPLY)
    (fixed,), why = fixed_requests([lp.followup("a", "hi"), _observe(log=log)])
    assert why is None
    request = {**lp.CONFIG, "messages": [HI["data"]], "system": lp.SYSTEM, "sessionId": "#session"}
    assert fixed.as_json() == {"op": 1, "requests": [{"dispatchSeq": 4, "request": request}]}


def test_a_replacement_takes_the_place_of_its_range_and_an_empty_answer_is_no_message() -> None:
    one, two = lp.user("one", "#1"), lp.user("two", "#2")
    summary = lp.replacing(lp.user("summary", "#3"), 1, 2)
    empty = lp.assistant(1, 1, [], "#4", [])
    view = [lp.header("initial", system=None), one, two, summary, empty]
    (fixed,), _ = fixed_requests(
        [_observe(log=view, requests=[{"dispatchSeq": 3}, {"dispatchSeq": 5}])]
    )
    before, after = (entry["request"] for entry in fixed.requests)
    assert before == {**lp.CONFIG, "messages": [one["data"], two["data"]], "sessionId": "#session"}
    assert after["messages"] == [summary["data"]]


def test_given_dispatch_positions_are_used_as_they_are() -> None:
    log = _turn(HI, lp.header("initial"), reason=lp.aborted({"kind": "user"}))
    (fixed,), _ = fixed_requests([_observe(log=log, requests=[{"dispatchSeq": 4}])])
    assert [(r["dispatchSeq"], r["request"]["messages"]) for r in fixed.requests] == [
        (4, [HI["data"]])
    ]


def test_a_turn_ended_aborted_without_positions_fixes_no_request() -> None:
    log = _turn(HI, lp.header("initial"), reason=lp.aborted({"kind": "user"}))
    assert fixed_requests([_observe(log=log)]) == ([], UNPLACED)


def test_no_whole_log_fixes_no_request() -> None:
    ops = [_observe(types=["turn/start", "turn/end"]), _observe(tail=[lp.turn_end(1)])]
    assert fixed_requests(ops) == ([], NO_WHOLE_LOG)


def test_expected_requests_that_cannot_pair_with_the_attempts_are_a_bad_case() -> None:
    log = _turn(HI, lp.header("initial"), REPLY)
    with pytest.raises(ValueError, match="1 attempts"):
        fixed_requests([_observe(log=log, requests=[{}, {}])])


def test_a_request_without_a_header_before_it_is_a_bad_case() -> None:
    with pytest.raises(ValueError, match="no request/header"):
        fixed_requests([_observe(log=[HI, REPLY], requests=[{"dispatchSeq": 1}])])


def test_expected_requests_out_of_order_are_a_bad_case() -> None:
    log = _turn(HI, lp.header("initial"), REPLY)
    with pytest.raises(ValueError, match="dispatchSeq 2 is not a position from 4"):
        fixed_requests([_observe(log=log, requests=[{"dispatchSeq": 4}, {"dispatchSeq": 2}])])
