"""``dsh-conformance check-log``: a valid log exits 0; each broken rule is reported at its seq and
line with its rule name; bad files get a clear error naming the line, never a traceback.

The broken logs are the hand-written valid log of `sample_logs` with one change each; which rule
it breaks, and where, is read off CONTRACTS.md ("The session log", PROMPT-HEADER-CANONICAL,
LOOP-REQUEST-BUILD, LOOP-RUNTIME-CONTEXT, ROOT-MODEL).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sample_logs import CLEARED, HEADER, cleared, event, snapshot, tool_result, user, valid_log

from dsh_conformance.judge.logfold import RULES
from dsh_conformance.run.check_log import main

Log = list[Any]


def write_lines(path: Path, events: Log) -> Path:
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), "utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, list[str]]:
    """The exit status and standard output of a run that found nothing unreadable."""
    status, out, err = run_streams(capsys, *paths)
    assert err == []
    return status, out


def run_streams(
    capsys: pytest.CaptureFixture[str], *paths: Path
) -> tuple[int, list[str], list[str]]:
    """The exit status, standard output and standard error (what could not be read)."""
    status = main([str(path) for path in paths])
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err.splitlines()


def add(events: Log, type: str, data: Any, **metadata: Any) -> Log:
    return [*events, event(len(events), type, data, **metadata)]


def _set(seq: int, *path: Any, value: Any) -> Callable[[Log], Log]:
    def change(events: Log) -> Log:
        target = events[seq]
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return events

    return change


def _drop(seq: int, key: str) -> Callable[[Log], Log]:
    def change(events: Log) -> Log:
        del events[seq][key]
        return events

    return change


_REPLACE_2_10 = {"op": "replace", "start": 2, "end": 10}

#: rule -> (a change to the valid log, the seq where check-log must report that rule)
BROKEN: dict[str, tuple[Callable[[Log], Log], int]] = {
    "envelope": (_set(16, "extra", value=True), 16),
    "seq-not-contiguous": (_set(9, "seq", value=10), 9),
    "session-non-json": (_set(13, "data", "delayMs", value=float("inf")), 13),
    "session-legacy-header": (lambda e: add(e, "request/header-delta", {"delta": {}}), 28),
    "surface-op-required": (_drop(21, "surfaceOp"), 21),
    "surface-op-forbidden": (_set(9, "surfaceOp", value="append"), 9),
    "surface-replace-invalid": (
        lambda e: add(
            e, "user/message", user("r", "x"), surfaceOp=_REPLACE_2_10 | {"start": 10, "end": 2}
        ),
        28,
    ),
    "source-seqs-invalid": (
        lambda e: add(
            e, "user/message", user("r", "x"), surfaceOp=_REPLACE_2_10, sourceEventSeqs=[2, 10]
        ),
        28,
    ),
    "tool-result-replace-invalid": (
        lambda e: add(
            e,
            "tool/result",
            tool_result("t10", "c1", "[cut]") | {"turn": 2},
            surfaceOp={"op": "replace", "start": 10, "end": 10},
            sourceEventSeqs=[10],
        ),
        28,
    ),
    "payload-shape": (_set(15, "data", "message", "role", value="user"), 15),
    "request-header-missing": (
        lambda e: [*e[:23], event(23, "x-plugin/note", {}), *e[24:]],
        24,
    ),
    "step-not-open": (_set(6, "data", "step", value=2), 6),
    "header-snapshot": (
        lambda e: add(
            e,
            "request/header",
            {"header": {**HEADER, "adapterDefaults": {"maxTokens": 1}}, "reason": "change"},
        ),
        28,
    ),
    "header-reason": (_set(23, "data", "reason", value="initial"), 23),
    # Only the config key order differs: compared field by field, that is no change.
    "header-unchanged": (
        lambda e: add(
            e,
            "request/header",
            {
                "header": {
                    **HEADER,
                    "config": dict(reversed(HEADER["config"].items())),
                    "system": HEADER["system"],
                },
                "reason": "change",
            },
        ),
        28,
    ),
    "context-unchanged": (
        lambda e: add(
            e,
            "request/context",
            {"contextWindow": 65536, "model": "deepseek-chat", "provider": "deepseek"},
        ),
        28,
    ),
    "runtime-context-message": (_set(22, "data", "content", 0, "text", value=CLEARED.lower()), 22),
    "runtime-context-unchanged": (
        lambda e: add(e, "user/message", cleared("again"), surfaceOp="append"),
        28,
    ),
}


def test_every_rule_has_a_broken_log() -> None:
    assert set(BROKEN) == set(RULES)


def test_a_valid_log_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, write_lines(tmp_path / "ok.jsonl", valid_log()))
    assert (status, out) == (0, [f"{tmp_path / 'ok.jsonl'}: 28 event(s), valid"])


def test_a_tool_result_replacement_is_judged_against_the_shadowed_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """check-log keeps only part of each visible message (`LogFold.keep_events`): enough for a
    replacement that changes only the tool-result block's content to be valid (ROOT-MODEL)."""
    events = add(
        valid_log(),
        "tool/result",
        tool_result("t10", "c1", "[cut]"),
        surfaceOp={"op": "replace", "start": 10, "end": 10},
        sourceEventSeqs=[10],
    )
    status, out = run(capsys, write_lines(tmp_path / "ok.jsonl", events))
    assert (status, out) == (0, [f"{tmp_path / 'ok.jsonl'}: 29 event(s), valid"])


def test_a_json_array_log_is_read_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(valid_log(), indent=2), "utf-8")
    assert run(capsys, path)[0] == 0


@pytest.mark.parametrize("rule", sorted(BROKEN))
def test_each_broken_rule_is_reported_at_its_seq(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rule: str
) -> None:
    change, seq = BROKEN[rule]
    path = write_lines(tmp_path / "broken.jsonl", change(valid_log()))
    status, out = run(capsys, path)
    assert status == 1
    # JSON lines: the event with seq N is on line N + 1.
    assert f"{path}:{seq + 1}: seq {seq}: {rule} ({RULES[rule]}): " in "\n".join(out), out
    assert out[-1].endswith("violation(s)")


def test_the_same_rules_in_a_json_array_name_the_element_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = valid_log()
    events[9]["surfaceOp"] = "append"
    path = tmp_path / "broken.json"
    path.write_text("[\n" + ",\n".join(json.dumps(e) for e in events) + "\n]\n", "utf-8")
    status, out = run(capsys, path)
    assert status == 1
    assert out[0].startswith(f"{path}:11: seq 9: surface-op-forbidden (ROOT-MODEL): ")


class TestRealLogsPass:
    def test_plugin_events_and_fractional_numbers(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        events = add(
            valid_log(), "llm/retry-started", {"retryId": "r", "turn": 1, "step": 2, "retry": 1.0}
        )
        events = add(events, "x/telemetry", [0.1, {"nested": {"deep": -2.5e-7}}])
        assert run(capsys, write_lines(tmp_path / "log.jsonl", events))[0] == 0

    def test_blank_lines_and_a_byte_order_mark(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        path = tmp_path / "log.jsonl"
        lines = [json.dumps(e) for e in valid_log()]
        path.write_text("\ufeff" + "\n\n".join(lines) + "\n\n", "utf-8")
        status, out = run(capsys, path)
        assert (status, out[-1]) == (0, f"{path}: 28 event(s), valid")

    def test_a_forgotten_snapshot_may_be_proposed_again(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        events = add(
            valid_log(),
            "user/message",
            user("r", "s"),
            surfaceOp={"op": "replace", "start": 21, "end": 22},
            sourceEventSeqs=[21, 22],
        )
        events = add(
            events, "user/message", snapshot("s2", ("cwd", "cwd: /tmp")), surfaceOp="append"
        )
        assert run(capsys, write_lines(tmp_path / "log.jsonl", events))[0] == 0


class TestBadFiles:
    """Bad files: a clear error naming the line, never a traceback."""

    def test_a_line_that_is_not_json(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        path = tmp_path / "log.jsonl"
        lines = [json.dumps(e) for e in valid_log()]
        lines[4] = "request/header initial"
        path.write_text("\n".join(lines) + "\n", "utf-8")
        status, out, err = run_streams(capsys, path)
        assert status == 2
        assert err == [f"{path}:5: seq 4: not JSON: Expecting value (column 1)"]
        # It takes its seq: the events after it are still checked, but not by the rules that
        # read what it held (its header): no follow-on violation (issue 37).
        assert out == [f"{path}: 28 event(s), 1 line(s) not read"]

    def test_a_truncated_last_line(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        path = tmp_path / "log.jsonl"
        text = "".join(json.dumps(e) + "\n" for e in valid_log())
        path.write_text(text[:-20], "utf-8")
        status, _, err = run_streams(capsys, path)
        assert status == 2
        assert err[0].startswith(f"{path}:28: seq 27: not JSON: ")
        assert err[0].endswith("it is the last line and has no newline: truncated?")

    def test_wrong_shapes(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        path = tmp_path / "log.jsonl"
        path.write_text('42\n"text"\n[1, 2]\n', "utf-8")
        status, out = run(capsys, path)
        assert status == 1
        assert [line.split(": ", 3)[:3] for line in out[:3]] == [
            [f"{path}:1", "seq 0", "envelope (ROOT-MODEL)"],
            [f"{path}:2", "seq 1", "envelope (ROOT-MODEL)"],
            [f"{path}:3", "seq 2", "envelope (ROOT-MODEL)"],
        ]

    @pytest.mark.parametrize("array", [False, True], ids=["lines", "array"])
    @pytest.mark.parametrize(
        ("literal", "shown"),
        [
            ("NaN", "nan"),
            ("-Infinity", "-inf"),
            ("-0", "-0"),
            ("-0.0", "-0"),
            ("1e400", "inf"),  # beyond a double: JSON.parse reads Infinity
            ("-1e-400", "-0"),  # below the smallest double: -0
        ],
    )
    def test_numbers_json_parsers_let_through(
        self,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
        literal: str,
        shown: str,
        array: bool,
    ) -> None:
        path = tmp_path / "log.jsonl"
        line = f'{{"type": "x/p", "seq": 0, "time": 0, "data": {{"v": {literal}}}}}'
        path.write_text(f"[{line}]\n" if array else f"{line}\n", "utf-8")
        status, out = run(capsys, path)
        assert status == 1
        assert out[0].startswith(f"{path}:1: seq 0: session-non-json (ROOT-MODEL): ")
        assert f"data.v is {shown}" in out[0]

    def test_a_repeated_key(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        path = tmp_path / "log.jsonl"
        path.write_text('{"type": "x/p", "seq": 0, "time": 0, "data": {"a": 1, "a": 2}}\n', "utf-8")
        status, out = run(capsys, path)
        assert status == 1
        assert "the key 'a' appears twice" in out[0]

    @pytest.mark.parametrize(
        ("content", "message"),
        [
            (b"\xff\xfe{}", "1: not UTF-8 text (byte 0)"),
            (
                b'[\n{"type": "x", "seq": 0, "time": 0, "data": {}}',
                "2: the JSON array is not closed",
            ),
            (
                b'[{"type": "x", "seq": 0, "time": 0, "data": {}} {}]',
                "1: expected ',' or ']' between events",
            ),
            (b"[1] [2]", "1: text after the end of the JSON array"),
            (b'[\n{"type": \n', "3: not JSON: Expecting value"),
            (
                b'{\n  "type": "turn/start",\n  "seq": 0\n}\n',
                "1: the file is one JSON object spread over 4 lines",
            ),
        ],
        ids=[
            "not-utf8",
            "unclosed-array",
            "no-comma",
            "trailing-text",
            "broken-element",
            "one-object",
        ],
    )
    def test_files_that_are_no_log_at_all(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
    ) -> None:
        path = tmp_path / "log"
        path.write_bytes(content)
        status, out, err = run_streams(capsys, path)
        assert (status, out) == (2, [])
        assert len(err) == 1
        assert err[0].startswith(f"{path}:{message}")

    def test_a_missing_file(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, err = run_streams(capsys, tmp_path / "nope.jsonl")
        assert (status, out) == (2, [])
        assert err == [f"{tmp_path / 'nope.jsonl'}: cannot read: No such file or directory"]

    def test_an_empty_file_is_an_empty_log(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        path = tmp_path / "empty.jsonl"
        path.write_text("", "utf-8")
        assert run(capsys, path) == (1, [f"{path}: no events: an empty log checks nothing"])


def test_through_the_command_line_no_traceback(tmp_path: Path) -> None:
    """`dsh-conformance check-log PATH` as a maintainer runs it: exit status and plain output."""
    good = write_lines(tmp_path / "good.jsonl", valid_log())
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(
        b'{"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}}\n\x00{oops\n'
    )

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "dsh_conformance.run.runner", "check-log", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    assert cli(str(good)).returncode == 0
    broken = cli(str(good), str(bad))
    assert broken.returncode == 2
    assert f"{bad}:2: seq 1: not JSON: " in broken.stderr
    assert "Traceback" not in broken.stdout + broken.stderr
    usage = cli()
    assert usage.returncode == 2
    assert "Traceback" not in usage.stderr


class TestBounds:
    """Lines built to stall or crash the checker: one clear line each, in bounded memory."""

    def test_a_line_nested_100000_deep(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        path = tmp_path / "log.jsonl"
        deep = "[" * 100_000 + "]" * 100_000
        path.write_text(f'{{"type": "x/p", "seq": 0, "time": 0, "data": {deep}}}\n', "utf-8")
        (status, out, err), peak = measured(lambda: run_streams(capsys, path))
        assert status == 2
        assert err == [
            f"{path}:1: seq 0: not read: nested 100001 levels deep; the suite reads JSON nested "
            "at most 100 levels"
        ]
        assert out == [f"{path}: 1 event(s), 1 line(s) not read"]
        assert peak < 10 * len(deep)

    def test_a_line_over_8_mib_is_not_held(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        path = tmp_path / "log.jsonl"
        wide = "x" * 9 * 1024 * 1024
        events = [json.dumps(e) for e in valid_log()]
        events[27] = json.dumps(json.loads(events[27]) | {"data": wide})
        path.write_text("\n".join(events) + "\n", "utf-8")
        (status, out, err), peak = measured(lambda: run_streams(capsys, path))
        assert status == 2
        assert err == [f"{path}:28: seq 27: longer than 8388608 bytes: not read"]
        assert out == [f"{path}: 28 event(s), 1 line(s) not read"]
        assert peak < 20 * 1024 * 1024  # at most 8 MiB of it read (twice: bytes and buffer)

    def test_a_wide_line_within_the_limits_is_checked(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        path = tmp_path / "log.jsonl"
        wide = {"values": [0.5] * 500_000, "keys": {f"k{n}": n for n in range(100_000)}}
        events = add(valid_log(), "x/telemetry", wide)
        events = add(events, "x/telemetry", {"v": float("nan")})
        text = "".join(json.dumps(e) + "\n" for e in events)
        path.write_text(text, "utf-8")
        (status, out, err), peak = measured(lambda: run_streams(capsys, path))
        assert (status, err) == (1, [])
        assert out == [
            f"{path}:30: seq 29: session-non-json (ROOT-MODEL): not lossless JSON: data.v is nan",
            f"{path}: 30 event(s), 1 violation(s)",
        ]
        assert peak < 30 * len(text)  # the parsed line (its 600,000 values), not a copy per rule

    def test_a_number_too_long_for_python(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        path = tmp_path / "log.jsonl"
        path.write_text(f'{{"type": "x/p", "seq": 0, "time": 1{"0" * 5000}, "data": {{}}}}\n')
        status, _, err = run_streams(capsys, path)
        assert status == 2
        assert len(err) == 1
        assert err[0].startswith(f"{path}:1: seq 0: not read: Exceeds the limit (4300 digits)")

    def test_visible_messages_are_not_held(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        path = tmp_path / "log.jsonl"
        events = valid_log()
        for n in range(200):  # 8 MB of visible messages, whose texts no later rule reads
            message, result = user(f"u{n}", "x" * 20_000), tool_result(f"t{n}", "c1", "y" * 20_000)
            events = add(events, "user/message", message, surfaceOp="append")
            events = add(events, "tool/result", result, surfaceOp="append")
        text = "".join(json.dumps(e) + "\n" for e in events)
        path.write_text(text, "utf-8")
        (status, out, err), peak = measured(lambda: run_streams(capsys, path))
        assert (status, out, err) == (0, [f"{path}: {len(events)} event(s), valid"], [])
        assert peak < len(text) / 10  # what a later rule reads of each, not its text


def measured(call: Callable[[], Any]) -> tuple[Any, int]:
    """What ``call`` returned, and the peak of memory it allocated (bytes, tracemalloc)."""
    tracemalloc.start()
    try:
        return call(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class TestSeqs:
    """A person's reading of broken seqs: each break reported once, the rest checked as usual."""

    def test_a_missing_stretch_is_reported_once(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        events = valid_log()
        path = write_lines(tmp_path / "log.jsonl", events[:3] + events[5:])
        status, out = run(capsys, path)
        assert status == 1
        assert out == [
            f"{path}:4: seq 3: seq-not-contiguous (ROOT-MODEL): seqs 3..4 missing: the log goes "
            "on at seq 5",
            *[line for line in out[1:-1] if ": seq-not-contiguous " not in line],
            f"{path}: 26 event(s), {len(out) - 1} violation(s)",
        ]

    def test_a_missing_event_that_nothing_needs_costs_one_line(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        events = add(add(valid_log(), "x/note", {}), "x/note", {})
        path = write_lines(tmp_path / "log.jsonl", events[:28] + events[29:])
        assert run(capsys, path) == (
            1,
            [
                f"{path}:29: seq 28: seq-not-contiguous (ROOT-MODEL): seq 28 missing: the log "
                "goes on at seq 29",
                f"{path}: 29 event(s), 1 violation(s)",
            ],
        )

    def test_a_repeated_stretch_is_reported_once_and_skipped(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        events = valid_log()
        path = write_lines(tmp_path / "log.jsonl", events[:10] + events[7:])
        assert run(capsys, path) == (
            1,
            [
                f"{path}:11: seq 10: seq-not-contiguous (ROOT-MODEL): seq 7 goes back; events "
                "are skipped until seq 10 comes",
                f"{path}: 31 event(s), 1 violation(s)",
            ],
        )


def test_standard_input(tmp_path: Path) -> None:
    """``-`` reads the log from standard input, named ``<stdin>``."""
    text = "".join(json.dumps(e) + "\n" for e in valid_log())
    command = [sys.executable, "-m", "dsh_conformance.run.runner", "check-log", "-"]
    done = subprocess.run(
        command, input=text, capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "<stdin>: 28 event(s), valid\n", "")


def test_a_deep_line_through_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    path.write_text(f'{{"type": "x/p", "seq": 0, "time": 0, "data": {deep}}}\n', "utf-8")
    command = [sys.executable, "-m", "dsh_conformance.run.runner", "check-log", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr == (
        f"{path}:1: seq 0: not read: nested 100001 levels deep; the suite reads JSON nested at "
        "most 100 levels\n"
    )
