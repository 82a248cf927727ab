"""PROMPT-HEADER-CANONICAL, one rule per requirement (CONTRACTS.md, "PROMPT-HEADER-CANONICAL")."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-HEADER-CANONICAL"
_SECTION: Final = "PROMPT-HEADER-CANONICAL"
_GOLDEN: Final = "test_canonical_header_matches_the_golden"
_EQUALITY: Final = "test_header_equality"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-HEADER-CANONICAL.1",
        "In canonical form an empty system text and an empty tool list are absent fields; "
        "nothing else changes (tool schemas keep their key order).",
        _SECTION,
        "Canonical form: an empty system and an empty tool list become absent fields",
        cases=(
            "header/canonical-drops-empty-system",
            "header/canonical-drops-empty-tools",
            "header/canonical-keeps-tool-schema-key-order",
            "loop/empty-system-and-tools-are-absent-from-header-and-request",
        ),
        tests=(f"{_GOLDEN}[no-system-no-tools]", f"{_GOLDEN}[initial]"),
    ),
    Requirement(
        "PROMPT-HEADER-CANONICAL.2",
        "In canonical form `adapterDefaults` is kept only when one of its two markers is true; a "
        "marker is only ever true and marks a field present in `config`.",
        _SECTION,
        "`adapterDefaults` is kept only if one of its two markers is true (a marker is only ever "
        "`true`; a marked field is present in `config`).",
        cases=(
            "header/canonical-drops-unmarked-adapter-defaults",
            "header/canonical-keeps-marked-adapter-defaults-and-config-as-is",
        ),
        tests=(f"{_GOLDEN}[adapter-defaults]",),
    ),
    Requirement(
        "PROMPT-HEADER-CANONICAL.3",
        "Header equality compares `provider`, `model`, `reasoningEffort`, `temperature` and "
        "`maxTokens` strictly.",
        _SECTION,
        "config equal (provider, model, reasoningEffort, temperature, maxTokens strictly",
        cases=("header/equal-identical-headers", "header/equal-config-fields-strictly"),
        tests=(
            f"{_EQUALITY}[equal]",
            f"{_EQUALITY}[provider]",
            f"{_EQUALITY}[model]",
            f"{_EQUALITY}[reasoningEffort]",
            f"{_EQUALITY}[temperature]",
            f"{_EQUALITY}[maxTokens]",
        ),
    ),
    Requirement(
        "PROMPT-HEADER-CANONICAL.4",
        "Header equality compares `stop` lists element by element, and an absent `stop` differs "
        "from `[]`.",
        _SECTION,
        "`stop` lists element-wise, and an absent `stop` differs from `[]`",
        cases=("header/equal-absent-stop-differs-from-empty-stop",),
        tests=(f"{_EQUALITY}[stop]",),
    ),
    Requirement(
        "PROMPT-HEADER-CANONICAL.5",
        "Header equality compares no other config field, and never key order.",
        _SECTION,
        "no other config field is compared, and key order never is",
        cases=("header/equal-other-config-fields-and-key-order-ignored",),
        tests=(f"{_EQUALITY}[equal]",),
    ),
    Requirement(
        "PROMPT-HEADER-CANONICAL.6",
        "Equal headers mark the same adapter defaults: for each marker, both or neither.",
        _SECTION,
        "markers equal (for each of the two, both headers mark it or neither does)",
        cases=("header/equal-markers",),
        tests=(f"{_EQUALITY}[marker]",),
    ),
    Requirement(
        "PROMPT-HEADER-CANONICAL.7",
        "Equal headers have identical system strings.",
        _SECTION,
        "system strings identical",
        cases=("header/equal-system-strings",),
        tests=(f"{_EQUALITY}[system]",),
    ),
    Requirement(
        "PROMPT-HEADER-CANONICAL.8",
        "Equal headers have tool lists of equal length whose pairs serialize to the same JSON, "
        "key order included.",
        _SECTION,
        "tool lists of equal length with each pair serializing to the same JSON (key order "
        "included)",
        cases=("header/equal-tool-lists", "header/equal-tool-schemas-compared-as-json-text"),
        tests=(
            f"{_EQUALITY}[tool-order]",
            f"{_EQUALITY}[tool-key-order]",
            f"{_EQUALITY}[tool-count]",
        ),
    ),
    Requirement(
        "PROMPT-HEADER-CANONICAL.9",
        "The header in force offline is the last `request/header` snapshot of the log, "
        "canonicalized.",
        _SECTION,
        "Offline replay folds the log's `request/header` events: the last full snapshot, "
        "canonicalized, is the header in force.",
        tests=(_GOLDEN,),
    ),
)
