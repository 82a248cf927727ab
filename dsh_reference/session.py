"""The session log, its surface and the derived model messages (ROOT-MODEL, "The session log").

A sans-IO state machine: `SessionLog.append` validates an event against every rule of CONTRACTS.md
"The session log" and only then changes anything, so "a rejected append leaves the log, the
surface and every projection exactly as they were". Nothing here reads a clock or writes a file;
the caller supplies ``time`` and feeds appended events to whatever observes the log (the
runtime-context projection, `runtime_context.RuntimeContextProjection.observe`).

    The log is an append-only list of events `{type, seq, time, data, surfaceOp?,
    sourceEventSeqs?}` (no other keys; `ignorable` is reserved and never written by the loop);
    `seq` equals the event's index (contiguous from 0); `time` is informational and never compared.

The surface is the ordered list of visible seqs; the derived messages are the surface's events
mapped to their messages. The header in force is the fold of the `request/header` events
(PROMPT-HEADER-CANONICAL, in `header`).

Checks run in this order, the first failing one deciding the error kind (CONTRACTS.md fixes the
kinds, not their precedence): lossless JSON, legacy header formats, the event's own shape, surface
eligibility, the ``surfaceOp`` value, the ``sourceEventSeqs`` list, the replaced range, the
citations of a replace, the tool-result replacement restriction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple, TypeAlias

from .errors import ContractError
from .header import HEADER_REASONS, RequestHeader, canonical_header, header_problem
from .jsonvalue import FrozenArray, Json, NotLossless, frozen_lossless, strict_equal, thawed

#: "`user/message`, `assistant/message` or `tool/result`": the only types on the surface.
SURFACE_ELIGIBLE: Final = frozenset({"user/message", "assistant/message", "tool/result"})
#: The envelope keys a seeded event may carry (`ignorable` is reserved; only seeds hold it).
ENVELOPE_KEYS: Final = frozenset(
    {"type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs", "ignorable"}
)
END_SEED: Final = "session/end-seed"


@dataclass(frozen=True)
class SurfaceReplace:
    """``{op: "replace", start, end}``: nodes ``start`` to ``end`` give way to the event."""

    start: int
    end: int

    def to_json(self) -> dict[str, Any]:
        return {"op": "replace", "start": self.start, "end": self.end}


#: A validated ``surfaceOp``.
SurfaceOp: TypeAlias = Literal["append"] | SurfaceReplace


class SessionEvent(NamedTuple):
    """One logged event. ``data`` is the log's own copy, frozen (`jsonvalue.frozen`): read-only.

    A named tuple, immutable as the log is: made once per event, the cheapest immutable record.
    """

    type: str
    seq: int
    time: float
    data: Json
    surface_op: SurfaceOp | None = None
    source_event_seqs: tuple[int, ...] | None = None
    #: Reserved: "never written by the loop"; a seeded event may carry ``ignorable: true``.
    ignorable: bool = False

    def to_json(self) -> dict[str, Any]:
        """The envelope as JSON (the upstream's key order); absent optional fields are omitted."""
        envelope: dict[str, Any] = {
            "type": self.type,
            "seq": self.seq,
            "time": self.time,
            "data": thawed(self.data),
        }
        if self.source_event_seqs is not None:
            envelope["sourceEventSeqs"] = list(self.source_event_seqs)
        if self.surface_op is not None:
            envelope["surfaceOp"] = (
                self.surface_op if self.surface_op == "append" else self.surface_op.to_json()
            )
        if self.ignorable:
            envelope["ignorable"] = True
        return envelope

    def derived_message(self) -> Json | None:
        """The model message this event contributes when it is on the surface, or ``None``.

        "`user/message` → its data, `assistant/message` → `data.message` unless its content is
        empty, `tool/result` → `data.message`". The logged (frozen) object itself, never rebuilt.
        """
        if self.type == "user/message":
            return self.data
        if self.type == "tool/result" or (
            self.type == "assistant/message" and self.data["message"]["content"]
        ):
            return self.data["message"]
        return None


@dataclass(frozen=True)
class Replacement:
    """A replace that happened: the replacing event's ``seq``, its range, the seqs it shadowed."""

    seq: int
    start: int
    end: int
    shadowed: tuple[int, ...]


class SessionLog:
    """An append-only session log with its surface, header fold and request-context fold."""

    def __init__(self) -> None:
        self._events: list[SessionEvent] = []
        self._surface: list[int] = []
        #: The derived message of each surface node (``None`` for one that contributes none),
        #: kept in step with ``_surface``; ``_messages`` holds the same without the ``None``s, so
        #: a request costs a copy of a list of references, whatever the history. A replace sets
        #: it to ``None``, and the next reader derives it again: replaces in a row (a seed's)
        #: cost one pass over the surface, not one each.
        self._surface_messages: list[Json | None] = []
        self._messages: list[Json] | None = []
        self._replacements: list[Replacement] = []
        self._header: RequestHeader | None = None
        self._context: Json | None = None
        #: How many events came from the seed, its `session/end-seed` included (0: no seed).
        self.seed_length = 0

    @classmethod
    def from_seed(cls, events: Iterable[Mapping[str, Any]]) -> SessionLog:
        """A log built over events written by earlier runs.

        "A session built over a seed ... validates them and appends `session/end-seed` after them
        (unless the seed already ends with one)". Each seeded event must be a full envelope whose
        ``seq`` is its index (`seq-not-contiguous`) and passes every append rule. An invalid seed
        raises and builds nothing. An empty seed still gets its `session/end-seed`.
        """
        log = cls()
        for index, raw in enumerate(events):
            log._admit_seeded(index, raw)
        if not log._events or log._events[-1].type != END_SEED:
            log.append(END_SEED, {}, time=log._events[-1].time if log._events else 0)
        log.seed_length = len(log._events)
        return log

    # -- reading ------------------------------------------------------------------------------

    @property
    def events(self) -> Sequence[SessionEvent]:
        """Every event, in seq order (a read-only view)."""
        return tuple(self._events)

    def __len__(self) -> int:
        return len(self._events)

    def __getitem__(self, seq: int) -> SessionEvent:
        return self._events[seq]

    @property
    def next_seq(self) -> int:
        """The seq the next appended event gets: the log's length."""
        return len(self._events)

    @property
    def surface(self) -> tuple[int, ...]:
        """The visible seqs, in order."""
        return tuple(self._surface)

    @property
    def replacements(self) -> tuple[Replacement, ...]:
        return tuple(self._replacements)

    def to_json(self) -> list[dict[str, Any]]:
        """The log as a list of JSON envelopes (the form a seed or a JSON-lines file holds)."""
        return [event.to_json() for event in self._events]

    def messages(self) -> list[Json]:
        """The derived model messages: the surface's events mapped to their messages.

        A frozen list of the logged message objects themselves (key order kept): they are frozen
        when appended, so nobody can edit the log through them and no request copies them again.
        """
        if self._messages is None:
            self._messages = [message for message in self._surface_messages if message is not None]
        return FrozenArray(self._messages)

    def request_header(self) -> RequestHeader | None:
        """The header in force: the last `request/header` snapshot, canonicalized (read-only)."""
        return None if self._header is None else canonical_header(self._header)

    def request_context(self) -> Json | None:
        """The data of the last `request/context` event (frozen: read-only), or ``None``."""
        return self._context

    # -- appending ----------------------------------------------------------------------------

    def append(
        self,
        type: str,
        data: Json,
        *,
        surface_op: SurfaceOp | Mapping[str, Any] | None = None,
        source_event_seqs: Sequence[int] | None = None,
        time: float = 0,
    ) -> SessionEvent:
        """Validate and append one event; return it as logged.

        ``surface_op`` and ``source_event_seqs`` are the event's surface metadata as JSON (or a
        `SurfaceReplace`); ``None`` means the key is absent, `NULL` that it is given as ``null``.
        Raises `ContractError` with the session error kind of the first failing rule, having
        changed nothing.
        """
        op_json = surface_op.to_json() if isinstance(surface_op, SurfaceReplace) else surface_op
        where = f"seq {len(self._events)}"
        logged = _check_lossless(type, data, op_json, source_event_seqs, where)
        _check_not_legacy(type, logged, where)
        _check_shape(type, logged, where)
        return self._admit(type, logged, op_json, source_event_seqs, time, ignorable=False)

    def _admit_seeded(self, index: int, raw: Mapping[str, Any]) -> None:
        """One seeded event, through every check before the next event's ("The seed is checked
        event by event, each event through all of these before the next"), in CONTRACTS.md's
        order: "A seed is checked for `session-non-json` first, then for these
        [`session-event-invalid`] (and `session-legacy-header`), then for `seq-not-contiguous`,
        then against the surface rules" (`_admit`). "Within one event, a `request/header-delta`
        is `session-legacy-header` before its envelope is checked, and a `request/header` whose
        envelope or payload is malformed is `session-event-invalid` even when its reason is
        `fallback`"."""
        where = f"seed event #{index}"
        if not isinstance(raw, dict):
            raise _invalid(where, "an event is a JSON object")
        type = raw.get("type")
        op, seqs = surface_field(raw, "surfaceOp"), surface_field(raw, "sourceEventSeqs")
        logged = _check_lossless(str(type), raw.get("data"), op, seqs, where)
        if type == "request/header-delta":
            _check_not_legacy(type, logged, where)
        if not ENVELOPE_KEYS.issuperset(raw):
            raise _invalid(where, f"unknown envelope key(s) {sorted(set(raw) - ENVELOPE_KEYS)}")
        if "data" not in raw:
            raise _invalid(where, "no `data`")
        if not isinstance(type, str):
            raise _invalid(where, "`type` must be a string")
        seq, time = _as_seq(raw.get("seq")), _as_integer(raw.get("time"))
        if seq is None or seq > MAX_SAFE_INTEGER:
            raise _invalid(
                where, f"`seq` must be an integer in 0..2^53 - 1, got {raw.get('seq')!r}"
            )
        if time is None or abs(time) > MAX_SAFE_INTEGER:
            raise _invalid(
                where,
                f"`time` must be an integer of magnitude <= 2^53 - 1, got {raw.get('time')!r}",
            )
        if raw.get("ignorable", True) is not True:
            raise _invalid(where, "`ignorable`, when present, is `true`")
        _check_shape(type, _legacy_reason_aside(type, logged), where)
        _check_not_legacy(type, logged, where)
        if seq != index:
            raise ContractError(
                "seq-not-contiguous", f"{where} has seq {seq!r}, expected {index}", where=where
            )
        self._admit(type, logged, op, seqs, time, ignorable="ignorable" in raw)

    def _admit(
        self,
        type: str,
        data: Json,
        surface_op: Json,
        source_event_seqs: Json,
        time: float,
        *,
        ignorable: bool,
    ) -> SessionEvent:
        """The rules that read the log (the surface metadata, the replaced range), then the append.

        The caller has run the event's own checks once (lossless JSON, legacy header formats, its
        shape; for a seed, the envelope's too), and ``data`` is the log's frozen copy of it.
        """
        seq = len(self._events)
        where = f"seq {seq}"
        op, seqs = _check_surface_metadata(type, surface_op, source_event_seqs, seq, where)
        replacement = self._check_replacement(type, data, op, seqs, seq, where)
        # Everything is validated: from here on nothing can fail.
        event = SessionEvent(type, seq, time, data, op, seqs, ignorable)
        self._events.append(event)
        if op == "append":
            # "`append` adds the event at the end".
            self._surface.append(seq)
            message = event.derived_message()
            self._surface_messages.append(message)
            if message is not None and self._messages is not None:
                self._messages.append(message)
        elif replacement is not None:
            # "a replace removes the nodes from `start` to `end` inclusive and puts the new event
            # in their place".
            first = self._surface.index(replacement.start)
            shadowed = slice(first, first + len(replacement.shadowed))
            self._surface[shadowed] = [seq]
            self._surface_messages[shadowed] = [event.derived_message()]
            self._messages = None
            self._replacements.append(replacement)
        if type == "request/header":
            self._header = canonical_header(event.data["header"])
        elif type == "request/context":
            self._context = event.data
        return event

    def _check_replacement(
        self,
        type: str,
        data: Json,
        op: SurfaceOp | None,
        seqs: tuple[int, ...] | None,
        seq: int,
        where: str,
    ) -> Replacement | None:
        """The replacement a replace op would make, validated without changing anything."""
        if not isinstance(op, SurfaceReplace):
            return None
        first, last = _position(self._surface, op.start), _position(self._surface, op.end)
        if first is None or last is None or first > last:
            raise ContractError(
                "surface-replace-invalid",
                f"{where}: replace {op.start}..{op.end} needs both seqs on the surface, start "
                f"first (surface: {self._surface})",
                where=where,
            )
        shadowed = tuple(self._surface[first : last + 1])
        # "`sourceEventSeqs` ... for a replace — not covering every shadowed surface node".
        missing = [node for node in shadowed if node not in (seqs or ())]
        if missing:
            raise ContractError(
                "source-seqs-invalid",
                f"{where}: a replace must cite every shadowed surface node; missing {missing}",
                where=where,
            )
        if type == "tool/result":
            self._check_tool_result_replacement(data, shadowed, where)
        return Replacement(seq, op.start, op.end, shadowed)

    def _check_tool_result_replacement(
        self, data: Json, shadowed: tuple[int, ...], where: str
    ) -> None:
        """ "a `tool/result` replacement that shadows anything but exactly one `tool/result`, or
        changes anything but `data.message.content[0].content`" is `tool-result-replace-invalid`.
        """
        if len(shadowed) != 1 or self._events[shadowed[0]].type != "tool/result":
            raise ContractError(
                "tool-result-replace-invalid",
                f"{where}: a tool/result replacement must shadow exactly one tool/result "
                f"(it shadows {list(shadowed)})",
                where=where,
            )
        original = self._events[shadowed[0]].data
        if not strict_equal(_without_result_content(original), _without_result_content(data)):
            raise ContractError(
                "tool-result-replace-invalid",
                f"{where}: a tool/result replacement may change only the tool-result block's "
                f"content; the rest must equal seq {shadowed[0]}'s",
                where=where,
            )


def loop_instance_starts(events: Sequence[SessionEvent]) -> list[int]:
    """Where loop instances start, offline: "at the beginning of the log and right after each
    `session/end-seed`" (a start equal to ``len(events)`` is an instance that logged nothing yet).
    """
    return [0] + [event.seq + 1 for event in events if event.type == END_SEED]


# -- the rules, one function each ------------------------------------------------------------


class GivenNull:
    """A `surfaceOp` or `sourceEventSeqs` given as JSON ``null``, apart from the field left out
    (``None``). CONTRACTS.md, "The session log": "one given as `null` is given, and the surface
    rules judge it (`surface-op-forbidden` on a type that may not carry it, else
    `surface-replace-invalid` for a `surfaceOp`, `source-seqs-invalid` for `sourceEventSeqs`),
    not `session-event-invalid`"."""

    def __repr__(self) -> str:
        return "null"


#: The one `GivenNull`.
NULL: Final = GivenNull()


def surface_field(event: Mapping[str, Any], key: str) -> Json:
    """An event's ``surfaceOp`` or ``sourceEventSeqs`` as an append takes it: ``None`` when the
    event leaves it out, `NULL` when it holds ``null``."""
    return NULL if key in event and event[key] is None else event.get(key)


def _check_lossless(
    type: str, data: Json, surface_op: Json, source_event_seqs: Json, where: str
) -> Json:
    """`session-non-json`: "`data` or the surface metadata is not lossless JSON".

    Returns ``data`` frozen: the log's own copy, made by the one walk that checks it.
    """
    logged = _lossless(type, "data", data, where)
    # The surface metadata is parsed, not kept, and mostly absent (``None``); one given as
    # ``null`` (`NULL`) is lossless, and left to the surface rules.
    for what, value in (("surfaceOp", surface_op), ("sourceEventSeqs", source_event_seqs)):
        if value is not None and value is not NULL:
            _lossless(type, what, value, where)
    return logged


def _lossless(type: str, what: str, value: Json, where: str) -> Json:
    """``value`` frozen, or `session-non-json` naming where it is not lossless JSON."""
    try:
        return frozen_lossless(value)
    except NotLossless as problem:
        raise ContractError(
            "session-non-json",
            f"{where}: {type} {what} is not lossless JSON: {str(problem).replace('$', what, 1)}",
            where=where,
        ) from None


def _check_not_legacy(type: str, data: Json, where: str) -> None:
    """`session-legacy-header`: "a `request/header-delta` event, or a `request/header` with reason
    `fallback`"."""
    if type == "request/header-delta" or (
        type == "request/header" and isinstance(data, dict) and data.get("reason") == "fallback"
    ):
        raise ContractError(
            "session-legacy-header",
            f"{where}: {type} uses the unsupported legacy header format",
            where=where,
        )


def _legacy_reason_aside(type: str, data: Json) -> Json:
    """A seeded event's ``data`` as its shape is checked: a `request/header`'s reason `fallback`
    read as a current one, since `_check_not_legacy` judges it after the shape."""
    if type == "request/header" and isinstance(data, dict) and data.get("reason") == "fallback":
        return {**data, "reason": "change"}
    return data


def _check_shape(type: str, data: Json, where: str) -> None:
    """The shapes the folds read (`session-event-invalid`; CONTRACTS.md lists them for seeds).

    The message checks are the upstream's seed checks (`upstream/loop-and-session.md` §1.6, §1.7),
    applied to every append here: the surface fold and the header fold read these fields, and a
    conforming loop never writes anything else.
    """
    problem: str | None = None
    if type == "request/header":
        if not isinstance(data, dict) or data.get("reason") not in HEADER_REASONS:
            problem = f"request/header data is {{header, reason}} with reason in {HEADER_REASONS}"
        else:
            problem = header_problem(data.get("header"))
    elif type == "user/message":
        problem = _message_problem(data, "user")
    elif type in ("assistant/message", "tool/result"):
        if not isinstance(data, dict):
            problem = f"{type} data must be an object"
        else:
            role = "assistant" if type == "assistant/message" else "user"
            problem = _message_problem(data.get("message"), role, type)
    if problem is not None:
        raise _invalid(where, f"{type}: {problem}")


def _message_problem(message: Json, role: str, type: str = "user/message") -> str | None:
    if not isinstance(message, dict):
        return "the message must be an object"
    if not _non_empty_string(message.get("id")):
        return "the message needs a non-empty string id"
    if message.get("role") != role:
        return f"the message role must be {role!r}"
    source = message.get("source")
    if not isinstance(source, dict) or not _non_empty_string(source.get("kind")):
        return "the message source needs a non-empty string kind"
    content = message.get("content")
    if not isinstance(content, list):
        return "the message content must be a list"
    if type == "assistant/message" and not (
        source["kind"] == "model"
        and all(_non_empty_string(source.get(key)) for key in ("provider", "model"))
    ):
        return "an assistant message's source is {kind: 'model', provider, model}"
    if type == "tool/result":
        call_id = source.get("callId")
        if source["kind"] != "tool" or not _non_empty_string(call_id):
            return "a tool result's source is {kind: 'tool', callId}"
        if not (
            len(content) == 1
            and isinstance(content[0], dict)
            and content[0].get("type") == "tool-result"
            and content[0].get("toolCallId") == call_id
        ):
            return "a tool result's content is exactly one tool-result block for its callId"
    return None


def _non_empty_string(value: Json) -> bool:
    return isinstance(value, str) and value != ""


def _check_surface_metadata(
    type: str, surface_op: Json, source_event_seqs: Json, seq: int, where: str
) -> tuple[SurfaceOp | None, tuple[int, ...] | None]:
    """Eligibility, the ``surfaceOp`` value and the ``sourceEventSeqs`` list, parsed."""
    if type not in SURFACE_ELIGIBLE:
        # "`surface-op-forbidden`: any other type carrying `surfaceOp` or `sourceEventSeqs`".
        if surface_op is not None or source_event_seqs is not None:
            raise ContractError(
                "surface-op-forbidden",
                f"{where}: {type} is not surface-eligible and cannot carry "
                f"{'surfaceOp' if surface_op is not None else 'sourceEventSeqs'}",
                where=where,
            )
        return None, None
    if surface_op is None:
        raise ContractError(
            "surface-op-required",
            f"{where}: {type} is surface-eligible and requires a surfaceOp",
            where=where,
        )
    return _parse_surface_op(surface_op, where), _parse_source_seqs(
        source_event_seqs, type, seq, where
    )


def _parse_surface_op(surface_op: Json, where: str) -> SurfaceOp:
    """ "`surfaceOp` is the string `"append"` or an object with exactly the keys `{op: "replace",
    start, end}` (non-negative integer seqs)"."""
    if surface_op == "append":
        return "append"
    if (
        isinstance(surface_op, dict)
        and set(surface_op) == {"op", "start", "end"}
        and surface_op["op"] == "replace"
    ):
        start, end = _as_seq(surface_op["start"]), _as_seq(surface_op["end"])
        if start is not None and end is not None:
            return SurfaceReplace(start, end)
    raise ContractError(
        "surface-replace-invalid",
        f"{where}: surfaceOp {surface_op!r} is neither 'append' nor "
        "{op: 'replace', start, end} with non-negative integer seqs",
        where=where,
    )


def _parse_source_seqs(
    source_event_seqs: Json, type: str, seq: int, where: str
) -> tuple[int, ...] | None:
    """ "`sourceEventSeqs` is a list of distinct non-negative integers, each below the event's
    `seq`"; "empty (allowed on `assistant/message` only)"."""
    if source_event_seqs is None:
        return None
    problem = None
    if not isinstance(source_event_seqs, list):
        problem = "must be a list"
    elif not source_event_seqs and type != "assistant/message":
        problem = "must not be empty except on assistant/message"
    else:
        seqs = [_as_seq(value) for value in source_event_seqs]
        if any(value is None or value >= seq for value in seqs):
            problem = f"must hold non-negative integers below {seq}"
        elif len(set(seqs)) != len(seqs):
            problem = "must not repeat a seq"
        else:
            return tuple(value for value in seqs if value is not None)
    raise ContractError(
        "source-seqs-invalid",
        f"{where}: sourceEventSeqs {source_event_seqs!r} {problem}",
        where=where,
    )


#: JavaScript's `Number.MAX_SAFE_INTEGER`, 2^53 - 1: the bound of a seeded `seq` and `time`.
MAX_SAFE_INTEGER: Final = 2**53 - 1


def _as_integer(value: Json) -> int | None:
    """An integer as JSON numbers carry it (``2.0`` is 2; a bool is none), else ``None``."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    return int(value)


def _as_seq(value: Json) -> int | None:
    """A non-negative integer as JSON numbers carry it (``2.0`` is the integer 2), else ``None``."""
    integer = _as_integer(value)
    return integer if integer is not None and integer >= 0 else None


def _position(surface: list[int], seq: int) -> int | None:
    """Where ``seq`` is on the surface (a list search, like the upstream's ``indexOf``)."""
    try:
        return surface.index(seq)
    except ValueError:
        return None


def _without_result_content(data: Json) -> Json:
    """tool/result data with the tool-result block's own ``content`` left out (a new value)."""
    message = data["message"]
    block = {key: value for key, value in message["content"][0].items() if key != "content"}
    return {**data, "message": {**message, "content": [block]}}


def _invalid(where: str, message: str) -> ContractError:
    return ContractError("session-event-invalid", f"{where}: {message}", where=where)
