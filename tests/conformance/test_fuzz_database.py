"""The fuzz database (`dsh_conformance.fuzz.engine`): a divergence found is replayed first by the
next run, even when its shrinking was cut short by its budget.

Hypothesis keeps the choices of a test case that raises a `BaseException`, as a crash to replay
first, and the engine stops shrinking by raising one at a scenario it never judges: unless the
database takes nothing more then (`_KeptUntilSpent`), the next run replays that scenario first
and finds the divergence only second.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dsh_conformance.fuzz.engine import database_at, fuzz
from dsh_conformance.harness.transport import load_implementation

sys.path.insert(0, str(Path(__file__).parents[1] / "gallery"))  # the gallery's own modules
from fuzz_runs import served

#: Starting a process and fuzzing: not in the fast subset.
pytestmark = pytest.mark.slow


def test_a_divergence_whose_shrinking_was_cut_short_is_replayed_first(tmp_path: Path) -> None:
    # BomKept (a wire entry): seed 0 finds it after 20 scenarios, and its shrinking would go on
    # for over a hundred judged; one judged scenario cuts it short.
    impl, reference = served("BomKept"), load_implementation("reference")
    try:
        for side in (impl, reference):
            side.handshake()
            side.check_schema = False
        runs = [
            fuzz(
                impl,
                reference,
                budget=120.0,
                seed_value=seed,
                database=database_at(str(tmp_path)),
                families=("wire",),
                shrink_examples=1,
                examples=400,
            )
            for seed in (0, 5)
        ]
    finally:
        impl.close()
        reference.close()
    first, again = runs
    assert first.first_examples == 20 and first.shrink_examples == 1
    assert first.shrunk is not None and again.first is not None
    assert again.first_examples == 1, "the kept divergence is not the first scenario replayed"
