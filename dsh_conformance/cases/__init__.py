"""The example cases: declarative scenarios with literal expected observations.

Each module holds the cases of one area as a ``CASES`` list. Expected values are worked out by hand
from CONTRACTS.md (each case's ``why`` says from which rule), never copied from an implementation.
Cases are data: they import `judge` (the `Case` type) and `scenarios` (the op builders) only.
"""

from __future__ import annotations

import importlib
import pkgutil

from ..judge.case import Case


def all_cases() -> list[Case]:
    """Every example case, in module then definition order; IDs are checked to be unique."""
    cases: list[Case] = []
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        cases.extend(module.CASES)
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise ValueError(f"duplicate case id {case.id!r}")
        seen.add(case.id)
    return cases
