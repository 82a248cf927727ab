"""Conforming variants: the reference model with exactly one choice CONTRACTS.md leaves open taken
the other way.

The gallery of wrong implementations (`wrong_impls`) shows that a wrong implementation never
passes; these show the other half of a right verdict: a conforming implementation never fails, so
no case and no generated scenario depends on a choice the contracts leave open. Each variant is a
`dsh_reference.harness.Driver` subclass like the wrong ones (some patch the reference model for the
life of their process, so they too are only loaded into a process of their own), listed in
`VARIANTS` with the CONTRACTS.md sentence that leaves its choice open, a witness (a short
scenario on which its observations differ from the reference's: the variant is real), and the op
families whose generated scenarios reach the choice (fuzzing there must not tell it apart from
the reference). ``tests/gallery/test_right_impls.py`` checks all three.
"""

from __future__ import annotations

from dsh_reference.harness import Driver

from . import variants
from .variants import VARIANTS, Variant

__all__ = ["VARIANTS", "Variant"]


def __getattr__(name: str) -> type[Driver]:
    """``right_impls.Name`` (and ``--impl right_impls:Name``) finds a variant."""
    if name in VARIANTS:
        driver: type[Driver] = getattr(variants, name)
        return driver
    raise AttributeError(f"no conforming variant named {name!r} in right_impls")
