"""Wrong implementations of the prompt half: registry, layers, assembly, variables, render.

See the package's docstring for what a wrong implementation is and how the gallery runs it.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import re
from typing import Any

from reference import registry, render, tool_order
from reference.assembly import Assembly, ToolSchema
from reference.config import PromptConfig
from reference.errors import ContractError
from reference.harness import Driver
from reference.harness import loop as loop_harness
from reference.harness import registry as registry_harness
from reference.jsonvalue import Json
from reference.loop import Agent
from reference.registry import AssembleContext, PromptRegistry, _layer_chain, _resolve

from .base import WrongLoop, patched, wrong


@wrong("PROMPT-REGISTRY-CONTRACT")
class DuplicateNamesReplace(Driver):
    """A second section, context or variable named like one in the same layer replaces it."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            def _add_named(self, kind, table_name, entry, scope):  # type: ignore[no-untyped-def]
                getattr(self._layer(scope), table_name).pop(entry.name, None)
                return super()._add_named(kind, table_name, entry, scope)

        return Registry(config)


@wrong("DESIGN-SCOPED-LAYERS")
class FarthestLayerWins(Driver):
    """Layers overlay from the nearest scope outwards, so the global layer wins a name."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            def _effective(self, chain, table):  # type: ignore[no-untyped-def]
                return super()._effective(list(reversed(chain)), table)

        return Registry(config)


@wrong("PROMPT-SCOPE-SHADOW")
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


@wrong("PROMPT-ASSEMBLY-PIPELINE")
class NoFinalConstraints(Driver):
    """The waterfall's result is returned as is: no complete-section restore, no suppression."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            @staticmethod
            def _apply_final_constraints(result, remembered, suppressed):  # type: ignore[no-untyped-def]
                return result

        return Registry(config)


@wrong("PROMPT-ASSEMBLY-MUTATION-TEST")
class SharedToolParameters(Driver):
    """Tool ``parameters`` are kept by reference, so mutating an assembly reaches the provider."""

    def __init__(self) -> None:
        def keep(schema):  # type: ignore[no-untyped-def]
            return ToolSchema(schema["name"], schema.get("description", ""), schema["parameters"])

        ToolSchema.keep = staticmethod(keep)  # type: ignore[method-assign,assignment]


@wrong("PROMPT-VARIABLE-TEST")
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


@wrong("PROMPT-VARIABLE-TEST")
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


@wrong("PROMPT-REGISTRY-CONTRACT")
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


@wrong("PROMPT-TOOL-ORDER")
@patched(registry, "order_tools")
def DeduplicatedToolNames(ordered, schemas, known_names, tool_order):
    """Tools are keyed by name, so of several schemas sharing a name only the last is kept."""
    by_name = {schema.name: schema for schema in schemas}
    return ordered(by_name.values(), known_names, tool_order)


@wrong("DESIGN-SCOPED-LAYERS")
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


@wrong("DESIGN-SCOPED-LAYERS")
class InnerListenersRunAnyway(Driver):
    """A listener that does not call ``next`` does not stop the inner listeners from running."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            def add_assemble_listener(self, listener, *, scope=None):  # type: ignore[no-untyped-def]
                async def always_next(payload, context, next_):  # type: ignore[no-untyped-def]
                    called = False

                    async def tracked_next():  # type: ignore[no-untyped-def]
                        nonlocal called
                        called = True
                        return await next_()

                    result = await _resolve(listener(payload, context, tracked_next))
                    if not called:
                        await next_()
                    return result

                return super().add_assemble_listener(always_next, scope=scope)

        return Registry(config)


@wrong("PROMPT-ASSEMBLY-PIPELINE")
class FinalConstraintsOnlyAfterTheInnermostStep(Driver):
    """Step 9 is skipped when a listener short-circuits the waterfall (never reaches its end)."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            reached = False

            async def _waterfall(self, assembly, context, chain):  # type: ignore[no-untyped-def]
                async def innermost(payload, context, next_):  # type: ignore[no-untyped-def]
                    self.reached = True
                    return await next_()

                self.reached = False
                handle = self.add_assemble_listener(innermost)
                try:
                    return await super()._waterfall(assembly, context, chain)
                finally:
                    handle.release()

            def _apply_final_constraints(self, result, remembered, suppressed):  # type: ignore[no-untyped-def,override]
                if not self.reached:
                    return result
                return PromptRegistry._apply_final_constraints(result, remembered, suppressed)

        return Registry(config)


@wrong("PROMPT-REGISTRY-CONTRACT")
class ReleaseIsNotIdempotent(Driver):
    """Every call of ``release()`` runs the release again, so a second one notifies again."""

    def __init__(self) -> None:
        def release(self):  # type: ignore[no-untyped-def]
            if self._undo is not None:
                self._undo()

        registry.Registration.release = release  # type: ignore[method-assign]


@wrong("PROMPT-ASSEMBLY-PIPELINE")
class SuppressorIsAFlag(Driver):
    """A layer's suppression is one flag: every suppressor of a layer shares the first one's
    handle, so releasing any of them turns suppression off."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            flags: dict[object, registry.Registration]

            def add_suppressor(self, *, scope=None):  # type: ignore[no-untyped-def]
                if not hasattr(self, "flags"):
                    self.flags = {}
                layer = self._layers.get(scope)
                if layer is None or not layer.suppressors:
                    self.flags[scope] = super().add_suppressor(scope=scope)
                return self.flags[scope]

        return Registry(config)


@wrong("PROMPT-REGISTRY-CONTRACT")
@patched(registry, "_finite_order")
def NegativeZeroBeforeZero(finite_order, kind, name, order):
    """Orders compare in a total order (like Java's ``Double.compare``): -0 sorts before 0."""
    value = finite_order(kind, name, order)
    return -5e-324 if value == 0 and math.copysign(1, value) < 0 else value


@wrong("DESIGN-SCOPED-LAYERS")
class ReleaseRemovesTheNameEverywhere(Driver):
    """Releasing a scoped section or context removes that name from every layer."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            def _add_named(self, kind, table_name, entry, scope):  # type: ignore[no-untyped-def]
                registration = super()._add_named(kind, table_name, entry, scope)

                def release() -> None:
                    registration.release()
                    if table_name != "variables":
                        for layer in self._layers.values():
                            getattr(layer, table_name).pop(entry.name, None)

                return registry.Registration(release)

        return Registry(config)


@wrong("PROMPT-STRICT-RENDER")
@patched(render, "interpolate")
def RescanningRenderer(once, text, variables, *, where):
    """Substituted values are scanned again, so a value containing ``{{x}}`` is expanded too."""
    return once(once(text, variables, where=where), variables, where=where)


@wrong("PROMPT-STRICT-RENDER", "test_render_time_grows_linearly")
class QuadraticRenderer(Driver):
    """The upstream's renderer: at every ``{{`` that opens no group, the rest of the text is
    searched for ``}}`` again, the way JavaScript's ``indexOf`` does it (find the first character,
    then check the next). On text with no ``}`` each search is one fast skip and the growth hides;
    a lone ``}`` in every unit makes each search stop at every later ``}``: quadratic."""

    def __init__(self) -> None:
        group = re.compile(r"\{\{([^{}]*)\}\}")

        def index_of_close(text: str, start: int) -> int:
            brace = text.find("}", start)  # one fast skip to the end when there is no `}`
            return -1 if brace == -1 else text.find("}}", brace)

        def rescanning(text, variables, *, where):  # type: ignore[no-untyped-def]
            out: list[str] = []
            literal_from = 0
            i = text.find("{{")
            while i != -1:
                found = group.match(text, i)
                if found:
                    if not render.is_variable_name(found[1]):
                        raise ContractError("render-malformed-reference", where, where=where)
                    value = render.value_of(found[1], variables, where=where)
                    out += [text[literal_from:i], value]
                    literal_from = found.end()
                    i = text.find("{{", literal_from)
                elif index_of_close(text, i + 2) != -1:
                    raise ContractError("render-malformed-reference", where, where=where)
                else:
                    i = text.find("{{", i + 2)
            return "".join([*out, text[literal_from:]])

        render.interpolate = rescanning  # type: ignore[assignment]


@wrong("PROMPT-TOOL-ORDER")
class CodePointToolOrder(Driver):
    """Tools sorted with plain ``sorted()`` (code points), not by UTF-16 code units."""

    def __init__(self) -> None:
        tool_order.code_unit_key = lambda name: name  # type: ignore[assignment,return-value]


@wrong("DESIGN-SCOPED-LAYERS", "loop/assemble-in-an-agents-scope-passes-the-agent")
@patched(loop_harness.LoopOps, "_create")
def AssembleOpPassesNoAgent(create, self, op):
    """The `assemble` op passes `{scope, signal}` only, even for an agent's own scope."""
    created = create(self, op)
    agent = self.agents.get(op["agent"])
    if agent is not None:
        self.scenario.agent_scopes.discard(agent.scope)
    return created


@wrong("PROMPT-ASSEMBLY-PIPELINE", "pipeline/a-throwing-listener-rejects-the-assembly")
@patched(registry_harness.RegistryOps, "_listen")
def ListenerFailureUnscripted(listen, self, op):
    """A LISTENER's `fails` is reported as a registry contract error (`invalid-order`) instead
    of the scripted failure: the harness misfiles its own throw. (In a loop any throw ends the
    turn `UNKNOWN`, so only an `assemble` op shows it.)"""
    registry_ = self.scenario.registry
    add = registry_.add_assemble_listener

    def adding(listener, scope):
        async def failing(payload, context, next_):
            try:
                return await listener(payload, context, next_)
            except registry_harness.ScriptedFailure as error:
                raise ContractError("invalid-order", str(error)) from None

        return add(failing, scope=scope)

    registry_.add_assemble_listener = adding
    try:
        listen(self, op)
    finally:
        del registry_.add_assemble_listener


@wrong("PROMPT-REGISTRY-CONTRACT", "registry/config-toolOrder-null-means-absent")
class NullToolOrderRejected(Driver):
    """Like the upstream: ``toolOrder: null`` fails at load (a TypeError there; `config-invalid`
    here) instead of meaning absent. Every other null field still means absent."""

    def __init__(self) -> None:
        load = PromptConfig.load.__func__  # type: ignore[attr-defined]

        def strict(cls, raw):  # type: ignore[no-untyped-def]
            if isinstance(raw, dict) and "toolOrder" in raw and raw["toolOrder"] is None:
                raise ContractError("config-invalid", "toolOrder is null", where="toolOrder")
            return load(cls, raw)

        PromptConfig.load = classmethod(strict)  # type: ignore[assignment,method-assign]


@wrong(
    "PROMPT-ASSEMBLY-PIPELINE", "pipeline/variable-provider-creates-a-layer-its-tool-provider-waits"
)
class ToolProvidersFromLayersAtStep3(Driver):
    """Tool providers are read from the chain's layers as they exist at step 3, so one that a
    variable provider registered into a layer it created is seen at once."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            async def assemble(self, context: AssembleContext | None = None) -> Assembly:
                chain = _layer_chain((context or AssembleContext()).scope)
                evaluate = self._evaluate_tool_providers

                async def live(layers, context):  # type: ignore[no-untyped-def]
                    return await evaluate(self._existing_layers(chain), context)

                self._evaluate_tool_providers = live  # type: ignore[method-assign]
                try:
                    return await super().assemble(context)
                finally:
                    del self._evaluate_tool_providers

        return Registry(config)


@wrong("PROMPT-ASSEMBLY-PIPELINE", "pipeline/variable-provider-creates-a-layer-its-section-is-seen")
class SectionMapsFromLayersAtStart(Driver):
    """The section and context maps are formed from the layers that existed when the assembly
    started, so a section a variable provider registered into a layer it created is missed."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            async def assemble(self, context: AssembleContext | None = None) -> Assembly:
                start = set(
                    map(
                        id,
                        self._existing_layers(_layer_chain((context or AssembleContext()).scope)),
                    )
                )
                existing = self._existing_layers

                def at_start(chain):  # type: ignore[no-untyped-def]
                    return [layer for layer in existing(chain) if id(layer) in start]

                self._existing_layers = at_start  # type: ignore[method-assign]
                try:
                    return await super().assemble(context)
                finally:
                    del self._existing_layers

        return Registry(config)


@wrong("DESIGN-SCOPED-LAYERS", "loop/an-agent-with-a-parent-scope-sees-the-parent-layers")
class ParentScopeDropped(WrongLoop):
    """An agent's scope loses its parent: its assemblies see the global layer and its own."""

    class agent_class(Agent):
        def __init__(self, **options: Any) -> None:
            super().__init__(**options)
            object.__setattr__(self.scope, "parent", None)


@wrong("DESIGN-SCOPED-LAYERS", "scopes/assemble-passes-no-agent-outside-an-agents-scope")
class AgentForEveryScope(Driver):
    """Every assembly context carries its scope as `agent` too, even for a scope no agent owns."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            async def assemble(self, context: AssembleContext | None = None) -> Assembly:
                context = context or AssembleContext()
                return await super().assemble(dataclasses.replace(context, agent=context.scope))

        return Registry(config)


@wrong(
    "PROMPT-REGISTRY-CONTRACT",
    "registry/builtin-names-taken-in-global-layer",
    "registry/duplicate-context-same-layer",
    "registry/duplicate-section-same-layer",
    "registry/duplicate-variable-same-layer",
    "registry/rejected-duplicate-leaves-registry-unchanged",
)
class DuplicateNamesTheLayer(Driver):
    """A duplicate registration names the layer where the names clash as `where`, not the name
    (PROTOCOL.md's error table: "the name")."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        class Registry(PromptRegistry):
            def _add_named(self, kind, table_name, entry, scope):  # type: ignore[no-untyped-def]
                try:
                    return super()._add_named(kind, table_name, entry, scope)
                except ContractError as error:
                    if error.kind != "duplicate-registration":
                        raise
                    layer = "global" if scope is None else scope.name
                    raise ContractError(error.kind, f"taken in {layer}", where=layer) from None

        return Registry(config)


@wrong(
    "PROMPT-REGISTRY-CONTRACT",
    "test_a_case_it_cannot_run_is_answered_errored_in_the_protocol_shape",
)
class ErroredContextMisspelt(Driver):
    """The `errored` answer of a case it cannot run carries its context under a misspelt key
    (`CONTEXT`), as `Driver.handle` mutant 53 does: every other answer is the reference's."""

    def handle(self, message: Json) -> Json:
        answer = super().handle(message)
        if isinstance(answer, dict) and answer.get("type") == "errored" and "context" in answer:
            answer["CONTEXT"] = answer.pop("context")
        return answer
