"""The suite's command-line options, in one table: pytest's and ``dsh-conformance --help``'s.

Kept apart from `dsh_conformance.run.plugin` and the transports so that the CLI can show its help
(and ``smoke`` parse its timeout) with nothing but the standard library.
"""

from __future__ import annotations

import argparse
import math
from typing import Any, Final

from ..harness.protocol import DEFAULT_TIMEOUT


def see(title: str, page: str) -> str:
    """A documentation page, as help and errors name it: its title, and its file under ``docs/``
    (a checkout has it; ``mkdocs build`` makes the site from it)."""
    return f"'{title}' (docs/{page})"


def seconds(text: str) -> float:
    """``--case-timeout``, ``--start-timeout``: a positive, finite number of seconds (``nan``
    would never expire)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive, finite number of seconds")
    return value


def count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number, 1 or more")
    return int(text)


#: The suite's options, one table for pytest (`dsh_conformance.run.plugin`) and for
#: ``dsh-conformance --help`` (`dsh_conformance.run.runner`), which lists them before pytest's own.
OPTIONS: Final[tuple[tuple[str, dict[str, Any]], ...]] = (
    (
        "--impl",
        {
            "action": "append",
            "default": [],
            "metavar": "SPEC",
            "help": "implementation under test: 'reference', 'module:attr', or a command line "
            "speaking dsh_conformance/PROTOCOL.md on stdin/stdout (repeatable: a comparison)",
        },
    ),
    (
        "--case-timeout",
        {
            "type": seconds,
            "default": DEFAULT_TIMEOUT,
            "metavar": "SECONDS",
            "help": f"longest time one case may take (default {DEFAULT_TIMEOUT:g})",
        },
    ),
    (
        "--start-timeout",
        {
            "type": seconds,
            "default": None,
            "metavar": "SECONDS",
            "help": "longest time an implementation may take to start and answer 'start' "
            "(default: the case timeout)",
        },
    ),
    (
        "--contract",
        {
            "action": "append",
            "default": [],
            "metavar": "ID",
            "help": "run only conformance tests tagged with this contract ID (repeatable)",
        },
    ),
    (
        "--case",
        {
            "action": "append",
            "default": [],
            "metavar": "GLOB",
            "help": "run only the example cases whose id matches this glob, e.g. 'loop/*' "
            "(repeatable; the other tests are deselected)",
        },
    ),
    (
        "--skip-case",
        {
            "action": "append",
            "default": [],
            "metavar": "GLOB",
            "help": "leave out the example cases whose id matches this glob (repeatable)",
        },
    ),
    (
        "--max-errors",
        {
            "type": count,
            "metavar": "N",
            "help": "stop sending cases to an implementation after N errored tests (under "
            "pytest-xdist: N in each worker, which has a harness process of its own)",
        },
    ),
    (
        "--fail-on-skip",
        {
            "action": "store_true",
            "help": "fail the run if a selected test did not run (skipped, not applicable, "
            "not reached, the live test not run)",
        },
    ),
    (
        "--live",
        {
            "action": "store_true",
            "help": "also run the live PROMPT-CACHE-E2E test against the real DeepSeek API "
            "(needs DEEPSEEK_API_KEY; a few short paid requests; never in CI)",
        },
    ),
    ("--conformance-json", {"metavar": "PATH", "help": "write the report as JSON"}),
    (
        "--expected-failures",
        {
            "metavar": "PATH",
            "help": "baseline of tests expected to fail (one per line); a listed test that "
            "passes fails the run",
        },
    ),
    (
        "--write-expected-failures",
        {
            "metavar": "PATH",
            "help": "write the tests that failed or errored as a baseline; with several --impl, "
            "PATH must contain {impl} (replaced by each label, made file-name safe)",
        },
    ),
)
