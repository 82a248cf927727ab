"""What one answer costs the suite, however wide or deep a harness makes it (issue 22).

Prints, for answers of growing size up to the 8 MiB line limit, the suite's own work on one answer
line as the subprocess transport does it (`dsh_conformance.judge.nesting`, ``json.loads``, the count
check of `parse_outcome`, `check_answer`), beside the Python floor for that line (one
``json.loads``), the ratio, and the growth exponent over the 10x range of sizes. Then the schema
check by ``jsonschema`` alone (what `check_answer` did before) beside ``jsonschema-rs``, the
nesting measure of the worst line (8 MiB of brackets), and a whole contract run against a harness
answering 60,000 observations more than the ops in each of its 9 cases. A script that prints
figures, not a test; about a minute on a quiet 2-core machine.

    python benchmarks/answer_bounds.py
"""

from __future__ import annotations

import gc
import json
import math
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from jsonschema import Draft202012Validator

from dsh_conformance.harness.protocol import parse_outcome
from dsh_conformance.harness.validate import check_answer, schema
from dsh_conformance.judge.nesting import nesting_problem

REPEATS = 3
LIMIT = 8 * 1024 * 1024
EVENT = {
    "type": "user/message",
    "seq": 0,
    "time": 1_700_000_000_000,
    "data": {
        "id": "m",
        "role": "user",
        "content": [{"type": "text", "text": "hello there"}],
        "source": {"kind": "user"},
    },
    "surfaceOp": "append",
}
BROKEN = Path(__file__).parents[1] / "tests" / "conformance" / "broken_harness.py"


def answer_line(size: int) -> str:
    """An ``observed`` answer to a one-op scenario: a session log of about ``size`` bytes."""
    count = size // len(json.dumps(EVENT))
    events = [{**EVENT, "seq": seq} for seq in range(count)]
    return json.dumps({"type": "observed", "case": "c", "observations": [{"events": events}]})


def suite_work(line: str) -> None:
    """The suite's work on one answer line (`dsh_conformance.harness.transport.Subprocess`)."""
    assert nesting_problem(line) is None
    answer = json.loads(line)
    parse_outcome(answer, "c", 1)
    check_answer(answer, "run")


def best(action: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        gc.collect()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def exponent(small: tuple[int, float], large: tuple[int, float]) -> float:
    return math.log(large[1] / small[1]) / math.log(large[0] / small[0])


def answers() -> None:
    print("suite's work on one answer line vs one json.loads of it (the floor)")
    print(f"{'bytes':>10} {'suite s':>9} {'floor s':>9} {'ratio':>6}")
    figures = []
    for size in (LIMIT // 10, LIMIT // 3, LIMIT - 4096):
        line = answer_line(size)
        suite = best(partial(suite_work, line))
        floor = best(partial(json.loads, line))
        figures.append((len(line), suite))
        print(f"{len(line):>10} {suite:>9.3f} {floor:>9.3f} {suite / floor:>6.2f}")
    print(
        f"growth exponent over {figures[-1][0] / figures[0][0]:.0f}x: "
        f"{exponent(figures[0], figures[-1]):.2f}"
    )
    line = answer_line(LIMIT // 10)
    answer = json.loads(line)
    root = {key: value for key, value in schema().items() if key != "oneOf"}
    plain = Draft202012Validator({**root, "$ref": "#/$defs/observed"})
    before = best(lambda: plain.is_valid(answer))
    after = best(lambda: check_answer(answer, "run"))
    print(
        f"schema check of {len(line)} bytes: jsonschema {before:.3f} s, jsonschema-rs "
        f"{after:.4f} s ({before / after:.0f}x faster)"
    )


def deep() -> None:
    brackets = "[" * (LIMIT // 2) + "]" * (LIMIT // 2)
    refused = best(lambda: nesting_problem(brackets))
    flat = "[" + "0," * (LIMIT // 2 - 1) + "0]"
    floor = best(lambda: json.loads(flat))
    print(
        f"nesting measure of {LIMIT} bytes of brackets: {refused:.3f} s "
        f"(json.loads of a flat 8 MiB array: {floor:.3f} s)"
    )


def wide_contract_run() -> None:
    command = [
        sys.executable,
        "-m",
        "dsh_conformance.run.runner",
        "--impl",
        f"{sys.executable} {BROKEN} wide",
        "--contract",
        "PROMPT-SCOPE-SHADOW",
        "-k",
        "test_example",
    ]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    refused = done.stdout.count("observations to a scenario of")
    print(
        f"9-case contract run, 60,000 extra observations a case: {took:.1f} s, exit "
        f"{done.returncode}, {refused} cases refused by their count"
    )


def main() -> None:
    answers()
    deep()
    wide_contract_run()


if __name__ == "__main__":
    main()
