"""The suite's own request check (`dsh_conformance.judge.invariant`) finds what it must, and only
that.

The log and requests come from a hand-written run (`upstream/loop-and-session.md` §8.1 shape);
each test breaks one thing and names the field the check must report.
"""

from __future__ import annotations

import copy
from typing import Any

from dsh_conformance.judge.invariant import attempt_starts, check_requests

CONFIG = {"provider": "p", "model": "m"}
USER = {
    "id": "u1",
    "role": "user",
    "content": [{"type": "text", "text": "hi"}],
    "source": {"kind": "user"},
}
ANSWER = {
    "id": "a1",
    "role": "assistant",
    "content": [{"type": "text", "text": "yo"}],
    "source": {"kind": "model", "provider": "p", "model": "m"},
}


def event(seq: int, type_: str, data: Any, **surface: Any) -> Any:
    return {"type": type_, "seq": seq, "time": 0, "data": data, **surface}


def run() -> tuple[list[Any], list[Any]]:
    where = {"turn": 1, "step": 1}
    finish = {"type": "finish", "reason": {"kind": "stop"}}
    text = {"type": "text-delta", "index": 0, "text": "yo"}
    log = [
        event(0, "turn/start", {"turn": 1}),
        event(1, "step/start", where),
        event(2, "user/message", USER, surfaceOp="append"),
        event(
            3, "request/header", {"header": {"config": CONFIG, "system": "S"}, "reason": "initial"}
        ),
        event(4, "request/context", CONFIG),
        event(5, "assistant/chunk", {**where, "chunk": text}),
        event(6, "assistant/chunk", {**where, "chunk": finish}),
        event(
            7,
            "assistant/message",
            {**where, "message": ANSWER},
            surfaceOp="append",
            sourceEventSeqs=[5, 6],
        ),
        event(8, "step/end", where),
        event(9, "turn/end", {"turn": 1, "reason": {"kind": "completed"}}),
    ]
    request = {**CONFIG, "messages": [USER], "system": "S", "sessionId": "s1"}
    return log, [{"dispatchSeq": 5, "request": request}]


def fields(log: list[Any], requests: list[Any]) -> list[str]:
    return [violation.field for violation in check_requests(log, requests, "s1")]


def test_a_request_equal_to_its_log_passes() -> None:
    assert fields(*run()) == []


def test_rebuilt_messages_are_caught_even_when_equal_as_values() -> None:
    log, requests = run()
    user = requests[0]["request"]["messages"][0]
    requests[0]["request"]["messages"] = [{key: user[key] for key in reversed(list(user))}]
    assert fields(log, requests) == ["messages"]


def test_a_config_field_or_system_differing_from_the_header_is_named() -> None:
    log, requests = run()
    requests[0]["request"]["model"] = "other"
    requests[0]["request"]["temperature"] = 0.5
    assert fields(log, requests) == ["config.model", "config.temperature", "fields"]
    log, requests = run()
    requests[0]["request"]["system"] = "T"
    assert fields(log, requests) == ["system"]


def test_an_empty_tool_list_is_a_violation_though_canonically_absent() -> None:
    log, requests = run()
    requests[0]["request"]["tools"] = []
    assert fields(log, requests) == ["tools"]


def test_a_request_with_no_header_before_it_is_a_root_model_violation() -> None:
    log, requests = run()
    del log[3]
    for seq, logged in enumerate(log):
        logged["seq"] = seq
    requests[0]["dispatchSeq"] = 4
    log[6]["sourceEventSeqs"] = [4, 5]
    (violation,) = check_requests(log, requests, "s1")
    assert (violation.field, violation.contract) == ("header", "ROOT-MODEL")


def test_a_request_outside_an_open_step_is_a_violation() -> None:
    log, requests = run()
    requests.append({"dispatchSeq": 9, "request": copy.deepcopy(requests[0]["request"])})
    assert "step" in fields(log, requests)


def test_an_attempt_without_a_reported_request_is_a_violation() -> None:
    log, _requests = run()
    assert attempt_starts(log) == [5]
    assert fields(log, []) == ["attempt"]


def test_the_session_id_must_be_the_reported_one() -> None:
    log, requests = run()
    assert [v.field for v in check_requests(log, requests, "s2")] == ["sessionId"]


# -- the pairing of requests with attempts ----------------------------------------------------
# CONTRACTS.md: "A request is dispatched immediately before its attempt's first event, and the
# requests of one loop instance pair with its attempts in order. A request cancelled before its
# first chunk leaves no event".


def violations(log: list[Any], requests: list[Any]) -> list[tuple[int, Any, str]]:
    return [(v.index, v.seq, v.field) for v in check_requests(log, requests, "s1")]


def cancelled_before_a_chunk() -> tuple[list[Any], list[Any]]:
    """The run, cancelled while its request streams nothing yet: no chunk, no message."""
    log, requests = run()
    where = {"turn": 1, "step": 1}
    cancel = {"kind": "aborted", "reason": {"kind": "user"}}
    log[5:] = [
        event(5, "step/end", where),
        event(6, "turn/end", {"turn": 1, "reason": cancel}),
    ]
    return log, requests


def test_the_last_request_of_a_turn_cancelled_before_its_first_chunk_may_leave_no_event() -> None:
    assert violations(*cancelled_before_a_chunk()) == []
    log, requests = cancelled_before_a_chunk()
    assert violations(log[:5], requests) == []  # the turn still waits for the stream


def test_a_later_turn_may_send_requests_after_a_request_cancelled_before_its_first_chunk() -> None:
    log, requests = cancelled_before_a_chunk()
    where = {"turn": 2, "step": 1}
    again = {**USER, "id": "u2"}
    finish = {"type": "finish", "reason": {"kind": "stop"}}
    log += [
        event(7, "turn/start", {"turn": 2}),
        event(8, "step/start", where),
        event(9, "user/message", again, surfaceOp="append"),
        event(10, "assistant/chunk", {**where, "chunk": finish}),
        event(
            11,
            "assistant/message",
            {**where, "message": {**ANSWER, "content": []}},
            surfaceOp="append",
            sourceEventSeqs=[10],
        ),
        event(12, "step/end", where),
        event(13, "turn/end", {"turn": 2, "reason": {"kind": "completed"}}),
    ]
    second = {**copy.deepcopy(requests[0]["request"]), "messages": [USER, again]}
    assert violations(log, [*requests, {"dispatchSeq": 10, "request": second}]) == []
    # Dispatched before the cancelled turn ended, it would be a second request of that turn.
    second_early = {"dispatchSeq": 5, "request": copy.deepcopy(requests[0]["request"])}
    assert (0, 5, "attempt") in violations(log, [*requests, second_early])


def test_a_request_with_no_attempt_in_a_turn_that_did_not_end_aborted_is_a_violation() -> None:
    log, requests = cancelled_before_a_chunk()
    log[6]["data"]["reason"] = {"kind": "completed"}
    assert violations(log, requests) == [(0, 5, "attempt")]


def test_a_request_dispatched_at_a_seq_where_no_attempt_starts_is_a_violation() -> None:
    log, requests = run()
    requests[0]["dispatchSeq"] = 4  # one event early: the request/context is not yet logged
    assert ("attempt" in fields(log, requests)) and violations(log, requests)[-2:] == [
        (0, 4, "attempt"),
        (-1, 5, "attempt"),
    ]


def test_a_request_never_streamed_mid_turn_is_a_violation_though_the_turn_ends_aborted() -> None:
    log, requests = run()
    requests.insert(0, copy.deepcopy(requests[0]))  # dispatched twice, streamed once
    assert violations(log, requests) == [(1, 5, "attempt")]  # in order: #0 pairs with seq 5
    log[9]["data"]["reason"] = {"kind": "aborted", "reason": {"kind": "user"}}
    assert violations(log, requests) == [(1, 5, "attempt")]  # its attempt's events follow it


def test_an_attempt_no_request_pairs_with_is_a_violation_naming_its_seq() -> None:
    log, requests = run()
    retry = [
        event(8, "assistant/chunk", {"turn": 1, "step": 1, "chunk": log[6]["data"]["chunk"]}),
    ]
    log[8:8] = retry  # a second attempt, no second request
    for seq, logged in enumerate(log):
        logged["seq"] = seq
    log[7]["sourceEventSeqs"] = [5, 6]
    assert (-1, 8, "attempt") in violations(log, requests)


# CONTRACTS.md: "Events outside the core vocabulary, which an implementation may log at any time,
# may stand between a dispatch and its attempt's first event."


def with_event_at(seq: int, type_: str, data: Any) -> tuple[list[Any], list[Any]]:
    """The run with one more event at ``seq`` (the events after it renumbered)."""
    log, requests = run()
    log.insert(seq, event(seq, type_, data))
    for index, logged in enumerate(log):
        logged["seq"] = index
    log[8]["sourceEventSeqs"] = [6, 7] if seq <= 5 else [5, 7]
    return log, requests


def test_an_event_outside_the_core_may_stand_between_a_dispatch_and_its_first_chunk() -> None:
    log, requests = with_event_at(5, "inbox/spliced", {"messages": 1})
    assert attempt_starts(log) == [6]
    assert violations(log, requests) == []


def test_an_event_outside_the_core_inside_an_attempt_ends_no_attempt() -> None:
    log, requests = with_event_at(6, "inbox/spliced", {"messages": 1})
    assert attempt_starts(log) == [5]
    assert violations(log, requests) == []


def test_a_core_event_between_a_dispatch_and_its_first_chunk_is_still_a_violation() -> None:
    log, requests = with_event_at(5, "request/context", {"provider": "p", "model": "n"})
    assert (0, 5, "attempt") in violations(log, requests)


def test_a_seeded_assistant_message_without_turn_and_step_is_folded_as_a_seed() -> None:
    """ "Seeded events are checked only against these append rules" (CONTRACTS.md, "The session
    log"): a seeded `assistant/message` needs no `turn` or `step`, so it is on the surface and the
    live loop's request carries it (COMPARISON.md folds the log with its seeded length)."""
    log, requests = run()
    seeded_answer = {**ANSWER, "id": "a0"}
    seed = [
        event(0, "assistant/message", {"message": seeded_answer}, surfaceOp="append"),
        event(1, "session/end-seed", {}),
    ]
    log = seed + [{**entry, "seq": entry["seq"] + 2} for entry in log]
    requests[0]["dispatchSeq"] += 2
    requests[0]["request"]["messages"] = [seeded_answer, USER]
    assert fields(log, requests) == []
    requests[0]["request"]["messages"] = [USER]
    assert fields(log, requests) == ["messages"]
