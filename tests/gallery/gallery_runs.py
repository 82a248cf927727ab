"""The gallery's runs (`isolated_runs`), started in the background as soon as pytest knows the
gallery will be judged, so that they run beside the other tests instead of after them.

`conftest.py` starts them when the collected tests include `test_gallery.py`; its ``reports``
fixture waits for them. Beside other tests they run one at a time, on the second of the
machine's two cores, so that they do not compete with the tests that measure time (case
timeouts, the render linearity ratio); alone, they use both cores.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from right_impls import VARIANTS
from wrong_impls import WRONG_IMPLEMENTATIONS

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
#: The driver whose requests differ from its log in key order alone.
REBUILT = "RebuiltMessages"
#: Contracts run for a driver besides the one it must be rejected under.
ALSO_RUN = {REBUILT: LOOP_CONTRACTS}


#: Every contract of the gallery: the control's, and each conforming variant's (it must pass all).
ALL_CONTRACTS = ",".join(sorted(set(WRONG_IMPLEMENTATIONS.values())))


def jobs(
    wrong: Iterable[str] = tuple(WRONG_IMPLEMENTATIONS), right: Iterable[str] = tuple(VARIANTS)
) -> list[str]:
    """The wrong drivers ``wrong`` with their contracts, the conforming variants ``right`` on
    every contract, as ``right_impls:Name``, then the unchanged reference on all of them."""
    found = [
        f"{driver}={','.join((WRONG_IMPLEMENTATIONS[driver], *ALSO_RUN.get(driver, ())))}"
        for driver in sorted(wrong)
    ]
    found += [f"right_impls:{variant}={ALL_CONTRACTS}" for variant in right]
    found.append(f"{CONTROL}={ALL_CONTRACTS}")
    return found


def judged(reports: Path, driver: str) -> dict[str, Any]:
    """The report's entry for the one implementation a driver's run judged."""
    report = reports / f"{driver}.json"
    printed = (reports / f"{driver}.out").read_text(encoding="utf-8")
    assert report.exists(), f"no report for {driver}; the run printed:\n{printed}"
    (implementation,) = json.loads(report.read_text())["implementations"]
    found: dict[str, Any] = implementation
    return found


def stop(process: subprocess.Popen[str]) -> None:
    """Kill the runs still going (an interrupted session): the process and its forked runs."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def start(
    outdir: Path, parallel: int, *, wrong: Iterable[str], right: Iterable[str]
) -> subprocess.Popen[str]:
    """Start the runs (`jobs`), ``parallel`` at a time, writing into ``outdir``; what it prints
    is kept for a failure message."""
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
            *jobs(wrong, right),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,  # its own process group, the forked runs included
    )
