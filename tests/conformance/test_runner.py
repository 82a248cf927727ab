"""``dsh-conformance`` end to end: the report for conforming, broken and partial implementations.

Each run is a fresh process, exactly as a user runs it. The broken harness crashes on every third
case: the run must still finish, count those cases as errored (never as passed or failed), and
exit non-zero.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from reference.harness import Driver

BROKEN = Path(__file__).with_name("broken_harness.py")
CONTRACT = "PROMPT-REGISTRY-CONTRACT"


class NoCapabilities(Driver):
    """Answers the handshake with no capabilities: every case is not applicable."""

    capabilities = ()


def run_runner(tmp_path: Path, *args: str) -> tuple[int, str, dict[str, Any]]:
    report = tmp_path / "report.json"
    completed = subprocess.run(
        [sys.executable, "-m", "conformance.runner", *args, "--conformance-json", str(report)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=Path(__file__).parent,  # so that `test_runner:NoCapabilities` is importable
    )
    assert report.exists(), f"no report:\n{completed.stdout}\n{completed.stderr}"
    return completed.returncode, completed.stdout, json.loads(report.read_text())


def test_the_reference_conforms_and_the_run_exits_zero(tmp_path: Path) -> None:
    status, output, report = run_runner(tmp_path, "--contract", CONTRACT)
    (reference,) = report["implementations"]
    tally = reference["contracts"][CONTRACT]
    assert status == 0, output
    assert tally["passed"] > 0 and tally["failed"] == tally["errored"] == 0
    assert "conformance by contract ID" in output
    assert f"{CONTRACT}" in output and "conforms" in output


def test_a_crashing_implementation_is_errored_and_the_run_goes_on(tmp_path: Path) -> None:
    command = f"{sys.executable} {BROKEN} crash 3"
    status, output, report = run_runner(tmp_path, "--impl", command, "--contract", CONTRACT)
    (broken,) = report["implementations"]
    tally = broken["contracts"][CONTRACT]
    assert status == 1
    assert tally["errored"] > 0, tally
    assert tally["passed"] > 0, tally  # the cases between crashes still ran
    assert tally["failed"] == 0, tally
    errored = [r for r in broken["results"] if r["outcome"] == "errored"]
    assert all("crashing on case" in r["message"] for r in errored)
    assert "DOES NOT CONFORM" in output and "ERRORED" in output


def test_missing_capabilities_are_not_applicable_not_skipped(tmp_path: Path) -> None:
    status, output, report = run_runner(
        tmp_path, "--impl", "test_runner:NoCapabilities", "--contract", CONTRACT
    )
    (partial,) = report["implementations"]
    tally = partial["contracts"][CONTRACT]
    assert status == 0, output
    assert tally["not applicable"] > 0
    assert tally["passed"] == tally["skipped"] == tally["failed"] == tally["errored"] == 0
    assert "not applicable" in output
