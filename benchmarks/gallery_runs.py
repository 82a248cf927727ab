"""What the gallery's runs cost: a fresh runner per wrong implementation, against one forked
process per implementation with the gallery's no-shrink Hypothesis profile (issue 7, "Speed").

Both ways run the same jobs as ``tests/gallery/test_gallery.py`` (each wrong driver under its
contract ID, then the unchanged reference under all of them) with ``CI=1`` (deterministic
examples, no example database), and print wall time and the CPU time of the child processes.
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
from pathlib import Path

GALLERY = Path(__file__).resolve().parent.parent / "tests" / "gallery"
sys.path.insert(0, str(GALLERY))

from wrong_impls import WRONG_IMPLEMENTATIONS  # noqa: E402

ENV = {**os.environ, "CI": "1", "PYTHONPATH": str(GALLERY)}


def jobs() -> list[tuple[str, list[str]]]:
    found = [(driver, [contract]) for driver, contract in sorted(WRONG_IMPLEMENTATIONS.items())]
    found.append(("Driver", sorted(set(WRONG_IMPLEMENTATIONS.values()))))
    return found


def measured(run: object) -> tuple[float, float]:
    """Wall seconds and child CPU seconds (user + system) of ``run()``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run()  # type: ignore[operator]
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def one_process_each(outdir: str) -> None:
    for driver, contracts in jobs():
        command = [
            sys.executable,
            "-m",
            "conformance.run.runner",
            "--impl",
            f"wrong_impls:{driver}",
        ]
        command += [arg for contract in contracts for arg in ("--contract", contract)]
        command += ["--conformance-json", os.path.join(outdir, f"{driver}.json")]
        subprocess.run(command, env=ENV, capture_output=True, check=False)


def forked(outdir: str) -> None:
    specs = [f"{driver}={','.join(contracts)}" for driver, contracts in jobs()]
    command = [sys.executable, str(GALLERY / "isolated_runs.py"), "2", outdir, *specs]
    subprocess.run(command, env=ENV, capture_output=True, check=True)


def main() -> None:
    print(f"{len(jobs())} gallery runs:")
    for name, way in [
        ("a fresh dsh-conformance process each, full Hypothesis (before)", one_process_each),
        ("forked from one process, no shrinking (now)", forked),
    ]:
        with tempfile.TemporaryDirectory() as outdir:
            wall, cpu = measured(lambda: way(outdir))  # noqa: B023 - called at once
        print(f"  {name:<64} {wall:6.1f} s wall, {cpu:6.1f} s CPU")


if __name__ == "__main__":
    main()
