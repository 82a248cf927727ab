"""Plausible wrong implementations: the reference model with exactly one behaviour changed.

Each is a `reference.harness.Driver` subclass the suite must reject under one contract ID
(`WRONG_IMPLEMENTATIONS` says which). Some replace a module-level function of the reference when
the driver is created, for the life of the process, so these drivers are only ever loaded into a
throwaway process (``tests/gallery/test_gallery.py`` runs ``dsh-conformance`` once per driver).
"""

from __future__ import annotations

import copy
from typing import Final

from reference import render, tool_order
from reference.assembly import Assembly, ToolSchema
from reference.config import PromptConfig
from reference.deepseek import translate, wire
from reference.harness import Driver
from reference.registry import AssembleContext, PromptRegistry, _layer_chain, _resolve


class DuplicateNamesReplace(Driver):
    """A second section, context or variable named like one in the same layer replaces it."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            def _add_named(self, kind, table, entry, scope):  # type: ignore[no-untyped-def]
                table.pop(entry.name, None)
                return super()._add_named(kind, table, entry, scope)

        return Registry(config)


class FarthestLayerWins(Driver):
    """Layers overlay from the nearest scope outwards, so the global layer wins a name."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            def _effective(self, chain, table):  # type: ignore[no-untyped-def]
                return super()._effective(list(reversed(chain)), table)

        return Registry(config)


class EvaluatesShadowedProviders(Driver):
    """Shadowed section and context providers are still called (their text then discarded)."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            async def assemble(self, context: AssembleContext | None = None) -> Assembly:
                context = context or AssembleContext()
                layers = self._existing_layers(_layer_chain(context.scope))
                for table in ("sections", "contexts"):
                    for index, layer in enumerate(layers):
                        nearer = [getattr(later, table) for later in layers[index + 1 :]]
                        for name, entry in getattr(layer, table).items():
                            if callable(entry.text) and any(name in t for t in nearer):
                                await _resolve(entry.text(context))
                return await super().assemble(context)

        return Registry(config)


class NoFinalConstraints(Driver):
    """The waterfall's result is returned as is: no complete-section restore, no suppression."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            @staticmethod
            def _apply_final_constraints(result, remembered, suppressed):  # type: ignore[no-untyped-def]
                return result

        return Registry(config)


class SharedToolParameters(Driver):
    """Tool ``parameters`` are kept by reference, so mutating an assembly reaches the provider."""

    def __init__(self) -> None:
        def keep(schema):  # type: ignore[no-untyped-def]
            return ToolSchema(schema["name"], schema.get("description", ""), schema["parameters"])

        ToolSchema.keep = staticmethod(keep)  # type: ignore[method-assign,assignment]


class SnapshotVariables(Driver):
    """Variables are evaluated from a snapshot of the layer tables, taken before any runs."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            async def _evaluate_variables(self, chain, context):  # type: ignore[no-untyped-def]
                entries = [
                    entry
                    for layer in self._existing_layers(chain)
                    for entry in copy.copy(layer.variables).values()
                ]
                return {entry.name: await _resolve(entry.provider(context)) for entry in entries}

        return Registry(config)


class RescanningRenderer(Driver):
    """Substituted values are scanned again, so a value containing ``{{x}}`` is expanded too."""

    def __init__(self) -> None:
        once = render.interpolate

        def twice(text, variables, *, where):  # type: ignore[no-untyped-def]
            return once(once(text, variables, where=where), variables, where=where)

        render.interpolate = twice  # type: ignore[assignment]


class CodePointToolOrder(Driver):
    """Tools sorted with plain ``sorted()`` (code points), not by UTF-16 code units."""

    def __init__(self) -> None:
        tool_order.code_unit_key = lambda name: name  # type: ignore[assignment,return-value]


class NullContentForToolCalls(Driver):
    """An assistant turn that only calls tools sends ``content: null``, as OpenAI's docs show."""

    def __init__(self) -> None:
        serialize = wire.wire_assistant

        def with_null(content, where):  # type: ignore[no-untyped-def]
            message = serialize(content, where)
            if "tool_calls" in message and not message["content"]:
                message["content"] = None
            return message

        wire.wire_assistant = with_null


class NoStreamOptions(Driver):
    """The body leaves out ``stream_options``, so the provider sends no usage."""

    def __init__(self) -> None:
        build = wire.request_body

        def without(request):  # type: ignore[no-untyped-def]
            body = build(request)
            del body["stream_options"]
            return body

        wire.request_body = without


class CacheDirectiveOnSystem(Driver):
    """The system message carries an Anthropic-style ``cache_control`` directive."""

    def __init__(self) -> None:
        build = wire.request_body

        def with_directive(request):  # type: ignore[no-untyped-def]
            body = build(request)
            for message in body["messages"]:
                if message["role"] == "system":
                    message["cache_control"] = {"type": "ephemeral"}
            return body

        wire.request_body = with_directive


class UsageCountsCacheReadsAsInput(Driver):
    """``inputTokens`` is ``prompt_tokens`` as is: cache reads are counted twice."""

    def __init__(self) -> None:
        usage_of = translate.map_usage

        def overlapping(usage):  # type: ignore[no-untyped-def]
            mapped = usage_of(usage)
            mapped["inputTokens"] = usage["prompt_tokens"]
            return mapped

        translate.map_usage = overlapping


class ToolResultsBeforeUserText(Driver):
    """A user message's tool results are sent before its text (in block order)."""

    def __init__(self) -> None:
        serialize = wire.wire_user

        def results_first(content, where):  # type: ignore[no-untyped-def]
            messages = serialize(content, where)
            return sorted(messages, key=lambda message: message["role"] != "tool")

        wire.wire_user = results_first


#: Each wrong implementation, and the contract ID under which the suite must reject it.
WRONG_IMPLEMENTATIONS: Final = {
    "DuplicateNamesReplace": "PROMPT-REGISTRY-CONTRACT",
    "FarthestLayerWins": "DESIGN-SCOPED-LAYERS",
    "EvaluatesShadowedProviders": "PROMPT-SCOPE-SHADOW",
    "NoFinalConstraints": "PROMPT-ASSEMBLY-PIPELINE",
    "SharedToolParameters": "PROMPT-ASSEMBLY-MUTATION-TEST",
    "SnapshotVariables": "PROMPT-VARIABLE-TEST",
    "RescanningRenderer": "PROMPT-STRICT-RENDER",
    "CodePointToolOrder": "PROMPT-TOOL-ORDER",
    "NullContentForToolCalls": "PROMPT-DEEPSEEK-WIRE",
    "NoStreamOptions": "PROMPT-DEEPSEEK-WIRE",
    "CacheDirectiveOnSystem": "PROMPT-DEEPSEEK-WIRE",
    "UsageCountsCacheReadsAsInput": "PROMPT-DEEPSEEK-WIRE",
    "ToolResultsBeforeUserText": "PROMPT-DEEPSEEK-WIRE",
}
