"""The suite as data: the listing of ``dsh-conformance --list`` and the files of ``export-cases``.

An example case is data already (`conformance.judge.case.Case`): exported as JSON, with the exact
``run`` message to send and the expected observation of each op, a project in another language runs
the cases in its own test runner, the way toml-test and the JSON-Schema-Test-Suite are consumed. The
property tests generate their cases with Hypothesis while they run, and the other tests of the
suite (goldens, HTTP, timing, the live cache check) need it around them: they stay Python-only,
and the listing names them, by contract ID, and says so.
"""

from __future__ import annotations

import errno
import importlib
import pkgutil
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import conformance

from ..cases import all_cases
from ..harness.protocol import CAPABILITIES, PROTOCOL_VERSION, run_message
from ..judge.case import (
    COMPARISON_VERSION,
    CONTRACT_IDS,
    FIELD_RULES,
    RULES,
    Case,
    expected_observation,
    rule_of,
)
from ..judge.invariant import INVARIANT_CONTRACTS
from ..judge.jsontext import dumps
from ..judge.logview import ABSENT, CORE_TYPES, SESSION

Json = Any

#: The export's own version: bumped when a file's shape changes (conformance/export/*.schema.json).
EXPORT_FORMAT: Final = 2
#: What ``export-cases`` copies beside the cases: the comparison rules, the schemas of the files,
#: and the Node runner that proves the export is enough.
_EXPORT_FILES: Final = ("COMPARISON.md", "case.schema.json", "index.schema.json", "runner.mjs")
_EXPORT_SOURCE: Final = Path(__file__).parents[1] / "export"
PROPERTIES_NOTE: Final = (
    "Property tests (Hypothesis) generate their cases while they run, and the other tests (golden "
    "files, HTTP to the suite's own server, timing, the live cache check) need the suite around "
    "them: both are run by dsh-conformance only, not exported."
)


def cases(contracts: frozenset[str] = frozenset()) -> list[Case]:
    """The example cases, restricted to ``contracts`` when given (`checked_contracts`)."""
    return [c for c in all_cases() if not contracts or contracts & set(checked_contracts(c))]


def checked_contracts(case: Case) -> tuple[str, ...]:
    """The contract IDs a case's tests check: its own, and for a loop case those of the suite's
    request check run on it (``test_loop_invariant``)."""
    return tuple(dict.fromkeys(case.contracts + (INVARIANT_CONTRACTS if case.agents() else ())))


def suite_checks(case: Case) -> list[dict[str, Json]]:
    """The checks of ``case`` that need the suite's own fold of a log (`conformance.judge.logfold`,
    `conformance.judge.invariant`): which ops' observations they read, for which contracts."""
    if not case.agents():
        return []
    finals = list(range(len(case.ops), len(case.ops) + len(case.agents())))
    return [
        {"check": "log-fold", "ops": finals, "contracts": list(case.contracts)},
        {"check": "request-invariant", "ops": finals, "contracts": list(INVARIANT_CONTRACTS)},
    ]


def properties(contracts: frozenset[str] = frozenset()) -> list[dict[str, Json]]:
    """The property tests (``test_property_*``): name, contract IDs, first docstring line."""
    return _tests(contracts, lambda module: module.startswith("test_property_"))


def other_tests(contracts: frozenset[str] = frozenset()) -> list[dict[str, Json]]:
    """The suite's tests that are neither example cases nor properties (goldens, HTTP, timing)."""
    return _tests(
        contracts,
        lambda module: module != "test_examples" and not module.startswith("test_property_"),
    )


def _tests(contracts: frozenset[str], wanted: Callable[[str], bool]) -> list[dict[str, Json]]:
    found = []
    for info in sorted(pkgutil.iter_modules(conformance.__path__), key=lambda i: i.name):
        if not info.name.startswith("test_") or not wanted(info.name):
            continue
        module = importlib.import_module(f"conformance.{info.name}")
        for name, test in vars(module).items():
            tagged = _contracts(test)
            if not name.startswith("test_") or not tagged:
                continue
            if contracts and not contracts & set(tagged):
                continue
            doc = (test.__doc__ or "").strip().splitlines()
            found.append(
                {
                    "test": name,
                    "module": info.name,
                    "contracts": list(tagged),
                    "why": doc[0] if doc else "",
                }
            )
    return found


def _contracts(test: Any) -> tuple[str, ...]:
    """The contract IDs a test carries: on the function, or on its parameters (`pytest.param`)."""
    tagged: list[str] = []
    for mark in getattr(test, "pytestmark", []):
        if mark.name == "contract":
            tagged += mark.args
        elif mark.name == "parametrize" and len(mark.args) > 1:
            for value in mark.args[1]:
                for inner in getattr(value, "marks", ()):
                    if inner.name == "contract":
                        tagged += inner.args
    return tuple(dict.fromkeys(tagged))


def listing(contracts: frozenset[str] = frozenset()) -> dict[str, Json]:
    """``--list --json``: every case, property test and other test, and counts per contract ID."""
    chosen = cases(contracts)
    props = properties(contracts)
    others = other_tests(contracts)
    counts = {
        contract: {
            "cases": sum(contract in checked_contracts(c) for c in chosen),
            "properties": sum(contract in p["contracts"] for p in props),
            "other": sum(contract in o["contracts"] for o in others),
        }
        for contract in CONTRACT_IDS
        if not contracts or contract in contracts
    }
    return {
        "protocol": PROTOCOL_VERSION,
        "contracts": counts,
        "cases": [_summary(case) for case in chosen],
        "properties": props,
        "other": others,
        "note": PROPERTIES_NOTE,
    }


def render_listing(data: dict[str, Json]) -> str:
    """``--list``: the listing as text, one case per line, then the count per contract ID."""
    lines = []
    for case in data["cases"]:
        requires = f" (needs {', '.join(case['requires'])})" if case["requires"] else ""
        lines.append(f"{case['id']}  [{', '.join(case['contracts'])}]{requires}")
        lines.append(f"    why: {case['why']}")
    for kind, key in (("property", "properties"), ("test", "other")):
        for test in data[key]:
            lines.append(f"{test['module']}::{test['test']}  [{', '.join(test['contracts'])}]")
            lines.append(f"    {kind}: {test['why']}")
    width = max(len(contract) for contract in data["contracts"])
    lines.append("")
    lines.append(f"{'contract ID':<{width}}  cases  properties  other")
    for contract, count in data["contracts"].items():
        lines.append(
            f"{contract:<{width}}  {count['cases']:>5}  {count['properties']:>10}  "
            f"{count['other']:>5}"
        )
    lines.append(data["note"])
    return "\n".join(lines)


def export(directory: Path, contracts: frozenset[str] = frozenset()) -> int:
    """Write every example case as ``DIR/<id>.json``, an ``index.json`` and the files a runner in
    another language needs (`_EXPORT_FILES`); how many cases. Raises `OSError` when ``DIR`` cannot
    be written."""
    chosen = cases(contracts)
    documents: dict[str, Json] = {}
    index: list[dict[str, Json]] = []
    for case in chosen:
        name = re.sub(r"[^\w.-]+", "__", case.id) + ".json"
        if name in documents or name in _EXPORT_FILES or name == "index.json":
            raise ValueError(f"case {case.id!r} would overwrite {name}")
        documents[name] = exported_case(case)
        index.append({**_summary(case), "file": name})
    documents["index.json"] = {
        "format": EXPORT_FORMAT,
        "protocol": PROTOCOL_VERSION,
        "capabilities": list(CAPABILITIES),
        "contracts": list(CONTRACT_IDS),
        "comparison": {
            "version": COMPARISON_VERSION,
            "document": "COMPARISON.md",
            "rules": sorted(RULES),
            "fieldRules": FIELD_RULES,
            "defaultFieldRule": "json-value",
            "logView": {"coreTypes": sorted(CORE_TYPES), "session": SESSION, "absent": ABSENT},
        },
        "note": PROPERTIES_NOTE,
        "notExported": other_tests(contracts) + properties(contracts),
        "cases": index,
    }
    if directory.exists() and not directory.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "it is not a directory", str(directory))
    directory.mkdir(parents=True, exist_ok=True)
    for name in _EXPORT_FILES:
        shutil.copyfile(_EXPORT_SOURCE / name, directory / name)
    for name, document in documents.items():
        _write(directory / name, document)
    return len(chosen)


def exported_case(case: Case) -> dict[str, Json]:
    """One case file: the exact ``run`` message the suite sends, and per op of it the comparison
    rule and the expectation (``null``: not checked)."""
    finals = [{"rule": "final-observe", "value": None}] * len(case.agents())
    return {
        **_summary(case),
        "run": run_message(case.id, case.sent_scenario()),
        "expected": [_expectation(op) for op in case.ops] + finals,
        "suiteChecks": suite_checks(case),
    }


def _expectation(op: Json) -> Json:
    expected = expected_observation(op)
    return None if expected is None else {"rule": rule_of(expected), "value": expected}


def _summary(case: Case) -> dict[str, Json]:
    return {
        "id": case.id,
        "contracts": list(case.contracts),
        "checks": list(checked_contracts(case)),
        "requires": list(case.requires),
        "why": case.why,
    }


def _write(path: Path, document: Json) -> None:
    path.write_text(dumps(document, indent=2) + "\n", encoding="utf-8")
