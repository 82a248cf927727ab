"""The smoke file (``dsh_conformance/smoke.jsonl``): the reference harness gives every expected
reply.

A harness author checks a new harness against these few lines before the full suite (PROTOCOL.md,
"Smoke file"). Their expected replies were written by hand from CONTRACTS.md; this test keeps them
true for the reference, through `Driver.handle` and through the JSON-lines server, and keeps every
message within the protocol schema.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import dsh_conformance
from dsh_conformance.run.smoke import reply_matches as matches
from dsh_conformance.run.smoke import smoke_lines
from dsh_reference.harness import Driver, serve

PACKAGE = Path(dsh_conformance.__file__).parent
LINES = smoke_lines()
VALIDATOR = Draft202012Validator(
    json.loads((PACKAGE / "harness" / "protocol.schema.json").read_text(encoding="utf-8"))
)


def test_the_smoke_file_covers_the_message_kinds() -> None:
    sent = {line["send"]["type"] for line in LINES}
    answered = {line["expect"]["type"] for line in LINES if line["expect"] is not None}
    assert sent == {"start", "run", "stop"}
    assert answered == {"started", "observed", "errored"}


@pytest.mark.parametrize(
    "line", LINES, ids=lambda line: line["send"].get("case", line["send"]["type"])
)
def test_every_message_fits_the_schema(line: dict[str, Any]) -> None:
    # One line sends an op no harness knows, on purpose: the harness must answer `errored`.
    assert VALIDATOR.is_valid(line["send"]) != line.get("outsideSchema", False), line["send"]


@pytest.mark.parametrize(
    "line", LINES, ids=lambda line: line["send"].get("case", line["send"]["type"])
)
def test_the_reference_driver_gives_the_expected_reply(line: dict[str, Any]) -> None:
    reply = Driver().handle(line["send"])
    assert matches(line["expect"], reply), json.dumps(reply, indent=1)


def test_the_json_lines_server_answers_the_whole_file_in_order() -> None:
    stdin = io.StringIO("".join(json.dumps(line["send"]) + "\n" for line in LINES))
    stdout = io.StringIO()
    serve(Driver(), stdin, stdout)
    replies = [json.loads(text) for text in stdout.getvalue().splitlines()]
    expected = [line["expect"] for line in LINES if line["expect"] is not None]
    assert len(replies) == len(expected)
    for want, reply in zip(expected, replies, strict=True):
        assert matches(want, reply), json.dumps(reply, indent=1)


def test_the_rule_compares_what_it_names() -> None:
    assert not matches(
        {"type": "observed", "observations": [{"ok": True}]},
        {"type": "observed", "observations": [{"ok": False}]},
    )
    assert matches(
        {"observations": [{"error": {"kind": "k"}}]},
        {"observations": [{"error": {"kind": "k", "message": "free"}}]},
    )
