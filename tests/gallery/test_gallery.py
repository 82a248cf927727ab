"""The suite can fail: each wrong implementation is rejected under its contract ID.

Every wrong implementation in `wrong_impls` runs through ``dsh-conformance`` (the real runner, in
a fresh process, in-process transport) restricted to its contract ID; the per-contract JSON report
must show failed cases for that ID. A control run of the unchanged reference through the same
path must show none, so a broken harness cannot pass for a rejection.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from wrong_impls import WRONG_IMPLEMENTATIONS

HERE = Path(__file__).parent


def run_suite(tmp_path: Path, driver: str, *contracts: str) -> dict[str, dict[str, int]]:
    """Run the conformance suite on ``wrong_impls:<driver>`` for some contracts; their tallies."""
    report = tmp_path / "report.json"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
    }
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "conformance.runner",
            "--impl",
            f"wrong_impls:{driver}",
            *(arg for contract in contracts for arg in ("--contract", contract)),
            "--conformance-json",
            str(report),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert report.exists(), f"no report; the run printed:\n{completed.stdout}\n{completed.stderr}"
    (implementation,) = json.loads(report.read_text())["implementations"]
    return {contract: implementation["contracts"][contract] for contract in contracts}


@pytest.mark.parametrize(("driver", "contract"), sorted(WRONG_IMPLEMENTATIONS.items()))
def test_wrong_implementation_is_rejected_under_its_contract(
    tmp_path: Path, driver: str, contract: str
) -> None:
    tally = run_suite(tmp_path, driver, contract)[contract]
    assert tally["failed"] > 0, f"{driver} was not rejected under {contract}: {tally}"
    assert tally["errored"] == 0, f"{driver} should fail cleanly, not error: {tally}"


def test_the_unchanged_reference_passes_through_the_same_path(tmp_path: Path) -> None:
    tallies = run_suite(tmp_path, "Driver", *sorted(set(WRONG_IMPLEMENTATIONS.values())))
    for contract, tally in tallies.items():
        assert tally["passed"] > 0, f"{contract}: {tally}"
        assert tally["failed"] == tally["errored"] == 0, f"{contract}: {tally}"


def test_a_request_that_differs_from_its_log_is_caught_by_the_invariant_check_only(
    tmp_path: Path,
) -> None:
    """`RebuiltMessages` logs correctly and sends equal values in another key order: every case
    expectation holds, and only the suite's own request check (LOGGEDLOOP-REQUEST-INVARIANT)
    rejects it."""
    loop_contracts = (
        "PROMPT-STEP-BOUNDARY",
        "PROMPT-CANCEL-TEST",
        "PROMPT-RETRY-BOUNDARY",
        "LOOP-REQUEST-ERROR-TEST",
        "LOOP-RUNTIME-CONTEXT",
        "LOOP-REQUEST-BUILD",
        "PROMPT-HEADER-CHANGE-TEST",
    )
    tallies = run_suite(tmp_path, "RebuiltMessages", *loop_contracts)
    for contract, tally in tallies.items():
        assert tally["passed"] > 0 and tally["failed"] == 0, f"{contract}: {tally}"
