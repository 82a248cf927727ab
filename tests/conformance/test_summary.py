"""``dsh-conformance summary``: merging reports, labels, baselines, ``--compare``, every refusal.

The reports here are small hand-written documents in the JSON report's format, so each test says
exactly which outcome it is about; the browser test (`test_summary_page`) uses real runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import dsh_conformance
from dsh_conformance.run.compare import compare
from dsh_conformance.run.markdown import markdown
from dsh_conformance.run.merged import load
from dsh_conformance.run.page import page
from dsh_conformance.run.report import OUTCOMES, REPORT_FORMAT
from dsh_conformance.run.runner import main

Json = Any
SUITE = {"name": "dsh-prompt-conformance", "version": "9.9", "protocol": 1}
CONTRACT = "PROMPT-TOOL-ORDER"
REQUIREMENT = f"{CONTRACT}.1"
REPORT_SCHEMA = Draft202012Validator(
    json.loads((Path(dsh_conformance.__file__).parent / "run" / "report.schema.json").read_text())
)


def implementation(
    label: str,
    outcomes: dict[str, str],
    handshake: Json = None,
    baseline: dict[str, str] | None = None,
) -> Json:
    """One implementation's part of a report: ``outcomes`` maps test names to outcomes;
    ``baseline`` maps the tests a baseline lists to their reasons (an entry naming no test of
    ``outcomes`` is unmatched)."""
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
        if baseline is not None and test in baseline:
            result["baseline"] = baseline[test]
        results.append(result)
    extra: Json = {}
    if handshake is not None:
        extra["handshake"] = handshake
    if baseline is not None:
        unmatched = [{"test": k, "reason": v} for k, v in baseline.items() if k not in outcomes]
        extra["baseline"] = {"path": "base.txt", "entries": len(baseline), "unmatched": unmatched}
    return {
        **extra,
        "label": label,
        "description": "an-impl 1.0, python; capabilities: registry",
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


HANDSHAKE = {"name": "dsh-upstream", "version": "0.1.1-rc.2", "language": "typescript"}


def test_the_handshake_names_an_implementation_not_its_path(tmp_path: Path) -> None:
    harness = "/home/someone/checkout/harness/run.sh"
    runs = [
        write_report(tmp_path / "a.json", implementation(harness, {"t1": "passed"}, HANDSHAKE)),
        write_report(tmp_path / "b.json", implementation(f"node {harness}", {"t1": "passed"})),
    ]
    summary = load(runs, generated="today")
    assert summary.labels == ["dsh-upstream 0.1.1-rc.2", "node run.sh"]
    assert "/home/someone" not in page(summary, ["dsh-conformance", "summary", "a.json", "b.json"])
    assert "/home/someone" not in markdown(summary)


def test_two_runs_with_one_handshake_are_told_apart_by_their_report_names(
    tmp_path: Path,
) -> None:
    runs = [
        write_report(tmp_path / "main.json", implementation("x", {"t1": "passed"}, HANDSHAKE)),
        write_report(tmp_path / "branch.json", implementation("x", {"t1": "failed"}, HANDSHAKE)),
    ]
    assert load(runs).labels == [
        "dsh-upstream 0.1.1-rc.2 (main)",
        "dsh-upstream 0.1.1-rc.2 (branch)",
    ]
    assert load(runs, labels=["v0.1.0"]).labels == ["v0.1.0", "dsh-upstream 0.1.1-rc.2"]
    text = markdown(load(runs, generated="today", labels=["release", "mine"]))
    assert "- **release**: conforms" in text and "- **mine**: does not conform" in text


def test_labels_that_cannot_be_told_apart_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    first = write_report(tmp_path / "one" / "run.json", implementation("a", {"t1": "passed"}))
    second = write_report(tmp_path / "two" / "run.json", implementation("a", {"t1": "failed"}))
    assert main(["summary", first, second]) == 2
    assert "both labelled 'a', with alike report names and --impl" in capsys.readouterr().err
    assert main(["summary", first, second, "--label", "x", "--label", "y", "--label", "z"]) == 2
    assert "3 --label given for 2 implementation(s)" in capsys.readouterr().err
    assert main(["summary", first, second, "--label", "x", "--label", "y"]) == 0


def test_a_format_3_report_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    write_report(path, implementation("a", {"t1": "passed"}))
    document = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**document, "format": 3}), encoding="utf-8")
    assert load([str(path)]).labels == ["a"]


@pytest.fixture
def gated(tmp_path: Path) -> list[str]:
    """A run whose baseline expects ``t2`` and ``t3`` to fail (``t3`` passed: stale) and lists
    ``gone``, which names no test of the run (stale)."""
    reasons = {"t2": "known: issue 12", "t3": "fixed since?", "gone": ""}
    outcomes = {"t1": "failed", "t2": "expected failure", "t3": "stale baseline"}
    return [write_report(tmp_path / "gated.json", implementation("a", outcomes, None, reasons))]


def test_expected_failures_show_their_reason_apart_from_real_failures(gated: list[str]) -> None:
    text = markdown(load(gated, generated="today"))
    assert "baseline: 1 expected failure(s), 2 stale entr(ies)" in text
    expected = text.split("### Expected failures (1)")[1].split("###")[0]
    assert "| a | `t2` | known: issue 12 |" in expected
    assert "`t1`" not in expected and "`t3`" not in expected
    stale = text.split("### Stale baseline entries (2)")[1]
    assert "| a | `t3` | listed as an expected failure, but passed | fixed since? |" in stale
    assert "| a | `gone` | names no test of this run | (no reason given) |" in stale


def test_the_page_lists_expected_failures_and_stale_entries_apart(gated: list[str]) -> None:
    html = page(load(gated, generated="today"), ["dsh-conformance", "summary", "gated.json"])
    expected = html.split('<section id="expected">')[1].split("</section>")[0]
    assert "known: issue 12" in expected and ">t2<" in expected and ">t1<" not in expected
    stale = html.split('<section id="stale">')[1].split("</section>")[0]
    assert stale.count('<tr class="stale"') == 2 and "names no test of this run" in stale
    problems = html.split('<section id="problems">')[1].split("</section>")[0]
    assert "t1</th>" in problems and "t2</th>" not in problems


def runs_of_one(tmp_path: Path, old: dict[str, str], new: dict[str, str]) -> list[str]:
    return [
        write_report(tmp_path / "old.json", implementation("x", old, HANDSHAKE)),
        write_report(tmp_path / "new.json", implementation("x", new, HANDSHAKE)),
    ]


def test_compare_says_what_changed_and_gates_on_a_newly_failing_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = runs_of_one(
        tmp_path,
        {"kept": "passed", "fixed": "failed", "broke": "passed", "gone": "passed"},
        {"kept": "passed", "fixed": "passed", "broke": "failed", "added": "skipped"},
    )
    changes = compare(load(runs))
    assert [c.test for c in changes.newly_failing] == ["broke"]
    assert [c.test for c in changes.newly_passing] == ["fixed"]
    assert [c.test for c in changes.new_tests] == ["added"]
    assert [c.test for c in changes.removed_tests] == ["gone"]
    assert changes.other == []
    assert changes.verdicts == [
        (
            CONTRACT,
            "DOES NOT CONFORM (3 passed, 1 failed)",
            "DOES NOT CONFORM (2 passed, 1 failed, 1 skipped)",
        )
    ]
    assert main(["summary", "--compare", *runs]) == 1
    text = capsys.readouterr().out
    assert "dsh-upstream 0.1.1-rc.2 (old) → dsh-upstream 0.1.1-rc.2 (new)" in text
    assert "### Newly failing (1)\n\n- `broke`: passed → failed" in text
    assert "### Newly passing (1)\n\n- `fixed`: failed → passed" in text
    assert "### New tests (1)\n\n- `added`: absent → skipped" in text
    assert "### Removed tests (1)\n\n- `gone`: passed → absent" in text
    html = tmp_path / "changes.html"
    assert main(["summary", "--compare", *runs, "--format", "html", "-o", str(html)]) == 1
    listed = html.read_text(encoding="utf-8").split('<ul class="newly-failing">')[1]
    assert listed.split("</ul>")[0].count("<li>") == 1 and "<code>broke</code>" in listed


def test_compare_does_not_gate_on_a_newly_passing_or_an_expected_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = runs_of_one(tmp_path, {"t1": "failed", "t2": "passed"}, {"t1": "passed", "t2": "passed"})
    assert main(["summary", "--compare", *runs]) == 0
    assert "**nothing newly fails**" in capsys.readouterr().out
    accepted = runs_of_one(tmp_path, {"t1": "passed"}, {"t1": "expected failure"})
    assert main(["summary", "--compare", *accepted]) == 0
    assert "- `t1`: passed → expected failure (baseline: " in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--format", "json"], "--compare writes markdown or html, not json"),
        (["third"], "--compare takes OLD.json NEW.json, not 3"),
    ],
)
def test_compare_refuses_what_it_cannot_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], says: str
) -> None:
    runs = runs_of_one(tmp_path, {"t1": "passed"}, {"t1": "passed"})
    assert main(["summary", "--compare", *runs, *extra]) == 2
    assert says in capsys.readouterr().err


def test_compare_needs_one_implementation_per_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    both = write_report(
        tmp_path / "both.json",
        implementation("a", {"t1": "passed"}),
        implementation("b", {"t1": "passed"}),
    )
    one = write_report(tmp_path / "one.json", implementation("c", {"t1": "passed"}))
    assert main(["summary", "--compare", both, one]) == 2
    assert "these hold 3" in capsys.readouterr().err


def test_an_unwritable_output_is_one_line(
    two_runs: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "missing-directory" / "page.html"
    assert main(["summary", *two_runs, "-o", str(out)]) == 2
    assert "cannot write it" in capsys.readouterr().err
