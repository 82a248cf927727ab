"""The one-op deletion pass after shrinking (`dsh_conformance.fuzz.found.reduced`): it drops every
op a loop or registry divergence does not need, and nothing that changes what the divergence is
filed under."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fuzz_runs import served

from dsh_conformance.fuzz import found
from dsh_conformance.fuzz.engine import Divergence, compare, run_scenario
from dsh_conformance.fuzz.found import contracts_of, reduced
from dsh_conformance.harness.transport import Implementation, load_implementation
from dsh_conformance.scenarios import loopscenario as lp
from dsh_conformance.scenarios import scenario as s

#: Starting processes: not in the fast subset.
pytestmark = pytest.mark.slow

#: What EmptyDecisionStopsTheDriver needs (its intended case's shape, PROMPT-STEP-BOUNDARY): a
#: turn held at a listener while a steer and a follow-up arrive; step 1 answers, the steer opens
#: step 2, whose decision is `empty` and ends the turn; the follow-up must still get its turn.
NEEDED = [
    lp.agent("a", model=[lp.answer("hi")] * 3, pre_step=["default", "empty"]),
    s.listen("h", s.listener(wait_gate="g"), scope="a"),
    lp.followup("a", "one"),
    lp.steer("a", "also"),
    lp.followup("a", "two"),
    s.open_gate("g"),
    lp.observe("a"),
]
#: The same with ops it does not need: counts, a second listener that never waits, an
#: observation of the request state, another agent with a turn of its own.
PADDED = [
    NEEDED[0],
    s.counts(),
    NEEDED[1],
    s.listen("h2", s.listener(), scope="a"),
    NEEDED[2],
    {"op": "request-state", "agent": "a"},
    NEEDED[3],
    NEEDED[4],
    lp.agent("b", model=[lp.answer("hi")]),
    lp.followup("b", "hello"),
    NEEDED[5],
    NEEDED[6],
]


#: The wrong implementation (served) and the reference.
Sides = tuple[Implementation, Implementation]


def _sides(driver: str) -> Iterator[Sides]:
    impl, reference = served(driver), load_implementation("reference")
    try:
        for side in (impl, reference):
            side.handshake()
            side.check_schema = False
        yield impl, reference
    finally:
        impl.close()
        reference.close()


@pytest.fixture(scope="module")
def sides() -> Iterator[Sides]:
    yield from _sides("EmptyDecisionStopsTheDriver")


@pytest.fixture(scope="module")
def registry_sides() -> Iterator[Sides]:
    yield from _sides("DuplicateNamesReplace")


def _divergence(sides: Sides, ops: list[Any], family: str = "loop") -> Divergence | None:
    impl, reference = sides
    observed = run_scenario(reference, family, ops)
    assert observed.kind == "observed", observed.reason
    return compare(family, ops, observed, run_scenario(impl, family, ops), (family,))


def test_the_ops_a_divergence_does_not_need_are_dropped(sides: Sides) -> None:
    padded = _divergence(sides, PADDED)
    assert padded is not None, "the padded scenario must show the departure"
    smaller = reduced(padded, *sides)
    assert smaller.ops == NEEDED
    assert contracts_of(smaller) == contracts_of(padded)


def test_every_op_it_keeps_is_needed(sides: Sides) -> None:
    # Worked out from the shape above: without any one of them the two implementations agree
    # (no held turn, no second step, no empty decision after it, no follow-up queued, no gate
    # opened, or nothing observed). Not the agent: without it the reference runs nothing else.
    for index in range(1, len(NEEDED)):
        ops = NEEDED[:index] + NEEDED[index + 1 :]
        assert _divergence(sides, ops) is None, f"op {index} ({NEEDED[index]['op']}) not needed"


def test_a_deletion_that_changes_the_filing_is_not_taken(
    sides: Sides, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As if the request-state op decided what the divergence is filed under: without it the
    # divergence is still there, but filed under less, so that op stays.
    def filed(divergence: Divergence) -> tuple[str, ...]:
        observed = any(op["op"] == "request-state" for op in divergence.ops)
        return contracts_of(divergence) + (("LOOP-REQUEST-BUILD",) if observed else ())

    monkeypatch.setattr(found, "contracts_of", filed)
    padded = _divergence(sides, PADDED)
    assert padded is not None
    assert reduced(padded, *sides).ops == [*NEEDED[:3], PADDED[5], *NEEDED[3:]]


#: DuplicateNamesReplace (PROMPT-REGISTRY-CONTRACT): a second section named like one in the same
#: layer replaces it instead of being refused. Needed: the two registrations.
REGISTRY_NEEDED = [s.section("h1", "a", 1, "one"), s.section("h2", "a", 2, "two")]
#: With a scope and a variable registered in it, and what ends every registry scenario.
REGISTRY_PADDED = [
    s.scope("s1"),
    REGISTRY_NEEDED[0],
    s.variable("h3", "v", {"returns": "x"}, layer="s1"),
    REGISTRY_NEEDED[1],
    s.assemble("as"),
    s.render("as"),
    s.counts(),
]


def test_a_registry_scenario_keeps_only_what_it_needs(registry_sides: Sides) -> None:
    padded = _divergence(registry_sides, REGISTRY_PADDED, "registry")
    assert padded is not None, "the padded scenario must show the departure"
    assert reduced(padded, *registry_sides).ops == REGISTRY_NEEDED
