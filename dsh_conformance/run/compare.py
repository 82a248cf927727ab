"""What changed between two runs of one implementation (``dsh-conformance summary --compare``).

Regression gating compares the last release's run with this branch's: which tests newly fail,
which newly pass, which tests are new or gone (another suite version), and which contracts'
verdicts changed. A test is keyed by its name (``test_example[…]``), the key a baseline lists.

- *newly failing*: NEW failed, errored or failed as expected, and OLD did not (OLD passed it, did
  not run it, or did not have it);
- *newly passing*: NEW passed it (or passed a stale baseline entry), and OLD failed, errored or
  failed as expected;
- *new* / *removed*: a test only NEW / only OLD collected;
- *other changes*: any other change of outcome (passed to skipped, failed to errored, …).

`Comparison.gate` is the exit status a CI job gates on: 1 when NEW fails or errors a test that
OLD did not fail (a newly failing test that its baseline does not expect, including a new test
that fails), else 0. A failure NEW's baseline expects does not gate: that run accepted it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from .exits import FOUND, OK
from .merged import ABSENT, Json, Summary, SummaryError, counts_text
from .report import FAILING

PASSES: Final = ("passed", "stale baseline")
#: Failing outcomes that gate a comparison (a baseline did not expect them).
GATING: Final = ("failed", "errored")


@dataclass(frozen=True)
class Change:
    """One test's outcome in each run (``absent`` where a run did not collect it)."""

    test: str
    old: str
    new: str
    #: The reason NEW's baseline gives for the test, when it lists it.
    reason: str | None = None


@dataclass
class Comparison:
    old: str
    new: str
    newly_failing: list[Change] = field(default_factory=list)
    newly_passing: list[Change] = field(default_factory=list)
    new_tests: list[Change] = field(default_factory=list)
    removed_tests: list[Change] = field(default_factory=list)
    other: list[Change] = field(default_factory=list)
    #: (contract, OLD's verdict, NEW's verdict), each with its counts, where they differ.
    verdicts: list[tuple[str, str, str]] = field(default_factory=list)
    #: (OLD's status, NEW's status).
    statuses: tuple[str, str] = ("", "")

    @property
    def gate(self) -> int:
        """`FOUND` when a test newly fails or errors unexpected by NEW's baseline, else `OK`."""
        return FOUND if any(change.new in GATING for change in self.newly_failing) else OK

    def changed(self) -> bool:
        lists = (self.newly_failing, self.newly_passing, self.new_tests, self.removed_tests)
        return any(lists) or bool(self.other or self.verdicts)


def compare(summary: Summary) -> Comparison:
    """The changes from the first implementation of ``summary`` (OLD) to the second (NEW)."""
    if len(summary.implementations) != 2:
        raise SummaryError(
            f"--compare reads two runs of one implementation (OLD.json NEW.json), each a report "
            f"of one implementation; these hold {len(summary.implementations)}"
        )
    old_impl, new_impl = summary.implementations
    old = {result["test"]: result for result in old_impl["results"]}
    new = {result["test"]: result for result in new_impl["results"]}
    found = Comparison(
        old_impl["label"], new_impl["label"], statuses=(old_impl["status"], new_impl["status"])
    )
    for test in [*new, *(test for test in old if test not in new)]:
        before = old[test]["outcome"] if test in old else ABSENT
        after = new[test]["outcome"] if test in new else ABSENT
        change = Change(test, before, after, new.get(test, {}).get("baseline"))
        if after in FAILING and before not in FAILING:
            found.newly_failing.append(change)
        elif after in PASSES and before in FAILING:
            found.newly_passing.append(change)
        elif before != after and ABSENT not in (before, after):
            found.other.append(change)
        if before == ABSENT:
            found.new_tests.append(change)
        elif after == ABSENT:
            found.removed_tests.append(change)
    for contract in summary.contracts():
        before, after = _verdict(old_impl, contract), _verdict(new_impl, contract)
        if before != after:
            found.verdicts.append((contract, before, after))
    return found


def _verdict(impl: Json, contract: str) -> str:
    """A contract's verdict with its counts, ``DOES NOT CONFORM (23 passed, 10 failed)``: a
    change of counts under one verdict word is a change too; ``—`` where the run has none."""
    row = impl["contracts"].get(contract)
    return "—" if row is None else f"{row['verdict']} ({counts_text(row)})"
