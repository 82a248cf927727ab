"""Results by contract ID: the table a person reads, and the JSON form CI keeps.

Each conformance test is one *result*: the implementation it ran against, the contract IDs it
checks, and one outcome. A test tagged with two contract IDs counts under both. A result's
``test`` is the test's name without the implementation, e.g.
``test_example[registry/duplicate-section-same-layer]``: the key an expected-failures file lists.

The report knows every test the run collected, so it says honestly what did not run: a test
left out by ``-k``, ``--contract`` and the like is *deselected*; one selected but never run (``-x``,
an interrupted run, an implementation stopped after a failed handshake or ``--max-errors``) is
*not reached*. A contract with tests that did not run is never called "conforms".

The same counts are kept per requirement (`dsh_conformance.requirements`): a test counts under every
requirement of the catalog that claims it.

A run with a baseline (``--expected-failures``) keeps, for each test the baseline lists, the
reason its line gives after ``#`` (a result's ``baseline``), and the entries that name no test of
the run: an expected failure is shown with why it is expected, and an entry that no longer
matches anything is a finding of its own (a *stale baseline*), not a silent no-op.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any, Final, Literal, get_args

from ..judge.case import CONTRACT_IDS
from ..judge.jsontext import dumps
from ..requirements import Requirement, catalog, requirements_of
from .baseline import BaselineFile

Outcome = Literal[
    "passed",
    "failed",
    "errored",
    "expected failure",
    "stale baseline",
    "skipped",
    "not applicable",
    "live not run",
    "deselected",
    "not reached",
]
OUTCOMES: Final[tuple[Outcome, ...]] = get_args(Outcome)
#: Outcomes of a test that was run (the rest say why it was not). "live not run": a live test
#: (PROMPT-CACHE-E2E against the real API) that was not opted into with ``--live``.
RAN: Final[tuple[Outcome, ...]] = OUTCOMES[:8]
_SHORT: Final = (
    "passed",
    "failed",
    "errored",
    "xfail",
    "stale",
    "skipped",
    "n/a",
    "nolive",
    "desel",
    "unrun",
)
#: Outcomes of a test that ran through to a verdict on the implementation. Two implementations
#: disagree on a test only where both have one of these, and they differ: a test one of them did
#: not run (skipped, not applicable, live not run, deselected, not reached) is no disagreement.
DECIDED: Final[tuple[Outcome, ...]] = (
    "passed",
    "failed",
    "errored",
    "expected failure",
    "stale baseline",
)
#: Outcomes of a test that fails, expected (a baseline lists it) or not.
FAILING: Final[tuple[Outcome, ...]] = ("failed", "errored", "expected failure")
#: Outcomes that fail the run, and so are listed with their message under the table.
PROBLEMS: Final[tuple[Outcome, ...]] = ("failed", "errored", "stale baseline")

#: The overall status of an implementation, and of the run (the worst of its implementations).
Status = Literal["does not conform", "stale baseline", "incomplete", "conforms", "nothing ran"]
_STATUS_ORDER: Final[tuple[Status, ...]] = (
    "does not conform",
    "stale baseline",
    "incomplete",
    "nothing ran",
    "conforms",
)

#: The JSON report's format; bumped when a field changes meaning or is added
#: (docs/guide/reports.md). 4 added ``handshake``, ``baseline`` (of an implementation) and a
#: result's ``baseline``; format 3 is still read (`READABLE_FORMATS`), the new fields absent.
REPORT_FORMAT: Final = 4
READABLE_FORMATS: Final = (3, 4)


@dataclass
class Result:
    test: str
    implementation: str
    contracts: tuple[str, ...]
    outcome: Outcome
    message: str = ""
    #: The scenario ops the suite sent, for a failed example or generated case (else ``None``).
    ops: list[Any] | None = None
    #: For a test the baseline lists: the reason its line gives (``""`` when none), else ``None``.
    baseline: str | None = None


@dataclass
class ImplementationInfo:
    label: str
    description: str
    #: The handshake's fields (name, version, language, capabilities), or ``None`` without one.
    handshake: dict[str, Any] | None = None


class Report:
    def __init__(self, contracts: Iterable[str] = CONTRACT_IDS) -> None:
        #: The contract IDs the table shows (all of them, unless the run was restricted).
        self.contracts = tuple(contracts)
        #: Their requirements (`dsh_conformance.requirements`), by ID.
        self.requirements: dict[str, Requirement] = {
            identifier: requirement
            for identifier, requirement in catalog().items()
            if requirement.contract in self.contracts
        }
        self.results: dict[tuple[str, str], Result] = {}
        self.implementations: dict[str, ImplementationInfo] = {}
        #: Every collected test, by (implementation, test): its contract IDs.
        self.collected: dict[tuple[str, str], tuple[str, ...]] = {}
        self.deselected: set[tuple[str, str]] = set()
        #: The run's baseline, when it has one.
        self.baseline_file: BaselineFile | None = None

    def collect(self, implementation: str, test: str, contracts: tuple[str, ...]) -> None:
        self.collected[implementation, test] = contracts

    def deselect(self, implementation: str, test: str) -> None:
        self.deselected.add((implementation, test))

    def record(self, result: Result) -> None:
        """Keep one result per test; a later phase's failure replaces an earlier pass. A test the
        baseline lists carries the reason its line gives."""
        if self.baseline_file is not None and result.baseline is None:
            result.baseline = self.baseline_file.reasons.get(result.test)
        key = (result.implementation, result.test)
        previous = self.results.get(key)
        if previous is None or previous.outcome == "passed":
            self.results[key] = result

    def of(self, implementation: str) -> list[Result]:
        """Every test of ``implementation``: its result, or why it has none. Results come in the
        order of collection, whatever order they arrived in (pytest-xdist's workers finish in
        their own), then those of tests not collected, then the tests that have none."""
        mine = [key for key in self.collected if key[0] == implementation]
        found = [self.results[key] for key in mine if key in self.results]
        found += [
            r
            for key, r in self.results.items()
            if r.implementation == implementation and key not in self.collected
        ]
        for (label, test), contracts in self.collected.items():
            if label == implementation and (label, test) not in self.results:
                outcome: Outcome = (
                    "deselected" if (label, test) in self.deselected else "not reached"
                )
                found.append(Result(test, label, contracts, outcome))
        return found

    def tally(self, implementation: str) -> dict[str, dict[Outcome, int]]:
        counts: dict[str, dict[Outcome, int]] = {
            contract: dict.fromkeys(OUTCOMES, 0) for contract in self.contracts
        }
        for result in self.of(implementation):
            for contract in result.contracts:
                if contract in counts:
                    counts[contract][result.outcome] += 1
        return counts

    def requirement_tally(self, implementation: str) -> dict[str, dict[Outcome, int]]:
        """Like `tally`, by requirement: a test counts under each requirement that claims it."""
        counts: dict[str, dict[Outcome, int]] = {
            requirement: dict.fromkeys(OUTCOMES, 0) for requirement in self.requirements
        }
        for result in self.of(implementation):
            for requirement in requirements_of(result.test):
                if requirement in counts:
                    counts[requirement][result.outcome] += 1
        return counts

    def broken_requirements(self, implementation: str) -> list[str]:
        """The requirements a failed or errored test of ``implementation`` checks."""
        return [
            identifier
            for identifier, row in self.requirement_tally(implementation).items()
            if row["failed"] or row["errored"]
        ]

    def selection(self, implementation: str) -> dict[str, int]:
        """How many tests were collected, run, deselected and not reached."""
        outcomes = [r.outcome for r in self.of(implementation)]
        return {
            "collected": len(outcomes),
            "run": sum(o in RAN for o in outcomes),
            "deselected": outcomes.count("deselected"),
            "not reached": outcomes.count("not reached"),
            "skipped": outcomes.count("skipped"),
            "not applicable": outcomes.count("not applicable"),
            "live not run": outcomes.count("live not run"),
        }

    def unmatched_baseline(self, implementation: str) -> dict[str, str]:
        """The baseline's entries that name no test collected for ``implementation``, with their
        reasons: stale entries as much as a listed test that passed."""
        if self.baseline_file is None:
            return {}
        tests = {test for label, test in self.collected if label == implementation}
        return {k: v for k, v in self.baseline_file.reasons.items() if k not in tests}

    def status(self, implementation: str) -> Status:
        outcomes = {r.outcome for r in self.of(implementation)}
        if outcomes & {"failed", "errored"}:
            return "does not conform"
        if "stale baseline" in outcomes or self.unmatched_baseline(implementation):
            return "stale baseline"
        if outcomes & {"deselected", "not reached"}:
            return "incomplete"
        if outcomes & {"passed", "expected failure"}:
            return "conforms"
        return "nothing ran"

    def overall(self) -> Status:
        return worst_status(self.status(label) for label in self.labels())

    def problems(self, implementation: str) -> list[Result]:
        found = [r for r in self.of(implementation) if r.outcome in PROBLEMS]
        return sorted(found, key=lambda r: (r.contracts, r.test))

    def baseline(self, implementation: str) -> str:
        """An expected-failures file (``--expected-failures``) of what fails now: every test that
        failed or errored, and every test the run's baseline listed that still failed, with the
        reason its line gave. A listed test that passed (stale) is left out: writing the file
        again is how a baseline catches up."""
        reasons = {
            r.test: r.baseline or "" for r in self.of(implementation) if r.outcome in FAILING
        }
        header = f"# expected failures of {implementation}, written by dsh-conformance\n"
        return header + "".join(
            f"{key}  # {reasons[key]}\n" if reasons[key] else f"{key}\n" for key in sorted(reasons)
        )

    def render(self, colour: bool = False) -> str:
        """The report a person reads: one table per implementation, or, for several, one
        comparison; then what did not run, the requirements a failing test checks, and every
        failure, error or stale entry once."""
        labels = self.labels()
        blocks = []
        if len(labels) > 1:
            blocks.append(self._comparison(labels, colour))
        for label in labels:
            info = self.implementations.get(label)
            title = f"DSH conformance: {label}"
            if info is not None and info.description != label:
                title += f" ({info.description})"
            if len(labels) == 1:
                blocks.append(self._table(title, self.tally(label), colour))
            else:
                blocks.append(f"{title}: {_paint(self.status(label), colour)}")
            blocks.append(selection_line(self.selection(label)))
            broken = self.broken_requirements(label)
            if broken:
                blocks.append(f"requirements not met ({len(broken)}): {', '.join(broken)}")
            for result in self.problems(label):
                blocks.append(
                    f"  {result.outcome.upper()} {result.test} [{', '.join(result.contracts)}]"
                )
                blocks.extend(f"      {line}" for line in gist(result.message))
            blocks.extend(self._idle_reasons(label))
        return "\n".join(blocks)

    def _idle_reasons(self, implementation: str) -> list[str]:
        """Why tests ran without passing or failing (skipped, not applicable, live not run):
        each reason once, with how many tests gave it, so that nothing is skipped in silence."""
        reasons: dict[tuple[Outcome, str], int] = {}
        for result in self.of(implementation):
            if result.outcome in _IDLE:
                reason = (gist(result.message) or ["no reason given"])[0]
                reason = reason.removeprefix("Skipped: ").removeprefix(f"{result.outcome}: ")
                key = (result.outcome, reason)
                reasons[key] = reasons.get(key, 0) + 1
        lines = [
            f"  {outcome.upper()} ({count} test{'s' if count > 1 else ''}): {reason}"
            for (outcome, reason), count in sorted(reasons.items())[:_IDLE_REASONS]
        ]
        if len(reasons) > _IDLE_REASONS:
            lines.append(f"  … {len(reasons) - _IDLE_REASONS} more reason(s) in the JSON report")
        return lines

    def _comparison(self, labels: list[str], colour: bool) -> str:
        """A contract-by-implementation matrix of verdicts, then the tests they disagree on."""
        columns = [f"[{number}]" for number in range(1, len(labels) + 1)]
        verdicts = {label: self.tally(label) for label in labels}
        width = max(len(contract) for contract in self.contracts)
        cell = max(len(verdict(row)) for label in labels for row in verdicts[label].values())
        lines = [f"DSH conformance: comparison of {len(labels)} implementations"]
        lines += [f"  {column} {label}" for column, label in zip(columns, labels, strict=True)]
        header = f"{'contract ID':<{width}}  " + "  ".join(f"{c:<{cell}}" for c in columns)
        lines.append(header.rstrip())
        for contract in self.contracts:
            cells = []
            for label in labels:
                text = verdict(verdicts[label][contract])
                cells.append(_paint(text, colour) + " " * (cell - len(text)))
            lines.append(f"{contract:<{width}}  " + "  ".join(cells).rstrip())
        outcomes = {label: {r.test: r.outcome for r in self.of(label)} for label in labels}
        tests = sorted({test for by_test in outcomes.values() for test in by_test})
        decided = {test: {outcomes[label].get(test) for label in labels} for test in tests}
        compared = [
            test
            for test in tests
            if sum(outcomes[label].get(test) in DECIDED for label in labels) > 1
        ]
        disagree = [test for test in compared if len(decided[test] & set(DECIDED)) > 1]
        if not compared:
            lines.append("no test ran on more than one implementation: nothing to compare")
        elif not disagree:
            lines.append(
                f"the implementations agree on every test more than one of them ran "
                f"({len(compared)})"
            )
        else:
            lines.append(f"where they disagree ({len(disagree)} test{'s' * (len(disagree) > 1)}):")
            for test in disagree:
                cells = [
                    f"{column} {outcomes[label].get(test, 'absent')}"
                    for column, label in zip(columns, labels, strict=True)
                ]
                lines.append(f"  {test}: " + ", ".join(cells))
        return "\n".join(lines)

    def labels(self) -> list[str]:
        labels = dict.fromkeys(self.implementations)
        labels.update(dict.fromkeys(r.implementation for r in self.results.values()))
        labels.update(dict.fromkeys(label for label, _ in self.collected))
        return list(labels)

    @staticmethod
    def _table(title: str, counts: dict[str, dict[Outcome, int]], colour: bool) -> str:
        width = max(len(contract) for contract in counts)
        header = f"{'contract ID':<{width}}  " + "  ".join(f"{o:>7}" for o in _SHORT) + "  verdict"
        lines = [title, header, "-" * len(header)]
        for contract, row in counts.items():
            cells = "  ".join(f"{row[outcome]:>7}" for outcome in OUTCOMES)
            lines.append(f"{contract:<{width}}  {cells}  {_paint(verdict(row), colour)}")
        return "\n".join(lines)

    def to_json(self, suite: dict[str, Any] | None = None) -> str:
        """The JSON report (its format: docs/guide/reports.md)."""
        implementations = []
        for label in self.labels():
            tallies = self.tally(label)
            by_requirement = self.requirement_tally(label)
            info = self.implementations.get(label)
            extra: dict[str, Any] = {}
            if info is not None and info.handshake is not None:
                extra["handshake"] = info.handshake
            if self.baseline_file is not None:
                unmatched = self.unmatched_baseline(label)
                extra["baseline"] = {
                    "path": self.baseline_file.path,
                    "entries": len(self.baseline_file.reasons),
                    "unmatched": [{"test": k, "reason": v} for k, v in unmatched.items()],
                }
            implementations.append(
                {
                    "label": label,
                    "description": getattr(info, "description", ""),
                    **extra,
                    "status": self.status(label),
                    "selection": self.selection(label),
                    "contracts": {
                        contract: {**row, "verdict": verdict(row)}
                        for contract, row in tallies.items()
                    },
                    "requirements": {
                        identifier: {
                            **row,
                            "verdict": requirement_verdict(self.requirements[identifier], row),
                        }
                        for identifier, row in by_requirement.items()
                    },
                    "results": [
                        {**_result_json(r), "requirements": list(requirements_of(r.test))}
                        for r in self.of(label)
                    ],
                }
            )
        document = {
            "format": REPORT_FORMAT,
            "suite": suite or {},
            "status": self.overall(),
            "requirements": {
                identifier: requirement.as_json(checks=False)
                for identifier, requirement in self.requirements.items()
            },
            "implementations": implementations,
        }
        return dumps(document, indent=2)


def _result_json(result: Result) -> dict[str, Any]:
    """A result as the JSON report holds it, its fields in their order: ``ops`` only where there
    are some, ``baseline`` only for a test the baseline lists. The values as they are:
    `dataclasses.asdict` would deep-copy each (the ops of every failed case) only for the encoder
    to read them once."""
    found = {field.name: getattr(result, field.name) for field in fields(result)}
    for optional in ("ops", "baseline"):
        if found[optional] is None:
            del found[optional]
    return found


#: Outcomes whose reasons the terminal report lists (at most `_IDLE_REASONS` distinct ones).
_IDLE: Final[tuple[Outcome, ...]] = ("skipped", "not applicable", "live not run")
_IDLE_REASONS: Final = 12
_GIST_LINES: Final = 40
_GIST_HEAD: Final = 8
_GIST_WIDTH: Final = 400


def gist(message: str) -> list[str]:
    """A failure message as the report shows it: up to `_GIST_LINES` lines, each cut to a width;
    a longer one keeps its first lines (what failed) and its last (a harness's stderr tail ends
    with its last words, the crash), saying how many lines were left out between them."""
    lines = [line.rstrip() for line in message.strip().splitlines() if line.strip()]
    shown = [line if len(line) <= _GIST_WIDTH else line[: _GIST_WIDTH - 1] + "…" for line in lines]
    if len(shown) <= _GIST_LINES:
        return shown
    tail = _GIST_LINES - _GIST_HEAD
    left_out = len(shown) - _GIST_LINES
    return [*shown[:_GIST_HEAD], f"… {left_out} more line(s) …", *shown[-tail:]]


def worst_status(statuses: Iterable[Status]) -> Status:
    """The status of a run of several implementations: the worst of theirs."""
    found = set(statuses)
    return next((s for s in _STATUS_ORDER if s in found), "nothing ran")


def selection_line(selection: dict[str, int]) -> str:
    """What ran of what was collected, and why the rest did not: ``ran 350 of 351 tests …``."""
    line = f"ran {selection['run']} of {selection['collected']} tests"
    missing = [f"{selection[key]} {key}" for key in ("deselected", "not reached") if selection[key]]
    if missing:
        line += f" ({', '.join(missing)})"
    idle = [
        f"{selection[key]} {key}"
        for key in ("skipped", "not applicable", "live not run")
        if selection[key]
    ]
    if idle:
        line += f"; of those run, {', '.join(idle)}"
    return line


_COLOURS: Final = {
    "DOES": "31",
    "stale": "31",
    "conforms offline": "33",
    "conforms": "32",
    "incomplete": "33",
    "live": "33",
}


def _paint(text: str, colour: bool) -> str:
    """``text`` in its colour on a terminal (red: does not conform, green: conforms, yellow:
    incomplete); the caller decides, honouring NO_COLOR and pytest's ``--color``."""
    code = next((c for prefix, c in _COLOURS.items() if text.startswith(prefix)), None)
    return f"\x1b[{code}m{text}\x1b[0m" if colour and code else text


def requirement_verdict(requirement: Requirement, row: dict[Outcome, int]) -> str:
    """A requirement's verdict: that of its tests, as for a contract; one that no case can check
    says so (its reason is the requirement's ``unchecked``)."""
    return (
        "unchecked: cannot be checked through the protocol"
        if requirement.unchecked
        else verdict(row)
    )


def verdict(row: dict[Outcome, int]) -> str:
    run = sum(row[outcome] for outcome in RAN)
    total = run + row["deselected"] + row["not reached"]
    if row["failed"] or row["errored"]:
        return "DOES NOT CONFORM"
    if row["stale baseline"]:
        return "stale baseline entry"
    if total == 0:
        return "no cases yet"
    if run == 0:
        return "not run" if row["not reached"] else "not selected"
    if run < total:
        return f"incomplete: {run} of {total} run"
    if row["expected failure"]:
        return f"baseline: {row['expected failure']} expected failure(s)"
    if row["passed"] and row["live not run"]:
        return "conforms offline; live test not run"
    if row["passed"]:
        return "conforms" + (" (some skipped)" if row["skipped"] else "")
    if row["live not run"]:
        return "live test not run"
    if row["not applicable"]:
        return "not applicable"
    return "skipped"
