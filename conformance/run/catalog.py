"""The suite as data: the listing of ``dsh-conformance --list`` and the files of ``export-cases``.

An example case is data already (`conformance.judge.case.Case`): exported as JSON, with the exact
``run`` message to send and the expected observation of each op, a project in another language runs
the cases in its own test runner, the way toml-test and the JSON-Schema-Test-Suite are consumed. The
property tests generate their cases with Hypothesis while they run, and the other tests of the
suite (goldens, HTTP, timing, the live cache check) need it around them: they stay Python-only,
and the listing names them, by contract ID, and says so.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import conformance

from ..cases import all_cases
from ..harness.protocol import PROTOCOL_VERSION, run_message
from ..judge.case import CONTRACT_IDS, Case, expected_observation
from ..judge.jsontext import dumps

Json = Any

#: How an exported expectation is compared (the rules of `conformance.judge.case.compare`).
COMPARISON: Final = (
    "Each op's observation is compared with its 'expected' entry; null means the op's "
    "observation is not checked. An expectation is partial: only the keys it names are "
    "compared, by JSON equality, except that under 'error' only 'kind' (and 'where', when "
    "given) are compared, under 'evaluations' only the listed counters, and 'tools' must also "
    "keep the key order of each 'parameters' object. An observed {'error': …} where no error "
    "is expected fails."
)
PROPERTIES_NOTE: Final = (
    "Property tests (Hypothesis) generate their cases while they run, and the other tests (golden "
    "files, HTTP to the suite's own server, timing, the live cache check) need the suite around "
    "them: both are run by dsh-conformance only, not exported."
)


def cases(contracts: frozenset[str] = frozenset()) -> list[Case]:
    """The example cases, restricted to ``contracts`` when given."""
    return [c for c in all_cases() if not contracts or contracts & set(c.contracts)]


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
            "cases": sum(contract in c.contracts for c in chosen),
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
    """Write every example case as ``DIR/<id>.json`` and an ``index.json``; how many."""
    chosen = cases(contracts)
    directory.mkdir(parents=True, exist_ok=True)
    index: list[dict[str, Json]] = []
    for case in chosen:
        name = file_name(case.id) + ".json"
        if any(entry["file"] == name for entry in index):
            raise ValueError(f"case {case.id!r} would overwrite {name}")
        _write(directory / name, document(case))
        index.append({"id": case.id, "file": name, "contracts": list(case.contracts)})
    _write(
        directory / "index.json",
        {
            "protocol": PROTOCOL_VERSION,
            "comparison": COMPARISON,
            "note": PROPERTIES_NOTE,
            "cases": index,
        },
    )
    return len(chosen)


def file_name(case_id: str) -> str:
    """A case id as a file name: ``/`` (and anything else unsafe) becomes ``__``."""
    return re.sub(r"[^\w.-]+", "__", case_id)


def document(case: Case) -> dict[str, Json]:
    """One case in the export format: its summary, the exact ``run`` message, the expectations."""
    return {
        **_summary(case),
        "run": run_message(case.id, case.scenario()),
        "expected": [expected_observation(op) for op in case.ops],
    }


def _summary(case: Case) -> dict[str, Json]:
    return {
        "id": case.id,
        "contracts": list(case.contracts),
        "requires": list(case.requires),
        "why": case.why,
    }


def _write(path: Path, content: Json) -> None:
    path.write_text(dumps(content, indent=2) + "\n", encoding="utf-8")
