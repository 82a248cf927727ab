"""``dsh-conformance run-case FILE --impl SPEC``: one case file, run against one implementation.

The file is a case as ``export-cases`` writes it (``DIR/<id>.json``), or the ``.json`` that
``fuzz`` writes beside its draft case (the same format): its exact ``run`` message and, per op,
the expectation and its comparison rule. The case is judged as the suite judges an example case
(`dsh_conformance.run.execute.check`: the op shapes, the expectations, and the suite's fold of a
loop case's logs), so a found divergence can be replayed against a fix without the whole suite
(issue 37, M5). Exit status (`dsh_conformance.run.exits`): 0 passed; 1 failed, errored, skipped or
not applicable (a case that did not run is no pass); 2 a file that is no case, an ``--impl`` that
cannot be loaded, or Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ..harness.protocol import DEFAULT_TIMEOUT
from ..harness.transport import UNLOADABLE, load_implementation
from ..judge.case import Case
from .execute import ConformanceFailure, ImplementationErrored, check
from .exits import FOUND, OK, UNUSABLE
from .options import seconds, see

Json = Any


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="dsh-conformance run-case",
        description="Run one case file (an exported case, or the .json fuzz writes) against an "
        "implementation and judge it as the suite does.",
        epilog=f"Exit status: 0 passed; 1 failed, errored or not run; 2 when the file is not a "
        f"case or the implementation cannot be loaded, or on Ctrl-C. Documentation: "
        f"{see('Running the cases in another language', 'export/index.md')}.",
    )
    parser.add_argument("file", type=Path, metavar="FILE")
    parser.add_argument("--impl", default="reference", metavar="SPEC", help="as for the suite")
    parser.add_argument("--case-timeout", type=seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS")
    args = parser.parse_args(argv)
    try:
        case = case_of(json.loads(args.file.read_text(encoding="utf-8")))
    except OSError as error:
        return _unusable(parser, f"{args.file}: cannot read it ({error.strerror or error})")
    except (ValueError, KeyError, TypeError) as error:
        return _unusable(parser, f"{args.file}: not a case file of export-cases or fuzz: {error}")
    try:
        impl = load_implementation(args.impl, timeout=args.case_timeout)
    except UNLOADABLE as error:
        return _unusable(parser, f"--impl {args.impl!r}: {error}")
    out = sys.stdout.write
    try:
        check(impl, case)
    except ConformanceFailure as failure:
        out(f"FAILED {case.id} against {impl.label}:\n{failure}\n")
        return FOUND
    except ImplementationErrored as error:
        out(f"ERRORED {case.id} against {impl.label}: {error}\n")
        return FOUND
    except pytest.skip.Exception as skipped:
        out(f"NOT RUN {case.id} against {impl.label}: {skipped.msg}\n")
        return FOUND
    finally:
        impl.close()
    out(f"passed {case.id} against {impl.label}\n")
    return OK


def _unusable(parser: argparse.ArgumentParser, message: str) -> int:
    sys.stderr.write(f"{parser.prog}: {message}\n")
    return UNUSABLE


def case_of(document: Json) -> Case:
    """The `Case` an exported case file holds (dsh_conformance/export/COMPARISON.md): the scenario
    of its ``run`` message, each op with its expectation, without the final ``observe`` of each
    agent, which the suite adds again itself (`Case.sent_scenario`)."""
    ops = document["run"]["scenario"]["ops"]
    expected = document["expected"]
    if not isinstance(ops, list) or not isinstance(expected, list) or len(ops) != len(expected):
        raise ValueError("its run has not one expectation per op")
    finals = sum(isinstance(e, dict) and e.get("rule") == "final-observe" for e in expected)
    own = [
        op if entry is None else {**op, "expect": entry["value"]}
        for op, entry in zip(ops[: len(ops) - finals], expected, strict=False)
    ]
    return Case(
        id=str(document["id"]),
        contracts=tuple(document["contracts"]),
        why=str(document.get("why", "")),
        ops=tuple(own),
        requires=tuple(document.get("requires", ())),
    )
