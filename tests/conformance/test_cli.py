"""``dsh-conformance``'s own commands: help, version, listing, export, smoke, baselines."""

from __future__ import annotations

import fcntl
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import dsh_conformance
from dsh_conformance.cases import all_cases
from dsh_conformance.harness.protocol import CAPABILITIES, PROTOCOL_VERSION
from dsh_conformance.judge.case import CONTRACT_IDS, compare, rule_of
from dsh_conformance.requirements import catalog
from dsh_conformance.run.runner import SUBCOMMANDS, main
from dsh_reference.harness import Driver

#: Not in the fast subset (`-m "not slow"`):
#: the command line, each in a process of its own.
pytestmark = pytest.mark.slow

BROKEN = Path(__file__).with_name("broken_harness.py")


def test_help_lists_the_suites_options_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: dsh-conformance")
    for option in ("--impl", "--contract", "--max-errors", "--fail-on-skip", "smoke"):
        assert option in text
    assert len(text.splitlines()) < 60


def test_version_names_the_suite_the_protocol_and_its_capabilities(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--version"]) == 0
    text = capsys.readouterr().out.strip()
    assert f"(protocol {PROTOCOL_VERSION}; capabilities: " in text
    assert all(capability in text for capability in CAPABILITIES)


def test_list_as_json_names_every_case_with_its_contracts_and_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [case["id"] for case in data["cases"]] == [case.id for case in all_cases()]
    assert all(case["why"] and case["contracts"] for case in data["cases"])
    assert set(data["contracts"]) == set(CONTRACT_IDS)
    assert data["properties"] and "not exported" in data["note"]
    # Every test module of the suite is listed: the example cases, or its tests by name.
    modules = {info.name for info in pkgutil.iter_modules(dsh_conformance.__path__)}
    listed = {test["module"] for test in data["properties"] + data["other"]}
    assert {m for m in modules if m.startswith("test_")} == listed | {"test_examples"}
    for counts in data["contracts"].values():
        assert set(counts) == {"cases", "properties", "other", "requirements"}


def test_list_shows_each_requirement_with_what_checks_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    requirements = data["requirements"]
    assert list(requirements) == list(catalog())
    for case in data["cases"]:
        for identifier in case["requirements"]:
            assert case["id"] in requirements[identifier]["cases"]
    unchecked = [key for key, entry in requirements.items() if not entry["cases"] + entry["tests"]]
    assert data["unchecked"] == unchecked
    assert all(requirements[key]["unchecked"] for key in unchecked)
    assert all("unchecked" not in requirements[key] for key in set(requirements) - set(unchecked))
    counts = data["contracts"]["PROMPT-STRICT-RENDER"]["requirements"]
    assert counts == sum(key.startswith("PROMPT-STRICT-RENDER.") for key in requirements)


def test_list_as_text_can_be_restricted_to_a_contract(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list", "--contract", "PROMPT-TOOL-ORDER"]) == 0
    text = capsys.readouterr().out
    assert "PROMPT-TOOL-ORDER.2  A configured tool order with a duplicate name" in text
    assert "    checks: PROMPT-TOOL-ORDER.2, PROMPT-TOOL-ORDER.11\n" in text  # duplicate name
    assert "PROMPT-STRICT-RENDER.1 " not in text
    assert "registry/config-tool-order-duplicate-name  [PROMPT-TOOL-ORDER]" in text
    assert "render/all-empty-renders-empty-string" not in text


def test_exported_cases_are_the_run_message_and_the_expectations(tmp_path: Path) -> None:
    assert main(["export-cases", str(tmp_path)]) == 0
    index = json.loads((tmp_path / "index.json").read_text())
    assert len(index["cases"]) == len(all_cases())
    driver = Driver()
    for entry in index["cases"]:
        case = json.loads((tmp_path / entry["file"]).read_text())
        answer = driver.handle(case["run"])  # exactly the message to send
        assert answer["type"] == "observed", entry
        for expected, observed in zip(case["expected"], answer["observations"], strict=True):
            if expected is not None and expected["rule"] != "final-observe":
                assert expected["rule"] == rule_of(expected["value"]), entry
                assert compare(expected["value"], observed) is None, entry


def test_smoke_passes_the_reference_and_shows_why_a_harness_cannot_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert SUBCOMMANDS["smoke"](["--impl", "reference"]) == 0
    assert "ok: the implementation speaks the protocol" in capsys.readouterr().out
    command = f"{sys.executable} {BROKEN} crash-at-start"
    assert SUBCOMMANDS["smoke"](["--impl", command]) == 1
    text = capsys.readouterr().out
    assert "FAILED: handshake" in text and "Cannot find module '/srv/missing.js'" in text


def test_a_reader_that_goes_away_ends_the_output_quietly() -> None:
    """``dsh-conformance --collect-only | head -1``: no BrokenPipeError traceback."""
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)  # so that the output cannot all fit
    process = subprocess.Popen(
        [sys.executable, "-m", "dsh_conformance.run.runner", "--collect-only"],
        stdout=write_end,
        stderr=subprocess.PIPE,
    )
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        assert reader.readline().startswith(b"dsh_conformance/")
    _, stderr = process.communicate(timeout=120)
    assert b"Traceback" not in stderr and b"BrokenPipe" not in stderr, stderr
    assert process.returncode == 0


def test_help_and_version_need_no_extra() -> None:
    program = (
        "import sys; sys.modules['pytest'] = sys.modules['jsonschema'] = None; "
        "from dsh_conformance.run.runner import main; sys.exit(main(['--help']))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False
    )
    assert completed.returncode == 0, completed.stderr
    assert "--max-errors" in completed.stdout


def test_list_counts_the_request_invariant_run_on_every_loop_case(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--list", "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)["contracts"]
    loop_cases = sum(1 for case in all_cases() if case.agents())
    assert counts["LOGGEDLOOP-REQUEST-INVARIANT"]["cases"] == loop_cases > 0


@pytest.mark.parametrize(
    "argv",
    [
        ["--list", "--contract", "NOPE"],
        ["--list", "--json", "--contract", "NOPE"],
        ["export-cases", "DIR", "--contract", "NOPE"],
    ],
)
def test_an_unknown_contract_id_is_refused_with_the_valid_ones(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(tmp_path / "out") if arg == "DIR" else arg for arg in argv]
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse's usage error
        status = int(exit_.code or 0)
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert "NOPE" in captured.err and "LOGGEDLOOP-REQUEST-INVARIANT" in captured.err
    assert not (tmp_path / "out").exists()


def test_a_contract_id_is_accepted_in_any_letter_case(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list", "--json", "--contract", "prompt-tool-order"]) == 0
    assert list(json.loads(capsys.readouterr().out)["contracts"]) == ["PROMPT-TOOL-ORDER"]


@pytest.mark.parametrize("where", ["a-file", "a-file/below"])
def test_export_into_a_file_is_a_one_line_error(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("keep me\n")
    assert main(["export-cases", str(tmp_path / where)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "cannot write the cases to" in error
    assert (tmp_path / "a-file").read_text() == "keep me\n"


def test_the_installed_cli_leaves_nothing_in_the_working_directory(tmp_path: Path) -> None:
    """Hypothesis's examples and caches go to the suite's cache directory, not ``./.hypothesis``."""
    cwd, cache = tmp_path / "work", tmp_path / "cache"
    cwd.mkdir()
    command = [
        sys.executable,
        "-m",
        "dsh_conformance.run.runner",
        "--contract",
        "PROMPT-TOOL-ORDER",
    ]
    completed = subprocess.run(
        [*command, "-k", "test_configured_tool_order"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=cwd,
        env={**os.environ, "XDG_CACHE_HOME": str(cache)},
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert list(cwd.iterdir()) == []
    assert (cache / "dsh-conformance" / "hypothesis").is_dir()


class SkipsEverything(Driver):
    """An honest stub: it speaks the protocol and skips every case it is sent."""

    def handle(self, message: Any) -> Any:
        if message.get("type") == "run":
            return {"type": "skipped", "case": message["case"], "reason": "not implemented yet"}
        return super().handle(message)


class WrongErrorKind(Driver):
    """Right on every case but the smoke file's error line: it answers another error kind."""

    def handle(self, message: Any) -> Any:
        answer = super().handle(message)
        if message.get("case") == "smoke/errors":
            answer["observations"][1] = {"error": {"kind": "something-else"}}
        return answer


def test_smoke_calls_an_honest_stub_protocol_ok(capsys: pytest.CaptureFixture[str]) -> None:
    assert SUBCOMMANDS["smoke"](["--impl", "test_cli:SkipsEverything"]) == 0
    text = capsys.readouterr().out
    assert "protocol ok, case skipped: not implemented yet" in text
    assert "smoke/render: protocol ok, case skipped" in text


def test_smoke_replays_the_smoke_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert SUBCOMMANDS["smoke"](["--impl", "test_cli:WrongErrorKind"]) == 1
    text = capsys.readouterr().out
    assert "smoke/render: ok" in text
    assert "FAILED: smoke/errors" in text


def test_info_prints_the_handshake_without_running_a_case(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["info", "--impl", "test_cli:SkipsEverything", "--json"]) == 0
    described = json.loads(capsys.readouterr().out)
    assert described["name"] == "dsh-reference" and "registry" in described["capabilities"]
    assert main(["info", "--impl", f"{sys.executable} {BROKEN} crash-at-start"]) == 1
    assert "Cannot find module '/srv/missing.js'" in capsys.readouterr().out
    assert main(["info", "--impl", "no-such-program"]) == 2
    assert "no program 'no-such-program'" in capsys.readouterr().err
