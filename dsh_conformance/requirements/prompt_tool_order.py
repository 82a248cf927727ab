"""PROMPT-TOOL-ORDER, one rule per requirement (CONTRACTS.md, "PROMPT-TOOL-ORDER", with the
load-time check of "Configuration" and the schema copy of "PROMPT-ASSEMBLY-PIPELINE", step 3)."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-TOOL-ORDER"
_SECTION: Final = "PROMPT-TOOL-ORDER"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-TOOL-ORDER.1",
        "Without a configured tool order, the schemas of all providers sort together by name in "
        "UTF-16 code-unit order (not code-point order), astral characters and lone surrogates "
        "included.",
        _SECTION,
        "Without `toolOrder`: schemas sort by name in UTF-16 code-unit order, locale-independent",
        cases=(
            "tool-order/code-unit-order-without-config",
            "tool-order/astral-names-by-utf16-code-units",
            "tool-order/lone-surrogates-by-utf16-code-units",
            "tool-order/schemas-of-all-providers-sorted-together",
            "registry/config-toolOrder-null-means-absent",
        ),
        tests=("test_tools_sort_by_utf16_code_units",),
    ),
    Requirement(
        "PROMPT-TOOL-ORDER.2",
        "A configured tool order with a duplicate name, or without exactly one rest marker (an "
        "empty list has none), is refused when the configuration is loaded: tool-order-invalid.",
        "Configuration",
        "A `toolOrder` with a duplicate name, or without exactly one rest marker (an empty list "
        "has none), is rejected when the configuration is loaded: error kind "
        "`tool-order-invalid`.",
        cases=(
            "registry/config-tool-order-duplicate-name",
            "registry/config-tool-order-without-marker",
            "registry/config-tool-order-two-markers",
            "registry/config-tool-order-empty",
        ),
    ),
    Requirement(
        "PROMPT-TOOL-ORDER.3",
        "With a tool order, listed tools take their listed positions and every unlisted visible "
        "tool comes at the rest marker, in code-unit order.",
        _SECTION,
        "listed tools appear at their listed positions and every unlisted visible tool appears at "
        "the marker, in code-unit order.",
        cases=(
            "tool-order/listed-names-at-listed-positions",
            "tool-order/unlisted-at-marker-in-code-unit-order",
        ),
        tests=("test_configured_tool_order",),
    ),
    Requirement(
        "PROMPT-TOOL-ORDER.4",
        "A listed name other than the marker that is in no assembly provider's known names fails "
        "the assembly (not the configuration): tool-order-unknown-name.",
        _SECTION,
        "every listed name other than the marker must be in the union of all providers' "
        "`knownNames` (else `tool-order-unknown-name`, at assembly)",
        cases=(
            "tool-order/unknown-listed-name-fails-at-assembly",
            "tool-order/known-names-only-from-the-assembly-providers",
            "tool-order/explicit-known-names-replace-the-default",
        ),
        tests=("test_tool_order_naming_an_unknown_tool_fails",),
    ),
    Requirement(
        "PROMPT-TOOL-ORDER.5",
        "The known names are the union over the assembly's providers, each provider's "
        "`knownNames` defaulting to its schema names; a known name absent in this scope is "
        "skipped.",
        _SECTION,
        "a known name that is absent in this scope is simply skipped",
        cases=(
            "tool-order/known-but-absent-name-skipped",
            "tool-order/known-names-are-a-union-over-providers",
            "tool-order/default-known-names-are-the-schema-names",
            "tool-order/explicit-known-names-replace-the-default",
        ),
        tests=("test_configured_tool_order",),
    ),
    Requirement(
        "PROMPT-TOOL-ORDER.6",
        "A provider returning a schema named `<unlisted-tools>` fails the assembly, with or "
        "without a tool order: reserved-tool-name.",
        _SECTION,
        "A provider returning a schema named `<unlisted-tools>` fails the assembly "
        "(`reserved-tool-name`).",
        cases=(
            "tool-order/reserved-marker-name-rejected",
            "tool-order/reserved-marker-name-rejected-with-tool-order",
        ),
    ),
    Requirement(
        "PROMPT-TOOL-ORDER.7",
        "Tools are ordered before the waterfall: listeners see them ordered, and what the "
        "waterfall returns is not sorted again.",
        _SECTION,
        "Ordering happens before the waterfall.",
        cases=("tool-order/ordering-happens-before-the-waterfall",),
    ),
    Requirement(
        "PROMPT-TOOL-ORDER.8",
        "Schemas sharing a name are all kept, in collection order (global first, then farthest "
        "to nearest, each provider's own order), in plain order and at a listed position.",
        _SECTION,
        "Schemas sharing a name are all kept (no de-duplication) and the sort is stable",
        cases=(
            "tool-order/shared-names-kept-in-collection-order",
            "tool-order/shared-names-kept-at-a-listed-position",
        ),
    ),
    Requirement(
        "PROMPT-TOOL-ORDER.9",
        "Only `name`, `description` and a copy of `parameters` (key order kept, but for "
        "integer-like keys) are kept of each schema.",
        "PROMPT-ASSEMBLY-PIPELINE",
        "only `name`, `description` and a structural copy of `parameters` are kept from each "
        "schema; the copy keeps key order",
        cases=(
            "tool-order/only-name-description-parameters-kept",
            "tool-order/parameters-key-order-preserved",
        ),
    ),
    Requirement(
        "PROMPT-TOOL-ORDER.10",
        "A configured tool order that is not a list of strings is refused when loaded: "
        "config-invalid.",
        "Configuration",
        "a `toolOrder` that is not a list of strings — is rejected when loaded: `config-invalid`.",
        cases=(
            "registry/config-toolOrder-given-a-string",
            "registry/config-toolOrder-given-a-number-in-the-list",
        ),
    ),
    Requirement(
        "PROMPT-TOOL-ORDER.11",
        "A tool-order error names where it arose: the configuration field `toolOrder` when "
        "loaded, the offending tool name at assembly.",
        "Configuration",
        "Every error names where it arose: PROTOCOL.md's error table says what `where` holds "
        "for each kind (the section or context for a render failure, the name or field for the "
        "others)",
        cases=(
            "registry/config-tool-order-duplicate-name",
            "registry/config-tool-order-without-marker",
            "registry/config-tool-order-two-markers",
            "registry/config-tool-order-empty",
            "tool-order/unknown-listed-name-fails-at-assembly",
            "tool-order/known-names-only-from-the-assembly-providers",
            "tool-order/reserved-marker-name-rejected",
        ),
    ),
)
