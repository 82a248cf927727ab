"""``dsh-conformance summary REPORT.json…``: several runs side by side, to publish or to read.

A run's JSON report (``--conformance-json``) says how one or more implementations fared. A summary
merges the reports of several runs (one per implementation, or one run with several ``--impl``)
into one comparison, in the form its reader needs:

- ``markdown``: per contract, each implementation's verdict and counts, then the requirements (the
  tests, in a report without requirements) where the implementations disagree: a pull-request
  comment, with one status line per implementation to quote as a badge;
- ``html``: one self-contained page (`conformance.run.page`): contracts, requirements and cases
  down the side, implementations across, each failing cell opening what the terminal shows;
- ``json``: the merged report itself, in the report's own format, which ``summary`` reads again.

Reports of different suite versions or report formats are not merged (their cases differ), and an
implementation label may appear once. A report that cannot be read, or that does not match the
others, stops the command with one line on standard error before anything is written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from ..judge.case import CONTRACT_IDS
from ..judge.jsontext import dumps
from .report import (
    DECIDED,
    OUTCOMES,
    PROBLEMS,
    RAN,
    REPORT_FORMAT,
    selection_line,
    worst_status,
)

Json = Any

FORMATS: Final = ("markdown", "html", "json")
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
        return len({self.outcome(label) for label in labels} & set(DECIDED)) > 1

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
                f"{path}: made by {_suite_name(document['suite'])}, but {merged.sources[0]} by "
                f"{_suite_name(merged.suite)}: summarize reports of one suite version"
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


def _suite_name(suite: Json) -> str:
    return (
        f"{suite.get('name', '?')} {suite.get('version', '?')} (protocol {suite.get('protocol')})"
    )


def counts_text(row: dict[str, Json]) -> str:
    """A contract's or requirement's counts, nonzero outcomes only: ``29 passed, 1 skipped``."""
    shown = [f"{row[outcome]} {outcome}" for outcome in OUTCOMES if row.get(outcome)]
    return ", ".join(shown) or "no tests"


def markdown(summary: Summary) -> str:
    """The summary for a pull-request comment: statuses, the contract matrix, disagreements."""
    labels = summary.labels
    lines = [
        "## DSH conformance",
        "",
        f"{_suite_name(summary.suite)}; {len(summary.sources)} report(s); {summary.generated}",
        "",
    ]
    for impl in summary.implementations:
        lines.append(
            f"- **{_md(impl['label'])}**: {impl['status']} ({selection_line(impl['selection'])})"
        )
    lines += ["", "| contract ID | " + " | ".join(_md(label) for label in labels) + " |"]
    lines.append("|---" * (len(labels) + 1) + "|")
    tabulated = {c for impl in summary.implementations for c in impl["contracts"]}
    for contract in [c for c in summary.contracts() if c in tabulated]:
        cells = []
        for impl in summary.implementations:
            row = impl["contracts"].get(contract)
            cells.append("—" if row is None else f"{row['verdict']} ({counts_text(row)})")
        lines.append(f"| {contract} | " + " | ".join(_md(cell) for cell in cells) + " |")
    disagreeing = [row for row in summary.rows() if row.disagree(labels)]
    lines.append("")
    if len(labels) < 2:
        return "\n".join(lines) + "\n"
    if not disagreeing:
        lines.append("The implementations agree on every test.")
        return "\n".join(lines) + "\n"
    by_requirement: dict[tuple[str, str], list[Row]] = {}
    for row in disagreeing:
        by_requirement.setdefault((row.contract, row.requirement), []).append(row)
    lines += [
        f"### Where they disagree ({len(by_requirement)} requirement(s), "
        f"{len({row.test for row in disagreeing})} test(s))",
        "",
        "| requirement | test | " + " | ".join(_md(label) for label in labels) + " |",
        "|---|---" + "|---" * len(labels) + "|",
    ]
    for (contract, requirement), rows in by_requirement.items():
        name = requirement or f"{contract} (no requirement named)"
        for row in rows:
            outcomes = [row.outcome(label) for label in labels]
            lines.append(f"| {_md(name)} | `{_md(row.test)}` | " + " | ".join(outcomes) + " |")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def main(argv: list[str]) -> int:
    """``summary REPORT.json… [--format markdown|html|json] [-o PATH]``; 0, or 2 on an error."""
    parser = argparse.ArgumentParser(
        prog="dsh-conformance summary",
        description="Merge JSON reports (--conformance-json) into one comparison.",
    )
    parser.add_argument("reports", nargs="+", metavar="REPORT.json")
    parser.add_argument("--format", choices=FORMATS, default="markdown")
    parser.add_argument("-o", "--output", metavar="PATH", help="write here (default: stdout)")
    args = parser.parse_args(argv)
    try:
        summary = load(args.reports)
        if args.format == "html":
            from .page import page

            text = page(summary, command=["dsh-conformance", "summary", *argv])
        else:
            text = markdown(summary) if args.format == "markdown" else summary.to_json()
        if args.output is None:
            sys.stdout.write(text)
        else:
            _write_whole(Path(args.output), text)
    except SummaryError as error:
        print(f"dsh-conformance summary: {error}", file=sys.stderr)
        return 2
    return 0


def _write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` all at once: a reader never sees half a page, and a failed
    write leaves nothing behind."""
    if path.is_dir():
        raise SummaryError(f"{path}: is a directory; give a file name")
    temporary = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        try:
            with temporary.open("x", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temporary, path)
        except OSError:
            temporary.unlink(missing_ok=True)
            raise
    except OSError as error:
        raise SummaryError(f"{path}: cannot write it ({error.strerror or error})") from None
