"""LOOP-RUNTIME-CONTEXT: the projection's case table, restore over a log, and live updates.

A case builds a log, starts a projection over it (``projection-start``: a loop instance
constructed over the log as it is), appends more events (each one is seen by the projection),
and asks what ``project`` proposes for given context sections. Entering a proposal is appending
it as a `user/message` with an id, exactly as the loop does.
"""

from __future__ import annotations

from ..judge.case import Case
from ..scenarios import scenario as s
from ..scenarios.scenario import RUNTIME_CONTEXT_CLEARED as CLEARED
from ..scenarios.scenario import Json

RUNTIME = ("LOOP-RUNTIME-CONTEXT",)
SESSION = ("session",)

PROJECT = (
    "`project(current)`: never-seen and empty → nothing; current empty → the cleared marker "
    "(unless that is already retained); otherwise the full snapshot text, unless equal to the "
    "retained text."
)
MESSAGE = (
    'A proposed message is `{role: "user", content: [{type: "text", text}], source}`: `text` '
    "= the preamble, `\\n\\n`, and the non-empty context texts joined by `\\n\\n`, with "
    '`source.form: "snapshot"` and `source.sections` = those `{name, text}` pairs in context '
    "order; or the cleared marker, whose source has no `form` and no `sections`."
)
RESTORE = (
    "Over an existing log it restores the newest owned `user/message` (a snapshot or the cleared "
    "marker) whose seq is still on the surface; none on the surface but some in the log = "
    "none-retained. The retained text is the text of that message's single text block (any "
    "other content: unknown, never equal to anything)."
)
LIVE = (
    "Live, every owned `user/message` entering the log (append or replace) becomes retained; a "
    "surface replacement whose `sourceEventSeqs` include the retained seq makes it none-retained "
    "(forgotten)."
)

CWD = s.entry("cwd", "cwd: /work")
GIT = s.entry("git", "branch: main")
CWD_TEXT = s.snapshot_text("cwd: /work")
BOTH_TEXT = s.snapshot_text("cwd: /work", "branch: main")
CWD_PROPOSAL = s.proposal(CWD_TEXT, CWD)
BOTH_PROPOSAL = s.proposal(BOTH_TEXT, CWD, GIT)
CLEARED_PROPOSAL = s.proposal(CLEARED)
NOTHING = s.proposed(None)


def _owned(id: str, text: str, *sections: Json) -> Json:
    """A runtime-context message as the loop enters it (the proposal plus an id)."""
    return {"id": id, **s.proposal(text, *sections)}


def _append(message: Json, **surface: Json) -> Json:
    if not surface:
        surface = {"surface_op": "append"}
    return s.session_append("user/message", message, **surface)


def _user(id: str) -> Json:
    return s.user_message(id, "hello")


def _replace(start: int, end: int, *cited: int) -> Json:
    return {
        "surface_op": {"op": "replace", "start": start, "end": end},
        "source_seqs": list(cited or range(start, end + 1)),
    }


def _case(case_id: str, why: str, *ops: Json) -> Case:
    return Case(
        id=f"runtime-context/{case_id}",
        contracts=RUNTIME,
        why=why,
        ops=ops,
        requires=SESSION,
    )


#: A log whose only owned message (seq 0) was shadowed by a replace: none-retained on restore.
FORGOTTEN_LOG = (
    _append(_owned("s0", CWD_TEXT, CWD)),
    _append(_user("u1"), **_replace(0, 0)),
)

CASES: list[Case] = [
    # -- the case table, one row each ----------------------------------------------------------
    _case(
        "never-seen-and-empty-proposes-nothing",
        PROJECT + " A log with no owned message is never-seen.",
        _append(_user("u0")),
        s.projection_start(),
        s.project([], expect=NOTHING),
    ),
    _case(
        "never-seen-and-a-context-proposes-the-snapshot",
        PROJECT + " " + MESSAGE,
        s.projection_start(),
        s.project([CWD, GIT], expect=s.proposed(BOTH_PROPOSAL)),
    ),
    _case(
        "none-retained-and-empty-proposes-the-cleared-marker",
        PROJECT + " " + RESTORE + " " + MESSAGE,
        *FORGOTTEN_LOG,
        s.projection_start(),
        s.project([], expect=s.proposed(CLEARED_PROPOSAL)),
    ),
    _case(
        "none-retained-and-a-context-proposes-it-even-if-seen-before",
        PROJECT + " " + RESTORE + " The forgotten snapshot's text is no baseline.",
        *FORGOTTEN_LOG,
        s.projection_start(),
        s.project([CWD], expect=s.proposed(CWD_PROPOSAL)),
    ),
    _case(
        "retained-cleared-marker-and-empty-proposes-nothing",
        PROJECT + " " + RESTORE,
        _append(_owned("s0", CWD_TEXT, CWD)),
        _append(_owned("c1", CLEARED)),
        s.projection_start(),
        s.project([], expect=NOTHING),
    ),
    _case(
        "retained-snapshot-and-empty-proposes-the-cleared-marker",
        PROJECT + " " + RESTORE + " " + MESSAGE,
        _append(_owned("s0", CWD_TEXT, CWD)),
        s.projection_start(),
        s.project([], expect=s.proposed(CLEARED_PROPOSAL)),
    ),
    _case(
        "retained-snapshot-and-the-same-context-proposes-nothing",
        PROJECT + " Only a change of the complete value proposes a message; an unchanged context "
        "over many steps proposes nothing.",
        _append(_owned("s0", CWD_TEXT, CWD)),
        s.projection_start(),
        s.project([CWD], expect=NOTHING),
        s.project([CWD], expect=NOTHING),
        s.project([CWD], expect=NOTHING),
    ),
    _case(
        "retained-snapshot-and-a-changed-context-proposes-the-whole-snapshot",
        PROJECT + " Only a change of the complete value proposes a message — the full snapshot, "
        "not the difference.",
        _append(_owned("s0", CWD_TEXT, CWD)),
        s.projection_start(),
        s.project([CWD, GIT], expect=s.proposed(BOTH_PROPOSAL)),
    ),
    _case(
        "retained-unknown-text-always-proposes",
        PROJECT + " " + RESTORE + " An owned message of two text blocks has unknown text: "
        "whatever is projected differs from it.",
        _append(
            {
                "id": "s0",
                "role": "user",
                "content": [{"type": "text", "text": CWD_TEXT}, {"type": "text", "text": ""}],
                "source": s.snapshot_source(CWD),
            }
        ),
        s.projection_start(),
        s.project([CWD], expect=s.proposed(CWD_PROPOSAL)),
        s.project([], expect=s.proposed(CLEARED_PROPOSAL)),
    ),
    # -- restore -------------------------------------------------------------------------------
    _case(
        "restore-takes-the-newest-visible-owned-message",
        RESTORE,
        _append(_owned("s0", CWD_TEXT, CWD)),
        _append(_user("u1")),
        _append(_owned("s2", BOTH_TEXT, CWD, GIT)),
        _append(_user("u3")),
        s.projection_start(),
        s.project([CWD, GIT], expect=NOTHING),
        s.project([CWD], expect=s.proposed(CWD_PROPOSAL)),
    ),
    _case(
        "restore-skips-a-shadowed-snapshot-for-an-older-visible-one",
        RESTORE + " The newest owned message is shadowed, so the older visible one is retained.",
        _append(_owned("s0", CWD_TEXT, CWD)),
        _append(_owned("s1", BOTH_TEXT, CWD, GIT)),
        _append(_user("r2"), **_replace(1, 1)),
        s.projection_start(),
        s.project([CWD], expect=NOTHING),
        s.project([CWD, GIT], expect=s.proposed(BOTH_PROPOSAL)),
    ),
    _case(
        "restore-ignores-other-plugins-messages",
        RESTORE + ' Owned = source `{kind: "plugin", plugin: "@deepseek-ai/dsh-system-prompt"}`;'
        " another plugin's message with the same text is not owned.",
        _append(
            {
                "id": "p0",
                "role": "user",
                "content": [{"type": "text", "text": CWD_TEXT}],
                "source": {"kind": "plugin", "plugin": "@someone/else"},
            }
        ),
        s.projection_start(),
        s.project([], expect=NOTHING),
        s.project([CWD], expect=s.proposed(CWD_PROPOSAL)),
    ),
    _case(
        "restore-over-a-seeded-log",
        RESTORE + " A new loop instance over a log written by an earlier run (a seed) restores "
        "the same way; the `session/end-seed` after the seed changes nothing.",
        s.session_seed(
            [
                {
                    "type": "user/message",
                    "seq": 0,
                    "time": 1,
                    "data": _user("u0"),
                    "surfaceOp": "append",
                },
                {
                    "type": "user/message",
                    "seq": 1,
                    "time": 2,
                    "data": _owned("s1", CWD_TEXT, CWD),
                    "surfaceOp": "append",
                },
            ]
        ),
        s.projection_start(),
        s.project([CWD], expect=NOTHING),
        s.project([GIT], expect=s.proposed(s.proposal(s.snapshot_text("branch: main"), GIT))),
    ),
    # -- live updates ---------------------------------------------------------------------------
    _case(
        "an-entered-proposal-becomes-retained",
        LIVE + " Projecting alone changes nothing: the same proposal repeats until it is entered.",
        s.projection_start(),
        s.project([CWD], expect=s.proposed(CWD_PROPOSAL)),
        s.project([CWD], expect=s.proposed(CWD_PROPOSAL)),
        _append(_owned("s0", CWD_TEXT, CWD)),
        s.project([CWD], expect=NOTHING),
        s.project([], expect=s.proposed(CLEARED_PROPOSAL)),
        _append(_owned("c1", CLEARED)),
        s.project([], expect=NOTHING),
    ),
    _case(
        "an-owned-replacement-becomes-retained",
        LIVE,
        s.projection_start(),
        _append(_user("u0")),
        _append(_owned("s1", CWD_TEXT, CWD), **_replace(0, 0)),
        s.project([CWD], expect=NOTHING),
    ),
    _case(
        "a-replacement-shadowing-the-retained-snapshot-forgets-it",
        LIVE + " Forgotten = none-retained: the same context is proposed again, and an empty one "
        "proposes the cleared marker.",
        _append(_user("u0")),
        _append(_owned("s1", CWD_TEXT, CWD)),
        s.projection_start(),
        _append(_user("r2"), **_replace(0, 1)),
        s.project([CWD], expect=s.proposed(CWD_PROPOSAL)),
        s.project([], expect=s.proposed(CLEARED_PROPOSAL)),
    ),
    _case(
        "a-replacement-only-citing-the-retained-seq-forgets-it",
        LIVE + " The replacement shadows seq 0 only, but cites seq 1 (the retained snapshot).",
        _append(_user("u0")),
        _append(_owned("s1", CWD_TEXT, CWD)),
        s.projection_start(),
        _append(_user("r2"), **_replace(0, 0, 0, 1)),
        s.project([CWD], expect=s.proposed(CWD_PROPOSAL)),
    ),
    _case(
        "an-append-citing-the-retained-seq-forgets-nothing",
        LIVE + " Only a surface replacement forgets; an append citing the snapshot does not.",
        _append(_owned("s0", CWD_TEXT, CWD)),
        s.projection_start(),
        s.session_append("user/message", _user("u1"), surface_op="append", source_seqs=[0]),
        s.project([CWD], expect=NOTHING),
    ),
    _case(
        "live-forgetting-does-not-walk-back",
        LIVE + " " + RESTORE + " Live, a forgotten snapshot leaves none-retained (no walk back "
        "to an older visible one); a new loop instance over the same log restores the older one.",
        _append(_owned("s0", CWD_TEXT, CWD)),
        _append(_owned("s1", BOTH_TEXT, CWD, GIT)),
        s.projection_start(),
        _append(_user("r2"), **_replace(1, 1)),
        s.project([CWD], expect=s.proposed(CWD_PROPOSAL)),
        s.projection_start(),
        s.project([CWD], expect=NOTHING),
    ),
]
