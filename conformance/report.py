"""Results by contract ID: the table a person reads, and the JSON form CI keeps.

Each conformance test is one *result*: the implementation it ran against, the contract IDs it
checks, and one outcome. A test tagged with two contract IDs counts under both. A result's
``test`` is the test's name without the implementation, e.g.
``test_example[registry/duplicate-section-same-layer]``: the key an expected-failures file lists.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Final, Literal

from .case import CONTRACT_IDS

Outcome = Literal["passed", "failed", "errored", "expected failure", "skipped", "not applicable"]
OUTCOMES: Final[tuple[Outcome, ...]] = (
    "passed",
    "failed",
    "errored",
    "expected failure",
    "skipped",
    "not applicable",
)


@dataclass
class Result:
    test: str
    implementation: str
    contracts: tuple[str, ...]
    outcome: Outcome
    message: str = ""


@dataclass
class ImplementationInfo:
    label: str
    description: str


class Report:
    def __init__(self, contracts: Iterable[str] = CONTRACT_IDS) -> None:
        #: The contract IDs the table shows (all of them, unless the run was restricted).
        self.contracts = tuple(contracts)
        self.results: dict[tuple[str, str], Result] = {}
        self.implementations: dict[str, ImplementationInfo] = {}

    def record(self, result: Result) -> None:
        """Keep one result per test; a later phase's failure replaces an earlier pass."""
        key = (result.implementation, result.test)
        previous = self.results.get(key)
        if previous is None or previous.outcome == "passed":
            self.results[key] = result

    def tally(self, implementation: str) -> dict[str, dict[Outcome, int]]:
        counts: dict[str, dict[Outcome, int]] = {
            contract: dict.fromkeys(OUTCOMES, 0) for contract in self.contracts
        }
        for result in self._of(implementation):
            for contract in result.contracts:
                if contract in counts:
                    counts[contract][result.outcome] += 1
        return counts

    def _of(self, implementation: str) -> Iterable[Result]:
        return (r for r in self.results.values() if r.implementation == implementation)

    def render(self) -> str:
        """The per-contract table of every implementation, then what failed or errored, and why."""
        blocks = []
        for label in self._labels():
            info = self.implementations.get(label)
            title = f"DSH conformance: {label}"
            if info is not None and info.description != label:
                title += f" ({info.description})"
            blocks.append(self._table(title, self.tally(label)))
            problems = [r for r in self._of(label) if r.outcome in ("failed", "errored")]
            for result in sorted(problems, key=lambda r: (r.contracts, r.test)):
                blocks.append(
                    f"  {result.outcome.upper()} {result.test} [{', '.join(result.contracts)}]"
                )
                blocks.extend(f"      {line}" for line in _gist(result.message))
        return "\n".join(blocks)

    def _labels(self) -> list[str]:
        labels = dict.fromkeys(self.implementations)
        labels.update(dict.fromkeys(r.implementation for r in self.results.values()))
        return list(labels)

    @staticmethod
    def _table(title: str, counts: dict[str, dict[Outcome, int]]) -> str:
        width = max(len(contract) for contract in counts)
        header = f"{'contract ID':<{width}}  " + "  ".join(f"{o:>7}" for o in _SHORT) + "  verdict"
        lines = [title, header, "-" * len(header)]
        for contract, row in counts.items():
            cells = "  ".join(f"{row[outcome]:>7}" for outcome in OUTCOMES)
            lines.append(f"{contract:<{width}}  {cells}  {_verdict(row)}")
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(
            {
                "implementations": [
                    {
                        "label": label,
                        "description": getattr(self.implementations.get(label), "description", ""),
                        "contracts": self.tally(label),
                        "results": [asdict(r) for r in self._of(label)],
                    }
                    for label in self._labels()
                ]
            },
            indent=2,
            ensure_ascii=False,
        )


_SHORT: Final = ("passed", "failed", "errored", "xfail", "skipped", "n/a")
_GIST_LINES: Final = 3
_GIST_WIDTH: Final = 160


def _gist(message: str) -> list[str]:
    """The first lines of a failure message, each cut to a readable width."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    return [
        line if len(line) <= _GIST_WIDTH else line[: _GIST_WIDTH - 1] + "…"
        for line in lines[:_GIST_LINES]
    ]


def _verdict(row: dict[Outcome, int]) -> str:
    if row["failed"] or row["errored"]:
        return "DOES NOT CONFORM"
    if row["expected failure"]:
        return f"baseline: {row['expected failure']} expected failure(s)"
    if row["passed"]:
        return "conforms" + (" (some skipped)" if row["skipped"] else "")
    if row["not applicable"]:
        return "not applicable"
    if row["skipped"]:
        return "skipped"
    return "no cases yet"
