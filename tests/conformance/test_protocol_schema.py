"""Every protocol message the suite sends, and every answer of the reference, fits the schema.

``conformance/protocol.schema.json`` is the machine-readable form of PROTOCOL.md. Checking the
real traffic of every example case against it keeps the document, the schema, the cases and the
reference harness in step; the counter-examples show the schema can reject.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import conformance
from conformance.cases import all_cases
from conformance.harness.protocol import CAPABILITIES, STOP_MESSAGE, run_message, start_message
from conformance.judge.case import Case
from reference import harness
from reference.harness import Driver

PACKAGE = Path(conformance.__file__).parent
SCHEMA = json.loads((PACKAGE / "harness" / "protocol.schema.json").read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)
CASES = all_cases()


def assert_valid(message: Any) -> None:
    errors = sorted(VALIDATOR.iter_errors(message), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def test_the_schema_is_a_valid_json_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)


def test_handshake_and_stop_messages_fit() -> None:
    assert_valid(start_message())
    assert_valid(Driver().handle(start_message()))
    assert_valid(STOP_MESSAGE)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_every_case_and_the_reference_answer_fit(case: Case) -> None:
    message = run_message(case.id, case.scenario())
    assert_valid(message)
    answer = Driver().handle(json.loads(json.dumps(message)))
    assert answer["type"] == "observed", answer
    assert_valid(answer)


@pytest.mark.parametrize(
    "message",
    [
        {"type": "start", "protocol": 2},
        {"type": "run", "case": "x", "scenario": {"ops": [{"op": "explode"}]}},
        {"type": "run", "case": "x", "scenario": {"ops": [{"op": "register", "handle": "h"}]}},
        {
            "type": "run",
            "case": "x",
            "scenario": {
                "ops": [
                    {
                        "op": "register",
                        "handle": "h",
                        "kind": "section",
                        "name": "a",
                        "order": "nan",
                        "text": "A",
                    }
                ]
            },
        },
        {"type": "observed", "case": "x", "observations": [{"ok": False}]},
        {"type": "observed", "case": "x", "observations": [{"error": {"message": "no kind"}}]},
        {"type": "skipped", "case": "x", "reason": ""},
        {
            "type": "run",
            "case": "x",
            "scenario": {"ops": [{"op": "session-append", "event": {"type": "turn/start"}}]},
        },
        {
            "type": "run",
            "case": "x",
            "scenario": {
                "ops": [
                    {
                        "op": "session-append",
                        "event": {"type": "turn/start", "data": {}},
                        "inject": [{"at": ["data", "x"], "value": "nan"}],
                    }
                ]
            },
        },
        {"type": "observed", "case": "x", "observations": [{"header": {"system": "no config"}}]},
    ],
    ids=[
        "version",
        "unknown-op",
        "register-without-kind",
        "order-nan-lowercase",
        "ok-false",
        "error-without-kind",
        "skip-without-reason",
        "session-append-without-data",
        "inject-unknown-value",
        "header-without-config",
    ],
)
def test_the_schema_rejects_malformed_messages(message: Any) -> None:
    assert not VALIDATOR.is_valid(message)


def test_protocol_md_documents_every_op_of_the_schema() -> None:
    documented = (PACKAGE / "PROTOCOL.md").read_text(encoding="utf-8")
    ops = set(re.findall(r'"op": \{"const": "([a-z-]+)"\}', json.dumps(SCHEMA)))
    ops |= {"await", "render", "render-context"}
    ops |= {"session-log", "session-surface", "session-messages", "session-header"}
    ops |= {"projection-start"}
    missing = sorted(op for op in ops if f"| `{op}` |" not in documented)
    assert not missing, f"PROTOCOL.md has no row for op(s) {missing}"


def test_the_suite_the_reference_and_protocol_md_know_the_same_capabilities() -> None:
    documented = (PACKAGE / "PROTOCOL.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([a-z0-9.-]+)` \| 1\.[0-9]+ \|", documented, re.MULTILINE))
    assert set(CAPABILITIES) == rows == set(harness.CAPABILITIES)
    needed = {capability for case in CASES for capability in case.requires}
    assert needed <= set(CAPABILITIES), needed - set(CAPABILITIES)
