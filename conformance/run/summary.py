"""``dsh-conformance summary REPORT.json…``: several runs side by side, to publish or to read.

The reports are merged (`conformance.run.merged`) and written in the form their reader needs:

- ``markdown``: per contract, each implementation's verdict and counts, then where the
  implementations disagree: a pull-request comment (`conformance.run.markdown`);
- ``html``: one self-contained page (`conformance.run.page`): contracts, requirements and cases
  down the side, implementations across, each failing cell opening what the terminal shows;
- ``json``: the merged report itself, in the report's own format, which ``summary`` reads again.

A report that cannot be read, or that does not match the others, stops the command with one line
on standard error before anything is written.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Final

from .markdown import markdown
from .merged import SummaryError, load
from .page import page

FORMATS: Final = ("markdown", "html", "json")


def main(argv: list[str]) -> int:
    """``summary REPORT.json… [--format markdown|html|json] [-o PATH]``; 0, or 2 on an error."""
    parser = argparse.ArgumentParser(
        prog="dsh-conformance summary",
        description="Merge JSON reports (--conformance-json) into one comparison.",
    )
    parser.add_argument("reports", nargs="+", metavar="REPORT.json")
    parser.add_argument("--format", choices=FORMATS, default="markdown")
    parser.add_argument("-o", "--output", metavar="PATH", help="write here (default: stdout)")
    args = parser.parse_args(argv)
    try:
        summary = load(args.reports)
        if args.format == "html":
            text = page(summary, command=["dsh-conformance", "summary", *argv])
        else:
            text = markdown(summary) if args.format == "markdown" else summary.to_json()
        if args.output is None:
            sys.stdout.write(text)
        else:
            _write_whole(Path(args.output), text)
    except SummaryError as error:
        print(f"dsh-conformance summary: {error}", file=sys.stderr)
        return 2
    return 0


def _write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` all at once: a reader never sees half a page, and a failed
    write leaves nothing behind."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        try:
            with temporary.open("x", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temporary, path)
        except OSError:
            temporary.unlink(missing_ok=True)
            raise
    except OSError as error:
        raise SummaryError(f"{path}: cannot write it ({error.strerror or error})") from None
