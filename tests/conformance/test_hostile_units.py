"""Issue 37's reproducers that need no process of their own: the comparison's "where they
disagree", and the summary's."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from sample_logs import valid_log
from test_summary import implementation, write_report

from dsh_conformance.cases import all_cases
from dsh_conformance.harness.transport import InProcess
from dsh_conformance.run.check_log import check_file
from dsh_conformance.run.execute import check
from dsh_conformance.run.report import Report, Result
from dsh_conformance.run.summary import load, markdown
from dsh_reference.harness import Driver

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


def check_log_lines(tmp_path: Path, lines: list[str]) -> tuple[int, list[str], str]:
    """``check-log`` on a JSON-lines file of ``lines``: its status, stdout lines and stderr."""
    path = tmp_path / "session.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    status = check_file(str(path), out, err)
    return status, out.getvalue().splitlines(), err.getvalue()


@pytest.mark.parametrize(
    ("envelope", "says"),
    [
        ('"seq": 0, "time": 1796019543195.5', "time must be an integer"),
        ('"seq": 0, "time": 9007199254740992', "time must be an integer"),
        ('"seq": -0, "time": 0', "-0"),
    ],
)
def test_check_log_applies_the_seed_envelope_rules(
    tmp_path: Path, envelope: str, says: str
) -> None:
    """H7: a recorded log is what a later run seeds; the reference refuses these seeds
    (`session-event-invalid`), so check-log must not call the log valid."""
    status, out, _ = check_log_lines(tmp_path, [f'{{"type": "x/p", {envelope}, "data": {{}}}}'])
    assert status == 1, out
    assert says in out[0], out


def test_an_empty_log_says_no_events(tmp_path: Path) -> None:
    """H7, M1: an empty file was "valid", exit 0."""
    status, out, _ = check_log_lines(tmp_path, [])
    assert status == 1
    assert out == [f"{tmp_path / 'session.jsonl'}: no events: an empty log checks nothing"]


def test_one_missing_header_is_one_line_not_one_per_event(tmp_path: Path) -> None:
    """Low: a loop instance without its request/header gave one line per event that shows a
    request (12 in a longer log)."""
    events = [
        {**e, "type": "x/not-a-header"} if e["type"] == "request/header" else e for e in valid_log()
    ]
    status, out, _ = check_log_lines(tmp_path, [json.dumps(e) for e in events])
    assert status == 1
    assert len(out) == 3, out  # one line per loop instance (the log has two), and the summary
    assert all("request-header-missing" in line for line in out[:2]), out
    assert "(and at 4 more event(s) of this loop instance, up to seq 15)" in out[0], out
    assert "(and at 1 more event(s) of this loop instance, up to seq 25)" in out[1], out


def test_an_unreadable_line_causes_no_follow_on_violation(tmp_path: Path) -> None:
    """Low: an unreadable step/start or request/header made every later event of its loop
    instance a violation; the line is reported (stderr) and the instance's history-dependent
    rules are not judged past it."""
    for index in (1, 4):
        lines = [json.dumps(e) for e in valid_log()]
        lines[index] = "not json"
        status, out, err = check_log_lines(tmp_path, lines)
        assert status == 2
        assert "not JSON" in err or "not a JSON" in err, err
        assert out == [f"{tmp_path / 'session.jsonl'}: 28 event(s), 1 line(s) not read"], out


def test_list_descriptions_are_whole_sentences() -> None:
    """Low: ``--list`` cut a test's description at its docstring's first line (mid-sentence),
    or left it empty for a test without one."""
    from dsh_conformance.run.catalog import listing

    data = listing()
    for test in data["properties"] + data["other"]:
        why = test["why"]
        named = test["test"].removeprefix("test_").replace("_", " ")
        assert why == named or why.endswith("."), test  # a whole paragraph, or the test's name


def test_a_handshake_without_protocol_says_so() -> None:
    """Low: "speaks protocol None" when `started` lacks `protocol`."""
    from dsh_conformance.harness.protocol import ProtocolError, parse_handshake

    with pytest.raises(ProtocolError, match="has no 'protocol'") as info:
        parse_handshake({"type": "started", "implementation": {"name": "x"}, "capabilities": []})
    assert "None" not in str(info.value)


def test_the_comparison_counts_one_test_in_the_singular() -> None:
    """Low: "(1 tests)"."""
    report = Report([CONTRACT])
    for label, outcome in (("a", "passed"), ("b", "failed")):
        report.collect(label, "t1", (CONTRACT,))
        report.record(Result("t1", label, (CONTRACT,), outcome, "boom" * (outcome == "failed")))
    assert "where they disagree (1 test):" in report.render()


def test_smokes_closing_hint_keeps_the_impl_given() -> None:
    """Low: smoke's closing hint said "run dsh-conformance", dropping the --impl given."""
    from dsh_conformance.run import smoke

    out = io.StringIO()
    spec = "dsh_reference.harness:Driver"
    assert smoke.main(["--impl", spec], out) == 0
    assert out.getvalue().splitlines()[-1].endswith(f"run: dsh-conformance --impl {spec}")


class _DropsUndefined(Driver):
    """The reference answering as a JavaScript harness does: `{message: undefined}` and
    `{header: undefined}` lose their key in JSON (`JSON.stringify`), so "none" is `{}`."""

    def handle(self, message: Any) -> Any:
        answer = super().handle(message)
        if message["type"] == "run" and answer.get("type") == "observed":
            ops = message["scenario"]["ops"]
            answer["observations"] = [
                {} if op["op"] in ("project", "session-header") and observed in _NONE else observed
                for op, observed in zip(ops, answer["observations"], strict=True)
            ]
        return answer


_NONE = ({"message": None}, {"header": None})


def test_a_harness_that_drops_undefined_stays_conforming() -> None:
    """Issue 37, H6: the per-op shapes and the fixed field rules still read `{}` as "none", so
    a JavaScript harness that conformed still does, on every case with such an answer."""
    impl = InProcess(_DropsUndefined(), "drops undefined")
    chosen = [
        case
        for case in all_cases()
        if any(op["op"] in ("project", "session-header") for op in case.ops)
    ]
    dropped = 0
    try:
        for case in chosen:
            observations = check(impl, case)
            dropped += sum(observed == {} for observed in observations)
    finally:
        impl.close()
    assert len(chosen) > 15 and dropped > 5
