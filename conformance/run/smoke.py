"""``dsh-conformance smoke``: the handshake and one small case, with every diagnostic printed.

The first thing a harness author runs: it needs no pytest knowledge, stops at the first problem,
and shows everything the implementation printed (the offending line, the stderr tail) instead of
a table.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from ..cases import all_cases
from ..harness.protocol import DEFAULT_TIMEOUT, ProtocolError
from ..harness.transport import load_implementation
from ..judge.case import mismatches
from ..judge.jsontext import dumps
from .execute import failure_message, format_context
from .options import seconds


def main(argv: list[str], out: TextIO | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="dsh-conformance smoke",
        description="Start one implementation, check its handshake, run one small case.",
    )
    parser.add_argument("--impl", default="reference", metavar="SPEC", help="as for the suite")
    parser.add_argument("--case-timeout", type=seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS")
    args = parser.parse_args(argv)
    return smoke(args.impl, args.case_timeout, out or sys.stdout)


def smoke(spec: str, timeout: float, out: TextIO) -> int:
    """0 if ``spec`` starts, answers the handshake and passes the smallest case it can run."""
    try:
        impl = load_implementation(spec, timeout=timeout)
    except (ImportError, AttributeError, TypeError, ValueError) as error:
        out.write(f"cannot load {spec!r}: {error}\n")
        return 2
    try:
        out.write(f"starting {impl.label}\n")
        try:
            handshake = impl.handshake()
        except ProtocolError as error:
            context = getattr(error, "context", None)
            out.write(f"FAILED: handshake: {error}\n")
            if context:
                out.write(format_context(context) + "\n")
            return 1
        out.write(f"handshake: {handshake.describe()}\n")
        runnable = [c for c in all_cases() if set(c.requires) <= handshake.capabilities]
        if not runnable:
            out.write("FAILED: it declares none of the capabilities the cases need\n")
            return 1
        # The smallest case that assembles: it touches the most of the protocol for its size.
        case = min(
            runnable, key=lambda c: (all(op["op"] != "assemble" for op in c.ops), len(c.ops))
        )
        out.write(f"running {case.id} [{', '.join(case.contracts)}]\n")
        out.write(f"sent: {dumps(case.scenario())}\n")
        outcome = impl.run(case.id, case.scenario())
        if outcome.kind == "errored":
            out.write(f"FAILED: errored: {outcome.reason}\n")
            if outcome.context is not None:
                out.write(format_context(outcome.context) + "\n")
            return 1
        if outcome.kind == "skipped":
            out.write(f"FAILED: the implementation skipped it: {outcome.reason}\n")
            return 1
        out.write(f"observed: {dumps(outcome.observations)}\n")
        problems = mismatches(case, outcome.observations)
        if problems:
            out.write("FAILED: " + failure_message(case, outcome.observations, problems) + "\n")
            return 1
        out.write("ok: the implementation speaks the protocol; run dsh-conformance for the rest\n")
        return 0
    finally:
        impl.close()
