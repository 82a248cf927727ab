"""``dsh-conformance smoke``: the handshake, one small case and the smoke file, diagnostics printed.

The first thing a harness author runs: it needs no pytest knowledge, stops at the first problem,
and shows everything the implementation printed (the offending line, the stderr tail) instead of
a table. After the case it replays ``dsh_conformance/smoke.jsonl`` (PROTOCOL.md, "Smoke file"), as
the harness guide recommends (docs/harness/index.md). A harness that honestly skips what it cannot
run yet (a stub) speaks the protocol: that is "protocol ok, case skipped", not a failure.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any, Final, TextIO

from ..cases import all_cases
from ..harness.protocol import CAPABILITIES, DEFAULT_TIMEOUT, Handshake, ProtocolError
from ..harness.transport import UNLOADABLE, Implementation, load_implementation
from ..judge.jsontext import dumps
from .execute import case_problems, failure_message, format_context
from .exits import FOUND, OK, UNUSABLE
from .options import seconds, see

Json = Any


def main(argv: list[str], out: TextIO | None = None) -> int:
    args = _parser(
        "dsh-conformance smoke",
        "Start one implementation, check its handshake, run one small case, replay the smoke file.",
    ).parse_args(argv)
    return smoke(args.impl, args.case_timeout, out or sys.stdout)


def info(argv: list[str], out: TextIO | None = None) -> int:
    """``dsh-conformance info --impl SPEC [--json]``: the handshake alone, no case run."""
    parser = _parser(
        "dsh-conformance info",
        "Start one implementation and print its handshake (name, version, language, "
        "capabilities) without running a case.",
    )
    parser.add_argument("--json", action="store_true", help="print the handshake as JSON")
    args = parser.parse_args(argv)
    out = out or sys.stdout
    started = _start(args.impl, args.case_timeout, out, as_json=args.json)
    if isinstance(started, int):
        return started
    impl, handshake = started
    impl.close()
    if args.json:
        described = {
            "name": handshake.name,
            "version": handshake.version,
            "language": handshake.language,
            "capabilities": sorted(handshake.capabilities),
            "unknownCapabilities": sorted(handshake.capabilities - set(CAPABILITIES)),
        }
        out.write(dumps(described, indent=2) + "\n")
        return OK
    out.write(f"name: {handshake.name}\nversion: {handshake.version}\n")
    out.write(f"language: {handshake.language or '(not given)'}\n")
    for capability in CAPABILITIES:
        mark = "yes" if capability in handshake.capabilities else "no"
        out.write(f"capability {capability}: {mark}\n")
    for unknown in sorted(handshake.capabilities - set(CAPABILITIES)):
        out.write(f"capability {unknown}: declared, unknown to this suite (ignored)\n")
    return OK


def _parser(prog: str, description: str) -> argparse.ArgumentParser:
    epilog = f"Documentation: {see('Writing a harness', 'harness/index.md')}."
    parser = argparse.ArgumentParser(prog=prog, description=description, epilog=epilog)
    parser.add_argument("--impl", default="reference", metavar="SPEC", help="as for the suite")
    parser.add_argument("--case-timeout", type=seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS")
    return parser


def _start(
    spec: str, timeout: float, out: TextIO, as_json: bool = False
) -> tuple[Implementation, Handshake] | int:
    """The implementation, started, and its handshake; else the exit status, said why: 2 when
    ``spec`` names nothing that can be loaded, 1 when the handshake fails (``as_json``: said as
    JSON, ``{"handshake": null, "error", "context"}``, as ``info --json`` promises JSON)."""
    try:
        impl = load_implementation(spec, timeout=timeout)
    except UNLOADABLE as error:
        sys.stderr.write(f"cannot load {spec!r}: {error}\n")
        return UNUSABLE
    if not as_json:
        out.write(f"starting {impl.label}\n")
    try:
        return impl, impl.handshake()
    except ProtocolError as error:
        context = getattr(error, "context", None)
        impl.close()
        if as_json:
            failed = {"handshake": None, "error": f"handshake failed: {error}", "context": context}
            out.write(dumps(failed, indent=2) + "\n")
            return FOUND
        out.write(f"FAILED: handshake: {error}\n")
        if context:
            out.write(format_context(context) + "\n")
        return FOUND


def smoke(spec: str, timeout: float, out: TextIO) -> int:
    """0 if ``spec`` starts, answers the handshake, passes (or honestly skips) the smallest case
    it can run, and gives the smoke file's replies."""
    started = _start(spec, timeout, out)
    if isinstance(started, int):
        return started
    impl, handshake = started
    try:
        out.write(f"handshake: {handshake.describe()}\n")
        runnable = [c for c in all_cases() if set(c.requires) <= handshake.capabilities]
        if not runnable:
            out.write("FAILED: it declares none of the capabilities the cases need\n")
            return FOUND
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
            return FOUND
        if outcome.kind == "skipped":
            out.write(f"protocol ok, case skipped: {outcome.reason}\n")
        else:
            out.write(f"observed: {dumps(outcome.observations)}\n")
            problems = case_problems(case, outcome.observations)
            if problems:
                message = failure_message(case, outcome.observations, problems)
                out.write(f"FAILED: {message}\n")
                return FOUND
        if not replay(impl, handshake.capabilities, out):
            return FOUND
        out.write(
            "ok: the implementation speaks the protocol; for the rest, run: "
            f"dsh-conformance --impl {shlex.quote(spec)}\n"
        )
        return OK
    finally:
        impl.close()


def replay(impl: Implementation, capabilities: frozenset[str], out: TextIO) -> bool:
    """Send the smoke file's ``run`` lines (those whose capabilities ``impl`` declares) and
    compare each reply with its ``expect``; whether none differed. A skipped line is reported
    as such, and is no failure."""
    lines = smoke_lines()
    out.write(f"replaying {SMOKE_FILE.name} ({len(lines)} lines)\n")
    for line in lines:
        sent = line["send"]
        if sent["type"] != "run":
            continue  # the handshake was done above; stop is the transport's business
        if not set(line.get("requires", ())) <= capabilities:
            out.write(f"  {sent['case']}: not applicable (needs {', '.join(line['requires'])})\n")
            continue
        outcome = impl.run(sent["case"], sent["scenario"])
        reply: Json = {"type": outcome.kind, "case": sent["case"]}
        if outcome.kind == "observed":
            reply["observations"] = outcome.observations
        if outcome.kind == "skipped":
            out.write(f"  {sent['case']}: protocol ok, case skipped: {outcome.reason}\n")
        elif reply_matches(line["expect"], reply):
            out.write(f"  {sent['case']}: ok\n")
        else:
            out.write(f"FAILED: {sent['case']}: expected {dumps(line['expect'])}\n")
            out.write(f"got {outcome.kind}: {dumps(outcome.observations or outcome.reason)}\n")
            if outcome.context is not None:
                out.write(format_context(outcome.context) + "\n")
            return False
    return True


#: PROTOCOL.md's smoke file, shipped inside the package.
SMOKE_FILE: Final = Path(__file__).parents[1] / "smoke.jsonl"


def smoke_lines() -> list[Json]:
    """The smoke file's lines, as JSON values."""
    text = SMOKE_FILE.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def reply_matches(expect: Json, reply: Json) -> bool:
    """PROTOCOL.md's rule: every key of ``expect`` with an equal value; no ERROR ``message``."""
    if expect is None or reply is None:
        return expect is reply
    return all(_without_messages(reply.get(key)) == value for key, value in expect.items())


def _without_messages(value: Json) -> Json:
    if isinstance(value, dict):
        error = value.get("error")
        if isinstance(error, dict):
            value = {**value, "error": {k: v for k, v in error.items() if k != "message"}}
        return {key: _without_messages(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_messages(item) for item in value]
    return value
