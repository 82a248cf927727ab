"""The broken-harness matrix: every way a harness can misbehave, through the real runner.

Each row runs ``dsh-conformance`` (a process of its own, forked by `warm_runner`) on
`broken_harness.py`, restricted to one contract's example cases with a 1 s case timeout (the
harness's start has a start timeout of its own, so a start slowed by a busy machine never spends
a case's time). Every row must finish in bounded time, exit 1, and produce a report whose errors
sit on the right tests, say what happened, and stay small:

- a harness that fails at start fails the run, its diagnosis said once (and kept with the first
  test), and every test is "not reached": no contract is blamed for it;
- a harness misbehaving at a run errs on that test exactly, saying how, and the test after it
  passes (the suite restarts it after a failure): every such misbehaviour is one case of a single
  row, each case after one answered properly (a row per misbehaviour cost a runner and three
  harness starts each); one whose answers are well-formed but hold what no case expects
  (megabytes of it) fails every third test, and those only.

Besides time, each row bounds the memory of the suite's process tree (the harness included): an
answer is checked in linear time with a small constant, whatever its width or depth (issue 22).
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_transport import assert_all_gone
from warm_runner import WarmRunner

from dsh_conformance.run.catalog import cases

#: Not in the fast subset (`-m "not slow"`):
#: a broken harness process in every way, one run each.
pytestmark = pytest.mark.slow

BROKEN = Path(__file__).with_name("broken_harness.py")
CONTRACT = "PROMPT-SCOPE-SHADOW"
EVERY = 3
#: The tests of CONTRACT (all of them example cases; ``-k test_example`` keeps it so).
TESTS = len(cases(frozenset({CONTRACT})))
LIMIT = 90.0  # seconds for one row, however the harness misbehaves
#: What a warm harness needs for one small case, with room for a busy machine; the start of a
#: harness (an interpreter loading the reference) gets a minute.
CASE_TIMEOUT = "1"
START_TIMEOUT = "60"
#: The most memory the suite's process tree may hold in one row (largest process, KiB).
MAX_RSS_KIB = 600 * 1024

#: (mode, start timeout, what the report says): the harness that never starts is given no more
#: than a case's time, the others all the time they need to show their failure.
AT_START = [
    ("crash-at-start", START_TIMEOUT, "Cannot find module '/srv/missing.js'"),
    ("slow-start", CASE_TIMEOUT, "no answer to 'start' within 1 s"),
    ("log-before-started", START_TIMEOUT, "harness listening, loading 3 plugins"),
    ("bad-handshake", START_TIMEOUT, "speaks protocol 999"),
]
AT_RUN = [
    ("crash", "crashing on case"),
    ("hang", "no answer to 'run' within 1 s"),
    ("garbage", "printed a line that is not a protocol message"),
    ("endless-line", "printed a line longer than 8388608 bytes"),
    ("huge-garbage", "more characters cut"),
    ("huge-stderr", "more bytes of this line cut"),
    ("double", "with more than one line"),
    ("late-double", "with more than one line"),
    ("flood", "with more than one line"),
    ("wrong-case", "some/other-case"),
    ("extra-field", "Additional properties are not allowed ('extra'"),
    ("errored-without-case", "'case' is a required property"),
    ("bad-observation", "does not fit protocol.schema.json at /observations/0/assembly/sections"),
    (
        "deep",
        "answered 'run' with a line nested 100002 levels deep; the suite reads JSON nested at most "
        "100 levels",
    ),
    ("big-number", "does not fit protocol.schema.json at /observations/0/ok: True was expected"),
]
#: The contract whose example cases the misbehaviours at a run are spread over: every other case
#: misbehaves, in the order of `AT_RUN`, and the case after each is answered properly.
AT_RUN_CONTRACT = "PROMPT-REGISTRY-CONTRACT"
AT_RUN_CASES = [case.id for case in cases(frozenset({AT_RUN_CONTRACT}))]
MISBEHAVING = dict(zip(AT_RUN_CASES[1::2], [mode for mode, _ in AT_RUN], strict=False))
assert len(MISBEHAVING) == len(AT_RUN), f"{AT_RUN_CONTRACT} has too few cases"
#: Well-formed answers holding what no case expects: the tests fail, with a bounded message.
AT_RUN_FAILING = [
    ("wide-at-count", 'answers {"ok": …} or {"error": …} (protocol.schema.json, observationOf)'),
    ("huge-string", 'answers {"ok": …} or {"error": …} (protocol.schema.json, observationOf)'),
]


def run_matrix_row(
    warm: WarmRunner,
    tmp_path: Path,
    command: str,
    env: dict[str, str] | None = None,
    start_timeout: str = START_TIMEOUT,
    contract: str = CONTRACT,
    limit: float = LIMIT,
) -> tuple[int, str, list[dict[str, Any]]]:
    """Run the suite on ``command`` (in a process of its own, `warm_runner`, killed after
    ``limit`` seconds); the exit status, the output, and the results that ran. ``ru_maxrss`` of
    its process tree is the largest process's, in KiB on Linux."""
    report = tmp_path / "report.json"
    output = tmp_path / "output.txt"
    started = time.monotonic()
    status, maxrss = warm.run(
        [
            "--impl",
            command,
            "--contract",
            contract,
            "-k",
            "test_example",
            "--case-timeout",
            CASE_TIMEOUT,
            "--start-timeout",
            start_timeout,
            "--conformance-json",
            str(report),
        ],
        output,
        None,
        limit,
        env=env,
    )
    assert time.monotonic() - started < limit
    assert maxrss < MAX_RSS_KIB, f"{maxrss} KiB"
    stdout = output.read_text()
    assert len(stdout) < 200_000, "the report must stay small"
    (implementation,) = json.loads(report.read_text())["implementations"]
    results = [r for r in implementation["results"] if r["outcome"] != "deselected"]
    assert all(len(r["message"]) < 20_000 for r in results)
    return status, stdout, results


@pytest.mark.parametrize(("mode", "start_timeout", "says"), AT_START, ids=[r[0] for r in AT_START])
def test_a_harness_failing_at_start_is_reported_once(
    warm_runner: WarmRunner, tmp_path: Path, mode: str, start_timeout: str, says: str
) -> None:
    command = f"{sys.executable} {BROKEN} {mode}"
    status, output, results = run_matrix_row(
        warm_runner, tmp_path, command, start_timeout=start_timeout
    )
    assert status == 1, output
    # A fact about the run, not about a contract (issue 37): every test is "not reached", the
    # first one with the diagnosis, and the run fails saying why, once.
    assert [r["outcome"] for r in results] == ["not reached"] * TESTS, results
    assert "handshake failed" in results[0]["message"]
    assert says in results[0]["message"]
    assert output.count(says) == 1
    assert "run failed: " in output and "DOES NOT CONFORM" not in output


@pytest.fixture(scope="module")
def misbehaving_run(
    warm_runner: WarmRunner, tmp_path_factory: pytest.TempPathFactory
) -> tuple[int, str, list[dict[str, Any]]]:
    """The row of every misbehaviour at a run (`MISBEHAVING`), which each test below reads."""
    pairs = [f"{case}={mode}" for case, mode in MISBEHAVING.items()]
    command = shlex.join([sys.executable, str(BROKEN), "at", *pairs])
    directory = tmp_path_factory.mktemp("at-run")
    # The time of the rows it replaces: each had EVERY misbehaviours (and a start more).
    limit = LIMIT * len(AT_RUN) / EVERY
    return run_matrix_row(warm_runner, directory, command, contract=AT_RUN_CONTRACT, limit=limit)


@pytest.mark.parametrize(("mode", "says"), AT_RUN, ids=[mode for mode, _ in AT_RUN])
def test_a_harness_misbehaving_at_a_run_errs_on_exactly_those_tests(
    misbehaving_run: tuple[int, str, list[dict[str, Any]]], mode: str, says: str
) -> None:
    status, output, results = misbehaving_run
    assert status == 1, output
    tests = [f"test_example[{case}]" for case in AT_RUN_CASES]
    assert [r["test"] for r in results] == tests  # each misbehaving case has a proper one after
    expected = ["errored" if case in MISBEHAVING else "passed" for case in AT_RUN_CASES]
    assert [r["outcome"] for r in results] == expected, results
    (case,) = [case for case, misbehaviour in MISBEHAVING.items() if misbehaviour == mode]
    message = results[AT_RUN_CASES.index(case)]["message"]
    assert says in message, message


@pytest.mark.parametrize(("mode", "says"), AT_RUN_FAILING, ids=[m for m, _ in AT_RUN_FAILING])
def test_a_harness_answering_megabytes_fails_exactly_those_tests(
    warm_runner: WarmRunner, tmp_path: Path, mode: str, says: str
) -> None:
    status, output, results = run_matrix_row(
        warm_runner, tmp_path, f"{sys.executable} {BROKEN} {mode} {EVERY}"
    )
    assert status == 1, output
    expected = [("failed" if n % EVERY == 0 else "passed") for n in range(1, TESTS + 1)]
    assert [r["outcome"] for r in results] == expected
    for result in results[EVERY - 1 :: EVERY]:
        assert says in result["message"], result["message"]


def test_a_harness_answering_ok_to_every_op_fails_every_case(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    """Issue 37, H6: ``{"ok": true}`` is no `project` observation, so it is never read as
    "nothing proposed" (4 runtime-context cases passed so); each case fails, saying which op
    answered in another op's shape."""
    status, output, results = run_matrix_row(
        warm_runner,
        tmp_path,
        f"{sys.executable} {BROKEN} all-ok",
        contract="LOOP-RUNTIME-CONTEXT",
    )
    assert status == 1, output
    assert len(results) > 19
    assert [r["outcome"] for r in results] == ["failed"] * len(results)
    for result in results:
        if result["test"].startswith("test_example[runtime-context/"):
            assert "a 'project' answers {\"message\": …} or {} or" in result["message"]


def test_an_answer_far_wider_than_the_scenario_is_refused_by_its_count(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    """60,000 observations more than the ops, in every case: each is refused by the count alone,
    before the schema is consulted (it once cost the suite 29 s a case)."""
    status, output, results = run_matrix_row(
        warm_runner, tmp_path, f"{sys.executable} {BROKEN} wide"
    )
    assert status == 1, output
    assert [r["outcome"] for r in results] == ["errored"] * TESTS
    for result in results:
        message = result["message"]
        found = re.search(r"answered (\d+) observations to a scenario of (\d+) ops", message)
        assert found is not None, message
        assert int(found[1]) - int(found[2]) == 60_000


def test_a_wrapper_process_tree_is_killed_with_the_harness(
    warm_runner: WarmRunner, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    command = f"sh -c 'exec sh -c \"{sys.executable} {BROKEN} hang {EVERY}\"'"
    status, output, results = run_matrix_row(
        warm_runner, tmp_path, command, env={"BROKEN_HARNESS_PIDS": str(pids)}
    )
    assert status == 1, output
    assert [r["outcome"] for r in results] == ["passed", "passed", "errored"] * 3
    assert_all_gone(pids, count=2 * 3)  # three harness starts, each with its sleeping child
