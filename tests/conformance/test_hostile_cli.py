"""Careless and hostile use of ``dsh-conformance`` (issue 37): each reproducer gives one line and
the documented exit status (`dsh_conformance.run.exits`), never a traceback, never a verdict that
the implementation did not earn."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from warm_runner import WarmRunner

#: Not in the fast subset (`-m "not slow"`): each runs the command in a process of its own.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[2]
REFERENCE_HARNESS = f"{sys.executable} -c 'from dsh_reference.harness import main; main()'"


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}


def interrupted_run(
    warm: WarmRunner, directory: Path, *args: str, after: float = 0.0
) -> tuple[int, str, str]:
    """Run ``args`` from ``directory`` (in a process of its own, forked by `warm_runner`), send
    SIGINT once it has written its first test result (and ``after`` more seconds), as Ctrl-C
    does; its exit status, standard output and standard error."""
    with tempfile.TemporaryDirectory() as printed:
        stdout, stderr = Path(printed, "stdout"), Path(printed, "stderr")
        pid = warm.start(list(args), stdout, stderr, directory, {"NO_COLOR": "1"})
        deadline = time.monotonic() + 120
        # pytest -q: the first test's mark (the harness started and answered)
        while not (stdout.exists() and stdout.stat().st_size) and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(after)
        os.kill(pid, signal.SIGINT)
        status, _ = warm.wait(pid, 120)
        return status, stdout.read_text(), stderr.read_text()


@pytest.mark.parametrize("attempt", range(8))
def test_ctrl_c_never_becomes_a_verdict_on_a_correct_harness(
    warm_runner: WarmRunner, tmp_path: Path, attempt: int
) -> None:
    """The reference harness, interrupted mid-case: its answer to that case comes after the
    interrupt, and is no "second line" of the case before (in 5 of 10 tries it was, and the JSON
    report said "does not conform"). Eight tries miss a race that strikes half the time once in
    256 runs."""
    report = tmp_path / "report.json"
    status, out, err = interrupted_run(
        warm_runner,
        tmp_path,
        "--impl",
        REFERENCE_HARNESS,
        "--contract",
        "PROMPT-HEADER-CANONICAL",
        "--conformance-json",
        str(report),
        after=0.05 * attempt,
    )
    assert status == 2, out + err
    (implementation,) = json.loads(report.read_text())["implementations"]
    assert implementation["status"] == "incomplete", out
    outcomes = {result["outcome"] for result in implementation["results"]}
    assert "not reached" in outcomes, out
    assert not outcomes & {"failed", "errored"}, out
    assert "DOES NOT CONFORM" not in out
    assert "Traceback" not in err


#: A harness that, while it runs one case, gets Ctrl-C where Python swallows it (a garbage
#: collection callback, as Hypothesis installs: the interrupt is "unraisable"), then answers that
#: case wrongly, as the code the interrupt cut short might.
SWALLOWED_CTRL_C = """
import gc, os, signal
from dsh_reference.harness import Driver

def ctrl_c_in_a_gc_callback(phase, info):
    gc.callbacks.remove(ctrl_c_in_a_gc_callback)
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(10_000):  # the handler runs in here, and its KeyboardInterrupt is dropped
        pass

class Harness(Driver):
    def handle(self, message):
        answer = super().handle(message)
        if message.get("type") == "run" and message.get("case") == CASE:
            gc.callbacks.append(ctrl_c_in_a_gc_callback)
            gc.collect()
            answer["observations"] = [{"ok": True} for _ in answer["observations"]]
        return answer
"""


#: The case the harness is interrupted in, and two selections: the case first of its contract's
#: (the next test's start raises the interrupt again), and the case alone (the session's end must).
CUT_SHORT = "registry/config-toolOrder-given-a-string"


@pytest.mark.parametrize(
    "selection",
    [("--contract", "PROMPT-TOOL-ORDER", "-k", "test_example"), ("--case", CUT_SHORT)],
    ids=["first-of-many", "alone"],
)
def test_a_test_that_ctrl_c_cut_short_is_no_verdict(
    cli: Cli, tmp_path: Path, selection: tuple[str, ...]
) -> None:
    """Ctrl-C swallowed inside a test that then fails: the run is interrupted, that test not
    reached, and nothing failed (it failed, and the run said "does not conform")."""
    (tmp_path / "swallowing.py").write_text(f"CASE = {CUT_SHORT!r}\n{SWALLOWED_CTRL_C}")
    code, out, err = cli(
        tmp_path,
        *("--impl", "swallowing:Harness", *selection, "--conformance-json", "report.json"),
    )
    assert code == 2, out + err
    (implementation,) = json.loads((tmp_path / "report.json").read_text())["implementations"]
    outcomes = {result["test"]: result["outcome"] for result in implementation["results"]}
    assert outcomes[f"test_example[{CUT_SHORT}]"] == "not reached", out
    assert not set(outcomes.values()) & {"failed", "errored"}, out
    assert implementation["status"] == "incomplete", out
    assert "DOES NOT CONFORM" not in out
    assert "KeyboardInterrupt" in out or "interrupted (Ctrl-C)" in out, out


#: ``dsh-conformance ARGS`` run from a directory: its exit status, standard output and error.
Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(warm_runner: WarmRunner) -> Cli:
    """``cli(directory, *args, path=())``: ``dsh-conformance ARGS`` run from ``directory`` (on
    ``PYTHONPATH`` with ``path``, so that a driver written there loads), in a process of its own
    forked by `warm_runner`: the process a user starts, minus the imports."""

    def run(directory: Path, *args: str, path: tuple[Path, ...] = ()) -> tuple[int, str, str]:
        with tempfile.TemporaryDirectory() as printed:
            stdout, stderr = Path(printed, "stdout"), Path(printed, "stderr")
            env = {"PYTHONPATH": os.pathsep.join(map(str, (directory, *path))), "NO_COLOR": "1"}
            status, _ = warm_runner.run(list(args), stdout, stderr, 300, cwd=directory, env=env)
            return status, stdout.read_text(), stderr.read_text()

    return run


BROKEN_DRIVERS = {
    "raising_driver": (
        "from dsh_reference.harness import Driver\n"
        "class Harness(Driver):\n"
        "    def __init__(self):\n"
        "        raise RuntimeError('no config file at ~/.harness')\n",
        "RuntimeError: no config file at ~/.harness",
        "line 4",
    ),
    "uncompilable_driver": (
        "class Harness:\n    def handle(self, message)\n        return None\n",
        "SyntaxError",
        "line 2",
    ),
}


@pytest.mark.parametrize("module", sorted(BROKEN_DRIVERS))
@pytest.mark.parametrize(
    ("subcommand", "status"), [((), 4), (("info",), 2), (("smoke",), 2), (("fuzz",), 2)]
)
def test_a_driver_that_cannot_be_built_is_one_line_naming_it(
    cli: Cli, tmp_path: Path, module: str, subcommand: tuple[str, ...], status: int
) -> None:
    """H1: a constructor that raises, a module that does not compile: no INTERNALERROR, no
    traceback; one line naming the --impl, the exception and the user's own line."""
    source, exception, line = BROKEN_DRIVERS[module]
    (tmp_path / f"{module}.py").write_text(source)
    spec = f"{module}:Harness"
    more = ("--examples", "1") if subcommand == ("fuzz",) else ()
    code, out, err = cli(tmp_path, *subcommand, "--impl", spec, *more)
    assert code == status, out + err
    assert "Traceback" not in out + err and "INTERNALERROR" not in out + err
    said = [text for text in (out + err).splitlines() if spec in text]
    assert said, out + err
    assert exception in said[0] and line in said[0] and module in said[0], said


@pytest.mark.parametrize("option", ["--conformance-json", "--write-expected-failures"])
def test_a_report_path_that_is_a_directory_is_refused_before_the_run(
    cli: Cli, tmp_path: Path, option: str
) -> None:
    """H2: the whole suite ran, then a traceback and exit 1, the report lost."""
    code, out, err = cli(tmp_path, option, ".", "--case", "registry/*")
    assert code == 4, out + err
    assert "Traceback" not in out + err
    assert f"{option}: . is a directory" in err
    assert "passed" not in out


#: A small run the reference passes: its property tests would add 2 s of CPU and prove nothing more.
TOOL_ORDER_EXAMPLES = ("--contract", "PROMPT-TOOL-ORDER", "-k", "test_example")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("option", ["--conformance-json", "--write-expected-failures"])
def test_a_report_that_cannot_be_written_after_the_run_keeps_the_verdict(
    cli: Cli, tmp_path: Path, option: str
) -> None:
    """H2: a write that fails after the run (a full disk) is one line; the verdict's exit
    status (0: the reference conforms, in the example cases run) is kept. (The contract's
    property tests added 2 s of CPU to each run, and nothing to what is shown.)"""
    code, out, err = cli(tmp_path, option, "/dev/full", *TOOL_ORDER_EXAMPLES)
    assert code == 0, out + err
    assert "Traceback" not in out + err
    assert "cannot write" in out + err and "/dev/full" in out + err


@pytest.mark.parametrize("output", [".", "/"])
def test_summary_into_a_directory_is_one_line(cli: Cli, tmp_path: Path, output: str) -> None:
    """H3: ``summary … -o .`` gave a traceback."""
    code, out, err = cli(tmp_path, *TOOL_ORDER_EXAMPLES, "--conformance-json", "r.json")
    assert code == 0, out + err
    code, out, err = cli(tmp_path, "summary", str(tmp_path / "r.json"), "-o", output)
    assert code == 2, out + err
    assert err.strip() == f"dsh-conformance summary: {output}: is a directory; give a file name"
    assert not list(tmp_path.glob(".*.part"))


#: The modules of the `conformance` extra (pyproject.toml), blocked as if not installed.
EXTRA = ("pytest", "_pytest", "hypothesis", "jsonschema", "jsonschema_rs", "syrupy", "respx")


@pytest.mark.parametrize(
    "args", [["info"], ["smoke"], ["check-log", "session.jsonl"], ["fuzz", "--impl", "reference"]]
)
def test_a_missing_extra_is_named_by_every_command(tmp_path: Path, args: list[str]) -> None:
    """H4: info, smoke and check-log crashed on ``No module named 'jsonschema_rs'``."""
    (tmp_path / "session.jsonl").write_text("")
    blocked = "; ".join(f"sys.modules[{name!r}] = None" for name in EXTRA)
    program = (
        f"import sys; {blocked}; from dsh_conformance.run.runner import main; "
        f"sys.exit(main({args!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        cwd=tmp_path,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "pip install 'dsh-prompt-conformance[conformance]'" in done.stderr


def test_ctrl_c_in_check_log_is_interrupted_exit_2(warm_runner: WarmRunner, tmp_path: Path) -> None:
    """H5: a traceback and exit 130. The log is a FIFO: check-log opens it and waits for lines
    that never come, and is interrupted there."""
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    with tempfile.TemporaryDirectory() as printed:
        stdout, stderr = Path(printed, "stdout"), Path(printed, "stderr")
        pid = warm_runner.start(["check-log", str(fifo)], stdout, stderr, tmp_path)
        writer = _open_when_read(fifo, limit=120)
        try:
            os.kill(pid, signal.SIGINT)
            status, _ = warm_runner.wait(pid, 60)
        finally:
            os.close(writer)
        out, err = stdout.read_text(), stderr.read_text()
    assert status == 2, out + err
    assert err.strip() == "dsh-conformance check-log: interrupted", err


def _open_when_read(fifo: Path, limit: float) -> int:
    """The FIFO's writing end, opened once a reader has opened it (until then the open fails
    with ENXIO): the reader then waits for lines."""
    deadline = time.monotonic() + limit
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:
            if error.errno != errno.ENXIO or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def test_a_driver_raising_keyboard_interrupt_in_fuzz_is_interrupted_exit_2(
    cli: Cli, tmp_path: Path
) -> None:
    """H5: ``fuzz`` with an in-process driver that raises KeyboardInterrupt (as Ctrl-C does
    inside it): "interrupted", exit 2, and no case half-written to --out."""
    (tmp_path / "interrupted_driver.py").write_text(
        "from dsh_reference.harness import Driver\n"
        "class Harness(Driver):\n"
        "    def handle(self, message):\n"
        "        if message['type'] == 'run':\n"
        "            raise KeyboardInterrupt\n"
        "        return super().handle(message)\n"
    )
    code, out, err = cli(
        tmp_path,
        "fuzz",
        "--impl",
        "interrupted_driver:Harness",
        "--against",
        REFERENCE_HARNESS,
        "--examples",
        "5",
        "--database",
        "none",
        "--out",
        "found",
    )
    assert code == 2, out + err
    assert err.strip().endswith("dsh-conformance fuzz: interrupted"), err
    assert "Traceback" not in err
    assert not (tmp_path / "found").exists()


def test_a_case_glob_matching_nothing_is_named(cli: Cli, tmp_path: Path) -> None:
    """M7: ``--case 'registy/*'`` ran nothing without saying which glob matched nothing; then it
    said so below a table of 661 tests "not run" and wrote a report of them: a usage error is
    the one line, as before any run, and no report."""
    code, out, err = cli(tmp_path, "--case", "registy/*", "--conformance-json", "report.json")
    assert code == 4, out + err
    assert "--case 'registy/*' matches no example case" in err
    assert "Traceback" not in err
    assert "conformance by contract ID" not in out, out
    assert not (tmp_path / "report.json").exists()


def test_list_honours_case_and_refuses_unknown_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """M7: ``--list`` ignored ``--case`` and unknown options."""
    from dsh_conformance.run.runner import main

    assert main(["--list", "--json", "--case", "registry/duplicate-*"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cases"] and all(c["id"].startswith("registry/duplicate-") for c in data["cases"])
    assert data["properties"] == data["other"] == []
    assert main(["--list", "--case", "registy/*"]) == 2
    assert "--case 'registy/*' matches no example case" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit:
        main(["--list", "--frobnicate"])
    assert exit.value.code == 2
    assert "unrecognized arguments: --frobnicate" in capsys.readouterr().err


#: A DeepSeek HTTP case: run by ``test_deepseek_http``, one test per case, as example cases are.
HTTP_CASE = "deepseek-http/5xx-boundary"


def test_a_case_glob_may_name_a_deepseek_http_case(
    cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--case 'deepseek-http/…'`` was refused as matching no example case (by ``--list`` and
    by a run), although each HTTP case is a test of its own: both now choose it, and only it."""
    from dsh_conformance.run.runner import main

    assert main(["--list", "--json", "--case", HTTP_CASE]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cases"] == [] and data["properties"] == []
    assert [(t["test"], t["parameters"]) for t in data["other"]] == [
        ("test_deepseek_http", [HTTP_CASE])
    ]
    code, out, err = cli(tmp_path, "--case", HTTP_CASE, "--conformance-json", "report.json")
    assert code == 0, out + err
    (implementation,) = json.loads((tmp_path / "report.json").read_text())["implementations"]
    ran = [r["test"] for r in implementation["results"] if r["outcome"] != "deselected"]
    assert ran == [f"test_deepseek_http[{HTTP_CASE}]"], ran


def test_a_case_glob_matching_nothing_is_one_line_on_two_workers(cli: Cli, tmp_path: Path) -> None:
    """Found while collecting, the refusal crashed pytest-xdist (its workers collect): exit 3
    and some 40 lines of INTERNALERROR. It is now made before anything starts."""
    code, out, err = cli(tmp_path, "-n", "2", "--case", "registy/*")
    assert code == 4, out + err
    assert "--case 'registy/*' matches no example case" in err
    assert "INTERNALERROR" not in out + err


def test_info_json_prints_json_when_the_handshake_fails(cli: Cli, tmp_path: Path) -> None:
    """M11: ``info --json`` printed text when the handshake failed."""
    broken = Path(__file__).with_name("broken_harness.py")
    code, out, err = cli(
        tmp_path, "info", "--json", "--impl", f"{sys.executable} {broken} bad-handshake"
    )
    assert code == 1, out + err
    document = json.loads(out)
    assert document["handshake"] is None
    assert "speaks protocol 999" in document["error"]


def test_fail_on_skip_fails_when_the_live_test_did_not_run(cli: Cli, tmp_path: Path) -> None:
    """The exit-code table says 1 when a selected test did not run; the live test not run
    (no --live) exited 0."""
    code, out, err = cli(tmp_path, "--contract", "PROMPT-CACHE-E2E", "--fail-on-skip")
    assert code == 1, out + err
    assert "--fail-on-skip: 1 selected test(s) of reference did not run" in out


def test_pytests_closing_line_agrees_with_a_failed_run(cli: Cli, tmp_path: Path) -> None:
    """M9: the suite's table failed the run (here: a harness that cannot start), while pytest's
    closing line said only what it counted."""
    broken = Path(__file__).with_name("broken_harness.py")
    code, out, err = cli(
        tmp_path, "--impl", f"{sys.executable} {broken} bad-handshake", "--case", "registry/*"
    )
    assert code == 1, out + err
    assert "1 run failed" in out.strip().splitlines()[-1], out


def test_export_into_a_non_empty_directory_is_refused_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """M8: export-cases overwrote files of a non-empty directory in silence. An empty or new
    directory, or a previous export, is written; another needs --force."""
    from dsh_conformance.run.runner import main

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    assert main(["export-cases", str(mine), "--contract", "PROMPT-TOOL-ORDER"]) == 2
    assert "is not empty and holds no previous export" in capsys.readouterr().err
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    assert main(["export-cases", str(mine), "--contract", "PROMPT-TOOL-ORDER", "--force"]) == 0
    assert (mine / "index.json").exists() and (mine / "notes.txt").read_text() == "my notes"
    again = tmp_path / "again"
    assert main(["export-cases", str(again), "--contract", "PROMPT-TOOL-ORDER"]) == 0
    assert main(["export-cases", str(again), "--contract", "PROMPT-TOOL-ORDER"]) == 0


def test_run_case_replays_an_exported_case_against_an_implementation(
    cli: Cli, tmp_path: Path
) -> None:
    """M5: a case file (exported, or written by fuzz in the same format) could not be run
    against an implementation. The reference passes it; the gallery's ProjectAnswersOk fails it;
    a file that is no case is one line, exit 2."""
    gallery = ROOT / "tests" / "gallery"
    code, out, err = cli(tmp_path, "export-cases", "cases", "--contract", "LOOP-RUNTIME-CONTEXT")
    assert code == 0, out + err
    case = tmp_path / "cases" / "runtime-context__never-seen-and-empty-proposes-nothing.json"
    code, out, err = cli(tmp_path, "run-case", str(case))
    assert (code, out) == (
        0,
        "passed runtime-context/never-seen-and-empty-proposes-nothing against reference\n",
    ), err
    code, out, err = cli(
        tmp_path, "run-case", str(case), "--impl", "wrong_impls:ProjectAnswersOk", path=(gallery,)
    )
    assert code == 1, out + err
    assert out.startswith("FAILED runtime-context/never-seen-and-empty-proposes-nothing")
    code, out, err = cli(tmp_path, "run-case", str(tmp_path / "cases" / "COMPARISON.md"))
    assert code == 2 and "not a case file" in err and "Traceback" not in err, err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--budget", "soon"], "argument --budget: 'soon' is not a number of seconds"),
        (["--database", "db.txt"], "--database db.txt: not a directory"),
    ],
)
def test_fuzz_names_a_bad_budget_and_a_database_file(
    cli: Cli, tmp_path: Path, args: list[str], says: str
) -> None:
    """Low: ``invalid _seconds value``; ``--database FILE`` silently stored nothing."""
    (tmp_path / "db.txt").write_text("my notes\n")
    code, out, err = cli(tmp_path, "fuzz", "--impl", "reference", *args)
    assert code == 2, out + err
    assert says in err and "_seconds" not in err, err
    assert (tmp_path / "db.txt").read_text() == "my notes\n"
