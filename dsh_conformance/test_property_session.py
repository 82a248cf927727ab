"""Property tests of the session log (ROOT-MODEL): the surface against a plain list model, and
atomic rejected appends.

Every generated step is an append whose outcome the rule states directly, so the model is a plain
Python list of visible seqs and the list of events written so far:

- a valid append (a user message, an assistant message with or without content, a tool call and
  its result, a turn boundary, a plugin event with a fractional number) extends the events; an
  eligible one puts its seq at the end of the list;
- a valid replace of a drawn range ``i..j`` of the list, citing every shadowed seq (and maybe one
  more), puts its seq in place of that slice; a tool result may be replaced by a copy whose block
  content alone differs;
- an invalid append (a range not on the list in order, a citation missing, surface metadata on an
  ineligible type, an eligible type without it, a value JSON cannot carry, a tool-result
  replacement changing ``isError``) fails with the error kind named beside it and changes
  nothing.

After the steps the implementation's surface and derived messages must equal the model's, and its
reported log, folded by the suite's own `dsh_conformance.judge.logfold`, must give the same surface
and messages with no violation.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Final

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from .harness.transport import Implementation
from .judge.case import Case
from .judge.logfold import fold_log
from .run.execute import ConformanceFailure, check
from .scenarios import scenario as s

CONTRACT: Final = "ROOT-MODEL"
RULE: Final = (
    "The surface is the ordered list of visible seqs: `append` adds the event at the end; a "
    "replace removes the nodes from `start` to `end` inclusive and puts the new event in their "
    "place. Derived messages = the surface's events mapped to their messages. An append is "
    "validated in full before anything changes: a rejected append leaves the log, the surface "
    "and every projection exactly as they were, and names its rule by its error kind."
)

Json = Any
CWD: Final = s.entry("cwd", "cwd: /work")
HEADER: Final = {"config": {"provider": "deepseek", "model": "deepseek-chat"}}


@dataclass
class LogModel:
    """The events written so far (without ``time``) and the visible seqs, as plain lists."""

    events: list[Json] = field(default_factory=list)
    surface: list[int] = field(default_factory=list)
    ops: list[Json] = field(default_factory=list)

    @property
    def next_seq(self) -> int:
        return len(self.events)

    def append(self, type: str, data: Json, **metadata: Json) -> int:
        """A valid append: the op expecting ok, the event, and its place on the surface."""
        seq = self.next_seq
        surface_op = metadata.get("surfaceOp")
        self.ops.append(
            s.session_append(
                type,
                data,
                **({"surface_op": surface_op} if surface_op is not None else {}),
                **(
                    {"source_seqs": metadata["sourceEventSeqs"]}
                    if "sourceEventSeqs" in metadata
                    else {}
                ),
            )
        )
        self.events.append({"type": type, "seq": seq, "data": copy.deepcopy(data), **metadata})
        if surface_op == "append":
            self.surface.append(seq)
        elif surface_op is not None:
            first = self.surface.index(surface_op["start"])
            last = self.surface.index(surface_op["end"])
            self.surface[first : last + 1] = [seq]
        return seq

    def reject(self, kind: str, op: Json) -> None:
        """An invalid append: it must fail with ``kind``; the model does not change."""
        self.ops.append({**op, "expect": s.error(kind)})

    def messages(self) -> list[Json]:
        derived = []
        for seq in self.surface:
            event = self.events[seq]
            if event["type"] == "user/message":
                derived.append(event["data"])
            elif event["type"] == "tool/result" or event["data"]["message"]["content"]:
                derived.append(event["data"]["message"])
        return derived

    def checks(self) -> list[Json]:
        return [
            s.session_surface(expect=s.surface(*self.surface)),
            s.session_messages(expect=s.messages(*self.messages())),
            s.session_log(expect=s.events(*self.events)),
        ]


def _replace(start: int, end: int) -> Json:
    return {"op": "replace", "start": start, "end": end}


def _preamble(model: LogModel) -> None:
    """Turn, step and header first, so that model output is logged as a loop would log it."""
    model.append("turn/start", {"turn": 1})
    model.append("step/start", {"turn": 1, "step": 1})
    model.append("request/header", {"header": HEADER, "reason": "initial"})


def _valid_step(draw: st.DrawFn, model: LogModel) -> str:
    seq = model.next_seq
    choices = ["user", "assistant", "empty-assistant", "tool", "other"]
    if model.surface:
        choices += ["replace", "replace"]
    tool_results = [n for n in model.surface if model.events[n]["type"] == "tool/result"]
    if tool_results:
        choices.append("replace-tool-result")
    kind = draw(st.sampled_from(choices))
    if kind == "user":
        model.append("user/message", s.user_message(f"u{seq}", f"text {seq}"), surfaceOp="append")
    elif kind in ("assistant", "empty-assistant"):
        content = [{"type": "text", "text": f"answer {seq}"}] if kind == "assistant" else []
        chunk = {"turn": 1, "step": 1, "chunk": {"type": "finish", "reason": {"kind": "stop"}}}
        model.append("assistant/chunk", chunk)
        model.append(
            "assistant/message",
            s.assistant_message(f"a{seq + 1}", *content),
            surfaceOp="append",
            sourceEventSeqs=[seq],
        )
    elif kind == "tool":
        call = {"turn": 1, "step": 1, "callId": f"c{seq}", "name": "read", "arguments": "{}"}
        model.append("tool/call", call)
        model.append(
            "tool/result",
            s.tool_result(f"t{seq + 1}", f"c{seq}", f"out {seq}"),
            surfaceOp="append",
            sourceEventSeqs=[seq],
        )
    elif kind == "other":
        if draw(st.booleans()):
            model.append(
                "x-plugin/progress", {"fraction": draw(st.sampled_from([0.5, 0.125, 2.75]))}
            )
        else:
            model.append("agent/inbox/spliced", {"target": "next-step", "start": 0, "inserted": []})
    elif kind == "replace":
        first = draw(st.integers(0, len(model.surface) - 1))
        last = draw(st.integers(first, len(model.surface) - 1))
        shadowed = model.surface[first : last + 1]
        extra = [n for n in range(seq) if n not in shadowed][:1] if draw(st.booleans()) else []
        model.append(
            "user/message",
            s.user_message(f"r{seq}", f"summary {seq}"),
            surfaceOp=_replace(shadowed[0], shadowed[-1]),
            sourceEventSeqs=sorted(shadowed + extra),
        )
    else:
        target = draw(st.sampled_from(tool_results))
        data = copy.deepcopy(model.events[target]["data"])
        data["message"]["content"][0]["content"] = [{"type": "text", "text": "[trimmed]"}]
        model.append(
            "tool/result", data, surfaceOp=_replace(target, target), sourceEventSeqs=[target]
        )
    return kind


def _invalid_step(draw: st.DrawFn, model: LogModel) -> str:
    """One rejected append, of a kind possible on the current log; returns the error kind."""
    seq = model.next_seq
    message = s.user_message(f"bad{seq}", "rejected")
    off_surface = [n for n in range(seq) if n not in model.surface]
    choices = ["surface-op-forbidden", "surface-op-required", "session-non-json"]
    if len(model.surface) >= 2 or off_surface:
        choices.append("surface-replace-invalid")
    if len(model.surface) >= 2:
        choices.append("source-seqs-invalid")
    tool_results = [n for n in model.surface if model.events[n]["type"] == "tool/result"]
    if tool_results:
        choices.append("tool-result-replace-invalid")
    kind = draw(st.sampled_from(choices))
    if kind == "surface-op-forbidden":
        op = s.session_append("step/end", {"turn": 1, "step": 1}, surface_op="append")
    elif kind == "surface-op-required":
        op = s.session_append("user/message", message)
    elif kind == "session-non-json":
        op = s.session_append(
            "x-plugin/progress",
            {"fraction": 0},
            inject=[
                s.inject(["data", "fraction"], draw(st.sampled_from(["NaN", "-0", "undefined"])))
            ],
        )
    elif kind == "surface-replace-invalid":
        if off_surface and (len(model.surface) < 2 or draw(st.booleans())):
            start = end = draw(st.sampled_from(off_surface))  # not on the surface
        else:
            start, end = model.surface[-1], model.surface[0]  # on it, but out of order
        op = s.session_append(
            "user/message", message, surface_op=_replace(start, end), source_seqs=list(range(seq))
        )
    elif kind == "source-seqs-invalid":
        shadowed = model.surface[:2]
        op = s.session_append(
            "user/message", message, surface_op=_replace(*shadowed), source_seqs=[shadowed[0]]
        )
    else:
        target = draw(st.sampled_from(tool_results))
        data = copy.deepcopy(model.events[target]["data"])
        data["message"]["content"][0]["isError"] = True
        op = s.session_append(
            "tool/result", data, surface_op=_replace(target, target), source_seqs=[target]
        )
    model.reject(kind, op)
    return kind


@st.composite
def _logs(draw: st.DrawFn) -> LogModel:
    model = LogModel()
    _preamble(model)
    for _ in range(draw(st.integers(1, 10))):
        if draw(st.integers(0, 3)) == 0:
            event(f"rejected: {_invalid_step(draw, model)}")
        else:
            event(f"step: {_valid_step(draw, model)}")
    return model


@pytest.mark.contract(CONTRACT)
@given(_logs())
def test_surface_follows_a_plain_list_model(impl: Implementation, model: LogModel) -> None:
    """ROOT-MODEL: random appends, replaces and rejected appends against the list model; the
    reported log, folded by the suite itself, agrees."""
    case = Case(
        id="property/session-surface",
        contracts=(CONTRACT,),
        why=RULE,
        ops=(*model.ops, *model.checks()),
        requires=("session",),
    )
    observations = check(impl, case)
    fold = fold_log(observations[-1]["events"])
    problems = [str(violation) for violation in fold.violations]
    if fold.surface != model.surface:
        problems.append(f"the suite's fold gives surface {fold.surface}, not {model.surface}")
    if fold.messages() != model.messages():
        problems.append("the suite's fold derives other messages than the model")
    if problems:
        raise ConformanceFailure(f"{case.id}: the reported log: " + "; ".join(problems))


@st.composite
def _rejections(draw: st.DrawFn) -> tuple[LogModel, int]:
    """A valid log ending with an owned runtime-context snapshot, then rejected appends."""
    model = LogModel()
    _preamble(model)
    for _ in range(draw(st.integers(0, 5))):
        _valid_step(draw, model)
    snapshot = {"id": "ctx", **s.proposal(s.snapshot_text(CWD["text"]), CWD)}
    retained = model.append("user/message", snapshot, surfaceOp="append")
    model.ops.append(s.projection_start())
    for _ in range(draw(st.integers(1, 3))):
        event(f"rejected: {_invalid_step(draw, model)}")
        # Had it been accepted, a replace citing the snapshot would have forgotten it.
        model.ops.append(s.project([CWD], expect=s.proposed(None)))
    return model, retained


@pytest.mark.contract(CONTRACT)
@given(_rejections())
def test_a_rejected_append_changes_nothing(
    impl: Implementation, generated: tuple[LogModel, int]
) -> None:
    """ROOT-MODEL: after rejected appends the log (every event, by seq), the surface, the derived
    messages and the projection (still retaining its snapshot) are exactly as before, and the
    next accepted append takes the next seq."""
    model, _retained = generated
    model.append("user/message", s.user_message("after", "accepted"), surfaceOp="append")
    case = Case(
        id="property/session-atomic-append",
        contracts=(CONTRACT,),
        why=RULE,
        ops=(*model.ops, *model.checks()),
        requires=("session",),
    )
    check(impl, case)
