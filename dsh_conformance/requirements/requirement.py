"""One requirement: a single checkable rule of a contract, and what checks it.

A requirement restates one rule of CONTRACTS.md in the project's own words (``text``), names the
section it comes from and quotes it (``quote``: the contract's own words, fragments joined by
`` … ``), and says what checks it: example cases by id (``cases``, run by `CASE_TESTS`) and other
tests of the suite by the name the report uses (``tests``: ``test_name`` for every parameter of a
test, ``test_name[param]`` for one). A rule that cannot be checked through the protocol has no
checks and says why in ``unchecked``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

#: The suite's tests that run one example case per parameter: ``test_example[<case id>]`` (the
#: cases of `dsh_conformance.cases`) and ``test_deepseek_http[<case id>]`` (the HTTP cases).
EXAMPLE_TEST: Final = "test_example"
CASE_TESTS: Final = (EXAMPLE_TEST, "test_deepseek_http")

_ID: Final = re.compile(r"^(?P<contract>[A-Z][A-Z0-9-]*)\.(?P<number>[1-9][0-9]*)$")


@dataclass(frozen=True)
class Requirement:
    id: str
    text: str
    section: str
    quote: str
    cases: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    unchecked: str = ""

    def __post_init__(self) -> None:
        if _ID.match(self.id) is None:
            raise ValueError(f"requirement {self.id!r}: an id is CONTRACT-ID.<number>")
        if not (self.text and self.section and self.quote):
            raise ValueError(f"requirement {self.id}: text, section and quote are all needed")
        if self.unchecked and (self.cases or self.tests):
            raise ValueError(f"requirement {self.id}: checked, yet it says why it is unchecked")

    @property
    def contract(self) -> str:
        return self.id.rsplit(".", 1)[0]

    @property
    def number(self) -> int:
        return int(self.id.rsplit(".", 1)[1])

    @property
    def source(self) -> str:
        """Where CONTRACTS.md says it, as the reports show it: section, then the quoted words."""
        return f'CONTRACTS.md, "{self.section}": "{self.quote}"'

    @property
    def checked(self) -> bool:
        return bool(self.cases or self.tests)

    def as_json(self, checks: bool) -> dict[str, Any]:
        """The requirement as ``--list --json`` (``checks``: with its cases and tests) and the
        JSON report show it; ``unchecked`` only when it says why nothing checks it."""
        entry: dict[str, Any] = {
            "contract": self.contract,
            "text": self.text,
            "source": self.source,
        }
        if checks:
            entry |= {"cases": list(self.cases), "tests": list(self.tests)}
        if self.unchecked:
            entry["unchecked"] = self.unchecked
        return entry


def split_test_key(key: str) -> tuple[str, str | None]:
    """A report's test key, ``name`` or ``name[param]``, as ``(name, param)``."""
    name, bracket, rest = key.partition("[")
    return (name, rest[:-1]) if bracket and rest.endswith("]") else (key, None)
