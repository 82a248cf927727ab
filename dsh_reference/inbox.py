"""The agent's inbox: messages waiting for the next turn or the next step (PROMPT-STEP-BOUNDARY).

    `preStep` does, in order: claim the inbox (all next-step messages, then — on a turn's first
    step only — at most one next-turn message); ...

A claim therefore takes at most one queued turn message, so a burst of follow-ups gets one turn
each. The upstream also logs every change of the inbox as an `agent/inbox/spliced` event so a
restarted agent can replay it; no contract reads those events (they are outside the core
vocabulary, "other types pass through unchecked"), so this model keeps the inbox in memory only.
"""

from __future__ import annotations

from typing import Literal

from .jsonvalue import Json

Target = Literal["next-turn", "next-step"]


class Inbox:
    def __init__(self) -> None:
        self.next_turn: list[Json] = []
        self.next_step: list[Json] = []

    @property
    def has_pending(self) -> bool:
        return bool(self.next_turn or self.next_step)

    def add(self, target: Target, message: Json) -> None:
        (self.next_turn if target == "next-turn" else self.next_step).append(message)

    def claim(self, target: Target) -> list[Json]:
        """All next-step messages, then — for ``next-turn`` — the first next-turn message."""
        claimed, self.next_step = self.next_step, []
        if target == "next-turn" and self.next_turn:
            claimed.append(self.next_turn.pop(0))
        return claimed

    def clear(self) -> None:
        """What a cancel does first: drop everything queued."""
        self.next_turn, self.next_step = [], []
