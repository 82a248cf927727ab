"""``dsh-conformance``: run the suite against an implementation and print the report.

It drives pytest over the installed `conformance` package with the suite's own configuration and
plugin (``-p dsh_conformance.run.plugin``), so pytest options work too (``dsh-conformance --impl
"node harness.js" -x``). The exit status is pytest's: 0 when every case conforms.

Subcommands (the first argument) live in `SUBCOMMANDS`: each maps a name to a function taking the
remaining arguments and returning the exit status. Without one, the suite runs; ``--help``,
``--version`` and ``--list`` are answered without starting pytest.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final, TextIO

from .exits import INTERRUPTED, OK, UNUSABLE

#: The suite's package (``dsh_conformance/``), one level above this one.
_PACKAGE: Final = Path(__file__).parents[1]
_MISSING_EXTRA: Final = (
    "dsh-conformance: {missing} is not installed. The suite needs the 'conformance' extra:\n"
    "    pip install 'dsh-prompt-conformance[conformance]'\n"
)

#: The top-level modules of the `conformance` extra (pyproject.toml): one of them missing is
#: named as the extra, whichever command needed it (issue 37: info, smoke and check-log need
#: jsonschema-rs through the protocol's checks).
_EXTRA_MODULES: Final = (
    "pytest",
    "_pytest",
    "hypothesis",
    "syrupy",
    "respx",
    "jsonschema",
    "jsonschema_rs",
)

Subcommand = Callable[[list[str]], int]


def _subcommand(module: str, function: str = "main") -> Subcommand:
    """A subcommand implemented by ``dsh_conformance.run.<module>.<function>``, imported when
    used."""

    def run(argv: list[str]) -> int:
        command: Subcommand = getattr(importlib.import_module(f"{__package__}.{module}"), function)
        return command(argv)

    return run


def export_cases(argv: list[str]) -> int:
    """``export-cases DIR [--contract ID]…``: every example case as a JSON file."""
    from ..judge.case import known_contracts
    from .catalog import PROPERTIES_NOTE, export
    from .options import see

    parser = argparse.ArgumentParser(
        prog="dsh-conformance export-cases",
        description="Write every example case as JSON (the run message, the expected "
        "observations with their comparison rules, contract IDs, why), the rules "
        "(COMPARISON.md), the JSON Schemas of the files and a Node runner, for a test runner "
        "in another language.",
        epilog=f"{PROPERTIES_NOTE} Documentation: "
        f"{see('Running the cases in another language', 'export/index.md')}.",
    )
    parser.add_argument("directory", type=Path, metavar="DIR")
    parser.add_argument("--contract", action="append", default=[], metavar="ID")
    parser.add_argument(
        "--force",
        action="store_true",
        help="write into a directory that is not empty and holds no previous export",
    )
    args = parser.parse_args(argv)
    if not args.force and not _empty_or_exported(args.directory):
        sys.stderr.write(
            f"{parser.prog}: {args.directory} is not empty and holds no previous export "
            "(index.json); give an empty or new directory, or --force to write into it\n"
        )
        return UNUSABLE
    try:
        count = export(args.directory, frozenset(known_contracts(args.contract)))
    except ValueError as error:
        parser.error(f"--contract: {error}")
    except OSError as error:
        reason = error.strerror or str(error)
        sys.stderr.write(f"{parser.prog}: cannot write the cases to {args.directory}: {reason}\n")
        return UNUSABLE
    sys.stdout.write(f"{count} cases written to {args.directory} (index: index.json)\n")
    return OK


def _empty_or_exported(directory: Path) -> bool:
    """Whether ``export-cases`` may write into ``directory`` without ``--force``: it does not
    exist, is empty, or holds a previous export (an ``index.json`` naming its format and cases),
    whose files the export replaces (issue 37, M8). A file there is refused later, by name."""
    if not directory.is_dir() or not any(directory.iterdir()):
        return True
    try:
        index = json.loads((directory / "index.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(index, dict) and "format" in index and "cases" in index


#: ``dsh-conformance NAME ARGS…``. A subcommand of another module plugs in with one line here.
SUBCOMMANDS: dict[str, Subcommand] = {
    "smoke": _subcommand("smoke"),
    "info": _subcommand("smoke", "info"),
    "export-cases": export_cases,
    "check-log": _subcommand("check_log"),
    "summary": _subcommand("summary"),
    "fuzz": _subcommand("fuzz"),
    "run-case": _subcommand("run_case"),
}

_USAGE: Final = """\
usage: dsh-conformance [OPTIONS] [PYTEST OPTIONS]
       dsh-conformance info [--impl SPEC]        the handshake alone: name, version, capabilities
       dsh-conformance smoke [--impl SPEC]       the handshake, one small case, the smoke file
       dsh-conformance export-cases DIR          every example case as JSON, for other runners
       dsh-conformance check-log PATH...         check recorded session logs offline, rule by rule
       dsh-conformance summary REPORT.json...    merge JSON reports: Markdown, an HTML page, JSON
       dsh-conformance summary --compare OLD NEW what changed between two runs; 1 if newly failing
       dsh-conformance fuzz --impl SPEC          generated scenarios until a divergence, shrunk
       dsh-conformance run-case FILE [--impl SPEC]  one exported (or fuzz-written) case file
       dsh-conformance --list [--json]           every case and test of the suite, by contract ID
       dsh-conformance --version | --help | --help-pytest

Runs the conformance suite against implementations (default: --impl reference) and prints a
report by contract ID. The exit status is 0 only if nothing failed or errored.
"""


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        return _guarded(lambda: _interruptible(args[0], args[1:]))
    if "--version" in args:
        sys.stdout.write(f"{version()}\n")
        return OK
    if "-h" in args or "--help" in args:
        return _guarded(print_help)
    if "--help-pytest" in args:
        return _guarded(lambda: run_suite(["--help"]))
    if "--list" in args:
        return _guarded(lambda: list_cases(args))
    return _guarded(lambda: run_suite(args))


def _interruptible(name: str, argv: list[str]) -> int:
    """Subcommand ``name``; Ctrl-C (or a driver raising `KeyboardInterrupt`) is one line and
    exit 2, as in the run, never a traceback and 130 (issue 37). A subcommand writes its files
    whole or not at all, so an interrupt leaves nothing half-written."""
    try:
        return SUBCOMMANDS[name](argv)
    except KeyboardInterrupt:
        sys.stdout.flush()
        sys.stderr.write(f"dsh-conformance {name}: interrupted\n")
        return INTERRUPTED


def version() -> str:
    """The suite's version, the protocol major version it speaks (what ``start`` carries), and
    the capabilities it knows, which say which minor additions it can send."""
    from importlib import metadata

    from ..harness.protocol import CAPABILITIES, PROTOCOL_VERSION

    try:
        suite = metadata.version("dsh-prompt-conformance")
    except metadata.PackageNotFoundError:
        suite = "0+unknown"
    return (
        f"dsh-conformance {suite} (protocol {PROTOCOL_VERSION}; capabilities: "
        f"{', '.join(CAPABILITIES)})"
    )


def print_help() -> int:
    """The suite's own options first; pytest's are one flag away (``--help-pytest``)."""
    from .options import OPTIONS, see

    parser = argparse.ArgumentParser(
        prog="dsh-conformance",
        usage=argparse.SUPPRESS,
        description=_USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(
            (
                "Any pytest option works too (-k, -x, --junitxml PATH, …): see --help-pytest.",
                "",
                "Documentation: every option and exit code in "
                + see("Running the suite", "guide/index.md")
                + ";",
                f"the report in {see('Reading the reports', 'guide/reports.md')}; "
                "a harness of your own in",
                f"{see('Writing a harness', 'harness/index.md')} and dsh_conformance/PROTOCOL.md.",
            )
        ),
        add_help=False,
    )
    group = parser.add_argument_group("options")
    for flag, settings in OPTIONS:
        group.add_argument(flag, **settings)
    group.add_argument("--list", action="store_true", help="list the cases instead of running")
    group.add_argument("--json", action="store_true", help="with --list: as JSON")
    sys.stdout.write(parser.format_help())
    return OK


def list_cases(args: list[str]) -> int:
    """``--list [--json] [--contract ID]… [--case GLOB]… [--skip-case GLOB]…``: what a run with
    these options would run; any other option is refused (issue 37, M7)."""
    from ..judge.case import known_contracts
    from ..judge.jsontext import dumps
    from .catalog import case_ids, listing, render_listing, unmatched_glob

    parser = argparse.ArgumentParser(prog="dsh-conformance --list")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--json", action="store_true")
    for option in ("--contract", "--case", "--skip-case"):
        parser.add_argument(option, action="append", default=[])
    options = parser.parse_args(args)
    try:
        contracts = frozenset(known_contracts(options.contract))
    except ValueError as error:
        sys.stderr.write(f"dsh-conformance --list: --contract: {error}\n")
        return UNUSABLE
    data = listing(contracts)
    glob = unmatched_glob(options.case)
    if glob is not None:
        sys.stderr.write(f"dsh-conformance --list: --case {glob!r} matches no example case\n")
        return UNUSABLE
    if options.case or options.skip_case:

        def chosen(case_id: str) -> bool:
            return (not options.case or _matches(case_id, options.case)) and not _matches(
                case_id, options.skip_case
            )

        data["cases"] = [case for case in data["cases"] if chosen(case["id"])]
        # A test run once per case (the DeepSeek HTTP cases, a loop case's request check) keeps
        # the cases chosen, as a run does; with --case, the tests that run no case are left out.
        ids = case_ids()
        others = []
        for test in data["other"]:
            parameters = test.get("parameters", [])
            if set(parameters) & ids:
                kept = [p for p in parameters if chosen(p)]
                if kept:
                    others.append({**test, "parameters": kept})
            elif not options.case:
                others.append(test)
        data["other"] = others
        if options.case:
            data["properties"] = []
        for contract, counts in data["contracts"].items():
            counts["cases"] = sum(contract in case["checks"] for case in data["cases"])
    text = dumps(data, indent=2) if options.json else None
    sys.stdout.write((text or render_listing(data)) + "\n")
    return OK


def _matches(case_id: str, globs: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(case_id, glob) for glob in globs)


def run_suite(args: list[str]) -> int:
    """Run the suite's tests through pytest with ``args``; pytest's exit status."""
    import pytest

    importlib.import_module(
        "dsh_conformance.run.plugin"
    )  # names a missing dependency before pytest does
    _keep_hypothesis_out_of_the_working_directory()
    if not any(arg == "--impl" or arg.startswith("--impl=") for arg in args):
        args = [*args, "--impl", "reference"]
    held = _HeldUsageErrors(sys.stderr)

    class Accepted:
        """The options were accepted: from here on, standard error passes through."""

        @pytest.hookimpl(tryfirst=True)
        def pytest_configure(self) -> None:
            held.release(usage_error=False)

    sys.stderr = held
    status = int(pytest.ExitCode.INTERNAL_ERROR)
    try:
        status = int(
            pytest.main(
                [
                    str(_PACKAGE),
                    # The package's own configuration (it loads the suite's plugin), never that
                    # of the directory it is run from.
                    "-c",
                    str(_PACKAGE / "pytest.ini"),
                    "--rootdir",
                    str(_PACKAGE.parent),
                    "-p",
                    "no:cacheprovider",
                    # This module is imported before pytest starts, so pytest cannot rewrite the
                    # package's asserts; the suite does not rely on assert rewriting.
                    "-W",
                    "ignore::pytest.PytestAssertRewriteWarning",
                    "-q",
                    *args,
                ],
                plugins=[Accepted()],
            )
        )
    finally:
        sys.stderr = held.real
        held.release(usage_error=status == pytest.ExitCode.USAGE_ERROR)
    return status


class _HeldUsageErrors(io.TextIOBase):
    """Standard error while pytest parses the command line: an option error is shown as the
    suite's own one line, without pytest's usage banner or its ini file and root paths.

    It holds what is written until pytest configures the run (the options were accepted), then
    passes everything through.
    """

    def __init__(self, real: TextIO) -> None:
        self.real = real
        self._held: list[str] | None = []

    def write(self, text: str) -> int:
        if self._held is None:
            return self.real.write(text)
        self._held.append(text)
        return len(text)

    def flush(self) -> None:
        self.real.flush()

    def fileno(self) -> int:
        return self.real.fileno()

    def release(self, usage_error: bool) -> None:
        held, self._held = self._held, None
        if not held:
            return
        text = "".join(held)
        if usage_error:
            text = _usage_error(text)
        self.real.write(text)
        self.real.flush()


def _usage_error(text: str) -> str:
    """pytest's usage error as one line of the suite's, and where to find the options."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    reasons = [
        line.split(": error: ", 1)[1] if ": error: " in line else line.removeprefix("ERROR: ")
        for line in lines
        if not line.startswith(("ERROR: usage:", "usage:", "inifile:", "rootdir:", "config:"))
    ]
    return (
        f"dsh-conformance: error: {'; '.join(reasons) or 'bad command line'}\n"
        "(dsh-conformance --help lists the suite's options; --help-pytest pytest's)\n"
    )


def _keep_hypothesis_out_of_the_working_directory() -> None:
    """Hypothesis keeps its examples and caches in ``./.hypothesis`` by default: the installed CLI
    must leave nothing in the user's directory, so they go to the suite's own cache directory
    (``$XDG_CACHE_HOME/dsh-conformance``, or ``~/.cache/dsh-conformance``)."""
    from hypothesis.configuration import set_hypothesis_home_dir

    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    set_hypothesis_home_dir(Path(cache) / "dsh-conformance" / "hypothesis")


def _guarded(command: Callable[[], int]) -> int:
    """Run ``command``: a missing extra is named, a closed pipe (``| head``) ends quietly."""
    try:
        status = command()
        sys.stdout.flush()
    except ModuleNotFoundError as error:
        missing = (error.name or "").split(".")[0]
        if missing not in _EXTRA_MODULES:
            raise
        sys.stderr.write(_MISSING_EXTRA.format(missing=missing))
        return UNUSABLE
    except BrokenPipeError:
        status = OK
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
