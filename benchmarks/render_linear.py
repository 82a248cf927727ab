"""Is `dsh_reference.render.interpolate` linear in the text length, and at its floor?

PROMPT-STRICT-RENDER: "A conforming renderer MUST be linear in the text length (the upstream's
rescan for `}}` is quadratic on inputs with many lone `{{`; ours must not be)."

For each case this times `interpolate` on a text of n units and of 16n units (best of several
repeats, `time.process_time`) and prints the ratio. Linear work gives a ratio near 16; a quadratic
renderer gives about 256. The verdict line checks every ratio against a generous bound of 20.

Then each case at both sizes beside its Python floor, one ``re.sub`` over the same text that
replaces each ``{{...}}`` group by a dict lookup (`render_floor.one_sub`), timed interleaved in CPU
time (`figures.best_times`). Issue 36's goal: within 2x on the lone-``{{`` input.
This is a script that prints figures, not a test: it exits 0 unless something raises.

    python benchmarks/render_linear.py
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

from figures import best_times, load_average, table
from render_floor import one_sub

from dsh_reference.render import interpolate

BASE_N = 4_000
SCALE = 16
REPEATS = 7
RATIO_BOUND = 20.0

VARIABLES = {"name": "Ann", "model": "deepseek-chat", "tool_count": "3"}


def references(n: int) -> str:
    """(a) Normal text: n units, each a literal run and a `{{name}}`-style reference."""
    names = list(VARIABLES)
    return "".join(f"Literal text {i} with {{{{{names[i % 3]}}}}}. " for i in range(n))


def lone_opens(n: int) -> str:
    """(b) n lone `{{` with no `}}` anywhere: every one is literal."""
    return "a {{ b " * n


def plain(n: int) -> str:
    """(c) Long literal text with no braces at all."""
    return "The quick brown fox jumps over the lazy dog. " * n


CASES: dict[str, Callable[[int], str]] = {
    "references": references,
    "lone-open-braces": lone_opens,
    "no-braces": plain,
}


def best_time(text: str) -> float:
    """Best of `REPEATS` runs, with the garbage collector paused so it does not add noise."""
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(REPEATS):
            start = time.process_time()
            interpolate(text, VARIABLES, where="benchmark")
            best = min(best, time.process_time() - start)
    finally:
        gc.enable()
    return best


def main() -> int:
    n, big = BASE_N, BASE_N * SCALE
    print(f"{'case':<18} {'n':>6} {'time(n) s':>11} {'time(16n) s':>12} {'ratio':>7}")
    ratios: list[float] = []
    for case, build in CASES.items():
        small_time, big_time = best_time(build(n)), best_time(build(big))
        ratio = big_time / small_time
        ratios.append(ratio)
        print(f"{case:<18} {n:>6} {small_time:>11.6f} {big_time:>12.6f} {ratio:>7.2f}")
    verdict = all(ratio <= RATIO_BOUND for ratio in ratios)
    print(f"every ratio <= {RATIO_BOUND:g}: {verdict} (load average {load_average()})")
    for case, build in CASES.items():
        print()
        rows = []
        for size in (n, big):
            text = build(size)
            figure, anchor = best_times(
                [
                    lambda t=text: interpolate(t, VARIABLES, where="benchmark"),
                    lambda t=text: one_sub(t),
                ]
            )
            rows.append((size, figure, anchor))
        worst = table(f"interpolate, {case} (µs); anchor: one re.sub", "units", rows)
        if case == "lone-open-braces":
            print(f"issue 36 goal 3 (within 2x of one re.sub): {'met' if worst <= 2 else 'missed'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
