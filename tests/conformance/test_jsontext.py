"""Lone surrogates (tool names such as ``"\\ud800"``) in everything the suite writes or prints.

Python reads ``"\\ud800"`` from JSON into a string that UTF-8 cannot encode; the suite's JSON
text, failure messages and report must still be valid UTF-8 and say what the value was.
"""

from __future__ import annotations

import json

from dsh_conformance.judge.case import Case, mismatches
from dsh_conformance.judge.jsontext import dumps, printable, show
from dsh_conformance.run.execute import failure_message
from dsh_conformance.run.report import Report, Result
from dsh_conformance.scenarios import scenario as s

LONE = "\ud800 and \udfff"


def test_json_text_keeps_characters_and_escapes_only_lone_surrogates() -> None:
    value = {"name": LONE, "other": "é😀"}
    text = dumps(value)
    text.encode("utf-8")
    assert "é😀" in text and "\\ud800 and \\udfff" in text
    assert json.loads(text) == value


def test_a_message_shows_a_lone_surrogate_as_its_escape() -> None:
    assert printable(f"got {LONE}!") == "got \\ud800 and \\udfff!"
    assert show([LONE], 8) == '["\\ud800…'


def test_a_failure_message_about_a_lone_surrogate_name_can_be_written() -> None:
    schema = s.schema("\ud800", "", {"type": "object"})
    case = Case(
        id="c",
        contracts=("PROMPT-TOOL-ORDER",),
        why="because",
        ops=(s.assemble("a", expect={"assembly": {"tools": [schema]}}),),
    )
    observed = [{"assembly": {"tools": [{**schema, "name": "\udfff"}]}}]
    message = failure_message(case, observed, mismatches(case, observed))
    message.encode("utf-8")
    assert '"\\udfff"' in message and '"\\ud800"' in message


def test_the_json_report_of_a_message_with_a_lone_surrogate_is_valid_utf8() -> None:
    report = Report(["PROMPT-TOOL-ORDER"])
    report.collect("impl", "t", ("PROMPT-TOOL-ORDER",))
    report.record(Result("t", "impl", ("PROMPT-TOOL-ORDER",), "failed", f"got {LONE}"))
    text = report.to_json({})
    text.encode("utf-8")
    (implementation,) = json.loads(text)["implementations"]
    assert implementation["results"][0]["message"] == f"got {LONE}"
