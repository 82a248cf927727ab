"""``dsh-conformance summary``: merging reports, the Markdown and JSON forms, and every refusal.

The reports here are small hand-written documents in the JSON report's format, so each test says
exactly which outcome it is about; the browser test (`test_summary_page`) uses real runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import conformance
from conformance.run.markdown import markdown
from conformance.run.merged import load
from conformance.run.report import OUTCOMES, REPORT_FORMAT
from conformance.run.runner import main

Json = Any
SUITE = {"name": "dsh-prompt-conformance", "version": "9.9", "protocol": 1}
CONTRACT = "PROMPT-TOOL-ORDER"
REQUIREMENT = f"{CONTRACT}.1"
REPORT_SCHEMA = Draft202012Validator(
    json.loads((Path(conformance.__file__).parent / "run" / "report.schema.json").read_text())
)


def implementation(label: str, outcomes: dict[str, str]) -> Json:
    """One implementation's part of a report: ``outcomes`` maps test names to outcomes."""
    tally = dict.fromkeys(OUTCOMES, 0)
    for outcome in outcomes.values():
        tally[outcome] += 1
    failed = tally["failed"] > 0
    results = []
    for test, outcome in outcomes.items():
        result: Json = {
            "test": test,
            "implementation": label,
            "contracts": [CONTRACT],
            "outcome": outcome,
            "message": f"{test}: expected 1, got 2\nwhy: a rule" if outcome == "failed" else "",
            "requirements": [REQUIREMENT],
        }
        if outcome == "failed":
            result["ops"] = [{"op": "assemble", "assembly": "a", "scope": None}]
        results.append(result)
    return {
        "label": label,
        "description": f"{label} 1.0, python; capabilities: registry",
        "status": "does not conform" if failed else "conforms",
        "selection": {
            "collected": len(outcomes),
            "run": len(outcomes),
            "deselected": 0,
            "not reached": 0,
            "skipped": 0,
            "not applicable": 0,
            "live not run": 0,
        },
        "contracts": {CONTRACT: {**tally, "verdict": "DOES NOT CONFORM" if failed else "conforms"}},
        "requirements": {
            REQUIREMENT: {**tally, "verdict": "DOES NOT CONFORM" if failed else "conforms"}
        },
        "results": results,
    }


def write_report(path: Path, *implementations: Json, suite: Json = SUITE) -> str:
    document = {
        "format": REPORT_FORMAT,
        "suite": suite,
        "status": "conforms",
        "requirements": {
            REQUIREMENT: {"contract": CONTRACT, "text": "a rule", "source": "a sentence"}
        },
        "implementations": list(implementations),
    }
    assert not list(REPORT_SCHEMA.iter_errors(document)), "the fixture itself must be a report"
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


@pytest.fixture
def two_runs(tmp_path: Path) -> list[str]:
    """Two runs, one implementation each: they agree on ``t1`` and disagree on ``t2``."""
    return [
        write_report(tmp_path / "a.json", implementation("a", {"t1": "passed", "t2": "passed"})),
        write_report(tmp_path / "b.json", implementation("b", {"t1": "passed", "t2": "failed"})),
    ]


def test_markdown_shows_each_verdict_and_only_the_disagreements(two_runs: list[str]) -> None:
    text = markdown(load(two_runs, generated="today"))
    assert "- **a**: conforms (ran 2 of 2 tests)" in text
    assert "- **b**: does not conform (ran 2 of 2 tests)" in text
    assert f"| {CONTRACT} | conforms (2 passed) | DOES NOT CONFORM (1 passed, 1 failed) |" in text
    assert f"| {REQUIREMENT} | `t2` | passed | failed |" in text
    assert "`t1`" not in text


def test_a_test_one_run_did_not_run_is_no_disagreement(tmp_path: Path) -> None:
    runs = [
        write_report(tmp_path / "a.json", implementation("a", {"t1": "passed"})),
        write_report(tmp_path / "b.json", implementation("b", {"t1": "deselected"})),
    ]
    assert "agree on every test" in markdown(load(runs, generated="today"))


def test_json_is_a_report_again_and_summarizes_to_the_same(
    two_runs: list[str], tmp_path: Path
) -> None:
    merged = tmp_path / "merged.json"
    assert main(["summary", *two_runs, "--format", "json", "-o", str(merged)]) == 0
    document = json.loads(merged.read_text(encoding="utf-8"))
    assert not list(REPORT_SCHEMA.iter_errors(document))
    assert [impl["label"] for impl in document["implementations"]] == ["a", "b"]
    assert document["status"] == "does not conform"
    again = markdown(load([str(merged)], generated="today"))
    assert again == markdown(load(two_runs, generated="today")).replace(
        "2 report(s)", "1 report(s)"
    )


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"{not json", "not JSON"),
        (b"\xff\xfe", "cannot read it"),
        (b"[]", "not a dsh-conformance JSON report (no 'format')"),
        (b'{"format": 1}', "report format 1, but this suite reads format"),
        (
            json.dumps({"format": REPORT_FORMAT, "suite": SUITE, "implementations": [{}]}).encode(),
            "implementations[0] has no 'label'",
        ),
    ],
)
def test_an_unreadable_report_is_one_line_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, says: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    out = tmp_path / "page.html"
    assert main(["summary", str(bad), "--format", "html", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err and str(bad) in err
    assert list(tmp_path.iterdir()) == [bad]


def test_reports_of_another_suite_version_are_not_merged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = write_report(tmp_path / "a.json", implementation("a", {"t1": "passed"}))
    other = {**SUITE, "version": "10.0"}
    second = write_report(tmp_path / "b.json", implementation("b", {"t1": "passed"}), suite=other)
    assert main(["summary", first, second]) == 2
    assert "summarize reports of one suite version" in capsys.readouterr().err


def test_one_label_in_two_reports_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = write_report(tmp_path / "a.json", implementation("a", {"t1": "passed"}))
    second = write_report(tmp_path / "b.json", implementation("a", {"t1": "failed"}))
    assert main(["summary", first, second]) == 2
    assert "implementation 'a' is in" in capsys.readouterr().err


def test_an_unwritable_output_is_one_line(
    two_runs: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "missing-directory" / "page.html"
    assert main(["summary", *two_runs, "-o", str(out)]) == 2
    assert "cannot write it" in capsys.readouterr().err
