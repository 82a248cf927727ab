"""``export-cases``: everything a runner in another language needs, proven by the Node runner
(conformance/export/runner.mjs) written from COMPARISON.md alone."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from conformance.cases import all_cases
from conformance.harness.protocol import CAPABILITIES
from conformance.judge.case import CONTRACT_IDS, RULES
from conformance.run.catalog import export

EXPORT = Path(__file__).parents[2] / "conformance" / "export"
GALLERY = Path(__file__).parents[1] / "gallery"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(
    NODE is None, reason="node is not installed: the export's Node runner cannot be run here"
)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("export")
    export(directory)
    return directory


def _load(path: Path) -> dict[str, object]:
    document: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return document


def test_every_file_matches_its_schema_and_names_known_rules(exported: Path) -> None:
    index = _load(exported / "index.json")
    Draft202012Validator(_load(EXPORT / "index.schema.json")).validate(index)
    assert index["capabilities"] == list(CAPABILITIES)
    assert index["contracts"] == list(CONTRACT_IDS)
    assert index["comparison"]["rules"] == sorted(RULES)  # type: ignore[index]
    validator = Draft202012Validator(_load(EXPORT / "case.schema.json"))
    for entry in index["cases"]:  # type: ignore[attr-defined]
        case = _load(exported / entry["file"])
        validator.validate(case)
        ops = case["run"]["scenario"]["ops"]  # type: ignore[index]
        assert len(case["expected"]) == len(ops), entry  # type: ignore[arg-type]
        for expected in case["expected"]:  # type: ignore[attr-defined]
            assert expected is None or expected["rule"] in {*RULES, "final-observe"}
    for name in ("COMPARISON.md", "runner.mjs"):
        assert (exported / name).read_bytes() == (EXPORT / name).read_bytes()


def test_a_loop_case_exports_the_observe_ops_the_suite_adds_and_its_suite_checks(
    exported: Path,
) -> None:
    case = next(case for case in all_cases() if len(case.agents()) == 1)
    document = _load(exported / "index.json")
    entry = next(e for e in document["cases"] if e["id"] == case.id)  # type: ignore[attr-defined]
    exported_case = _load(exported / entry["file"])
    ops = exported_case["run"]["scenario"]["ops"]  # type: ignore[index]
    assert ops[-1] == {"op": "observe", "agent": case.agents()[0]}
    assert exported_case["expected"][-1] == {"rule": "final-observe", "value": None}  # type: ignore[index]
    checks = {check["check"]: check for check in exported_case["suiteChecks"]}  # type: ignore[attr-defined]
    assert checks["request-invariant"]["ops"] == [len(ops) - 1]
    assert "LOGGEDLOOP-REQUEST-INVARIANT" in entry["checks"]


def test_a_loop_case_whose_expected_log_fixes_its_requests_exports_their_messages(
    exported: Path,
) -> None:
    """loop/tool-round-trip-continuation-step expects the whole log and dispatches at view
    positions 5 and 14: the requests carry the header's route and the session, the first the
    question, the second the question, the tool call and its result (the messages its expected
    log derives, ids as the view names them)."""
    document = _load(exported / "loop__tool-round-trip-continuation-step.json")
    (check,) = [c for c in document["suiteChecks"] if c["check"] == "request-invariant"]  # type: ignore[attr-defined]
    assert "notFixed" not in check
    ((fixed,),) = [check["expectedRequests"]]
    assert fixed["op"] == 2
    first, second = (request["request"] for request in fixed["requests"])
    assert [request["dispatchSeq"] for request in fixed["requests"]] == [5, 14]
    assert first["provider"] == "scripted" and first["sessionId"] == "#session"
    assert [m["id"] for m in first["messages"]] == ["#1"]
    assert [(m["role"], m["id"]) for m in second["messages"]] == [
        ("user", "#1"),
        ("assistant", "#2"),
        ("user", "#3"),
    ]
    assert second["messages"][1]["content"][0]["type"] == "tool-call"
    assert second["messages"][2]["source"] == {"kind": "tool", "callId": "c1"}


def test_every_loop_case_exports_its_expected_requests_or_says_why_it_fixes_none(
    exported: Path,
) -> None:
    index = _load(exported / "index.json")
    fixed = unfixed = 0
    for entry in index["cases"]:  # type: ignore[attr-defined]
        for check in _load(exported / entry["file"])["suiteChecks"]:  # type: ignore[attr-defined]
            if check["check"] != "request-invariant":
                continue
            if check["expectedRequests"]:
                fixed += 1
            else:
                unfixed += 1
                assert check["notFixed"], entry["id"]
    assert fixed > 0 and unfixed > 0


def _node(
    directory: Path, harness: str, *, contract: str | None = None
) -> subprocess.CompletedProcess[str]:
    assert NODE is not None
    return subprocess.run(
        [NODE, str(directory / "runner.mjs"), str(directory), harness],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow  # node and a harness process: not in the fast subset
@needs_node
def test_the_node_runner_passes_the_whole_export_against_the_reference_harness(
    exported: Path,
) -> None:
    harness = f"{shlex.quote(sys.executable)} -c 'from reference.harness import main; main()'"
    run = _node(exported, harness)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{len(all_cases())} passed, 0 failed, 0 errored" in run.stdout


@pytest.mark.slow  # node and a harness process: not in the fast subset
@needs_node
@pytest.mark.parametrize(
    ("driver", "contract", "failing"),
    [
        ("HeaderEveryStep", "PROMPT-HEADER-CHANGE-TEST", "loop/"),
        ("UsageCountsCacheReadsAsInput", "PROMPT-DEEPSEEK-WIRE", "deepseek/stream-usage"),
    ],
)
def test_the_node_runner_rejects_a_wrong_gallery_harness(
    tmp_path: Path, driver: str, contract: str, failing: str
) -> None:
    export(tmp_path, frozenset({contract}))
    code = (
        f"import sys; sys.path.insert(0, {str(GALLERY)!r}); from wrong_impls import {driver}; "
        f"from reference.harness import serve; serve({driver}())"
    )
    run = _node(tmp_path, f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}")
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"FAILED {failing}" in run.stdout


@pytest.mark.slow  # node and a harness process: not in the fast subset
@needs_node
def test_the_node_runner_compares_the_expected_requests(tmp_path: Path) -> None:
    """`SnapshotLoggedNotSent` logs every event right and leaves the runtime-context snapshot out of
    its requests: no case expectation sees it, the exported expected requests do."""
    export(tmp_path, frozenset({"LOOP-RUNTIME-CONTEXT"}))
    code = (
        f"import sys; sys.path.insert(0, {str(GALLERY)!r}); "
        "from wrong_impls import SnapshotLoggedNotSent; "
        "from reference.harness import serve; serve(SnapshotLoggedNotSent())"
    )
    run = _node(tmp_path, f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}")
    assert run.returncode == 1, run.stdout + run.stderr
    failures = [line for line in run.stdout.splitlines() if line.startswith("  - ")]
    assert failures and all("expected requests (request-invariant)" in f for f in failures)
    assert "FAILED loop/runtime-context-unchanged-over-steps-one-snapshot" in run.stdout


@needs_node
@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda directory: (directory / "index.json").unlink(), "index.json: cannot read it"),
        (lambda directory: (directory / "index.json").write_text("{oops"), "index.json: not JSON"),
    ],
    ids=["no-index", "index-not-json"],
)
def test_the_node_runner_names_an_unreadable_export_in_one_line(
    tmp_path: Path, damage: Callable[[Path], object], says: str
) -> None:
    export(tmp_path, frozenset({"PROMPT-SCOPE-SHADOW"}))
    damage(tmp_path)
    run = _node(tmp_path, "true")
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.count("\n") == 1 and says in run.stderr, run.stderr
