"""Issue 37's reproducers that need no process of their own: the comparison's "where they
disagree", and the summary's."""

from __future__ import annotations

from pathlib import Path

from test_summary import implementation, write_report

from conformance.run.report import Report, Result
from conformance.run.summary import load, markdown

CONTRACT = "PROMPT-TOOL-ORDER"


def test_an_interrupted_comparison_does_not_say_the_implementations_agree() -> None:
    """Nothing ran on either implementation (Ctrl-C at once): no agreement to speak of."""
    report = Report([CONTRACT])
    for label in ("a", "b"):
        report.collect(label, "t1", (CONTRACT,))
    text = report.render()
    assert "agree on every test" not in text
    assert "no test ran on more than one implementation" in text


def test_a_test_only_one_implementation_ran_is_no_disagreement_in_the_comparison() -> None:
    report = Report([CONTRACT])
    for label in ("a", "b"):
        report.collect(label, "t1", (CONTRACT,))
        report.collect(label, "t2", (CONTRACT,))
        report.record(Result("t1", label, (CONTRACT,), "passed"))
    report.record(Result("t2", "a", (CONTRACT,), "passed"))
    report.record(Result("t2", "b", (CONTRACT,), "skipped", "skipped by the implementation"))
    text = report.render()
    assert "where they disagree" not in text
    assert "the implementations agree on every test more than one of them ran (1)" in text


def test_a_test_no_run_ran_is_no_disagreement_in_the_summary(tmp_path: Path) -> None:
    """M4: "live not run" beside "skipped", or "passed" beside "not applicable": one of the runs
    did not run the test, so they do not disagree on it."""
    runs = [
        write_report(
            tmp_path / "a.json",
            implementation("a", {"t1": "passed", "t2": "live not run", "t3": "passed"}),
        ),
        write_report(
            tmp_path / "b.json",
            implementation("b", {"t1": "not applicable", "t2": "skipped", "t3": "passed"}),
        ),
    ]
    text = markdown(load(runs, generated="today"))
    assert "Where they disagree" not in text
    assert "agree on every test" in text
