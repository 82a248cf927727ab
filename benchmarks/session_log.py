"""Do the session log and the suite's fold stay linear in the log length? (ROOT-MODEL)

Appends n events — user and assistant messages, tool calls and results, boundaries, and a replace
of the two oldest visible nodes every 50 events (compaction-like) — to `reference.SessionLog`,
then folds the same log with the suite's own `conformance.judge.logfold`, for n and 8n events, and
prints the time per event and the ratio. Linear work gives a ratio near 8. A replace is a list
search on the surface (as upstream's `indexOf`), so it is linear in the surface length; appends
are constant time. This is a script that prints figures, not a test.

    python benchmarks/session_log.py
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from conformance.judge.logfold import fold_log
from reference import SessionLog, SurfaceReplace

BASE_N = 2_000
SCALE = 8
REPEATS = 3


def user(seq: int) -> dict[str, Any]:
    return {
        "id": f"u{seq}",
        "role": "user",
        "content": [{"type": "text", "text": f"message {seq}"}],
        "source": {"kind": "user"},
    }


def build(n: int) -> SessionLog:
    log = SessionLog()
    while len(log) < n:
        seq = log.next_seq
        kind = seq % 5
        if seq % 50 == 49 and len(log.surface) >= 2:
            first, second = log.surface[0], log.surface[1]
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


def best(action: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        gc.collect()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def row(label: str, seconds: dict[int, float]) -> str:
    small, large = BASE_N, BASE_N * SCALE
    return (
        f"{label:<24}{small:>8}{seconds[small] / small * 1e6:>12.1f}{large:>8}"
        f"{seconds[large] / large * 1e6:>12.1f}{seconds[large] / seconds[small]:>8.1f}"
    )


def main() -> None:
    sizes = (BASE_N, BASE_N * SCALE)
    logs = {n: build(n).to_json() for n in sizes}
    appending = {n: best(partial(build, n)) for n in sizes}
    folding = {n: best(partial(fold_log, logs[n])) for n in sizes}
    print(f"{'what':<24}{'n':>8}{'us/event':>12}{'8n':>8}{'us/event':>12}{'ratio':>8}")
    print(row("reference append", appending))
    print(row("suite fold (logfold)", folding))


if __name__ == "__main__":
    main()
