"""Known divergences: what a fuzz run looks past, so that it finds what nobody listed (issue 35).

A real implementation departs from the contracts in ways its maintainers know (its expected-
failures baseline lists the cases that show them); fuzzing it stopped at one of those every time.
A `Known` entry is a contract ID, alone or with a rule: ``CONTRACT`` or ``CONTRACT:RULE``. A
divergence is *explained* when every contract ID it is filed under (`found.contracts_of`: the IDs
its case would carry) has an entry of that ID whose rule, if it gives one, is text of one of the
divergence's problem lines (an error kind such as ``session-legacy-header``, a check such as
``surface-op-required``, a field such as ``sections`` or ``reasoningEffort``, an op such as
``session-seed``). So a divergence that also breaks a contract nobody listed is never explained,
and an entry without a rule explains every divergence of its contract alone: a rule narrows it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..judge.case import CONTRACT_IDS
from .engine import Divergence, Explains
from .found import contracts_of


@dataclass(frozen=True)
class Known:
    """One known divergence: a contract ID, and the rule's text if the entry narrows to one."""

    contract: str
    rule: str | None = None
    #: Where the entry comes from, for the report (``--known``, a baseline file's line).
    source: str = ""

    def covers(self, contract: str, problems: list[str]) -> bool:
        return self.contract == contract and (
            self.rule is None or any(self.rule in problem for problem in problems)
        )


def parse_known(text: str, source: str) -> Known:
    """``CONTRACT`` or ``CONTRACT:RULE``; a contract ID the contracts do not have, or an empty
    rule, is a `ValueError` naming ``source``."""
    contract, colon, rule = text.strip().partition(":")
    contract = contract.strip()
    if contract not in CONTRACT_IDS:
        raise ValueError(f"{source}: {contract!r} is not a contract ID ({', '.join(CONTRACT_IDS)})")
    if colon and not rule.strip():
        raise ValueError(f"{source}: {text!r} gives no rule after the colon")
    return Known(contract, rule.strip() if colon else None, source)


def explaining(known: Iterable[Known], divergence: Divergence) -> list[Known]:
    """The entries that explain ``divergence`` (one per contract it is filed under), or none if
    a contract it is filed under has no entry that covers it."""
    entries = list(known)
    problems = divergence.problems()
    found = []
    for contract in contracts_of(divergence):
        entry = next((e for e in entries if e.covers(contract, problems)), None)
        if entry is None:
            return []
        found.append(entry)
    return found


def explainer(known: Iterable[Known]) -> Explains:
    """`engine.judge`'s ``explains``: whether ``known`` explains a divergence."""
    entries = tuple(known)

    def explains(divergence: Divergence) -> bool:
        return bool(explaining(entries, divergence))

    return explains
