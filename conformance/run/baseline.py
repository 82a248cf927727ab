"""The expected-failures file (``--expected-failures``): tests an implementation is known to fail.

One test key a line, as the report names tests
(``test_example[registry/duplicate-section-same-layer]``); ``#`` starts a comment, and blank lines
are nothing. The main run marks each listed test (`conformance.run.plugin`); ``dsh-conformance
fuzz`` looks past the divergences of the contracts the listed tests check
(`conformance.run.fuzz`). Both read the file here.
"""

from __future__ import annotations

from pathlib import Path


def baseline_keys(path: str) -> dict[str, int]:
    """The test keys the file at ``path`` lists, each with the number of the line it is first
    on; an unreadable file is the `OSError` reading it raised."""
    text = Path(path).read_text(encoding="utf-8")
    keys: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        key = line.split("#", 1)[0].strip()
        if key:
            keys.setdefault(key, number)
    return keys
