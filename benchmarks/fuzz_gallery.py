"""Figures for issue 21: how fast fuzzing finds each wrong implementation of the gallery.

For each wrong implementation named (default: every one `tests/gallery/test_fuzz_gallery.py`
lists as reached, found within its budget or not), runs what that test runs (its seed, its
number of scenarios, its family) and prints one line as soon as it is done: found or not,
scenarios judged, seconds to the first divergence and seconds shrinking it, ops before and
after shrinking, the contract
IDs of the shrunk case, whether they include the one the test requires ("same contract": the
gallery's, or the one `FOUND_UNDER` names), and whether that case fails on the wrong
implementation and passes on the reference: the test's verdict, so that after a change to
generation the tables can be re-checked entry by entry (a NOT_FOUND entry now found with the
same contract and replay ok belongs in REACHED). At the end: how many were found, the median
and range of the seconds to the first divergence and of the shrunk sizes (ops), and where the
seconds went: fuzzing before the first divergence (or without finding one), and shrinking. A script
that prints figures, not a test; the machine's load average is printed first, since the
seconds depend on it (the scenarios, the shrunk cases and their sizes do not: both budgets are
counts).

    python benchmarks/fuzz_gallery.py [DRIVER...]
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "gallery"))

from fuzz_runs import verdict
from test_fuzz_gallery import FOUND_UNDER, NOT_FOUND_WITHIN_BUDGET, REACHED
from wrong_impls import WRONG_IMPLEMENTATIONS

#: Each wrong implementation the families reach, and its family (found within the budget or not).
FAMILY = {**REACHED, **{name: why.split(":")[0] for name, why in NOT_FOUND_WITHIN_BUDGET.items()}}


def figures(driver: str) -> tuple[str, float | None, int | None, float]:
    """The line printed for ``driver``, its seconds to the first divergence and its shrunk size
    (``None`` when nothing was found), and its seconds in all."""
    found = verdict(driver, FAMILY[driver])
    if not found["found"]:
        line = (
            f"{driver:<42} {FAMILY[driver]:<8} NOT FOUND in {found['examples']} scenarios, "
            f"{found['seconds']:6.2f} s"
        )
        return line, None, None, found["seconds"]
    # The test's rule: the gallery's contract, or the one FOUND_UNDER gives with its reason.
    same = FOUND_UNDER.get(driver, (WRONG_IMPLEMENTATIONS[driver],))[0] in found["contracts"]
    replay = bool(found["on_impl"]) and not found["on_reference"]
    before, after = found["ops"]
    line = (
        f"{driver:<42} {FAMILY[driver]:<8} found after {found['first_examples']:>3} scenarios, "
        f"{found['first_seconds']:6.2f} s; {before:>3} -> {after:>2} ops "
        f"({found['shrink_examples']} judged shrinking, "
        f"{found['seconds'] - found['first_seconds']:.2f} s); "
        f"{'same contract' if same else 'OTHER contract'} ({', '.join(found['contracts'])}); "
        f"replay {'ok' if replay else 'WRONG'}"
    )
    return line, found["first_seconds"], after, found["seconds"]


def main() -> None:
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    drivers = sys.argv[1:] or sorted(FAMILY)
    seconds: list[float] = []
    sizes: list[int] = []
    spent = {"before": 0.0, "shrinking": 0.0}
    for driver in drivers:
        line, first, size, whole = figures(driver)
        print(line, flush=True)
        spent["before"] += whole if first is None else first
        spent["shrinking"] += 0.0 if first is None else whole - first
        if first is not None and size is not None:
            seconds.append(first)
            sizes.append(size)
    print(f"found {len(sizes)} of {len(drivers)}")
    print(
        f"seconds fuzzing before the first divergence (or finding none): {spent['before']:.1f}; "
        f"shrinking: {spent['shrinking']:.1f}"
    )
    if sizes:
        print(
            f"seconds to the first divergence: median {statistics.median(seconds):.2f} "
            f"({min(seconds):.2f}-{max(seconds):.2f}); shrunk size: median "
            f"{statistics.median(sizes):g} ops ({min(sizes)}-{max(sizes)})"
        )


if __name__ == "__main__":
    main()
