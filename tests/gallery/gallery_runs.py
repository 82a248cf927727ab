"""The gallery's runs (`isolated_runs`), started in the background as soon as pytest knows the
gallery will be judged, so that they run beside the other tests instead of after them.

`conftest.py` starts them when the collected tests include `test_gallery.py`; its ``reports``
fixture waits for them. Beside other tests they run one at a time, on the second of the
machine's two cores, so that they do not compete with the tests that measure time (case
timeouts, the render linearity ratio); alone, they use both cores.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

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
#: Contracts run for a driver besides the one it must be rejected under.
ALSO_RUN = {"RebuiltMessages": LOOP_CONTRACTS}


def jobs() -> list[str]:
    """Each wrong driver with its contracts, then the unchanged reference on all of them."""
    found = [
        f"{driver}={','.join((contract, *ALSO_RUN.get(driver, ())))}"
        for driver, contract in sorted(WRONG_IMPLEMENTATIONS.items())
    ]
    found.append(f"{CONTROL}={','.join(sorted(set(WRONG_IMPLEMENTATIONS.values())))}")
    return found


def stop(process: subprocess.Popen[str]) -> None:
    """Kill the runs still going (an interrupted session): the process and its forked runs."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def start(outdir: Path, parallel: int) -> subprocess.Popen[str]:
    """Start every run, ``parallel`` at a time, writing into ``outdir``; what it prints is kept
    for a failure message."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.Popen(
        [sys.executable, str(HERE / "isolated_runs.py"), str(parallel), str(outdir), *jobs()],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,  # its own process group, the forked runs included
    )
