"""The runtime-context projection: when a snapshot is proposed, cleared, forgotten.

LOOP-RUNTIME-CONTEXT, from CONTRACTS.md:

    The projection keeps `retained`: never-seen / none-retained / `{seq, text}`. It is constructed
    at the start of each loop instance; over an existing log it restores the newest owned
    `user/message` (a snapshot or the cleared marker; owned = the source above) whose seq is still
    on the surface; none on the surface but some in the log = none-retained. [...] Live, every
    owned `user/message` entering the log (append or replace) becomes retained; a surface
    replacement whose `sourceEventSeqs` include the retained seq makes it none-retained
    (forgotten).

Sans-IO: `RuntimeContextProjection.restore` reads a `SessionLog`; the caller hands every event it
appends afterwards to `observe`. `project` only proposes — a proposed message changes nothing until
it is appended and observed ("`retained` changes only when a message is actually appended").

The snapshot text is built by `render.join_context_sections` (the preamble and the joiner live
there, beside the prompt renderer that shares the joiner).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from .assembly import PromptText
from .jsonvalue import Json
from .render import join_context_sections
from .session import SessionEvent, SessionLog, SurfaceReplace

#: The owner of runtime-context messages: `source = {kind: "plugin", plugin: OWNER_PLUGIN}`.
OWNER_PLUGIN: Final = "@deepseek-ai/dsh-system-prompt"
#: What is proposed when the runtime context becomes empty (CONTRACTS.md, "Literal constants").
CLEARED_MARKER: Final = (
    "Current runtime context: none. Earlier runtime-context snapshots no longer apply."
)


class Retention(enum.Enum):
    """The two states of `retained` that hold no snapshot."""

    #: No owned message was ever in this log.
    NEVER_SEEN = "never-seen"
    #: Owned messages existed, but none is retained (none visible, or the retained one forgotten).
    NONE_RETAINED = "none-retained"


@dataclass(frozen=True)
class Retained:
    """The owned message at ``seq`` is the baseline.

    ``text`` is its single text block's text; ``None`` when its content is anything else
    ("unknown, never equal to anything").
    """

    seq: int
    text: str | None


#: never-seen / none-retained / `{seq, text}`.
RetainedState: TypeAlias = Retention | Retained


def owner_source(sections: Sequence[PromptText] = ()) -> dict[str, Any]:
    """The source of a proposed message.

    With sections: `{kind: "plugin", plugin, form: "snapshot", sections: [{name, text}...]}`;
    without (the cleared marker): "whose source has no `form` and no `sections`".
    """
    source: dict[str, Any] = {"kind": "plugin", "plugin": OWNER_PLUGIN}
    if sections:
        source["form"] = "snapshot"
        source["sections"] = [{"name": entry.name, "text": entry.text} for entry in sections]
    return source


def is_owned(message: Json) -> bool:
    """Whether a `user/message`'s message is owned: its source is the plugin above."""
    source = message.get("source") if isinstance(message, dict) else None
    return (
        isinstance(source, dict)
        and source.get("kind") == "plugin"
        and source.get("plugin") == OWNER_PLUGIN
    )


def retained_text(message: Json) -> str | None:
    """ "The text of that message's single text block (any other content: unknown)"."""
    content = message.get("content")
    if (
        isinstance(content, list)
        and len(content) == 1
        and isinstance(content[0], dict)
        and content[0].get("type") == "text"
        and isinstance(content[0].get("text"), str)
    ):
        text: str = content[0]["text"]
        return text
    return None


class RuntimeContextProjection:
    """Proposes runtime-context snapshots for one loop instance (LOOP-RUNTIME-CONTEXT)."""

    def __init__(self, retained: RetainedState = Retention.NEVER_SEEN) -> None:
        self._retained = retained

    @classmethod
    def restore(cls, log: SessionLog) -> RuntimeContextProjection:
        """The projection of a loop instance constructed over ``log`` as it is now.

        Walks the log newest to oldest: the first owned `user/message` still on the surface is
        retained; "none on the surface but some in the log = none-retained".
        """
        visible = set(log.surface)
        retained: RetainedState = Retention.NEVER_SEEN
        for event in reversed(log.events):
            if not _is_owned_user_message(event):
                continue
            if event.seq in visible:
                return cls(Retained(event.seq, retained_text(event.data)))
            retained = Retention.NONE_RETAINED
        return cls(retained)

    @property
    def retained(self) -> RetainedState:
        return self._retained

    def observe(self, event: SessionEvent) -> None:
        """Update `retained` from an event that has just entered the log.

        An owned `user/message` (appended or replacing) becomes retained. Otherwise a surface
        replacement that cites the retained seq in its `sourceEventSeqs` forgets it — even one that
        only cites it without shadowing it, as the upstream does; there is no walk back to an
        older visible snapshot (only `restore` walks).
        """
        if _is_owned_user_message(event):
            self._retained = Retained(event.seq, retained_text(event.data))
        elif (
            isinstance(self._retained, Retained)
            and isinstance(event.surface_op, SurfaceReplace)
            and self._retained.seq in (event.source_event_seqs or ())
        ):
            self._retained = Retention.NONE_RETAINED

    def project(self, sections: Sequence[PromptText]) -> dict[str, Any] | None:
        """The message to propose for the current rendered context sections, or ``None``.

        ``sections`` are the interpolated context sections in context order; empty texts are
        dropped. "never-seen and empty → nothing; current empty → the cleared marker (unless that
        is already retained); otherwise the full snapshot text, unless equal to the retained text."
        The message has no ``id``: the loop gives it one when it enters the log.
        """
        kept = [entry for entry in sections if entry.text]
        current = join_context_sections(kept)
        if self._retained is Retention.NEVER_SEEN and not current:
            return None
        text = current or CLEARED_MARKER
        # A retained message whose text is unknown (`None`) never equals anything.
        if isinstance(self._retained, Retained) and self._retained.text == text:
            return None
        return {
            "role": "user",
            "content": [{"type": "text", "text": text}],
            "source": owner_source(kept),
        }


def _is_owned_user_message(event: SessionEvent) -> bool:
    return event.type == "user/message" and is_owned(event.data)
