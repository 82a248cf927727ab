"""The suite as data: the listing of ``dsh-conformance --list`` and the files of ``export-cases``.

An example case is data already (`dsh_conformance.judge.case.Case`): exported as JSON, with the
exact ``run`` message to send and the expected observation of each op, a project in another language
runs the cases in its own test runner, the way toml-test and the JSON-Schema-Test-Suite are
consumed. The property tests generate their cases with Hypothesis while they run, and the other
tests of the suite (goldens, HTTP, timing, the live cache check) need it around them: they stay
Python-only, and the listing names them, by contract ID, and says so. The listing also shows the
requirement catalog (`dsh_conformance.requirements`): which requirements each case and test checks,
and per requirement what checks it.
"""

from __future__ import annotations

import errno
import fnmatch
import importlib
import itertools
import json
import pkgutil
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import dsh_conformance

from ..cases import all_cases
from ..deepseek.http_rules import ALL_HTTP_CASES
from ..harness.protocol import CAPABILITIES, PROTOCOL_VERSION, run_message
from ..harness.zone import HARNESS_TZ
from ..judge.case import (
    COMPARISON_VERSION,
    CONTRACT_IDS,
    FIELD_RULES,
    RULES,
    Case,
    expected_observation,
    rule_of,
)
from ..judge.expected_requests import fixed_requests
from ..judge.invariant import INVARIANT_CONTRACTS
from ..judge.jsontext import dumps
from ..judge.logfold import RULES as FOLD_RULES
from ..judge.logview import ABSENT, CORE_TYPES, SESSION
from ..requirements import EXAMPLE_TEST, catalog, requirements_naming, requirements_of
from ..scenarios.loopscenario import ANY_TEXT
from ..scenarios.scenario import (
    RUNTIME_CONTEXT_CLEARED,
    RUNTIME_CONTEXT_OWNER,
    RUNTIME_CONTEXT_PREAMBLE,
)

Json = Any

#: The export's own version: bumped when a file's shape changes
#: (dsh_conformance/export/*.schema.json).
#: 3: a `request-invariant` suite check carries the requests the case's expectations fix.
#: 4: the log fold and the request invariant are the `final-observe` rule, so `suiteChecks` is
#: empty; a case carries `runText` (the line to send) and `expectedRequests`; index.json names the
#: answer schema, the harness's environment and the fold's constants.
EXPORT_FORMAT: Final = 4
#: The rule of the ``observe`` op the suite appends for each agent of a loop case.
FINAL_OBSERVE: Final = "final-observe"
#: What ``export-cases`` copies beside the cases: the comparison rules, the schemas of the files
#: and of the answers, and the Node runner that proves the export is enough.
_EXPORT_SOURCES: Final = {
    **{
        name: Path(__file__).parents[1] / "export" / name
        for name in ("COMPARISON.md", "case.schema.json", "index.schema.json", "runner.mjs")
    },
    "protocol.schema.json": Path(__file__).parents[1] / "harness" / "protocol.schema.json",
}
_EXPORT_FILES: Final = tuple(_EXPORT_SOURCES)
PROPERTIES_NOTE: Final = (
    "Property tests (Hypothesis) generate their cases while they run, and the other tests (golden "
    "files, HTTP to the suite's own server, timing, the live cache check) need the suite around "
    "them: both are run by dsh-conformance only, not exported."
)


def cases(contracts: frozenset[str] = frozenset()) -> list[Case]:
    """The example cases, restricted to ``contracts`` when given (`checked_contracts`)."""
    return [c for c in all_cases() if not contracts or contracts & set(checked_contracts(c))]


def case_ids() -> frozenset[str]:
    """Every id a ``--case`` glob can match: the example cases', and the DeepSeek HTTP cases'
    (``test_deepseek_http`` runs one test per case, as ``test_example`` does)."""
    return frozenset([case.id for case in all_cases()] + [case.id for case in ALL_HTTP_CASES])


def unmatched_glob(globs: list[str]) -> str | None:
    """The first ``--case`` glob that matches no case of the suite (`case_ids`), if any: the
    one check of a run (`plugin`) and of ``--list`` (`runner`)."""
    ids = case_ids()
    return next((g for g in globs if not any(fnmatch.fnmatchcase(i, g) for i in ids)), None)


def checked_contracts(case: Case) -> tuple[str, ...]:
    """The contract IDs a case's tests check: its own, and for a loop case those of the suite's
    request check run on it (``test_loop_invariant``)."""
    return tuple(dict.fromkeys(case.contracts + (INVARIANT_CONTRACTS if case.agents() else ())))


def final_observe(case: Case) -> dict[str, Json]:
    """The expectation of the ``observe`` op the suite appends for each agent: the log fold
    (`dsh_conformance.judge.logfold`) breaking no rule of ``foldContracts`` — the case's own
    contracts (``test_example``) and the invariant's (``test_loop_invariant``) — and the request
    invariant
    (`dsh_conformance.judge.invariant`), both defined in COMPARISON.md for any runner."""
    contracts = dict.fromkeys((*case.contracts, *INVARIANT_CONTRACTS))
    return {"rule": FINAL_OBSERVE, "value": {"foldContracts": list(contracts)}}


def expected_requests(case: Case) -> dict[str, Json]:
    """For a loop case, the requests its own expectations fix (derived from an expected log by the
    suite's fold, `fixed_requests`), or why it fixes none; nothing for another case."""
    if not case.agents():
        return {}
    fixed, why = fixed_requests(list(case.ops))
    found: dict[str, Json] = {"expectedRequests": [requests.as_json() for requests in fixed]}
    if why is not None:
        found["notFixed"] = why
    return found


def properties(contracts: frozenset[str] = frozenset()) -> list[dict[str, Json]]:
    """The property tests (``test_property_*``): name, contract IDs, first docstring line."""
    return _tests(contracts, lambda module: module.startswith("test_property_"))


def other_tests(contracts: frozenset[str] = frozenset()) -> list[dict[str, Json]]:
    """The suite's tests that are neither example cases nor properties (the loop invariant, goldens,
    HTTP, timing)."""
    return _tests(
        contracts,
        lambda module: not module.startswith("test_property_"),
    )


def _tests(contracts: frozenset[str], wanted: Callable[[str], bool]) -> list[dict[str, Json]]:
    """The tagged tests of the modules ``wanted`` picks, with the requirements naming them or one
    of their parameters; ``test_example`` is listed case by case instead."""
    found = []
    for info in sorted(pkgutil.iter_modules(dsh_conformance.__path__), key=lambda i: i.name):
        if not info.name.startswith("test_") or not wanted(info.name):
            continue
        module = importlib.import_module(f"dsh_conformance.{info.name}")
        for name, test in vars(module).items():
            tagged = _contracts(test)
            if not name.startswith("test_") or not tagged or name == EXAMPLE_TEST:
                continue
            if contracts and not contracts & set(tagged):
                continue
            params = parameters(test)
            found.append(
                {
                    "test": name,
                    "module": info.name,
                    "contracts": list(tagged),
                    "why": _description(name, test),
                    "parameters": params,
                    "requirements": _requirements_of_test(name, params),
                }
            )
    return found


def _description(name: str, test: Any) -> str:
    """What ``--list`` says of a test: its docstring's first paragraph on one line (its first
    line alone stops mid-sentence), or, without a docstring, its name in words."""
    paragraph = (test.__doc__ or "").strip().split("\n\n", 1)[0]
    return " ".join(paragraph.split()) or name.removeprefix("test_").replace("_", " ")


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


def parameters(test: Any) -> list[str]:
    """The parameter ids of a test of the suite besides the implementation (``test[id]`` in the
    report), from its ``parametrize`` marks: a `pytest.param`'s id, else the value itself."""
    ids: list[list[str]] = []
    for mark in getattr(test, "pytestmark", []):
        if mark.name != "parametrize" or len(mark.args) < 2:
            continue
        given = mark.kwargs.get("ids")
        ids.append(
            [
                _given_id(given, value, index)
                or getattr(value, "id", None)
                or _value_id(value, mark.args[0], index)
                for index, value in enumerate(mark.args[1])
            ]
        )
    return (
        ["-".join(combination) for combination in itertools.product(*reversed(ids))] if ids else []
    )


def _given_id(given: Any, value: Any, index: int) -> str | None:
    """The id ``parametrize(ids=…)`` gives a value: from a list, or a function's answer."""
    if given is None:
        return None
    found = given(value) if callable(given) else given[index]
    return None if found is None else str(found)


def _value_id(value: Any, argnames: str, index: int) -> str:
    if isinstance(value, str | int | float | bool):
        return str(value)
    return f"{argnames.split(',')[0].strip()}{index}"


def _requirements_of_test(name: str, params: list[str]) -> list[str]:
    found = set(requirements_naming(name))
    for param in params:
        found.update(requirements_of(f"{name}[{param}]"))
    return [requirement for requirement in catalog() if requirement in found]


def listing(contracts: frozenset[str] = frozenset()) -> dict[str, Json]:
    """``--list --json``: every case, property test and other test with the requirements it
    checks, counts per contract ID, and every requirement with what checks it (or why nothing
    can)."""
    chosen = cases(contracts)
    props = properties(contracts)
    others = other_tests(contracts)
    counts = {
        contract: {
            "cases": sum(contract in checked_contracts(c) for c in chosen),
            "properties": sum(contract in p["contracts"] for p in props),
            "other": sum(contract in o["contracts"] for o in others),
            "requirements": sum(r.contract == contract for r in catalog().values()),
        }
        for contract in CONTRACT_IDS
        if not contracts or contract in contracts
    }
    chosen_requirements = [
        r for r in catalog().values() if not contracts or r.contract in contracts
    ]
    return {
        "protocol": PROTOCOL_VERSION,
        "contracts": counts,
        "cases": [
            {**_summary(case), "requirements": list(requirements_of(f"{EXAMPLE_TEST}[{case.id}]"))}
            for case in chosen
        ],
        "properties": props,
        "other": others,
        "requirements": {r.id: r.as_json(checks=True) for r in chosen_requirements},
        "unchecked": [r.id for r in chosen_requirements if not r.checked],
        "note": PROPERTIES_NOTE,
    }


def render_listing(data: dict[str, Json]) -> str:
    """``--list``: the listing as text, one case per line, then the count per contract ID."""
    lines = []
    for case in data["cases"]:
        requires = f" (needs {', '.join(case['requires'])})" if case["requires"] else ""
        lines.append(f"{case['id']}  [{', '.join(case['contracts'])}]{requires}")
        lines.append(f"    why: {case['why']}")
        lines.append(f"    checks: {', '.join(case['requirements']) or '(no requirement)'}")
    for kind, key in (("property", "properties"), ("test", "other")):
        for test in data[key]:
            lines.append(f"{test['module']}::{test['test']}  [{', '.join(test['contracts'])}]")
            lines.append(f"    {kind}: {test['why']}")
            lines.append(f"    checks: {', '.join(test['requirements']) or '(no requirement)'}")
    width = max(len(contract) for contract in data["contracts"])
    lines.append("")
    lines.append(f"{'contract ID':<{width}}  cases  properties  other  requirements")
    for contract, count in data["contracts"].items():
        lines.append(
            f"{contract:<{width}}  {count['cases']:>5}  {count['properties']:>10}  "
            f"{count['other']:>5}  {count['requirements']:>12}"
        )
    lines.append(data["note"])
    lines.append("")
    lines.extend(_render_requirements(data["requirements"], data["unchecked"]))
    return "\n".join(lines)


def _render_requirements(requirements: dict[str, Json], unchecked: list[str]) -> list[str]:
    """Each requirement with what checks it, then the requirements no case or test checks."""
    lines = [f"requirements ({len(requirements)}), each with the cases and tests that check it:"]
    for identifier, entry in requirements.items():
        lines.append(f"{identifier}  {entry['text']}")
        lines.append(f"    source: {entry['source']}")
        checks = [*entry["cases"], *entry["tests"]]
        lines.append(
            f"    checked by: {', '.join(checks)}" if checks else "    checked by: nothing"
        )
    lines.append("")
    lines.append(f"requirements no case or test checks ({len(unchecked)}):")
    for identifier in unchecked:
        reason = requirements[identifier].get("unchecked", "NO REASON GIVEN: a gap in the suite")
        lines.append(f"  {identifier}: {reason}")
    return lines


def export(directory: Path, contracts: frozenset[str] = frozenset()) -> int:
    """Write every example case as ``DIR/<id>.json``, an ``index.json`` and the files a runner in
    another language needs (`_EXPORT_FILES`); how many cases. Raises `OSError` when ``DIR`` cannot
    be written."""
    chosen = cases(contracts)
    documents: dict[str, Json] = {}
    index: list[dict[str, Json]] = []
    for case in chosen:
        name = file_name(case.id) + ".json"
        if name in documents or name in _EXPORT_FILES or name == "index.json":
            raise ValueError(f"case {case.id!r} would overwrite {name}")
        documents[name] = exported_case(case)
        index.append({**_summary(case), "file": name})
    documents["index.json"] = {
        "format": EXPORT_FORMAT,
        "protocol": PROTOCOL_VERSION,
        "capabilities": list(CAPABILITIES),
        "contracts": list(CONTRACT_IDS),
        "answerSchema": "protocol.schema.json",
        "harness": {"environment": {"TZ": HARNESS_TZ}},
        "comparison": {
            "version": COMPARISON_VERSION,
            "document": "COMPARISON.md",
            "rules": sorted([*RULES, FINAL_OBSERVE]),
            "fieldRules": FIELD_RULES,
            "defaultFieldRule": "json-value",
            "logView": {
                "coreTypes": sorted(CORE_TYPES),
                "session": SESSION,
                "absent": ABSENT,
                "anyText": ANY_TEXT,
            },
            "logFold": {
                "rules": FOLD_RULES,
                "runtimeContext": {
                    "owner": RUNTIME_CONTEXT_OWNER,
                    "preamble": RUNTIME_CONTEXT_PREAMBLE,
                    "cleared": RUNTIME_CONTEXT_CLEARED,
                },
            },
        },
        "note": PROPERTIES_NOTE,
        "notExported": other_tests(contracts) + properties(contracts),
        "cases": index,
    }
    if directory.exists() and not directory.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "it is not a directory", str(directory))
    directory.mkdir(parents=True, exist_ok=True)
    for name, source in _EXPORT_SOURCES.items():
        shutil.copyfile(source, directory / name)
    for name, document in documents.items():
        _write(directory / name, document)
    return len(chosen)


def file_name(case_id: str) -> str:
    """A case id as a file name: ``/`` (and anything else unsafe) becomes ``__``."""
    return re.sub(r"[^\w.-]+", "__", case_id)


def exported_case(case: Case) -> dict[str, Json]:
    """One case file: the ``run`` message the suite sends, as a value and as the exact line of
    JSON text the suite writes (``runText``: a re-serialization may change a number, such as a
    400-digit integer a double cannot hold), and per op of it the comparison rule and the
    expectation (``null``: not checked). ``suiteChecks`` (checks only the suite can make) is
    empty: COMPARISON.md defines every check."""
    run = run_message(case.id, case.sent_scenario())
    return {
        **_summary(case),
        "run": run,
        "runText": json.dumps(run),
        "expected": [_expectation(op) for op in case.ops]
        + [final_observe(case)] * len(case.agents()),
        "suiteChecks": [],
        **expected_requests(case),
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


def _write(path: Path, content: Json) -> None:
    path.write_text(dumps(content, indent=2) + "\n", encoding="utf-8")
