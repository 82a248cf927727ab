"""What the test tiers cost, wall and CPU, on this machine now (issue 32: the README's test
command within 120 s of wall time on two cores, the whole ``.ci/run`` within 12 minutes).

    python benchmarks/tiers.py [command] [ci-tier] [ci-run]     (default: command)

- ``command``: the README's test command, ``python -m pytest`` (both cores: ``-n auto`` in
  pyproject.toml), from this checkout;
- ``ci-tier``: what CI runs after it, ``python -m pytest -m "fuzz or exhaustive"``;
- ``ci-run``: the whole ``.ci/run`` on a fresh clone of this checkout's HEAD (a fresh virtual
  environment, the install, the linters, both pytest runs), as CI runs it.

Each row: wall seconds, CPU seconds of the process tree (user + system, from ``getrusage`` of
the children), CPU over wall (how many cores it kept busy), the load average before and after
(a shared machine's wall time moves with it; CPU time much less), what pytest said at its end,
and beside it its floor: the same pytest command collecting only (``--collect-only``), the least
the tier costs before any test runs. All runs with ``CI=true`` (Hypothesis derandomized, as CI).
A script that prints figures, not a test.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
TIERS = {
    "command": [*PYTEST, "-q"],
    "ci-tier": [*PYTEST, "-q", "-m", "fuzz or exhaustive"],
}
ENV = {**os.environ, "CI": "true"}


def measured(
    argv: list[str], cwd: Path, env: dict[str, str] = ENV
) -> tuple[float, float, str, str]:
    """Wall seconds, CPU seconds of the children, the load averages before and after, and the
    last lines pytest printed (its counts and time) of ``argv`` run in ``cwd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    completed = subprocess.run(argv, cwd=cwd, env=ENV, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    said = [line for line in completed.stdout.splitlines() if re.search(r" in [\d.]+s", line)]
    summary = " / ".join(line.strip("= ") for line in said) or f"exit {completed.returncode}"
    return wall, cpu, f"{load:.1f} -> {os.getloadavg()[0]:.1f}", summary


def clone() -> Path:
    """A fresh clone of this checkout's HEAD (what CI sees: nothing uncommitted)."""
    directory = Path(tempfile.mkdtemp(prefix="dsh-tiers-")) / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(directory)], check=True)
    return directory


def main(argv: list[str]) -> int:
    chosen = argv or ["command"]
    unknown = sorted(set(chosen) - {*TIERS, "ci-run"})
    if unknown:
        sys.stderr.write(f"unknown tier(s) {unknown}: give command, ci-tier or ci-run\n")
        return 2
    rows = []
    for tier in chosen:
        if tier == "ci-run":
            where = clone()
            # The clone's own code, not this checkout's through $PYTHONPATH.
            env = {key: value for key, value in ENV.items() if key != "PYTHONPATH"}
            figure = measured(["bash", ".ci/run"], where, env)
            python = str(where / ".venv" / "bin" / "python")
            floor = measured([python, *PYTEST[1:], "--collect-only", "-q"], where, env)
            shutil.rmtree(where.parent)
        else:
            figure = measured(TIERS[tier], ROOT)
            floor = measured([*TIERS[tier], "--collect-only"], ROOT)
        rows.append((tier, figure, floor))
    print(
        f"{'tier':<8} {'wall s':>8} {'CPU s':>8} {'CPU/wall':>8} {'load':>12}  "
        f"{'floor wall s':>12} {'floor CPU s':>11}  pytest said"
    )
    for tier, (wall, cpu, load, said), (floor_wall, floor_cpu, _, _) in rows:
        print(
            f"{tier:<8} {wall:>8.1f} {cpu:>8.1f} {cpu / wall:>8.2f} {load:>12}  "
            f"{floor_wall:>12.1f} {floor_cpu:>11.1f}  {said}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
