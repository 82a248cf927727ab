"""PROMPT-STRICT-RENDER: "A conforming renderer MUST be linear in the text length".

Linearity is measured through the protocol, not left to the case timeout (which made a quadratic
renderer *errored*, or not, depending on the machine). Two scenarios render the same amount of
text: one renders `GROWTH` texts of n units, one after another (each its own section and
assembly, so nothing rendered once can be reused), the other one text of `GROWTH` times n units.
Linear work costs both the same; quadratic work costs the long text `GROWTH` times more. The test
fails when the long text took more than `BOUND` times as long, the geometric middle of the two.
Comparing runs of the same length keeps the verdict steady on a loaded machine: a short run escapes
the scheduler's preemption far more often than one eight times longer, which made the ratio of a
short and a long run of linear work many times its true value there. Each scenario runs several
times and its best time counts, since noise only ever adds time: the short one `REPEATS` times,
the long one until a run comes within the bound, at most `LONG_TRIES` times. A linear renderer
stops at its first clean long run; a conforming one failed only when every long run was slowed
down past the bound, which five tries allowed on a busy machine (3.4x against the bound of
2.83x, once, beside eight other suite runs at load average 6), and twelve make far rarer; a
quadratic renderer pays for every try. The message carries the figures.

The text is the upstream's worst case: lone ``{{`` with no ``}}`` anywhere, all literal, which the
upstream's rescan for ``}}`` makes quadratic. Each unit holds a lone ``}``, so that rescan must
stop at every later ``}`` to the end of the text: without one, a search that skips to the first
``}`` (JavaScript's ``indexOf`` does) runs so fast that the quadratic growth hides.
"""

from __future__ import annotations

import time
from typing import Final

import pytest

from .harness.transport import Implementation
from .judge.case import Case
from .run.execute import ConformanceFailure, check
from .scenarios import scenario as s

CONTRACT: Final = "PROMPT-STRICT-RENDER"
RULE: Final = (
    "A conforming renderer MUST be linear in the text length (the upstream's rescan for `}}` is "
    "quadratic on inputs with many lone `{{`; ours must not be); a `{{` with no `}}` anywhere "
    "later is literal text."
)
UNIT: Final = "a {{ } "
#: Small enough that a quadratic renderer's long text stays far below the case timeout.
SMALL: Final = 2_000
GROWTH: Final = 8
#: Linear work: both scenarios cost the same (1x); quadratic work: the long text GROWTH times
#: more. The bound is the geometric middle.
BOUND: Final = GROWTH**0.5
REPEATS: Final = 5
#: Runs of the long text at most: only an implementation that fails (or a machine so busy that
#: every run is slowed down past the bound) makes them all.
LONG_TRIES: Final = 12


def _case(units: int, texts: int) -> Case:
    """Render `texts` distinct texts of `units` units each, one section and assembly each."""
    ops = [s.configure({"includeHarnessIdentity": False})]
    for i in range(texts):
        body = f"{i} " + UNIT * units
        ops += (
            s.section(f"body{i}", f"body{i}", 1, body),
            s.assemble(f"a{i}"),
            s.render(f"a{i}", expect=s.text(body)),
            s.release(f"body{i}"),
        )
    return Case(
        id=f"render/linear-in-lone-opens-{texts}x{units}",
        contracts=(CONTRACT,),
        why=RULE,
        ops=tuple(ops),
    )


def _timed(impl: Implementation, case: Case) -> float:
    start = time.perf_counter()
    check(impl, case)  # a wrong result fails here, before any timing is judged
    return time.perf_counter() - start


@pytest.mark.contract(CONTRACT)
def test_render_time_grows_linearly(impl: Implementation) -> None:
    """Best of `REPEATS` runs of the short texts, then runs of the long one until one stays
    within `BOUND` times that: a linear implementation stops at its first clean long run, a
    quadratic one pays for all `LONG_TRIES` and fails only if none comes within the bound.
    """
    short_case, long_case = _case(SMALL, GROWTH), _case(SMALL * GROWTH, 1)
    short = min(_timed(impl, short_case) for _ in range(REPEATS))
    long = float("inf")
    for _ in range(LONG_TRIES):
        long = min(long, _timed(impl, long_case))
        if long <= BOUND * short:
            return
    raise ConformanceFailure(
        f"rendering one text of {SMALL * GROWTH} units took {long / short:.1f}x as long as "
        f"rendering {GROWTH} texts of {SMALL} units (unit {UNIT!r}, best of {REPEATS} and of "
        f"{LONG_TRIES}: {short:.4f} s and {long:.4f} s); linear work takes the same time for both, "
        f"quadratic work {GROWTH}x as long, the bound is {BOUND:.2f}x.\n"
        f"why: {RULE}"
    )
