"""The merged reports behind ``dsh-conformance summary``: implementations, labels, test rows.

A run's JSON report (``--conformance-json``) says how one or more implementations fared. `load`
merges the reports of several runs (one per implementation, or one run with several ``--impl``)
into one `Summary`: the implementations in order, their labels, and every test as a `Row` placed
under its contract and requirement, with each implementation's `Cell`. The two renderings import
this model and nothing imports back: `dsh_conformance.run.markdown` (a pull-request comment) and
`dsh_conformance.run.page` (the HTML page); `dsh_conformance.run.compare` reads two runs of one
implementation from it; `dsh_conformance.run.summary` is the command.

An implementation is labelled by what a reader knows it by (issue 33): a label given to
``summary`` (``--label``), else its handshake's ``name version``, else its ``--impl`` with any
path cut to its file name, so that no directory of the machine that ran it shows. Two runs with
the same handshake are told apart by their report's file name (``mine-main.json`` gives
``(mine-main)``). Reports of different suite versions are not merged (their cases differ), except
for a comparison of two runs. A report that cannot be read, or that does not match the others,
raises `SummaryError` with one line naming the file and what is wrong.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from ..judge.case import CONTRACT_IDS
from ..judge.jsontext import dumps
from .report import DECIDED, OUTCOMES, PROBLEMS, RAN, READABLE_FORMATS, REPORT_FORMAT, worst_status

Json = Any

_ORDER: Final = {contract: index for index, contract in enumerate(CONTRACT_IDS)}
#: The outcome of a test a run did not collect.
ABSENT: Final = "absent"
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
    #: For a test its run's baseline lists: the reason the baseline line gives (maybe ``""``).
    baseline: str | None = None


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
        return ABSENT if cell is None else cell.outcome

    def disagree(self, labels: list[str]) -> bool:
        """Whether the implementations that ran the test had different outcomes (a test one run
        deselected or never reached is no disagreement)."""
        return len({self.outcome(label) for label in labels} & set(DECIDED)) > 1

    def failing(self) -> bool:
        return any(cell.outcome in PROBLEMS for cell in self.cells.values())

    def expected(self) -> bool:
        """Whether some implementation failed the test as its baseline expected."""
        return any(cell.outcome == "expected failure" for cell in self.cells.values())

    def problem(self, labels: list[str]) -> bool:
        """Whether the test fails or errors somewhere, or the implementations disagree on it
        other than by a failure a baseline expected (those are listed apart)."""
        return self.failing() or (self.disagree(labels) and not self.expected())

    def quiet(self, labels: list[str]) -> bool:
        """Whether the row has nothing to say at first sight: no failure, no expected failure,
        no disagreement. The page folds such rows under their requirement."""
        return not (self.failing() or self.expected() or self.disagree(labels))


@dataclass(frozen=True)
class StaleEntry:
    """A baseline entry that no longer says anything true: a finding of its own."""

    label: str
    test: str
    reason: str
    finding: str


@dataclass
class Summary:
    """The merged reports: the implementations in order, and every test as a row."""

    suite: dict[str, Json]
    sources: list[str]
    implementations: list[dict[str, Json]]
    #: The requirement catalog the reports carry (report format 3 and later), else empty.
    requirements: dict[str, dict[str, Json]]
    generated: str
    #: The report each implementation (by label) was read from.
    origins: dict[str, str] = field(default_factory=dict)

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
                cell = Cell(
                    result["outcome"],
                    result.get("message", ""),
                    result.get("ops"),
                    result.get("baseline"),
                )
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

    def expected_failures(self) -> list[tuple[str, Json]]:
        """Every (label, result) that failed as its run's baseline expected."""
        return [
            (impl["label"], result)
            for impl in self.implementations
            for result in impl["results"]
            if result["outcome"] == "expected failure"
        ]

    def stale_entries(self) -> list[StaleEntry]:
        """Every baseline entry that is stale: its test passed, or it names no test of the run."""
        found = []
        for impl in self.implementations:
            for result in impl["results"]:
                if result["outcome"] == "stale baseline":
                    reason = result.get("baseline") or ""
                    finding = "listed as an expected failure, but passed"
                    found.append(StaleEntry(impl["label"], result["test"], reason, finding))
            for entry in impl.get("baseline", {}).get("unmatched", []):
                finding = "names no test of this run"
                found.append(StaleEntry(impl["label"], entry["test"], entry["reason"], finding))
        return found

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


def load(
    paths: list[str],
    generated: str | None = None,
    labels: list[str] | None = None,
    one_suite: bool = True,
) -> Summary:
    """Read and merge the reports at ``paths``; `SummaryError` names the first that cannot be.
    ``labels`` name the first implementations, in order; ``one_suite=False`` lets reports of
    other suite versions in (a comparison of two runs, whose tests may differ)."""
    if not paths:
        raise SummaryError("name at least one JSON report (written by --conformance-json)")
    merged: Summary | None = None
    sources: list[str] = []
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
        elif one_suite and document["suite"] != merged.suite:
            raise SummaryError(
                f"{path}: made by {suite_name(document['suite'])}, but {merged.sources[0]} by "
                f"{suite_name(merged.suite)}: summarize reports of one suite version"
            )
        merged.implementations.extend(document["implementations"])
        sources.extend(path for _ in document["implementations"])
        merged.sources.append(path)
    assert merged is not None
    chosen = _labels(merged.implementations, sources, labels or [])
    for impl, label, source in zip(merged.implementations, chosen, sources, strict=True):
        impl["label"] = label
        merged.origins[label] = source
    return merged


def own_label(impl: Json) -> str:
    """What an implementation is known by: its handshake's ``name version``, else its ``--impl``
    with each path cut to its file name (``node /home/me/h.js`` is ``node h.js``)."""
    handshake = impl.get("handshake")
    if isinstance(handshake, dict) and handshake.get("name"):
        return f"{handshake['name']} {handshake.get('version', '')}".strip()
    return _short(impl["label"])


def _labels(implementations: list[Json], sources: list[str], given: list[str]) -> list[str]:
    """Each implementation's label: the one given, else `own_label`; two alike are told apart
    by their report's file name, then by their ``--impl``; any left alike is refused."""
    if len(given) > len(implementations):
        raise SummaryError(
            f"{len(given)} --label given for {len(implementations)} implementation(s): give at "
            "most one per implementation, in the order of the reports"
        )
    if len(set(given)) < len(given):
        raise SummaryError(f"--label: each label once ({', '.join(given)})")
    chosen = given + [own_label(impl) for impl in implementations[len(given) :]]
    first = list(chosen)
    stems = [Path(source).stem for source in sources]
    for tells in (stems, [_short(impl["label"]) for impl in implementations]):
        counts = Counter(chosen)
        chosen = [
            f"{base} ({tell})" if index >= len(given) and counts[label] > 1 else label
            for index, (label, base, tell) in enumerate(zip(chosen, first, tells, strict=True))
        ]
    counts = Counter(chosen)
    alike = [index for index, label in enumerate(chosen) if counts[label] > 1]
    if alike:
        raise SummaryError(
            f"{', '.join(sorted({sources[i] for i in alike}))}: two implementations are both "
            f"labelled {first[alike[0]]!r}, with alike report names and --impl: name them with "
            "--label (one per implementation, in the order of the reports)"
        )
    return chosen


def _short(spec: str) -> str:
    """``spec`` with each word that is a path cut to its last part (``/`` or ``\\``)."""
    return " ".join(re.split(r"[\\/]", word)[-1] or word for word in spec.split())


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
    if document["format"] not in READABLE_FORMATS:
        raise SummaryError(
            f"{path}: report format {document['format']!r}, but this suite reads formats "
            f"{', '.join(map(str, READABLE_FORMATS))}: run the suite again, or summarize with "
            "the version that wrote it"
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
        baseline = impl.get("baseline", {"unmatched": []})
        if not isinstance(baseline, dict) or not all(
            isinstance(entry, dict) and isinstance(entry.get("test"), str)
            for entry in baseline.get("unmatched", [])
        ):
            return f"{where}.baseline is not a baseline's summary"
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
