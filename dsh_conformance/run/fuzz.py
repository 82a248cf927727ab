"""``dsh-conformance fuzz``: generated scenarios until the first divergence, shrunk and written out.

    dsh-conformance fuzz --impl SPEC [--against reference] [--budget SECONDS] [--seed N]
                         [--database PATH | none] [--out DIR] [--family NAME]...
                         [--shrink-examples N] [--shrink-budget SECONDS]
                         [--expected-failures PATH] [--known CONTRACT[:RULE]]...

Runs scenarios of `dsh_conformance.fuzz.generate` through any transport, judged by the two oracles
of `dsh_conformance.fuzz.oracles`; at the first divergence Hypothesis shrinks it, and the smallest
scenario is printed and written as ``DIR/<id>.py`` (a draft case in the form of
`dsh_conformance.cases`; for the ``http`` family, an `HttpCase` in the form of
`dsh_conformance.deepseek.http_rules`) and ``DIR/<id>.json`` (the format of ``export-cases``, which
cannot express an ``http`` case: none is written for one, and its ``.py`` says why), then
replayed as written with the suite's own comparison (answers checked against the protocol
schema again) on both implementations. The exit status is 0 when nothing diverged, 1 when
something did, 2 for bad arguments, an implementation that cannot be loaded or start, or a
``DIR`` that cannot be written.

Regression gating: ``--impl NEW --against OLD`` compares two versions of one implementation; a
command spec's ``-C DIR`` and ``NAME=VALUE`` words
(`dsh_conformance.harness.transport.parse_command`) run one harness program from two checkouts.
Known divergences (`KNOWN_HELP`) do not stop the search: a divergence they explain counts as passed,
the run goes on to the first one they do not, and shrinking keeps it unexplained.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

from hypothesis.configuration import set_hypothesis_home_dir

from ..fuzz.engine import Run, database_at, default_database, families_for, fuzz
from ..fuzz.found import (
    NOT_EXPORTED,
    as_case,
    http_case,
    http_source,
    python_source,
    reduced,
    replayed,
)
from ..fuzz.generate import FAMILIES
from ..fuzz.known import Known, explainer, parse_known
from ..harness.protocol import DEFAULT_TIMEOUT, ProtocolError
from ..harness.transport import UNLOADABLE, Implementation, in_process, load_implementation
from ..judge.case import Case
from ..judge.jsontext import dumps
from ..requirements import EXAMPLE_TEST
from ..requirements.requirement import split_test_key
from .baseline import BaselineFile
from .catalog import cases, exported_case, file_name, other_tests, properties
from .exits import FOUND, OK, UNUSABLE
from .files import write_whole
from .options import seconds, see

#: How a divergence is matched with the known ones (the command's ``--help`` says it).
KNOWN_HELP: Final = (
    "Known divergences: --known CONTRACT or CONTRACT:RULE, and each test an --expected-failures "
    "file lists (the format of the main run's option), which stands for the contract IDs that "
    "test checks (an example case's own). A divergence is explained, and the search goes on, "
    "when every contract ID its case would be filed under has an entry of that ID whose RULE, "
    "if given, is text of one of its problem lines (an error kind such as "
    "session-legacy-header, a field such as reasoningEffort, an op such as session-seed); one "
    "that also breaks an unlisted contract is reported. Shrinking and the one-op deletions "
    "after it keep the divergence unexplained."
)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="dsh-conformance fuzz",
        description="Run generated scenarios on an implementation, judged by the suite's own "
        "checks and against another implementation; stop at the first divergence, shrink it, "
        "and write it as a draft case.",
        epilog=f"{KNOWN_HELP} Documentation: {see('Generated scenarios', 'guide/fuzz.md')}.",
    )
    parser.add_argument(
        "--impl",
        required=True,
        metavar="SPEC",
        help="the implementation: 'reference', module:attr, or a command line, which may start "
        "with -C DIR (run in DIR) and NAME=VALUE words (its environment)",
    )
    parser.add_argument(
        "--against",
        default="reference",
        metavar="SPEC",
        help="compared with (default: reference); the previous version of the same "
        "implementation is the strongest check (regression gating): e.g. --impl 'python -m h' "
        "--against '-C ../old python -m h'",
    )
    parser.add_argument(
        "--budget", type=seconds, default=60.0, metavar="SECONDS", help="default: 60"
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="N", help="the same seed, the same scenarios"
    )
    parser.add_argument(
        "--examples",
        type=_count(1),
        default=None,
        metavar="N",
        help="also stop after N scenarios (a budget that does not depend on the machine)",
    )
    parser.add_argument(
        "--database",
        metavar="PATH",
        help=f"found examples, replayed first; 'none' for none (default: {default_database()})",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("fuzz-found"),
        metavar="DIR",
        help="where the found case is written (default: fuzz-found)",
    )
    parser.add_argument(
        "--family", action="append", choices=FAMILIES, default=[], help="repeatable; default: all"
    )
    parser.add_argument(
        "--shrink-examples",
        type=_count(0),
        default=1000,
        metavar="N",
        help="scenarios judged while shrinking, at most (default: 1000; the same on any machine)",
    )
    parser.add_argument(
        "--shrink-budget",
        type=seconds,
        default=60.0,
        metavar="SECONDS",
        help="seconds spent shrinking, at most (default: 60)",
    )
    parser.add_argument("--case-timeout", type=seconds, default=DEFAULT_TIMEOUT, metavar="S")
    parser.add_argument(
        "--expected-failures",
        metavar="PATH",
        help="the implementation's baseline of tests expected to fail (the main run's format): "
        "divergences of the contracts those tests check do not stop the search (see below)",
    )
    parser.add_argument(
        "--known",
        action="append",
        default=[],
        metavar="CONTRACT[:RULE]",
        help="a known divergence, repeatable: it does not stop the search (see below)",
    )
    args = parser.parse_args(argv)
    database = Path(args.database) if args.database not in (None, "none") else None
    if database is not None and database.exists() and not database.is_dir():
        # Hypothesis would store nothing in a file, and say nothing.
        parser.error(
            f"--database {args.database}: not a directory (found examples are kept in a "
            "directory, one file each)"
        )
    try:
        known = [parse_known(text, f"--known {text!r}") for text in args.known]
        if args.expected_failures:
            known += baseline_known(args.expected_failures)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    existing = next(path for path in (args.out, *args.out.parents) if path.exists())
    if not existing.is_dir():
        parser.error(f"--out {args.out}: {existing} is not a directory")
    # Two Python drivers in this process would share its modules, and a driver that patches one
    # (a gallery entry does) would change the other too, hiding the very divergence sought: each
    # then runs in a process of its own, as `dsh-conformance` runs several.
    isolated = in_process(args.impl) and in_process(args.against)
    impl = _loaded(parser, "--impl", args.impl, args.case_timeout, isolated)
    try:
        against = _loaded(parser, "--against", args.against, args.case_timeout, isolated)
    except SystemExit:
        impl.close()
        raise
    try:
        return _fuzz(args, impl, against, known)
    finally:
        impl.close()
        against.close()


def _loaded(
    parser: argparse.ArgumentParser, option: str, spec: str, timeout: float, isolated: bool
) -> Implementation:
    """The implementation ``spec`` names; one that cannot be loaded (no such program, module or
    object) is a usage error naming the option, before anything runs (exit status 2)."""
    try:
        return load_implementation(spec, timeout, isolated=isolated)
    except UNLOADABLE as error:
        parser.error(f"{option} {spec!r}: {error}")


def baseline_known(path: str) -> list[Known]:
    """The known divergences an expected-failures file stands for: for each test it lists, the
    contract IDs that test checks (an example case's own contracts; another test's marks). A
    key that names no test of the suite is a `ValueError` naming its line; an unreadable file,
    the `OSError`."""
    try:
        keys = BaselineFile.read(path).lines
    except OSError as error:
        raise OSError(
            f"--expected-failures: cannot read {path}: {error.strerror or error}"
        ) from None
    by_case = {case.id: case.contracts for case in cases()}
    by_test = {test["test"]: tuple(test["contracts"]) for test in (*properties(), *other_tests())}
    known = []
    for key, line in keys.items():
        name, param = split_test_key(key)
        contracts = by_case.get(param or "") if name == EXAMPLE_TEST else by_test.get(name)
        if contracts is None:
            raise ValueError(f"--expected-failures {path}, line {line}: {key!r} names no test")
        known += [parse_known(contract, f"{path}, line {line} ({key})") for contract in contracts]
    return known


def _fuzz(
    args: argparse.Namespace, impl: Implementation, against: Implementation, known: list[Known]
) -> int:
    declared = []
    for side in (impl, against):
        try:
            declared.append(frozenset(side.handshake().capabilities))
        except ProtocolError as error:
            stderr = getattr(error, "context", {}).get("stderr", "").strip()
            said = f" ({stderr.splitlines()[-1]})" if stderr else ""
            sys.stderr.write(
                f"dsh-conformance fuzz: {side.label}: the handshake failed: {error}{said}\n"
            )
            return UNUSABLE
    families = tuple(f for f in families_for(*declared) if not args.family or f in args.family)
    if not families:
        sys.stderr.write("dsh-conformance fuzz: no scenario family both implementations run\n")
        return UNUSABLE
    if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        # Hypothesis's own caches (the constants of the code it runs) would go to `.hypothesis`
        # in the working directory: the suite's cache directory instead.
        set_hypothesis_home_dir(default_database().parent / "hypothesis")
    for side in (impl, against):
        side.check_schema = False
    explains = explainer(known) if known else None
    run = fuzz(
        impl,
        against,
        budget=args.budget,
        seed_value=args.seed,
        database=database_at(args.database),
        families=families,
        shrink_budget=args.shrink_budget,
        shrink_examples=args.shrink_examples,
        examples=math.inf if args.examples is None else args.examples,
        explains=explains,
    )
    if run.shrunk is not None:
        run.shrunk = reduced(run.shrunk, impl, against, explains)
    for side in (impl, against):
        side.check_schema = True
    _summary(run, impl.label, against.label, known)
    if run.shrunk is None:
        return OK
    case = as_case(run.shrunk, impl=impl.label, against=against.label, seed=args.seed)
    family = run.shrunk.family
    stem = args.out / file_name(case.id)
    if family == "http":
        source = http_source(http_case(case))
        files = {stem.with_suffix(".py"): source}
    else:
        source = python_source(case)
        exported = dumps(exported_case(case), indent=2) + "\n"
        files = {stem.with_suffix(".py"): source, stem.with_suffix(".json"): exported}
    out = sys.stdout.write
    out(f"\n{source}\n")
    out(f"contracts: {', '.join(case.contracts)}\n")
    out("what differs:\n" + "".join(f"  - {p}\n" for p in run.shrunk.problems()))
    fails, passes = _replay(impl, case, family), _replay(against, case, family)
    out(
        f"replayed with the suite's comparison: {impl.label}: "
        f"{'fails' if fails else 'passes (not reproducible)'}; {against.label}: "
        f"{'passes' if not passes else 'fails: ' + passes[0]}\n"
    )
    try:
        _write(files)
    except OSError as error:
        reason = error.strerror or str(error)
        sys.stderr.write(f"dsh-conformance fuzz: cannot write the case to {args.out}: {reason}\n")
        return UNUSABLE
    out(f"written: {' and '.join(str(path) for path in files)}\n")
    if family == "http":
        out(f"{NOT_EXPORTED}\n")
    return FOUND


def _write(files: dict[Path, str]) -> None:
    """Write every file or none: a case without its export (or the reverse) is not left behind
    when the second cannot be written."""
    written: list[Path] = []
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            write_whole(path, text)
            written.append(path)
    except BaseException:  # an OSError, or Ctrl-C between the two files
        for path in written:
            path.unlink(missing_ok=True)
        raise


def _replay(impl: Implementation, case: Case, family: str) -> list[str]:
    """What the case finds wrong with ``impl`` (`replayed`); an outcome that is not observed is
    one line naming it."""
    outcome, found = replayed(impl, case, family)
    return found if outcome.kind == "observed" else [f"{outcome.kind}: {outcome.reason}"]


def _summary(run: Run, impl: str, against: str, known: list[Known]) -> None:
    judged = run.examples - run.discarded
    rate = judged / run.seconds if run.seconds else 0.0
    sys.stdout.write(
        f"fuzz {impl} against {against} ({', '.join(run.families)}): {judged} scenarios judged "
        f"({run.discarded} discarded: {against} could not run them) in {run.seconds:.1f} s, "
        f"{rate:.1f}/s\n"
    )
    if known:
        listed = sorted({k.contract if k.rule is None else f"{k.contract}:{k.rule}" for k in known})
        sys.stdout.write(
            f"known divergences ({', '.join(listed)}): {run.explained} scenarios before the "
            "first unknown divergence diverged only in known ways\n"
        )
    if run.first is None or run.shrunk is None:
        sys.stdout.write("no divergence\n")
        return
    sys.stdout.write(
        f"first divergence after {run.first_seconds:.2f} s and {run.first_examples} scenarios "
        f"({len(run.first.ops)} ops), "
        f"shrunk to {len(run.shrunk.ops)} ops\n"
    )


def _count(least: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``least`` (``--examples 0`` would judge nothing
    and report no divergence, a run that cannot fail)."""

    def count(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer of at least {least}")
        return value

    return count
