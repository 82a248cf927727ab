"""Known divergences (`dsh_conformance.fuzz.known`, issue 35): which divergences a list explains.

A divergence is explained when every contract ID its case would be filed under has an entry,
and an entry's rule, when it gives one, is text of one of the divergence's problem lines.
"""

from __future__ import annotations

import pytest

from dsh_conformance.fuzz.engine import Divergence
from dsh_conformance.fuzz.known import Known, explaining, parse_known

#: A registry divergence at a `register` op (filed under PROMPT-REGISTRY-CONTRACT alone).
DUPLICATE = Divergence(
    family="registry",
    ops=[{"op": "register", "handle": "h1", "kind": "section", "name": "a"}],
    expected=[{"error": {"kind": "duplicate-registration"}}],
    observed=[{"ok": True}],
    differences=[(0, "op #0 (register section 'a'): expected error 'duplicate-registration'")],
    violations=[],
)
#: A session divergence the self-check files under two contracts.
TWO_RULES = Divergence(
    family="session",
    ops=[{"op": "session-log"}],
    expected=[{}],
    observed=[{}],
    differences=[],
    violations=[
        (0, "ROOT-MODEL", "seq 1: source-seqs-invalid"),
        (0, "PROMPT-HEADER-CANONICAL", "seq 2: a header not in canonical form"),
    ],
)


def known(*texts: str) -> list[Known]:
    return [parse_known(text, "test") for text in texts]


@pytest.mark.parametrize(
    ("divergence", "entries", "explained"),
    [
        (DUPLICATE, ("PROMPT-REGISTRY-CONTRACT",), True),
        (DUPLICATE, ("PROMPT-REGISTRY-CONTRACT:duplicate-registration",), True),
        (DUPLICATE, ("PROMPT-REGISTRY-CONTRACT:invalid-order",), False),
        (DUPLICATE, ("PROMPT-TOOL-ORDER",), False),
        (TWO_RULES, ("ROOT-MODEL",), False),
        (TWO_RULES, ("ROOT-MODEL", "PROMPT-HEADER-CANONICAL"), True),
        (TWO_RULES, ("ROOT-MODEL:source-seqs-invalid", "PROMPT-HEADER-CANONICAL:canonical"), True),
        (TWO_RULES, ("ROOT-MODEL:surface-op-required", "PROMPT-HEADER-CANONICAL"), False),
        (DUPLICATE, (), False),
    ],
)
def test_a_divergence_is_explained_when_every_contract_it_is_filed_under_is_listed(
    divergence: Divergence, entries: tuple[str, ...], explained: bool
) -> None:
    assert bool(explaining(known(*entries), divergence)) is explained


def test_an_entry_is_a_contract_id_and_maybe_a_rule() -> None:
    assert parse_known(" ROOT-MODEL ", "x") == Known("ROOT-MODEL", None, "x")
    assert parse_known("ROOT-MODEL:a: b", "x") == Known("ROOT-MODEL", "a: b", "x")
    with pytest.raises(ValueError, match=r"^where: 'ROOT' is not a contract ID"):
        parse_known("ROOT", "where")
    with pytest.raises(ValueError, match=r"^where: 'ROOT-MODEL: ' gives no rule"):
        parse_known("ROOT-MODEL: ", "where")
