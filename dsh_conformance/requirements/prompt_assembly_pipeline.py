"""PROMPT-ASSEMBLY-PIPELINE, one rule per requirement (CONTRACTS.md, "PROMPT-ASSEMBLY-PIPELINE")."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-ASSEMBLY-PIPELINE"
_SECTION: Final = "PROMPT-ASSEMBLY-PIPELINE"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-ASSEMBLY-PIPELINE.1",
        "An assembly runs its steps in order: variables, the section and context maps, the tool "
        "providers, the section sort and complete check, section texts, context texts, tool "
        "order, the waterfall, the final constraints.",
        _SECTION,
        "`assemble(context)` does, in this order",
        cases=(
            "pipeline/variables-evaluated-first",
            "pipeline/tool-providers-before-section-texts",
            "pipeline/section-texts-before-context-texts",
            "pipeline/context-texts-before-waterfall",
            "pipeline/variables-evaluated-first-while-blocked",
            "pipeline/tool-providers-before-section-texts-while-blocked",
            "pipeline/section-texts-before-context-texts-while-blocked",
            "pipeline/context-texts-before-waterfall-while-blocked",
            "pipeline/listener-blocks-after-every-provider-ran",
            "pipeline/variable-provider-registers-tool-provider-in-time",
            "pipeline/section-provider-registers-tool-provider-too-late",
        ),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-PIPELINE.2",
        "A provider that throws (variable, section text, context text or tools) rejects the "
        "whole assembly.",
        _SECTION,
        "a provider throwing rejects the whole assembly",
        cases=("pipeline/any-throwing-provider-rejects-the-assembly",),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-PIPELINE.3",
        "Whether runtime context is suppressed is fixed when the assembly starts: a suppressor "
        "registered during it counts from the next assembly.",
        _SECTION,
        "the scope chain's layers and whether runtime context is suppressed are fixed when it "
        "starts",
        cases=("pipeline/suppression-fixed-when-assembly-starts",),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-PIPELINE.4",
        "The section and context maps are formed at step 2 from the layers on the chain then: "
        "a section or context registered by a variable provider is in the assembly, one "
        "registered by a tool provider only in the next.",
        _SECTION,
        "the section and context maps of step 2 are formed from the layers on the chain at that "
        "moment, so a section registered by a variable provider into a layer that did not exist "
        "when the assembly started is seen",
        cases=(
            "pipeline/variable-provider-registers-section-in-time",
            "pipeline/tool-provider-registers-section-too-late",
            "pipeline/variable-provider-creates-a-layer-its-section-is-seen",
        ),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-PIPELINE.5",
        "More than one effective section with `complete: true` fails the assembly "
        "(multiple-complete-sections), counted over the effective map only.",
        _SECTION,
        "if more than one effective section has `complete: true`, fail "
        "(`multiple-complete-sections`)",
        cases=(
            "pipeline/two-complete-sections-rejected",
            "pipeline/complete-sections-counted-across-layers",
            "pipeline/complete-section-shadowed-by-non-complete",
        ),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-PIPELINE.6",
        "What the `system-prompt/assemble` waterfall returns is authoritative for sections, "
        "contexts and tools.",
        _SECTION,
        "run the `system-prompt/assemble` waterfall on `{sections, contexts, tools, variables}` "
        "— its returned value is authoritative",
        cases=(
            "pipeline/waterfall-result-is-authoritative",
            "pipeline/waterfall-may-remove-append-replace",
            "pipeline/listener-without-next-owns-the-result",
            "pipeline/a-throwing-listener-rejects-the-assembly",
        ),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-PIPELINE.7",
        "After the waterfall, an effective complete section replaces the returned sections with "
        "exactly its remembered evaluated `{name, text}`, whatever the listeners did.",
        _SECTION,
        "if a complete section was effective, replace the returned sections with exactly that "
        "remembered section",
        cases=(
            "pipeline/complete-section-is-the-only-section",
            "pipeline/complete-section-restored-after-listener-edits",
            "pipeline/complete-section-restored-with-its-evaluated-text",
            "pipeline/complete-section-restored-after-an-in-place-edit",
            "pipeline/short-circuiting-listener-still-gets-final-constraints",
        ),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-PIPELINE.8",
        "A complete section skips nothing else: variables, contexts, tools and the waterfall "
        "still run.",
        _SECTION,
        "A complete section does not skip variables, contexts, tools or the waterfall.",
        cases=("pipeline/complete-section-skips-nothing-else",),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-PIPELINE.9",
        "While a suppressor exists in the global layer or on the chain, contexts are [] and no "
        "context provider runs, and contexts are forced to [] after the waterfall; one off the "
        "chain suppresses nothing.",
        _SECTION,
        "evaluate context texts, unless a suppressor exists in the global layer or on the "
        "chain, in which case contexts are `[]` and no context provider runs … if suppressed, "
        "force contexts to `[]`.",
        cases=(
            "pipeline/global-suppressor-suppresses-contexts",
            "pipeline/suppressor-on-the-chain-suppresses",
            "pipeline/suppressor-off-the-chain-does-not-suppress",
            "pipeline/suppressors-released-one-by-one",
            "pipeline/short-circuiting-listener-still-gets-final-constraints",
        ),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-PIPELINE.10",
        "`includeRuntimeContext: false` is a global suppressor.",
        "Configuration",
        "`includeRuntimeContext` (default true; false = a global suppressor)",
        cases=("pipeline/include-runtime-context-false-suppresses",),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-PIPELINE.11",
        "Sections and contexts come out of an assembly uninterpolated; a reference render would "
        "reject does not fail the assembly.",
        _SECTION,
        "Sections and contexts come out uninterpolated.",
        cases=("pipeline/sections-and-contexts-come-out-uninterpolated",),
    ),
    Requirement(
        "PROMPT-ASSEMBLY-PIPELINE.12",
        "The registry's output before the waterfall is deterministic.",
        _SECTION,
        "Registry output before the waterfall is deterministic.",
        unchecked="every case presumes it (each compares one exact output), but no finite "
        "number of runs can show that an output is deterministic.",
    ),
    Requirement(
        "PROMPT-ASSEMBLY-PIPELINE.13",
        "Variables and tool providers are read only from the layers on the chain when the "
        "assembly starts: a tool provider a variable provider registers into a layer that did "
        "not exist then is not seen until the next assembly.",
        _SECTION,
        "variables (step 1) and tool providers (step 3) are read from those layers only … and a "
        "tool provider registered the same way is not",
        cases=("pipeline/variable-provider-creates-a-layer-its-tool-provider-waits",),
    ),
)
