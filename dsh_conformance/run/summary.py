"""``dsh-conformance summary REPORT.json…``: several runs side by side, to publish or to read.

The reports are merged (`dsh_conformance.run.merged`) and written in the form their reader needs:

- ``markdown``: per contract, each implementation's verdict and counts, then where the
  implementations disagree: a pull-request comment (`dsh_conformance.run.markdown`);
- ``html``: one self-contained page (`dsh_conformance.run.page`): contracts, requirements and cases
  down the side, implementations across, each failing cell opening what the terminal shows;
- ``json``: the merged report itself, in the report's own format, which ``summary`` reads again.

``--label NAME`` (once per implementation, in the order of the reports) chooses what the page and
the Markdown call an implementation; without it, its handshake names it
(`dsh_conformance.run.merged`).
``--compare OLD.json NEW.json`` says what changed between two runs of one implementation
(`dsh_conformance.run.compare`), as Markdown or on the page; its exit status gates CI: 1 when a test
newly fails or errors (unexpected by NEW's baseline), else 0.

A report that cannot be read, or that does not match the others, stops the command with one line
on standard error (exit status 2) before anything is written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

from .compare import compare
from .exits import OK, UNUSABLE
from .files import write_whole
from .markdown import comparison, markdown
from .merged import SummaryError, load
from .options import see
from .page import page

FORMATS: Final = ("markdown", "html", "json")


def main(argv: list[str]) -> int:
    """``summary [--compare] REPORT.json… [--label NAME]… [--format F] [-o PATH]``: 0; with
    ``--compare``, 1 when a test newly fails; 2 on an error."""
    parser = argparse.ArgumentParser(
        prog="dsh-conformance summary",
        description="Merge JSON reports (--conformance-json) into one comparison.",
        epilog="Exit status: 0; with --compare, 1 when NEW fails or errors a test OLD did not "
        "fail (and NEW's baseline does not expect it); 2 when a report cannot be read or merged. "
        f"Documentation: {see('Comparing runs', 'guide/summary.md')}.",
    )
    parser.add_argument("reports", nargs="+", metavar="REPORT.json")
    parser.add_argument("--format", choices=FORMATS, default="markdown")
    parser.add_argument("-o", "--output", metavar="PATH", help="write here (default: stdout)")
    parser.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="NAME",
        help="what to call the next implementation, in the order of the reports (default: its "
        "handshake's name and version, told apart by the report's file name)",
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="OLD.json NEW.json: what changed between two runs of one implementation",
    )
    args = parser.parse_args(argv)
    status = OK
    try:
        if args.compare and len(args.reports) != 2:
            raise SummaryError(f"--compare takes OLD.json NEW.json, not {len(args.reports)}")
        if args.compare and args.format == "json":
            raise SummaryError("--compare writes markdown or html, not json")
        summary = load(args.reports, labels=args.label, one_suite=not args.compare)
        changes = compare(summary) if args.compare else None
        if args.format == "html":
            text = page(summary, ["dsh-conformance", "summary", *argv], changes)
        elif args.format == "json":
            text = summary.to_json()
        else:
            text = markdown(summary) if changes is None else comparison(summary, changes)
        if args.output is None:
            sys.stdout.write(text)
        else:
            _write_whole(Path(args.output), text)
        status = OK if changes is None else changes.gate
    except SummaryError as error:
        print(f"dsh-conformance summary: {error}", file=sys.stderr)
        return UNUSABLE
    return status


def _write_whole(path: Path, text: str) -> None:
    """`write_whole`, its failure one `SummaryError` line."""
    if path.is_dir():
        raise SummaryError(f"{path}: is a directory; give a file name")
    try:
        write_whole(path, text)
    except OSError as error:
        raise SummaryError(f"{path}: cannot write it ({error.strerror or error})") from None
