"""``export-cases``: everything a runner in another language needs, proven by the Node runner
(dsh_conformance/export/runner.mjs) written from COMPARISON.md alone."""

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
from schema_fit import Schema

from dsh_conformance.cases import all_cases
from dsh_conformance.harness.protocol import CAPABILITIES
from dsh_conformance.harness.zone import HARNESS_TZ
from dsh_conformance.judge.case import COMPARISON_VERSION, CONTRACT_IDS, RULES
from dsh_conformance.run.catalog import EXPORT_FORMAT, FINAL_OBSERVE, export

EXPORT = Path(__file__).parents[2] / "dsh_conformance" / "export"
GALLERY = Path(__file__).parents[1] / "gallery"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(
    NODE is None, reason="node is not installed: the export's Node runner cannot be run here"
)


#: The reference model's harness process.
REFERENCE = f"{shlex.quote(sys.executable)} -c 'from dsh_reference.harness import main; main()'"


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
    assert index["comparison"]["rules"] == sorted([*RULES, FINAL_OBSERVE])  # type: ignore[index]
    assert index["harness"] == {"environment": {"TZ": HARNESS_TZ}}
    case_schema = Schema(_load(EXPORT / "case.schema.json"))  # 483 files: `schema_fit`
    used = set()
    for entry in index["cases"]:  # type: ignore[attr-defined]
        case = _load(exported / entry["file"])
        case_schema.assert_fits(case)
        ops = case["run"]["scenario"]["ops"]  # type: ignore[index]
        assert len(case["expected"]) == len(ops), entry  # type: ignore[arg-type]
        # Nothing is left that only the suite can check.
        assert case["suiteChecks"] == [], entry
        # The line the suite sends (`Child.send`), and the same value as `run`.
        assert case["runText"] == json.dumps(case["run"]), entry
        used |= {expected["rule"] for expected in case["expected"] if expected}  # type: ignore[attr-defined]
    assert used == set(index["comparison"]["rules"])  # type: ignore[index]
    for name in ("COMPARISON.md", "runner.mjs"):
        assert (exported / name).read_bytes() == (EXPORT / name).read_bytes()
    answers = Path(__file__).parents[2] / "dsh_conformance" / "harness" / "protocol.schema.json"
    assert index["answerSchema"] == "protocol.schema.json"
    assert (exported / "protocol.schema.json").read_bytes() == answers.read_bytes()


def test_one_export_format_and_comparison_version_everywhere(exported: Path) -> None:
    """index.json, both schemas' titles, COMPARISON.md's title and the Node runner name the same
    export format and comparison rules version."""
    index = _load(exported / "index.json")
    assert index["format"] == EXPORT_FORMAT
    assert index["comparison"]["version"] == COMPARISON_VERSION  # type: ignore[index]
    for name in ("case.schema.json", "index.schema.json"):
        assert f"(export format {EXPORT_FORMAT};" in _load(EXPORT / name)["title"]  # type: ignore[operator]
    assert _load(EXPORT / "index.schema.json")["properties"]["format"] == {"const": EXPORT_FORMAT}  # type: ignore[index]
    title = (EXPORT / "COMPARISON.md").read_text(encoding="utf-8").splitlines()[0]
    assert (
        f"(export format {EXPORT_FORMAT}, comparison rules version {COMPARISON_VERSION})" in title
    )
    runner = (EXPORT / "runner.mjs").read_text(encoding="utf-8")
    assert f"const FORMAT = {EXPORT_FORMAT};" in runner
    assert f"const COMPARISON_VERSION = {COMPARISON_VERSION};" in runner


def test_a_case_holding_integers_beyond_a_double_sends_them_as_written(exported: Path) -> None:
    """`runText` carries the 401-digit orders as digits; `JSON.stringify(JSON.parse(...))` of the
    `run` value would send `null` in their place."""
    case = _load(exported / "registry__integer-orders-beyond-the-double-range-rejected.json")
    huge = case["run"]["scenario"]["ops"][0]["order"]  # type: ignore[index]
    assert isinstance(huge, int) and len(str(huge)) == 401
    assert f'"order": {huge},' in case["runText"]  # type: ignore[operator]


def test_a_loop_case_exports_the_observe_ops_the_suite_adds_and_its_suite_checks(
    exported: Path,
) -> None:
    case = next(case for case in all_cases() if len(case.agents()) == 1)
    document = _load(exported / "index.json")
    entry = next(e for e in document["cases"] if e["id"] == case.id)  # type: ignore[attr-defined]
    exported_case = _load(exported / entry["file"])
    ops = exported_case["run"]["scenario"]["ops"]  # type: ignore[index]
    assert ops[-1] == {"op": "observe", "agent": case.agents()[0]}
    fold = [*case.contracts, "ROOT-MODEL", "LOGGEDLOOP-REQUEST-INVARIANT"]
    assert exported_case["expected"][-1] == {  # type: ignore[index]
        "rule": FINAL_OBSERVE,
        "value": {"foldContracts": list(dict.fromkeys(fold))},
    }
    assert exported_case["suiteChecks"] == []
    assert "LOGGEDLOOP-REQUEST-INVARIANT" in entry["checks"]


def test_a_loop_case_whose_expected_log_fixes_its_requests_exports_their_messages(
    exported: Path,
) -> None:
    """loop/tool-round-trip-continuation-step expects the whole log and dispatches at view
    positions 5 and 14: the requests carry the header's route and the session, the first the
    question, the second the question, the tool call and its result (the messages its expected
    log derives, ids as the view names them)."""
    document = _load(exported / "loop__tool-round-trip-continuation-step.json")
    assert "notFixed" not in document
    ((fixed,),) = [document["expectedRequests"]]
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
        document = _load(exported / entry["file"])
        loop = any(e and e["rule"] == FINAL_OBSERVE for e in document["expected"])  # type: ignore[attr-defined]
        assert ("expectedRequests" in document) == loop, entry["id"]
        if not loop:
            continue
        if document["expectedRequests"]:
            fixed += 1
        else:
            unfixed += 1
            assert document["notFixed"], entry["id"]
    assert fixed > 0 and unfixed > 0


def _node(
    directory: Path, harness: str, *options: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    assert NODE is not None
    return subprocess.run(
        [NODE, str(directory / "runner.mjs"), str(directory), harness, *options],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.slow  # node and a harness process: not in the fast subset
@needs_node
def test_the_node_runner_ends_with_its_last_answer_not_its_timeout(tmp_path: Path) -> None:
    """Each wait for an answer armed a timer of the whole ``--timeout`` that the answer did not
    clear, and Node stayed alive until the last one fired: every run ended one timeout after its
    last answer. Here that would be ten minutes, beyond the two this run is given."""
    export(tmp_path, frozenset({"PROMPT-SCOPE-SHADOW"}))
    run = _node(tmp_path, REFERENCE, "--timeout", "600", timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.slow  # node and a harness process: not in the fast subset
@needs_node
def test_the_node_runner_passes_the_whole_export_against_the_reference_harness(
    exported: Path,
) -> None:
    run = _node(exported, REFERENCE)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{len(all_cases())} passed, 0 failed, 0 errored" in run.stdout


def _gallery_harness(driver: str, after: str = "") -> str:
    """The command of a harness serving the gallery's wrong implementation ``driver``; ``after``,
    a shell pipeline its answers go through."""
    code = (
        f"import sys; sys.path.insert(0, {str(GALLERY)!r}); from wrong_impls import {driver}; "
        f"from dsh_reference.harness import serve; serve({driver}())"
    )
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}{after}"


def _failures(printed: str) -> dict[str, list[str]]:
    """The cases the Node runner printed as failed, each with its problem lines."""
    found: dict[str, list[str]] = {}
    current: list[str] = []
    for line in printed.splitlines():
        if line.startswith("FAILED "):
            current = found.setdefault(line.split()[1], [])
        elif line.startswith("  - "):
            current.append(line)
    return found


@pytest.mark.slow  # node and a harness process: not in the fast subset
@needs_node
@pytest.mark.parametrize(
    ("driver", "contract", "failing"),
    [
        ("HeaderEveryStep", "PROMPT-HEADER-CHANGE-TEST", "loop/"),
        ("UsageCountsCacheReadsAsInput", "PROMPT-DEEPSEEK-WIRE", "deepseek/stream-usage"),
        # STREAM_CHUNK's shape where no value is compared: a tool-call-delta's `name` null.
        (
            "ToolCallDeltaNameNull",
            "PROMPT-DEEPSEEK-WIRE",
            "deepseek/stream-tool-call-without-id-or-name",
        ),
        # The harness's environment: an HTTP date read in local time is 5 h 30 min off in
        # Asia/Kolkata, which the runner gives the harness on any machine.
        (
            "RetryAfterDateInLocalTime",
            "PROMPT-DEEPSEEK-WIRE",
            "deepseek/http-retry-after-asctime-and-rfc850",
        ),
    ],
)
def test_the_node_runner_rejects_a_wrong_gallery_harness(
    tmp_path: Path, driver: str, contract: str, failing: str
) -> None:
    export(tmp_path, frozenset({contract}))
    run = _node(tmp_path, _gallery_harness(driver))
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"FAILED {failing}" in run.stdout


#: The gallery's wrong loops the suite fails only by its own fold of the log or its request
#: invariant (no example expectation sees them; `tests/gallery/export_agreement.py` found them),
#: each with a contract whose cases include those it fails.
FOLD_OR_INVARIANT_ONLY = [
    ("SnapshotLoggedNotSent", "LOOP-RUNTIME-CONTEXT"),
    # (AnswerUsageLoggedAsNull was one until `loop/the-streams-usage-is-on-its-assistant-message`
    # gave its departure an expectation.)
    # Its requests hold the logged messages in another key order: 79 cases, all by the invariant.
    ("RebuiltMessages", "PROMPT-HEADER-CHANGE-TEST"),
]


@pytest.mark.slow  # node and a harness process: not in the fast subset
@needs_node
@pytest.mark.parametrize(("driver", "contract"), FOLD_OR_INVARIANT_ONLY)
def test_the_node_runner_fails_what_only_the_fold_or_the_invariant_catches(
    tmp_path: Path, driver: str, contract: str
) -> None:
    """The `final-observe` rule (COMPARISON.md, "The log fold", "The request invariant") fails
    these wrong implementations, where every case expectation holds."""
    export(tmp_path, frozenset({contract}))
    run = _node(tmp_path, _gallery_harness(driver))
    assert run.returncode == 1, run.stdout + run.stderr
    failures = _failures(run.stdout)
    assert failures, run.stdout
    for case, problems in failures.items():
        assert problems and all(
            "(observe): the log fold" in problem
            or "(observe): the request invariant" in problem
            or "(observe): expected requests" in problem
            for problem in problems
        ), (case, problems)
    assert any(
        "(observe): the log fold" in p or "(observe): the request invariant" in p
        for problems in failures.values()
        for p in problems
    ), run.stdout


@pytest.mark.slow  # node and a harness process: not in the fast subset
@needs_node
def test_the_node_runner_errors_an_answer_with_an_extra_top_level_field(tmp_path: Path) -> None:
    """The answer schema (protocol.schema.json, shipped in the export) allows no field beyond
    those it names: each such answer is errored, as the suite errors it."""
    export(tmp_path, frozenset({"PROMPT-SCOPE-SHADOW"}))
    count = len(_load(tmp_path / "index.json")["cases"])  # type: ignore[arg-type]
    add = (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    answer = json.loads(line)\n"
        "    if answer.get('type') == 'observed': answer['note'] = 'extra'\n"
        "    print(json.dumps(answer), flush=True)\n"
    )
    harness = f"{REFERENCE} | {shlex.quote(sys.executable)} -c {shlex.quote(add)}"
    run = _node(tmp_path, harness)
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"0 passed, 0 failed, {count} errored" in run.stdout, run.stdout
    assert "additional property" in run.stdout and '"note"' in run.stdout


@pytest.mark.slow  # node and a harness process: not in the fast subset
@needs_node
def test_the_node_runner_compares_the_expected_requests(tmp_path: Path) -> None:
    """`SnapshotLoggedNotSent` logs every event right and leaves the runtime-context snapshot out of
    its requests: no case expectation sees it; the exported expected requests do, and so does the
    request invariant."""
    export(tmp_path, frozenset({"LOOP-RUNTIME-CONTEXT"}))
    run = _node(tmp_path, _gallery_harness("SnapshotLoggedNotSent"))
    assert run.returncode == 1, run.stdout + run.stderr
    problems = _failures(run.stdout)["loop/runtime-context-unchanged-over-steps-one-snapshot"]
    assert any(
        "(observe): expected requests: request #0 differs in messages" in p for p in problems
    )
    assert any("the request invariant: request #0" in p and "messages" in p for p in problems)


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
