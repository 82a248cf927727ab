"""Plausible wrong implementations: the reference model with exactly one behaviour changed.

Each is a `reference.harness.Driver` subclass the suite must reject under one contract ID
(`WRONG_IMPLEMENTATIONS` says which). Some replace a module-level function of the reference when
the driver is created, for the life of the process, so these drivers are only ever loaded into a
throwaway process (``tests/gallery/test_gallery.py`` runs ``dsh-conformance`` once per driver).

They live in one module per contract family (`prompt`, `session`, `loop`, `deepseek`); each
module lists its own in `WRONG_IMPLEMENTATIONS` and `INTENDED_FAILURES`, merged here, and a
driver loads by its name alone (``--impl wrong_impls:Name``) whichever module holds it.
"""

from __future__ import annotations

from typing import Final

from reference.harness import Driver

from . import deepseek, loop, prompt, session

FAMILIES: Final = (prompt, session, loop, deepseek)

#: Every wrong implementation's name and the contract ID it must fail.
WRONG_IMPLEMENTATIONS: Final[dict[str, str]] = {
    name: contract for family in FAMILIES for name, contract in family.WRONG_IMPLEMENTATIONS.items()
}

#: The cases and tests (ids as in the JSON report's results) that must be the only ones a wrong
#: implementation fails under its contract ID: one rejected by an unrelated case shows a case that
#: checks two rules at once. Every wrong implementation added since the accuracy round has an entry.
INTENDED_FAILURES: Final[dict[str, tuple[str, ...]]] = {
    name: tests for family in FAMILIES for name, tests in family.INTENDED_FAILURES.items()
}


def __getattr__(name: str) -> type[Driver]:
    """``wrong_impls.Name`` (and ``--impl wrong_impls:Name``) finds a driver in its family."""
    for family in FAMILIES:
        if name in family.WRONG_IMPLEMENTATIONS:
            driver: type[Driver] = getattr(family, name)
            return driver
    raise AttributeError(f"no wrong implementation named {name!r} in wrong_impls")
