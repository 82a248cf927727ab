"""The two transports behind one `Implementation` interface: in-process and subprocess.

Both carry the same JSON messages (conformance/PROTOCOL.md). Neither lets a broken implementation
stop the run: a crash, a hang past the per-case timeout, or output that is not a protocol message
becomes an ``errored`` `Outcome` carrying what the implementation printed, and the next case gets
a fresh start (a new process, or a new worker thread).
"""

from __future__ import annotations

import collections
import contextlib
import importlib
import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import threading
from abc import ABC, abstractmethod
from typing import IO, Any, Final

from .protocol import (
    STOP_MESSAGE,
    Handshake,
    Outcome,
    ProtocolError,
    parse_handshake,
    parse_outcome,
    run_message,
    start_message,
)

Json = Any
DEFAULT_TIMEOUT: Final = 10.0
_MODULE_ATTR: Final = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
_STDERR_TAIL_LINES: Final = 40
_EXIT_GRACE: Final = 2.0


class Implementation(ABC):
    """An implementation under test, as the suite sees it."""

    def __init__(self, label: str, timeout: float) -> None:
        self.label = label
        self.timeout = timeout
        self._handshake: Handshake | None = None
        #: Set by `conformance.execute.check` on the first error within one test; the plugin
        #: clears it before each test.
        self.latched_error: Exception | None = None

    @abstractmethod
    def handshake(self) -> Handshake:
        """The implementation's ``started`` answer (raises `ProtocolError` if it gives none)."""

    @abstractmethod
    def run(self, case_id: str, scenario: Json) -> Outcome:
        """Send one case; never raises because of what the implementation did."""

    @abstractmethod
    def close(self) -> None: ...


class InProcess(Implementation):
    """A Python object with ``handle(message) -> response``, called in a worker thread.

    Messages go through a JSON round trip both ways, so an in-process implementation sees and
    answers exactly what a subprocess would. Each call runs in its own daemon thread: a call that
    outlives the timeout is abandoned (a thread cannot be killed) without keeping the suite's
    process alive at exit.
    """

    def __init__(self, driver: Any, label: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        super().__init__(label, timeout)
        if not callable(getattr(driver, "handle", None)):
            raise TypeError(f"{label}: {driver!r} has no handle(message) method")
        self._driver = driver

    def _call(self, message: Json) -> Json:
        """The driver's answer; raises `TimeoutError`, or whatever ``handle`` raised."""
        request = json.loads(json.dumps(message))
        answers: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)

        def work() -> None:
            try:
                answers.put((True, self._driver.handle(request)))
            except BaseException as error:  # handed over to the caller's thread
                answers.put((False, error))

        threading.Thread(target=work, daemon=True, name="dsh-impl").start()
        try:
            answered, value = answers.get(timeout=self.timeout)
        except queue.Empty:
            raise TimeoutError from None
        if not answered:
            raise value
        return json.loads(json.dumps(value, allow_nan=False))

    def handshake(self) -> Handshake:
        if self._handshake is None:
            try:
                self._handshake = parse_handshake(self._call(start_message()))
            except TimeoutError:
                raise ProtocolError(f"no answer to 'start' within {self.timeout:g} s") from None
        return self._handshake

    def run(self, case_id: str, scenario: Json) -> Outcome:
        try:
            response = self._call(run_message(case_id, scenario))
            return parse_outcome(response, case_id)
        except TimeoutError:
            return Outcome.errored(f"no answer within {self.timeout:g} s")
        except ProtocolError as error:
            return Outcome.errored(f"protocol violation: {error}")
        except (TypeError, ValueError) as error:
            return Outcome.errored(f"the answer is not a JSON value: {error}")
        except Exception as error:
            return Outcome.errored(f"handle() raised {type(error).__name__}: {error}")

    def close(self) -> None:
        # A driver that fails to stop, or hangs doing it, has nothing left to tell the suite.
        with contextlib.suppress(Exception):
            self._call(STOP_MESSAGE)


class Subprocess(Implementation):
    """An executable speaking JSON lines on stdin/stdout, restarted after any failure."""

    def __init__(self, argv: list[str], label: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        super().__init__(label, timeout)
        self.argv = argv
        self._child: _Child | None = None

    def handshake(self) -> Handshake:
        """Start the process if it is not running; every (re)start repeats the handshake."""
        if self._child is not None and self._child.running():
            assert self._handshake is not None
            return self._handshake
        self._child = _Child(self.argv)
        try:
            handshake = parse_handshake(self._request(start_message(), "start"))
        except ProtocolError:
            self._kill()
            raise
        if self._handshake is not None and handshake != self._handshake:
            raise ProtocolError(f"the restarted implementation answered differently: {handshake}")
        self._handshake = handshake
        return handshake

    def run(self, case_id: str, scenario: Json) -> Outcome:
        try:
            self.handshake()
            return parse_outcome(self._request(run_message(case_id, scenario), "run"), case_id)
        except ProtocolError as failure:
            context = dict(getattr(failure, "context", {}))
            stderr = self._kill()
            if stderr:
                context["stderr"] = stderr
            return Outcome.errored(str(failure), **context)

    def _request(self, message: Json, what: str) -> Json:
        """Send one message and read one answer line; a `_Failure` says what went wrong."""
        child = self._child
        assert child is not None
        try:
            child.send(message)
        except OSError as error:
            raise _Failure(f"could not send '{what}': {error}") from error
        try:
            line = child.lines.get(timeout=self.timeout)
        except queue.Empty:
            raise _Failure(f"no answer to '{what}' within {self.timeout:g} s") from None
        if line is None:
            raise _Failure(
                f"the process closed its output ({child.status()}) instead of answering '{what}'"
            )
        try:
            return json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise _Failure(
                f"printed a line that is not a protocol message in answer to '{what}'",
                stdout=_text(line),
            ) from None

    def _kill(self) -> str:
        """Kill the process (if any); the tail of what it wrote to stderr."""
        child, self._child = self._child, None
        return child.kill() if child is not None else ""

    def close(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            child.stop()


class _Child:
    """One process of a `Subprocess`, with the readers that drain its stdout and stderr.

    Each process gets its own line queue and stderr buffer: a reader of a killed process that
    wakes up late must never feed its end-of-file into the next process's queue.
    """

    def __init__(self, argv: list[str]) -> None:
        try:
            self.process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        except OSError as error:
            raise ProtocolError(f"cannot start {shlex.join(argv)}: {error}") from error
        assert self.process.stdout is not None and self.process.stderr is not None
        lines: queue.Queue[bytes | None] = queue.Queue()
        stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL_LINES)
        self.lines = lines
        self.stderr = stderr
        _pump(self.process.stdout, lines.put, end=lambda: lines.put(None))
        self.stderr_reader = _pump(
            self.process.stderr, lambda line: stderr.append(_text(line)), end=lambda: None
        )

    def running(self) -> bool:
        return self.process.poll() is None

    def status(self) -> str:
        try:
            return f"exit status {self.process.wait(timeout=_EXIT_GRACE)}"
        except subprocess.TimeoutExpired:
            return "still running"

    def send(self, message: Json) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()

    def kill(self) -> str:
        if self.running():
            self.process.kill()
        self.process.wait()
        # Everything it wrote before dying, once the reader has drained the pipe.
        self.stderr_reader.join(timeout=_EXIT_GRACE)
        return "".join(self.stderr)

    def stop(self) -> None:
        """Ask politely with ``stop``; kill it if it has not exited shortly after."""
        if self.running():
            try:
                self.send(STOP_MESSAGE)
                assert self.process.stdin is not None
                self.process.stdin.close()
                self.process.wait(timeout=_EXIT_GRACE)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()


class _Failure(ProtocolError):
    """A transport failure: what happened, and what the process printed (``context``)."""

    def __init__(self, message: str, **context: str) -> None:
        super().__init__(message)
        self.context = context


def _pump(stream: IO[bytes], sink: Any, *, end: Any) -> threading.Thread:
    def pump() -> None:
        for line in iter(stream.readline, b""):
            sink(line)
        end()

    thread = threading.Thread(target=pump, daemon=True, name="dsh-impl-reader")
    thread.start()
    return thread


def _text(line: bytes) -> str:
    return line.decode("utf-8", errors="replace")


def load_implementation(spec: str, timeout: float = DEFAULT_TIMEOUT) -> Implementation:
    """``reference``, ``module:attr`` (an object or class with ``handle``), or a command line.

    A command's program is looked up on PATH, then beside the running Python (a virtual
    environment's scripts), so ``dsh-reference-harness`` works from an unactivated venv.
    """
    if spec == "reference":
        spec = "reference.harness:Driver"
        label = "reference"
    else:
        label = spec
    if _MODULE_ATTR.match(spec):
        module_name, attribute = spec.split(":")
        target: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
        driver = target() if isinstance(target, type) else target
        return InProcess(driver, label=label, timeout=timeout)
    argv = shlex.split(spec)
    if not argv:
        raise ValueError("--impl needs a value")
    argv[0] = _which(argv[0])
    return Subprocess(argv, label=label, timeout=timeout)


def _which(program: str) -> str:
    if os.sep in program:
        return program
    beside_python = os.path.join(os.path.dirname(sys.executable), program)
    return shutil.which(program) or (beside_python if os.path.exists(beside_python) else program)
