"""Plausible wrong implementations: the reference model with exactly one behaviour changed.

Each is a `dsh_reference.harness.Driver` subclass the suite must reject under one contract ID
(`WRONG_IMPLEMENTATIONS` says which). Some replace a module-level function of the reference when
the driver is created, for the life of the process, so these drivers are only ever loaded into a
throwaway process (``tests/gallery/test_gallery.py`` runs ``dsh-conformance`` once per driver).

They live in one module per contract family (`prompt`, `session`, `loop`, `deepseek`), read as
a table of departures: each entry is its name, the decorator `base.wrong` with its contract ID and
intended failures, its docstring, and its departure (most often one reference function changed
through `base.patched`). `WRONG_IMPLEMENTATIONS` and `INTENDED_FAILURES` are drawn from that
table, and a driver loads by its name alone (``--impl wrong_impls:Name``) whichever module holds
it.
"""

from __future__ import annotations

from typing import Final

from dsh_reference.harness import Driver

from . import deepseek, loop, prompt, session
from .base import GALLERY

#: The family modules, each filing its entries in `GALLERY` as it is imported.
FAMILIES: Final = (prompt, session, loop, deepseek)

#: Every wrong implementation's name and the contract ID it must fail.
WRONG_IMPLEMENTATIONS: Final[dict[str, str]] = {
    name: entry.contract for name, entry in GALLERY.items()
}

#: The cases and tests (ids as in the JSON report's results) that must be the only ones a wrong
#: implementation fails under its contract ID: one rejected by an unrelated case shows a case that
#: checks two rules at once. Every wrong implementation has an entry but `RebuiltMessages`, whose
#: runs judge whole loop contracts (`gallery_runs.ALSO_RUN`).
INTENDED_FAILURES: Final[dict[str, tuple[str, ...]]] = {
    name: entry.fails for name, entry in GALLERY.items() if entry.fails
}


def __getattr__(name: str) -> type[Driver]:
    """``wrong_impls.Name`` (and ``--impl wrong_impls:Name``) finds a driver in its family."""
    if name in GALLERY:
        return GALLERY[name].driver
    raise AttributeError(f"no wrong implementation named {name!r} in wrong_impls")
