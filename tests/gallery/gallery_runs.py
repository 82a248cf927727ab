"""The gallery's runs (`isolated_runs`), started in the background as soon as pytest knows the
gallery will be judged, so that they run beside the other tests instead of after them.

`conftest.py` starts them when the collected tests include `test_gallery.py` or
`test_right_impls.py`; its ``reports`` fixture waits for them. Besides the runs of the suite, a
job may observe a conforming variant's witness (``witness:Name``), in a process of its own too.
Beside other tests they run one at a time, so that they leave a core to the tests; alone, they
use both cores. Under pytest-xdist each worker starts its share of the runs (`share`), all
writing into one directory; a test waits for every share (`wait_for_shares`).

In the test command a wrong implementation with listed intended failures runs only those tests
(``=intended``, `gallery_only`): proof enough that it fails them; and the runs over every
contract (the control, the conforming variants) run every test with fewer property examples
(``=quick``). The CI tier's ``exhaustive`` tests (each wrong implementation fails *only* its
intended tests over its whole contract; each variant passes with every example) ask for the whole
runs (``exhaustive=True``).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from right_impls import VARIANTS
from wrong_impls import INTENDED_FAILURES, WRONG_IMPLEMENTATIONS

from dsh_conformance.harness.protocol import Outcome

HERE = Path(__file__).parent
CONTROL = "Driver"
#: The loop contracts `RebuiltMessages` must pass: its requests differ from its log only in key
#: order, which no case expectation sees and the suite's own request check must.
LOOP_CONTRACTS = (
    "PROMPT-STEP-BOUNDARY",
    "PROMPT-CANCEL-TEST",
    "PROMPT-RETRY-BOUNDARY",
    "LOOP-REQUEST-ERROR-TEST",
    "LOOP-RUNTIME-CONTEXT",
    "LOOP-REQUEST-BUILD",
    "PROMPT-HEADER-CHANGE-TEST",
)
#: A job observing a conforming variant's witness (``witness:Name``), not a run of the suite.
WITNESS = "witness:"
#: The driver whose requests differ from its log in key order alone.
REBUILT = "RebuiltMessages"
#: Contracts run for a driver besides the one it must be rejected under.
ALSO_RUN = {REBUILT: LOOP_CONTRACTS}


#: Every contract of the gallery: the control's, and each conforming variant's (it must pass all).
ALL_CONTRACTS = ",".join(sorted(set(WRONG_IMPLEMENTATIONS.values())))


def jobs(
    wrong: Iterable[str] = tuple(WRONG_IMPLEMENTATIONS),
    right: Iterable[str] = tuple(VARIANTS),
    exhaustive: bool = True,
    witnesses: Iterable[str] = tuple(VARIANTS),
    control: bool = True,
) -> list[str]:
    """The unchanged reference on every contract (unless not ``control``), the conforming variants
    ``right`` on every contract (as ``right_impls:Name``), then the wrong drivers ``wrong`` with
    their contracts, then the witnesses of the variants ``witnesses`` (as ``witness:Name``).
    Unless ``exhaustive``, a driver with listed intended failures runs only those tests, and the
    runs over every contract draw fewer property examples (``quick``). The longest runs come
    first, so that no share of the runs ends long after the others."""
    every = f"{ALL_CONTRACTS}" if exhaustive else f"{ALL_CONTRACTS}=quick"
    found = [f"{CONTROL}={every}"] if control else []
    found += [f"right_impls:{variant}={every}" for variant in right]
    for driver in sorted(wrong):
        job = f"{driver}={','.join((WRONG_IMPLEMENTATIONS[driver], *ALSO_RUN.get(driver, ())))}"
        only = not exhaustive and driver in INTENDED_FAILURES and driver not in ALSO_RUN
        found.append(f"{job}=intended" if only else job)
    found += [f"{WITNESS}{variant}" for variant in witnesses]
    return found


def share(jobs: list[str], index: int, count: int) -> list[str]:
    """Worker ``index``'s share of ``jobs`` out of ``count`` workers (every ``count``-th)."""
    return jobs[index::count]


def wait_for_shares(outdir: Path, count: int, limit: float = 1800) -> None:
    """Wait until the ``count`` shares of the runs have ended (each writes ``finished-PID``
    holding its status: `isolated_runs`); fail if one could not run a job."""
    deadline = time.monotonic() + limit
    while len(finished := sorted(outdir.glob("finished-*"))) < count:
        assert time.monotonic() < deadline, f"{len(finished)} of {count} shares ended in time"
        time.sleep(0.2)
    broken = [path.name for path in finished if path.read_text(encoding="utf-8") != "0"]
    assert not broken, f"a share of the gallery's runs could not run a job: {broken}"


def judged(reports: Path, driver: str) -> dict[str, Any]:
    """The report's entry for the one implementation a driver's run judged."""
    report = reports / f"{driver}.json"
    printed = (reports / f"{driver}.out").read_text(encoding="utf-8")
    assert report.exists(), f"no report for {driver}; the run printed:\n{printed}"
    (implementation,) = json.loads(report.read_text())["implementations"]
    found: dict[str, Any] = implementation
    return found


def observed(outcome: Outcome) -> str:
    """What a run observed, as JSON text (key order counts too), without what differs between
    any two runs: the wall-clock ``time`` of log events, the port of a loopback server."""

    def timeless(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: timeless(item) for key, item in value.items() if key != "time"}
        if isinstance(value, list):
            return [timeless(item) for item in value]
        return value

    assert outcome.kind == "observed", (outcome.reason, outcome.context)
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", json.dumps(timeless(outcome.observations)))


def witnessed(reports: Path, variant: str) -> str:
    """What the conforming variant observed of its witness (`observed`), in a process of its own
    (`isolated_runs`: the variant patches the reference for the life of its process)."""
    name = f"{WITNESS}{variant}"
    found = reports / f"{name}.txt"
    printed = (reports / f"{name}.out").read_text(encoding="utf-8")
    assert found.exists(), f"no witness observed for {variant}; the run printed:\n{printed}"
    return found.read_text(encoding="utf-8")


def stop(process: subprocess.Popen[str]) -> None:
    """Kill the runs still going (an interrupted session): the process and its forked runs."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def start(outdir: Path, parallel: int, todo: list[str]) -> subprocess.Popen[str]:
    """Start the runs ``todo`` (from `jobs`), ``parallel`` at a time, writing into ``outdir``;
    what it prints is kept for a failure message."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.Popen(
        [
            sys.executable,
            str(HERE / "isolated_runs.py"),
            str(parallel),
            str(outdir),
            *todo,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,  # its own process group, the forked runs included
    )
