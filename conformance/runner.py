"""``dsh-conformance``: run the suite against an implementation and print the report.

It drives pytest over the installed `conformance` package with the suite's own configuration and
plugin (``-p conformance.plugin``), so pytest options work too (``dsh-conformance --impl "node
harness.js" -x``). The exit status is pytest's: 0 when every case conforms.

Subcommands (the first argument) live in `SUBCOMMANDS`: each maps a name to a function taking the
remaining arguments and returning the exit status. Without one, the suite runs.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

_PACKAGE: Final = Path(__file__).parent
_MISSING_EXTRA: Final = (
    "dsh-conformance: {missing} is not installed. The suite needs the 'conformance' extra:\n"
    "    pip install 'dsh-prompt-conformance[conformance]'\n"
)

Subcommand = Callable[[list[str]], int]


def _subcommand(module: str, function: str = "main") -> Subcommand:
    """A subcommand implemented by ``conformance.<module>.<function>``, imported when used."""

    def run(argv: list[str]) -> int:
        command: Subcommand = getattr(importlib.import_module(f"conformance.{module}"), function)
        return command(argv)

    return run


#: ``dsh-conformance NAME ARGS…``. A subcommand of another module plugs in with one line here.
SUBCOMMANDS: dict[str, Subcommand] = {}
if importlib.util.find_spec("conformance.check_log") is not None:
    SUBCOMMANDS["check-log"] = _subcommand("check_log")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        return _guarded(lambda: SUBCOMMANDS[args[0]](args[1:]))
    return _guarded(lambda: run_suite(args))


def run_suite(args: list[str]) -> int:
    """Run the suite's tests through pytest with ``args``; pytest's exit status."""
    import pytest

    importlib.import_module("conformance.plugin")  # names a missing dependency before pytest does
    if not any(arg == "--impl" or arg.startswith("--impl=") for arg in args):
        args = [*args, "--impl", "reference"]
    return int(
        pytest.main(
            [
                str(_PACKAGE),
                # The package's own configuration, never that of the directory it is run from.
                "-c",
                str(_PACKAGE / "pytest.ini"),
                "--rootdir",
                str(_PACKAGE.parent),
                "-p",
                "conformance.plugin",
                "-p",
                "no:cacheprovider",
                # This module is imported before pytest starts, so pytest cannot rewrite the
                # package's asserts; the suite does not rely on assert rewriting.
                "-W",
                "ignore::pytest.PytestAssertRewriteWarning",
                "-q",
                *args,
            ]
        )
    )


def _guarded(command: Callable[[], int]) -> int:
    """Run ``command``: a missing extra is named, a closed pipe (``| head``) ends quietly."""
    try:
        status = command()
        sys.stdout.flush()
    except ModuleNotFoundError as error:
        if error.name not in ("pytest", "hypothesis", "jsonschema", "_pytest"):
            raise
        sys.stderr.write(_MISSING_EXTRA.format(missing=error.name))
        return 2
    except BrokenPipeError:
        status = 0
    if _stdout_closed():
        # Python would complain about the closed pipe at exit; the reader has gone, so go quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return status


def _stdout_closed() -> bool:
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        return True
    return False


if __name__ == "__main__":
    sys.exit(main())
