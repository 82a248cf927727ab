"""What every benchmark prints (issue 19): a figure, the Python floor for the same work beside it,
their ratio, and how the figure grows with the size.

The machine is shared and its speed drifts, so a figure is never compared with one from another
run: each is timed in the same process as its anchor, rounds interleaved, best of several, and
the verdicts read ratios, not seconds. Times are the process's CPU time (`time.process_time`):
wall time counts the moments other programs hold the processor.
"""

from __future__ import annotations

import gc
import math
import os
import time
from collections.abc import Callable, Sequence


def best_time(work: Callable[[], object], repeats: int = 7, least: float = 0.02) -> float:
    """Seconds one call of ``work`` takes: the best of ``repeats`` rounds of enough calls to last
    ``least`` seconds (the garbage collector on, as the reference runs)."""
    return best_times([work], repeats, least)[0]


def best_times(
    works: Sequence[Callable[[], object]], repeats: int = 15, least: float = 0.02
) -> list[float]:
    """`best_time` of each of ``works``, their rounds interleaved: a figure and its anchor see the
    same moments of a shared machine's load."""
    calls = [_calls_lasting(work, least) for work in works]
    best = [math.inf] * len(works)
    for _ in range(repeats):
        for index, work in enumerate(works):
            gc.collect()
            start = time.process_time()
            for _ in range(calls[index]):
                work()
            best[index] = min(best[index], (time.process_time() - start) / calls[index])
    return best


def _calls_lasting(work: Callable[[], object], least: float) -> int:
    calls = 1
    while True:
        start = time.process_time()
        for _ in range(calls):
            work()
        if time.process_time() - start >= least:
            return calls
        calls *= 2


def load_average() -> str:
    """The 1, 5 and 15 minute load averages: on a shared machine, the context of every figure."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def growth_exponent(sizes: Sequence[float], seconds: Sequence[float]) -> float:
    """k in seconds ∝ size**k between the smallest and largest size (1: linear, 0: constant)."""
    return math.log(seconds[-1] / seconds[0]) / math.log(sizes[-1] / sizes[0])


def table(
    title: str, size_name: str, rows: Sequence[tuple[int, float, float]], unit: str = "µs"
) -> float:
    """Print ``(size, figure seconds, anchor seconds)`` rows with their ratios and the figure's
    growth exponent; return the largest ratio."""
    scale = {"µs": 1e6, "ms": 1e3}[unit]
    print(title)
    print(f"{size_name:>10} {'figure ' + unit:>14} {'anchor ' + unit:>14} {'ratio':>7}")
    for size, figure, anchor in rows:
        print(f"{size:>10} {figure * scale:>14.2f} {anchor * scale:>14.2f} {figure / anchor:>7.2f}")
    print(f"load average after timing: {load_average()}")
    sizes = [row[0] for row in rows]
    exponent = growth_exponent(sizes, [row[1] for row in rows])
    anchor_exponent = growth_exponent(sizes, [row[2] for row in rows])
    print(
        f"growth exponent over {sizes[0]}..{sizes[-1]}: figure {exponent:.2f}, anchor "
        f"{anchor_exponent:.2f}"
    )
    return max(figure / anchor for _, figure, anchor in rows)
