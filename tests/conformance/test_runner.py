"""``dsh-conformance`` end to end: the report for conforming, broken and partial implementations.

Each run is a process of its own, as a user runs it: forked by `warm_runner`, which spares it
only a fresh interpreter's imports; the tests of the process itself (a missing extra, the live
test's environment) start a fresh one. The broken harness crashes on every third case: the run
must still finish, count those cases as errored (never as passed or failed), and exit non-zero.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from schema_fit import Schema
from warm_runner import WarmRunner

import dsh_conformance
from dsh_conformance.cases import all_cases
from dsh_conformance.requirements import catalog
from dsh_conformance.run.catalog import cases, other_tests, properties
from dsh_conformance.run.report import Report, Result, verdict

#: Not in the fast subset (`-m "not slow"`):
#: the runner in a process of its own, against harness processes.
pytestmark = pytest.mark.slow

BROKEN = Path(__file__).with_name("broken_harness.py")
#: The JSON report's schema (`schema_fit`: a report of the suite's 661 tests took ``jsonschema``
#: 0.1 s, a fifth of a small run).
REPORT_SCHEMA = Schema(
    json.loads((Path(dsh_conformance.__file__).parent / "run" / "report.schema.json").read_text())
)


CONTRACT = "PROMPT-REGISTRY-CONTRACT"
#: ``--contract CONTRACT -k test_example`` selects exactly the catalogue's cases of CONTRACT
#: (`dsh-conformance --list`), so the counts below hold whatever cases are added.
EXAMPLES = ("--contract", CONTRACT, "-k", "test_example")
CASES = len(cases(frozenset({CONTRACT})))
#: Every test of CONTRACT a verdict counts: its example cases and its property and other tests
#: (``dsh-conformance --list``; none of those is parametrized).
TESTS = CASES + sum(len(tests(frozenset({CONTRACT}))) for tests in (properties, other_tests))


#: What only `loop-1.3` may send, as it appears in a scenario's JSON.
LOOP_13_WORDS = ('"turnStopping"', '"efforts"', '"op": "register-adapter"')


def run_runner(
    warm: WarmRunner,
    tmp_path: Path,
    *args: str,
    limit: float = 600,
    env: dict[str, str] | None = None,
) -> tuple[int, str, dict[str, Any]]:
    """``dsh-conformance ARGS`` run from this directory (so that `runner_drivers:NoCapabilities` is
    importable), in a process of its own (`warm_runner`); its status, output and JSON report."""
    report, stdout, stderr = (tmp_path / name for name in ("report.json", "out.txt", "err.txt"))
    status, _ = warm.run(
        [*args, "--conformance-json", str(report)],
        stdout,
        stderr,
        limit,
        cwd=Path(__file__).parent,
        env=env,
    )
    output = stdout.read_text()
    assert report.exists(), f"no report:\n{output}\n{stderr.read_text()}"
    document = json.loads(report.read_text())
    REPORT_SCHEMA.assert_fits(document)
    return status, output, document


def test_the_reference_conforms_and_the_run_exits_zero(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    junit = tmp_path / "junit.xml"
    status, output, report = run_runner(
        warm_runner, tmp_path, "--contract", CONTRACT, "--junitxml", str(junit)
    )
    (reference,) = report["implementations"]
    tally = reference["contracts"][CONTRACT]
    assert status == 0, output
    assert tally["passed"] > 0 and tally["failed"] == tally["errored"] == 0
    assert "conformance by contract ID" in output
    assert f"{CONTRACT}" in output and "conforms" in output
    assert_valid_xunit2(junit)
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties[f"dsh-conformance reference {CONTRACT}"] == "conforms"


def assert_valid_xunit2(path: Path) -> None:
    """The parts of pytest's xunit2 schema (junit-10.xsd) a plugin can break: a ``testcase``
    holds only skipped/error/failure/system-out/system-err; properties belong to the suite."""
    root = ElementTree.parse(path).getroot()
    allowed = {"skipped", "error", "failure", "system-out", "system-err"}
    for testcase in root.iter("testcase"):
        children = {child.tag for child in testcase}
        assert children <= allowed, f"{testcase.get('name')}: {children - allowed}"
    for suite in root.iter("testsuite"):
        assert [child.tag for child in suite][:1] in (["properties"], ["testcase"], [])


def test_a_crashing_implementation_is_errored_and_the_run_goes_on(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    # The four cases about duplicates (or more): the third crashes, the fourth needs a restart.
    # Each crash costs a harness start: the whole contract made a dozen of them.
    command = f"{sys.executable} {BROKEN} crash 3"
    status, output, report = run_runner(
        warm_runner, tmp_path, "--impl", command, "--contract", CONTRACT, "-k", "duplicate"
    )
    (broken,) = report["implementations"]
    tally = broken["contracts"][CONTRACT]
    ran = [r["outcome"] for r in broken["results"] if r["outcome"] != "deselected"]
    assert status == 1
    assert tally["errored"] > 0, tally
    assert tally["passed"] > 0, tally  # the cases between crashes still ran
    assert ran[2:4] == ["errored", "passed"], ran  # and after the first crash
    assert tally["failed"] == 0, tally
    errored = [r for r in broken["results"] if r["outcome"] == "errored"]
    assert all("crashing on case" in r["message"] for r in errored)
    assert "DOES NOT CONFORM" in output and "ERRORED" in output


@pytest.fixture(scope="module")
def hung_run(
    warm_runner: WarmRunner, tmp_path_factory: pytest.TempPathFactory
) -> tuple[int, str, dict[str, Any]]:
    """One run of CONTRACT on `HangsOnOneCase` with a 4 s case timeout, which the next two tests
    read (each run waits the timeout out)."""
    args = (
        "--impl",
        "runner_drivers:HangsOnOneCase",
        "--case-timeout",
        "4",
        "--contract",
        CONTRACT,
    )
    return run_runner(warm_runner, tmp_path_factory.mktemp("hung"), *args, limit=120)


def test_an_in_process_driver_that_never_answers_is_errored_and_the_run_exits(
    hung_run: tuple[int, str, dict[str, Any]],
) -> None:
    status, _, report = hung_run
    (results,) = report["implementations"]
    errored = [r for r in results["results"] if r["outcome"] == "errored"]
    assert status == 1
    assert [r["test"] for r in errored] == ["test_example[registry/builtin-sections-by-default]"]
    assert "no answer within 4 s" in errored[0]["message"]
    assert results["contracts"][CONTRACT]["passed"] > 0


def test_a_slow_case_is_named_while_it_runs(hung_run: tuple[int, str, dict[str, Any]]) -> None:
    _, output, _ = hung_run
    assert (
        "still waiting for runner_drivers:HangsOnOneCase on case "
        "registry/builtin-sections-by-default (over 2 s; the timeout is 4 s)"
    ) in output


def test_a_slow_answer_is_reported_with_how_long_it_took(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    args = ("--impl", "runner_drivers:SlowOnOneCase", "--contract", CONTRACT, "-k", "builtin")
    status, output, _ = run_runner(warm_runner, tmp_path, *args, limit=120)
    assert status == 0, output
    took = re.search(
        r"runner_drivers:SlowOnOneCase answered registry/builtin-sections-by-default after "
        r"(\d+\.\d) s \(checks included\)",
        output,
    )
    assert took is not None, output
    assert float(took[1]) >= 2.5


def test_missing_capabilities_are_not_applicable_not_skipped(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    status, output, report = run_runner(
        warm_runner, tmp_path, "--impl", "runner_drivers:NoCapabilities", "--contract", CONTRACT
    )
    (partial,) = report["implementations"]
    tally = partial["contracts"][CONTRACT]
    assert status == 1, output  # nothing ran to a verdict: no pass (issue 37)
    assert "nothing ran, which is no pass" in output
    assert tally["not applicable"] > 0
    assert tally["passed"] == tally["skipped"] == tally["failed"] == tally["errored"] == 0
    assert "not applicable" in output


def test_a_1_2_harness_gets_the_1_3_loop_cases_as_not_applicable(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    # PROTOCOL.md, "Versioning": 1.2 was released without `loop-1.3`'s additions, so a harness
    # that declares `loop-1.2` alone is never sent them, and a `loop-1.2` case still runs.
    added = sorted(
        case.id
        for case in all_cases()
        if any(word in json.dumps(case.scenario()["ops"]) for word in LOOP_13_WORDS)
    )
    older = "loop/an-injected-message-waits-idle-for-the-next-turn"
    assert added and older not in added
    select = " or ".join((*added, older))
    args = ("--impl", "runner_drivers:Declares12Only", "-k", select)
    status, output, report = run_runner(warm_runner, tmp_path, *args)
    outcomes = {r["test"]: r["outcome"] for r in report["implementations"][0]["results"]}
    assert status == 0, output
    assert outcomes[f"test_example[{older}]"] == "passed", outcomes
    for case_id in added:
        assert outcomes[f"test_example[{case_id}]"] == "not applicable", outcomes
    assert "errored" not in outcomes.values(), outcomes


def test_a_throwing_listener_is_judged_on_a_registry_only_harness_from_1_4_on(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    # PROTOCOL.md, 1.4: a LISTENER's `fails` without a loop needs `registry-1.4`, not `loop-1.2`.
    case = "pipeline/a-throwing-listener-rejects-the-assembly"
    for driver, outcome in (("RegistryOnly13", "not applicable"), ("RegistryOnly14", "passed")):
        args = ("--impl", f"runner_drivers:{driver}", "--case", case)
        status, output, report = run_runner(warm_runner, tmp_path, *args)
        outcomes = {r["test"]: r["outcome"] for r in report["implementations"][0]["results"]}
        # A run whose one selected test is not applicable ran nothing to a verdict: exit 1.
        assert status == (0 if outcome == "passed" else 1), output
        assert outcomes.pop(f"test_example[{case}]") == outcome
        assert set(outcomes.values()) == {"deselected"}


def test_an_expected_failures_baseline_absorbs_known_failures_and_rejects_stale_ones(
    warm_runner: WarmRunner,
    tmp_path: Path,
) -> None:
    wrong = ("--impl", "runner_drivers:IdentityAlwaysOff", "--contract", CONTRACT)
    status, _, report = run_runner(warm_runner, tmp_path, *wrong)
    (results,) = report["implementations"]
    failing = sorted(r["test"] for r in results["results"] if r["outcome"] == "failed")
    assert status == 1 and failing

    baseline = tmp_path / "expected-failures.txt"
    reasons = [f"{test}  # known departure {number}" for number, test in enumerate(failing)]
    baseline.write_text("# known failures of IdentityAlwaysOff\n" + "\n".join(reasons) + "\n")
    status, output, report = run_runner(
        warm_runner, tmp_path, *wrong, "--expected-failures", str(baseline)
    )
    (gated,) = report["implementations"]
    tally = gated["contracts"][CONTRACT]
    assert status == 0, output
    assert tally["expected failure"] == len(failing) and tally["failed"] == 0
    assert "baseline: " in output
    recorded = {r["test"]: r["baseline"] for r in gated["results"] if "baseline" in r}
    assert recorded == {test: f"known departure {n}" for n, test in enumerate(failing)}
    assert gated["baseline"] == {"path": str(baseline), "entries": len(failing), "unmatched": []}

    passing = "test_example[registry/duplicate-context-same-layer]"
    assert passing not in failing
    baseline.write_text(baseline.read_text() + passing + "\n")
    status, output, report = run_runner(
        warm_runner, tmp_path, "--contract", CONTRACT, "--expected-failures", str(baseline)
    )
    (reference,) = report["implementations"]
    stale = [r for r in reference["results"] if r["outcome"] == "stale baseline"]
    assert status == 1
    assert {r["test"] for r in stale} == {*failing, passing}
    assert all("stale baseline entry" in r["message"] for r in stale)
    assert reference["contracts"][CONTRACT]["verdict"] == "stale baseline entry"
    assert "STALE BASELINE" in output

    baseline.write_text(baseline.read_text() + "test_example[registry/no-such-case]  # old\n")
    status, output, report = run_runner(
        warm_runner, tmp_path, *wrong, "--expected-failures", str(baseline)
    )
    assert status == 1
    assert "name no test of the suite: test_example[registry/no-such-case]" in output
    (gated,) = report["implementations"]
    unmatched = [{"test": "test_example[registry/no-such-case]", "reason": "old"}]
    assert gated["baseline"]["unmatched"] == unmatched and gated["status"] == "stale baseline"


def test_a_failed_handshake_stops_the_implementation_once(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    command = f"{sys.executable} {BROKEN} crash-at-start"
    status, output, report = run_runner(
        warm_runner, tmp_path, "--impl", command, *EXAMPLES, limit=120
    )
    (broken,) = report["implementations"]
    first = next(r for r in broken["results"] if r["outcome"] == "not reached")
    assert status == 1
    assert "Cannot find module '/srv/missing.js'" in first["message"]
    assert output.count("Cannot find module") == 1
    selection = broken["selection"]
    assert selection["not reached"] == CASES, selection
    assert selection["deselected"] == selection["collected"] - CASES, selection
    # A fact about the run, not a contract's failure (issue 37): no contract, no requirement
    # is "not met" because the harness could not start.
    assert broken["status"] == "incomplete"
    assert "DOES NOT CONFORM" not in output and "requirements not met" not in output
    assert "run failed: " in output


def test_a_harness_that_never_starts_costs_one_timeout(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    command = f"{sys.executable} {BROKEN} slow-start"
    args = ("--impl", command, "--case-timeout", "1", *EXAMPLES)
    status, output, report = run_runner(warm_runner, tmp_path, *args, limit=60)
    (broken,) = report["implementations"]
    assert status == 1
    assert "no answer to 'start' within 1 s" in output
    assert broken["contracts"][CONTRACT]["not reached"] == CASES


def test_max_errors_stops_an_implementation_after_n_errors(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    command = f"{sys.executable} {BROKEN} garbage"
    args = ("--impl", command, *EXAMPLES, "--max-errors", "2")
    status, _, report = run_runner(warm_runner, tmp_path, *args)
    tally = report["implementations"][0]["contracts"][CONTRACT]
    assert status == 1
    assert tally["errored"] == 2 and tally["not reached"] == CASES - 2, tally
    assert "not reached" in tally and tally["verdict"] == "DOES NOT CONFORM"


def test_an_implementation_that_skips_everything_fails_with_fail_on_skip(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    args = ("--impl", "runner_drivers:NoCapabilities", *EXAMPLES)
    status, output, report = run_runner(warm_runner, tmp_path, *args)
    collected = report["implementations"][0]["selection"]["collected"]
    assert status == 1, output  # nothing ran to a verdict (issue 37), and it is said why:
    assert (
        f"ran {CASES} of {collected} tests ({collected - CASES} deselected); "
        f"of those run, {CASES} not applicable"
    ) in output
    status, output, _ = run_runner(warm_runner, tmp_path, *args, "--fail-on-skip")
    assert status == 1, output
    assert (
        f"--fail-on-skip: {CASES} selected test(s) of runner_drivers:NoCapabilities did not run"
    ) in output


def test_a_partial_run_says_what_did_not_run(warm_runner: WarmRunner, tmp_path: Path) -> None:
    status, output, report = run_runner(
        warm_runner,
        tmp_path,
        *EXAMPLES,
        "--contract",
        "PROMPT-STRICT-RENDER",
        "-k",
        "builtin-sections-by",
    )
    (reference,) = report["implementations"]
    tally = reference["contracts"][CONTRACT]
    assert status == 0, output
    assert tally["passed"] == 1 and tally["deselected"] == TESTS - 1, tally
    assert tally["verdict"] == f"incomplete: 1 of {TESTS} run"
    assert reference["contracts"]["PROMPT-STRICT-RENDER"]["verdict"] == "not selected"
    assert report["status"] == reference["status"] == "incomplete"
    assert set(reference["contracts"]) == {CONTRACT, "PROMPT-STRICT-RENDER"}
    assert report["status"] == reference["status"] == "incomplete"

    status, output, report = run_runner(
        warm_runner,
        tmp_path,
        "--impl",
        "runner_drivers:IdentityAlwaysOff",
        "--contract",
        CONTRACT,
        "-x",
    )
    tally = report["implementations"][0]["contracts"][CONTRACT]
    assert status == 1
    assert tally["failed"] == 1 and tally["not reached"] > 0, tally


def test_a_contract_without_collected_tests_says_no_cases_yet() -> None:
    report = Report([CONTRACT, "ROOT-MODEL"])
    report.collect("impl", "t", (CONTRACT,))
    report.record(Result("t", "impl", (CONTRACT,), "passed"))
    tally = report.tally("impl")
    assert (verdict(tally[CONTRACT]), verdict(tally["ROOT-MODEL"])) == ("conforms", "no cases yet")


def test_a_second_answer_is_blamed_on_the_case_that_gave_it(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    command = f"{sys.executable} {BROKEN} late-double 5"
    # The cases about the configuration (ten or more): not the whole contract, whose every
    # fifth answer costs the harness's 0.3 s pause and a restart.
    status, output, report = run_runner(
        warm_runner, tmp_path, "--impl", command, "--contract", CONTRACT, "-k", "config"
    )
    (broken,) = report["implementations"]
    errored = sorted(r["test"] for r in broken["results"] if r["outcome"] == "errored")
    order = [r["test"] for r in broken["results"]]
    # Every 5th run answers twice: the 5th, 10th, ... tests, never the one after them.
    assert status == 1, output
    assert len(order) >= 10, order
    assert errored == sorted(order[4::5][: len(errored)]) and errored, (errored, order)
    assert "answered with more than one line (found after it ended)" in output


def test_a_failure_shows_where_the_values_differ_once(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    args = ("--impl", "runner_drivers:IdentityAlwaysOff", "--contract", CONTRACT)
    _, output, report = run_runner(
        warm_runner, tmp_path, *args, "-k", "builtin-sections-by-default"
    )
    (failed,) = [r for r in report["implementations"][0]["results"] if r["outcome"] == "failed"]
    assert "at /assembly/sections/0/name" in failed["message"], failed["message"]
    assert output.count("registry/builtin-sections-by-default (PROMPT-REGISTRY-CONTRACT)") == 1


def test_the_junit_xml_of_a_failing_run_stays_valid(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    junit = tmp_path / "junit.xml"
    args = ("--impl", "runner_drivers:IdentityAlwaysOff", "--contract", CONTRACT)
    status, _, _ = run_runner(warm_runner, tmp_path, *args, "--junitxml", str(junit))
    assert status == 1
    assert_valid_xunit2(junit)
    text = junit.read_text()
    assert CONTRACT in text and "DOES NOT CONFORM" in text


def test_bad_options_are_refused_before_anything_runs(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    stdout, stderr = tmp_path / "out.txt", tmp_path / "err.txt"
    for args, complaint in [
        (["--case-timeout", "nan"], "positive, finite number of seconds"),
        (["--case-timeout", "-1"], "positive, finite number of seconds"),
        (["--start-timeout", "0"], "positive, finite number of seconds"),
        (["--max-errors", "0"], "a whole number, 1 or more"),
        (["--conformance-json", str(tmp_path / "missing" / "r.json")], "does not exist"),
        (["--impl", "reference", "--impl", "reference"], "given twice"),
        (["--impl", "test_xdist:SingleInstance", "-n", "2", "--dist", "each"], "twice at once"),
        (["--case-timeout", "abc"], "dsh-conformance: error: argument --case-timeout: 'abc'"),
        (["--no-such-option"], "dsh-conformance: error: unrecognized arguments: --no-such"),
    ]:
        status, _ = warm_runner.run(args, stdout, stderr, 60, cwd=Path(__file__).parent)
        printed, complained = stdout.read_text(), stderr.read_text()
        assert status == 4, (args, printed, complained)
        assert complaint in printed + complained, (args, complained)
        # The suite's own words: no pytest usage banner, no ini file or root paths.
        assert "usage:" not in complained and "inifile:" not in complained, args


def test_without_the_conformance_extra_the_runner_says_what_to_install() -> None:
    program = (
        "import sys; sys.modules['pytest'] = None; "
        "from dsh_conformance.run.runner import main; sys.exit(main([]))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False
    )
    assert completed.returncode == 2
    assert "pip install 'dsh-prompt-conformance[conformance]'" in completed.stderr
    assert "Traceback" not in completed.stderr


def test_a_written_baseline_absorbs_the_same_failures_next_time(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    baseline = tmp_path / "baseline.txt"
    wrong = ("--impl", "runner_drivers:IdentityAlwaysOff", "--contract", CONTRACT)
    status, _, _ = run_runner(
        warm_runner, tmp_path, *wrong, "--write-expected-failures", str(baseline)
    )
    assert status == 1
    assert baseline.read_text().startswith(
        "# expected failures of runner_drivers:IdentityAlwaysOff"
    )
    status, output, _ = run_runner(
        warm_runner, tmp_path, *wrong, "--expected-failures", str(baseline)
    )
    assert status == 0, output


def test_a_baseline_written_again_keeps_its_reasons_and_drops_what_now_passes(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    """Issue 33: writing the baseline of a gated run keeps each expected failure with its reason
    (it failed as expected: it still fails) and leaves out a listed test that passed."""
    wrong = ("--impl", "runner_drivers:IdentityAlwaysOff", "--contract", CONTRACT)
    status, _, report = run_runner(warm_runner, tmp_path, *wrong)
    (results,) = report["implementations"]
    failing = sorted(r["test"] for r in results["results"] if r["outcome"] == "failed")
    passing = next(r["test"] for r in results["results"] if r["outcome"] == "passed")
    assert status == 1 and len(failing) >= 2
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text(
        f"{failing[0]}  # identity is off on purpose\n"
        + "".join(f"{test}\n" for test in failing[1:])
        + f"{passing}  # fixed since\n"
    )
    status, output, _ = run_runner(
        warm_runner,
        tmp_path,
        *wrong,
        "--expected-failures",
        str(old),
        "--write-expected-failures",
        str(new),
    )
    assert status == 1, output  # the passing entry is stale
    lines = new.read_text().splitlines()
    assert lines[0].startswith("# expected failures of runner_drivers:IdentityAlwaysOff")
    assert lines[1:] == [f"{failing[0]}  # identity is off on purpose", *failing[1:]]


def test_several_implementations_make_one_comparison(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    args = (
        "--impl",
        "reference",
        "--impl",
        "runner_drivers:IdentityAlwaysOff",
        "--contract",
        CONTRACT,
    )
    status, output, report = run_runner(
        warm_runner, tmp_path, *args, "-k", "test_example and builtin"
    )
    builtin = sum("builtin" in case.id for case in cases(frozenset({CONTRACT})))
    assert status == 1
    assert "comparison of 2 implementations" in output
    assert "  [1] reference\n  [2] runner_drivers:IdentityAlwaysOff" in output
    (row,) = [line for line in output.splitlines() if line.startswith(CONTRACT)]
    cells = [cell.strip() for cell in row[len(CONTRACT) :].split("  ") if cell.strip()]
    # a verdict per column
    assert cells == [f"incomplete: {builtin} of {TESTS} run", "DOES NOT CONFORM"], row
    assert "  test_example[registry/builtin-sections-by-default]: [1] passed, [2] failed" in output
    assert output.count("contract ID  ") == 1  # not one full table after another
    assert [i["label"] for i in report["implementations"]] == [
        "reference",
        "runner_drivers:IdentityAlwaysOff",
    ]


def test_verdicts_are_coloured_on_a_terminal_unless_no_color(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    args = ("--contract", CONTRACT, "--color=yes")
    _, output, _ = run_runner(warm_runner, tmp_path, *args)
    assert "\x1b[32mconforms\x1b[0m" in output
    _, output, _ = run_runner(warm_runner, tmp_path, *args, env={"NO_COLOR": "1"})
    assert "\x1b[32mconforms" not in output and "conforms" in output


def test_a_loop_case_whose_requests_cannot_be_checked_fails_the_invariant(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    contract = "LOGGEDLOOP-REQUEST-INVARIANT"
    status, output, report = run_runner(
        warm_runner, tmp_path, "--impl", "runner_drivers:HidesItsLog", "--contract", contract
    )
    tally = report["implementations"][0]["contracts"][contract]
    assert status != 0
    assert tally["failed"] > 0 and tally["passed"] == 0, tally
    assert "not {sessionId, log, requests}" in output


def test_the_json_report_counts_each_test_under_the_requirements_claiming_it() -> None:
    contract = "PROMPT-STRICT-RENDER"
    linear = "test_render_time_grows_linearly"  # PROMPT-STRICT-RENDER.12 names it, and only it
    grammar = "test_render_follows_the_grammar"
    report = Report([contract])
    for test in (linear, grammar):
        report.collect("impl", test, (contract,))
    report.record(Result(linear, "impl", (contract,), "failed", "grew by x52"))
    report.deselect("impl", grammar)
    document = json.loads(
        report.to_json({"name": "dsh-prompt-conformance", "version": "0", "protocol": 1})
    )
    REPORT_SCHEMA.assert_fits(document)
    assert document["format"] == 4
    assert set(document["requirements"]) == {
        identifier for identifier in catalog() if identifier.startswith(f"{contract}.")
    }
    assert document["requirements"][f"{contract}.12"]["contract"] == contract
    (implementation,) = document["implementations"]
    by_requirement = implementation["requirements"]
    assert by_requirement[f"{contract}.12"]["failed"] == 1
    assert by_requirement[f"{contract}.12"]["verdict"] == "DOES NOT CONFORM"
    assert by_requirement[f"{contract}.4"]["deselected"] == 1  # the grammar property checks .4
    assert by_requirement[f"{contract}.4"]["verdict"] == "not selected"
    results = {result["test"]: result for result in implementation["results"]}
    assert results[linear]["requirements"] == [f"{contract}.12"]
    assert f"{contract}.4" in results[grammar]["requirements"]
    assert f"requirements not met (1): {contract}.12" in report.render()


LIVE_COMMAND = (
    sys.executable,
    "-m",
    "dsh_conformance.run.runner",
    "--contract",
    "PROMPT-CACHE-E2E",
)


def _live_env(**extra: str) -> dict[str, str]:
    """The environment of a user with a DeepSeek key exported, outside CI; the API's address is
    a closed local port, so nothing here can go online."""
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    return {**env, "DEEPSEEK_BASE_URL": "http://127.0.0.1:9", **extra}


def test_an_exported_key_does_not_take_the_main_command_online(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    completed = subprocess.run(
        [*LIVE_COMMAND, "--conformance-json", str(report)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=_live_env(DEEPSEEK_API_KEY="sk-conformance-fake-key"),
    )
    assert completed.returncode == 0, completed.stdout
    (reference,) = json.loads(report.read_text())["implementations"]
    row = reference["contracts"]["PROMPT-CACHE-E2E"]
    assert row["live not run"] == 1 and row["failed"] == 0, row
    assert row["verdict"] == "conforms offline; live test not run"
    assert "LIVE NOT RUN (1 test): PROMPT-CACHE-E2E's live half" in completed.stdout
    assert "add --live" in completed.stdout


def test_the_live_test_says_it_was_the_live_test_when_the_api_is_unreachable(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    unreachable = subprocess.run(
        [*LIVE_COMMAND, "--live", "-k", "reads_the_cache"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=_live_env(DEEPSEEK_API_KEY="sk-conformance-fake-key"),
    )
    assert unreachable.returncode == 1
    assert "the live test (PROMPT-CACHE-E2E, --live) could not reach DeepSeek" in unreachable.stdout
    assert "run without --live to skip it" in unreachable.stdout
    # Refused at the start, before any test runs (read then, not at import): a warm run will do.
    stdout, stderr = tmp_path / "out.txt", tmp_path / "err.txt"
    keyless = {"CI": None, "DEEPSEEK_API_KEY": None, "DEEPSEEK_BASE_URL": "http://127.0.0.1:9"}
    status, _ = warm_runner.run([*LIVE_COMMAND[3:], "--live"], stdout, stderr, 60, env=keyless)
    assert status == 4 and "set DEEPSEEK_API_KEY" in stderr.read_text()


def test_a_contract_whose_live_half_did_not_run_has_its_own_verdict() -> None:
    report = Report(["PROMPT-CACHE-E2E"])
    report.record(Result("offline", "impl", ("PROMPT-CACHE-E2E",), "passed"))
    report.record(Result("live", "impl", ("PROMPT-CACHE-E2E",), "live not run", "no --live"))
    assert verdict(report.tally("impl")["PROMPT-CACHE-E2E"]) == (
        "conforms offline; live test not run"
    )
    assert "LIVE NOT RUN (1 test): no --live" in report.render()


def test_cases_are_chosen_and_left_out_by_glob(warm_runner: WarmRunner, tmp_path: Path) -> None:
    status, output, report = run_runner(
        warm_runner,
        tmp_path,
        "--case",
        "registry/*",
        "--skip-case",
        "*duplicate*",
        "-k",
        "test_example",
    )
    (reference,) = report["implementations"]
    ran = sorted(r["test"] for r in reference["results"] if r["outcome"] == "passed")
    wanted = sorted(
        f"test_example[{case.id}]"
        for case in cases()
        if case.id.startswith("registry/") and "duplicate" not in case.id
    )
    assert status == 0, output
    assert ran == wanted and len(wanted) > 1


def test_in_process_implementations_compared_in_one_run_do_not_share_modules(
    warm_runner: WarmRunner,
    tmp_path: Path,
) -> None:
    """The gallery's ToolResultsBeforeUserText patches the reference's wire module when it is
    made: in one process, the reference compared with it would fail the same cases."""
    gallery = str(Path(__file__).parents[1] / "gallery")
    status, output, report = run_runner(
        warm_runner,
        tmp_path,
        "--impl",
        "reference",
        "--impl",
        "wrong_impls:ToolResultsBeforeUserText",
        "--contract",
        "PROMPT-DEEPSEEK-WIRE",
        "-k",
        # The cases of tool results, among them the one the entry fails (its intended failure,
        # deepseek/tool-results-after-user-text), which the reference failed too in one process.
        "test_example and tool-result",
        env={"PYTHONPATH": os.pathsep.join([gallery, os.environ.get("PYTHONPATH", "")])},
    )
    verdicts = {
        impl["label"]: impl["contracts"]["PROMPT-DEEPSEEK-WIRE"]["verdict"]
        for impl in report["implementations"]
    }
    assert status == 1, output
    assert verdicts == {
        "reference": verdicts["reference"],
        "wrong_impls:ToolResultsBeforeUserText": "DOES NOT CONFORM",
    }
    assert verdicts["reference"].startswith("incomplete"), verdicts  # -k: only the examples ran
    reference = report["implementations"][0]
    assert not [r for r in reference["results"] if r["outcome"] in ("failed", "errored")]
    ran = {r["test"] for r in reference["results"] if r["outcome"] == "passed"}
    assert "test_example[deepseek/tool-results-after-user-text]" in ran, ran


def test_a_named_hypothesis_profile_reaches_property_tests_imported_before_it(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    """``--hypothesis-profile NAME`` is applied to the suite's property tests, not only loaded as
    Hypothesis's default: a process that imported the suite before (the `warm_runner` server,
    the gallery's `isolated_runs`) still runs NAME's examples. It ran 100, which left the
    gallery's quick runs as slow as its whole ones."""
    (tmp_path / "one_example.py").write_text(
        "from hypothesis import Phase, settings\n"
        'settings.register_profile("dsh-test-one", max_examples=1, phases=[Phase.generate])\n'
    )
    stdout = tmp_path / "out.txt"
    status, _ = warm_runner.run(
        [
            *("-p", "one_example", "--hypothesis-profile", "dsh-test-one"),
            *("--contract", "PROMPT-STRICT-RENDER", "-k", "test_render_follows_the_grammar"),
            "--hypothesis-show-statistics",
        ],
        stdout,
        None,
        120,
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path)},
    )
    printed = stdout.read_text()
    assert status == 0, printed
    assert "- 1 passing, 0 failing" in printed, printed
    assert "Stopped because settings.max_examples=1" in printed, printed
