"""The JavaScript example harnesses of `examples/`, judged the way a harness author would.

`examples/first-harness/` is the harness guide's first step: the handshake, and the cases made of
`assemble` ops alone (the built-in sections); everything else honestly skipped.
`examples/node-harness/` is the guide's worked example.
It implements PROMPT-STRICT-RENDER and PROMPT-TOOL-ORDER and answers every other case `skipped`:
`dsh-conformance smoke` must accept it, the suite's report must say both contracts conform (with
no test of theirs skipped), every other example case it was sent must be an honest skip, and the
export's own Node runner must pass it on the two contracts' cases. The harness guide includes its
files, so this test is what keeps the guide true.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh_conformance.run.runner import main

#: Not in the fast subset: node processes and a run of the whole suite.
pytestmark = pytest.mark.slow

NODE = shutil.which("node")
EXAMPLES = Path(__file__).parents[2] / "examples"
HARNESS = EXAMPLES / "node-harness" / "harness.mjs"
FIRST = EXAMPLES / "first-harness" / "harness.mjs"
RUNNER = (sys.executable, "-m", "dsh_conformance.run.runner")
CONTRACTS = ("PROMPT-STRICT-RENDER", "PROMPT-TOOL-ORDER")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed: the example needs it")


def _command(harness: Path = HARNESS) -> str:
    assert NODE is not None
    return f"{NODE} {harness}"


def _suite(tmp_path: Path, harness: Path, *options: str) -> dict[str, object]:
    """Run the suite on ``harness`` (exit 0 required) and return its implementation's report."""
    report = tmp_path / f"{harness.parent.name}.json"
    run = subprocess.run(
        [*RUNNER, "--impl", _command(harness), *options, "--conformance-json", str(report)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    (implementation,) = json.loads(report.read_text())["implementations"]
    found: dict[str, object] = implementation
    return found


@needs_node
def test_the_first_harness_passes_smoke_and_its_one_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["smoke", "--impl", _command(FIRST)]) == 0
    out = capsys.readouterr().out
    assert "  smoke/render: protocol ok, case skipped" in out
    assert "  smoke/unknown-op: ok" in out
    case = "registry/builtin-sections-by-default"
    implementation: Any = _suite(tmp_path, FIRST, "--case", case)
    ran = {
        r["test"]: r["outcome"] for r in implementation["results"] if r["outcome"] != "deselected"
    }
    assert ran == {f"test_example[{case}]": "passed"}


@needs_node
def test_smoke_accepts_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["smoke", "--impl", _command()]) == 0
    out = capsys.readouterr().out
    assert "handshake: node-example 0.1.0, javascript; capabilities: registry" in out
    for line in ("smoke/render", "smoke/errors", "smoke/scopes-tools-listener", "smoke/unknown-op"):
        assert f"  {line}: ok" in out
    assert "smoke/blocked-listener: protocol ok, case skipped" in out


@needs_node
def test_the_suite_says_both_contracts_conform_and_skips_the_rest(tmp_path: Path) -> None:
    implementation: Any = _suite(tmp_path, HARNESS, "-q")
    for contract in CONTRACTS:
        counts = implementation["contracts"][contract]
        assert counts["verdict"] == "conforms", (contract, counts)
        assert counts["passed"] > 0
    # Every example case of another contract is an honest skip (or needs a capability it does not
    # declare); the suite's other tests of the protocol itself (its `errored` shape) may pass.
    others = [
        r
        for r in implementation["results"]
        if r["test"].startswith("test_example[") and not set(CONTRACTS) & set(r["contracts"])
    ]
    assert {r["outcome"] for r in others} == {"skipped", "not applicable"}


@needs_node
def test_the_export_runner_passes_the_example_on_both_contracts(tmp_path: Path) -> None:
    exported = tmp_path / "cases"
    contracts = [argument for c in CONTRACTS for argument in ("--contract", c)]
    assert main(["export-cases", str(exported), *contracts]) == 0
    index = json.loads((exported / "index.json").read_text())
    assert NODE is not None
    run = subprocess.run(
        [NODE, str(exported / "runner.mjs"), str(exported), _command()],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    expected = f"{len(index['cases'])} passed, 0 failed, 0 errored, 0 skipped"
    assert expected in run.stdout, run.stdout[-2000:]
