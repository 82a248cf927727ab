"""The suite's own request check (`conformance.invariant`) finds what it must, and only that.

The log and requests come from a hand-written run (`upstream/loop-and-session.md` §8.1 shape);
each test breaks one thing and names the field the check must report.
"""

from __future__ import annotations

import copy
from typing import Any

from conformance.invariant import attempt_starts, check_requests

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
