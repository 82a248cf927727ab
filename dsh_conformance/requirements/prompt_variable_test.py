"""PROMPT-VARIABLE-TEST, one rule per requirement (CONTRACTS.md, "PROMPT-ASSEMBLY-MUTATION-TEST
and PROMPT-VARIABLE-TEST", second bullet)."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-VARIABLE-TEST"
_SECTION: Final = "PROMPT-ASSEMBLY-MUTATION-TEST and PROMPT-VARIABLE-TEST"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-VARIABLE-TEST.1",
        "Each assembly evaluates the variables of the global layer and of its scope chain (no "
        "other scope's), once each, and lists every one with its value, referenced or not.",
        _SECTION,
        "Variables are evaluated by iterating the live layer tables (global, then chain "
        "farthest→nearest), in insertion order.",
        cases=(
            "variables/provider-value-is-listed",
            "variables/all-chain-providers-run-nearest-wins",
            "variables/off-chain-providers-not-run",
            "variables/released-variable-not-evaluated",
            "variables/evaluated-once-per-assembly",
        ),
    ),
    Requirement(
        "PROMPT-VARIABLE-TEST.2",
        "The layers an assembly visits are fixed when it starts: a scoped layer created, or "
        "re-created after it emptied, during the assembly is first visited by the next one.",
        _SECTION,
        "The layers visited are fixed when the assembly starts: a scoped layer exists while it "
        "holds at least one registration of any kind, and a layer created (or re-created after "
        "it emptied) during the assembly is not visited.",
        cases=(
            "variables/layer-created-mid-assembly-is-not-visited",
            "variables/layer-re-created-mid-assembly-is-not-visited",
        ),
    ),
    Requirement(
        "PROMPT-VARIABLE-TEST.3",
        "A variable that an earlier provider registers into a visited table before the "
        "iteration over that table ends is evaluated in the same assembly.",
        _SECTION,
        "a variable registered into it by an earlier provider, before the iteration over that "
        "table ends, is evaluated in the same assembly",
        cases=(
            "mutation/variable-registered-during-variable-evaluation",
            "variables/registrations-during-evaluation-chain",
            "variables/global-provider-registers-scoped-variable",
            "variables/self-replacement-beside-another-variable-is-evaluated-now",
        ),
    ),
    Requirement(
        "PROMPT-VARIABLE-TEST.4",
        "A variable released by an earlier provider before it is reached is not evaluated.",
        _SECTION,
        "one released before it is reached is not evaluated.",
        cases=(
            "variables/released-before-its-turn-is-not-evaluated",
            "variables/provider-releasing-a-later-scoped-variable",
        ),
    ),
    Requirement(
        "PROMPT-VARIABLE-TEST.5",
        "Releasing the last variable of a table ends the iteration over it; variables "
        "registered into it afterwards are first evaluated by the next assembly.",
        _SECTION,
        "Releasing a table's last variable drains it and starts a new generation: an iteration "
        "in progress over that table stops there, and variables registered into it afterwards "
        "are first evaluated by the next assembly",
        cases=("variables/self-replacement-alone-in-its-table-waits-for-the-next-assembly",),
    ),
    Requirement(
        "PROMPT-VARIABLE-TEST.6",
        "Every variable provider on the chain runs, also a global one shadowed by a scoped one "
        "(whose value then overwrites it), so a shadowed provider that throws still rejects the "
        "assembly.",
        _SECTION,
        "Every provider runs, including a global one shadowed by a scoped one (its value is "
        "then overwritten).",
        cases=(
            "variables/shadowed-global-provider-still-runs",
            "variables/shadowed-global-provider-failure-rejects",
        ),
    ),
    Requirement(
        "PROMPT-VARIABLE-TEST.7",
        "A provider may return no value: the variable stays listed (null), and the nearest "
        "layer still wins the name, a scoped 'no value' over a global value and a scoped value "
        "over a global 'no value'; '' is a value.",
        _SECTION,
        'A provider may return "undefined" (no value): the variable stays listed as '
        'registered, and a scoped "no value" overrides a global value.',
        cases=(
            "variables/no-value-stays-listed-as-null",
            "variables/nearest-no-value-overrides-farther-value",
            "variables/nearest-value-overrides-farther-no-value",
            "variables/empty-string-is-a-value",
        ),
    ),
)
