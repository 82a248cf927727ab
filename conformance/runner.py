"""``dsh-conformance``: run the suite against an implementation and print the report.

It drives pytest over the installed `conformance` package, so every pytest option works too
(``dsh-conformance --impl "node harness.js" -x``). The exit status is pytest's: 0 when every
case conforms.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_PACKAGE = Path(__file__).parent


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["check-log"]:
        from . import check_log

        return check_log.main(args[1:])
    if not any(arg == "--impl" or arg.startswith("--impl=") for arg in args):
        args += ["--impl", "reference"]
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
                "dsh_conformance",
                "-p",
                "no:cacheprovider",
                # This module is imported before pytest starts, so pytest cannot rewrite the
                # package's asserts; the suite does not rely on assert rewriting.
                "-W",
                "ignore::pytest.PytestAssertRewriteWarning",
                "-q",
                "--tb=short",
                *args,
            ]
        )
    )


if __name__ == "__main__":
    sys.exit(main())
