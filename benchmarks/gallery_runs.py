"""What the gallery's runs cost: a fresh runner per wrong implementation, against one forked
process per implementation with the gallery's no-shrink Hypothesis profile (issue 7, "Speed";
issue 19).

Both ways run the same jobs as ``tests/gallery/test_gallery.py`` (each wrong driver under its
contract ID, then the unchanged reference under all of them) with ``CI=1`` (deterministic
examples, no example database), for the first tenth of the jobs and for all of them. Each figure
is the CPU time of the child processes per job, beside its floor: a fresh interpreter that
imports the runner and exits, per job (the least a job in a process of its own costs); then the
ratio and the growth exponent of the time per job (`benchmarks/figures.py`), and the wall time.
A script that prints figures, not a test.

    python benchmarks/gallery_runs.py
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

GALLERY = Path(__file__).resolve().parent.parent / "tests" / "gallery"
sys.path.insert(0, str(GALLERY))

from figures import table  # noqa: E402
from wrong_impls import WRONG_IMPLEMENTATIONS  # noqa: E402

ENV = {**os.environ, "CI": "1", "PYTHONPATH": str(GALLERY)}


def jobs() -> list[Job]:
    found = [(driver, [contract]) for driver, contract in sorted(WRONG_IMPLEMENTATIONS.items())]
    found.append(("Driver", sorted(set(WRONG_IMPLEMENTATIONS.values()))))
    return found


Job = tuple[str, list[str]]


def measured(run: Callable[[], object]) -> tuple[float, float]:
    """Wall seconds and child CPU seconds (user + system) of ``run()``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def one_process_each(outdir: str, chosen: list[Job]) -> None:
    for driver, contracts in chosen:
        command = [
            sys.executable,
            "-m",
            "dsh_conformance.run.runner",
            "--impl",
            f"wrong_impls:{driver}",
        ]
        command += [arg for contract in contracts for arg in ("--contract", contract)]
        command += ["--conformance-json", os.path.join(outdir, f"{driver}.json")]
        subprocess.run(command, env=ENV, capture_output=True, check=False)


def forked(outdir: str, chosen: list[Job]) -> None:
    specs = [f"{driver}={','.join(contracts)}" for driver, contracts in chosen]
    command = [sys.executable, str(GALLERY / "isolated_runs.py"), "2", outdir, *specs]
    subprocess.run(command, env=ENV, capture_output=True, check=True)


def bare_starts(_outdir: str, chosen: list[Job]) -> None:
    """The floor: one interpreter per job that imports the runner and exits."""
    for _ in chosen:
        command = [sys.executable, "-c", "import dsh_conformance.run.runner"]
        subprocess.run(command, env=ENV, check=True)


def main() -> None:
    every = jobs()
    sizes = (len(every) // 10, len(every))
    for name, way in [
        ("a fresh dsh-conformance process each, full Hypothesis (before)", one_process_each),
        ("forked from one process, no shrinking (now)", forked),
    ]:
        rows, walls = [], []
        for size in sizes:
            chosen = every[:size]
            with tempfile.TemporaryDirectory() as outdir:
                wall, cpu = measured(lambda: way(outdir, chosen))  # noqa: B023 - called at once
                _, floor = measured(lambda: bare_starts(outdir, chosen))  # noqa: B023
            rows.append((size, cpu / size, floor / size))
            walls.append(f"{size} jobs {wall:.1f} s")
        table(f"{name}: CPU per job (ms); anchor: importing the runner", "jobs", rows, unit="ms")
        print(f"  wall: {', '.join(walls)}")


if __name__ == "__main__":
    main()
