"""The expected-failures file (``--expected-failures``): tests an implementation is known to fail.

One test key a line, as the report names tests
(``test_example[registry/duplicate-section-same-layer]``), optionally followed by ``# reason``; a
line that starts with ``#`` is a comment, and blank lines are nothing. The main run marks each
listed test and reports its reason (`dsh_conformance.run.plugin`, `dsh_conformance.run.report`);
``dsh-conformance fuzz`` looks past the divergences of the contracts the listed tests check
(`dsh_conformance.run.fuzz`). Both read the file here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class BaselineFile:
    """Each test key the file lists, with the reason its line gives after ``#`` (``""`` when
    none) and the number of the line it is first on; the path as the user gave it."""

    path: str
    reasons: dict[str, str]
    lines: dict[str, int]

    @classmethod
    def parse(cls, path: str, text: str) -> BaselineFile:
        """``KEY`` or ``KEY  # reason`` per line; a line that starts with ``#`` is a comment."""
        reasons: dict[str, str] = {}
        lines: dict[str, int] = {}
        for number, line in enumerate(text.splitlines(), 1):
            key, _, reason = line.partition("#")
            if key.strip():
                reasons[key.strip()] = reason.strip()
                lines.setdefault(key.strip(), number)
        return cls(path, reasons, lines)

    @classmethod
    def read(cls, path: str) -> BaselineFile:
        """The file at ``path``; an unreadable file is the `OSError` reading it raised."""
        return cls.parse(path, Path(path).read_text(encoding="utf-8"))
