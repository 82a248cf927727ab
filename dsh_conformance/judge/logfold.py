"""The suite's own fold of a session log: derived messages, the header in force, and violations.

Independent of `dsh_reference/` on purpose: the suite must judge any implementation's log — and the
reference's — from CONTRACTS.md alone. `LogFold` reads events one at a time (``add``), so a caller
can look at the surface, the derived messages and the header at any point (LOGGEDLOOP-REQUEST-
INVARIANT compares each request with the log as it was at dispatch); `fold_log` folds a whole log.

A violating event stays in the log (its seq is taken) but, as a rejected append would, changes
nothing: a surface rule it breaks keeps it off the surface, and a malformed header is not folded.

The rules, each reported with the event's seq, a rule name and its contract ID (`RULES`):

- the envelope and seqs (ROOT-MODEL, "The session log"): `{type, seq, time, data, surfaceOp?,
  sourceEventSeqs?}` and the reserved `ignorable`, nothing else; an absent field omitted, never
  null; `seq` equal to the index; lossless JSON; no legacy header format;
- the surface: eligibility, `surfaceOp`, `sourceEventSeqs`, the replaced range, the citations of a
  replace, the tool-result replacement restriction — one rule name per error kind of CONTRACTS.md;
- the payloads the folds read, and (in what a loop wrote) no optional payload field written as
  null (`payload-shape`); event types outside the core vocabulary pass;
- header snapshots (PROMPT-HEADER-CANONICAL) and when they are written (LOOP-REQUEST-BUILD,
  PROMPT-HEADER-CHANGE-TEST): a loop instance's first header is `initial` if the log had none,
  else `resume`; later ones are `change` and differ from the folded header; a `request/context`
  equal to the last one is not written;
- model output (`assistant/chunk`, `assistant/message`) "proves a request was sent", so it needs a
  `request/header` of its loop instance before it (ROOT-MODEL) and an open step (LOGGEDLOOP-
  REQUEST-INVARIANT: "its `step/start` is logged and its `step/end` is not");
- runtime-context messages (LOOP-RUNTIME-CONTEXT): an owned message is a snapshot
  (`form: "snapshot"`, its sections, the preamble and their texts) or the cleared marker, and an
  appended one is never what the projection would not propose (its retained text again, or the
  cleared marker when no snapshot was ever seen).

Loop instances start at the beginning of the log and right after each `session/end-seed`.

Seeded events (the first ``seeded`` ones: written by an earlier run, another implementation or a
person) are judged by the append rules only ("The session log": the envelope, lossless JSON, the
legacy header, the surface, and the message and header payloads of `session-event-invalid`); the
rules about what a loop writes (headers and contexts, steps, runtime-context messages) judge only
the events a loop instance wrote. Seeded events still give the state a loop starts from: the
surface, the folded header and context, and the runtime-context projection.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from ..scenarios.scenario import (
    RUNTIME_CONTEXT_CLEARED,
    RUNTIME_CONTEXT_OWNER,
    RUNTIME_CONTEXT_PREAMBLE,
)
from . import headers
from .jsontext import dumps
from .jsonvalues import lossless_problem, strict_equal

Json = Any

#: Every rule the fold checks, and the contract it belongs to.
RULES: Final = {
    "envelope": "ROOT-MODEL",
    "seq-not-contiguous": "ROOT-MODEL",
    "session-non-json": "ROOT-MODEL",
    "session-legacy-header": "ROOT-MODEL",
    "surface-op-required": "ROOT-MODEL",
    "surface-op-forbidden": "ROOT-MODEL",
    "surface-replace-invalid": "ROOT-MODEL",
    "source-seqs-invalid": "ROOT-MODEL",
    "tool-result-replace-invalid": "ROOT-MODEL",
    "payload-shape": "ROOT-MODEL",
    "request-header-missing": "ROOT-MODEL",
    "step-not-open": "LOGGEDLOOP-REQUEST-INVARIANT",
    "header-snapshot": "PROMPT-HEADER-CANONICAL",
    "header-reason": "LOOP-REQUEST-BUILD",
    "header-unchanged": "PROMPT-HEADER-CHANGE-TEST",
    "context-unchanged": "LOOP-REQUEST-BUILD",
    "runtime-context-message": "LOOP-RUNTIME-CONTEXT",
    "runtime-context-unchanged": "LOOP-RUNTIME-CONTEXT",
}

SURFACE_ELIGIBLE: Final = ("user/message", "assistant/message", "tool/result")
ENVELOPE_REQUIRED: Final = ("type", "seq", "time", "data")
ENVELOPE_OPTIONAL: Final = ("surfaceOp", "sourceEventSeqs", "ignorable")
_REQUIRED_KEYS: Final = frozenset(ENVELOPE_REQUIRED)
_ENVELOPE_KEYS: Final = frozenset((*ENVELOPE_REQUIRED, *ENVELOPE_OPTIONAL))
END_SEED: Final = "session/end-seed"
MODEL_OUTPUT: Final = ("assistant/chunk", "assistant/message")
NEVER_SEEN: Final = "never-seen"
NONE_RETAINED: Final = "none-retained"


@dataclass(frozen=True)
class Violation:
    """One broken rule: the event's ``seq`` (its index in the log), the rule, and what is wrong."""

    seq: int
    rule: str
    message: str

    @property
    def contract(self) -> str:
        return RULES[self.rule]

    def __str__(self) -> str:
        return f"seq {self.seq}: {self.rule} ({self.contract}): {self.message}"


class _Broken(Exception):
    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule

    def violation(self, seq: int) -> Violation:
        return Violation(seq, self.rule, str(self))


@dataclass(frozen=True)
class Retained:
    """The runtime-context projection's baseline: an owned message's seq and its text."""

    seq: int
    text: str | None


@dataclass
class LogFold:
    """A session log folded event by event."""

    events: list[Json] = field(default_factory=list)
    #: The visible seqs, in order.
    surface: list[int] = field(default_factory=list)
    #: The header in force (canonical), or ``None`` before the first `request/header`.
    header: Json | None = None
    #: The data of the last `request/context`.
    context: Json | None = None
    violations: list[Violation] = field(default_factory=list)
    #: How many leading events were seeded: judged by the append rules only (`seeded_length`).
    seeded: int = 0
    #: Where each loop instance starts: 0, and the seq after each `session/end-seed`.
    instance_starts: list[int] = field(default_factory=lambda: [0])
    _admitted: list[bool] = field(default_factory=list)
    _instance_has_header: bool = False
    _open_steps: set[tuple[Json, Json]] = field(default_factory=set)
    _retained: Retained | str = NEVER_SEEN
    #: When false, `events` keeps of each event only what a later rule reads again (`_kept`): a
    #: long log (``check-log``) holds a few bytes a message, not the messages. `messages` then
    #: cannot be derived.
    keep_events: bool = True
    #: Judge every event's envelope as a seed's (``check-log``: a recorded log is what a later
    #: run seeds): ``time`` an integer of magnitude at most 2^53 - 1, as `session-event-invalid`
    #: requires (``seq`` is its index, and lossless JSON: never ``-0``). A loop's own ``time`` is
    #: informational and not judged.
    seed_envelope: bool = False
    #: An event of this loop instance could not be read: the rules that read the instance's
    #: history (headers, steps, runtime context) are not judged past it, so a line that is not
    #: JSON is reported once, not as every later event's violation too.
    _blind: bool = False
    #: Some event could not be read: "no header before it" is not known any more.
    _unread: bool = False

    def add(self, event: Json, lossless: bool = False) -> list[Violation]:
        """Fold one more event; return (and keep) the violations it brings. ``lossless``: the
        caller knows the event is lossless JSON (``check-log`` parsed it and saw only integers
        among its numbers), so it is not walked again to find out (`session-non-json`)."""
        seq = len(self.events)
        if self.instance_starts[-1] == seq:
            self._start_instance()
        found: list[Violation] = []
        written = seq >= self.seeded  # by a loop instance, so the loop's rules judge it too
        # An event breaking these rules is one a conforming session would have refused to
        # append: it is kept (its seq is taken) but changes nothing.
        try:
            self._envelope(event, seq)
            if self.seed_envelope:
                _seed_envelope(event)
            self._content(event, written, lossless)
            if event["type"] in SURFACE_ELIGIBLE:
                self._surface_op(event, seq)
        except _Broken as broken:
            found.append(broken.violation(seq))
            admitted = False
        else:
            admitted = True
        self.events.append(event)
        self._admitted.append(admitted)
        if admitted and not written:
            self._follow_seeded(event)
        elif admitted:
            # The loop's rules: each judges the event on its own, and each break is reported.
            rules = (self._optional_fields, self._requests, self._steps, self._runtime_context)
            for rule in rules[:1] if self._blind else rules:
                try:
                    rule(event)
                except _Broken as broken:
                    found.append(broken.violation(seq))
        if admitted:
            self._follow_projection(event, seq)
            if event["type"] == END_SEED:
                self.instance_starts.append(seq + 1)
        if not self.keep_events:
            self.events[seq] = _kept(event) if admitted else None
        self.violations += found
        return found

    @property
    def open_steps(self) -> frozenset[tuple[Json, Json]]:
        """The ``(turn, step)`` pairs whose `step/start` is logged and whose `step/end` is not."""
        return frozenset(self._open_steps)

    @property
    def instance_has_header(self) -> bool:
        """Whether the current loop instance has logged a `request/header` yet."""
        return self._instance_has_header

    def add_unreadable(self) -> None:
        """Take the next seq for an event that could not be read at all (a line that is not
        JSON): it changes nothing, and whoever read it reports why."""
        if self.instance_starts[-1] == len(self.events):
            self._start_instance()
        self.events.append(None)
        self._admitted.append(False)
        self._blind = self._unread = True

    def messages(self) -> list[Json]:
        """The derived model messages of the surface as it is now (copies, key order kept)."""
        if not self.keep_events:
            raise ValueError("a fold that keeps no events (keep_events=False) derives no messages")
        derived = (_derived_message(self.events[seq]) for seq in self.surface)
        return [copy.deepcopy(message) for message in derived if message is not None]

    # -- envelope, JSON, shapes ---------------------------------------------------------------

    @staticmethod
    def _envelope(event: Json, seq: int) -> None:
        if not isinstance(event, dict):
            raise _Broken("envelope", f"an event is a JSON object, got {_show(event)}")
        # Set tests on every event (every required key, only envelope keys, no optional one
        # null); the message is built for a broken envelope only.
        keys = event.keys()
        if not _REQUIRED_KEYS <= keys <= _ENVELOPE_KEYS or (
            len(keys) > len(_REQUIRED_KEYS) and None in map(event.get, keys - _REQUIRED_KEYS)
        ):
            unknown = sorted(keys - _ENVELOPE_KEYS)
            missing = [key for key in ENVELOPE_REQUIRED if key not in event]
            nulls = [key for key in ENVELOPE_OPTIONAL if key in event and event[key] is None]
            raise _Broken(
                "envelope",
                "; ".join(
                    part
                    for part in (
                        unknown and f"unknown key(s) {unknown}",
                        missing and f"missing key(s) {missing}",
                        nulls and f"{nulls} written as null (an absent field is omitted)",
                    )
                    if part
                ),
            )
        if _as_seq(event["seq"]) != seq:
            raise _Broken("seq-not-contiguous", f"seq is {_show(event['seq'])}, expected {seq}")
        if not isinstance(event["type"], str) or not event["type"]:
            raise _Broken("envelope", "type must be a non-empty string")
        time = event["time"]
        if isinstance(time, bool) or not isinstance(time, (int, float)):
            raise _Broken("envelope", f"time must be a number, got {_show(time)}")
        if event.get("ignorable", True) is not True:
            raise _Broken("envelope", "ignorable, when present, is true")

    @staticmethod
    def _content(event: Json, written: bool, lossless: bool) -> None:
        if not lossless:
            for key in ("seq", "time", "data", "surfaceOp", "sourceEventSeqs"):
                problem = lossless_problem(event.get(key), key)
                if problem is not None:
                    raise _Broken("session-non-json", f"not lossless JSON: {problem}")
        type_, data = event["type"], event["data"]
        if type_ == "request/header-delta" or (
            type_ == "request/header"
            and isinstance(data, dict)
            and data.get("reason") == "fallback"
        ):
            raise _Broken("session-legacy-header", f"{type_} in the legacy header format")
        problem = _payload_problem(type_, data) if written else _seeded_payload_problem(type_, data)
        if problem is not None:
            raise _Broken("payload-shape", f"{type_}: {problem}")
        if type_ == "request/header":
            if written and data["reason"] not in headers.REASONS:
                raise _Broken("header-snapshot", f"unknown reason {_show(data['reason'])}")
            problem = headers.snapshot_problem(data["header"])
            if problem is not None:
                raise _Broken("header-snapshot", problem)
        if type_ not in SURFACE_ELIGIBLE:
            if "surfaceOp" in event or "sourceEventSeqs" in event:
                present = [key for key in ("surfaceOp", "sourceEventSeqs") if key in event]
                raise _Broken(
                    "surface-op-forbidden", f"{type_} is not surface-eligible but carries {present}"
                )
        elif "surfaceOp" not in event:
            raise _Broken("surface-op-required", f"{type_} is surface-eligible: surfaceOp needed")

    @staticmethod
    def _optional_fields(event: Json) -> None:
        """What a loop wrote never holds an optional payload field as null ("an absent optional
        field is omitted, never `null`"). Reported without refusing the event: what the folds
        read of it is intact, so the rules after this one still judge it."""
        optional = _PAYLOAD_OPTIONAL.get(event["type"])
        if optional is None:  # most events: a type without optional fields
            return
        data = event["data"]
        nulls = [key for key in optional if data.get(key, 0) is None]
        if nulls:
            raise _Broken(
                "payload-shape",
                f"{event['type']}: {nulls} written as null (an absent field is omitted)",
            )

    # -- the surface --------------------------------------------------------------------------

    def _surface_op(self, event: Json, seq: int) -> None:
        op, type_ = event["surfaceOp"], event["type"]
        is_replace = (
            isinstance(op, dict)
            and set(op) == {"op", "start", "end"}
            and op["op"] == "replace"
            and _as_seq(op["start"]) is not None
            and _as_seq(op["end"]) is not None
        )
        if op != "append" and not is_replace:
            raise _Broken(
                "surface-replace-invalid",
                f"surfaceOp {_show(op)} is neither 'append' nor {{op: 'replace', start, end}}",
            )
        cited = self._citations(event, seq)
        if op == "append":
            self.surface.append(seq)
            return
        start, end = _as_seq(op["start"]), _as_seq(op["end"])
        if start not in self.surface or end not in self.surface:
            raise _Broken(
                "surface-replace-invalid",
                f"replace {start}..{end}: both must be on the surface {self.surface}",
            )
        first, last = self.surface.index(start), self.surface.index(end)
        if first > last:
            raise _Broken("surface-replace-invalid", f"replace {start}..{end}: start after end")
        shadowed = self.surface[first : last + 1]
        missing = [node for node in shadowed if node not in cited]
        if missing:
            raise _Broken(
                "source-seqs-invalid", f"a replace must cite every shadowed node; missing {missing}"
            )
        if type_ == "tool/result":
            self._tool_result_replacement(event, shadowed)
        self.surface[first : last + 1] = [seq]

    @staticmethod
    def _citations(event: Json, seq: int) -> list[int]:
        if "sourceEventSeqs" not in event:
            return []
        cited = event["sourceEventSeqs"]
        if not isinstance(cited, list):
            raise _Broken("source-seqs-invalid", f"sourceEventSeqs {_show(cited)} is not a list")
        if not cited and event["type"] != "assistant/message":
            raise _Broken("source-seqs-invalid", "empty sourceEventSeqs (assistant/message only)")
        seqs = [_as_seq(value) for value in cited]
        if any(value is None or value >= seq for value in seqs):
            raise _Broken(
                "source-seqs-invalid",
                f"sourceEventSeqs {_show(cited)} must be non-negative integers below {seq}",
            )
        if len(set(seqs)) != len(seqs):
            raise _Broken("source-seqs-invalid", f"sourceEventSeqs {_show(cited)} repeats a seq")
        return [value for value in seqs if value is not None]

    def _tool_result_replacement(self, event: Json, shadowed: list[int]) -> None:
        if len(shadowed) != 1 or self.events[shadowed[0]]["type"] != "tool/result":
            raise _Broken(
                "tool-result-replace-invalid",
                f"a tool/result replacement must shadow exactly one tool/result, not {shadowed}",
            )
        before = _without_block_content(self.events[shadowed[0]]["data"])
        if not strict_equal(before, _without_block_content(event["data"])):
            raise _Broken(
                "tool-result-replace-invalid",
                f"only the tool-result block's content may change; the rest must equal seq "
                f"{shadowed[0]}'s",
            )

    # -- requests, steps ----------------------------------------------------------------------

    def _follow_seeded(self, event: Json) -> None:
        """What a seeded event gives the loop that starts after it: the header and context in
        force (no loop rule judges it)."""
        type_, data = event["type"], event["data"]
        if type_ == "request/header":
            self.header = headers.canonical(data["header"])
        elif type_ == "request/context":
            self.context = copy.deepcopy(data) if isinstance(data, dict) else None

    def _requests(self, event: Json) -> None:
        type_, data = event["type"], event["data"]
        if type_ == "request/header":
            self._header_written(data)
        elif type_ == "request/context":
            last, self.context = self.context, copy.deepcopy(data)
            if last is not None and all(
                strict_equal(last.get(key), data.get(key))
                for key in ("provider", "model", "contextWindow")
            ):
                raise _Broken("context-unchanged", "equal to the last request/context")
        elif type_ in MODEL_OUTPUT and not self._instance_has_header:
            raise _Broken(
                "request-header-missing",
                f"{type_} shows a request was sent, but this loop instance (from seq "
                f"{self.instance_starts[-1]}) logged no request/header before it",
            )

    def _header_written(self, data: Json) -> None:
        reason, folded = data["reason"], self.header
        first_of_instance = not self._instance_has_header
        self.header = headers.canonical(data["header"])
        self._instance_has_header = True
        if first_of_instance:
            expected = "initial" if folded is None else "resume"
            if reason != expected and not (folded is None and self._unread):
                raise _Broken(
                    "header-reason",
                    f"a loop instance's first header is {expected!r} "
                    f"({'no' if folded is None else 'a'} header before it), not {reason!r}",
                )
            return
        if reason != "change":
            raise _Broken(
                "header-reason", f"a later header of a loop instance is 'change', not {reason!r}"
            )
        if folded is not None and not headers.differences(folded, data["header"]):
            raise _Broken("header-unchanged", "a 'change' header equal to the folded header")

    def _steps(self, event: Json) -> None:
        type_, data = event["type"], event["data"]
        if type_ == "step/start":
            self._open_steps.add(_step_key(data))
        elif type_ == "step/end":
            self._open_steps.discard(_step_key(data))
        elif type_ in MODEL_OUTPUT and _step_key(data) not in self._open_steps:
            raise _Broken(
                "step-not-open",
                f"{type_} of turn {_show(data['turn'])} step {_show(data['step'])}, "
                "which is not open",
            )

    # -- runtime context ----------------------------------------------------------------------

    def _start_instance(self) -> None:
        """A loop instance starts: no header of its own yet; the projection restores."""
        self._instance_has_header = False
        self._blind = False
        visible = set(self.surface)
        self._retained = NEVER_SEEN
        for seq in reversed(range(len(self.events))):
            event = self.events[seq]
            if self._admitted[seq] and _is_owned_user_message(event):
                if seq in visible:
                    self._retained = Retained(seq, _single_text(event["data"]))
                    return
                self._retained = NONE_RETAINED

    def _runtime_context(self, event: Json) -> None:
        if not _is_owned_user_message(event):
            return
        message = event["data"]
        text, source = _single_text(message), message["source"]
        if "form" not in source and "sections" not in source:
            if text != RUNTIME_CONTEXT_CLEARED:
                raise _Broken(
                    "runtime-context-message",
                    "an owned message without form is the cleared marker, as one text block",
                )
        else:
            problem = _snapshot_problem(text, source)
            if problem is not None:
                raise _Broken("runtime-context-message", problem)
        if event["surfaceOp"] != "append":
            return
        retained = self._retained
        if retained == NEVER_SEEN and text == RUNTIME_CONTEXT_CLEARED:
            raise _Broken(
                "runtime-context-unchanged",
                "the cleared marker, though no runtime-context snapshot was ever seen",
            )
        if isinstance(retained, Retained) and retained.text is not None and retained.text == text:
            raise _Broken(
                "runtime-context-unchanged",
                f"the same text as the retained runtime-context message (seq {retained.seq})",
            )

    def _follow_projection(self, event: Json, seq: int) -> None:
        """Live updates: an owned user/message is retained; a replace citing it forgets it."""
        if _is_owned_user_message(event):
            self._retained = Retained(seq, _single_text(event["data"]))
        elif (
            isinstance(self._retained, Retained)
            and isinstance(event.get("surfaceOp"), dict)
            and self._retained.seq in (event.get("sourceEventSeqs") or [])
        ):
            self._retained = NONE_RETAINED


def fold_log(events: Iterable[Json], seeded: int = 0) -> LogFold:
    """Fold a whole log whose first ``seeded`` events were seeded."""
    fold = LogFold(seeded=seeded)
    for event in events:
        fold.add(event)
    return fold


def seeded_length(events: list[Json]) -> int:
    """How many events of a session's log were seeded: those up to its last `session/end-seed`
    (the session appends one after its seed; every later event is this run's), 0 without one."""
    ends = [
        seq
        for seq, event in enumerate(events)
        if isinstance(event, dict) and event.get("type") == END_SEED
    ]
    return ends[-1] + 1 if ends else 0


# -- helpers ----------------------------------------------------------------------------------


#: The payload keys the folds read, by core type (a user/message is checked as a message).
_PAYLOAD_KEYS: Final = {
    "turn/start": ("turn",),
    "turn/end": ("turn", "reason"),
    "step/start": ("turn", "step"),
    "step/end": ("turn", "step"),
    "assistant/chunk": ("turn", "step", "chunk"),
    "assistant/message": ("turn", "step", "message"),
    "tool/result": ("turn", "step", "message"),
    "request/header": ("header", "reason"),
    "request/context": ("provider", "model"),
}
#: The same keys as sets: one set comparison on every event, instead of a test per key.
_PAYLOAD_KEY_SETS: Final = {type_: frozenset(keys) for type_, keys in _PAYLOAD_KEYS.items()}
#: The optional fields of the core payloads (CONTRACTS.md, "The session log": `usage?`,
#: `interrupted?`, `error?`, `meta?`, `contextWindow?`): "an absent optional field is omitted, never
#: `null`", so a loop never writes one as null.
_PAYLOAD_OPTIONAL: Final = {
    "assistant/message": ("usage", "interrupted"),
    "tool/result": ("error", "meta"),
    "request/context": ("contextWindow",),
}


def _payload_problem(type_: str, data: Json) -> str | None:
    """The payload fields the folds read, for the core types; other types pass unchecked."""
    if type_ == "user/message":
        return _message_problem(data, "user")
    keys = _PAYLOAD_KEY_SETS.get(type_)
    if keys is None:
        return None
    if not isinstance(data, dict) or not data.keys() >= keys:
        return f"data must be an object with {', '.join(_PAYLOAD_KEYS[type_])}"
    if type_ in ("assistant/message", "tool/result"):
        role = "assistant" if type_ == "assistant/message" else "user"
        return _message_problem(data["message"], role, type_)
    return None


def _seeded_payload_problem(type_: str, data: Json) -> str | None:
    """The payloads a seed is checked for (`session-event-invalid`): the message of a
    `user/message`, `assistant/message` or `tool/result`, and a `request/header`'s header (its
    snapshot is checked after this); other payloads of a seed pass unchecked."""
    if type_ == "user/message":
        return _message_problem(data, "user")
    if type_ in ("assistant/message", "tool/result"):
        if not isinstance(data, dict) or "message" not in data:
            return "data must be an object with message"
        role = "assistant" if type_ == "assistant/message" else "user"
        return _message_problem(data["message"], role, type_)
    if type_ == "request/header" and not (isinstance(data, dict) and "header" in data):
        return "data must be an object with header"
    return None


def _message_problem(message: Json, role: str, type_: str = "user/message") -> str | None:
    """The upstream's message checks (`upstream/loop-and-session.md` §1.6)."""
    if not isinstance(message, dict):
        return "the message must be an object"
    source = message.get("source")
    if not (isinstance(message.get("id"), str) and message["id"]):
        return "the message needs a non-empty string id"
    if message.get("role") != role:
        return f"the message role must be {role!r}"
    if not isinstance(source, dict) or not (isinstance(source.get("kind"), str) and source["kind"]):
        return "the message source needs a non-empty string kind"
    content = message.get("content")
    if not isinstance(content, list):
        return "the message content must be a list"
    if type_ == "assistant/message" and (
        source["kind"] != "model"
        or not all(
            isinstance(source.get(key), str) and source[key] for key in ("provider", "model")
        )
    ):
        return "an assistant message's source is {kind: 'model', provider, model}"
    if type_ == "tool/result":
        call = source.get("callId")
        if source["kind"] != "tool" or not (isinstance(call, str) and call):
            return "a tool result's source is {kind: 'tool', callId}"
        block = content[0] if len(content) == 1 else None
        if not (
            isinstance(block, dict)
            and block.get("type") == "tool-result"
            and block.get("toolCallId") == call
        ):
            return "a tool result's content is one tool-result block for its callId"
    return None


def _kept(event: Json) -> Json | None:
    """What a fold that does not keep events (`LogFold.keep_events`) keeps of an admitted one:
    all that a later rule reads of it. Only a surface event is read again: its type (a replace's
    shadowed nodes), a tool result's data less the block's content (the tool-result replacement
    restriction compares the rest), and an owned runtime-context message whole (a loop instance's
    start looks for the one retained)."""
    type_ = event["type"]
    if type_ not in SURFACE_ELIGIBLE:
        return None
    if type_ == "tool/result":
        return {"type": type_, "data": _without_block_content(event["data"])}
    return event if _is_owned_user_message(event) else _TYPE_ONLY[type_]


#: The shared record `_kept` keeps of a surface event whose type alone is read again.
_TYPE_ONLY: Final = {type_: {"type": type_} for type_ in SURFACE_ELIGIBLE}


def _derived_message(event: Json) -> Json | None:
    """ "`user/message` → its data, `assistant/message` → `data.message` unless its content is
    empty, `tool/result` → `data.message`"."""
    type_, data = event["type"], event["data"]
    if type_ == "user/message":
        return data
    if type_ == "tool/result" or (type_ == "assistant/message" and data["message"]["content"]):
        return data["message"]
    return None


def _is_owned_user_message(event: Json) -> bool:
    if not isinstance(event, dict) or event.get("type") != "user/message":
        return False
    source = event["data"].get("source") if isinstance(event.get("data"), dict) else None
    return (
        isinstance(source, dict)
        and source.get("kind") == RUNTIME_CONTEXT_OWNER["kind"]
        and source.get("plugin") == RUNTIME_CONTEXT_OWNER["plugin"]
    )


def _single_text(message: Json) -> str | None:
    content = message.get("content")
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
        block = content[0]
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            text: str = block["text"]
            return text
    return None


def _snapshot_problem(text: str | None, source: Json) -> str | None:
    """An owned snapshot: `form: "snapshot"`, `sections` = the non-empty `{name, text}` pairs,
    and one text block: the preamble, `\\n\\n`, and the section texts joined by `\\n\\n`."""
    sections = source.get("sections")
    if source.get("form") != "snapshot":
        return (
            f"an owned message with sections has form 'snapshot', not {_show(source.get('form'))}"
        )
    if (
        not isinstance(sections, list)
        or not sections
        or not all(
            isinstance(entry, dict)
            and set(entry) == {"name", "text"}
            and isinstance(entry["name"], str)
            and isinstance(entry["text"], str)
            and entry["text"]
            for entry in sections
        )
    ):
        return "an owned snapshot's sections are a non-empty list of {name, text} with texts"
    expected = RUNTIME_CONTEXT_PREAMBLE + "\n\n" + "\n\n".join(entry["text"] for entry in sections)
    if text != expected:
        return (
            "an owned snapshot is one text block: the preamble, then its sections' texts "
            f"joined by blank lines; expected {_show(expected)}, got {_show(text)}"
        )
    return None


def _without_block_content(data: Json) -> Json:
    copied = copy.deepcopy(data)
    copied["message"]["content"][0].pop("content", None)
    return copied


def _step_key(data: Json) -> tuple[Json, Json]:
    return (_as_seq(data.get("turn")), _as_seq(data.get("step")))


#: JavaScript's `Number.MAX_SAFE_INTEGER`: the bound of a seeded ``time``.
MAX_SAFE_INTEGER: Final = 2**53 - 1


def _seed_envelope(event: Json) -> None:
    """What a seed's envelope needs beyond an appended event's (CONTRACTS.md,
    `session-event-invalid`): an integer ``time`` within 2^53 - 1."""
    time = event["time"]
    if not (isinstance(time, int) or time.is_integer()) or abs(time) > MAX_SAFE_INTEGER:
        raise _Broken(
            "envelope",
            f"time must be an integer of magnitude at most 2^53 - 1, as a seed's "
            f"(session-event-invalid), got {_show(time)}",
        )


def _as_seq(value: Json) -> int | None:
    """A non-negative integer as a JSON number carries it (``2.0`` is 2), else ``None``."""
    if type(value) is int:  # the common case first: called a few times on every event
        return value if value >= 0 else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    return int(value) if value >= 0 else None


def _show(value: Json, limit: int = 200) -> str:
    try:
        shown = dumps(value)
    except (TypeError, ValueError):
        shown = repr(value)
    return shown if len(shown) <= limit else shown[:limit] + "…"
