"""Wrong implementations of the prompt half: registry, layers, assembly, variables, render.

See the package's docstring for what a wrong implementation is and how the gallery runs it.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import re

from dsh_reference import registry, render, tool_order
from dsh_reference.assembly import ToolSchema
from dsh_reference.config import PromptConfig
from dsh_reference.errors import ContractError
from dsh_reference.harness import Driver
from dsh_reference.harness import loop as loop_harness
from dsh_reference.harness import registry as registry_harness
from dsh_reference.loop import Agent
from dsh_reference.registry import AssembleContext, PromptRegistry, _layer_chain, _resolve

from .base import patched, wrong


@wrong(
    "PROMPT-REGISTRY-CONTRACT",
    "registry/builtin-names-taken-in-global-layer",
    "registry/duplicate-section-same-layer",
    "registry/duplicate-context-same-layer",
    "registry/duplicate-variable-same-layer",
    "registry/rejected-duplicate-leaves-registry-unchanged",
)
@patched(PromptRegistry, "_add_named")
def DuplicateNamesReplace(add_named, self, kind, table_name, entry, scope):
    """A second section, context or variable named like one in the same layer replaces it."""
    getattr(self._layer(scope), table_name).pop(entry.name, None)
    return add_named(self, kind, table_name, entry, scope)


@wrong(
    "DESIGN-SCOPED-LAYERS",
    "scopes/nearest-section-wins-on-a-chain-of-three",
    "scopes/nearest-context-wins-on-a-chain-of-three",
    "scopes/nearest-existing-layer-wins",
    "scopes/ties-by-layer-then-registration-position",
    "scopes/shadowing-section-takes-shadowed-position",
    "scopes/shadowing-context-takes-shadowed-position",
    "scopes/shadowing-entry-keeps-its-own-order",
    "scopes/scoped-persona-replaces-global-persona-in-its-scope-only",
    "scopes/scoped-identity-shadows-builtin-identity",
    "scopes/released-scoped-context-lets-the-global-one-show-again",
)
@patched(PromptRegistry, "_effective")
def FarthestLayerWins(effective, self, chain, table):
    """Layers overlay from the nearest scope outwards, so the global layer wins a name."""
    return effective(self, list(reversed(chain)), table)


@wrong(
    "PROMPT-SCOPE-SHADOW",
    "scope-shadow/shadowed-section-provider-not-evaluated",
    "scope-shadow/shadowed-context-provider-not-evaluated",
    "scope-shadow/only-the-nearest-of-four-providers-runs",
    "scope-shadow/shadowed-failing-provider-is-harmless",
    "scope-shadow/shadowed-blocking-provider-is-not-awaited",
    "scope-shadow/shadowing-is-per-scope",
    "scope-shadow/released-shadow-unshadows",
    "scope-shadow/maps-formed-before-text-evaluation",
)
@patched(PromptRegistry, "assemble")
async def EvaluatesShadowedProviders(assemble, self, context=None):
    """Shadowed section and context providers are still called (their text then discarded)."""
    context = context or AssembleContext()
    layers = self._existing_layers(_layer_chain(context.scope))
    for table in ("sections", "contexts"):
        for index, layer in enumerate(layers):
            nearer = [getattr(later, table) for later in layers[index + 1 :]]
            for name, entry in getattr(layer, table).items():
                if callable(entry.text) and any(name in t for t in nearer):
                    await _resolve(entry.text(context))
    return await assemble(self, context)


@wrong(
    "PROMPT-ASSEMBLY-PIPELINE",
    "pipeline/complete-section-is-the-only-section",
    "pipeline/complete-section-restored-after-listener-edits",
    "pipeline/complete-section-restored-with-its-evaluated-text",
    "pipeline/complete-sections-counted-across-layers",
    "pipeline/complete-section-shadowed-by-non-complete",
    "pipeline/complete-section-skips-nothing-else",
    "pipeline/global-suppressor-suppresses-contexts",
    "pipeline/suppressor-on-the-chain-suppresses",
    "pipeline/include-runtime-context-false-suppresses",
    "pipeline/suppressor-off-the-chain-does-not-suppress",
    "pipeline/short-circuiting-listener-still-gets-final-constraints",
    "pipeline/complete-section-restored-after-an-in-place-edit",
)
@patched(PromptRegistry, "_apply_final_constraints")
def NoFinalConstraints(apply, result, remembered, suppressed):
    """The waterfall's result is returned as is: no complete-section restore, no suppression."""
    return result


@wrong("PROMPT-ASSEMBLY-MUTATION-TEST", "mutation/returned-tool-parameters-are-structural-copies")
@patched(ToolSchema, "keep")
def SharedToolParameters(keep, schema):
    """Tool ``parameters`` are kept by reference, so mutating an assembly reaches the provider."""
    return ToolSchema(schema["name"], schema.get("description", ""), schema["parameters"])


@wrong(
    "PROMPT-VARIABLE-TEST",
    "mutation/variable-registered-during-variable-evaluation",
    "variables/registrations-during-evaluation-chain",
    "variables/global-provider-registers-scoped-variable",
    "variables/released-before-its-turn-is-not-evaluated",
    "variables/self-replacement-beside-another-variable-is-evaluated-now",
    "variables/provider-releasing-a-later-scoped-variable",
    "variables/layer-re-created-mid-assembly-is-not-visited",
)
@patched(PromptRegistry, "_evaluate_variables")
async def SnapshotVariables(evaluate, self, chain, context):
    """Variables are evaluated from a snapshot of the layer tables, taken before any runs."""
    layers = self._existing_layers(chain)
    entries = [entry for layer in layers for entry in copy.copy(layer.variables).values()]
    return {entry.name: await _resolve(entry.provider(context)) for entry in entries}


@wrong(
    "PROMPT-VARIABLE-TEST",
    "variables/self-replacement-alone-in-its-table-waits-for-the-next-assembly",
    "variables/layer-created-mid-assembly-is-not-visited",
    "variables/layer-re-created-mid-assembly-is-not-visited",
)
@patched(PromptRegistry, "_evaluate_variables")
async def VariableTablesWithoutGenerations(evaluate, self, chain, context):
    """Variables are read from whatever layer exists when the iteration reaches it, and a
    table's iteration goes on after its last variable was released (no new generation)."""
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


@wrong(
    "PROMPT-REGISTRY-CONTRACT",
    "registry/failed-change-notification-rolls-a-section-back",
    "registry/failed-change-notification-rolls-a-tool-provider-back",
    "registry/failed-change-notification-rolls-back-in-a-scope",
)
@patched(PromptRegistry, "_commit")
def KeepsRegistrationWhenNotifyFails(commit, self, change, layer, remove):
    """A registration whose change notification throws stays registered (with no handle)."""
    observers, self._observers = self._observers, []
    try:
        registration = commit(self, change, layer, remove)
    finally:
        self._observers = observers
    self._notify(change)
    return registration


@wrong(
    "PROMPT-TOOL-ORDER",
    "tool-order/shared-names-kept-in-collection-order",
    "tool-order/shared-names-kept-at-a-listed-position",
    "test_tools_sort_by_utf16_code_units",
    "test_configured_tool_order",
)
@patched(registry, "order_tools")
def DeduplicatedToolNames(ordered, schemas, known_names, tool_order):
    """Tools are keyed by name, so of several schemas sharing a name only the last is kept."""
    by_name = {schema.name: schema for schema in schemas}
    return ordered(by_name.values(), known_names, tool_order)


@wrong(
    "DESIGN-SCOPED-LAYERS",
    "pipeline/listener-without-next-owns-the-result",
    "scopes/listeners-compose-outermost-first-in-registration-order",
    "scopes/listeners-share-one-payload-object",
    "scopes/abort-reasons-reach-the-assembly-context",
    "scopes/listener-gates-are-independent-and-stay-open",
)
@patched(PromptRegistry, "_waterfall")
async def LastListenerOutermost(waterfall, self, assembly, context, chain):
    """The waterfall composes the last registered listener outermost."""
    self._listeners.reverse()
    try:
        return await waterfall(self, assembly, context, chain)
    finally:
        self._listeners.reverse()


@wrong("DESIGN-SCOPED-LAYERS", "pipeline/listener-without-next-owns-the-result")
@patched(PromptRegistry, "add_assemble_listener")
def InnerListenersRunAnyway(add, self, listener, *, scope=None):
    """A listener that does not call ``next`` does not stop the inner listeners from running."""

    async def always_next(payload, context, next_):
        called = False

        async def tracked_next():
            nonlocal called
            called = True
            return await next_()

        result = await _resolve(listener(payload, context, tracked_next))
        if not called:
            await next_()
        return result

    return add(self, always_next, scope=scope)


@wrong(
    "PROMPT-ASSEMBLY-PIPELINE",
    "pipeline/short-circuiting-listener-still-gets-final-constraints",
)
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


@wrong("PROMPT-REGISTRY-CONTRACT", "registry/second-release-is-a-no-op")
@patched(registry.Registration, "release")
def ReleaseIsNotIdempotent(release, self):
    """Every call of ``release()`` runs the release again, so a second one notifies again."""
    if self._undo is not None:
        self._undo()


@wrong("PROMPT-ASSEMBLY-PIPELINE", "pipeline/suppressors-released-one-by-one")
@patched(PromptRegistry, "add_suppressor")
def SuppressorIsAFlag(add, self, *, scope=None):
    """A layer's suppression is one flag: every suppressor of a layer shares the first one's
    handle, so releasing any of them turns suppression off."""
    flags = self.__dict__.setdefault("flags", {})
    layer = self._layers.get(scope)
    if layer is None or not layer.suppressors:
        flags[scope] = add(self, scope=scope)
    return flags[scope]


@wrong("PROMPT-REGISTRY-CONTRACT", "registry/negative-zero-order-equals-zero")
@patched(registry, "_finite_order")
def NegativeZeroBeforeZero(finite_order, kind, name, order):
    """Orders compare in a total order (like Java's ``Double.compare``): -0 sorts before 0."""
    value = finite_order(kind, name, order)
    return -5e-324 if value == 0 and math.copysign(1, value) < 0 else value


@wrong("DESIGN-SCOPED-LAYERS", "scopes/released-scoped-context-lets-the-global-one-show-again")
@patched(PromptRegistry, "_add_named")
def ReleaseRemovesTheNameEverywhere(add_named, self, kind, table_name, entry, scope):
    """Releasing a scoped section or context removes that name from every layer."""
    registration = add_named(self, kind, table_name, entry, scope)

    def release() -> None:
        registration.release()
        for layer in self._layers.values() if table_name != "variables" else ():
            getattr(layer, table_name).pop(entry.name, None)

    return registry.Registration(release)


@wrong(
    "PROMPT-STRICT-RENDER",
    "render/value-inserted-verbatim-not-rescanned",
    "test_render_follows_the_grammar",
    "test_render_drops_empty_sections_and_joins_the_rest",
)
@patched(render, "interpolate")
def RescanningRenderer(once, text, variables, *, where):
    """Substituted values are scanned again, so a value containing ``{{x}}`` is expanded too."""
    return once(once(text, variables, where=where), variables, where=where)


#: A group `QuadraticRenderer` reads at a ``{{``.
_GROUP = re.compile(r"\{\{([^{}]*)\}\}")


def _index_of_close(text: str, start: int) -> int:
    """JavaScript's ``text.indexOf("}}", start)``: find a ``}``, then check the next."""
    brace = text.find("}", start)  # one fast skip to the end when there is no `}`
    return -1 if brace == -1 else text.find("}}", brace)


@wrong("PROMPT-STRICT-RENDER", "test_render_time_grows_linearly")
@patched(render, "interpolate")
def QuadraticRenderer(interpolate, text, variables, *, where):
    """The upstream's renderer: at every ``{{`` that opens no group, the rest of the text is
    searched for ``}}`` again, the way JavaScript's ``indexOf`` does it (find the first character,
    then check the next). On text with no ``}`` each search is one fast skip and the growth hides;
    a lone ``}`` in every unit makes each search stop at every later ``}``: quadratic."""
    out: list[str] = []
    literal_from, i = 0, text.find("{{")
    while i != -1:
        found = _GROUP.match(text, i)
        if found:
            if not render.is_variable_name(found[1]):
                raise ContractError("render-malformed-reference", where, where=where)
            out += [text[literal_from:i], render.value_of(found[1], variables, where=where)]
            literal_from = found.end()
            i = text.find("{{", literal_from)
        elif _index_of_close(text, i + 2) != -1:
            raise ContractError("render-malformed-reference", where, where=where)
        else:
            i = text.find("{{", i + 2)
    return "".join([*out, text[literal_from:]])


@wrong(
    "PROMPT-TOOL-ORDER",
    "tool-order/astral-names-by-utf16-code-units",
    "tool-order/lone-surrogates-by-utf16-code-units",
    "tool-order/unlisted-at-marker-in-code-unit-order",
    "test_tools_sort_by_utf16_code_units",
    "test_configured_tool_order",
)
@patched(tool_order, "code_unit_key")
def CodePointToolOrder(key, name):
    """Tools sorted with plain ``sorted()`` (code points), not by UTF-16 code units."""
    return name


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
@patched(PromptConfig, "load")
def NullToolOrderRejected(load, raw):
    """Like the upstream: ``toolOrder: null`` fails at load (a TypeError there; `config-invalid`
    here) instead of meaning absent. Every other null field still means absent."""
    if isinstance(raw, dict) and "toolOrder" in raw and raw["toolOrder"] is None:
        raise ContractError("config-invalid", "toolOrder is null", where="toolOrder")
    return load(raw)


@wrong(
    "PROMPT-ASSEMBLY-PIPELINE", "pipeline/variable-provider-creates-a-layer-its-tool-provider-waits"
)
@patched(PromptRegistry, "assemble")
async def ToolProvidersFromLayersAtStep3(assemble, self, context=None):
    """Tool providers are read from the chain's layers as they exist at step 3, so one that a
    variable provider registered into a layer it created is seen at once."""
    chain, evaluate = (
        _layer_chain((context or AssembleContext()).scope),
        self._evaluate_tool_providers,
    )

    async def live(layers, context):
        return await evaluate(self._existing_layers(chain), context)

    self._evaluate_tool_providers = live
    try:
        return await assemble(self, context)
    finally:
        del self._evaluate_tool_providers


@wrong("PROMPT-ASSEMBLY-PIPELINE", "pipeline/variable-provider-creates-a-layer-its-section-is-seen")
@patched(PromptRegistry, "assemble")
async def SectionMapsFromLayersAtStart(assemble, self, context=None):
    """The section and context maps are formed from the layers that existed when the assembly
    started, so a section a variable provider registered into a layer it created is missed."""
    existing = self._existing_layers
    start = set(map(id, existing(_layer_chain((context or AssembleContext()).scope))))
    self._existing_layers = lambda chain: [at for at in existing(chain) if id(at) in start]
    try:
        return await assemble(self, context)
    finally:
        del self._existing_layers


@wrong("DESIGN-SCOPED-LAYERS", "loop/an-agent-with-a-parent-scope-sees-the-parent-layers")
@patched(Agent, "__init__")
def ParentScopeDropped(init, self, **options):
    """An agent's scope loses its parent: its assemblies see the global layer and its own."""
    init(self, **options)
    object.__setattr__(self.scope, "parent", None)


@wrong("DESIGN-SCOPED-LAYERS", "scopes/assemble-passes-no-agent-outside-an-agents-scope")
@patched(PromptRegistry, "assemble")
def AgentForEveryScope(assemble, self, context=None):
    """Every assembly context carries its scope as `agent` too, even for a scope no agent owns."""
    context = context or AssembleContext()
    return assemble(self, dataclasses.replace(context, agent=context.scope))


@wrong(
    "PROMPT-REGISTRY-CONTRACT",
    "registry/builtin-names-taken-in-global-layer",
    "registry/duplicate-context-same-layer",
    "registry/duplicate-section-same-layer",
    "registry/duplicate-variable-same-layer",
    "registry/rejected-duplicate-leaves-registry-unchanged",
)
@patched(PromptRegistry, "_add_named")
def DuplicateNamesTheLayer(add_named, self, kind, table_name, entry, scope):
    """A duplicate registration names the layer where the names clash as `where`, not the name
    (PROTOCOL.md's error table: "the name")."""
    try:
        return add_named(self, kind, table_name, entry, scope)
    except ContractError as error:
        if error.kind != "duplicate-registration":
            raise
        layer = "global" if scope is None else scope.name
        raise ContractError(error.kind, f"taken in {layer}", where=layer) from None


@wrong(
    "PROMPT-REGISTRY-CONTRACT",
    "test_a_case_it_cannot_run_is_answered_errored_in_the_protocol_shape",
)
@patched(Driver, "handle")
def ErroredContextMisspelt(handle, self, message):
    """The `errored` answer of a case it cannot run carries its context under a misspelt key
    (`CONTEXT`), as `Driver.handle` mutant 53 does: every other answer is the reference's."""
    answer = handle(self, message)
    if isinstance(answer, dict) and answer.get("type") == "errored" and "context" in answer:
        answer["CONTEXT"] = answer.pop("context")
    return answer
