"""The requirement catalog (`dsh_conformance.requirements`) against the suite and CONTRACTS.md.

Every example case, HTTP case and test of the suite must be claimed by a requirement of one of its
own contract IDs; every case or test a requirement names must exist and carry that contract; every
requirement must be checked or say why it cannot be; and each quotes its CONTRACTS.md section
word for word. A failure names the catalog file to edit.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest

from dsh_conformance.cases import all_cases
from dsh_conformance.deepseek.http_rules import ALL_HTTP_CASES
from dsh_conformance.judge.case import CONTRACT_IDS
from dsh_conformance.requirements import (
    CASE_TESTS,
    EXAMPLE_TEST,
    Requirement,
    catalog,
    data_file,
    requirements_of,
)
from dsh_conformance.requirements.requirement import split_test_key
from dsh_conformance.run.catalog import other_tests, properties

#: Case id -> (the test that runs it, its contract IDs).
CASES: Final = {case.id: (EXAMPLE_TEST, case.contracts) for case in all_cases()} | {
    case.id: (CASE_TESTS[1], case.case("http://127.0.0.1").contracts) for case in ALL_HTTP_CASES
}
#: Test name -> (its contract IDs, its parameter ids), for every test of the suite but the cases'.
TESTS: Final = {
    test["test"]: (tuple(test["contracts"]), test["parameters"])
    for test in properties() + other_tests()
    if test["test"] not in CASE_TESTS
}
#: CONTRACTS.md, where this project's checkouts find it (beside the repository, in shared/spec).
CONTRACTS_MD: Final = Path(__file__).resolve().parents[3] / "shared" / "spec" / "CONTRACTS.md"


def _files(contracts: tuple[str, ...]) -> str:
    return " or ".join(data_file(contract) for contract in contracts)


def _unclaimed(key: str, contracts: tuple[str, ...]) -> bool:
    return not any(catalog()[found].contract in contracts for found in requirements_of(key))


def test_every_contract_is_split_into_requirements() -> None:
    catalogued = {requirement.contract for requirement in catalog().values()}
    missing = [contract for contract in CONTRACT_IDS if contract not in catalogued]
    assert not missing, "\n".join(f"{data_file(c)}: no requirements of {c}" for c in missing)


def test_every_case_is_claimed_by_a_requirement_of_its_contracts() -> None:
    problems = [
        f"case {case!r} [{', '.join(contracts)}] is claimed by no requirement: add its id to "
        f"the `cases` of the requirement it checks, in {_files(contracts)}"
        for case, (runner, contracts) in CASES.items()
        if _unclaimed(f"{runner}[{case}]", contracts)
    ]
    assert not problems, "\n".join(problems)


def test_every_test_is_claimed_by_a_requirement_of_its_contracts() -> None:
    problems = []
    for name, (contracts, params) in TESTS.items():
        keys = [name] if _unclaimed(name, contracts) else []
        if keys and params:
            unclaimed = [p for p in params if _unclaimed(f"{name}[{p}]", contracts)]
            keys = [f"{name}[{p}]" for p in unclaimed] if len(unclaimed) < len(params) else keys
        problems += [
            f"test {key!r} [{', '.join(contracts)}] is claimed by no requirement: add it to "
            f"the `tests` of the requirement it checks, in {_files(contracts)}"
            for key in keys
        ]
    assert not problems, "\n".join(problems)


def test_what_a_requirement_names_exists_and_carries_its_contract() -> None:
    problems = []
    for requirement in catalog().values():
        where = f"{data_file(requirement.contract)}: {requirement.id}"
        for case in requirement.cases:
            if case not in CASES:
                problems.append(f"{where} names case {case!r}, which the suite does not have")
            elif requirement.contract not in CASES[case][1]:
                problems.append(f"{where} names case {case!r}, not tagged {requirement.contract}")
        for test in requirement.tests:
            name, param = split_test_key(test)
            if name not in TESTS:
                problems.append(f"{where} names test {name!r}, which the suite does not have")
            elif requirement.contract not in TESTS[name][0]:
                problems.append(f"{where} names test {name!r}, not tagged {requirement.contract}")
            elif param is not None and param not in TESTS[name][1]:
                problems.append(f"{where} names {test!r}: {name} has no parameter {param!r}")
    assert not problems, "\n".join(problems)


def test_every_requirement_is_checked_or_says_why_it_cannot_be() -> None:
    problems = [
        f"{data_file(r.contract)}: {r.id} is checked by no case or test and gives no reason "
        "(`unchecked`) why it cannot be"
        for r in catalog().values()
        if not r.checked and not r.unchecked
    ]
    assert not problems, "\n".join(problems)


def _sections(text: str) -> dict[str, str]:
    """CONTRACTS.md's ``## `` sections by heading, each with its white space collapsed."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return {
        heading.strip(): " ".join(body.split())
        for heading, body in zip(parts[1::2], parts[2::2], strict=True)
    }


@pytest.mark.skipif(not CONTRACTS_MD.is_file(), reason=f"{CONTRACTS_MD} is not there")
def test_every_requirement_quotes_its_section_of_contracts_md() -> None:
    sections = _sections(CONTRACTS_MD.read_text(encoding="utf-8"))
    problems = []
    for requirement in catalog().values():
        where = f"{data_file(requirement.contract)}: {requirement.id}"
        section = sections.get(requirement.section)
        if section is None:
            problems.append(f"{where}: CONTRACTS.md has no section {requirement.section!r}")
            continue
        for fragment in requirement.quote.split(" … "):
            if " ".join(fragment.split()) not in section:
                problems.append(f"{where}: {fragment!r} is not in {requirement.section!r}")
    assert not problems, "\n".join(problems)


def test_a_requirement_is_refused_without_a_numbered_id_or_with_checks_and_a_reason() -> None:
    words = {"text": "t", "section": "s", "quote": "q"}
    with pytest.raises(ValueError, match=r"CONTRACT-ID\.<number>"):
        Requirement("PROMPT-STRICT-RENDER", **words)
    with pytest.raises(ValueError, match="checked, yet"):
        Requirement("PROMPT-STRICT-RENDER.1", **words, cases=("c",), unchecked="why")
    assert Requirement("PROMPT-STRICT-RENDER.12", **words).contract == "PROMPT-STRICT-RENDER"


def test_a_test_key_counts_under_the_requirements_naming_it_its_case_or_its_function() -> None:
    # PROMPT-HEADER-CANONICAL.4 names test_header_equality[stop] only, .9 the whole golden test.
    assert "PROMPT-HEADER-CANONICAL.4" in requirements_of("test_header_equality[stop]")
    assert "PROMPT-HEADER-CANONICAL.4" not in requirements_of("test_header_equality[system]")
    golden = "test_canonical_header_matches_the_golden"
    assert "PROMPT-HEADER-CANONICAL.9" in requirements_of(f"{golden}[initial]")
    case = "loop/empty-first-decision-completes-without-step"
    assert requirements_of(f"{EXAMPLE_TEST}[{case}]") == ("PROMPT-STEP-BOUNDARY.5",)
    # The invariant test of a loop case checks the invariant, not the case's own rules.
    invariant = requirements_of(f"test_loop_invariant[{case}]")
    assert "LOGGEDLOOP-REQUEST-INVARIANT.1" in invariant
    assert "PROMPT-STEP-BOUNDARY.5" not in invariant
