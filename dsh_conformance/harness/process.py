"""A harness process as the subprocess transport runs it: bounded pipes, its own process group.

Nothing a harness prints can grow the suite without bound: stdout is cut into lines of at most
`MAX_LINE_BYTES` (a longer one arrives as an `Overlong` marker), stderr keeps only a tail of
cut lines, and reports show offending lines cut to `SHOWN_CHARS`, saying what was cut.

Each process leads its own process group (session): killing it kills whatever it started too
(``sh -c``, ``npm``, ``npx`` wrappers), on a timeout, a restart, the end of the run, and when the
suite itself is terminated (SIGTERM, SIGHUP, or interpreter exit).

Each process starts with the suite's environment and ``TZ`` set to the harness's zone
(`dsh_conformance.harness.zone`), as PROTOCOL.md guarantees.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from types import FrameType
from typing import Any, Final

from .protocol import STOP_MESSAGE, ProtocolError
from .validate import cut
from .zone import harness_environment

Json = Any
#: The longest answer line the suite reads; a longer one is a protocol error of that case.
MAX_LINE_BYTES: Final = 8 * 1024 * 1024
#: How much of an offending stdout line a report shows.
SHOWN_CHARS: Final = 2000
#: Standard error kept per process: the last lines, each cut to a width.
_STDERR_TAIL_LINES: Final = 40
_STDERR_LINE_BYTES: Final = 2000
_READ_CHUNK: Final = 65536
#: Reads (of up to `_READ_CHUNK` bytes, or one long line) queued before the reader waits.
_QUEUED_READS: Final = 16
_EXIT_GRACE: Final = 2.0
#: How often a reader waiting for an answer looks whether the process is still there, and how
#: long after its exit it still waits for output (what it wrote just before exiting).
_POLL: Final = 0.1
_AFTER_EXIT: Final = 0.5
_POSIX: Final = os.name == "posix"


@dataclass(frozen=True)
class Overlong:
    """Stands for a stdout line longer than `MAX_LINE_BYTES`: its beginning only."""

    head: bytes


Line = bytes | Overlong


class Child:
    """One harness process (the leader of its own process group), and its readers.

    Each process gets its own line queue and stderr tail: a reader of a killed process that
    wakes up late must never feed its end-of-file into the next process's queue. The stdout
    reader hands over the lines of one read together, so a second answer written with the
    first is seen at once (`leftovers`).
    """

    def __init__(
        self, argv: list[str], cwd: str | None = None, env: dict[str, str] | None = None
    ) -> None:
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=_POSIX,
                cwd=cwd,
                env=harness_environment(env),
            )
        except OSError as error:
            raise ProtocolError(f"cannot start {shlex.join(argv)}: {error}") from error
        _LIVE.add(self)
        _install_cleanup()
        assert self.process.stdout is not None and self.process.stderr is not None
        # Bounded: a harness flooding stdout between answers blocks on its pipe instead of
        # filling the suite's memory.
        self._chunks: queue.Queue[list[Line] | None] = queue.Queue(maxsize=_QUEUED_READS)
        self._ready: collections.deque[Line] = collections.deque()
        self._ended = False
        #: The process exited while its stdout stayed open (held by a process it started).
        self.outlived = False
        self.stderr = _Tail()
        self.stdout_reader = _start_reader(
            self.process.stdout.fileno(), _LineSplitter(self._chunks.put).feed
        )
        self.stderr_reader = _start_reader(self.process.stderr.fileno(), self.stderr.feed)

    def running(self) -> bool:
        return self.process.poll() is None

    def status(self) -> str:
        try:
            code = self.process.wait(timeout=_EXIT_GRACE)
        except subprocess.TimeoutExpired:
            return "still running"
        return f"killed by signal {-code}" if code < 0 else f"exit status {code}"

    def send(self, message: Json) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()

    def next_line(self, timeout: float) -> Line | None:
        """The next stdout line, ``None`` at end of output; raises `queue.Empty` on timeout.

        A process that exits while something it started keeps its stdout open (a forked child)
        would never close it: shortly after the exit, that counts as the end of output too
        (`outlived`), not as a wait for the whole timeout.
        """
        deadline = time.monotonic() + timeout
        exited: float | None = None
        while not self._ready and not self._ended:
            now = time.monotonic()
            if exited is None and self.process.poll() is not None:
                exited = now
            if exited is not None and now - exited >= _AFTER_EXIT:
                self.outlived = True
                return None
            if now >= deadline:
                raise queue.Empty
            with contextlib.suppress(queue.Empty):
                self._take(self._chunks.get(timeout=min(_POLL, deadline - now)))
        return self._ready.popleft() if self._ready else None

    def leftovers(self) -> list[Line]:
        """Lines already received and not yet read (nothing should be there between answers)."""
        self._drain()
        lines = list(self._ready)
        self._ready.clear()
        return lines

    def _drain(self) -> None:
        while not self._ended:
            try:
                self._take(self._chunks.get_nowait())
            except queue.Empty:
                return

    def _take(self, chunk: list[Line] | None) -> None:
        if chunk is None:
            self._ended = True
        else:
            self._ready.extend(chunk)

    def kill(self) -> str:
        _kill_group(self.process)
        self.process.wait()
        _LIVE.discard(self)
        # Everything it wrote before dying, once the readers have drained the pipes (the stdout
        # reader may be waiting for room in the queue: make it).
        deadline = time.monotonic() + _EXIT_GRACE
        while self.stdout_reader.is_alive() and time.monotonic() < deadline:
            self._drain()
            self.stdout_reader.join(timeout=0.01)
        self.stderr_reader.join(timeout=_EXIT_GRACE)
        return self.stderr.text()

    def stop(self) -> None:
        """Ask politely with ``stop``; then kill the group (the process and what it started)."""
        if self.running():
            try:
                self.send(STOP_MESSAGE)
                assert self.process.stdin is not None
                self.process.stdin.close()
                self.process.wait(timeout=_EXIT_GRACE)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()


class _LineSplitter:
    """Cuts a byte stream into lines, never holding more than `MAX_LINE_BYTES` of one."""

    def __init__(self, put: Any) -> None:
        self._put = put
        self._buffer = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> None:
        if not data:  # end of output; a last line without a newline still counts
            if self._buffer and not self._discarding:
                self._put([bytes(self._buffer)])
            self._put(None)
            return
        lines: list[Line] = []
        for piece in data.splitlines(keepends=True):
            if not self._discarding:
                self._buffer += piece
                if len(self._buffer) > MAX_LINE_BYTES:
                    lines.append(Overlong(bytes(self._buffer[:SHOWN_CHARS])))
                    self._buffer.clear()
                    self._discarding = True
            if piece.endswith(b"\n"):
                if not self._discarding:
                    lines.append(bytes(self._buffer))
                self._buffer.clear()
                self._discarding = False
        if lines:
            self._put(lines)


class _Tail:
    """The last lines a process wrote to stderr, each cut to a width; says what was cut."""

    def __init__(self) -> None:
        self._lines: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL_LINES)
        self._dropped = 0
        self._partial = bytearray()
        self._cut = 0
        self._lock = threading.Lock()

    def feed(self, data: bytes) -> None:
        with self._lock:
            for piece in data.splitlines(keepends=True):
                room = _STDERR_LINE_BYTES - len(self._partial)
                self._partial += piece[:room]
                self._cut += max(0, len(piece) - room)
                if piece.endswith(b"\n"):
                    self._push()

    def _push(self) -> None:
        line = _text(bytes(self._partial)).rstrip("\n")
        if self._cut:
            line += f" [… {self._cut} more bytes of this line cut]"
        if len(self._lines) == self._lines.maxlen:
            self._dropped += 1
        self._lines.append(line)
        self._partial.clear()
        self._cut = 0

    def text(self) -> str:
        with self._lock:
            if self._partial:
                self._push()
            kept = "\n".join(self._lines)
            if self._dropped:
                kept = f"[{self._dropped} earlier lines not kept]\n{kept}"
            return kept + "\n" if kept else ""


def _start_reader(fd: int, feed: Any) -> threading.Thread:
    """Read ``fd`` in chunks until end of file, feeding each (and a final ``b""``) to ``feed``."""

    def pump() -> None:
        while True:
            try:
                data = os.read(fd, _READ_CHUNK)
            except OSError:
                data = b""
            feed(data)
            if not data:
                return

    thread = threading.Thread(target=pump, daemon=True, name="dsh-impl-reader")
    thread.start()
    return thread


def _text(line: bytes) -> str:
    return line.decode("utf-8", errors="replace")


def show(line: Line) -> str:
    """An offending stdout line as a report shows it: decoded, and cut to a bounded size."""
    if isinstance(line, Overlong):
        return cut(_text(line.head), SHOWN_CHARS) + f" [… cut: over {MAX_LINE_BYTES} bytes]"
    return cut(_text(line), SHOWN_CHARS)


#: Processes started and not yet killed, so that the suite's own termination kills them.
_LIVE: set[Child] = set()
_CLEANUP_INSTALLED = threading.Event()


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    if _POSIX:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    elif process.poll() is None:
        process.kill()


def kill_all() -> None:
    """Kill every process group the suite started and has not killed yet."""
    for child in list(_LIVE):
        _kill_group(child.process)


def _install_cleanup() -> None:
    """At the first process: kill every group at exit and on SIGTERM/SIGHUP, then go on dying."""
    if _CLEANUP_INSTALLED.is_set():
        return
    _CLEANUP_INSTALLED.set()
    atexit.register(kill_all)
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if signum is not None:
            previous = signal.getsignal(signum)
            if previous is not signal.SIG_IGN:
                signal.signal(signum, _terminating(previous))


def _terminating(previous: Any) -> Any:
    def handler(signum: int, frame: FrameType | None) -> None:
        kill_all()
        signal.signal(signum, previous)
        if callable(previous):
            previous(signum, frame)
        else:  # the default action: die of this signal, as if the handler were not there
            os.kill(os.getpid(), signum)

    return handler
