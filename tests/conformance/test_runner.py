"""``dsh-conformance`` end to end: the report for conforming, broken and partial implementations.

Each run is a fresh process, exactly as a user runs it. The broken harness crashes on every third
case: the run must still finish, count those cases as errored (never as passed or failed), and
exit non-zero.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from reference import PromptConfig, PromptRegistry
from reference.harness import Driver

BROKEN = Path(__file__).with_name("broken_harness.py")
CONTRACT = "PROMPT-REGISTRY-CONTRACT"


class NoCapabilities(Driver):
    """Answers the handshake with no capabilities: every case is not applicable."""

    capabilities = ()


class HangsOnOneCase(Driver):
    """Never answers the case ``registry/builtin-sections-by-default``; answers the rest."""

    def handle(self, message: Any) -> Any:
        if message.get("case") == "registry/builtin-sections-by-default":
            threading.Event().wait()
        return super().handle(message)


class IdentityAlwaysOff(Driver):
    """Wrong: never registers the identity section, whatever the configuration says."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        return PromptRegistry(dataclasses.replace(config, include_harness_identity=False))


class HidesItsLog(Driver):
    """Answers every ``observe`` with ok: its loop cases' expectations fail, and its requests
    can never be checked, which must fail the invariant tests too (never pass unchecked)."""

    def handle(self, message: Any) -> Any:
        answer = super().handle(message)
        if message.get("type") == "run" and answer.get("type") == "observed":
            ops = message["scenario"]["ops"]
            answer["observations"] = [
                {"ok": True} if op["op"] == "observe" else observed
                for op, observed in zip(ops, answer["observations"], strict=True)
            ]
        return answer


def run_runner(tmp_path: Path, *args: str, limit: float = 600) -> tuple[int, str, dict[str, Any]]:
    report = tmp_path / "report.json"
    completed = subprocess.run(
        [sys.executable, "-m", "conformance.runner", *args, "--conformance-json", str(report)],
        capture_output=True,
        text=True,
        timeout=limit,
        check=False,
        cwd=Path(__file__).parent,  # so that `test_runner:NoCapabilities` is importable
    )
    assert report.exists(), f"no report:\n{completed.stdout}\n{completed.stderr}"
    return completed.returncode, completed.stdout, json.loads(report.read_text())


def test_the_reference_conforms_and_the_run_exits_zero(tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    status, output, report = run_runner(tmp_path, "--contract", CONTRACT, "--junitxml", str(junit))
    (reference,) = report["implementations"]
    tally = reference["contracts"][CONTRACT]
    assert status == 0, output
    assert tally["passed"] > 0 and tally["failed"] == tally["errored"] == 0
    assert "conformance by contract ID" in output
    assert f"{CONTRACT}" in output and "conforms" in output
    assert f'<property name="contracts" value="{CONTRACT}"' in junit.read_text()


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


def test_an_in_process_driver_that_never_answers_is_errored_and_the_run_exits(
    tmp_path: Path,
) -> None:
    args = ("--impl", "test_runner:HangsOnOneCase", "--case-timeout", "1", "--contract", CONTRACT)
    status, _, report = run_runner(tmp_path, *args, limit=120)
    (results,) = report["implementations"]
    errored = [r for r in results["results"] if r["outcome"] == "errored"]
    assert status == 1
    assert [r["test"] for r in errored] == ["test_example[registry/builtin-sections-by-default]"]
    assert "no answer within 1 s" in errored[0]["message"]
    assert results["contracts"][CONTRACT]["passed"] > 0


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


def test_an_expected_failures_baseline_absorbs_known_failures_and_rejects_stale_ones(
    tmp_path: Path,
) -> None:
    wrong = ("--impl", "test_runner:IdentityAlwaysOff", "--contract", CONTRACT)
    status, _, report = run_runner(tmp_path, *wrong)
    (results,) = report["implementations"]
    failing = sorted(r["test"] for r in results["results"] if r["outcome"] == "failed")
    assert status == 1 and failing

    baseline = tmp_path / "expected-failures.txt"
    baseline.write_text("# known failures of IdentityAlwaysOff\n" + "\n".join(failing) + "\n")
    status, output, report = run_runner(tmp_path, *wrong, "--expected-failures", str(baseline))
    tally = report["implementations"][0]["contracts"][CONTRACT]
    assert status == 0, output
    assert tally["expected failure"] == len(failing) and tally["failed"] == 0
    assert "baseline: " in output

    passing = "test_example[registry/duplicate-context-same-layer]"
    assert passing not in failing
    baseline.write_text(baseline.read_text() + passing + "\n")
    status, output, report = run_runner(
        tmp_path, "--contract", CONTRACT, "--expected-failures", str(baseline)
    )
    (reference,) = report["implementations"]
    stale = [r for r in reference["results"] if r["outcome"] == "failed"]
    assert status == 1
    assert {r["test"] for r in stale} == {*failing, passing}
    assert all("XPASS(strict)" in r["message"] for r in stale)


def test_a_loop_case_whose_requests_cannot_be_checked_fails_the_invariant(tmp_path: Path) -> None:
    contract = "LOGGEDLOOP-REQUEST-INVARIANT"
    status, output, report = run_runner(
        tmp_path, "--impl", "test_runner:HidesItsLog", "--contract", contract
    )
    tally = report["implementations"][0]["contracts"][contract]
    assert status != 0
    assert tally["failed"] > 0 and tally["passed"] == 0, tally
    assert "not {sessionId, log, requests}" in output
