"""Wrong implementations of the session log (ROOT-MODEL): appends, seeds, surface, replacements.

See the package's docstring for what a wrong implementation is and how the gallery runs it.
"""

from __future__ import annotations

import math
from typing import Any

from dsh_reference import header, session
from dsh_reference.assembly import Assembly
from dsh_reference.errors import ContractError
from dsh_reference.harness import Driver
from dsh_reference.harness import loop as loop_harness
from dsh_reference.harness import session as session_harness
from dsh_reference.jsonvalue import Json, NotLossless, frozen
from dsh_reference.loop import Agent
from dsh_reference.session import SessionLog, SurfaceReplace

from .base import WrongLoop, patched, wrong

#: The contract every entry here is judged under.
ROOT = "ROOT-MODEL"


@wrong(ROOT, "loop/compact-replaces-and-cites-exactly-its-positions")
@patched(loop_harness.LoopOps, "_compact")
def CompactCitesTheNextNode(compact, self, agent, op):
    """A compaction cites the surface node after its range too (allowed by the append rules:
    a replace must cite at least what it shadows)."""
    surface, append = agent.log.surface, agent.append

    def more(type, data, **options):
        after = op["end"] + 1
        if options.get("source_event_seqs") is not None and after < len(surface):
            options["source_event_seqs"] = [*options["source_event_seqs"], surface[after]]
        return append(type, data, **options)

    agent.append = more
    try:
        return compact(self, agent, op)
    finally:
        del agent.append


@wrong(ROOT, "loop/compact-beyond-the-surface-is-refused")
@patched(loop_harness.LoopOps, "_compact")
def CompactClipsTheEnd(compact, self, agent, op):
    """A compaction whose `end` lies beyond the surface is clipped to the last node."""
    last = len(agent.log.surface) - 1
    return compact(self, agent, {**op, "end": min(op["end"], last)})


#: The cases a `"usage": null` fails, for either of the two entries below: their expectations
#: and the suite's request check.
_USAGE_NOT_NULL = (
    "loop/usage-is-never-logged-as-null",
    "test_loop_invariant[loop/usage-is-never-logged-as-null]",
    "loop/the-streams-usage-is-on-its-assistant-message",
    "test_loop_invariant[loop/the-streams-usage-is-on-its-assistant-message]",
)


class _UsageLoggedAsNull(WrongLoop):
    """An `assistant/message` whose stream reported usage is logged with `"usage": null` (the
    mutants `Agent.step` 71 and `Agent._attempt` 42): ``interrupted`` says which messages."""

    interrupted: bool = False

    def make_agent(self, **options: Any) -> Agent:
        interrupted = self.interrupted

        class Nulling(Agent):
            def append(self, type: str, data: Json, **surface: Any) -> Any:
                if (
                    type == "assistant/message"
                    and "usage" in data
                    and data.get("interrupted", False) is interrupted
                ):
                    data = {**data, "usage": None}
                return super().append(type, data, **surface)

        return Nulling(**options)


@wrong(ROOT, *_USAGE_NOT_NULL)
class AnswerUsageLoggedAsNull(_UsageLoggedAsNull):
    """A successful attempt's `assistant/message` carries `"usage": null`."""


@wrong(ROOT, *_USAGE_NOT_NULL)
class InterruptedUsageLoggedAsNull(_UsageLoggedAsNull):
    """A cancelled stream's interrupted `assistant/message` carries `"usage": null`."""

    interrupted = True


@wrong(
    ROOT,
    "test_loop_invariant[loop/hook-calls-record-the-snapshot-the-default-decision-proposes]",
    "test_loop_invariant[loop/runtime-context-unchanged-over-steps-one-snapshot]",
    "test_loop_invariant[loop/runtime-context-removed-sends-the-cleared-marker-once]",
    "test_loop_invariant[loop/runtime-context-replaced-on-the-surface-is-re-proposed]",
    "test_loop_invariant[loop/runtime-context-replaced-live-is-forgotten-and-re-proposed]",
    "test_loop_invariant[loop/runtime-context-kept-by-a-replacement-that-spares-it]",
)
class UnloggedSnapshot(WrongLoop):
    """The runtime-context snapshot is sent with the request but never logged."""

    class agent_class(Agent):
        unlogged: Json | None = None

        def propose_context(self, assembly: Assembly) -> Json | None:
            self.unlogged = super().propose_context(assembly)
            return None

        def build_request(self, turn, step, assembly, system, messages, signal):  # type: ignore
            extra = [self.unlogged] if self.unlogged is not None else []
            return super().build_request(turn, step, assembly, system, messages + extra, signal)


@wrong(
    ROOT,
    "session/replace-takes-the-place-of-its-range",
    "session/replace-range-must-be-on-the-surface-in-order",
    "session/replace-must-cite-every-shadowed-node",
    "test_surface_follows_a_plain_list_model",
    "test_a_rejected_append_changes_nothing",
)
@patched(SessionLog, "_admit")
def ReplacementGoesToTheEnd(admit, self, *args, **kwargs):
    """A surface replace removes its range but appends the new node at the end of the surface."""
    event = admit(self, *args, **kwargs)
    if isinstance(event.surface_op, SurfaceReplace):
        self._surface.remove(event.seq)
        self._surface.append(event.seq)
    return event


@wrong(
    ROOT,
    "session/source-seqs-rules",
    "session/replace-must-cite-every-shadowed-node",
    "session/tool-result-replacement-changes-only-the-block-content",
    "session/failed-append-takes-no-seq",
    "session/an-option-given-as-absent-is-not-given",
    "session/an-option-given-as-null-is-judged-by-the-surface-rules",
    "test_surface_follows_a_plain_list_model",
    "test_a_rejected_append_changes_nothing",
)
@patched(SessionLog, "_admit")
def RejectedAppendKeepsItsSeq(admit, self, type, data, *args, **kwargs):
    """A rejected append still consumes a seq (the log keeps a placeholder for it)."""
    try:
        return admit(self, type, data, *args, **kwargs)
    except Exception:
        admit(self, "x-rejected/placeholder", {}, None, None, 0, ignorable=False)
        raise


@wrong(ROOT, "session/an-option-given-as-absent-is-not-given")
@patched(session_harness, "option")
def UndefinedOptionIsNonJson(option, value):
    """A `surfaceOp` or `sourceEventSeqs` option given as JavaScript's `undefined` is judged as
    a value (`session-non-json`) instead of the option not given."""
    return value


@wrong(ROOT, "session/seed-malformed-envelope-is-session-event-invalid")
@patched(SessionLog, "_admit_seeded")
def SeedTimeMayBeAnyNumber(admit, self, index, raw):
    """A seeded event's `time` may be any number (a fraction, beyond 2^53 - 1)."""
    time = raw.get("time") if isinstance(raw, dict) else None
    if isinstance(time, (int, float)) and not isinstance(time, bool):
        raw = {**raw, "time": 0}
    admit(self, index, raw)


@wrong(
    ROOT,
    "session/seed-event-checks-come-before-seq-and-surface",
    "session/seed-malformed-message-is-session-event-invalid",
    "session/seed-message-source-needs-its-kind-and-its-fields",
    "session/seed-is-checked-event-by-event",
)
@patched(session, "_check_shape")
def SeedPayloadsUnchecked(check, type, data, where):
    """Seeded messages are not checked for their shape beyond their `data` being an object (the
    surface rules still apply)."""
    if type == "request/header" or not isinstance(data, dict):
        check(type, data, where)


@wrong(
    ROOT,
    "session/seed-malformed-header-is-session-event-invalid",
    "session/seed-legacy-header-checks-within-one-event",
)
@patched(session, "_check_shape")
def SeedHeadersUnchecked(check, type, data, where):
    """Seeded `request/header` snapshots are not checked beyond `data.header.config` being an
    object (messages still are)."""
    header = data.get("header") if isinstance(data, dict) else None
    if type != "request/header" or not _config_object(header):
        check(type, data, where)


@wrong(
    ROOT,
    "session/seed-event-checks-come-before-seq-and-surface",
    "session/seed-negative-zero-is-checked-before-seq",
)
@patched(SessionLog, "_admit_seeded")
def SeedSeqCheckedFirst(admit, self, index, raw):
    """A seeded event's well-formed `seq` is compared with its index before anything else."""
    seq = session._as_seq(raw.get("seq")) if isinstance(raw, dict) else None
    if seq is not None and seq != index:
        raise ContractError("seq-not-contiguous", f"seq {seq}, expected {index}")
    admit(self, index, raw)


@wrong(ROOT, "session/seed-keeps-an-ignorable-event")
@patched(SessionLog, "_admit_seeded")
def SeedDropsIgnorable(admit, self, index, raw):
    """A seeded event's `ignorable: true` is accepted but not kept."""
    if isinstance(raw, dict) and raw.get("ignorable") is True:
        raw = {key: value for key, value in raw.items() if key != "ignorable"}
    admit(self, index, raw)


@wrong(ROOT, "session/seed-with-end-seed-inside-gets-one-at-the-end")
@patched(SessionLog, "from_seed")
def EndSeedAnywhereInTheSeed(from_seed, events):
    """No `session/end-seed` is appended when the seed holds one anywhere, not only at its end."""
    log = SessionLog()
    for index, raw in enumerate(events):
        log._admit_seeded(index, raw)
    if not any(event.type == session.END_SEED for event in log._events):
        log.append(session.END_SEED, {}, time=0)
    log.seed_length = len(log._events)
    return log


@wrong(ROOT, "session/seed-optional-field-written-as-null-is-judged-by-the-surface-rules")
@patched(SessionLog, "_admit_seeded")
def SeedNullFieldsAsAbsent(admit, self, index, raw):
    """A seeded `surfaceOp` or `sourceEventSeqs` written as `null` is read as the field left out."""
    if isinstance(raw, dict):
        nulls = ("surfaceOp", "sourceEventSeqs")
        raw = {key: value for key, value in raw.items() if key not in nulls or value is not None}
    admit(self, index, raw)


@wrong(ROOT, "session/seed-event-that-is-not-an-object-is-session-event-invalid")
@patched(SessionLog, "from_seed")
def SeedSkipsNonObjects(from_seed, events):
    """A seeded event that is not an object is skipped instead of refused."""
    return from_seed([event for event in events if isinstance(event, dict)])


@wrong(ROOT, "session/seed-message-source-needs-its-kind-and-its-fields")
@patched(session, "_message_problem")
def AssistantSourceKindOrRoute(check, message, role, type="user/message"):
    """A seeded assistant message's source passes with `kind: "model"` *or* a provider and a
    model, where it needs both."""
    source = message.get("source") if isinstance(message, dict) else None
    if type == "assistant/message" and isinstance(source, dict):
        route = all(isinstance(source.get(k), str) and source[k] for k in ("provider", "model"))
        if source.get("kind") == "model" or route:
            source = {"kind": "model", "provider": "p", "model": "m"}
            message = {**message, "source": source}
    return check(message, role, type)


@wrong(ROOT, "session/seed-message-source-needs-its-kind-and-its-fields")
@patched(session, "_message_problem")
def ToolSourceKindOrCallId(check, message, role, type="user/message"):
    """A seeded tool result's source passes with `kind: "tool"` *or* a non-empty `callId`, where
    it needs both (the content must still name the source's `callId`)."""
    source = message.get("source") if isinstance(message, dict) else None
    if type == "tool/result" and isinstance(source, dict):
        call_id = source.get("callId")
        if source.get("kind") == "tool" or (isinstance(call_id, str) and call_id):
            content = message.get("content")
            if isinstance(content, list) and len(content) == 1:
                block = content[0]
                if isinstance(block, dict) and block.get("toolCallId") == call_id:
                    content = [{**block, "toolCallId": "stand-in"}]
            source = {**source, "kind": "tool", "callId": "stand-in"}
            message = {**message, "source": source, "content": content}
    return check(message, role, type)


@wrong(ROOT, "session/seed-payload-that-is-not-an-object-is-session-event-invalid")
@patched(session, "_check_shape")
def PayloadNotAnObjectIsNonJson(check, type, data, where):
    """A `request/header`, `assistant/message` or `tool/result` whose `data` is not an object is
    refused as `session-non-json` instead of `session-event-invalid`."""
    wrapped = ("request/header", "assistant/message", "tool/result")
    if type in wrapped and not isinstance(data, dict):
        raise ContractError("session-non-json", f"{type} data is not an object")
    check(type, data, where)


class SeedChecksKindAfterSeq(Driver):
    """A seeded event of one ``kinds`` has its seq compared with its index before its type's own
    checks (the envelope's still come first)."""

    kinds: tuple[str, ...] = ("request/header-delta", "request/header")

    def __init__(self) -> None:
        admit = SessionLog._admit_seeded
        kinds = self.kinds

        def seq_first(self, index, raw):  # type: ignore[no-untyped-def]
            kind, seq = (raw.get("type"), raw.get("seq")) if isinstance(raw, dict) else (None, None)
            if kind in kinds and isinstance(seq, int) and seq != index:
                raise ContractError("seq-not-contiguous", f"seq {seq}, expected {index}")
            admit(self, index, raw)

        SessionLog._admit_seeded = seq_first  # type: ignore[method-assign]


@wrong(ROOT, "session/seed-event-checks-come-before-seq-and-surface")
class SeedLegacyCheckedAfterSeq(SeedChecksKindAfterSeq):
    """A seeded legacy header whose seq is not its index is `seq-not-contiguous`."""


@wrong(
    ROOT,
    "session/seed-event-checks-come-before-seq-and-surface",
    "session/seed-negative-zero-is-checked-before-seq",
)
class SeedMessageShapeCheckedAfterSeq(SeedChecksKindAfterSeq):
    """A seeded message whose seq is not its index is `seq-not-contiguous`, malformed or not."""

    kinds = ("user/message", "assistant/message", "tool/result")


class _SeedNonJsonCheckedAfterSeq(Driver):
    """A seeded event's ``field`` is checked for `session-non-json` only when the event is
    admitted onto the log, after its seq was compared with its index (the mutants
    `SessionLog._admit_seeded` 15-17 and 25-35: the seed's own check reads no such field)."""

    field: str = "data"

    def __init__(self) -> None:
        check, admit_seeded, admit = (
            session._check_lossless,
            SessionLog._admit_seeded,
            SessionLog._admit,
        )
        position = ("data", "surfaceOp", "sourceEventSeqs").index(self.field)
        seeding, late = [False], []  # the seeded event's field, checked once it is admitted

        def seeded(log, index, raw):  # type: ignore[no-untyped-def]
            seeding[0] = True
            try:
                return admit_seeded(log, index, raw)
            finally:
                seeding[0] = False
                late.clear()

        def early(type, data, surface_op, source_event_seqs, where):  # type: ignore[no-untyped-def]
            values = [data, surface_op, source_event_seqs]
            if not seeding[0]:
                return check(type, *values, where)
            late.append((type, values[position], where))
            values[position] = None
            checked = check(type, *values, where)
            return frozen(data) if position == 0 else checked

        def admitted(log, type, data, *args, **kwargs):  # type: ignore[no-untyped-def]
            if late:
                ((what, value, where),) = late
                values = [None, None, None]
                values[position] = value
                checked = check(what, *values, where)
                data = checked if position == 0 else data
            return admit(log, type, data, *args, **kwargs)

        SessionLog._admit_seeded = seeded  # type: ignore[method-assign]
        SessionLog._admit = admitted  # type: ignore[method-assign]
        session._check_lossless = early


@wrong(ROOT, "session/seed-negative-zero-is-checked-before-seq")
class SeedDataNonJsonCheckedAfterSeq(_SeedNonJsonCheckedAfterSeq):
    """A seeded event with -0 in `data` whose seq is not its index is `seq-not-contiguous`."""


@wrong(ROOT, "session/seed-negative-zero-is-checked-before-seq")
class SeedSurfaceOpNonJsonCheckedAfterSeq(_SeedNonJsonCheckedAfterSeq):
    """A seeded event with -0 in `surfaceOp` whose seq is not its index is `seq-not-contiguous`."""

    field = "surfaceOp"


@wrong(ROOT, "session/seed-negative-zero-is-checked-before-seq")
class SeedCitationsNonJsonCheckedAfterSeq(_SeedNonJsonCheckedAfterSeq):
    """A seeded event with -0 in `sourceEventSeqs` whose seq is not its index is
    `seq-not-contiguous`."""

    field = "sourceEventSeqs"


def _config_object(header: Json) -> bool:
    """Whether a seeded header is an object whose `config` is an object."""
    return isinstance(header, dict) and isinstance(header.get("config"), dict)


@wrong(ROOT, "session/seed-malformed-header-is-session-event-invalid")
@patched(session, "_check_shape")
def HeaderNotAnObjectIsNonJson(check, type, data, where):
    """A seeded header, or its `config`, that is not an object is refused as `session-non-json`."""
    snapshot = data.get("header", {"config": {}}) if isinstance(data, dict) else {"config": {}}
    if type == "request/header" and not _config_object(snapshot):
        raise ContractError("session-non-json", "the header is not an object")
    check(type, data, where)


@wrong(ROOT, "session/seed-malformed-header-is-session-event-invalid")
@patched(session, "header_problem")
def UnknownAdapterDefaultsIgnored(problem, snapshot):
    """A seeded header's `adapterDefaults` is read for its two markers only: other keys are
    ignored and a value that is not an object counts as no markers."""
    if isinstance(snapshot, dict) and "adapterDefaults" in snapshot:
        markers = snapshot["adapterDefaults"]
        known = (
            {k: v for k, v in markers.items() if k in header.MARKERS}
            if isinstance(markers, dict)
            else {}
        )
        snapshot = {**snapshot, "adapterDefaults": known}
    return problem(snapshot)


class SeedBoundsExclusive(Driver):
    """A seeded `seq` or `time` of magnitude 2^53 - 1 is refused, as if the bound were exclusive."""

    #: Which envelope field the bound is wrongly exclusive for.
    field = "seq"

    def __init__(self) -> None:
        admit = SessionLog._admit_seeded
        field = self.field

        def strict(self, index, raw):  # type: ignore[no-untyped-def]
            value = raw.get(field) if isinstance(raw, dict) else None
            if isinstance(value, int) and abs(value) == session.MAX_SAFE_INTEGER:
                raise ContractError("session-event-invalid", f"{field} {value} is out of range")
            admit(self, index, raw)

        SessionLog._admit_seeded = strict  # type: ignore[method-assign]


@wrong(ROOT, "session/seed-seq-at-the-bound-is-well-formed")
class SeedSeqBoundExclusive(SeedBoundsExclusive):
    """A seeded `seq` of 2^53 - 1 is malformed (`session-event-invalid`), not well-formed."""


@wrong(ROOT, "session/seed-time-at-the-bound-is-accepted")
class SeedTimeBoundExclusive(SeedBoundsExclusive):
    """A seeded `time` of magnitude 2^53 - 1 is refused."""

    field = "time"


@wrong(ROOT, "session/empty-seed-gets-end-seed")
@patched(SessionLog, "from_seed")
def EmptySeedGetsNoEndSeed(from_seed, events):
    """`session/end-seed` is appended only after a seeded event: an empty seed gets none."""
    events = list(events)
    return from_seed(events) if events else SessionLog()


class _SeedSkipsOneAppendRule(Driver):
    """A seed is checked with every append rule but one (`skip` patches that one, given whether
    a seed is being admitted); events appended later still obey it."""

    def __init__(self) -> None:
        admit = SessionLog._admit_seeded
        depth = [0]

        def admitting(log, index, raw):  # type: ignore[no-untyped-def]
            depth[0] += 1
            try:
                admit(log, index, raw)
            finally:
                depth[0] -= 1

        SessionLog._admit_seeded = admitting  # type: ignore[method-assign]
        self.skip(lambda: depth[0] > 0)

    def skip(self, seeding: Any) -> None:
        raise NotImplementedError


@wrong(ROOT, "session/seeded-user-message-needs-a-surface-op")
class SeedSurfaceOpOptional(_SeedSkipsOneAppendRule):
    """A seeded surface-eligible event without ``surfaceOp`` is kept off the surface."""

    def skip(self, seeding: Any) -> None:
        check = session._check_surface_metadata

        def optional(type, surface_op, source_event_seqs, seq, where):  # type: ignore[no-untyped-def]
            if seeding() and surface_op is None and source_event_seqs is None:
                return None, None
            return check(type, surface_op, source_event_seqs, seq, where)

        session._check_surface_metadata = optional


@wrong(
    ROOT,
    "session/seeded-header-delta-is-legacy",
    "session/seed-event-checks-come-before-seq-and-surface",
    "session/seed-legacy-header-checks-within-one-event",
)
class SeedLegacyHeaderAccepted(_SeedSkipsOneAppendRule):
    """A seeded legacy header event is accepted (old logs load); appending one is refused."""

    def skip(self, seeding: Any) -> None:
        check = session._check_not_legacy

        def tolerant(type, data, where):  # type: ignore[no-untyped-def]
            if not seeding():
                check(type, data, where)

        session._check_not_legacy = tolerant


@wrong(ROOT, "session/seeded-replace-must-cite-what-it-shadows")
class SeedCitationsTrusted(_SeedSkipsOneAppendRule):
    """A seeded replace's ``sourceEventSeqs`` are not checked against the range it shadows."""

    def skip(self, seeding: Any) -> None:
        check = SessionLog._check_replacement

        def trusting(self, type, data, op, seqs, seq, where):  # type: ignore[no-untyped-def]
            if seeding():
                seqs = tuple(self._surface)
            return check(self, type, data, op, seqs, seq, where)

        SessionLog._check_replacement = trusting  # type: ignore[method-assign]


def _negative_float(value: Json) -> bool:
    if isinstance(value, float):
        return math.copysign(1.0, value) < 0
    if isinstance(value, dict):
        value = list(value.values())
    return isinstance(value, list) and any(map(_negative_float, value))


@wrong(ROOT, "session/zero-and-negative-numbers-are-lossless-json")
@patched(session, "frozen_lossless")
def NegativeNumbersAreNonJson(freeze, value):
    """The -0 test reads the sign bit alone: every negative non-integral number is
    `session-non-json` too, not only -0."""
    logged = freeze(value)
    if _negative_float(value):
        raise NotLossless("$ has a negative number")
    return logged


def _depth(value: Json) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@wrong(ROOT, "session/data-nested-deep-is-lossless-json")
@patched(session, "frozen_lossless")
def DeepDataIsNonJson(freeze, value):
    """Data nested more than 64 containers deep is `session-non-json`: the walk that decides a
    value outside the common shapes calls every such value not lossless (the mutants of
    `jsonvalue._problem` 1, 17 to 19, 22, 27, 29, 32 and 33)."""
    logged = freeze(value)
    if _depth(value) > 64:
        raise NotLossless("$ is nested too deep")
    return logged


def _array_cycle(value: Json, inside: frozenset[int] = frozenset()) -> bool:
    """Whether an array in ``value`` holds itself (a cycle that an object closes is not one)."""
    if not isinstance(value, (list, dict)):
        return False
    if id(value) in inside:
        return isinstance(value, list)
    items = value if isinstance(value, list) else list(value.values())
    return any(_array_cycle(item, inside | {id(value)}) for item in items)


@wrong(ROOT, "session/an-array-that-holds-itself-is-rejected")
@patched(session, "frozen_lossless")
def ArrayCyclesAreLossless(freeze, value):
    """The cycle check remembers the objects it is inside, not the arrays: a value in which an
    array holds itself is taken as lossless and logged as it is (the mutant of
    `jsonvalue._quick_frozen` 53 walks such an array without end)."""
    if _array_cycle(value):
        return value
    return freeze(value)


def _as_object(value: Json) -> Json:
    if isinstance(value, list):
        value = {str(index): item for index, item in enumerate(value)}
    if isinstance(value, dict):
        return {key: _as_object(item) for key, item in value.items()}
    return value


@wrong(ROOT, "session/tool-result-replacement-tells-an-empty-object-from-an-empty-array")
@patched(session, "strict_equal")
def DeepEqualByKeysAlone(equal, a, b):
    """The replacement's deep-equal walks the keys of both sides and never asks whether a value
    is an array: an empty array equals an empty object."""
    return equal(_as_object(a), _as_object(b))


@wrong(ROOT, "session/seed-optional-field-written-as-null-is-judged-by-the-surface-rules")
@patched(SessionLog, "_admit_seeded")
def SeedNullFieldsMalformed(admit, self, index, raw):
    """A seeded `surfaceOp` or `sourceEventSeqs` written as `null` is a malformed envelope
    (`session-event-invalid`: "an absent optional field is omitted, never `null`")."""
    if isinstance(raw, dict) and None in (raw.get("surfaceOp", 0), raw.get("sourceEventSeqs", 0)):
        raise ContractError("session-event-invalid", "an absent field is omitted, never null")
    admit(self, index, raw)


@wrong(ROOT, "session/an-option-given-as-null-is-judged-by-the-surface-rules")
@patched(SessionLog, "append")
def NullOptionIsTheOptionNotGiven(append, self, type, data, **options):
    """An append's `surfaceOp` or `sourceEventSeqs` option given as `null` is the option not
    given, as one given with an absent value is."""
    given = {key: None if value is session.NULL else value for key, value in options.items()}
    return append(self, type, data, **given)


@wrong(ROOT, "session/seed-is-checked-event-by-event")
@patched(SessionLog, "from_seed")
def SeedCheckedRuleByRule(from_seed, events):
    """A seed is checked one rule at a time over all its events: every event's payload before
    any event's `seq`, so a later event's malformed payload is reported before an earlier
    event's wrong `seq`."""
    events = list(events)
    for index, raw in enumerate(events):
        if isinstance(raw, dict) and isinstance(raw.get("type"), str) and "data" in raw:
            data = session._legacy_reason_aside(raw["type"], raw["data"])
            session._check_shape(raw["type"], data, f"seed event #{index}")
    return from_seed(events)


@wrong(ROOT, "session/seed-legacy-header-checks-within-one-event")
@patched(SessionLog, "_admit_seeded")
def LegacyDeltaCheckedAfterItsEnvelope(admit, self, index, raw):
    """A seeded `request/header-delta` has its envelope's keys checked before it is found
    legacy: one with a key beyond the envelope's is `session-event-invalid`."""
    delta = isinstance(raw, dict) and raw.get("type") == "request/header-delta"
    if delta and set(raw) - session.ENVELOPE_KEYS:
        raise ContractError("session-event-invalid", "unknown envelope key")
    admit(self, index, raw)


@wrong(ROOT, "session/seed-legacy-header-checks-within-one-event")
@patched(SessionLog, "_admit_seeded")
def FallbackHeaderLegacyBeforeItsPayload(admit, self, index, raw):
    """A seeded `request/header` with reason `fallback` is `session-legacy-header` whatever its
    envelope and payload hold."""
    data = raw.get("data") if isinstance(raw, dict) else None
    if isinstance(data, dict) and (raw["type"], data.get("reason")) == (
        "request/header",
        "fallback",
    ):
        raise ContractError("session-legacy-header", "a fallback header")
    admit(self, index, raw)


@wrong(ROOT, "session/source-seqs-rules")
@patched(session, "_parse_source_seqs")
def SourceSeqsMayCiteThemselves(parse, source_event_seqs, type, seq, where):
    """`sourceEventSeqs` are checked to be at most the event's seq, not below it: an event may
    cite itself ("each below the event's `seq`", ROOT-MODEL)."""
    return parse(source_event_seqs, type, seq + 1, where)


@wrong(ROOT, "session/seed-seq-and-time-written-with-a-zero-fraction-are-integers")
@patched(session, "_as_integer")
def IntegersMustBeWrittenWithoutAFraction(as_integer, value):
    """A number is an integer only when written without a fraction: a seeded `seq` or `time`
    written `1.0` is `session-event-invalid` (so are such replace bounds and cited seqs, refused
    by their surface rules; the mutants of `session._as_integer` 5 and 7)."""
    return None if isinstance(value, float) else as_integer(value)
