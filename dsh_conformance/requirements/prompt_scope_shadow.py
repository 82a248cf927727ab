"""PROMPT-SCOPE-SHADOW, one rule per requirement (CONTRACTS.md, "DESIGN-SCOPED-LAYERS and
PROMPT-SCOPE-SHADOW")."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-SCOPE-SHADOW"
_SECTION: Final = "DESIGN-SCOPED-LAYERS and PROMPT-SCOPE-SHADOW"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-SCOPE-SHADOW.1",
        "A shadowed section or context provider is never called: one that would throw or block "
        "does not affect the assembly that shadows it; only the nearest provider of a name runs.",
        _SECTION,
        "so a shadowed section or context provider is never called",
        cases=(
            "scope-shadow/shadowed-section-provider-not-evaluated",
            "scope-shadow/shadowed-context-provider-not-evaluated",
            "scope-shadow/only-the-nearest-of-four-providers-runs",
            "scope-shadow/shadowed-failing-provider-is-harmless",
            "scope-shadow/shadowed-blocking-provider-is-not-awaited",
        ),
    ),
    Requirement(
        "PROMPT-SCOPE-SHADOW.2",
        "Shadowing is decided per assembly from the registrations in force and holds only for "
        "the shadowing scope and its descendants; elsewhere, or once the shadow is released, "
        "the shadowed provider runs.",
        _SECTION,
        "a scoped persona replaces the global persona for that scope only, and the global "
        "persona provider does not run",
        cases=("scope-shadow/shadowing-is-per-scope", "scope-shadow/released-shadow-unshadows"),
    ),
    Requirement(
        "PROMPT-SCOPE-SHADOW.3",
        "The effective name-to-entry maps are formed before any text is evaluated: a section or "
        "context registered by a provider while texts are evaluated first counts in the next "
        "assembly.",
        _SECTION,
        "The effective name→entry maps are formed BEFORE any text is evaluated",
        cases=(
            "scope-shadow/maps-formed-before-text-evaluation",
            "scope-shadow/context-registered-during-evaluation-waits",
        ),
    ),
)
