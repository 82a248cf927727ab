"""PROMPT-STRICT-RENDER, one rule per requirement (CONTRACTS.md, "PROMPT-STRICT-RENDER")."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-STRICT-RENDER"
_SECTION: Final = "PROMPT-STRICT-RENDER"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-STRICT-RENDER.1",
        "Render interpolates every section, drops the sections that render to '' and joins the "
        "rest with a blank line; when all are empty the rendering is ''.",
        _SECTION,
        "Render = interpolate every section, drop sections that render to `''`, join with "
        "`\\n\\n` (all empty → `''`).",
        cases=(
            "render/empty-sections-dropped-joined-with-blank-line",
            "render/all-empty-renders-empty-string",
        ),
        tests=("test_render_drops_empty_sections_and_joins_the_rest",),
    ),
    Requirement(
        "PROMPT-STRICT-RENDER.2",
        "The context body is rendered with the same interpolation and the same joiner; no contexts "
        "render to nothing.",
        _SECTION,
        "The context body uses the same interpolation and joiner.",
        cases=("render/context-preamble-and-body", "render/no-contexts-render-nothing"),
        tests=("test_render_follows_the_grammar",),
    ),
    Requirement(
        "PROMPT-STRICT-RENDER.3",
        "Only `{{` starts a reference: `}}`, `{` and `}` anywhere else are literal text, and there "
        "is no escape syntax.",
        _SECTION,
        "Interpolation scans left to right for `{{` … No escape syntax exists.",
        cases=("render/close-without-open-is-literal",),
        tests=("test_render_follows_the_grammar",),
    ),
    Requirement(
        "PROMPT-STRICT-RENDER.4",
        "A group (`{{`, text without braces, `}}`) whose inner name does not match the variable "
        "name grammar fails render-malformed-reference; `{{}}` and `{{ name }}` are malformed.",
        _SECTION,
        "its inner name must match the grammar (else `render-malformed-reference`; `{{}}` and "
        "`{{ name }}` are malformed)",
        cases=("render/bad-group-names-are-malformed",),
        tests=("test_render_follows_the_grammar",),
    ),
    Requirement(
        "PROMPT-STRICT-RENDER.5",
        "A group's name must be a registered variable, an own key and never an inherited name "
        "such as `constructor`: else render-unknown-variable.",
        _SECTION,
        "must be a registered variable — an own key, never an inherited/prototype name such as "
        "`constructor` (else `render-unknown-variable`)",
        cases=(
            "render/constructor-unregistered-is-unknown",
            "render/constructor-registered-is-a-value",
            "render/unregistered-names-are-unknown",
        ),
        tests=("test_render_follows_the_grammar",),
    ),
    Requirement(
        "PROMPT-STRICT-RENDER.6",
        "A group's variable must have a value, else render-undefined-variable; the empty string "
        "is a value.",
        _SECTION,
        "and must have a value (else `render-undefined-variable`)",
        cases=(
            "render/undefined-variable",
            "variables/empty-string-is-a-value",
            "variables/nearest-no-value-overrides-farther-value",
        ),
        tests=("test_render_follows_the_grammar",),
    ),
    Requirement(
        "PROMPT-STRICT-RENDER.7",
        "A group is replaced by its variable's value, inserted verbatim and never scanned again.",
        _SECTION,
        "the value is inserted verbatim and never re-scanned (a value containing `{{x}}` stays "
        "literal)",
        cases=(
            "render/interpolates-registered-variables",
            "render/value-inserted-verbatim-not-rescanned",
        ),
        tests=("test_render_follows_the_grammar",),
    ),
    Requirement(
        "PROMPT-STRICT-RENDER.8",
        "A `{{` that opens no group fails render-malformed-reference when a `}}` occurs anywhere "
        "later in the text (`{{{model}}}` fails).",
        _SECTION,
        "otherwise, if a `}}` occurs anywhere later in the text, fail "
        "`render-malformed-reference` (`{{{model}}}` fails)",
        cases=("render/brace-without-group-then-close-is-malformed",),
        tests=("test_render_follows_the_grammar",),
    ),
    Requirement(
        "PROMPT-STRICT-RENDER.9",
        "A `{{` that opens no group and has no `}}` after it is literal text, and scanning goes on "
        "right after it.",
        _SECTION,
        "if not, the `{{` is literal text and scanning continues after it.",
        cases=("render/lone-open-without-close-is-literal",),
        tests=("test_render_follows_the_grammar",),
    ),
    Requirement(
        "PROMPT-STRICT-RENDER.10",
        "References are checked left to right and the first failing one decides the error; for "
        "one reference the checks run malformed, name grammar, registered, has a value.",
        _SECTION,
        "References are checked left to right and the first failing one decides; for one "
        "reference the checks run malformed → name grammar → registered → has a value.",
        cases=(
            "render/unknown-before-malformed",
            "render/malformed-before-unknown",
            "render/bad-group-names-are-malformed",
        ),
        tests=("test_render_follows_the_grammar",),
    ),
    Requirement(
        "PROMPT-STRICT-RENDER.11",
        "A failing render gives no partial output and names the offending section or context.",
        _SECTION,
        "Failures are fast (no partial output) and name the offending section or context.",
        cases=(
            "render/failure-names-the-first-failing-section",
            "render/context-failure-names-the-context",
        ),
    ),
    Requirement(
        "PROMPT-STRICT-RENDER.12",
        "Rendering time grows linearly with the text length, also on text with many lone `{{`.",
        _SECTION,
        "A conforming renderer MUST be linear in the text length",
        tests=("test_render_time_grows_linearly",),
    ),
)
