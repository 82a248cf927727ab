"""The merged reports behind ``dsh-conformance summary``: implementations, labels, test rows.

A run's JSON report (``--conformance-json``) says how one or more implementations fared. `load`
merges the reports of several runs (one per implementation, or one run with several ``--impl``)
into one `Summary`: the implementations in order, their labels, and every test as a `Row` placed
under its contract and requirement, with each implementation's `Cell`. The two renderings import
this model and nothing imports back: `conformance.run.markdown` (a pull-request comment) and
`conformance.run.page` (the HTML page); `conformance.run.summary` is the command.

Reports of different suite versions or report formats are not merged (their cases differ), and an
implementation label may appear once. A report that cannot be read, or that does not match the
others, raises `SummaryError` with one line naming the file and what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from ..judge.case import CONTRACT_IDS
from ..judge.jsontext import dumps
from .report import OUTCOMES, PROBLEMS, RAN, REPORT_FORMAT, worst_status

Json = Any

_ORDER: Final = {contract: index for index, contract in enumerate(CONTRACT_IDS)}
#: Where the tests of a contract go when the report names none of that contract's requirements.
NO_REQUIREMENT: Final = ""


class SummaryError(Exception):
    """A report cannot be read or merged: one line, naming the file and what is wrong."""


@dataclass(frozen=True)
class Cell:
    """One implementation's result for one test."""

    outcome: str
    message: str = ""
    ops: list[Json] | None = None


@dataclass
class Row:
    """One test, under one contract and one requirement, with every implementation's cell."""

    test: str
    contract: str
    requirement: str
    cells: dict[str, Cell] = field(default_factory=dict)

    def outcome(self, label: str) -> str:
        """The outcome ``label`` had, or ``absent`` when its run did not collect the test."""
        cell = self.cells.get(label)
        return "absent" if cell is None else cell.outcome

    def disagree(self, labels: list[str]) -> bool:
        """Whether the implementations that ran the test had different outcomes (a test one run
        deselected or never reached is no disagreement)."""
        return len({self.outcome(label) for label in labels} & set(RAN)) > 1

    def failing(self) -> bool:
        return any(cell.outcome in PROBLEMS for cell in self.cells.values())


@dataclass
class Summary:
    """The merged reports: the implementations in order, and every test as a row."""

    suite: dict[str, Json]
    sources: list[str]
    implementations: list[dict[str, Json]]
    #: The requirement catalog the reports carry (report format 3 and later), else empty.
    requirements: dict[str, dict[str, Json]]
    generated: str

    @property
    def labels(self) -> list[str]:
        return [impl["label"] for impl in self.implementations]

    def contracts(self) -> list[str]:
        """Every contract ID a report shows or a result names, in the contracts' order."""
        named = {c for impl in self.implementations for c in impl["contracts"]}
        named.update(
            c for impl in self.implementations for r in impl["results"] for c in r["contracts"]
        )
        return sorted(named, key=lambda c: (_ORDER.get(c, len(_ORDER)), c))

    def rows(self) -> list[Row]:
        """Every (contract, requirement, test) that some implementation ran, grouped in that
        order: contracts in CONTRACTS.md's order, requirements in catalog order, tests in the
        order the first report lists them."""
        rows: dict[tuple[str, str, str], Row] = {}
        for impl in self.implementations:
            for result in impl["results"]:
                cell = Cell(result["outcome"], result.get("message", ""), result.get("ops"))
                for contract, requirement in self._places(result):
                    key = (contract, requirement, result["test"])
                    row = rows.setdefault(key, Row(result["test"], contract, requirement))
                    row.cells[impl["label"]] = cell
        contracts = {contract: index for index, contract in enumerate(self.contracts())}
        order = {requirement: index for index, requirement in enumerate(self.requirements)}
        ran = [row for row in rows.values() if any(c.outcome in RAN for c in row.cells.values())]
        return sorted(
            ran,
            key=lambda row: (
                contracts[row.contract],
                order.get(row.requirement, len(order)),
                row.requirement,
            ),
        )

    def _places(self, result: Json) -> Iterator[tuple[str, str]]:
        """Where a result is shown: under each of its requirements' contracts, and under each of
        its contracts that none of its requirements belongs to."""
        covered = set()
        for requirement in result.get("requirements", []):
            contract = self.requirements.get(requirement, {}).get("contract")
            if isinstance(contract, str) and contract in result["contracts"]:
                covered.add(contract)
                yield contract, requirement
        for contract in result["contracts"]:
            if contract not in covered:
                yield contract, NO_REQUIREMENT

    def to_json(self) -> str:
        """The merged report, in the format of the reports it merges."""
        document: dict[str, Json] = {
            "format": REPORT_FORMAT,
            "suite": self.suite,
            "status": worst_status(impl["status"] for impl in self.implementations),
            "implementations": self.implementations,
        }
        if self.requirements:
            document["requirements"] = self.requirements
        return dumps(document, indent=2) + "\n"


def load(paths: list[str], generated: str | None = None) -> Summary:
    """Read and merge the reports at ``paths``; `SummaryError` names the first that cannot be."""
    if not paths:
        raise SummaryError("name at least one JSON report (written by --conformance-json)")
    merged: Summary | None = None
    seen: dict[str, str] = {}
    for path in paths:
        document = _read(path)
        if merged is None:
            merged = Summary(
                suite=document["suite"],
                sources=[],
                implementations=[],
                requirements=document.get("requirements", {}),
                generated=generated or datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            )
        elif document["suite"] != merged.suite:
            raise SummaryError(
                f"{path}: made by {suite_name(document['suite'])}, but {merged.sources[0]} by "
                f"{suite_name(merged.suite)}: summarize reports of one suite version"
            )
        for impl in document["implementations"]:
            label = impl["label"]
            if label in seen:
                raise SummaryError(
                    f"{path}: implementation {label!r} is in {seen[label]} too: give each run "
                    "its own --impl label"
                )
            seen[label] = path
            merged.implementations.append(impl)
        merged.sources.append(path)
    assert merged is not None
    return merged


def _read(path: str) -> Json:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SummaryError(f"{path}: cannot read it ({error})") from None
    try:
        document = json.loads(text)
    except ValueError as error:
        raise SummaryError(f"{path}: not JSON ({error})") from None
    if not isinstance(document, dict) or "format" not in document:
        raise SummaryError(f"{path}: not a dsh-conformance JSON report (no 'format')")
    if document["format"] != REPORT_FORMAT:
        raise SummaryError(
            f"{path}: report format {document['format']!r}, but this suite reads format "
            f"{REPORT_FORMAT}: run the suite again, or summarize with the version that wrote it"
        )
    problem = _shape_problem(document)
    if problem is not None:
        raise SummaryError(f"{path}: not a dsh-conformance JSON report ({problem})")
    return document


def _shape_problem(document: Json) -> str | None:
    """What keeps ``document`` from being read as a report, or ``None``."""
    if not isinstance(document.get("suite"), dict):
        return "no 'suite' object"
    implementations = document.get("implementations")
    if not isinstance(implementations, list):
        return "no 'implementations' list"
    for index, impl in enumerate(implementations):
        where = f"implementations[{index}]"
        if not isinstance(impl, dict) or not isinstance(impl.get("label"), str):
            return f"{where} has no 'label'"
        if not isinstance(impl.get("contracts"), dict) or not isinstance(impl.get("results"), list):
            return f"{where} lacks 'contracts' or 'results'"
        for number, result in enumerate(impl["results"]):
            if not (
                isinstance(result, dict)
                and isinstance(result.get("test"), str)
                and isinstance(result.get("contracts"), list)
                and result.get("outcome") in OUTCOMES
            ):
                return f"{where}.results[{number}] is not a test result"
    return None


def suite_name(suite: Json) -> str:
    return (
        f"{suite.get('name', '?')} {suite.get('version', '?')} (protocol {suite.get('protocol')})"
    )


def counts_text(row: dict[str, Json]) -> str:
    """A contract's or requirement's counts, nonzero outcomes only: ``29 passed, 1 skipped``."""
    shown = [f"{row[outcome]} {outcome}" for outcome in OUTCOMES if row.get(outcome)]
    return ", ".join(shown) or "no tests"
