"""What the runner costs per case, per harness start, and per gallery run (issue 7, "Speed").

Prints, for one small example case run many times (median of several rounds, `time.perf_counter`):

- a direct call of the reference `Driver.handle` (the floor: the model's own work);
- the in-process transport (now: a direct call with a ``SIGALRM`` timer for the timeout), and
  the same forced onto its fallback of one thread per call (how every call went before);
- the subprocess transport through ``dsh-reference-harness``;
- checking one answer against ``protocol.schema.json`` (included in both transports' figures).

Run it with ``PYTHONPATH`` pointing at an older checkout's tree to get that version's figures.

Then the time from spawning ``dsh-reference-harness`` to its ``started`` answer, and the time to
import what it imports. A script that prints figures, not a test: it exits 0 unless something
raises.

    python benchmarks/runner_costs.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from conformance.cases import all_cases
from conformance.harness import transport
from conformance.harness.transport import InProcess, load_implementation
from reference.harness import Driver

ROUNDS = 9
CALLS = 200
STARTS = 10
CASE = next(c for c in all_cases() if c.id == "registry/builtin-sections-by-default")
CASE_MESSAGE = {"type": "run", "case": CASE.id, "scenario": CASE.scenario()}


def per_call(call: Callable[[], object]) -> float:
    """Milliseconds per call: the best of `ROUNDS` rounds of `CALLS` calls (the machine is
    shared; the best round is the least disturbed)."""
    rounds = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for _ in range(CALLS):
            call()
        rounds.append((time.perf_counter() - started) / CALLS * 1000)
    return min(rounds)


def threaded(call: Callable[[], object]) -> Callable[[], object]:
    """``call`` with the in-process transport forced onto its thread-per-call path."""

    def run() -> object:
        saved = transport._alarm_is_free
        transport._alarm_is_free = lambda: False
        try:
            return call()
        finally:
            transport._alarm_is_free = saved

    return run


def validation_cost() -> float:
    """Milliseconds to check one answer against the schema (absent before run-time validation)."""
    try:
        from conformance.harness.validate import check_answer
    except ImportError:
        return float("nan")
    answer = Driver().handle(json.loads(json.dumps(CASE_MESSAGE)))
    return per_call(lambda: check_answer(answer, "run"))


def harness_start() -> float:
    """Median milliseconds from spawning ``dsh-reference-harness`` to its ``started`` line."""
    impl = load_implementation("dsh-reference-harness")
    argv = getattr(impl, "argv")  # noqa: B009 - a Subprocess, by construction
    times = []
    for _ in range(STARTS):
        started = time.perf_counter()
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps({"type": "start", "protocol": 1}) + "\n")
        process.stdin.flush()
        process.stdout.readline()
        times.append((time.perf_counter() - started) * 1000)
        process.stdin.close()
        process.wait()
    return statistics.median(times)


def import_time(module: str) -> float:
    """Median milliseconds for a fresh interpreter to import ``module`` (minus a bare start)."""

    def run(code: str) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return (time.perf_counter() - started) * 1000

    bare = statistics.median(run("pass") for _ in range(STARTS))
    return statistics.median(run(f"import {module}") for _ in range(STARTS)) - bare


def main() -> None:
    scenario = CASE.scenario()
    message = json.loads(json.dumps(CASE_MESSAGE))
    driver = Driver()
    in_process = InProcess(Driver(), label="reference")
    subprocess_impl = load_implementation("dsh-reference-harness")
    subprocess_impl.handshake()
    try:
        rows = [
            ("direct Driver.handle call", per_call(lambda: driver.handle(message))),
            ("in-process transport", per_call(lambda: in_process.run(CASE.id, scenario))),
            (
                "subprocess transport (dsh-reference-harness)",
                per_call(lambda: subprocess_impl.run(CASE.id, scenario)),
            ),
        ]
        if hasattr(transport, "_alarm_is_free"):  # absent before the direct call existed
            rows.insert(
                2,
                (
                    "in-process transport, forced onto a thread per call",
                    per_call(threaded(lambda: in_process.run(CASE.id, scenario))),
                ),
            )
        rows.append(("answer validation alone (protocol.schema.json)", validation_cost()))
    finally:
        subprocess_impl.close()
    print(f"per case ({CASE.id}), best of {ROUNDS} rounds of {CALLS} calls:")
    for name, milliseconds in rows:
        print(f"  {name:<52} {milliseconds:7.3f} ms")
    print(
        f"dsh-reference-harness, spawn to 'started' (median of {STARTS}): {harness_start():.1f} ms"
    )
    print(
        f"  of which importing reference.harness: {import_time('reference.harness'):.1f} ms; "
        f"importlib.metadata alone: {import_time('importlib.metadata'):.1f} ms"
    )


if __name__ == "__main__":
    main()
