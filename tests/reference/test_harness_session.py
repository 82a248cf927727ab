"""The reference harness's `session` capability: what the example cases do not pin.

Refused scenarios (answered ``errored``), the session a failed seed leaves, and the projection a
new seed drops.
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.scenarios import scenario as s
from dsh_reference.harness import Driver


def run(*ops: Any) -> dict[str, Any]:
    return Driver().handle({"type": "run", "case": "t", "scenario": {"ops": list(ops)}})


def test_the_handshake_lists_the_session_capability() -> None:
    assert "session" in Driver().handle({"type": "start", "protocol": 1})["capabilities"]


@pytest.mark.parametrize(
    "ops",
    [
        [s.project([])],
        [s.session_append("turn/start", {}, inject=[s.inject(["data", "x"], "nan")])],
        [{"op": "session-teleport"}],
    ],
    ids=["project-before-start", "unknown-injected-value", "unknown-op"],
)
def test_unexecutable_scenarios_are_errored(ops: list[Any]) -> None:
    assert run(*ops)["type"] == "errored"


def test_a_failed_seed_keeps_the_previous_session() -> None:
    seeded = {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}}
    answer = run(
        s.session_seed([seeded]),
        s.session_seed([{**seeded, "seq": 1}], expect=s.error("seq-not-contiguous")),
        s.session_log(),
    )
    assert [event["type"] for event in answer["observations"][2]["events"]] == [
        "turn/start",
        "session/end-seed",
    ]


def test_a_new_seed_drops_the_projection() -> None:
    answer = run(s.projection_start(), s.session_seed([]), s.project([]))
    assert answer["type"] == "errored"
    assert "projection-start" in answer["context"]["error"]


def test_errors_carry_kind_and_message() -> None:
    answer = run(s.session_append("request/header-delta", {}))
    error = answer["observations"][0]["error"]
    assert error["kind"] == "session-legacy-header"
    assert "legacy" in error["message"]
