"""Ctrl-C, never lost: an interrupt the code it lands in swallows still ends the run.

Python raises `KeyboardInterrupt` wherever the main thread is when SIGINT arrives; inside a
garbage-collection callback (Hypothesis installs one) it is "unraisable", printed as a warning
and dropped, and the run went on to a verdict as if Ctrl-C had never been pressed (issue 37).
`Latch` remembers the signal, so the next test raises it again before it starts.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType


class Latch:
    """SIGINT raises `KeyboardInterrupt` as usual, and is remembered (`check` raises it again)."""

    def __init__(self) -> None:
        self.seen = False
        self._installed = False

    def install(self) -> None:
        """Take SIGINT over, if Python's own handler has it and this is the main thread."""
        on_main = threading.current_thread() is threading.main_thread()
        if on_main and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, self._interrupt)
            self._installed = True

    def uninstall(self) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            self._installed = False

    def check(self) -> None:
        """Raise `KeyboardInterrupt` again if SIGINT came (and was perhaps swallowed)."""
        if self.seen:
            raise KeyboardInterrupt

    def _interrupt(self, signum: int, frame: FrameType | None) -> None:
        self.seen = True
        raise KeyboardInterrupt
