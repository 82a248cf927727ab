"""``dsh-conformance`` as a user runs it, each run in a process of its own, without the start-up.

    python warm_runner.py          (requests on stdin, answers on stdout, one JSON line each)

A fresh ``python -m dsh_conformance.run.runner`` spends most of a small run before its first case:
importing pytest, Hypothesis, jsonschema and the suite, and loading pytest's plugins, which
pytest rewrites and compiles again at every start when bytecode is not written
(``PYTHONDONTWRITEBYTECODE``). The tests of the runner's behaviour (its report, its exit status,
its handling of broken harnesses) run it dozens of times, and none of them is about that
start-up. So this server imports all of it once (`import_the_runner`, which the gallery's
`isolated_runs` shares), then forks a child per request: the child takes the request's working
directory, environment, ``sys.path`` head and arguments, runs the runner's ``main`` and ends the
way ``python -m dsh_conformance.run.runner`` ends (``sys.exit``: threads joined, ``atexit`` run), so
the run is the same process a user starts, minus the imports. The few tests about the process
itself (a missing extra, a closed pipe, the working directory left clean, another project's
pytest, the live test's environment) still start a fresh interpreter.

A request is ``{"argv", "cwd", "env", "stdout", "stderr"}`` (the last two: file paths, ``stderr``
may be null for /dev/null); the server answers ``{"pid"}`` once the child is forked, so that the
caller can kill it at its time limit, then ``{"status", "maxrss"}`` when it has ended: its exit
status, and the largest resident set of its process tree in KiB (``wait4``'s ``ru_maxrss``).
Environment variables read while importing (``CI``, which Hypothesis reads) are the server's: the
caller's own, which the tests do not change.
"""

from __future__ import annotations

import gc
import importlib
import importlib.metadata
import json
import os
import pkgutil
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

SERVER = Path(__file__)


def import_the_runner() -> None:
    """Import what every run of the runner imports: the plugin, the runner and every test module
    of the suite (found, not listed: a module added to the suite is not imported once per
    child), the requirement catalog the report reads, the reference harness (``--impl
    reference``, the default, which the suite's modules do not import: about 100 ms a run to
    compile without bytecode), and the plugins pytest loads at each start with the modules they
    import while configuring (so that pytest neither imports nor rewrites them again in a child).
    Then build what runs build the same way each time, once per process, so that each child
    inherits it built: the compiled validators of the protocol's answers
    (`dsh_conformance.harness.validate`, about 20 ms) and the reference DeepSeek client's TLS
    configuration (about 40 ms, the whole CA bundle)."""
    from _pytest.config import default_plugins

    import dsh_conformance
    import dsh_conformance.run.plugin
    import dsh_conformance.run.runner
    from dsh_conformance.harness import validate
    from dsh_conformance.requirements import catalog
    from dsh_reference.deepseek import client

    importlib.import_module("dsh_reference.harness")
    for module in pkgutil.iter_modules(dsh_conformance.__path__):
        if module.name.startswith("test_"):
            importlib.import_module(f"dsh_conformance.{module.name}")
    for plugin in default_plugins:
        importlib.import_module(f"_pytest.{plugin}")
    for entry in importlib.metadata.entry_points(group="pytest11"):
        entry.load()
    for module in ("faulthandler", "pdb", "xdist.newhooks"):  # pytest's faulthandler, debugging
        importlib.import_module(module)
    catalog()
    for answers in validate.ANSWERS.values():
        for answer in answers:
            validate.compiled(answer)
    client.tls_context()


def serve() -> int:
    """Answer requests until standard input closes, one child at a time."""
    import_the_runner()
    # Everything imported lives as long as the children: out of the collector's sight, a
    # child's collections neither walk it nor copy its pages.
    gc.freeze()
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _run_in_child(request)
        _answer({"pid": pid})
        _, wait_status, usage = os.wait4(pid, 0)
        _answer({"status": os.waitstatus_to_exitcode(wait_status), "maxrss": usage.ru_maxrss})
    return 0


def _answer(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _run_in_child(request: dict[str, Any]) -> NoReturn:
    """Become ``python -m dsh_conformance.run.runner ARGV`` run from ``cwd`` with ``env``."""
    from dsh_conformance.run import runner

    cwd = request["cwd"]
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(request["env"])
    # `python -m` puts the working directory first, then $PYTHONPATH's entries.
    added = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[0:1] = [cwd, *(p for p in added if p not in sys.path)]
    sys.argv = [runner.__file__, *request["argv"]]
    # Ctrl-C reaches a run in a terminal's foreground, where Python's own handler is installed;
    # a test session started in the background of a non-interactive shell (`pytest &` in a
    # script) has SIGINT ignored (POSIX), inherited by this server, and every Ctrl-C test would
    # fail there for a reason of the session's, not the runner's.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    stdin = os.open(os.devnull, os.O_RDONLY)
    stdout = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    stderr = os.open(request["stderr"] or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
        os.dup2(fd, target)
        os.close(fd)
    # As the runner's `__main__` ends: an exception is printed by the interpreter (status 1).
    sys.exit(runner.main(request["argv"]))


class WarmRunner:
    """The tests' side: one server for the session; `run` is one run of the runner."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,  # an interrupt of the session is not sent to it
        )

    def run(
        self,
        argv: list[str],
        stdout: Path,
        stderr: Path | None,
        limit: float,
        cwd: Path | None = None,
        env: Mapping[str, str | None] | None = None,
    ) -> tuple[int, int]:
        """Run the runner with ``argv`` (killed after ``limit`` seconds), its output into the
        given files; its exit status and the largest resident set of its process tree, KiB.
        ``env`` is set over this process's environment (a value of None unsets the variable)."""
        return self.wait(self.start(argv, stdout, stderr, cwd, env), limit)

    def start(
        self,
        argv: list[str],
        stdout: Path,
        stderr: Path | None,
        cwd: Path | None = None,
        env: Mapping[str, str | None] | None = None,
    ) -> int:
        """Start a run as `run` does, without waiting for it: its process id (to signal it
        while it runs); `wait` ends it. One run at a time."""
        assert self.process.stdin is not None and self.process.stdout is not None
        request = {
            "argv": argv,
            "cwd": str(cwd or Path.cwd()),
            "env": {
                name: value
                for name, value in {**os.environ, **(env or {})}.items()
                if value is not None
            },
            "stdout": str(stdout),
            "stderr": None if stderr is None else str(stderr),
        }
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        pid: int = json.loads(self.process.stdout.readline())["pid"]
        return pid

    def wait(self, pid: int, limit: float) -> tuple[int, int]:
        """Wait for the run `start` started (killed after ``limit`` seconds): its exit status
        and the largest resident set of its process tree, KiB."""
        assert self.process.stdout is not None
        timer = threading.Timer(limit, os.kill, (pid, signal.SIGKILL))
        timer.start()
        try:
            ended = json.loads(self.process.stdout.readline())
        finally:
            timer.cancel()
        return ended["status"], ended["maxrss"]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


if __name__ == "__main__":
    sys.exit(serve())
