"""The builder every family's draws share: Hypothesis draws turned into picks, and the ops written.

A `Builder` holds what every family needs: the draw function, the capabilities both
implementations declare (ops of protocol 1.2 and 1.3 are drawn only under theirs), the ops written
so far, fresh names, the gates still closed; and the primitives each draw goes through (`pick`,
`chance`, `between`), each shrinking towards its first or smallest value, so that a shrunk
scenario is one of fewer and plainer steps. The registry and loop families extend it with what
they remember (`dsh_conformance.fuzz.draws.registry.RegistryBuilder`,
`dsh_conformance.fuzz.draws.loop.LoopBuilder`); the session, wire and http families draw through it
as it is.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

Json = Any


@functools.cache
def below(count: int) -> st.SearchStrategy[int]:
    """Strategies are built once: building one per draw was most of the generation time."""
    return st.integers(0, count - 1)


@functools.cache
def span(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


def weighted(table: tuple[tuple[int, str], ...]) -> list[str]:
    """The names of a table of ``(weight, name)``, each as many times as its weight."""
    return [name for weight, name in table for _ in range(weight)]


def parameters(variant: int) -> Json:
    """A fresh ``parameters`` object (no integer-like keys: `AVOIDED`)."""
    if variant == 0:
        return {"type": "object"}
    return {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "number"}}}


class Builder:
    """Draws steps and writes their ops; the family builders remember what exists, so that ops
    stay well-formed."""

    def __init__(self, draw: st.DrawFn, capabilities: frozenset[str] = frozenset()) -> None:
        self.draw = draw
        #: What both implementations declare: 1.2 ops are drawn only under their capability.
        self.capabilities = capabilities
        self.ops: list[Json] = []
        self.numbers = itertools.count(1)
        self.closed_gates: list[str] = []

    def pick(self, options: Any) -> Any:
        """One of ``options``; shrinks towards the first."""
        options = list(options)
        return options[self.draw(below(len(options)))]

    def chance(self, percent: int) -> bool:
        """True with this probability; shrinks towards False."""
        return bool(self.draw(below(100)) >= 100 - percent)

    def between(self, low: int, high: int) -> int:
        """An integer in ``low..high``; shrinks towards ``low``."""
        return int(self.draw(span(low, high)))

    def has(self, capability: str) -> bool:
        return capability in self.capabilities

    def wait(self) -> Json:
        """A WAIT: the turn's abort signal, or a gate opened later (or never)."""
        return {"abort": True} if self.chance(50) else {"gate": self.gate()}

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.numbers)}"

    def gate(self) -> str:
        gate = self.fresh("g")
        self.closed_gates.append(gate)
        return gate

    def steps(self, table: tuple[tuple[int, str], ...], most: int, retries: int = 0) -> None:
        """Draw up to ``most`` steps from ``table`` (name by weight); a step that wrote no op
        (nothing for it to act on yet) is drawn again up to ``retries`` times, so that a
        scenario's steps are mostly ones that do something."""
        names = weighted(table)
        for _ in range(self.draw(span(1, most))):
            for _attempt in range(1 + retries):
                before = len(self.ops)
                step: Callable[[], None] = getattr(self, self.pick(names))
                step()
                if len(self.ops) > before:
                    break
