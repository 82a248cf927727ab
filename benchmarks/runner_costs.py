"""What the runner costs per case and per harness start (issue 7, "Speed"; issue 19).

Prints, for one small example case run 20 and 200 times in a row, the time per case of each way
to run it beside its floor, the ratio, and the growth exponent of the time per case over that
10x range (0: a case costs the same however many ran before it; `benchmarks/figures.py`):

- the in-process transport (a direct call with a ``SIGALRM`` timer for the timeout), and the
  same forced onto its fallback of one thread per call, beside a direct call of the reference
  `Driver.handle` (the floor: the model's own work);
- the subprocess transport through ``dsh-reference-harness``, beside the same floor;
- checking one answer against ``protocol.schema.json`` (included in both transports' figures),
  beside one ``json.dumps`` of the answer (the least a pass over every value costs).

Times are the best of several rounds, in wall seconds (`time.perf_counter`): the subprocess's
work is in another process, where this one's CPU clock does not see it.
Run it with ``PYTHONPATH`` pointing at an older checkout's tree to get that version's figures.

Then the time from spawning ``dsh-reference-harness`` to its ``started`` answer beside a bare
interpreter's start (a one-off cost: no size to grow with), and the time to import what it
imports. A script that prints figures, not a test: it exits 0 unless something raises.

    python benchmarks/runner_costs.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from figures import table

from dsh_conformance.cases import all_cases
from dsh_conformance.harness import transport
from dsh_conformance.harness.transport import InProcess, load_implementation
from dsh_reference.harness import Driver

ROUNDS = 9
CALLS = (20, 200)
STARTS = 10
CASE = next(c for c in all_cases() if c.id == "registry/builtin-sections-by-default")
CASE_MESSAGE = {"type": "run", "case": CASE.id, "scenario": CASE.scenario()}


def per_call(call: Callable[[], object], calls: int) -> float:
    """Seconds per call in one round of ``calls`` calls in a row."""
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - started) / calls


def rows(call: Callable[[], object], floor: Callable[[], object]) -> list[tuple[int, float, float]]:
    """``(calls, seconds per call, floor's seconds per call)`` for each of `CALLS`: the best of
    `ROUNDS` rounds, the figure's and the floor's interleaved (the machine is shared; the best
    round is the least disturbed)."""
    found = []
    for calls in CALLS:
        rounds = [(per_call(call, calls), per_call(floor, calls)) for _ in range(ROUNDS)]
        found.append((calls, min(f for f, _ in rounds), min(a for _, a in rounds)))
    return found


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


def validation_rows() -> list[tuple[int, float, float]] | None:
    """Checking one answer against the schema, beside one ``json.dumps`` of it (``None`` before
    run-time validation existed)."""
    try:
        from dsh_conformance.harness.validate import check_answer
    except ImportError:
        return None
    answer = Driver().handle(json.loads(json.dumps(CASE_MESSAGE)))
    return rows(lambda: check_answer(answer, "run"), lambda: json.dumps(answer))


def harness_start() -> float:
    """Median seconds from spawning ``dsh-reference-harness`` to its ``started`` line."""
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
        times.append(time.perf_counter() - started)
        process.stdin.close()
        process.wait()
    return statistics.median(times)


def interpreter_start(code: str = "pass") -> float:
    """Median seconds for a fresh interpreter to run ``code`` and exit."""

    def run() -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - started

    return statistics.median(run() for _ in range(STARTS))


def main() -> None:
    scenario = CASE.scenario()
    message = json.loads(json.dumps(CASE_MESSAGE))
    driver = Driver()
    in_process = InProcess(Driver(), label="reference")
    subprocess_impl = load_implementation("dsh-reference-harness")
    subprocess_impl.handshake()

    def floor() -> object:
        return driver.handle(message)

    try:
        tables = [
            ("in-process transport", rows(lambda: in_process.run(CASE.id, scenario), floor)),
            (
                "subprocess transport (dsh-reference-harness)",
                rows(lambda: subprocess_impl.run(CASE.id, scenario), floor),
            ),
        ]
        if hasattr(transport, "_alarm_is_free"):  # absent before the direct call existed
            threads = rows(threaded(lambda: in_process.run(CASE.id, scenario)), floor)
            tables.insert(1, ("in-process transport, forced onto a thread per call", threads))
        validation = validation_rows()
    finally:
        subprocess_impl.close()
    print(f"per case ({CASE.id}), best of {ROUNDS} rounds of n calls in a row:")
    for name, found in tables:
        table(f"{name} (ms); anchor: a direct Driver.handle call", "calls", found, unit="ms")
    if validation is not None:
        title = "answer validation alone (protocol.schema.json) (µs); anchor: json.dumps of it"
        table(title, "calls", validation)
    start, bare = harness_start(), interpreter_start()
    print(
        f"dsh-reference-harness, spawn to 'started' (median of {STARTS}): {start * 1000:.1f} ms; "
        f"anchor: a bare interpreter start, {bare * 1000:.1f} ms; ratio {start / bare:.2f}"
    )
    harness, metadata = (
        interpreter_start("import dsh_reference.harness"),
        interpreter_start("import importlib.metadata"),
    )
    print(
        f"  of which importing dsh_reference.harness: {(harness - bare) * 1000:.1f} ms; "
        f"importlib.metadata alone: {(metadata - bare) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
