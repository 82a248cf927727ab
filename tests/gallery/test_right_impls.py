"""A conforming implementation is never failed: each conforming variant of `right_impls` (the
reference with one choice CONTRACTS.md leaves open taken the other way) passes every contract.

The gallery of wrong implementations (`test_gallery.py`, `test_fuzz_gallery.py`) proves that a
wrong implementation never passes; the reference passing itself cannot prove the other half,
since a case or a generated scenario that depends on an open choice still agrees with the
implementation that made the choice. So for each variant:

- its witness (a short scenario) is observed differently on the variant (in a process of its
  own, among the gallery's runs) and on the reference, so the variant really takes the other
  choice;
- ``dsh-conformance`` over every contract (the gallery's runs, `gallery_runs`, beside the
  control run of the unchanged reference) fails and errors nothing: a case that failed it would
  check a rule stricter than the contract (the test command's runs draw a sixth of the property
  examples; the CI tier's ``exhaustive`` ones, every example);
- fuzzing it against the reference in the families that reach its choice (the fuzz gallery's
  lane, `fuzz_runs`: the same fixed seed and count as every entry of the fuzz gallery) finds no
  divergence: one would be generation drawing something whose outcome is open (`AVOIDED`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fuzz_runs
import pytest
from gallery_runs import ALL_CONTRACTS, judged, observed, witnessed
from right_impls import VARIANTS

from dsh_conformance.deepseek.loopback import allow_loopback_sockets
from dsh_conformance.fuzz.engine import run_scenario
from dsh_conformance.harness.transport import load_implementation

#: Not in the fast subset: the variants run in processes of their own, and are fuzzed.
pytestmark = pytest.mark.slow

#: Each variant with each family it is fuzzed in.
FUZZED = [(variant, family) for variant in sorted(VARIANTS) for family in VARIANTS[variant].fuzzed]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_witness_tells_the_variant_from_the_reference(reports: Path, variant: str) -> None:
    found = VARIANTS[variant]
    # The variant's side is observed in a process of its own (the gallery's runs), since it
    # patches the reference; the reference's here, twice.
    own = witnessed(reports, variant)
    # The http family's witness runs inside a loopback server: 127.0.0.1 may be reached.
    allow_loopback_sockets()
    reference_side = load_implementation("reference")
    try:
        reference = [
            observed(run_scenario(reference_side, found.family, list(found.witness)))
            for _ in range(2)
        ]
    finally:
        reference_side.close()
    # The reference observes the witness the same way twice, and the variant otherwise.
    assert reference[0] == reference[1]
    assert own != reference[0]


@pytest.mark.parametrize(
    "examples",
    # The test command's runs draw fewer property examples; the CI tier's, every one.
    ["fewer examples", pytest.param("every example", marks=pytest.mark.exhaustive)],
)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_variant_passes_every_contract(reports: Any, variant: str, examples: str) -> None:
    found = judged(reports, f"right_impls:{variant}")
    failing = [
        f"{result['test']}: {result.get('message', '')}"[:400]
        for result in found["results"]
        if result["outcome"] in ("failed", "errored")
    ]
    assert not failing, "\n".join(failing)
    for contract in ALL_CONTRACTS.split(","):
        tally = found["contracts"][contract]
        assert tally["passed"] > 0 and tally["failed"] == tally["errored"] == 0, (contract, tally)


@pytest.mark.fuzz
@pytest.mark.parametrize(("variant", "family"), FUZZED)
def test_fuzzing_does_not_tell_the_variant_from_the_reference(
    variant: str, family: str, fuzz_lane: fuzz_runs.Lane
) -> None:
    found = fuzz_lane.verdict(f"right_impls:{variant}@{family}")
    assert "error" not in found, found["error"]
    assert not found["found"], (found["contracts"], found["differences"], found["on_impl"])
    assert found["examples"] == fuzz_runs.examples(family)
