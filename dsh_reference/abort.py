"""A small AbortController / AbortSignal pair, after the web platform's.

PROMPT-CANCEL-TEST: "The assembly context carries the turn's abort signal so a cooperative listener
can stop early." The first ``abort(reason)`` wins, as in the upstream ("The first cause wins, per
standard AbortController semantics").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class AbortSignal:
    def __init__(self) -> None:
        self._aborted = False
        self._reason: Any = None
        self._listeners: list[Callable[[], None]] = []

    @property
    def aborted(self) -> bool:
        return self._aborted

    @property
    def reason(self) -> Any:
        return self._reason

    def add_listener(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once when the signal aborts (at once if it already has)."""
        if self._aborted:
            callback()
        else:
            self._listeners.append(callback)

    def _abort(self, reason: Any) -> None:
        if self._aborted:
            return
        self._aborted, self._reason = True, reason
        listeners, self._listeners = self._listeners, []
        for callback in listeners:
            callback()


class AbortController:
    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: Any) -> None:
        self.signal._abort(reason)
