"""Whether the export's Node runner fails every gallery wrong implementation the suite fails.

    python tests/gallery/export_agreement.py OUTDIR [--parallel N] [NAME…]

For each wrong implementation (all of `WRONG_IMPLEMENTATIONS`, or the NAMEs given), the Node
runner (dsh_conformance/export/runner.mjs) runs the whole export against it, through a recording
proxy (``--proxy``) that keeps each ``run`` line and the harness's answer. The suite's own judge
then reads the same answers: the example cases' expectations and the fold of the case's contracts
(``test_example``), and for a loop case the request invariant and the fold of its contracts
(``test_loop_invariant``), with the answer schema and the protocol's refusals before them. So
both judges see the very same observations, and any difference in the verdicts is a difference
in the judging, never in the runs.

Prints a Markdown table (one row per implementation) and writes ``OUTDIR/agreement.json``; exit
status 1 when a wrong implementation the suite fails passes the Node runner.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
Json = Any


def proxy(record: str, command: str) -> int:
    """Be the harness: start ``command``, pass every line through, and append each ``run`` line
    with the answer it got to ``record`` (one JSON object per line)."""
    child = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    with open(record, "a", encoding="utf-8") as out:
        for line in sys.stdin.buffer:
            child.stdin.write(line)
            child.stdin.flush()
            message = json.loads(line)
            if message.get("type") == "stop":
                break
            answer = child.stdout.readline()
            if message.get("type") == "run":
                out.write(json.dumps({"case": message["case"], "answer": answer.decode()}) + "\n")
                out.flush()
            sys.stdout.buffer.write(answer)
            sys.stdout.buffer.flush()
            if not answer:
                break
    child.stdin.close()
    return child.wait()


def suite_verdicts(record: Path, exported: Path) -> dict[str, str]:
    """The suite's verdict on every recorded answer: ``passed``, ``failed`` (``failed-by-fold``
    when only the suite's fold or request invariant fails it, no expectation), ``errored`` or
    ``skipped``, the way `dsh_conformance.run.execute` reaches it (a case without an answer
    errored)."""
    from dsh_conformance.cases import all_cases
    from dsh_conformance.harness.protocol import ProtocolError, parse_outcome
    from dsh_conformance.harness.validate import check_answer
    from dsh_conformance.judge.case import mismatches
    from dsh_conformance.judge.nesting import nesting_problem
    from dsh_conformance.run.execute import example_problems, invariant_problems, split_finals

    answers = {}
    for line in record.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        answers[entry["case"]] = entry["answer"]
    ids = {entry["id"] for entry in json.loads((exported / "index.json").read_text())["cases"]}
    verdicts = {}
    for case in all_cases():
        if case.id not in ids:
            continue
        text = answers.get(case.id)
        if not text:
            verdicts[case.id] = "errored"
            continue
        try:
            if nesting_problem(text) is not None:
                raise ProtocolError("nested too deeply")
            answer = json.loads(text)
            outcome = parse_outcome(answer, case.id, len(case.sent_scenario()["ops"]))
            check_answer(answer, "run")
        except (ProtocolError, ValueError):
            verdicts[case.id] = "errored"
            continue
        if outcome.kind != "observed":
            verdicts[case.id] = outcome.kind
            continue
        observations, finals = split_finals(case, outcome.observations)
        problems = example_problems(case, observations, finals)
        if case.agents():
            problems += invariant_problems(case, finals)
        by_expectations = mismatches(case, observations)
        verdicts[case.id] = (
            "passed" if not problems else "failed" if by_expectations else "failed-by-fold"
        )
    return verdicts


def node_verdicts(printed: str) -> dict[str, str]:
    """The cases the Node runner printed as failed or errored."""
    found = {}
    for line in printed.splitlines():
        for verdict in ("FAILED", "ERRORED"):
            if line.startswith(f"{verdict} "):
                case = line[len(verdict) + 1 :].split(" [")[0].split(": ")[0]
                found[case] = verdict.lower()
    return found


def judge_one(name: str, export: Path, outdir: Path) -> dict[str, Json]:
    """Run the Node runner on wrong implementation ``name`` through the proxy; both verdicts."""
    record = outdir / f"{name}.jsonl"
    record.unlink(missing_ok=True)
    (outdir / f"{name}.export").write_text(str(export), encoding="utf-8")
    code = (
        f"import sys; sys.path.insert(0, {str(HERE)!r}); from wrong_impls import {name}; "
        f"from dsh_reference.harness import serve; serve({name}())"
    )
    harness = f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"
    command = (
        f"{shlex.quote(sys.executable)} {shlex.quote(str(Path(__file__)))} --proxy "
        f"{shlex.quote(str(record))} {shlex.quote(harness)}"
    )
    run = subprocess.run(
        ["node", str(export / "runner.mjs"), str(export), command, "--timeout", "60"],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    (outdir / f"{name}.out").write_text(run.stdout + run.stderr, encoding="utf-8")
    if not record.exists():
        record.write_text("", encoding="utf-8")
    return verdicts(name, outdir)


def verdicts(name: str, outdir: Path) -> dict[str, Json]:
    """Both verdicts on the answers recorded in ``outdir`` for ``name``."""
    printed = (outdir / f"{name}.out").read_text(encoding="utf-8")
    chosen = outdir / f"{name}.export"
    exported = Path(chosen.read_text()) if chosen.exists() else outdir / "export"
    suite = {
        case: verdict
        for case, verdict in suite_verdicts(outdir / f"{name}.jsonl", exported).items()
        if verdict not in ("passed", "skipped")
    }
    return {
        "name": name,
        "cases": exported.name,
        "suite": suite,
        "node": node_verdicts(printed),
    }


def table(results: Iterable[dict[str, Json]]) -> str:
    from wrong_impls import WRONG_IMPLEMENTATIONS

    lines = [
        "| wrong implementation | contract | cases run | suite fails | of which only by "
        "fold/invariant | Node fails | suite-only | Node-only |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        suite, node = set(result["suite"]), set(result["node"])
        by_fold = sum(verdict == "failed-by-fold" for verdict in result["suite"].values())
        lines.append(
            f"| {result['name']} | {WRONG_IMPLEMENTATIONS[result['name']]} | "
            f"{'all' if result['cases'] == 'export' else 'its contract'} | {len(suite)} | "
            f"{by_fold} | {len(node)} | {', '.join(sorted(suite - node)) or '—'} | "
            f"{', '.join(sorted(node - suite)) or '—'} |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--proxy"]:
        return proxy(argv[1], argv[2])
    parser = argparse.ArgumentParser(prog="export_agreement.py")
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument(
        "--contract-only",
        action="store_true",
        help="run each implementation on the cases of its contract only, as the gallery does",
    )
    parser.add_argument(
        "--rejudge", action="store_true", help="judge the answers OUTDIR holds again, run nothing"
    )
    parser.add_argument("names", nargs="*")
    args = parser.parse_intermixed_args(argv)
    sys.path.insert(0, str(HERE))
    from wrong_impls import WRONG_IMPLEMENTATIONS

    from dsh_conformance.run.catalog import export

    names = args.names or sorted(WRONG_IMPLEMENTATIONS)
    if args.rejudge:
        return report(args.outdir, [verdicts(name, args.outdir) for name in names])
    args.outdir.mkdir(parents=True, exist_ok=True)
    directory = args.outdir / "export"
    exports = {}
    for name in names:
        contract = WRONG_IMPLEMENTATIONS[name] if args.contract_only else None
        if contract not in exports:
            exports[contract] = directory if contract is None else args.outdir / contract
            export(exports[contract], frozenset([contract] if contract else []))
    lock = threading.Lock()

    def one(name: str) -> dict[str, Json]:
        contract = WRONG_IMPLEMENTATIONS[name] if args.contract_only else None
        result = judge_one(name, exports[contract], args.outdir)
        with lock:
            print(f"{name}: suite {len(result['suite'])}, node {len(result['node'])}", flush=True)
        return result

    with ThreadPoolExecutor(args.parallel) as pool:
        results = list(pool.map(one, names))
    return report(args.outdir, results)


def report(outdir: Path, results: list[dict[str, Json]]) -> int:
    """Print the table and the totals, keep ``outdir/agreement.json``; 1 when the Node runner
    passes a wrong implementation the suite fails."""
    (outdir / "agreement.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(table(results))
    missed = [r["name"] for r in results if r["suite"] and not r["node"]]
    suite = sum(bool(r["suite"]) for r in results)
    node = sum(bool(r["node"]) for r in results)
    print(
        f"\n{len(results)} wrong implementations; the suite fails {suite}, the Node runner {node}"
    )
    print(f"failed by the suite and passed by the Node runner: {missed or 'none'}")
    return 1 if missed else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main(sys.argv[1:]))
