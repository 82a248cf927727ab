"""The suite can fail: each wrong implementation is rejected under its contract ID.

Every wrong implementation in `wrong_impls` is judged by ``dsh-conformance`` (the real runner, in
a process of its own, in-process transport) restricted to its contract ID; the per-contract JSON
report must show failed cases for that ID, and for a driver listed in `INTENDED_FAILURES` the
tests it fails must be exactly the listed ones (another failing test is a case with two reasons to
fail, or a driver with two changes). That last check needs each such driver's whole contract, so
it is in the CI tier (marker ``exhaustive``); the test command runs only the listed tests of those
drivers and checks that each fails. A control run of the unchanged reference through the
same path must show none, so a broken harness cannot pass for a rejection. All runs happen once,
in `isolated_runs` (one process forked per driver), started in the background by `conftest.py`
as soon as collection is over (`gallery_runs`); the ``reports`` fixture waits for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gallery_runs import CONTROL, LOOP_CONTRACTS, judged
from wrong_impls import INTENDED_FAILURES, WRONG_IMPLEMENTATIONS

#: Not in the fast subset (`-m "not slow"`):
#: the gallery runs every wrong implementation in its own process.
pytestmark = pytest.mark.slow


def tallies(reports: Path, driver: str) -> dict[str, Any]:
    contracts: dict[str, Any] = judged(reports, driver)["contracts"]
    return contracts


@pytest.mark.parametrize(("driver", "contract"), sorted(WRONG_IMPLEMENTATIONS.items()))
def test_wrong_implementation_is_rejected_under_its_contract(
    reports: Path, driver: str, contract: str
) -> None:
    tally = tallies(reports, driver)[contract]
    assert tally["failed"] > 0, f"{driver} was not rejected under {contract}: {tally}"
    assert tally["errored"] == 0, f"{driver} should fail cleanly, not error: {tally}"


@pytest.mark.parametrize("driver", sorted(INTENDED_FAILURES))
def test_wrong_implementation_fails_its_intended_tests(reports: Path, driver: str) -> None:
    """The test command's proof (it runs only the intended tests of most drivers: `gallery_runs`):
    each intended test fails, none errors."""
    outcomes = {result["test"]: result["outcome"] for result in judged(reports, driver)["results"]}
    wrong = {test: outcomes.get(test, "absent") for test in INTENDED_FAILURES[driver]}
    assert set(wrong.values()) == {"failed"}, f"{driver}: intended tests {wrong}"


@pytest.mark.exhaustive
@pytest.mark.parametrize("driver", sorted(INTENDED_FAILURES))
def test_wrong_implementation_fails_only_its_intended_tests(reports: Path, driver: str) -> None:
    assert driver in WRONG_IMPLEMENTATIONS, f"{driver} is not a gallery driver"
    failing = {
        result["test"]
        for result in judged(reports, driver)["results"]
        if result["outcome"] in ("failed", "errored")
    }
    intended = set(INTENDED_FAILURES[driver])
    assert failing == intended, (
        f"{driver}: unintended failures {sorted(failing - intended)}, "
        f"intended tests that passed {sorted(intended - failing)}"
    )


def test_the_unchanged_reference_passes_through_the_same_path(reports: Path) -> None:
    found = tallies(reports, CONTROL)
    for contract in sorted(set(WRONG_IMPLEMENTATIONS.values())):
        tally = found[contract]
        assert tally["passed"] > 0, f"{contract}: {tally}"
        assert tally["failed"] == tally["errored"] == 0, f"{contract}: {tally}"


def test_a_request_that_differs_from_its_log_is_caught_by_the_invariant_check_only(
    reports: Path,
) -> None:
    """`RebuiltMessages` logs correctly and sends equal values in another key order: every case
    expectation holds, and only the suite's own request check (LOGGEDLOOP-REQUEST-INVARIANT)
    rejects it."""
    found = tallies(reports, "RebuiltMessages")
    for contract in LOOP_CONTRACTS:
        tally = found[contract]
        assert tally["passed"] > 0 and tally["failed"] == 0, f"{contract}: {tally}"
