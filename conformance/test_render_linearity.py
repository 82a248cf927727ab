"""PROMPT-STRICT-RENDER: "A conforming renderer MUST be linear in the text length".

Linearity is measured through the protocol, not left to the case timeout (which made a quadratic
renderer *errored*, or not, depending on the machine): the same render scenario runs on a text of
n units and on one of 8n units, each timed end to end (the best of several runs, since noise on a
loaded machine only ever adds time), and the test fails when the time grew by more than
`BOUND` — twice what linear work gives, half what quadratic work gives. The message carries the
measured figures. The text is the upstream's worst case: lone ``{{`` with no ``}}`` anywhere, all
literal, which the upstream's rescan for ``}}`` makes quadratic. Each unit holds a lone ``}``, so
that rescan must stop at every later ``}`` to the end of the text: without one, a search that skips
to the first ``}`` (JavaScript's ``indexOf`` does) runs so fast that the quadratic growth hides.
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
#: Small enough that a quadratic renderer's large run stays far below the case timeout.
SMALL: Final = 2_000
GROWTH: Final = 8
#: Linear work grows about GROWTH times, quadratic work about GROWTH**2 times.
BOUND: Final = 2.0 * GROWTH
REPEATS: Final = 5


def _case(units: int) -> Case:
    body = UNIT * units
    return Case(
        id=f"render/linear-in-lone-opens-{units}",
        contracts=(CONTRACT,),
        why=RULE,
        ops=(
            s.configure({"includeHarnessIdentity": False}),
            s.section("body", "body", 1, body),
            s.assemble("a"),
            s.render("a", expect=s.text(body)),
        ),
    )


def _timed(impl: Implementation, case: Case) -> float:
    start = time.perf_counter()
    check(impl, case)  # a wrong result fails here, before any timing is judged
    return time.perf_counter() - start


@pytest.mark.contract(CONTRACT)
def test_render_time_grows_linearly(impl: Implementation) -> None:
    """Best of `REPEATS` runs at n, then runs at 8n until one stays within `BOUND` times it.

    Stopping at the first fast large run keeps a linear implementation quick; a quadratic one
    pays for every repeat, and fails only if none of them comes within the bound.
    """
    small_case, big_case = _case(SMALL), _case(SMALL * GROWTH)
    small = min(_timed(impl, small_case) for _ in range(REPEATS))
    big = float("inf")
    for _ in range(REPEATS):
        big = min(big, _timed(impl, big_case))
        if big <= BOUND * small:
            return
    raise ConformanceFailure(
        f"render time grew {big / small:.1f}x when the text grew {GROWTH}x "
        f"({SMALL} to {SMALL * GROWTH} lone '{{{{', best of {REPEATS}: {small:.4f} s to "
        f"{big:.4f} s); linear work grows about {GROWTH}x, the bound is {BOUND:g}x.\n"
        f"why: {RULE}"
    )
