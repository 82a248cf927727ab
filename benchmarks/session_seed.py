"""Is rebuilding a session from a seed as cheap as reading the log as JSON? (issue 36, goal 2)

A harness resumes a session by building `reference.SessionLog.from_seed` over the events earlier
runs wrote, then asks for the derived messages ("A session built over a seed ... validates them
and appends `session/end-seed` after them", ROOT-MODEL). Every seeded event is checked against
every rule, once, and its data checked for lossless JSON and frozen in one walk. The figure is
that rebuild, per event, for logs of 1k, 10k and 100k events (`session_log.build`'s mix: user and
assistant messages, chunks, plugin events, a replace every 50 events); the Python floor beside it
is a `json.dumps` and a `json.loads` of the same log, the least a reader of every value pays.
Timed interleaved in CPU time (`figures.best_times`). Goal: within 2x at every size.

This is a script that prints figures, not a test.

    python benchmarks/session_seed.py
"""

from __future__ import annotations

import json
from typing import Any

from figures import best_times, table
from session_log import build

from dsh_reference import SessionLog

SIZES = (1_000, 10_000, 100_000)
GOAL = 2.0


def rebuild(events: list[dict[str, Any]]) -> object:
    return SessionLog.from_seed(events).messages()


def read_as_json(events: list[dict[str, Any]]) -> object:
    return json.loads(json.dumps(events))


def main() -> None:
    rows = []
    for n in SIZES:
        events = build(n, SessionLog()).to_json()
        assert SessionLog.from_seed(events).to_json()[:-1] == events
        figure, anchor = best_times(
            [lambda e=events: rebuild(e), lambda e=events: read_as_json(e)],
            repeats=15 if n < 100_000 else 5,
        )
        rows.append((n, figure / n, anchor / n))
    worst = table(
        "SessionLog.from_seed + messages(), per event (µs); anchor: json.dumps + json.loads",
        "events",
        rows,
    )
    verdict = "met" if worst <= GOAL else "missed"
    print(f"issue 36 goal 2 (within {GOAL:g}x at 1k-100k events): {verdict}")


if __name__ == "__main__":
    main()
