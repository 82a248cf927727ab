"""The one exception type of the reference model.

CONTRACTS.md names a stable *error kind* for every failure the conformance suite compares
("Error kind names are the stable codes the conformance suite compares (messages are free text)").
`ContractError` carries that kind, the contract ID that defines it, and — where the contract asks
for it — *where* the failure happened (the offending section, context, tool name or config field).
"""

from __future__ import annotations

from typing import Final

#: Every error kind the reference raises, with the contract that defines it.
ERROR_KINDS: Final[dict[str, str]] = {
    "duplicate-registration": "PROMPT-REGISTRY-CONTRACT",
    "invalid-order": "PROMPT-REGISTRY-CONTRACT",
    "invalid-variable-name": "PROMPT-REGISTRY-CONTRACT",
    "multiple-complete-sections": "PROMPT-ASSEMBLY-PIPELINE",
    "render-malformed-reference": "PROMPT-STRICT-RENDER",
    "render-unknown-variable": "PROMPT-STRICT-RENDER",
    "render-undefined-variable": "PROMPT-STRICT-RENDER",
    "tool-order-invalid": "PROMPT-TOOL-ORDER",
    "tool-order-unknown-name": "PROMPT-TOOL-ORDER",
    "reserved-tool-name": "PROMPT-TOOL-ORDER",
    # The session log (CONTRACTS.md, "The session log (what ROOT-MODEL anchors to)").
    "session-non-json": "ROOT-MODEL",
    "session-legacy-header": "ROOT-MODEL",
    "surface-op-required": "ROOT-MODEL",
    "surface-op-forbidden": "ROOT-MODEL",
    "surface-replace-invalid": "ROOT-MODEL",
    "source-seqs-invalid": "ROOT-MODEL",
    "tool-result-replace-invalid": "ROOT-MODEL",
    "seq-not-contiguous": "ROOT-MODEL",
    # Not named by CONTRACTS.md: an event whose shape the folds cannot read (a seeded envelope
    # with unknown keys, a message without id or content, a malformed header snapshot). The
    # upstream checks these when loading a seed; the suite does not compare this kind.
    "session-event-invalid": "ROOT-MODEL",
    # LOOP-REQUEST-BUILD: an agent refused when it is created.
    "agent-config-invalid": "LOOP-REQUEST-BUILD",
    # Not named by CONTRACTS.md: a configuration that is not a configuration at all
    # (unknown key, wrong type). Kept apart so it never masks `tool-order-invalid`.
    "config-invalid": "PROMPT-REGISTRY-CONTRACT",
}


class ContractError(Exception):
    """A failure defined by the contracts: a stable ``kind``, its ``contract`` ID, and ``where``.

    >>> raise ContractError("invalid-order", "section 'a' has order nan", where="a")
    Traceback (most recent call last):
    dsh_reference.errors.ContractError: [invalid-order] section 'a' has order nan
    """

    kind: str
    contract: str
    where: str | None

    def __init__(self, kind: str, message: str, *, where: str | None = None) -> None:
        if kind not in ERROR_KINDS:
            raise ValueError(f"unknown error kind {kind!r}")
        super().__init__(f"[{kind}] {message}")
        self.kind = kind
        self.contract = ERROR_KINDS[kind]
        self.where = where
