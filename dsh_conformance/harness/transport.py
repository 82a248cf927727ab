"""The two transports behind one `Implementation` interface: in-process and subprocess.

Both carry the same JSON messages (dsh_conformance/PROTOCOL.md), and every answer is checked against
``protocol.schema.json`` (`dsh_conformance.harness.validate`). Neither lets a broken implementation
stop or swamp the run: a crash, a hang past the per-case timeout, an over-long line, or output that
is not a protocol message becomes an ``errored`` `Outcome` carrying what the implementation printed
(cut to a bounded size, saying what was cut), and the next case gets a fresh start.

A subprocess runs in a process group of its own, with bounded pipes
(`dsh_conformance.harness.process`).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import queue
import re
import shlex
import shutil
import signal
import sys
import threading
import traceback
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Final

from ..judge.jsontext import dumps
from ..judge.nesting import MAX_NESTING, nesting_problem
from .process import MAX_LINE_BYTES, SHOWN_CHARS, Child, Overlong, show
from .protocol import (
    DEFAULT_TIMEOUT,
    STOP_MESSAGE,
    Handshake,
    Outcome,
    ProtocolError,
    parse_handshake,
    parse_outcome,
    run_message,
    start_message,
)
from .validate import check_answer, cut
from .zone import harness_zone

Json = Any
_MODULE_ATTR: Final = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


@dataclass(frozen=True)
class LateError:
    """An answer line that turned up after its case was over: blamed on that case, not the next.

    ``owner`` is whatever the caller set as `Implementation.owner` when that case ran (the plugin
    sets the test's name), so the report can attribute the error to the test that produced it.
    """

    owner: Any
    case: str
    message: str


class Implementation(ABC):
    """An implementation under test, as the suite sees it."""

    def __init__(self, label: str, timeout: float, start_timeout: float | None = None) -> None:
        self.label = label
        #: The longest one case may take, counted from the ``run`` message: a harness that is
        #: slow to start (an interpreter loading its code on a busy machine) does not spend it.
        self.timeout = timeout
        #: The longest the ``start`` handshake may take, the process's start included (by
        #: default the case timeout).
        self.start_timeout = timeout if start_timeout is None else start_timeout
        self._handshake: Handshake | None = None
        #: Set by `dsh_conformance.run.execute.check` on the first error within one test; the plugin
        #: clears it before each test.
        self.latched_error: Exception | None = None
        #: Why no further case is sent (a failed handshake, ``--max-errors``); ``None`` while
        #: the implementation is in the running.
        self.stopped: str | None = None
        #: Why the ``start`` handshake failed, with what the implementation printed: a fact
        #: about the run (it fails the run), never a contract's failure.
        self.start_failure: str | None = None
        #: Tags the cases run from now on (see `LateError`).
        self.owner: Any = None
        self.late_errors: list[LateError] = []
        #: The case being run and when it was sent (`time.monotonic`), for progress reports.
        self.running: tuple[str, float] | None = None
        #: Slow cases that have ended, with how long each took (the answer and its checks
        #: included), until the progress reports take them (`dsh_conformance.run.progress`).
        self.slow_answers: list[tuple[str, float]] = []
        #: Whether each ``run`` answer is checked against ``protocol.schema.json``. Only
        #: `dsh_conformance.fuzz` turns it off while it generates (the check costs more than running
        #: a loop scenario), and turns it on again to replay what it found.
        self.check_schema = True

    @abstractmethod
    def handshake(self) -> Handshake:
        """The implementation's ``started`` answer (raises `ProtocolError` if it gives none)."""

    @abstractmethod
    def run(self, case_id: str, scenario: Json) -> Outcome:
        """Send one case; never raises because of what the implementation did."""

    @abstractmethod
    def close(self) -> None:
        """Stop the implementation (it may be called again: nothing more happens then)."""

    @property
    def known_handshake(self) -> Handshake | None:
        """The last ``started`` answer, without starting anything."""
        return self._handshake


class TransportFailure(ProtocolError):
    """A protocol failure with what the implementation printed (``context``: stdout, stderr)."""

    def __init__(self, message: str, **context: str) -> None:
        super().__init__(message)
        self.context = context


class DriverRaised(Exception):
    """An in-process driver's ``handle`` raised, or called ``sys.exit``: ``error`` says which."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(error)
        self.error = error

    def __str__(self) -> str:
        if isinstance(self.error, SystemExit):
            return (
                f"handle() called sys.exit({self.error.code!r}): an in-process implementation "
                "must answer, not exit"
            )
        return f"handle() raised {type(self.error).__name__}: {self.error}"


class _Timeout(BaseException):
    """Raised inside an in-process driver by the alarm; not an `Exception`, so that a driver's
    ``except Exception`` does not swallow it."""


class InProcess(Implementation):
    """A Python object with ``handle(message) -> response``.

    Messages go through a JSON round trip both ways, so an in-process implementation sees and
    answers exactly what a subprocess would; and it answers in the time zone a subprocess runs in
    (`dsh_conformance.harness.zone.harness_zone`), this process's zone switched back after each
    call. On the main thread of a POSIX process the driver is called directly, with a ``SIGALRM``
    timer interrupting it at the timeout (re-armed every half second in case the driver swallows it
    once); elsewhere, or when another timer is already armed, each call runs in a daemon thread that
    is abandoned at the timeout (a thread cannot be killed) without keeping the suite's process
    alive at exit.
    """

    def __init__(
        self,
        driver: Any,
        label: str,
        timeout: float = DEFAULT_TIMEOUT,
        start_timeout: float | None = None,
    ) -> None:
        super().__init__(label, timeout, start_timeout)
        if not callable(getattr(driver, "handle", None)):
            raise TypeError(f"{label}: {driver!r} has no handle(message) method")
        self._driver = driver
        self._closed = False

    def _call(self, message: Json, timeout: float | None = None) -> Json:
        """The driver's answer within ``timeout`` (default: the case timeout); raises
        `TimeoutError`, `ProtocolError` (an answer nested deeper than the suite reads,
        `dsh_conformance.judge.nesting`), or whatever ``handle`` raised."""
        request = json.loads(json.dumps(message))
        limit = self.timeout if timeout is None else timeout
        with harness_zone():  # the zone a harness process runs in (PROTOCOL.md)
            if _alarm_is_free():
                answer = self._call_with_alarm(request, limit)
            else:
                answer = self._call_in_thread(request, limit)
        try:
            text = json.dumps(answer, allow_nan=False)
        except RecursionError:
            raise ProtocolError(f"the answer is nested deeper than {MAX_NESTING} levels") from None
        problem = nesting_problem(text)
        if problem is not None:
            raise ProtocolError(f"the answer is {problem}")
        return json.loads(text)

    def _call_with_alarm(self, request: Json, timeout: float) -> Json:
        def interrupt(signum: int, frame: FrameType | None) -> None:
            raise _Timeout

        previous = signal.signal(signal.SIGALRM, interrupt)
        try:
            try:
                signal.setitimer(signal.ITIMER_REAL, timeout, 0.5)
                return self._handle(request)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except _Timeout:
            raise TimeoutError from None
        finally:
            signal.signal(signal.SIGALRM, previous)

    def _call_in_thread(self, request: Json, timeout: float) -> Json:
        answers: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)

        def work() -> None:
            try:
                answers.put((True, self._handle(request)))
            except BaseException as error:  # handed over to the caller's thread
                answers.put((False, error))

        threading.Thread(target=work, daemon=True, name="dsh-impl").start()
        try:
            answered, value = answers.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError from None
        if not answered:
            raise value
        return value

    def _handle(self, request: Json) -> Json:
        """The driver's own answer; what it raised, ``sys.exit`` included, as `DriverRaised`."""
        try:
            return self._driver.handle(request)
        except (Exception, SystemExit) as error:
            raise DriverRaised(error) from error

    def handshake(self) -> Handshake:
        if self._handshake is None:
            try:
                answer = self._call(start_message(), self.start_timeout)
            except TimeoutError:
                raise ProtocolError(
                    f"no answer to 'start' within {self.start_timeout:g} s"
                ) from None
            except DriverRaised as raised:
                raise ProtocolError(f"{raised}, in answer to 'start'") from raised
            except (TypeError, ValueError) as error:
                raise ProtocolError(f"the answer to 'start' is not a JSON value: {error}") from None
            handshake = parse_handshake(answer)
            check_answer(answer, "start")
            self._handshake = handshake
        return self._handshake

    def run(self, case_id: str, scenario: Json) -> Outcome:
        try:
            response = self._call(run_message(case_id, scenario))
            outcome = parse_outcome(response, case_id, len(scenario["ops"]))
            if self.check_schema:
                check_answer(response, "run")
            return outcome
        except TimeoutError:
            return Outcome.errored(f"no answer within {self.timeout:g} s")
        except DriverRaised as raised:
            return Outcome.errored(str(raised))
        except ProtocolError as error:
            return Outcome.errored(f"protocol violation: {error}")
        except (TypeError, ValueError) as error:
            return Outcome.errored(f"the answer is not a JSON value: {error}")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        # A driver that fails to stop, or hangs doing it, has nothing left to tell the suite.
        with contextlib.suppress(Exception, TimeoutError):
            self._call(STOP_MESSAGE)


def _alarm_is_free() -> bool:
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    )


class Subprocess(Implementation):
    """An executable speaking JSON lines on stdin/stdout, restarted after any failure."""

    def __init__(
        self,
        argv: list[str],
        label: str,
        timeout: float = DEFAULT_TIMEOUT,
        start_timeout: float | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        super().__init__(label, timeout, start_timeout)
        self.argv = argv
        #: The directory it runs in and the variables set over the suite's environment (a
        #: command spec's ``-C DIR`` and ``NAME=VALUE`` words, `parse_command`).
        self.cwd = cwd
        self.env = env or {}
        self._child: Child | None = None
        self._last_case: tuple[Any, str] | None = None
        #: Whether a request was sent whose answer has not been read: an interrupted run
        #: (Ctrl-C) leaves one, and its answer, read at `close`, is no extra line of the case
        #: before (issue 37).
        self._awaiting = False

    def handshake(self) -> Handshake:
        """Start the process if it is not running; every (re)start repeats the handshake.

        A failed handshake kills the process; the `TransportFailure` carries the offending line
        and the tail of standard error (a harness that cannot start says why there).
        """
        if self._child is not None and self._child.running():
            assert self._handshake is not None
            return self._handshake
        self._kill()
        self._child = Child(self.argv, self.cwd, self.env)
        self._awaiting = False
        try:
            answer = self._request(start_message(), "start", self.start_timeout)
            handshake = parse_handshake(answer)
            check_answer(answer, "start")
        except ProtocolError as failure:
            raise self._failed(failure) from None
        if self._handshake is not None and handshake != self._handshake:
            raise self._failed(
                ProtocolError(f"the restarted implementation answered differently: {handshake}")
            )
        self._handshake = handshake
        return handshake

    def run(self, case_id: str, scenario: Json) -> Outcome:
        try:
            if self._child is None:
                self.handshake()
            if self._awaiting:
                # The previous request was interrupted: its answer, still to come, belongs to
                # no case; a fresh process is in step.
                self._restart()
            self._blame_leftovers()
            answer = self._request(run_message(case_id, scenario), "run")
            if self._is_late(answer, case_id):
                # Out of step, and it may go on writing: this case gets a fresh process.
                self._restart()
                answer = self._request(run_message(case_id, scenario), "run")
            self._last_case = (self.owner, case_id)
            outcome = parse_outcome(answer, case_id, len(scenario["ops"]))
            if self.check_schema:
                check_answer(answer, "run")
            assert self._child is not None
            extra = self._child.leftovers()
            if extra:
                raise TransportFailure(
                    f"answered 'run' of {case_id!r} with more than one line",
                    stdout=show(extra[0]),
                )
            return outcome
        except ProtocolError as failure:
            error = self._failed(failure)
            return Outcome.errored(str(error), **error.context)

    def _blame_leftovers(self) -> None:
        """Lines that arrived after the previous answer belong to the previous case; a process
        that printed them is out of step, so the next case gets a fresh one."""
        child = self._child
        assert child is not None
        extra = child.leftovers()
        if extra:
            self._blame_previous(show(extra[0]))
            self._restart()

    def _restart(self) -> None:
        self._kill()
        self.handshake()

    def _is_late(self, answer: Json, case_id: str) -> bool:
        """Whether ``answer`` is a second answer to the previous case (then it is blamed)."""
        previous = self._last_case[1] if self._last_case is not None else None
        named = answer.get("case") if isinstance(answer, dict) else None
        if previous is None or named != previous or named == case_id:
            return False
        self._blame_previous(cut(dumps(answer), SHOWN_CHARS))
        return True

    def _blame_previous(self, line: str) -> None:
        if self._last_case is not None:
            owner, case = self._last_case
            message = (
                f"{case}: answered 'run' with more than one line; the extra line came after "
                f"the answer:\n    {line}"
            )
            self.late_errors.append(LateError(owner, case, message))

    def _request(self, message: Json, what: str, timeout: float | None = None) -> Json:
        """Send one message and read one answer line within ``timeout`` (default: the case
        timeout); a `TransportFailure` says what went wrong."""
        child = self._child
        assert child is not None
        self._awaiting = True
        try:
            child.send(message)
        except OSError as error:
            raise TransportFailure(
                f"could not send '{what}' ({child.status()}): {error}"
            ) from error
        answer = self._read_answer(what, self.timeout if timeout is None else timeout)
        self._awaiting = False
        return answer

    def _read_answer(self, what: str, timeout: float) -> Json:
        child = self._child
        assert child is not None
        try:
            line = child.next_line(timeout=timeout)
        except queue.Empty:
            raise TransportFailure(f"no answer to '{what}' within {timeout:g} s") from None
        if line is None and child.outlived:
            raise TransportFailure(
                f"the process exited ({child.status()}) instead of answering '{what}', while a "
                "process it started still holds its output open"
            )
        if line is None:
            raise TransportFailure(
                f"the process closed its output ({child.status()}) instead of answering '{what}'"
            )
        if isinstance(line, Overlong):
            raise TransportFailure(
                f"printed a line longer than {MAX_LINE_BYTES} bytes in answer to '{what}' "
                "(the suite stops reading there)",
                stdout=show(line),
            )
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as error:
            raise TransportFailure(
                f"printed a line that is not UTF-8 in answer to '{what}' (byte "
                f"{line[error.start]:#04x} at offset {error.start}); protocol messages are UTF-8",
                stdout=show(line),
            ) from None
        problem = nesting_problem(text)
        if problem is not None:
            raise TransportFailure(f"answered '{what}' with a line {problem}", stdout=show(line))
        try:
            return json.loads(text)
        except ValueError:  # not JSON, or an integer too long for Python
            raise TransportFailure(
                f"printed a line that is not a protocol message in answer to '{what}'",
                stdout=show(line),
            ) from None

    def _failed(self, failure: ProtocolError) -> TransportFailure:
        """Kill the process; the failure with what it printed (the stderr tail added)."""
        context = dict(getattr(failure, "context", {}))
        stderr = self._kill()
        if stderr:
            context["stderr"] = stderr
        return TransportFailure(str(failure), **context)

    def _kill(self) -> str:
        """Kill the process group (if any); the tail of what it wrote to stderr."""
        child, self._child = self._child, None
        return child.kill() if child is not None else ""

    def close(self) -> None:
        """Stop the process; a line it printed after its last answer is blamed on that case."""
        child, self._child = self._child, None
        if child is not None:
            child.stop()
            extra = child.leftovers()
            if extra and not self._awaiting:
                self._blame_previous(show(extra[0]))


#: What `load_implementation` raises for a spec that names nothing usable (no module or
#: attribute, no ``handle``, no program, a driver whose import or construction raised:
#: `DriverUnusable` is a `ValueError`): every command catches these, and only these, to say so.
UNLOADABLE: Final = (ImportError, AttributeError, TypeError, ValueError)


def load_implementation(
    spec: str,
    timeout: float = DEFAULT_TIMEOUT,
    isolated: bool = False,
    start_timeout: float | None = None,
) -> Implementation:
    """``reference``, ``module:attr`` (an object or class with ``handle``), or a command line.

    With ``isolated``, a ``module:attr`` driver runs in a Python process of its own
    (`dsh_conformance.harness.isolated`) instead of this one: two in-process drivers compared in one
    run would share this process's modules, and one that patches a module would change the other.

    A command's program is looked up on PATH, then beside the running Python (a virtual
    environment's scripts), so ``dsh-reference-harness`` works from an unactivated venv. A
    command may start with ``-C DIR`` and ``NAME=VALUE`` words (`parse_command`): two versions of
    one program, each from its own checkout, are then two specs.
    """
    label = spec
    if in_process(spec):
        spec = _DRIVERS.get(spec, spec)
        if isolated:
            # A spec that cannot be loaded is refused here, not in the child; the driver is
            # not built here, so one that patches a module at construction patches only the
            # child's.
            _driver_target(spec)
            code = (
                f"import sys; sys.path[:0] = {sys.path!r}; "
                f"from dsh_conformance.harness.isolated import main; main({spec!r})"
            )
            return Subprocess([sys.executable, "-c", code], label, timeout, start_timeout)
        with harness_zone():  # built in the zone it will answer in, as a harness process is
            driver = driver_of(spec)
        return InProcess(driver, label, timeout, start_timeout)
    argv, cwd, env = parse_command(spec)
    return Subprocess(argv, label, timeout, start_timeout, cwd, env)


#: A command spec's leading environment word, as a POSIX shell reads one: ``NAME=VALUE``.
_ASSIGNMENT: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def parse_command(spec: str) -> tuple[list[str], str | None, dict[str, str]]:
    """A command spec, ``[-C DIR] [NAME=VALUE]... PROGRAM [ARG]...`` (shell words), as its argv,
    the directory it runs in and the variables set over the suite's environment: ``-C DIR`` as
    ``env -C``, ``git -C`` and ``make -C`` mean it (a relative PROGRAM path is DIR's), the
    assignments as a shell's before a command (``TZ`` excepted: PROTOCOL.md gives every harness
    the suite's). So ``-C ../old python -m harness`` and ``PYTHONPATH=../old/src python -m
    harness`` run one program from two checkouts. Raises `ValueError` naming what is wrong."""
    words = shlex.split(spec)
    cwd: str | None = None
    env: dict[str, str] = {}
    while words:
        if words[0] == "-C":
            if len(words) < 2 or not os.path.isdir(words[1]):
                where = repr(words[1]) if len(words) > 1 else "nothing"
                raise ValueError(f"-C needs a directory, got {where}")
            cwd, words = words[1], words[2:]
        elif _ASSIGNMENT.match(words[0]):
            name, _, value = words[0].partition("=")
            if name == "TZ":
                raise ValueError("TZ cannot be set: every harness runs with the suite's")
            env[name], words = value, words[1:]
        else:
            break
    if not words:
        raise ValueError(f"no program in {spec!r}" if spec.strip() else "--impl needs a value")
    return [_which(words[0], cwd, env.get("PATH")), *words[1:]], cwd, env


#: Short names of in-process drivers.
_DRIVERS: Final = {"reference": "dsh_reference.harness:Driver"}


def in_process(spec: str) -> bool:
    """Whether ``spec`` names a Python driver (``reference``, ``module:attr``), not a command."""
    return spec in _DRIVERS or _MODULE_ATTR.match(spec) is not None


def driver_of(spec: str) -> Any:
    """The driver ``module:attr`` names: the object, or an instance of the class."""
    target = _driver_target(spec)
    if not isinstance(target, type):
        return target
    try:
        return target()
    except (Exception, SystemExit) as error:
        raise DriverUnusable(f"{spec}()", error) from None


class DriverUnusable(ValueError):
    """Importing or building an in-process driver raised: what it raised, and where in the
    user's own code (a usage error of ``--impl``, never a traceback: issue 37)."""

    def __init__(self, what: str, error: BaseException) -> None:
        where = ""
        if not isinstance(error, SyntaxError):  # its message names the file and line already
            own = [
                frame
                for frame in traceback.extract_tb(error.__traceback__)
                if not frame.filename.startswith("<")
                and not Path(frame.filename).resolve().is_relative_to(_PACKAGE)
            ]
            if own:
                where = f" (at {own[-1].filename}, line {own[-1].lineno}, in {own[-1].name})"
        super().__init__(f"{what} raised {type(error).__name__}: {error}{where}")


#: The suite's package: frames inside it are not the user's.
_PACKAGE: Final = Path(__file__).resolve().parents[1]


def _driver_target(spec: str) -> Any:
    """What ``module:attr`` names, imported but not instantiated: an object or a class with a
    ``handle(message)`` method."""
    module_name, attribute = spec.split(":")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError:
        raise
    except (Exception, SystemExit) as error:
        raise DriverUnusable(f"importing {module_name}", error) from None
    for part in attribute.split("."):
        target = getattr(target, part)
    if not callable(getattr(target, "handle", None)):
        raise TypeError(f"{spec}: {target!r} has no handle(message) method")
    return target


def _which(program: str, cwd: str | None = None, path: str | None = None) -> str:
    """The program to start (a path relative to ``cwd``, or looked up on ``path``, the
    command's own PATH, else the suite's); raises `ValueError` when there is none, so that a
    misspelt harness is a usage error before the run, not a failure blamed on one contract."""
    if os.sep in program:
        if not os.path.isfile(os.path.join(cwd or "", program)):
            raise ValueError(f"no program {program!r}: there is no such file")
        return program
    beside_python = os.path.join(os.path.dirname(sys.executable), program)
    on_path = shutil.which(program, path=path)
    found = on_path or (beside_python if os.path.exists(beside_python) else None)
    if found is None:
        raise ValueError(
            f"no program {program!r} on PATH (nor beside {sys.executable}); give the command "
            "line that starts your harness, or 'module:attr' for a Python object"
        )
    return found
