"""Content blocks assembled from one attempt's stream chunks (`upstream/loop-and-session.md` §0.5).

PROMPT-RETRY-BOUNDARY needs two readings of an attempt: the blocks of the `assistant/message` a
finished attempt writes, and — when the turn is cancelled mid-stream — "only those text and
reasoning blocks" that carried non-blank text, for the interrupted message. Blocks keep their
first-seen index order; deltas append to their block; ``block-end`` holds the authoritative block
(the first close wins); ``usage`` keeps the last value; ``finish`` the reason.
"""

from __future__ import annotations

from typing import Any, Final

from .jsonvalue import Json, snapshot

#: A stream that ends without a ``finish`` chunk finished normally.
STOP: Final = {"kind": "stop"}
#: "a failed attempt (error or aborted finish)".
FAILED_KINDS: Final = ("error", "aborted")


class BlockAssembler:
    def __init__(self) -> None:
        self._blocks: dict[int, dict[str, Any]] = {}
        self._closed: set[int] = set()
        self.usage: Json | None = None
        self.finish: dict[str, Any] = dict(STOP)

    def push(self, chunk: Json) -> None:
        kind, index = chunk.get("type"), chunk.get("index")
        if kind == "usage":
            self.usage = snapshot(chunk["usage"])
        elif kind == "finish":
            self.finish = snapshot(chunk["reason"])
        elif index in self._closed:
            return
        elif kind == "block-start":
            self._open(index, chunk["blockType"])
        elif kind in ("text-delta", "reasoning-delta"):
            block = self._open(index, "text" if kind == "text-delta" else "reasoning")
            block["text"] = block.get("text", "") + chunk["text"]
        elif kind == "tool-call-delta":
            block = self._open(index, "tool-call")
            block["id"] = chunk["id"]
            if "name" in chunk:
                block["name"] = chunk["name"]
            block["arguments"] = block.get("arguments", "") + chunk["argumentsDelta"]
        elif kind == "block-end":
            self._blocks[index] = snapshot(chunk["block"])
            self._closed.add(index)

    def _open(self, index: int, block_type: str) -> dict[str, Any]:
        if index not in self._blocks:
            self._blocks[index] = {"type": block_type}
            if block_type in ("text", "reasoning"):
                self._blocks[index]["text"] = ""
        return self._blocks[index]

    def blocks(self) -> list[Json]:
        """Every block; "when the finish is `max-tokens`, all `tool-call` blocks are dropped"."""
        dropped = "tool-call" if self.finish.get("kind") == "max-tokens" else None
        return [snapshot(b) for b in self._blocks.values() if b.get("type") != dropped]

    def interrupted_blocks(self) -> list[Json]:
        """Text and reasoning blocks, closed or open, whose text is not whitespace-only."""
        return [
            snapshot(block)
            for block in self._blocks.values()
            if block.get("type") in ("text", "reasoning") and str(block.get("text", "")).strip()
        ]
