"""LOOP-RUNTIME-CONTEXT, one rule per requirement (CONTRACTS.md, "LOOP-RUNTIME-CONTEXT", with the
runtime-context constants of "Literal constants")."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "LOOP-RUNTIME-CONTEXT"
_SECTION: Final = "LOOP-RUNTIME-CONTEXT"
_PROJECT: Final = "`project(current)`"

REQUIREMENTS: Final = (
    Requirement(
        "LOOP-RUNTIME-CONTEXT.1",
        "A loop instance over an existing log restores the newest runtime-context message of "
        "its own (a snapshot or the cleared marker) still on the surface; if the log has some "
        "but none is on the surface, none is retained.",
        _SECTION,
        "over an existing log it restores the newest owned `user/message` (a snapshot or the "
        "cleared marker; owned = the source above) whose seq is still on the surface; none on "
        "the surface but some in the log = none-retained.",
        cases=(
            "runtime-context/restore-takes-the-newest-visible-owned-message",
            "runtime-context/restore-skips-a-shadowed-snapshot-for-an-older-visible-one",
            "runtime-context/restore-ignores-other-plugins-messages",
            "runtime-context/restore-over-a-seeded-log",
            "loop/runtime-context-restored-from-a-seed-is-not-re-proposed",
            "loop/runtime-context-replaced-on-the-surface-is-re-proposed",
            "loop/runtime-context-seeded-in-another-form-is-restored-by-its-owner",
        ),
    ),
    Requirement(
        "LOOP-RUNTIME-CONTEXT.2",
        "The retained text is that of the message's single text block; a message with any other "
        "content retains an unknown text, equal to nothing.",
        _SECTION,
        "The retained text is the text of that message's single text block (any other content: "
        "unknown, never equal to anything).",
        cases=("runtime-context/retained-unknown-text-always-proposes",),
    ),
    Requirement(
        "LOOP-RUNTIME-CONTEXT.3",
        "Live, every runtime-context message of its own entering the log, appended or as a "
        "replacement, becomes the retained one.",
        _SECTION,
        "Live, every owned `user/message` entering the log (append or replace) becomes retained",
        cases=(
            "runtime-context/an-entered-proposal-becomes-retained",
            "runtime-context/an-owned-replacement-becomes-retained",
        ),
    ),
    Requirement(
        "LOOP-RUNTIME-CONTEXT.4",
        "A surface replacement citing the retained seq forgets it (none retained); an append "
        "citing it, or a replacement that does not cite it, forgets nothing, and forgetting "
        "never restores an older message.",
        _SECTION,
        "a surface replacement whose `sourceEventSeqs` include the retained seq makes it "
        "none-retained (forgotten).",
        cases=(
            "runtime-context/a-replacement-shadowing-the-retained-snapshot-forgets-it",
            "runtime-context/a-replacement-only-citing-the-retained-seq-forgets-it",
            "runtime-context/an-append-citing-the-retained-seq-forgets-nothing",
            "runtime-context/live-forgetting-does-not-walk-back",
            "loop/runtime-context-replaced-live-is-forgotten-and-re-proposed",
            "loop/runtime-context-kept-by-a-replacement-that-spares-it",
        ),
    ),
    Requirement(
        "LOOP-RUNTIME-CONTEXT.5",
        "A proposed snapshot is a user message of one text block, the preamble, a blank line "
        "and the non-empty context texts joined by blank lines, whose source is the plugin's "
        'with `form: "snapshot"` and the `{name, text}` pairs in context order.',
        _SECTION,
        "`text` = the preamble, `\\n\\n`, and the non-empty context texts joined by `\\n\\n`, "
        'with `source.form: "snapshot"` and `source.sections` = those `{name, text}` pairs in '
        "context order",
        cases=(
            "runtime-context/never-seen-and-a-context-proposes-the-snapshot",
            "loop/runtime-context-unchanged-over-steps-one-snapshot",
        ),
    ),
    Requirement(
        "LOOP-RUNTIME-CONTEXT.6",
        "The cleared marker is a user message of the fixed cleared text whose source has no "
        "`form` and no `sections`.",
        _SECTION,
        "or the cleared marker, whose source has no `form` and no `sections`.",
        cases=(
            "loop/runtime-context-removed-sends-the-cleared-marker-once",
            "runtime-context/none-retained-and-empty-proposes-the-cleared-marker",
        ),
    ),
    Requirement(
        "LOOP-RUNTIME-CONTEXT.7",
        "The proposed message is the last message of the default pre-step decision.",
        _SECTION,
        "It is the last message of the default pre-step decision.",
        cases=(
            "loop/runtime-context-unchanged-over-steps-one-snapshot",
            "loop/hook-calls-record-the-snapshot-the-default-decision-proposes",
        ),
    ),
    Requirement(
        "LOOP-RUNTIME-CONTEXT.8",
        "With nothing ever seen and no context, nothing is proposed.",
        _SECTION,
        f"{_PROJECT}: never-seen and empty → nothing",
        cases=("runtime-context/never-seen-and-empty-proposes-nothing",),
    ),
    Requirement(
        "LOOP-RUNTIME-CONTEXT.9",
        "With no context now, the cleared marker is proposed, unless it is the retained message.",
        _SECTION,
        "current empty → the cleared marker (unless that is already retained)",
        cases=(
            "runtime-context/none-retained-and-empty-proposes-the-cleared-marker",
            "runtime-context/retained-cleared-marker-and-empty-proposes-nothing",
            "runtime-context/retained-snapshot-and-empty-proposes-the-cleared-marker",
            "loop/runtime-context-removed-sends-the-cleared-marker-once",
        ),
    ),
    Requirement(
        "LOOP-RUNTIME-CONTEXT.10",
        "With a context now, its full snapshot is proposed unless its text equals the retained "
        "text, whatever was seen before.",
        _SECTION,
        "otherwise the full snapshot text, unless equal to the retained text.",
        cases=(
            "runtime-context/never-seen-and-a-context-proposes-the-snapshot",
            "runtime-context/none-retained-and-a-context-proposes-it-even-if-seen-before",
            "runtime-context/retained-snapshot-and-the-same-context-proposes-nothing",
            "runtime-context/retained-snapshot-and-a-changed-context-proposes-the-whole-snapshot",
            "runtime-context/retained-unknown-text-always-proposes",
        ),
    ),
    Requirement(
        "LOOP-RUNTIME-CONTEXT.11",
        "Only a change of the complete value proposes a message, and then the whole snapshot: "
        "an unchanged context over many steps proposes nothing.",
        _SECTION,
        "Only a change of the complete value proposes a message; an unchanged context over many "
        "steps proposes nothing.",
        cases=(
            "loop/runtime-context-unchanged-over-steps-one-snapshot",
            "runtime-context/retained-snapshot-and-a-changed-context-proposes-the-whole-snapshot",
        ),
    ),
    Requirement(
        "LOOP-RUNTIME-CONTEXT.12",
        "The rules of what a loop writes judge only what each loop instance wrote: a seed may "
        "hold runtime-context messages no current loop would produce, and they are restored "
        "like any other owned message.",
        "The session log (what ROOT-MODEL anchors to)",
        "The rules about what a loop writes (the request invariant, headers, runtime-context "
        "messages, turn and step structure) judge the events each loop instance wrote itself — "
        "a seed may hold anything an earlier run, another implementation or a person wrote, "
        "including runtime-context messages whose content no current loop would produce.",
        cases=("loop/runtime-context-seeded-in-another-form-is-restored-by-its-owner",),
    ),
)
