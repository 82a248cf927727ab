"""LOOP-RUNTIME-CONTEXT: restore, live updates, and every row of `project(current)`'s table.

Expected texts are built by hand from the "Literal constants" table of CONTRACTS.md.
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_reference import (
    CLEARED_MARKER,
    OWNER_PLUGIN,
    PromptText,
    Retained,
    Retention,
    RuntimeContextProjection,
    SessionLog,
    SurfaceReplace,
)

PREAMBLE = "Current runtime context. This snapshot supersedes earlier runtime-context snapshots."
CLEARED = "Current runtime context: none. Earlier runtime-context snapshots no longer apply."
OWNER = {"kind": "plugin", "plugin": "@deepseek-ai/dsh-system-prompt"}
CWD = [PromptText("cwd", "cwd: /tmp")]
CWD_TEXT = PREAMBLE + "\n\ncwd: /tmp"


def owned(id: str, text: str, *, source: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "id": id,
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "source": source or OWNER,
    }


def plain_user(id: str) -> dict[str, Any]:
    return {
        "id": id,
        "role": "user",
        "content": [{"type": "text", "text": "hi"}],
        "source": {"kind": "user"},
    }


def snapshot_message(text: str, sections: list[dict[str, str]]) -> dict[str, Any]:
    source = {**OWNER, "form": "snapshot", "sections": sections}
    return {"role": "user", "content": [{"type": "text", "text": text}], "source": source}


CLEARED_MESSAGE = {"role": "user", "content": [{"type": "text", "text": CLEARED}], "source": OWNER}


def test_constants_are_byte_exact() -> None:
    assert (CLEARED, OWNER["plugin"]) == (CLEARED_MARKER, OWNER_PLUGIN)


class TestProjectTable:
    """The case table of `project(current)`, one test per row."""

    def test_never_seen_and_empty_proposes_nothing(self) -> None:
        assert RuntimeContextProjection().project([]) is None

    def test_never_seen_and_a_context_proposes_the_snapshot(self) -> None:
        message = RuntimeContextProjection().project(CWD)
        assert message == snapshot_message(CWD_TEXT, [{"name": "cwd", "text": "cwd: /tmp"}])

    def test_none_retained_and_empty_proposes_the_cleared_marker(self) -> None:
        assert RuntimeContextProjection(Retention.NONE_RETAINED).project([]) == CLEARED_MESSAGE

    def test_none_retained_and_a_context_proposes_the_snapshot(self) -> None:
        message = RuntimeContextProjection(Retention.NONE_RETAINED).project(CWD)
        assert message is not None and message["content"][0]["text"] == CWD_TEXT

    def test_retained_cleared_and_empty_proposes_nothing(self) -> None:
        assert RuntimeContextProjection(Retained(3, CLEARED)).project([]) is None

    def test_retained_snapshot_and_empty_proposes_the_cleared_marker(self) -> None:
        assert RuntimeContextProjection(Retained(3, CWD_TEXT)).project([]) == CLEARED_MESSAGE

    def test_retained_and_the_same_text_proposes_nothing(self) -> None:
        assert RuntimeContextProjection(Retained(3, CWD_TEXT)).project(CWD) is None

    def test_retained_and_a_different_text_proposes_the_snapshot(self) -> None:
        message = RuntimeContextProjection(Retained(3, PREAMBLE + "\n\ncwd: /")).project(CWD)
        assert message is not None and message["content"][0]["text"] == CWD_TEXT

    @pytest.mark.parametrize("sections", [[], CWD])
    def test_retained_with_unknown_text_always_proposes(self, sections: list[PromptText]) -> None:
        assert RuntimeContextProjection(Retained(3, None)).project(sections) is not None

    def test_sections_join_in_order_and_empty_texts_are_dropped(self) -> None:
        sections = [PromptText("a", "A"), PromptText("e", ""), PromptText("b", "B")]
        message = RuntimeContextProjection().project(sections)
        assert message == snapshot_message(
            PREAMBLE + "\n\nA\n\nB", [{"name": "a", "text": "A"}, {"name": "b", "text": "B"}]
        )

    def test_projecting_changes_nothing(self) -> None:
        projection = RuntimeContextProjection()
        projection.project(CWD)
        assert projection.retained is Retention.NEVER_SEEN


class TestRestore:
    """Over an existing log: the newest owned user/message still on the surface."""

    def test_an_empty_log_is_never_seen(self) -> None:
        assert RuntimeContextProjection.restore(SessionLog()).retained is Retention.NEVER_SEEN

    def test_the_newest_visible_owned_message_is_retained(self) -> None:
        log = SessionLog()
        log.append("user/message", owned("s0", "old"), surface_op="append")
        log.append("user/message", plain_user("u1"), surface_op="append")
        log.append("user/message", owned("s2", "new"), surface_op="append")
        log.append("user/message", plain_user("u3"), surface_op="append")
        assert RuntimeContextProjection.restore(log).retained == Retained(2, "new")

    def test_a_shadowed_snapshot_is_skipped_for_an_older_visible_one(self) -> None:
        log = SessionLog()
        log.append("user/message", owned("s0", "old"), surface_op="append")
        log.append("user/message", owned("s1", "new"), surface_op="append")
        log.append(
            "user/message", plain_user("r"), surface_op=SurfaceReplace(1, 1), source_event_seqs=[1]
        )
        assert RuntimeContextProjection.restore(log).retained == Retained(0, "old")

    def test_owned_messages_none_visible_is_none_retained(self) -> None:
        log = SessionLog()
        log.append("user/message", owned("s0", "old"), surface_op="append")
        log.append(
            "user/message", plain_user("r"), surface_op=SurfaceReplace(0, 0), source_event_seqs=[0]
        )
        assert RuntimeContextProjection.restore(log).retained is Retention.NONE_RETAINED

    def test_a_message_that_is_not_one_text_block_has_unknown_text(self) -> None:
        log = SessionLog()
        two_blocks = owned("s0", "a")
        two_blocks["content"].append({"type": "text", "text": "b"})
        log.append("user/message", two_blocks, surface_op="append")
        assert RuntimeContextProjection.restore(log).retained == Retained(0, None)

    def test_a_plugin_message_of_another_plugin_is_not_owned(self) -> None:
        log = SessionLog()
        log.append(
            "user/message",
            owned("s0", "x", source={"kind": "plugin", "plugin": "other"}),
            surface_op="append",
        )
        assert RuntimeContextProjection.restore(log).retained is Retention.NEVER_SEEN


class TestLiveUpdates:
    def test_an_appended_owned_message_becomes_retained(self) -> None:
        log, projection = SessionLog(), RuntimeContextProjection()
        projection.observe(log.append("user/message", owned("s0", CWD_TEXT), surface_op="append"))
        assert projection.retained == Retained(0, CWD_TEXT)
        assert projection.project(CWD) is None

    def test_an_owned_replacement_becomes_retained(self) -> None:
        log, projection = SessionLog(), RuntimeContextProjection()
        projection.observe(log.append("user/message", plain_user("u0"), surface_op="append"))
        event = log.append(
            "user/message", owned("s1", "x"), surface_op=SurfaceReplace(0, 0), source_event_seqs=[0]
        )
        projection.observe(event)
        assert projection.retained == Retained(1, "x")

    def test_a_replacement_citing_the_retained_seq_forgets_it(self) -> None:
        log, projection = SessionLog(), RuntimeContextProjection()
        projection.observe(log.append("user/message", owned("s0", CWD_TEXT), surface_op="append"))
        projection.observe(log.append("user/message", plain_user("u1"), surface_op="append"))
        event = log.append(
            "user/message",
            plain_user("r"),
            surface_op=SurfaceReplace(0, 1),
            source_event_seqs=[0, 1],
        )
        projection.observe(event)
        assert projection.retained is Retention.NONE_RETAINED
        assert projection.project(CWD) is not None

    def test_a_replacement_that_only_cites_the_retained_seq_also_forgets_it(self) -> None:
        log, projection = SessionLog(), RuntimeContextProjection()
        projection.observe(log.append("user/message", owned("s0", CWD_TEXT), surface_op="append"))
        projection.observe(log.append("user/message", plain_user("u1"), surface_op="append"))
        event = log.append(
            "user/message",
            plain_user("r"),
            surface_op=SurfaceReplace(1, 1),
            source_event_seqs=[0, 1],
        )
        projection.observe(event)
        assert projection.retained is Retention.NONE_RETAINED

    def test_an_append_citing_the_retained_seq_does_not_forget_it(self) -> None:
        log, projection = SessionLog(), RuntimeContextProjection()
        projection.observe(log.append("user/message", owned("s0", CWD_TEXT), surface_op="append"))
        event = log.append(
            "user/message", plain_user("u1"), surface_op="append", source_event_seqs=[0]
        )
        projection.observe(event)
        assert projection.retained == Retained(0, CWD_TEXT)

    def test_live_forgetting_does_not_walk_back(self) -> None:
        log, projection = SessionLog(), RuntimeContextProjection()
        projection.observe(log.append("user/message", owned("s0", "old"), surface_op="append"))
        projection.observe(log.append("user/message", owned("s1", "new"), surface_op="append"))
        event = log.append(
            "user/message", plain_user("r"), surface_op=SurfaceReplace(1, 1), source_event_seqs=[1]
        )
        projection.observe(event)
        assert projection.retained is Retention.NONE_RETAINED
        assert RuntimeContextProjection.restore(log).retained == Retained(0, "old")
