"""Both transports, and what they make of an implementation that crashes, hangs or babbles.

An implementation that crashes, hangs, or prints something that is not a protocol message gets
``errored`` for that case with what it printed, and the run goes on: the suite restarts it and
never hangs. `broken_harness.py` misbehaves on purpose to show it.
"""

from __future__ import annotations

import os
import resource
import shlex
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from warm_runner import WarmRunner

from dsh_conformance.harness import zone
from dsh_conformance.harness.process import MAX_LINE_BYTES, Child
from dsh_conformance.harness.protocol import Outcome, ProtocolError
from dsh_conformance.harness.transport import (
    Implementation,
    InProcess,
    Subprocess,
    TransportFailure,
    load_implementation,
)
from dsh_conformance.judge.case import Case
from dsh_conformance.run.execute import check, format_context
from dsh_conformance.run.report import gist
from dsh_conformance.scenarios import scenario as s
from dsh_reference.harness import Driver

#: Not in the fast subset (`-m "not slow"`):
#: harness processes that hang, die or misbehave, and waits for the timeouts.
pytestmark = pytest.mark.slow

BROKEN = str(Path(__file__).with_name("broken_harness.py"))
#: The case timeout: what a warm harness needs for one small case, with room for a busy machine.
TIMEOUT = 1.0
#: The start timeout: an interpreter starting on a busy machine can take seconds, and a start
#: that overruns a short case timeout would make these tests fail for the wrong reason.
START_TIMEOUT = 60.0

CASE = Case(
    id="transport/identity",
    contracts=("PROMPT-REGISTRY-CONTRACT",),
    why="the built-in identity section is registered by default",
    ops=(s.assemble("a", expect=s.assembly(sections=[s.IDENTITY, s.EMPTY_PERSONA])),),
)


def broken(
    mode: str, every: int = 1, timeout: float = TIMEOUT, start_timeout: float = START_TIMEOUT
) -> Subprocess:
    argv = [sys.executable, BROKEN, mode, str(every)]
    return Subprocess(argv, label=mode, timeout=timeout, start_timeout=start_timeout)


def run(impl: Implementation) -> Outcome:
    return impl.run(CASE.id, CASE.scenario())


Closing = Callable[[Implementation], None]


@pytest.fixture
def closing() -> Iterator[Closing]:
    """Register an implementation to be closed after the test."""
    opened: list[Implementation] = []
    yield opened.append
    for impl in opened:
        impl.close()


class TestSubprocessTransport:
    def test_the_reference_harness_answers_over_stdin_stdout(self, closing: Closing) -> None:
        impl = load_implementation(
            "dsh-reference-harness", timeout=TIMEOUT, start_timeout=START_TIMEOUT
        )
        closing(impl)
        assert isinstance(impl, Subprocess)
        assert impl.handshake().name == "dsh-reference"
        assert "registry" in impl.handshake().capabilities
        assert check(impl, CASE) == [{"assembly": _identity_assembly()}]

    def test_a_crash_is_errored_with_stderr_and_the_next_case_gets_a_restart(
        self, closing: Closing
    ) -> None:
        impl = broken("crash", every=2)
        closing(impl)
        assert run(impl).kind == "observed"
        crashed = run(impl)
        assert crashed.kind == "errored"
        assert "exit status 3" in crashed.reason
        assert "crashing on case transport/identity" in crashed.context["stderr"]
        assert run(impl).kind == "observed"  # restarted: its run counter starts again

    def test_a_hang_is_errored_after_the_timeout_and_the_run_goes_on(
        self, closing: Closing
    ) -> None:
        impl = broken("hang", every=2)
        closing(impl)
        assert run(impl).kind == "observed"
        started = time.monotonic()
        hung = run(impl)
        assert hung.kind == "errored"
        assert f"within {TIMEOUT:g} s" in hung.reason
        assert time.monotonic() - started < TIMEOUT + 5
        assert run(impl).kind == "observed"

    def test_a_line_that_is_not_a_protocol_message_is_errored_and_shown(
        self, closing: Closing
    ) -> None:
        impl = broken("garbage")
        closing(impl)
        outcome = run(impl)
        assert outcome.kind == "errored"
        assert "not a protocol message" in outcome.reason
        assert outcome.context["stdout"] == "this is not a protocol message\n"

    def test_an_answer_for_another_case_is_a_protocol_violation(self, closing: Closing) -> None:
        impl = broken("wrong-case")
        closing(impl)
        outcome = run(impl)
        assert outcome.kind == "errored"
        assert "some/other-case" in outcome.reason

    def test_a_wrong_protocol_version_is_refused_naming_both_versions(
        self, closing: Closing
    ) -> None:
        impl = broken("bad-handshake")
        closing(impl)
        with pytest.raises(ProtocolError, match=r"protocol 999.*protocol 1"):
            impl.handshake()
        with pytest.raises(pytest.skip.Exception, match=r"not reached: .*handshake failed"):
            check(impl, CASE)

    def test_a_handshake_that_never_comes_times_out(self, closing: Closing) -> None:
        impl = broken("slow-start", start_timeout=TIMEOUT)
        closing(impl)
        with pytest.raises(ProtocolError, match=f"no answer to 'start' within {TIMEOUT:g} s"):
            impl.handshake()

    def test_a_slow_start_does_not_spend_the_case_timeout(self, closing: Closing) -> None:
        """The case clock starts at ``run``: a harness taking longer than the case timeout to
        start, within the start timeout, is started and judged."""
        reference = load_implementation("dsh-reference-harness")
        assert isinstance(reference, Subprocess)
        impl = Subprocess(
            ["sh", "-c", f"sleep {2 * TIMEOUT:g}; exec {shlex.join(reference.argv)}"],
            label="slow to start",
            timeout=TIMEOUT,
            start_timeout=START_TIMEOUT,
        )
        closing(impl)
        assert check(impl, CASE) == [{"assembly": _identity_assembly()}]

    def test_a_harness_that_dies_at_start_says_why_through_its_stderr(
        self, closing: Closing
    ) -> None:
        impl = broken("crash-at-start")
        closing(impl)
        with pytest.raises(TransportFailure, match=r"closed its output \(exit status 1\)") as info:
            impl.handshake()
        assert "Cannot find module '/srv/missing.js'" in info.value.context["stderr"]
        with pytest.raises(
            pytest.skip.Exception, match=r"(?s)not reached: .*handshake failed.*Cannot find module"
        ):
            check(impl, CASE)

    def test_a_log_line_before_started_is_shown_as_the_offending_line(
        self, closing: Closing
    ) -> None:
        impl = broken("log-before-started")
        closing(impl)
        with pytest.raises(pytest.skip.Exception, match="not a protocol message") as info:
            check(impl, CASE)
        assert "harness listening, loading 3 plugins" in str(info.value)

    def test_a_program_that_cannot_start_is_named(self) -> None:
        impl = Subprocess(["/nonexistent/harness"], label="missing", timeout=TIMEOUT)
        with pytest.raises(ProtocolError, match="cannot start /nonexistent/harness"):
            impl.handshake()


class TestBoundedOutput:
    """Nothing an implementation prints can grow the suite's memory or its report without bound."""

    def test_an_endless_line_is_a_protocol_error_of_that_case(self, closing: Closing) -> None:
        impl = broken("endless-line", every=2, timeout=30)
        closing(impl)
        assert run(impl).kind == "observed"
        started = time.monotonic()
        outcome = run(impl)
        assert outcome.kind == "errored"
        assert f"longer than {MAX_LINE_BYTES} bytes" in outcome.reason
        assert len(outcome.context["stdout"]) < 3000
        assert "cut" in outcome.context["stdout"]
        assert time.monotonic() - started < 30  # not the timeout: the limit ended it
        assert run(impl).kind == "observed"

    def test_a_huge_garbage_line_is_shown_cut(self, closing: Closing) -> None:
        impl = broken("huge-garbage")
        closing(impl)
        outcome = run(impl)
        assert outcome.kind == "errored"
        assert "not a protocol message" in outcome.reason
        assert outcome.context["stdout"].startswith("yyyy")
        assert len(outcome.context["stdout"]) < 3000
        assert "more characters cut" in outcome.context["stdout"]

    def test_a_flood_of_lines_after_an_answer_fills_no_memory(self, closing: Closing) -> None:
        impl = broken("flood", every=2)
        closing(impl)
        assert run(impl).kind == "observed"
        impl.owner = "the flooding case"
        flooded = run(impl)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        time.sleep(1)  # the harness floods its pipe while the suite does something else
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        assert after - before < 50_000, "kilobytes"
        outcome = run(impl)
        if flooded.kind == "errored":  # the flood came with the answer
            assert "more than one line" in flooded.reason
        else:  # the flood came after it, and is blamed on it, not on the next case
            assert [late.owner for late in impl.late_errors] == ["the flooding case"]
        assert outcome.kind == "observed"

    def test_a_huge_stderr_line_is_kept_cut(self, closing: Closing) -> None:
        impl = broken("huge-stderr")
        closing(impl)
        outcome = run(impl)
        assert outcome.kind == "errored"
        assert len(outcome.context["stderr"]) < 3000
        assert "more bytes of this line cut" in outcome.context["stderr"]


class TestProtocolChecks:
    @pytest.mark.parametrize(
        ("mode", "pointer"),
        [
            ("extra-field", "the top level: Additional properties are not allowed ('extra'"),
            ("errored-without-case", "the top level: 'case' is a required property"),
            ("bad-observation", "/observations/0/assembly/sections"),
        ],
    )
    def test_an_answer_that_breaks_the_schema_is_errored_with_its_pointer(
        self, closing: Closing, mode: str, pointer: str
    ) -> None:
        impl = broken(mode)
        closing(impl)
        outcome = run(impl)
        assert outcome.kind == "errored"
        assert "does not fit protocol.schema.json at " + pointer in outcome.reason

    def test_a_second_answer_in_the_same_write_errors_that_case(self, closing: Closing) -> None:
        impl = broken("double")
        closing(impl)
        outcome = impl.run("first", CASE.scenario())
        assert outcome.kind == "errored"
        assert "answered 'run' of 'first' with more than one line" in outcome.reason
        assert run(impl).kind == "errored"  # its next answer is doubled again, and said so
        assert impl.late_errors == []

    def test_a_late_second_answer_is_blamed_on_its_own_case(self, closing: Closing) -> None:
        impl = broken("late-double")
        closing(impl)
        impl.owner = "first test"
        assert impl.run("first", CASE.scenario()).kind == "observed"
        time.sleep(1)
        impl.owner = "second test"
        assert impl.run("second", CASE.scenario()).kind == "observed"
        (late,) = impl.late_errors
        assert (late.owner, late.case) == ("first test", "first")
        assert "more than one line" in late.message


class TestProcessGroups:
    """Killing a harness kills what it started: wrappers such as ``sh -c``, ``npm``, ``npx``."""

    def wrapped(self, tmp_path: Path, mode: str) -> tuple[Subprocess, Path]:
        pids = tmp_path / "pids"
        command = f"BROKEN_HARNESS_PIDS={pids} exec {sys.executable} {BROKEN} {mode}"
        argv = ["sh", "-c", f"sh -c '{command}'"]
        return Subprocess(argv, label=mode, timeout=TIMEOUT, start_timeout=START_TIMEOUT), pids

    def test_a_timeout_kills_the_whole_tree_without_waiting(self, tmp_path: Path) -> None:
        """Each clock starts once the harness has answered ``started`` (the start, however slow
        on a busy machine, is the start timeout's business): from there, the timeout and the
        kill of the tree take the case timeout and a moment, not a grace period."""
        impl, pids = self.wrapped(tmp_path, "hang")
        try:
            for count in (2, 4):  # the first start, then a restart with its tree killed too
                impl.handshake()
                started = time.monotonic()
                assert run(impl).kind == "errored"
                assert_all_gone(pids, count=count)
                assert time.monotonic() - started < TIMEOUT + 5
        finally:
            impl.close()

    def test_the_end_of_the_run_kills_the_whole_tree(self, tmp_path: Path) -> None:
        impl, pids = self.wrapped(tmp_path, "garbage")
        impl.handshake()
        impl.close()
        assert_all_gone(pids)

    def test_terminating_the_suite_kills_the_harness_tree(
        self, warm_runner: WarmRunner, tmp_path: Path
    ) -> None:
        """The suite as a user starts it (`warm_runner`: a process of its own, minus the
        imports), terminated while its harness hangs in the first case."""
        pids = tmp_path / "pids"
        command = f"{sys.executable} {BROKEN} hang"
        env = {"BROKEN_HARNESS_PIDS": str(pids)}
        suite = warm_runner.start(["--impl", command], tmp_path / "out.txt", None, env=env)
        try:
            deadline = time.monotonic() + 60
            while not (pids.exists() and len(pids.read_text().split()) == 2):
                assert time.monotonic() < deadline, "the harness never started"
                time.sleep(0.1)
        finally:
            os.kill(suite, signal.SIGTERM)
            status, _ = warm_runner.wait(suite, 30)
        assert status == -signal.SIGTERM
        assert_all_gone(pids)


def assert_all_gone(pids: Path, count: int = 2) -> None:
    """Every process listed in ``pids`` has exited (allowing a moment for the kernel)."""
    listed = [int(pid) for pid in pids.read_text().split()]
    assert len(listed) == count, listed
    deadline = time.monotonic() + 5
    alive = listed
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in listed if _alive(pid)]
        time.sleep(0.05)
    assert not alive, f"processes left running: {alive}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A killed child that nobody reaped yet is a zombie: gone for every purpose here.
    with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
        return stat.read().split(") ", 1)[1][0] != "Z"


class _RaisingDriver(Driver):
    def handle(self, message):  # type: ignore[no-untyped-def]
        if message["type"] == "run":
            raise RuntimeError("boom")
        return super().handle(message)


#: Appended to by each `_ConstructionPatches` built in this process.
CONSTRUCTED: list[str] = []


class _ConstructionPatches(Driver):
    """A driver that changes a module of the process it is built in (as a gallery entry that
    patches the reference model does)."""

    def __init__(self) -> None:
        super().__init__()
        CONSTRUCTED.append("built")


class _SleepingDriver(Driver):
    def handle(self, message):  # type: ignore[no-untyped-def]
        if message["type"] == "run" and message["case"] == "sleep":
            time.sleep(TIMEOUT * 2)
        return super().handle(message)


class _NotJsonDriver(Driver):
    def handle(self, message):  # type: ignore[no-untyped-def]
        return {"type": "observed", "case": message.get("case"), "observations": [{1, 2}]}


class TestInProcessTransport:
    def test_the_reference_driver_answers_in_process(self) -> None:
        impl = load_implementation("reference")
        assert isinstance(impl, InProcess)
        assert check(impl, CASE) == [{"assembly": _identity_assembly()}]

    def test_a_raising_driver_is_errored(self) -> None:
        outcome = run(InProcess(_RaisingDriver(), label="raising", timeout=TIMEOUT))
        assert outcome.kind == "errored"
        assert "RuntimeError: boom" in outcome.reason

    def test_a_slow_driver_is_abandoned_after_the_timeout(self) -> None:
        impl = InProcess(_SleepingDriver(), label="sleeping", timeout=TIMEOUT)
        hung = impl.run("sleep", CASE.scenario())
        assert hung.kind == "errored"
        assert f"within {TIMEOUT:g} s" in hung.reason
        assert run(impl).kind == "observed"  # a new worker serves the next case

    def test_an_answer_that_is_not_json_is_errored(self) -> None:
        outcome = run(InProcess(_NotJsonDriver(), label="not-json", timeout=TIMEOUT))
        assert outcome.kind == "errored"
        assert "not a JSON value" in outcome.reason


class TestLoadImplementation:
    def test_module_attr_names_an_in_process_driver_class_or_object(self) -> None:
        impl = load_implementation("dsh_reference.harness:Driver")
        assert isinstance(impl, InProcess)
        assert impl.label == "dsh_reference.harness:Driver"

    def test_an_object_without_handle_is_refused(self) -> None:
        with pytest.raises(TypeError, match="has no handle"):
            load_implementation("dsh_reference.render:SECTION_JOINER")

    def test_an_isolated_driver_is_built_only_in_its_own_process(self) -> None:
        CONSTRUCTED.clear()
        impl = load_implementation(f"{__name__}:_ConstructionPatches", isolated=True)
        try:
            assert impl.handshake().capabilities  # built and answering, in the child
            assert CONSTRUCTED == []
        finally:
            impl.close()
        load_implementation(f"{__name__}:_ConstructionPatches").close()
        assert CONSTRUCTED == ["built"]  # in process it is built here

    def test_a_command_line_is_split_like_a_shell(self) -> None:
        impl = load_implementation(f"{sys.executable} {BROKEN} 'crash' 2")
        assert isinstance(impl, Subprocess)
        assert impl.argv == [sys.executable, BROKEN, "crash", "2"]


def _identity_assembly() -> dict[str, object]:
    return {
        "sections": [s.IDENTITY, s.EMPTY_PERSONA],
        "contexts": [],
        "tools": [],
        "variables": {},
    }


class _ExitingDriver(Driver):
    def handle(self, message):  # type: ignore[no-untyped-def]
        if message["type"] == "run":
            sys.exit(3)
        return super().handle(message)


class _ValueErrorDriver(Driver):
    def handle(self, message):  # type: ignore[no-untyped-def]
        if message["type"] == "run":
            raise ValueError("no such op")
        return super().handle(message)


class TestWhatHappenedIsNamed:
    """Issue 17 §3 and §5: each failure of an implementation says what it was."""

    def test_an_in_process_sys_exit_is_errored_naming_the_exit(self) -> None:
        outcome = run(InProcess(_ExitingDriver(), label="exiting", timeout=TIMEOUT))
        assert outcome.kind == "errored"
        assert "handle() called sys.exit(3)" in outcome.reason

    def test_an_in_process_exception_is_not_called_a_bad_answer(self) -> None:
        outcome = run(InProcess(_ValueErrorDriver(), label="raising", timeout=TIMEOUT))
        assert outcome.kind == "errored"
        assert outcome.reason == "handle() raised ValueError: no such op"

    def test_a_program_that_is_not_there_is_refused_before_the_run(self) -> None:
        with pytest.raises(ValueError, match="no program 'no-such-program' on PATH"):
            load_implementation("no-such-program --flag")
        with pytest.raises(ValueError, match="no such file"):
            load_implementation("/nonexistent/harness.js")

    def test_an_exit_while_a_forked_child_holds_stdout_is_noticed(self, closing: Closing) -> None:
        # The timeout is long: before the fix, the exit was seen only when it expired.
        impl = Subprocess(["sh", "-c", "read line; sleep 60 & exit 3"], label="forks", timeout=60)
        closing(impl)
        with pytest.raises(ProtocolError, match="still holds its output open"):
            impl.handshake()

    def test_a_non_utf8_answer_is_named_as_such(self, closing: Closing) -> None:
        script = (
            'import sys; sys.stdin.readline(); sys.stdout.buffer.write(b\'{"type": "\\xff"}\\n\')'
        )
        impl = Subprocess([sys.executable, "-c", script], "latin", TIMEOUT, START_TIMEOUT)
        closing(impl)
        with pytest.raises(ProtocolError, match=r"not UTF-8 .*byte 0xff"):
            impl.handshake()

    def test_the_stderr_tail_keeps_the_harness_s_last_line(self, closing: Closing) -> None:
        script = (
            "import sys\n"
            "for n in range(60): sys.stderr.write(f'line {n} ' + 'x' * 1500 + '\\n')\n"
            "sys.stderr.write('FATAL: the crash\\n'); sys.exit(1)\n"
        )
        impl = Subprocess([sys.executable, "-c", script], "noisy", TIMEOUT, START_TIMEOUT)
        closing(impl)
        with pytest.raises(TransportFailure) as failure:
            impl.handshake()
        shown = format_context(failure.value.context)
        assert shown.rstrip().endswith("FATAL: the crash")
        assert sum("x" * 1500 in line for line in shown.splitlines()) == 39
        assert gist(f"handshake failed\n{shown}")[-1].endswith("FATAL: the crash")


class _Misanswering(Driver):
    """The reference, its ``run`` answers changed by ``change`` (in-process: no process start)."""

    def __init__(self, change: Callable[[Any], Any]) -> None:
        super().__init__()
        self.change = change

    def handle(self, message: Any) -> Any:
        answer = super().handle(message)
        return self.change(answer) if message["type"] == "run" else answer


def _nested(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


class TestAnswerBounds:
    """Answers built to make the suite's own checks slow or deep: refused at once, saying why."""

    def answer(self, change: Callable[[Any], Any], ops: int = 1) -> Outcome:
        scenario = CASE.scenario()
        scenario["ops"] += [{"op": "scope", "scope": f"s{n}"} for n in range(1, ops)]
        return InProcess(_Misanswering(change), label="misanswering").run(CASE.id, scenario)

    def test_another_number_of_observations_is_refused_by_the_count(self) -> None:
        outcome = self.answer(lambda a: a | {"observations": a["observations"] * 60_000})
        assert outcome == Outcome.errored(
            "protocol violation: answered 60000 observations to a scenario of 1 ops "
            "(one observation per op)"
        )

    def test_an_answer_deeper_than_the_limit(self) -> None:
        outcome = self.answer(lambda a: a | {"observations": [_nested(150)]})
        assert outcome == Outcome.errored(
            "protocol violation: the answer is nested 152 levels deep; the suite reads JSON "
            "nested at most 100 levels"
        )

    def test_an_answer_too_deep_to_serialize(self) -> None:
        outcome = self.answer(lambda a: a | {"observations": [_nested(100_000)]})
        assert outcome == Outcome.errored(
            "protocol violation: the answer is nested deeper than 100 levels"
        )

    def test_a_later_observation_breaking_the_schema_is_named_by_its_index(self) -> None:
        bad = {"assembly": {"sections": 3}}
        outcome = self.answer(lambda a: a | {"observations": [a["observations"][0], bad]}, ops=2)
        assert outcome.kind == "errored"
        assert outcome.reason.startswith(
            "protocol violation: the 'observed' answer does not fit protocol.schema.json at "
            "/observations/1/assembly/sections: 3 is not of type 'array'"
        )

    def test_a_large_broken_observation_is_named_without_a_slow_diagnosis(self) -> None:
        bad = {"assembly": {"sections": [{"name": "s", "text": "t"}] * 10_000 + [3]}}
        outcome = self.answer(lambda a: a | {"observations": [a["observations"][0], bad]}, ops=2)
        assert outcome.kind == "errored"
        assert outcome.reason.startswith(
            "protocol violation: the 'observed' answer does not fit protocol.schema.json at "
            "/observations/1: "
        )
        assert "is not valid under any of the schemas listed in the 'oneOf' keyword" in (
            outcome.reason
        )


class _ZoneRecordingDriver(Driver):
    """Records this process's offset from UTC whenever the suite calls it."""

    def __init__(self) -> None:
        super().__init__()
        self.offsets: list[int] = []

    def handle(self, message):  # type: ignore[no-untyped-def]
        self.offsets.append(time.localtime(0).tm_gmtoff)
        return super().handle(message)


@pytest.fixture
def probed_again() -> Iterator[None]:
    """`zone` probes this process once; a test that changes what the probe sees probes again."""
    zone._in_process_value.cache_clear()
    yield
    zone._in_process_value.cache_clear()


class TestTheHarnessZone:
    """PROTOCOL.md, "The harness's environment": every implementation runs in `HARNESS_TZ`,
    whatever the machine's zone is, so that a GMT date read in local time shows on a UTC
    machine too (PROMPT-DEEPSEEK-WIRE)."""

    def test_a_harness_process_is_started_in_the_suites_zone(self) -> None:
        code = "import os, time; print(os.environ['TZ'], time.localtime(0).tm_gmtoff)"
        child = Child([sys.executable, "-c", code])
        try:
            assert child.next_line(timeout=START_TIMEOUT) == b"Asia/Kolkata 19800\n"
        finally:
            child.kill()

    def test_an_in_process_driver_answers_in_the_zone_and_the_suite_keeps_its_own(self) -> None:
        before = os.environ.get("TZ"), time.localtime(0).tm_gmtoff
        driver = _ZoneRecordingDriver()
        impl = InProcess(driver, label="zone", timeout=TIMEOUT)
        assert run(impl).kind == "observed"
        impl.close()
        assert driver.offsets == [zone.HARNESS_OFFSET] * 2  # run, stop
        assert (os.environ.get("TZ"), time.localtime(0).tm_gmtoff) == before

    def test_a_machine_without_zone_data_gets_the_posix_rule_and_a_warning(
        self, monkeypatch: pytest.MonkeyPatch, probed_again: None
    ) -> None:
        monkeypatch.setattr(zone, "HARNESS_TZ", "Nowhere/Atlantis")
        with zone.harness_zone():
            assert (os.environ["TZ"], time.localtime(0).tm_gmtoff) == ("IST-5:30", 19800)
        (problem,) = zone.problems(in_process=False)
        assert "no zone data for Nowhere/Atlantis" in problem

    def test_without_tzset_in_process_drivers_keep_the_machines_zone_and_a_warning(
        self, monkeypatch: pytest.MonkeyPatch, probed_again: None
    ) -> None:
        monkeypatch.delattr(time, "tzset")
        before = os.environ.get("TZ")
        with zone.harness_zone():
            assert os.environ.get("TZ") == before
        (problem,) = zone.problems(in_process=True)
        assert "no time.tzset" in problem
        assert zone.problems(in_process=False) == []
        assert zone.harness_environment()["TZ"] == "Asia/Kolkata"
