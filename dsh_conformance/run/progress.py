"""Progress a person can follow: the case an implementation has been busy with for a while.

pytest shows a dot per finished test; on a hang the user would see nothing at all. `Watch` names
the running case once it has taken `SLOW` seconds, whatever the verbosity, and says how long it
took once it ends.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Final

import pytest

from ..harness.transport import Implementation

#: After this long, the running case is named on the terminal.
SLOW: Final = 2.0


class Watch:
    """Names a case that has been running a while (a hang otherwise shows as a silent dot).

    A daemon thread looks twice a second; a case past `SLOW` seconds is announced once, with
    pytest's output capture suspended so that the line reaches the terminal.
    """

    def __init__(self, config: pytest.Config, implementations: list[Implementation]) -> None:
        self._config = config
        self._implementations = implementations
        self._announced: set[tuple[str, str, float]] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="dsh-watch")
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(0.5):
            for impl in self._implementations:
                self._report_finished(impl)
                running = impl.running
                if running is None or time.monotonic() - running[1] < SLOW:
                    continue
                key = (impl.label, *running)
                if key not in self._announced:
                    self._announced.add(key)
                    self._say(
                        f"still waiting for {impl.label} on case {running[0]} "
                        f"(over {SLOW:g} s; the timeout is {impl.timeout:g} s)"
                    )

    def _say(self, line: str) -> None:
        reporter = self._config.pluginmanager.get_plugin("terminalreporter")
        capture = self._config.pluginmanager.get_plugin("capturemanager")
        if reporter is None:
            return
        suspended = capture.global_and_fixture_disabled() if capture else contextlib.nullcontext()
        with suspended:
            reporter.write_line(f"\n[dsh-conformance] {line}")

    def _report_finished(self, impl: Implementation) -> None:
        """Say how long each slow case that has ended took."""
        while impl.slow_answers:
            what, took = impl.slow_answers.pop(0)
            self._say(f"{impl.label} answered {what} after {took:.1f} s (checks included)")

    def stop(self) -> None:
        """Stop watching; a slow case that ended since the last look is still reported."""
        self._stop.set()
        self._thread.join()
        for impl in self._implementations:
            self._report_finished(impl)
