"""The reference harness's `loop` capability: what the example cases do not pin.

Scenarios it must refuse as ``errored``, a script that runs out, a seed given as events, and the
request record (``dispatchSeq``) the suite's invariant check reads.
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.cases import all_cases
from dsh_conformance.judge.case import Case
from dsh_conformance.judge.invariant import check_requests
from dsh_conformance.judge.logfold import fold_log, seeded_length
from dsh_conformance.scenarios import loopscenario as lp
from dsh_reference.harness import Driver

LOOP_CASES = [case for case in all_cases() if case.agents()]


def run(*ops: Any) -> dict[str, Any]:
    return Driver().handle({"type": "run", "case": "t", "scenario": {"ops": list(ops)}})


def observe(*ops: Any) -> Any:
    answer = run(*ops, lp.observe("a"))
    assert answer["type"] == "observed", answer
    return answer["observations"][-1]


@pytest.mark.parametrize(
    ("ops", "why"),
    [
        ((lp.followup("nobody", "hi"),), "unknown agent"),
        ((lp.agent("a", model=[]), lp.agent("a", model=[])), "already exists"),
        ((lp.agent("a", model=[], pre_step=["maybe"]),), "unknown preStep"),
        ((lp.agent("a", model=[]), lp.dispose("a"), lp.followup("a", "hi")), "disposed"),
        ((lp.agent("a", model=[], seed={"agent": "b"}),), "unknown agent"),
        ((lp.agent("a", model=[], pre_step=["throws"]),), "unknown preStep"),
        ((lp.agent("a", model=[], request=["maybe"]),), "unknown request hook"),
        ((lp.agent("a", model=[], turn_stopping=[{"set": {}}]),), "unknown turnStopping hook"),
        ((lp.agent("a", model=[], adapter={}, adapters={}),), "not both"),
        ((lp.agent("a", model=[]), lp.register_adapter("a", "p", {})), "without `adapters`"),
        (
            (lp.agent("a", model=[], adapters={"p": {}}), lp.register_adapter("a", "p", {})),
            "has an adapter",
        ),
    ],
    ids=[
        "unknown-agent",
        "duplicate-agent",
        "unknown-decision",
        "after-dispose",
        "seed-agent",
        "bare-throws-decision",
        "unknown-request-hook",
        "unknown-turn-stopping-hook",
        "adapter-and-adapters",
        "register-adapter-without-adapters",
        "register-adapter-twice",
    ],
)
def test_scenarios_the_harness_refuses(ops: tuple[Any, ...], why: str) -> None:
    answer = run(*ops)
    assert answer["type"] == "errored"
    assert why in answer["context"]["error"]


def test_a_request_beyond_the_script_fails_as_a_logged_finish() -> None:
    observed = observe(lp.agent("a", model=[]), lp.followup("a", "hi"))
    finish = observed["log"][5]["data"]["chunk"]
    assert finish["reason"]["kind"] == "error"
    assert finish["reason"]["failure"]["code"] == "SCRIPT_EXHAUSTED"
    assert observed["log"][-1]["data"]["reason"]["kind"] == "error"


def test_each_request_is_recorded_with_the_log_length_at_dispatch() -> None:
    observed = observe(lp.agent("a", model=[lp.answer("hello")]), lp.followup("a", "hi"))
    (record,) = observed["requests"]
    assert record["dispatchSeq"] == 5
    assert observed["log"][5]["type"] == "assistant/chunk"
    assert record["request"]["sessionId"] == observed["sessionId"]
    assert list(record["request"]) == ["provider", "model", "messages", "system", "sessionId"]


def test_a_seed_of_events_is_validated_and_ended() -> None:
    seed = lp.envelopes(lp.user("earlier", "u0"))
    observed = observe(lp.agent("a", model=[], seed=seed))
    assert [event["type"] for event in observed["log"]] == ["user/message", "session/end-seed"]
    bad = run(lp.agent("a", model=[], seed=[{**seed[0], "seq": 3}]))
    assert bad["type"] == "errored" and "seq-not-contiguous" in bad["context"]["error"]


@pytest.mark.parametrize("case", LOOP_CASES, ids=[case.id for case in LOOP_CASES])
def test_the_reference_logs_break_no_rule_of_the_suite_fold(case: Case) -> None:
    """Every rule of the suite's fold and request check, not only those of the case's own
    contracts, holds for the reference's logs of every loop case."""
    agents = case.agents()
    answer = Driver().handle({"type": "run", "case": case.id, "scenario": case.sent_scenario()})
    assert answer["type"] == "observed", answer
    for final in answer["observations"][-len(agents) :]:
        assert fold_log(final["log"], seeded_length(final["log"])).violations == []
        assert check_requests(final["log"], final["requests"], final["sessionId"]) == []
