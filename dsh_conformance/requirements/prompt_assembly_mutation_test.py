"""PROMPT-ASSEMBLY-MUTATION-TEST, one rule per requirement (CONTRACTS.md,
"PROMPT-ASSEMBLY-MUTATION-TEST and PROMPT-VARIABLE-TEST"; the variable rules are
PROMPT-VARIABLE-TEST's)."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-ASSEMBLY-MUTATION-TEST"
_SECTION: Final = "PROMPT-ASSEMBLY-MUTATION-TEST and PROMPT-VARIABLE-TEST"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-ASSEMBLY-MUTATION-TEST.1",
        "The tool providers of an assembly are fixed before the first of them runs: one "
        "registered later in that assembly (by a tool or section provider) contributes from the "
        "next assembly, one released during tool evaluation still contributes to this one.",
        _SECTION,
        "Tool-provider membership is snapshotted before any tool provider runs: a provider "
        "registered while providers are being evaluated contributes from the next assembly on.",
        cases=(
            "mutation/tool-provider-registered-during-tool-evaluation",
            "mutation/tool-provider-released-during-tool-evaluation",
            "pipeline/section-provider-registers-tool-provider-too-late",
            "pipeline/variable-provider-registers-tool-provider-in-time",
        ),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-MUTATION-TEST.2",
        "Every assembly returns fresh section, context, tool and variable containers, items "
        "included: editing a returned assembly, or a listener editing what it is handed, "
        "changes no provider's data and no later assembly.",
        _SECTION,
        "Every assembly returns fresh section, context and tool containers … mutating a "
        "returned assembly never changes a provider's data or a later assembly.",
        cases=(
            "mutation/returned-section-and-context-lists-are-fresh",
            "mutation/returned-tool-list-is-fresh",
            "mutation/returned-variables-are-fresh",
            "mutation/returned-items-are-fresh",
            "mutation/listener-edits-do-not-leak-into-later-assemblies",
            "mutation/listener-in-place-edits-do-not-leak",
        ),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-MUTATION-TEST.3",
        "A returned tool's `parameters` is a structural copy: mutating its nested values or "
        "lists changes neither the provider's schema nor a later assembly.",
        _SECTION,
        "tool `parameters` are structural copies",
        cases=("mutation/returned-tool-parameters-are-structural-copies",),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-MUTATION-TEST.4",
        "A variable registered by an earlier variable provider while the variables are "
        "evaluated is evaluated in the same assembly (PROMPT-VARIABLE-TEST.3 in full).",
        _SECTION,
        "a variable registered into it by an earlier provider, before the iteration over that "
        "table ends, is evaluated in the same assembly",
        cases=("mutation/variable-registered-during-variable-evaluation",),
    ),
)
