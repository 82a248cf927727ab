"""Does registering a section cost the same however many are registered? (issue 19, goal 5)

Registers n sections in the global layer and n in one agent's scope (n = 1000 and 10000, the
garbage collector on, as the reference runs), then releases half and drops the other half, and
prints the microseconds per section beside the Python floor for the same bookkeeping: a record
stored under its name in a dict and a handle that removes it again. Goal: at most 5 µs a section,
flat in n, and no reference cycle left for the collector per registration (`gc.collect()` after
that finds nothing). This is a script that prints figures, not a test.

    python benchmarks/registration.py
"""

from __future__ import annotations

import gc
import time

from figures import table

from dsh_reference import PromptRegistry, Scope

SIZES = (1000, 10000)
REPEATS = 5


def register(n: int, scope: Scope | None) -> tuple[float, int]:
    """Seconds per section for n registrations in ``scope``, and the cyclic garbage they left."""
    registry = PromptRegistry()
    gc.collect()
    start = time.process_time()
    handles = [registry.add_section(f"s{i}", i, "text", scope=scope) for i in range(n)]
    seconds = (time.process_time() - start) / n
    # Half the handles released, half dropped unreleased (a registration kept for good).
    for handle in handles[::2]:
        handle.release()
    del handles
    return seconds, gc.collect()


class _Record:
    def __init__(self, name: str, order: float, text: str) -> None:
        self.name, self.order, self.text = name, order, text


def floor(n: int) -> float:
    """The same bookkeeping in plain Python: a record, a dict entry, a release closure."""
    table: dict[str, _Record] = {}
    gc.collect()
    start = time.process_time()
    handles = []
    for i in range(n):
        record = table[f"s{i}"] = _Record(f"s{i}", i, "text")
        handles.append(lambda record=record: table.pop(record.name))
    return (time.process_time() - start) / n


def main() -> None:
    worst = 0.0
    for scope in (None, Scope("agent")):
        rows, garbage = [], 0
        for n in SIZES:
            runs = [register(n, scope) for _ in range(REPEATS)]
            garbage = max(garbage, *(left for _, left in runs))
            rows.append((n, min(seconds for seconds, _ in runs), min(floor(n) for _ in runs)))
        where = "global layer" if scope is None else "a scope"
        table(f"register a section in the {where} (µs); anchor: dict + record + closure", "n", rows)
        print(f"objects in reference cycles left by the handles released or dropped: {garbage}")
        worst = max(worst, *(figure for _, figure, _ in rows))
        print()
    print(f"goal 5 (at most 5 µs a section): {'met' if worst <= 5e-6 else 'missed'}")


if __name__ == "__main__":
    main()
