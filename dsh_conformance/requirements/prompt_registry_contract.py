"""PROMPT-REGISTRY-CONTRACT, one rule per requirement (CONTRACTS.md, "PROMPT-REGISTRY-CONTRACT",
with the built-in sections of "Literal constants" and the fields of "Configuration")."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-REGISTRY-CONTRACT"
_SECTION: Final = "PROMPT-REGISTRY-CONTRACT"
_CONSTANTS: Final = "Literal constants (byte-exact)"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.1",
        "By default the global layer holds the identity section (`harness:identity`, order -100, "
        "the fixed text); `includeHarnessIdentity: false` leaves it out and its name free.",
        _CONSTANTS,
        "identity section | name `harness:identity`, order `-100`, text `You are an AI agent "
        "powered by DeepSeek Harness.`",
        cases=(
            "registry/builtin-sections-by-default",
            "registry/identity-configured-away",
            "registry/identity-name-free-when-not-configured",
        ),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.2",
        "The global layer holds the persona section (`deployment:persona`, order 0) whose text is "
        "the configured persona, '' by default.",
        _CONSTANTS,
        "persona section | name `deployment:persona`, order `0`, text = config `persona` (default "
        "`''`)",
        cases=("registry/builtin-sections-by-default", "registry/persona-text-from-config"),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.3",
        "Identity and persona are ordinary global sections: they sort by their orders among the "
        "others, their names are taken in the global layer, and a scoped section of the same "
        "name shadows them in that scope only.",
        _SECTION,
        "Identity and persona are ordinary sections (a scoped section of the same name shadows "
        "them), not string concatenation.",
        cases=(
            "registry/builtins-sort-as-ordinary-sections",
            "registry/builtin-names-taken-in-global-layer",
            "registry/orders-at-the-builtin-orders-tie-after-them",
            "scopes/scoped-persona-replaces-global-persona-in-its-scope-only",
            "scopes/scoped-identity-shadows-builtin-identity",
        ),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.4",
        "A second section, context or variable of the same name in the same layer is refused "
        "(duplicate-registration); the same name in different layers is allowed.",
        _SECTION,
        "A second section, context or variable with the same name in the same layer is rejected "
        "(`duplicate-registration`); the same name in different layers is allowed (that is "
        "shadowing).",
        cases=(
            "registry/duplicate-section-same-layer",
            "registry/duplicate-context-same-layer",
            "registry/duplicate-variable-same-layer",
            "registry/same-name-in-different-layers-allowed",
            "registry/builtin-names-taken-in-global-layer",
        ),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.5",
        "A section or context order that is not finite (NaN, ±Infinity, an integer beyond the "
        "double range) is refused (invalid-order); every finite order is accepted, -0 equal "
        "to 0.",
        _SECTION,
        "A non-finite section/context order (NaN, ±Infinity) is rejected (`invalid-order`).",
        cases=(
            "registry/non-finite-section-order-rejected",
            "registry/non-finite-context-order-rejected",
            "registry/integer-orders-beyond-the-double-range-rejected",
            "registry/extreme-finite-orders-accepted",
            "registry/negative-zero-order-equals-zero",
        ),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.6",
        "A variable name outside `^[a-z][a-z0-9_]*$` is refused when registered: "
        "invalid-variable-name.",
        _SECTION,
        "A variable name outside the grammar is rejected at registration "
        "(`invalid-variable-name`).",
        cases=("registry/variable-names-checked-at-registration",),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.7",
        "A refused registration changes nothing and emits no change notification.",
        _SECTION,
        "A rejected registration leaves the registry unchanged and emits nothing.",
        cases=(
            "registry/rejected-duplicate-leaves-registry-unchanged",
            "registry/non-finite-section-order-rejected",
            "registry/variable-names-checked-at-registration",
        ),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.8",
        "Every registration and every release, of each of the five kinds, emits one "
        "`system-prompt/change` notification.",
        _SECTION,
        "Every registration and every release emits one `system-prompt/change` notification "
        "(unfiltered).",
        cases=(
            "registry/one-change-per-registration-and-release",
            "registry/same-name-in-different-layers-allowed",
        ),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.9",
        "A registration whose change notification throws is rolled back (a release, with its own "
        "notification) and the error reaches the caller: no handle, the name is free, nothing of "
        "it is assembled.",
        _SECTION,
        "If delivering a registration's `system-prompt/change` notification throws, the "
        "registration is rolled back (the rollback is a release and emits its own notification) "
        "and the error reaches the caller: no handle is returned, the name is free again, and "
        "nothing of it is assembled.",
        cases=(
            "registry/failed-change-notification-rolls-a-section-back",
            "registry/failed-change-notification-rolls-a-tool-provider-back",
            "registry/failed-change-notification-rolls-back-in-a-scope",
        ),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.10",
        "Each registration returns a release handle: after release it takes no part in "
        "assemblies and its name is free; it releases that registration only.",
        _SECTION,
        "each made in the caller's layer (global, or one scope) and each returning a release "
        "handle",
        cases=(
            "registry/release-removes-from-next-assembly",
            "registry/release-removes-only-that-registration",
        ),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.11",
        "Releasing twice is a no-op the second time: one notification, and a later registration "
        "of the same name stays.",
        _SECTION,
        "Releasing twice is a no-op the second time (one notification).",
        cases=("registry/second-release-is-a-no-op",),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.12",
        "A section's or context's `text` is a string or a provider called once per assembly "
        "with the assembly context.",
        _SECTION,
        "`text` is a string or a provider evaluated per assembly with the assembly context.",
        cases=("registry/text-provider-evaluated-per-assembly",),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.13",
        "A configuration field of the wrong type (a non-string persona, a non-boolean flag, `0` "
        "included, a tool order that is not a list of strings) is refused when loaded: "
        "config-invalid.",
        "Configuration",
        "A field of the wrong type — a non-string `persona`, a non-boolean flag (`0` is not "
        "`false`), a `toolOrder` that is not a list of strings — is rejected when loaded: "
        "`config-invalid`.",
        cases=(
            "registry/config-persona-given-a-number",
            "registry/config-includeRuntimeContext-given-zero",
            "registry/config-includeHarnessIdentity-given-a-string",
            "registry/config-toolOrder-given-a-string",
            "registry/config-toolOrder-given-a-number-in-the-list",
        ),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.14",
        "A configuration field given as null is absent and takes its default, for every field.",
        "Configuration",
        "A field given as `null` means absent (its default), for every field including `toolOrder`",
        cases=(
            "registry/config-persona-null-means-absent",
            "registry/config-includeHarnessIdentity-null-means-absent",
            "registry/config-includeRuntimeContext-null-means-absent",
            "registry/config-toolOrder-null-means-absent",
        ),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.15",
        "Unknown configuration keys are implementation-defined.",
        _SECTION,
        "Unknown configuration keys are implementation-defined (the upstream ignores them); the "
        "suite does not test them.",
        unchecked="CONTRACTS.md leaves unknown configuration keys to the implementation: any "
        "behaviour conforms, so no case can fail one.",
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.16",
        "A refused registration names where it arose, the name it registered, and a refused "
        "configuration the field.",
        "Configuration",
        "Every error names where it arose: PROTOCOL.md's error table says what `where` holds "
        "for each kind (the section or context for a render failure, the name or field for the "
        "others)",
        cases=(
            "registry/builtin-names-taken-in-global-layer",
            "registry/duplicate-section-same-layer",
            "registry/duplicate-context-same-layer",
            "registry/duplicate-variable-same-layer",
            "registry/non-finite-section-order-rejected",
            "registry/non-finite-context-order-rejected",
            "registry/integer-orders-beyond-the-double-range-rejected",
            "registry/variable-names-checked-at-registration",
            "registry/config-persona-given-a-number",
            "registry/config-includeRuntimeContext-given-zero",
            "registry/config-includeHarnessIdentity-given-a-string",
            "registry/config-toolOrder-given-a-string",
            "registry/config-toolOrder-given-a-number-in-the-list",
        ),
    ),
    Requirement(
        "PROMPT-REGISTRY-CONTRACT.17",
        "The registry is judged through PROTOCOL.md's ops; a scenario the harness cannot run (an "
        "op outside the schema) is answered `errored` in the protocol's shape (`type`, `case`, "
        "`context`?, no other key), an error of the implementation and never a pass. PROTOCOL.md's "
        "rule, filed under the contract of the `registry` capability every harness declares.",
        _SECTION,
        "The registry takes five kinds of registration",
        tests=("test_a_case_it_cannot_run_is_answered_errored_in_the_protocol_shape",),
    ),
)
