"""ROOT-MODEL, one rule per requirement (CONTRACTS.md, "ROOT-MODEL and
LOGGEDLOOP-REQUEST-INVARIANT" and "The session log (what ROOT-MODEL anchors to)")."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "ROOT-MODEL"
_ROOT: Final = "ROOT-MODEL and LOGGEDLOOP-REQUEST-INVARIANT"
_LOG: Final = "The session log (what ROOT-MODEL anchors to)"
_REJECTED: Final = "An append is validated in full before anything changes"

REQUIREMENTS: Final = (
    Requirement(
        "ROOT-MODEL.1",
        "Before a request reaches a model adapter, its stable state is in a `request/header` "
        "event and its message context on the session surface.",
        _ROOT,
        "every one of them is anchored in the log before the request reaches a model adapter",
        tests=("test_loop_invariant",),
    ),
    Requirement(
        "ROOT-MODEL.2",
        "The log is append-only, each event's `seq` its index from 0, contiguous: a refused "
        "append takes no seq.",
        _LOG,
        "`seq` equals the event's index (contiguous from 0)",
        cases=("session/failed-append-takes-no-seq",),
        tests=("test_surface_follows_a_plain_list_model",),
    ),
    Requirement(
        "ROOT-MODEL.3",
        "The surface is the ordered list of visible seqs: an append adds the event at the end, a "
        "replace puts it in place of the nodes from `start` to `end` inclusive.",
        _LOG,
        "The surface is the ordered list of visible seqs: `append` adds the event at the end; a "
        "replace removes the nodes from `start` to `end` inclusive and puts the new event in "
        "their place.",
        cases=(
            "session/append-builds-surface-and-messages",
            "session/replace-takes-the-place-of-its-range",
            "loop/compact-replaces-and-cites-exactly-its-positions",
        ),
        tests=("test_surface_follows_a_plain_list_model",),
    ),
    Requirement(
        "ROOT-MODEL.4",
        "The derived messages are the surface's events mapped to their logged message objects, "
        "verbatim; an assistant message with empty content derives nothing.",
        _LOG,
        "Derived messages = the surface's events mapped to their messages (`user/message` → its "
        "data, `assistant/message` → `data.message` unless its content is empty, `tool/result` → "
        "`data.message`).",
        cases=(
            "session/append-builds-surface-and-messages",
            "session/messages-are-the-logged-objects-verbatim",
            "session/assistant-message-without-content-derives-nothing",
        ),
        tests=("test_golden_tool_round_trip_messages", "test_surface_follows_a_plain_list_model"),
    ),
    Requirement(
        "ROOT-MODEL.5",
        "A refused append leaves the log, the surface and every projection exactly as they were.",
        _LOG,
        f"{_REJECTED}: a rejected append leaves the log, the surface and every projection "
        "exactly as they were",
        cases=("session/failed-append-takes-no-seq",),
        tests=("test_a_rejected_append_changes_nothing",),
    ),
    Requirement(
        "ROOT-MODEL.6",
        "`data` or surface metadata that is not lossless JSON (an absent value for an absent key, "
        "NaN, ±Infinity, -0, non-plain objects, cycles) is refused: session-non-json.",
        _LOG,
        "`session-non-json`: `data` or the surface metadata is not lossless JSON",
        cases=(
            "session/non-json-data-is-rejected",
            "session/zero-and-negative-numbers-are-lossless-json",
            "session/data-nested-deep-is-lossless-json",
            "session/an-array-that-holds-itself-is-rejected",
        ),
        tests=("test_a_rejected_append_changes_nothing",),
    ),
    Requirement(
        "ROOT-MODEL.7",
        "A `request/header-delta` event, or a `request/header` with reason `fallback`, is "
        "refused: session-legacy-header.",
        _LOG,
        "`session-legacy-header`: a `request/header-delta` event, or a `request/header` with "
        "reason `fallback`",
        cases=("session/legacy-header-formats-are-refused",),
    ),
    Requirement(
        "ROOT-MODEL.8",
        "A `user/message`, `assistant/message` or `tool/result` without `surfaceOp` is refused: "
        "surface-op-required.",
        _LOG,
        "`surface-op-required`: a `user/message`, `assistant/message` or `tool/result` without "
        "`surfaceOp`",
        cases=("session/surface-eligible-events-need-a-surface-op",),
        tests=("test_a_rejected_append_changes_nothing",),
    ),
    Requirement(
        "ROOT-MODEL.9",
        "Any other event type carrying `surfaceOp` or `sourceEventSeqs` is refused: "
        "surface-op-forbidden.",
        _LOG,
        "`surface-op-forbidden`: any other type carrying `surfaceOp` or `sourceEventSeqs`",
        cases=("session/other-events-cannot-carry-surface-metadata",),
        tests=("test_a_rejected_append_changes_nothing",),
    ),
    Requirement(
        "ROOT-MODEL.10",
        'A `surfaceOp` other than `"append"` or exactly `{op: "replace", start, end}` with '
        "non-negative integer seqs, or a replace whose ends are not both on the surface in "
        "order, is refused: surface-replace-invalid.",
        _LOG,
        "`surface-replace-invalid`: a malformed `surfaceOp`, or a replace whose `start`/`end` are "
        "not both on the surface in order",
        cases=(
            "session/malformed-surface-ops-are-rejected",
            "session/replace-range-must-be-on-the-surface-in-order",
            "loop/compact-beyond-the-surface-is-refused",
        ),
        tests=("test_a_rejected_append_changes_nothing",),
    ),
    Requirement(
        "ROOT-MODEL.11",
        "`sourceEventSeqs` that are empty (but on an `assistant/message`), duplicated, not below "
        "the event's seq, or that do not cover every node a replace shadows are refused: "
        "source-seqs-invalid.",
        _LOG,
        "`source-seqs-invalid`: `sourceEventSeqs` empty (allowed on `assistant/message` only), "
        "duplicated, not below the event's seq, or — for a replace — not covering every shadowed "
        "surface node",
        cases=("session/source-seqs-rules", "session/replace-must-cite-every-shadowed-node"),
        tests=("test_a_rejected_append_changes_nothing",),
    ),
    Requirement(
        "ROOT-MODEL.12",
        "A `tool/result` replacement must shadow exactly one `tool/result` and change only its "
        "block's own content: else tool-result-replace-invalid.",
        _LOG,
        "`tool-result-replace-invalid`: a `tool/result` replacement that shadows anything but "
        "exactly one `tool/result`, or changes anything but `data.message.content[0].content`",
        cases=(
            "session/tool-result-replacement-changes-only-the-block-content",
            "session/tool-result-replacement-keeps-is-error",
            "session/tool-result-replacement-tells-an-empty-object-from-an-empty-array",
        ),
        tests=("test_a_rejected_append_changes_nothing",),
    ),
    Requirement(
        "ROOT-MODEL.13",
        "A session over a seed validates it and appends `session/end-seed` after it, unless the "
        "seed already ends with one.",
        _LOG,
        "A session built over a seed (events written by earlier runs) validates them and appends "
        "`session/end-seed` after them (unless the seed already ends with one)",
        cases=(
            "session/seed-is-validated-then-end-seed-appended",
            "session/seed-ending-with-end-seed-gets-no-second-one",
            "session/seed-with-end-seed-inside-gets-one-at-the-end",
            "session/empty-seed-gets-end-seed",
        ),
    ),
    Requirement(
        "ROOT-MODEL.14",
        "A seeded event whose `seq` is not its index is refused: seq-not-contiguous.",
        _LOG,
        "`seq-not-contiguous` (seeding): a seeded event whose `seq` is not its index",
        cases=("session/seed-seq-must-be-its-index",),
    ),
    Requirement(
        "ROOT-MODEL.15",
        "Seeded events are checked against the append rules, and only against them.",
        _LOG,
        "Seeded events are checked only against these append rules.",
        cases=(
            "session/seeded-user-message-needs-a-surface-op",
            "session/seeded-header-delta-is-legacy",
            "session/seeded-replace-must-cite-what-it-shadows",
        ),
    ),
    Requirement(
        "ROOT-MODEL.16",
        "The header in force is the last `request/header` snapshot of the log, canonicalized; "
        "with none logged, none is in force.",
        "PROMPT-HEADER-CANONICAL",
        "Offline replay folds the log's `request/header` events: the last full snapshot, "
        "canonicalized, is the header in force.",
        cases=("session/header-fold-last-snapshot-wins",),
    ),
    Requirement(
        "ROOT-MODEL.17",
        "A serialized log (JSON Lines) omits absent optional fields, never writes null for them, "
        "and holds finite numbers, never -0, and unique keys.",
        _LOG,
        "In a serialized log (JSON Lines), an absent optional field is omitted, never `null`; "
        "numbers are finite and never negative zero; object keys are unique.",
        unchecked="a rule of the JSON Lines file an implementation writes, which the protocol "
        "never carries (it reports logs as protocol JSON); `dsh-conformance check-log` checks a "
        "recorded file offline.",
    ),
    Requirement(
        "ROOT-MODEL.18",
        "A seeded event with a malformed envelope is refused, session-event-invalid: a key "
        "beyond the seven envelope keys, a non-string `type`, a `seq` that is not an integer in "
        "0..2^53 - 1, a `time` absent or not an integer within ±(2^53 - 1), no `data`, or "
        "`ignorable` other than absent or `true`.",
        _LOG,
        "`session-event-invalid` (seeding): a seeded event whose envelope or core payload is "
        "malformed — a key other than `type`, `seq`, `time`, `data`, `surfaceOp`, "
        "`sourceEventSeqs`, `ignorable`; a `type` that is not a string; a `seq` that is not an "
        "integer in 0..2^53 \u2212 1",
        cases=(
            "session/seed-malformed-envelope-is-session-event-invalid",
            "session/seed-event-that-is-not-an-object-is-session-event-invalid",
            "session/seed-seq-at-the-bound-is-well-formed",
            "session/seed-time-at-the-bound-is-accepted",
            "session/seed-seq-and-time-written-with-a-zero-fraction-are-integers",
        ),
    ),
    Requirement(
        "ROOT-MODEL.19",
        "A seeded `user/message`, `assistant/message` or `tool/result` whose message is not an "
        "object with a non-empty string `id`, the role its type allows, a `source` with a "
        "non-empty string `kind` (with the model's `provider` and `model`, or the tool's "
        "`callId`) and a list `content` (for a tool result, one `tool-result` block for that "
        "call) is refused: session-event-invalid.",
        _LOG,
        "a `user/message`, `assistant/message` or `tool/result` whose message (the `data` of a "
        "`user/message`, else `data.message`) is not an object with a non-empty string `id`, "
        "the role its type allows",
        cases=(
            "session/seed-malformed-message-is-session-event-invalid",
            "session/seed-message-source-needs-its-kind-and-its-fields",
            "session/seed-payload-that-is-not-an-object-is-session-event-invalid",
        ),
    ),
    Requirement(
        "ROOT-MODEL.20",
        "A seeded `request/header` whose config lacks a non-empty string provider or model, has "
        "a reasoning effort that is not a non-empty string, or whose `adapterDefaults` is not "
        "canonical is refused: session-event-invalid.",
        _LOG,
        "a `request/header` whose `data.header.config` lacks a non-empty string `provider` or "
        "`model`, has a `reasoningEffort` that is not a non-empty string, or whose "
        "`adapterDefaults` is not as PROMPT-HEADER-CANONICAL says.",
        cases=("session/seed-malformed-header-is-session-event-invalid",),
    ),
    Requirement(
        "ROOT-MODEL.21",
        "A seed is checked in a fixed order: session-non-json, then session-event-invalid and "
        "session-legacy-header, then seq-not-contiguous, then the surface rules; the first that "
        "fails names the error.",
        _LOG,
        "A seed is checked for `session-non-json` first, then for these (and "
        "`session-legacy-header`), then for `seq-not-contiguous`, then against the surface rules.",
        cases=(
            "session/seed-event-checks-come-before-seq-and-surface",
            "session/seed-negative-zero-is-checked-before-seq",
        ),
    ),
    Requirement(
        "ROOT-MODEL.22",
        "A `surfaceOp` or `sourceEventSeqs` option passed with an absent value is not given: it "
        "is judged, and logged, as if left out.",
        _LOG,
        "A `surfaceOp` or `sourceEventSeqs` *option* given with an absent value (JavaScript's "
        '`undefined`, a language\'s "no value") is the option not given',
        cases=("session/an-option-given-as-absent-is-not-given",),
    ),
    Requirement(
        "ROOT-MODEL.25",
        "A `surfaceOp` or `sourceEventSeqs` given as `null`, in an append or a seed, is given: "
        "the surface rules judge it (surface-op-forbidden, surface-replace-invalid, "
        "source-seqs-invalid), never session-event-invalid.",
        _LOG,
        "one given as `null` is given, and the surface rules judge it (`surface-op-forbidden` on "
        "a type that may not carry it, else `surface-replace-invalid` for a `surfaceOp`, "
        "`source-seqs-invalid` for `sourceEventSeqs`), not `session-event-invalid`",
        cases=(
            "session/an-option-given-as-null-is-judged-by-the-surface-rules",
            "session/seed-optional-field-written-as-null-is-judged-by-the-surface-rules",
        ),
    ),
    Requirement(
        "ROOT-MODEL.26",
        "A seed is checked event by event: the first event that fails any check names the "
        "error, whatever later events hold.",
        _LOG,
        "The seed is checked event by event, each event through all of these before the next: "
        "the first event that fails any check decides",
        cases=("session/seed-is-checked-event-by-event",),
    ),
    Requirement(
        "ROOT-MODEL.27",
        "Within one seeded event, a `request/header-delta` is session-legacy-header whatever its "
        "envelope, and a `request/header` with reason `fallback` is session-legacy-header only "
        "when its envelope and payload are well-formed (else session-event-invalid).",
        _LOG,
        "Within one event, a `request/header-delta` is `session-legacy-header` before its "
        "envelope is checked, and a `request/header` whose envelope or payload is malformed is "
        "`session-event-invalid` even when its reason is `fallback`",
        cases=("session/seed-legacy-header-checks-within-one-event",),
    ),
    Requirement(
        "ROOT-MODEL.23",
        "`ignorable` is a reserved envelope key the loop never writes: a seeded event carrying "
        "`ignorable: true` is accepted and kept as it is.",
        _LOG,
        "`ignorable` is reserved and never written by the loop … `ignorable` other than absent "
        "or `true`",
        cases=("session/seed-keeps-an-ignorable-event",),
    ),
    Requirement(
        "ROOT-MODEL.24",
        "A loop never writes an optional payload field as `null` (an `assistant/message`'s "
        "`usage` or `interrupted`, a `tool/result`'s `error` or `meta`, a `request/context`'s "
        "`contextWindow`): an absent one is left out.",
        _LOG,
        "`assistant/message` | `{turn, step, message, usage?, interrupted?: true}` … In a "
        "serialized log (JSON Lines), an absent optional field is omitted, never `null`",
        cases=("loop/usage-is-never-logged-as-null",),
    ),
    Requirement(
        "ROOT-MODEL.28",
        "An `assistant/message`'s message holds its attempt's blocks as the upstream's assembler "
        "builds them (upstream notes §0.5, where CONTRACTS.md is silent): blocks in first-seen "
        "index order; deltas append to their block (a delta for an unseen index opens one of its "
        "kind; a text block started with none holds the empty text), a block never ended keeps "
        "what they built, and the first `block-end` of an index is its block, later chunks for "
        "it ignored.",
        _LOG,
        "`assistant/message` | `{turn, step, message, usage?, interrupted?: true}`",
        cases=(
            "loop/a-text-block-started-and-never-ended-holds-empty-text",
            "loop/a-reasoning-block-started-and-never-ended-holds-empty-text",
            "loop/chunks-after-a-blocks-end-are-ignored",
            "loop/a-tool-call-never-ended-runs-with-its-joined-arguments",
            "loop/deltas-without-a-block-start-open-blocks-of-their-kind",
            "loop/a-blocks-end-replaces-what-its-deltas-built",
            "loop/blocks-keep-the-order-they-were-started-in",
        ),
    ),
    Requirement(
        "ROOT-MODEL.29",
        "An `assistant/message`, finished or interrupted, carries as `usage` the last `usage` "
        "chunk its attempt's stream reported (upstream notes §0.5 and §7.1).",
        _LOG,
        "`assistant/message` | `{turn, step, message, usage?, interrupted?: true}`",
        cases=("loop/the-streams-usage-is-on-its-assistant-message",),
    ),
    Requirement(
        "ROOT-MODEL.30",
        "An adapter failure is logged as one terminal `finish` chunk: of kind `aborted` when its "
        "code is `ABORTED` (the upstream's error normalization, PROTOCOL.md's REPLY since 1.3), "
        "even while the turn is not being cancelled.",
        _ROOT,
        '`{kind: "error" | "aborted", failure}`); an adapter that throws or fails is logged as '
        "one such terminal `finish` chunk",
        cases=("loop/an-adapter-failure-with-code-aborted-is-logged-as-an-aborted-finish",),
    ),
)
