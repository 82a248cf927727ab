"""DESIGN-SCOPED-LAYERS, one rule per requirement (CONTRACTS.md, "DESIGN-SCOPED-LAYERS and
PROMPT-SCOPE-SHADOW")."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "DESIGN-SCOPED-LAYERS"
_SECTION: Final = "DESIGN-SCOPED-LAYERS and PROMPT-SCOPE-SHADOW"

REQUIREMENTS: Final = (
    Requirement(
        "DESIGN-SCOPED-LAYERS.1",
        "An assembly for scope S sees the global layer, then every existing layer on S's chain "
        "from the farthest ancestor to S, and no other scope's layer (not a sibling's, not a "
        "descendant's).",
        _SECTION,
        "An assembly for scope S sees the global layer, then every existing layer on S's chain "
        "from the farthest ancestor to S itself",
        cases=(
            "scopes/nearest-existing-layer-wins",
            "scopes/layers-merge-distinct-names",
            "scopes/sibling-scopes-do-not-see-each-other",
            "scopes/register-says-scope-since-1-1",
            "scopes/releasing-one-registration-keeps-the-rest-of-the-layer",
        ),
    ),
    Requirement(
        "DESIGN-SCOPED-LAYERS.2",
        "For sections, contexts and variables the nearest layer holding a name wins it, among "
        "the registrations in force.",
        _SECTION,
        "for sections, contexts and variables the nearest layer wins a name.",
        cases=(
            "scopes/nearest-section-wins-on-a-chain-of-three",
            "scopes/nearest-context-wins-on-a-chain-of-three",
            "scopes/nearest-variable-wins-on-a-chain-of-three",
            "scopes/released-scoped-context-lets-the-global-one-show-again",
            "scopes/scoped-persona-replaces-global-persona-in-its-scope-only",
            "scopes/scoped-identity-shadows-builtin-identity",
        ),
    ),
    Requirement(
        "DESIGN-SCOPED-LAYERS.3",
        "The tool providers of every layer seen contribute, global first, then farthest to "
        "nearest.",
        _SECTION,
        "Tool providers of all those layers contribute (global first, then farthest→nearest).",
        cases=("scopes/tool-providers-of-every-chain-layer-contribute",),
    ),
    Requirement(
        "DESIGN-SCOPED-LAYERS.4",
        "Every provider and listener of an assembly is given its assembly context; an agent's "
        "assembly carries the agent as both `agent` and `scope`.",
        _SECTION,
        "In the loop, the assembly context carries the agent as both `agent` and `scope`.",
        cases=(
            "scopes/providers-and-listeners-get-the-assembly-context",
            "loop/providers-get-the-agent-as-agent-and-scope",
            "loop/listeners-get-the-agent-as-agent-and-scope",
        ),
    ),
    Requirement(
        "DESIGN-SCOPED-LAYERS.5",
        "Sections and contexts sort ascending by their own order, ties by position in the "
        "effective map (global, then farthest to nearest), where a shadowing entry takes the "
        "shadowed entry's position.",
        _SECTION,
        "Ordering: sections and contexts sort ascending by `order`, ties by position in the "
        "effective map, where an entry that shadows a name takes the shadowed entry's position.",
        cases=(
            "scopes/ties-by-layer-then-registration-position",
            "scopes/shadowing-section-takes-shadowed-position",
            "scopes/shadowing-context-takes-shadowed-position",
            "scopes/shadowing-entry-keeps-its-own-order",
        ),
    ),
    Requirement(
        "DESIGN-SCOPED-LAYERS.6",
        "An unscoped waterfall listener sees every assembly; a scoped one sees the assemblies "
        "of its scope and its descendants only.",
        _SECTION,
        "an unscoped listener sees every assembly; a scoped listener sees assemblies of its "
        "scope and of that scope's descendants only.",
        cases=("scopes/scoped-listener-sees-its-scope-and-descendants",),
    ),
    Requirement(
        "DESIGN-SCOPED-LAYERS.7",
        "Waterfall listeners (and providers, where asynchronous ones are accepted) may block on "
        "a gate or on the assembly's abort signal, which they are given with its reason; one "
        "blocked assembly holds up no other.",
        _SECTION,
        "`system-prompt/assemble` listeners are asynchronous and may block (await a gate or the "
        "abort signal).",
        cases=(
            "scopes/listener-waiting-for-the-abort-signal",
            "scopes/listener-gates-are-independent-and-stay-open",
            "scopes/provider-waiting-for-the-abort-signal",
            "scopes/abort-reasons-reach-the-assembly-context",
            "scopes/already-aborted-assembly",
        ),
    ),
    Requirement(
        "DESIGN-SCOPED-LAYERS.8",
        "A listener that does not call `next` makes its own result authoritative: inner "
        "listeners and the registry's own step do not run.",
        _SECTION,
        "or not call `next` at all (its own result is then authoritative for everything inside "
        "it).",
        cases=("pipeline/listener-without-next-owns-the-result",),
    ),
    Requirement(
        "DESIGN-SCOPED-LAYERS.9",
        "Listeners compose outermost-first in registration order.",
        _SECTION,
        "Listeners compose outermost-first in registration order (the first registered is "
        "outermost)",
        cases=("scopes/listeners-compose-outermost-first-in-registration-order",),
    ),
    Requirement(
        "DESIGN-SCOPED-LAYERS.10",
        "Every listener and the innermost step share one payload object: an in-place edit made "
        "before `next` is what inner listeners see.",
        _SECTION,
        "every listener and the innermost step share the one payload object, so an in-place "
        "edit made before `next` is what inner listeners see.",
        cases=("scopes/listeners-share-one-payload-object",),
    ),
    Requirement(
        "DESIGN-SCOPED-LAYERS.11",
        "Disposing a scope (PROTOCOL.md's `dispose`) releases each registration and listener "
        "made in it, each release with its change notification; an empty scope releases "
        "nothing.",
        "PROMPT-REGISTRY-CONTRACT",
        "Every registration and every release emits one `system-prompt/change` notification "
        "(unfiltered).",
        cases=(
            "scopes/disposing-a-scope-releases-what-it-holds",
            "scopes/disposing-an-empty-scope",
        ),
    ),
    Requirement(
        "DESIGN-SCOPED-LAYERS.12",
        "A sub-agent's scope has its parent's scope as parent: an agent created with a parent "
        "scope assembles with the parent's layer on its chain.",
        _SECTION,
        "Scopes form chains (a sub-agent's scope has its parent's scope as parent).",
        cases=("loop/an-agent-with-a-parent-scope-sees-the-parent-layers",),
    ),
    Requirement(
        "DESIGN-SCOPED-LAYERS.13",
        "Only the loop gives an assembly its agent: an assembly for a scope that is no agent's "
        "own carries no `agent` in its context (PROTOCOL.md's `assemble` passes `{scope, "
        "signal}` there).",
        _SECTION,
        "In the loop, the assembly context carries the agent as both `agent` and `scope`.",
        cases=(
            "scopes/assemble-passes-no-agent-outside-an-agents-scope",
            "loop/assemble-in-an-agents-scope-passes-the-agent",
        ),
    ),
)
