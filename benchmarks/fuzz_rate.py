"""How many generated scenarios `dsh-conformance fuzz` judges per second, in process (issue 21).

The issue asks for at least 50 loop scenarios per second on the project's 2-core machine. For each
family, this runs the fuzzing engine with the reference model against itself, both in process (as
``dsh-conformance fuzz --impl reference`` does), for a fixed budget, and prints the scenarios
judged per second (generation, both runs, both oracles; discarded scenarios not counted), and the
same split into its parts for a fixed sample (drawn with every capability the reference declares,
1.2 ops included, as the engine draws them): drawing the scenarios, running them on the
reference, and judging with the oracles. The machine's load average is printed too: on a shared
machine the figures fall with it. A script that prints figures, not a test.

    python benchmarks/fuzz_rate.py [SECONDS_PER_FAMILY]
"""

from __future__ import annotations

import os
import sys
import time

from hypothesis import HealthCheck, given, settings

from dsh_conformance.fuzz.engine import RUNNERS, fuzz, run_scenario
from dsh_conformance.fuzz.generate import FAMILIES, scenarios
from dsh_conformance.fuzz.oracles import differences, expectations, self_check
from dsh_conformance.harness.transport import load_implementation
from dsh_reference.harness import CAPABILITIES, Driver

SAMPLE = 100


def rate(family: str, seconds: float) -> None:
    impl, against = load_implementation("reference"), load_implementation("reference")
    for side in (impl, against):
        side.handshake()
        side.check_schema = False
    run = fuzz(impl, against, budget=seconds, seed_value=0, database=None, families=(family,))
    judged = run.examples - run.discarded
    print(
        f"{family:>8}: {judged / run.seconds:6.1f} scenarios/s judged "
        f"({judged} in {run.seconds:.1f} s, {run.discarded} discarded, "
        f"divergence: {'none' if run.shrunk is None else run.shrunk.problems()[0]})"
    )


def parts(family: str) -> None:
    drawn: list[list[object]] = []

    @settings(
        max_examples=SAMPLE, database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(scenarios((family,), frozenset(CAPABILITIES)))
    def draw(scenario: tuple[str, list[object]]) -> None:
        drawn.append(scenario[1])

    start = time.perf_counter()
    draw()
    generated = time.perf_counter()
    if family in RUNNERS:  # run inside what the family needs (the http family's servers)
        reference = load_implementation("reference")
        outcomes = [run_scenario(reference, family, ops) for ops in drawn]
        answers = [{"type": o.kind, "observations": o.observations} for o in outcomes]
    else:
        driver = Driver()
        answers = [
            driver.handle({"type": "run", "case": "c", "scenario": {"ops": o}}) for o in drawn
        ]
    ran = time.perf_counter()
    for ops, answer in zip(drawn, answers, strict=True):
        if answer["type"] == "observed":
            observed = answer["observations"]
            differences(ops, expectations(ops, observed), observed)
            self_check(ops, observed)
    judged = time.perf_counter()
    per = 1000 / len(drawn)
    print(
        f"{family:>8}: per scenario {per * (generated - start):.1f} ms to draw, "
        f"{per * (ran - generated):.1f} ms to run once, {per * (judged - ran):.1f} ms to judge"
    )


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"load average: {load} on {os.cpu_count()} cores")
    for family in FAMILIES:
        rate(family, seconds)
    for family in FAMILIES:
        parts(family)


if __name__ == "__main__":
    main()
