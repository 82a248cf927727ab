"""Both transports, and what they make of an implementation that crashes, hangs or babbles.

An implementation that crashes, hangs, or prints something that is not a protocol message gets
``errored`` for that case with what it printed, and the run goes on: the suite restarts it and
never hangs. `broken_harness.py` misbehaves on purpose to show it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conformance import scenario as s
from conformance.case import Case
from conformance.execute import ImplementationErrored, check
from conformance.protocol import Outcome, ProtocolError
from conformance.transport import Implementation, InProcess, Subprocess, load_implementation
from reference.harness import Driver

BROKEN = str(Path(__file__).with_name("broken_harness.py"))
TIMEOUT = 3.0

CASE = Case(
    id="transport/identity",
    contracts=("PROMPT-REGISTRY-CONTRACT",),
    why="the built-in identity section is registered by default",
    ops=(s.assemble("a", expect=s.assembly(sections=[s.IDENTITY, s.EMPTY_PERSONA])),),
)


def broken(mode: str, every: int = 1) -> Subprocess:
    return Subprocess([sys.executable, BROKEN, mode, str(every)], label=mode, timeout=TIMEOUT)


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
        impl = load_implementation("dsh-reference-harness", timeout=TIMEOUT)
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
        with pytest.raises(ImplementationErrored, match="handshake failed"):
            check(impl, CASE)

    def test_a_handshake_that_never_comes_times_out(self, closing: Closing) -> None:
        impl = broken("slow-start")
        closing(impl)
        with pytest.raises(ProtocolError, match="no answer to 'start'"):
            impl.handshake()

    def test_a_program_that_cannot_start_is_named(self) -> None:
        impl = Subprocess(["/nonexistent/harness"], label="missing", timeout=TIMEOUT)
        with pytest.raises(ProtocolError, match="cannot start /nonexistent/harness"):
            impl.handshake()


class _RaisingDriver(Driver):
    def handle(self, message):  # type: ignore[no-untyped-def]
        if message["type"] == "run":
            raise RuntimeError("boom")
        return super().handle(message)


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
        impl = load_implementation("reference.harness:Driver")
        assert isinstance(impl, InProcess)
        assert impl.label == "reference.harness:Driver"

    def test_an_object_without_handle_is_refused(self) -> None:
        with pytest.raises(TypeError, match="has no handle"):
            load_implementation("reference.render:SECTION_JOINER")

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
