"""Every protocol message the suite sends, and every answer of the reference, fits the schema.

``conformance/protocol.schema.json`` is the machine-readable form of PROTOCOL.md. Checking the
real traffic of every example case against it keeps the document, the schema, the cases and the
reference harness in step; the counter-examples show the schema can reject.

Whether a message fits is decided by the compiled validator (``jsonschema-rs``), the one the
suite checks every answer with at run time (`dsh_conformance.harness.validate`); ``jsonschema``'s
names what is wrong when a message does not fit. ``jsonschema`` alone took 23 ms a case, 95% of
this module's time (a deep ``oneOf`` over every op for each of a scenario's ops).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from jsonschema import Draft202012Validator

import dsh_conformance
from dsh_conformance.cases import all_cases
from dsh_conformance.harness.protocol import CAPABILITIES, STOP_MESSAGE, run_message, start_message
from dsh_conformance.harness.validate import observation_shapes, shape_problems
from dsh_conformance.judge.case import Case
from dsh_reference import harness
from dsh_reference.harness import Driver

PACKAGE = Path(dsh_conformance.__file__).parent
SCHEMA = json.loads((PACKAGE / "harness" / "protocol.schema.json").read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)
COMPILED = jsonschema_rs.Draft202012Validator(SCHEMA)
CASES = all_cases()


def assert_valid(message: Any) -> None:
    if COMPILED.is_valid(message):
        return
    errors = sorted(VALIDATOR.iter_errors(message), key=lambda e: list(e.absolute_path))
    shown = [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]
    if not shown:  # the two validators disagree: the compiled one's reason
        shown = [f"jsonschema-rs: {next(COMPILED.iter_errors(message)).message}"]
    raise AssertionError("\n".join(shown))


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
    assert shape_problems(message["scenario"]["ops"], answer["observations"]) == {}


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
    assert not COMPILED.is_valid(message)
    assert not VALIDATOR.is_valid(message)


def test_protocol_md_documents_every_op_of_the_schema() -> None:
    documented = (PACKAGE / "PROTOCOL.md").read_text(encoding="utf-8")
    ops = set(re.findall(r'"op": \{"const": "([a-z-]+)"\}', json.dumps(SCHEMA)))
    ops |= {"await", "render", "render-context"}
    ops |= {"session-log", "session-surface", "session-messages", "session-header"}
    ops |= {"projection-start"}
    missing = sorted(op for op in ops if f"| `{op}` |" not in documented)
    assert not missing, f"PROTOCOL.md has no row for op(s) {missing}"


def test_every_op_of_the_schema_has_its_observation_shape() -> None:
    """``observationOf`` names every op, and each entry points at closed observation shapes
    (the suite tells them apart by their keys, `shape_problems`)."""
    ops = set(_op_names([SCHEMA["$defs"][name] for name in _OP_DEFS]))
    assert len(ops) > 40
    assert set(SCHEMA["$defs"]["observationOf"]["properties"]) == ops
    for op in ops:
        for required, allowed in observation_shapes(op):
            assert required <= allowed


#: The schema's definitions of ops (`op` refers to the others).
_OP_DEFS = ("op", "register", "release", "sessionOp", "loopOp", "deepseekOp")


def _op_names(schema: Any) -> list[str]:
    """Every value an ``op`` field may take in ``schema`` (a ``const`` or an ``enum``)."""
    if isinstance(schema, list):
        return [name for item in schema for name in _op_names(item)]
    if not isinstance(schema, dict):
        return []
    op = schema.get("properties", {}).get("op", {})
    names = [op["const"]] if "const" in op else list(op.get("enum", []))
    return names + _op_names(list(schema.values()))


@pytest.mark.parametrize(
    ("op", "observed", "fits"),
    [
        ("project", {"ok": True}, False),
        ("project", {}, True),
        ("project", {"message": None}, True),
        ("session-header", {"ok": True}, False),
        ("session-header", {}, True),
        ("header-canonical", {}, False),
        ("request-state", {"header": None}, False),
        ("register", {"error": {"kind": "invalid-order"}}, True),
        ("counts", {"ok": True}, False),
    ],
)
def test_an_observation_must_have_its_own_ops_shape(op: str, observed: Any, fits: bool) -> None:
    """Issue 37, H6: ``{"ok": true}`` fits the schema as an observation, but not as `project`'s."""
    assert (shape_problems([{"op": op}], [observed]) == {}) is fits


def test_the_suite_the_reference_and_protocol_md_know_the_same_capabilities() -> None:
    documented = (PACKAGE / "PROTOCOL.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([a-z0-9.-]+)` \| 1\.[0-9]+ \|", documented, re.MULTILINE))
    assert set(CAPABILITIES) == rows == set(harness.CAPABILITIES)
    needed = {capability for case in CASES for capability in case.requires}
    assert needed <= set(CAPABILITIES), needed - set(CAPABILITIES)
