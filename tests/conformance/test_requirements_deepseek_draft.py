"""The draft requirement list of PROMPT-DEEPSEEK-WIRE and PROMPT-CACHE-E2E names real cases only,
and every DeepSeek case is tagged by at least one requirement (until the catalog takes it over)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import conformance
from conformance.cases import all_cases
from conformance.deepseek.cache_conversation import CASE_ID
from conformance.deepseek.deepseek_http import HTTP_CASES
from conformance.deepseek.http_rules import RULE_CASES
from conformance.test_golden_wire import SCENARIOS

DRAFT = Path(conformance.__file__).parent / "requirements_deepseek_draft.json"
CONTRACTS = ("PROMPT-DEEPSEEK-WIRE", "PROMPT-CACHE-E2E")
TESTS = {
    "test_every_request_after_the_first_reads_the_cache",
    "test_each_request_extends_the_previous_one",
}


def known_cases() -> set[str]:
    wire = {case.id for case in all_cases() if set(case.contracts) & set(CONTRACTS)}
    http = {case.id for case in (*HTTP_CASES, *RULE_CASES)}
    goldens = {f"golden/deepseek/{name}" for name in SCENARIOS}
    return wire | http | goldens | {CASE_ID} | TESTS


def test_each_requirement_is_well_formed_and_names_real_cases() -> None:
    requirements = json.loads(DRAFT.read_text(encoding="utf-8"))
    ids = [requirement["id"] for requirement in requirements]
    assert len(ids) == len(set(ids))
    known = known_cases()
    for requirement in requirements:
        assert set(requirement) == {"id", "text", "source", "cases"}, requirement["id"]
        assert re.fullmatch(
            r"(PROMPT-DEEPSEEK-WIRE|PROMPT-CACHE-E2E)\.[1-9][0-9]*", requirement["id"]
        )
        assert requirement["text"] and requirement["source"], requirement["id"]
        unknown = set(requirement["cases"]) - known
        assert requirement["cases"] and not unknown, (requirement["id"], unknown)


def test_every_deepseek_case_is_tagged() -> None:
    requirements = json.loads(DRAFT.read_text(encoding="utf-8"))
    tagged = {case for requirement in requirements for case in requirement["cases"]}
    assert known_cases() - tagged == set()
