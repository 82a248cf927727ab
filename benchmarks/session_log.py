"""Do the session log and the suite's fold stay linear in the log length? (ROOT-MODEL, issue 19)

Appends n events — user and assistant messages, chunks, plugin events, and a replace of the two
oldest visible nodes every 50 events (compaction-like) — to `reference.SessionLog`, then folds the
same log with the suite's own `dsh_conformance.judge.logfold`, for n = 2000 and 20000 events. Each
figure is printed per event beside its Python floor (`benchmarks/figures.py`): for the append, the
same events as dicts in a list and the surface as a list of seqs (`PlainLog`); for the fold, one
pass over the events that reads every value and keeps that surface (`plain_fold`). A replace is
a list search on the surface (as upstream's `indexOf`), in the floor too, so both are linear in
the surface length per replace; appends are constant time. This is a script that prints figures,
not a test.

    python benchmarks/session_log.py
"""

from __future__ import annotations

import json
from typing import Any, Protocol, TypeVar

from figures import best_times, table

from dsh_conformance.judge.logfold import fold_log
from dsh_reference import SessionLog, SurfaceReplace

SIZES = (2000, 20000)


class Log(Protocol):
    """What `build` appends through: `reference.SessionLog` and the floor's `PlainLog`."""

    @property
    def next_seq(self) -> int: ...

    @property
    def surface(self) -> tuple[int, ...]: ...

    def append(
        self,
        type: str,
        data: Any,
        *,
        surface_op: Any = None,
        source_event_seqs: list[int] | None = None,
    ) -> object: ...


AnyLog = TypeVar("AnyLog", bound=Log)


class PlainLog:
    """The floor for appending: each event a dict in a list; the surface a list of seqs, a
    replace found by `list.index` and done by slice assignment. No checks, no copies."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._surface: list[int] = []

    @property
    def next_seq(self) -> int:
        return len(self.events)

    @property
    def surface(self) -> tuple[int, ...]:
        return tuple(self._surface)

    def append(
        self,
        type: str,
        data: Any,
        *,
        surface_op: Any = None,
        source_event_seqs: list[int] | None = None,
    ) -> object:
        seq = len(self.events)
        event = {"type": type, "seq": seq, "time": 0, "data": data}
        if surface_op is not None:
            event["surfaceOp"] = surface_op
        if source_event_seqs is not None:
            event["sourceEventSeqs"] = source_event_seqs
        self.events.append(event)
        _follow_surface(self._surface, surface_op, seq)
        return event


def _follow_surface(surface: list[int], op: Any, seq: int) -> None:
    if op == "append":
        surface.append(seq)
    elif op is not None:
        start, end = (
            (op.start, op.end) if isinstance(op, SurfaceReplace) else (op["start"], op["end"])
        )
        surface[surface.index(start) : surface.index(end) + 1] = [seq]


def user(seq: int) -> dict[str, Any]:
    return {
        "id": f"u{seq}",
        "role": "user",
        "content": [{"type": "text", "text": f"message {seq}"}],
        "source": {"kind": "user"},
    }


def build(n: int, log: AnyLog) -> AnyLog:
    """Append the benchmark's n events to ``log``."""
    for seq in range(n):
        kind = seq % 5
        if seq % 50 == 49 and len(surface := log.surface) >= 2:
            first, second = surface[0], surface[1]
            log.append(
                "user/message",
                user(seq),
                surface_op=SurfaceReplace(first, second),
                source_event_seqs=[first, second],
            )
        elif kind == 0:
            log.append("user/message", user(seq), surface_op="append")
        elif kind == 1:
            log.append(
                "assistant/chunk",
                {"turn": 1, "step": 1, "chunk": {"type": "finish", "reason": {"kind": "stop"}}},
            )
        elif kind == 2:
            message = {
                "id": f"a{seq}",
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
                "source": {"kind": "model", "provider": "p", "model": "m"},
            }
            log.append(
                "assistant/message",
                {"turn": 1, "step": 1, "message": message},
                surface_op="append",
                source_event_seqs=[seq - 1],
            )
        else:
            log.append("x-plugin/progress", {"fraction": seq / n})
    return log


def plain_fold(events: list[dict[str, Any]]) -> list[int]:
    """The floor for folding: one pass that reads every value of each event (`json.dumps`, in C:
    the least a checker of every value costs) and keeps the surface."""
    surface: list[int] = []
    for event in events:
        json.dumps(event)
        _follow_surface(surface, event.get("surfaceOp"), event["seq"])
    return surface


def main() -> None:
    appending, folding = [], []
    for n in SIZES:
        events = build(n, SessionLog()).to_json()
        assert fold_log(events).surface == plain_fold(events)
        append, append_floor, fold, fold_floor = best_times(
            [
                lambda n=n: build(n, SessionLog()),
                lambda n=n: build(n, PlainLog()),
                lambda events=events: fold_log(events),
                lambda events=events: plain_fold(events),
            ],
            repeats=5,
        )
        appending.append((n, append / n, append_floor / n))
        folding.append((n, fold / n, fold_floor / n))
    table(
        "reference append, per event (µs); anchor: a dict in a list, a list surface",
        "events",
        appending,
    )
    print()
    table(
        "suite fold (logfold), per event (µs); anchor: json.dumps + the surface",
        "events",
        folding,
    )


if __name__ == "__main__":
    main()
