"""Plausible wrong implementations: the reference model with exactly one behaviour changed.

Each is a `reference.harness.Driver` subclass the suite must reject under one contract ID
(`WRONG_IMPLEMENTATIONS` says which). Some replace a module-level function of the reference when
the driver is created, for the life of the process, so these drivers are only ever loaded into a
throwaway process (``tests/gallery/test_gallery.py`` runs ``dsh-conformance`` once per driver).
"""

from __future__ import annotations

import copy
from typing import Final

from reference import registry, render, tool_order
from reference.assembly import Assembly, ToolSchema
from reference.config import PromptConfig
from reference.harness import Driver
from reference.registry import AssembleContext, PromptRegistry, _layer_chain, _resolve


class DuplicateNamesReplace(Driver):
    """A second section, context or variable named like one in the same layer replaces it."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            def _add_named(self, kind, table_name, entry, scope):  # type: ignore[no-untyped-def]
                getattr(self._layer(scope), table_name).pop(entry.name, None)
                return super()._add_named(kind, table_name, entry, scope)

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


class VariableTablesWithoutGenerations(Driver):
    """Variables are read from whatever layer exists when the iteration reaches it, and a
    table's iteration goes on after its last variable was released (no new generation)."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            async def _evaluate_variables(self, chain, context):  # type: ignore[no-untyped-def]
                values = {}
                for key in chain:
                    reached: set[object] = set()
                    while True:
                        layer = self._layers.get(key)
                        table = layer.variables if layer is not None else {}
                        entry = next((e for e in table.values() if e not in reached), None)
                        if entry is None:
                            break
                        reached.add(entry)
                        values[entry.name] = await _resolve(entry.provider(context))
                return values

        return Registry(config)


class KeepsRegistrationWhenNotifyFails(Driver):
    """A registration whose change notification throws stays registered (with no handle)."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            def _commit(self, change, layer, remove):  # type: ignore[no-untyped-def]
                observers, self._observers = self._observers, []
                try:
                    registration = super()._commit(change, layer, remove)
                finally:
                    self._observers = observers
                self._notify(change)
                return registration

        return Registry(config)


class DeduplicatedToolNames(Driver):
    """Tools are keyed by name, so of several schemas sharing a name only the last is kept."""

    def __init__(self) -> None:
        ordered = registry.order_tools

        def order_tools(schemas, known_names, tool_order):  # type: ignore[no-untyped-def]
            by_name = {schema.name: schema for schema in schemas}
            return ordered(by_name.values(), known_names, tool_order)

        registry.order_tools = order_tools  # type: ignore[assignment]


class LastListenerOutermost(Driver):
    """The waterfall composes the last registered listener outermost."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            async def _waterfall(self, assembly, context, chain):  # type: ignore[no-untyped-def]
                self._listeners.reverse()
                try:
                    return await super()._waterfall(assembly, context, chain)
                finally:
                    self._listeners.reverse()

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


#: Each wrong implementation, and the contract ID under which the suite must reject it.
WRONG_IMPLEMENTATIONS: Final = {
    "DuplicateNamesReplace": "PROMPT-REGISTRY-CONTRACT",
    "FarthestLayerWins": "DESIGN-SCOPED-LAYERS",
    "EvaluatesShadowedProviders": "PROMPT-SCOPE-SHADOW",
    "NoFinalConstraints": "PROMPT-ASSEMBLY-PIPELINE",
    "SharedToolParameters": "PROMPT-ASSEMBLY-MUTATION-TEST",
    "SnapshotVariables": "PROMPT-VARIABLE-TEST",
    "VariableTablesWithoutGenerations": "PROMPT-VARIABLE-TEST",
    "KeepsRegistrationWhenNotifyFails": "PROMPT-REGISTRY-CONTRACT",
    "DeduplicatedToolNames": "PROMPT-TOOL-ORDER",
    "LastListenerOutermost": "DESIGN-SCOPED-LAYERS",
    "RescanningRenderer": "PROMPT-STRICT-RENDER",
    "CodePointToolOrder": "PROMPT-TOOL-ORDER",
}
