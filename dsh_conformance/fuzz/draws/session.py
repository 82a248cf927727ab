"""The ``session`` family's draws.

Appends (valid ones, and ones that break exactly one append rule, a `sourceEventSeqs` citing the
event's own seq or a later one among them; events outside the core vocabulary holding zeros and
negative numbers), surface replaces (tool results replaced by their content alone, or with one more
field changed), runtime-context snapshots, the projection (the same context again, an emptied one),
header canonical form and equality (the same tool schemas with integers written `1.0`); with
``session-1.2``, seeds of every core event kind (well-formed ones, and ones with one malformed
event, each defect ROOT-MODEL lists drawn as often as any other, -0 in each field `session-non-json`
reads included, or one whose malformed event also breaks a rule checked after it) and options given
as ``undefined``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Final

from hypothesis import strategies as st

from ...scenarios import loopscenario as lp
from ...scenarios import scenario as s
from .builder import Builder, Json, parameters, span
from .loop import CALL_CONFIGS

#: The seeded event types whose message is checked (`Session._malform`).
MESSAGE_TYPES: Final = ("user/message", "assistant/message", "tool/result")
#: The defects of a seeded event (`Session._malform`), one of each rule ROOT-MODEL checks a seed
#: against, and the kinds of seeded event (`Session._seeded`) each applies to (``None``: any):
#: the envelope's, a message's (those whose `data` must be an object for the checks to reach
#: it), a header's (PROMPT-HEADER-CANONICAL's `adapterDefaults` included), -0 in each field
#: `session-non-json` reads, and the surface rules'. Only the first three without session-1.2.
_MESSAGES: Final = ("user", "assistant", "tool", "replace")
_HEADERS: Final = ("header",)
MESSAGE_DEFECTS: Final = ("id", "role", "no-kind", "content", "kind-only", "fields-only")
SEED_DEFECTS_1_1: Final = ("seq", "legacy", "required")
SEED_DEFECTS: Final[dict[str, tuple[str, ...] | None]] = {
    "seq": None,
    "legacy": None,
    "required": ("user",),
    **dict.fromkeys(("extra", "type", "bad-seq", "time", "no-time", "no-data", "ignorable")),
    "not-object": None,
    "null": None,
    **dict.fromkeys(MESSAGE_DEFECTS[:4], _MESSAGES),
    **dict.fromkeys(MESSAGE_DEFECTS[4:], ("assistant", "tool")),
    "payload": ("header", "assistant", "tool"),
    **dict.fromkeys(
        ("provider", "model", "effort", "defaults", "header-not-object", "config", "marker"),
        _HEADERS,
    ),
    "list": _HEADERS,
    **dict.fromkeys(("-0 in data", "-0 in surfaceOp", "-0 in sourceEventSeqs")),
    "cites": ("replace",),
}
#: A tool schema holding integers, which may be written `1.0` (`Session.equal`).
NUMBERED_TOOL: Final = s.schema(
    "n", "", {"type": "object", "properties": {"a": {"type": "number", "minimum": 1}}, "enum": [2]}
)


class Session:
    """The session family: the builder tracks seqs and the surface, since every append it
    makes is either valid or breaks exactly one rule (`AVOIDED`)."""

    STEPS: Final = (
        "seed",
        "seed",
        "refused_seed",
        "refused_seed",
        "refused_seed",
        "refused_seed",
        "user",
        "user",
        "snapshot",
        "snapshot",
        "header",
        "replace",
        "note",
        "tool",
        "tool",
        "tool_replace",
        "invalid",
        "invalid",
        "start_projection",
        "project",
        "project",
        "project",
        "observe",
        "canonical",
        "equal",
        "equal",
    )

    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.seq = 0
        self.surface: list[int] = []
        #: The data of each `tool/result` by seq: what a replacement of it must keep.
        self.tools: dict[int, Json] = {}
        self.projecting = False
        #: The runtime context last snapshotted or projected: projecting it again is the
        #: unchanged context, which proposes nothing unless the retained snapshot was forgotten.
        self.context: list[Json] = []

    def append(self, op: Json, *, on_surface: bool = True) -> None:
        self.builder.ops.append(op)
        if on_surface:
            self.surface.append(self.seq)
        self.seq += 1

    def user(self) -> None:
        data = s.user_message(self.builder.fresh("m"), self.builder.pick(["hi", "yo"]))
        inject = None
        if self.builder.has("session-1.2") and self.builder.chance(15):
            inject = [s.inject(["sourceEventSeqs"], "undefined")]  # the option not given
        op = s.session_append("user/message", data, surface_op="append", inject=inject)
        self.append(op)

    def refused_seed(self) -> None:
        """A seed with one malformed event: nothing changes, so a scenario may try many."""
        self.seed(refused=True)

    def seed(self, *, refused: bool = False) -> None:
        """A `session-seed`: well-formed (the session is replaced, the projection dropped), or
        with one malformed event (nothing changes). The defect is drawn first (`SEED_DEFECTS`),
        then a seed with an event it applies to, so that each rule ROOT-MODEL checks a seed
        against comes up as often as any other. The defects of session-1.2 are drawn only under
        it, and only there may the malformed event also break a rule checked later (`AVOIDED`:
        never two defects checked at the same stage)."""
        pick, chance = self.builder.pick, self.builder.chance
        later = self.builder.has("session-1.2")
        kinds = ["user", "turn", "note", "end", "header", "user"]
        if later:
            kinds += ["assistant", "tool", "replace"]
        count = self.builder.draw(span(1 if refused else 0, 4))
        defect, at, fits = None, -1, None
        if count and (refused or chance(40)):
            defect = pick(name for name in SEED_DEFECTS if later or name in SEED_DEFECTS_1_1)
            fits = SEED_DEFECTS[defect]
            if defect == "cites":
                # A replace of a user message, after another event it may wrongly cite.
                count = max(count, 3)
                at = self.builder.between(2, count - 1)
            else:
                at = pick(range(count))
        events: list[Json] = []
        surface: list[int] = []
        users: set[int] = set()
        for seq in range(count):
            if seq == at and fits:
                kind = pick(fits)
            else:
                kind = "user" if defect == "cites" and seq == at - 1 else pick(kinds)
            events.append(self._seeded(kind, seq, surface, users))
        malformed = defect is not None and self._malform(events, at, defect)
        self.builder.ops.append(s.session_seed(events))
        if malformed:
            return
        self.seq = len(events)
        if not events or events[-1]["type"] != "session/end-seed":
            self.seq += 1
        self.surface = surface
        self.tools = {seq: e["data"] for seq, e in enumerate(events) if e["type"] == "tool/result"}
        self.projecting = False

    def _seeded(self, kind: str, seq: int, surface: list[int], users: set[int]) -> Json:
        """A well-formed seeded event of ``kind`` at ``seq``, given the surface and the user
        messages of the events before it (both updated)."""
        pick, fresh = self.builder.pick, self.builder.fresh
        event: Json = {"seq": seq, "time": pick([1_700_000_000_000 + seq, 0, -1, 2**53 - 1])}
        if kind == "replace" and surface and surface[-1] in users:
            # A summary of the last surface node, a user message, citing it: well-formed.
            data = s.user_message(fresh("m"), "summary")
            event.update(type="user/message", data=data, sourceEventSeqs=[surface[-1]])
            event["surfaceOp"] = {"op": "replace", "start": surface[-1], "end": surface[-1]}
            surface[-1] = seq
        elif kind in ("user", "replace"):
            data = s.user_message(fresh("m"), "seeded")
            event.update(type="user/message", data=data, surfaceOp="append")
        elif kind == "assistant":
            data = s.assistant_message(fresh("m"), {"type": "text", "text": "a"})
            event.update(type="assistant/message", data=data, surfaceOp="append")
        elif kind == "tool":
            data = s.tool_result(fresh("m"), "c1", "out")
            event.update(type="tool/result", data=data, surfaceOp="append")
        elif kind == "turn":
            event.update(type="turn/start", data={"turn": 1})
        elif kind == "note":
            event.update(type="x/note", data={"a": 1})
            if self.builder.chance(50):
                event["ignorable"] = True
        elif kind == "end":
            event.update(type="session/end-seed", data={})
        else:
            header = {"config": dict(pick(CALL_CONFIGS[:2])), "system": "S"}
            event.update(type="request/header", data={"header": header, "reason": "initial"})
        if event.get("surfaceOp") == "append":
            surface.append(seq)
        if event["type"] == "user/message":
            users.add(seq)
        return event

    def _malform(self, events: list[Json], index: int, defect: str) -> bool:
        """Break ``events[index]`` by ``defect``; False if it does not apply to it."""
        pick, chance = self.builder.pick, self.builder.chance
        event = events[index]
        message = event["type"] in MESSAGE_TYPES
        if defect == "seq":
            # 2^53 - 1 is a well-formed seq (ROOT-MODEL: "an integer in 0..2^53 - 1"), not its
            # index: `seq-not-contiguous`.
            event["seq"] = pick([event["seq"] + 1, 2**53 - 1])
        elif defect == "legacy":
            # Well-formed: a malformed fallback header is `session-event-invalid` (ROOT-MODEL).
            header = {"config": dict(lp.CONFIG)}
            event.update(type="request/header", data={"header": header, "reason": "fallback"})
            event.pop("surfaceOp", None)
            event.pop("sourceEventSeqs", None)
            if chance(30):  # checked before the seq: still `session-legacy-header`
                event["seq"] += 1
        elif defect == "required":
            del event["surfaceOp"]
            event.pop("sourceEventSeqs", None)
        elif defect == "not-object":
            events[index] = pick([1, "user/message", [], None])
        elif defect == "cites":
            # A replace citing another earlier seq than the one it shadows, every other rule
            # kept: `source-seqs-invalid`, a surface rule.
            if len(event.get("sourceEventSeqs", ())) != 1:
                return False
            shadowed = event["sourceEventSeqs"][0]
            others = [seq for seq in range(event["seq"]) if seq != shadowed]
            if not others:
                return False
            event["sourceEventSeqs"] = [pick(others)]
        else:
            touched = self._malform_1_2(defect, event)
            # The order of the checks is fixed for a seed: this defect is named first. (Most
            # of all -0's: `session-non-json` is checked before anything else.)
            if chance(75 if defect.startswith("-0") else 50) and "seq" not in touched:
                if message and "surfaceOp" in event and "surfaceOp" not in touched and chance(50):
                    del event["surfaceOp"]
                    event.pop("sourceEventSeqs", None)
                else:
                    event["seq"] += 1
        return True

    def _malform_1_2(self, defect: str, event: Json) -> tuple[str, ...]:
        """A `session-event-invalid` or `session-non-json` defect (session-1.2); the envelope
        fields it is in."""
        pick = self.builder.pick
        if defect == "extra":
            event["extra"] = 1
        elif defect == "type":
            event["type"] = 1
        elif defect == "bad-seq":
            event["seq"] = pick(["0", 0.5, -1])
            return ("seq",)
        elif defect == "time":
            event["time"] = pick([1.5, 2**53, -(2**53)])
        elif defect == "no-time":
            del event["time"]
        elif defect == "no-data":
            del event["data"]
        elif defect == "ignorable":
            event["ignorable"] = pick([False, None, 1])
        elif defect == "null":
            # "an absent optional field is omitted, never `null`" (ROOT-MODEL)
            field = "sourceEventSeqs" if "surfaceOp" in event else "surfaceOp"
            event[field] = None
            return ("surfaceOp", "sourceEventSeqs")
        elif defect == "payload":
            event["data"] = pick(["x", 1, []])
        elif defect.startswith("-0 in "):
            # "numbers are ... never negative zero" (ROOT-MODEL): `session-non-json`, checked
            # first, whatever else the field breaks.
            field = defect.removeprefix("-0 in ")
            if field == "data":
                event["data"]["v"] = -0.0
                return ()
            zero = {"op": "replace", "start": -0.0, "end": -0.0} if field == "surfaceOp" else [-0.0]
            event[field] = zero
            return ("surfaceOp", "sourceEventSeqs")
        elif defect in MESSAGE_DEFECTS:
            self._malform_message(event, defect)
        else:
            self._malform_header(event, defect)
        return ()

    def _malform_message(self, event: Json, defect: str) -> None:
        """A message (the `data` of a `user/message`, else `data.message`) broken by one rule,
        its source included: the right kind without its fields, or its fields under another
        kind (ROOT-MODEL)."""
        user = event["type"] == "user/message"
        assistant = event["type"] == "assistant/message"
        message = dict(event["data"] if user else event["data"]["message"])
        if defect == "id":
            message["id"] = ""
        elif defect == "role":
            message["role"] = "user" if assistant else "assistant"
        elif defect == "no-kind":
            message["source"] = {"kind": ""}
        elif defect == "content":
            message["content"] = "x"
        elif defect == "kind-only" and assistant:
            message["source"] = {"kind": "model"}
        elif defect == "kind-only":  # the right kind, an empty callId, named by the block too
            message["source"] = {"kind": "tool", "callId": ""}
            message["content"] = [{**message["content"][0], "toolCallId": ""}]
        elif assistant:  # the fields under another kind
            message["source"] = {"kind": "plugin", "provider": "deepseek", "model": "deepseek-chat"}
        else:
            message["source"] = {"kind": "plugin", "callId": "c1"}
        event["data"] = message if user else {**event["data"], "message": message}

    def _malform_header(self, event: Json, defect: str) -> None:
        """A `request/header` broken by one rule of ROOT-MODEL's (PROMPT-HEADER-CANONICAL's
        `adapterDefaults` included)."""
        config = dict(event["data"]["header"]["config"])
        header: Json = {"config": config}
        if defect == "provider":
            del config["provider"]
        elif defect == "model":
            config["model"] = ""
        elif defect == "effort":
            config["reasoningEffort"] = ""
        elif defect == "defaults":
            header["adapterDefaults"] = {"maxTokens": True}
        elif defect == "header-not-object":
            header = "x"
        elif defect == "config":
            header["config"] = "x"
        elif defect == "marker":
            config["temperature"] = 0.5
            header["adapterDefaults"] = {"temperature": True}
        else:
            header["adapterDefaults"] = []
        event["data"] = {"header": header, "reason": "initial"}

    def sections(self) -> list[Json]:
        pool = [s.entry("c", "now"), s.entry("c", "later"), s.entry("d", "")]
        return [entry for entry in pool if self.builder.chance(50)]

    def snapshot(self) -> None:
        sections = self.context = [entry for entry in self.sections() if entry["text"]]
        if not sections:
            data = s.user_message(self.builder.fresh("m"), s.RUNTIME_CONTEXT_CLEARED)
            data["source"] = s.snapshot_source()
        else:
            text = s.snapshot_text(*(entry["text"] for entry in sections))
            data = s.user_message(self.builder.fresh("m"), text)
            data["source"] = s.snapshot_source(*sections)
        self.append(s.session_append("user/message", data, surface_op="append"))

    def header(self) -> None:
        data = {"header": self.header_value(), "reason": self.builder.pick(["initial", "change"])}
        inject = None
        if self.builder.has("session-1.2") and self.builder.chance(15):
            inject = [s.inject(["surfaceOp"], "undefined")]  # the option not given: allowed
        self.append(s.session_append("request/header", data, inject=inject), on_surface=False)

    def header_value(self) -> Json:
        pick, chance = self.builder.pick, self.builder.chance
        config = dict(pick(CALL_CONFIGS))
        if chance(30):
            config = dict(reversed(list(config.items())))
        value: Json = {"config": config}
        if chance(40):
            value["system"] = pick(["", "S"])
        if chance(40):
            tools = [[], [s.schema("t", "", parameters(1))], [NUMBERED_TOOL], [NUMBERED_TOOL]]
            value["tools"] = pick(tools)
        if chance(20) and "reasoningEffort" in config:
            value["adapterDefaults"] = {"reasoningEffort": True}
        return value

    def replace(self) -> None:
        """A summary replacing one to three consecutive surface nodes, citing each of them."""
        if not self.surface:
            return
        first = self.builder.draw(span(0, len(self.surface) - 1))
        last = min(len(self.surface) - 1, first + self.builder.draw(span(0, 2)))
        if self.builder.chance(30):  # everything from ``first`` on, as a compaction does
            last = len(self.surface) - 1
        shadowed = self.surface[first : last + 1]
        data = s.user_message(self.builder.fresh("m"), "summary")
        data["source"] = {"kind": "plugin", "plugin": "compactor"}
        surface_op = {"op": "replace", "start": shadowed[0], "end": shadowed[-1]}
        op = s.session_append("user/message", data, surface_op=surface_op, source_seqs=shadowed)
        self.builder.ops.append(op)
        self.surface[first : last + 1] = [self.seq]
        self.seq += 1
        if self.projecting and self.builder.chance(50):
            # The next step's projection, its context unchanged, as a loop projects after a
            # compaction (LOOP-RUNTIME-CONTEXT: a replace citing the retained seq forgets it).
            self.builder.ops.append(s.project(self.context))

    def invalid(self) -> None:
        """An append that breaks exactly one rule: nothing changes."""
        data = s.user_message(self.builder.fresh("m"), "bad")
        kinds = ["required", "forbidden", "legacy", "nonjson", "range", "cites", "ahead"]
        kind = self.builder.pick(kinds + (["absent"] if self.builder.has("session-1.2") else []))
        if kind == "required":
            op = s.session_append("user/message", data)
        elif kind == "absent":  # an option given as `undefined` is not given: still required
            inject = [s.inject(["surfaceOp"], "undefined")]
            op = s.session_append("user/message", data, surface_op="append", inject=inject)
        elif kind == "forbidden":
            header = {"header": {"config": dict(lp.CONFIG)}, "reason": "initial"}
            op = s.session_append("request/header", header, surface_op="append")
        elif kind == "legacy":
            op = s.session_append("request/header", {"header": {}, "reason": "fallback"})
        elif kind == "nonjson":
            inject = [s.inject(["data", "extra"], self.builder.pick(["NaN", "-0", "undefined"]))]
            op = s.session_append("user/message", data, surface_op="append", inject=inject)
        elif kind == "range":
            if self.seq == 0:
                return  # seq 0 cited at seq 0 would break `source-seqs-invalid` too
            surface_op = {"op": "replace", "start": self.seq + 5, "end": self.seq + 5}
            op = s.session_append("user/message", data, surface_op=surface_op, source_seqs=[0])
        elif kind == "ahead":
            # "`sourceEventSeqs` is a list of distinct non-negative integers, each below the
            # event's `seq`" (ROOT-MODEL): one cites the appended event's own seq or a later one,
            # maybe after a seq that is below it.
            cited = [self.seq + self.builder.pick([0, 1])]
            if self.seq and self.builder.chance(50):
                cited.insert(0, self.seq - 1)
            op = s.session_append("user/message", data, surface_op="append", source_seqs=cited)
        else:
            if len(self.surface) < 2:
                return
            start, end = self.surface[-2], self.surface[-1]
            surface_op = {"op": "replace", "start": start, "end": end}
            op = s.session_append("user/message", data, surface_op=surface_op, source_seqs=[end])
        self.builder.ops.append(op)

    def start_projection(self) -> None:
        self.builder.ops.append(s.projection_start())
        self.projecting = True

    def project(self) -> None:
        if not self.projecting:
            self.start_projection()
        if self.builder.chance(20):
            self.context = []  # the context emptied: the cleared marker, unless retained
        elif not self.builder.chance(50):
            self.context = [e for e in self.sections() if e["text"]]
        self.builder.ops.append(s.project(self.context))

    def note(self) -> None:
        """An event outside the core vocabulary (passed through unchecked) whose data holds
        numbers: `0.0` and negative numbers, integral or not, are lossless JSON (ROOT-MODEL's
        `session-non-json` refuses only NaN, the infinities and -0)."""
        numbers = (0, 0.0, -1.5, -2, 0.25, -0.25)
        data = {"n": self.builder.pick(numbers), "list": [self.builder.pick(numbers)]}
        self.append(s.session_append("x-plugin/note", data), on_surface=False)

    def tool(self) -> None:
        """A `tool/result` on the surface, whose `meta` may hold an empty object or an empty
        list (a replacement must keep it: `tool-result-replace-invalid`)."""
        meta = self.builder.pick([None, {"tags": {}}, {}, {"tags": []}])
        extra = {} if meta is None else {"meta": meta}
        data = s.tool_result(self.builder.fresh("m"), "c1", "out", **extra)
        self.tools[self.seq] = data
        self.append(s.session_append("tool/result", data, surface_op="append"))

    def tool_replace(self) -> None:
        """A `tool/result` replacing one on the surface with its block's content cut (allowed),
        or with one more field changed (ROOT-MODEL: `tool-result-replace-invalid`, nothing
        changes), an empty object and an empty array included."""
        shadowed = [seq for seq in self.surface if seq in self.tools]
        if not shadowed:
            return
        seq = self.builder.pick(shadowed)
        data = copy.deepcopy(self.tools[seq])
        block = data["message"]["content"][0]
        block["content"] = [{"type": "text", "text": "cut"}]
        change = self.builder.pick([None, "meta", "meta", "turn", "isError"])
        if change == "meta":
            data["meta"] = _swapped(data.get("meta", {}))
        elif change == "turn":
            data["turn"] += 1
        elif change == "isError":
            block["isError"] = True
        surface_op = {"op": "replace", "start": seq, "end": seq}
        op = s.session_append("tool/result", data, surface_op=surface_op, source_seqs=[seq])
        self.builder.ops.append(op)
        if change is None:
            self.surface[self.surface.index(seq)] = self.seq
            self.tools[self.seq] = data
            self.seq += 1

    def observe(self) -> None:
        self.builder.ops.append(self.builder.pick([s.session_messages(), s.session_header()]))

    def canonical(self) -> None:
        self.builder.ops.append(s.header_canonical(self.header_value()))

    def equal(self) -> None:
        a = self.header_value()
        b = dict(a) if self.builder.chance(50) else self.header_value()
        if self.builder.chance(50):
            b["config"] = {**b["config"], "stop": []}
        if "tools" in b and self.builder.chance(50):
            # The same numbers written `1.0`: PROMPT-HEADER-CANONICAL compares each pair of
            # schemas by the JSON it serializes to, where a number is written by its value.
            b["tools"] = _respelled(b["tools"])
        self.builder.ops.append(s.header_equal(a, b))


def _swapped(value: Json) -> Json:
    """``value`` with each empty object an empty array and each empty array an empty object:
    the same keys (none), another JSON value."""
    if value == {} or value == []:
        return [] if isinstance(value, dict) else {}
    if isinstance(value, dict):
        return {key: _swapped(item) for key, item in value.items()}
    return value


def _respelled(value: Json) -> Json:
    """``value`` with each integer written as a float (``1`` as ``1.0``): the same JSON value."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, dict):
        return {key: _respelled(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_respelled(item) for item in value]
    return value


def session_ops(draw: st.DrawFn, capabilities: frozenset[str]) -> list[Json]:
    """A session scenario's ops: its steps, then the log and the surface observed."""
    builder = Builder(draw, capabilities)
    session = Session(builder)
    if builder.chance(40):
        session.seed()
    if builder.chance(30):
        session.start_projection()
    for _ in range(builder.draw(span(1, 12))):
        step: Callable[[], None] = getattr(session, builder.pick(Session.STEPS))
        step()
    builder.ops.append(s.session_log())
    builder.ops.append(s.session_surface())
    return builder.ops
