"""What a loop case compares of a reported log (`dsh_conformance.judge.logview`): core events only,
seqs as positions, message ids by identity, and a malformed observation reported, not crashed on."""

from __future__ import annotations

from typing import Any

from dsh_conformance.judge.case import Case, mismatches
from dsh_conformance.judge.logview import SESSION, LoopView, compare_loop
from dsh_conformance.run.execute import failure_message
from dsh_conformance.scenarios.loopscenario import observe


def event(seq: int, type_: str, data: Any, **surface: Any) -> Any:
    return {"type": type_, "seq": seq, "time": 123.0, "data": data, **surface}


def message(id_: str, text: str) -> Any:
    return {"id": id_, "role": "user", "content": [{"type": "text", "text": text}], "source": {}}


REPLACE_1 = {"op": "replace", "start": 1, "end": 1}
OBSERVED = {
    "sessionId": "s-9",
    "log": [
        event(0, "agent/inbox/spliced", {"target": "next-turn"}),
        event(1, "user/message", message("x1", "a"), surfaceOp="append"),
        event(2, "llm/retry", {}),
        event(3, "user/message", message("x2", "b"), surfaceOp=REPLACE_1, sourceEventSeqs=[1]),
    ],
    "requests": [
        {
            "dispatchSeq": 3,
            "request": {"messages": [message("x1", "a"), message("zz", "c")], "sessionId": "s-9"},
        }
    ],
}


def test_the_view_keeps_core_events_and_reads_seqs_as_positions() -> None:
    view = LoopView(OBSERVED)
    assert [e["type"] for e in view.log] == ["user/message", "user/message"]
    assert view.log[1]["surfaceOp"] == {"op": "replace", "start": 0, "end": 0}
    assert view.log[1]["sourceEventSeqs"] == [0]
    assert "time" not in view.log[0] and "seq" not in view.log[0]


def test_ids_are_compared_by_identity_and_the_session_id_by_the_reported_one() -> None:
    view = LoopView(OBSERVED)
    assert [e["data"]["id"] for e in view.log] == ["#1", "#2"]
    (request,) = view.requests
    assert request["dispatchSeq"] == 1  # one core event before seq 3
    assert [m["id"] for m in request["messages"]] == ["#1", "?zz"]
    assert request["sessionId"] == SESSION


def test_a_malformed_observation_is_a_difference_not_a_crash() -> None:
    assert "list of objects" in (compare_loop({"types": []}, {"log": [1], "requests": []}) or "")
    assert "list of objects" in (compare_loop({"types": []}, {"log": [], "requests": "x"}) or "")
    assert "a log observation" in (compare_loop({"types": []}, {"ok": True}) or "")


def test_a_missing_or_extra_event_is_named() -> None:
    expected = {"types": ["user/message"]}
    assert "expected" in (compare_loop(expected, OBSERVED) or "")
    assert compare_loop({"types": ["user/message", "user/message"]}, OBSERVED) is None


def test_a_failing_observe_is_described_against_the_view_it_was_compared_with() -> None:
    """The pointers name places in the view (core events only, ids by identity), where the one
    real difference is the second message's text; the raw log has a non-core event first."""
    expected_log = [
        {"type": "user/message", "data": message("#1", "a"), "surfaceOp": "append"},
        {
            "type": "user/message",
            "data": message("#2", "not b"),
            "surfaceOp": {"op": "replace", "start": 0, "end": 0},
            "sourceEventSeqs": [0],
        },
    ]
    case = Case(
        id="c",
        contracts=("ROOT-MODEL",),
        why="because",
        ops=(observe("main", log=expected_log, requests=[{"dispatchSeq": 0}]),),
    )
    observed = [OBSERVED]
    message_text = failure_message(case, observed, mismatches(case, observed))
    pointers = [
        line.split()[1].rstrip(",:") for line in message_text.splitlines() if " at " in line
    ]
    assert pointers == ["/log/1/data/content/0/text", "/requests/0/dispatchSeq"], message_text
