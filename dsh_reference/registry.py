"""The system-prompt registry: layers, scopes, the five registrations, and ``assemble()``.

Contracts enforced here: PROMPT-REGISTRY-CONTRACT, DESIGN-SCOPED-LAYERS, PROMPT-SCOPE-SHADOW,
PROMPT-ASSEMBLY-PIPELINE, PROMPT-ASSEMBLY-MUTATION-TEST and PROMPT-VARIABLE-TEST (the tool order
itself is in `tool_order`, the rendering of an assembly in `render`).

A *layer* is the global layer (key ``None``) or one `Scope`. Every registration is made in one
layer and returns a `Registration` whose ``release()`` undoes it; a scoped layer exists while it
holds at least one registration, and `dispose_scope` releases all it holds. An assembly for scope
S reads the global layer, then every layer on S's chain from the farthest ancestor to S itself;
for sections, contexts and variables the nearest layer wins a name.

`assemble` is the only coroutine: providers and ``system-prompt/assemble`` listeners may be async
(a listener may wait on a gate or on the turn's abort signal, PROMPT-CANCEL-TEST).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias, TypeVar

from .abort import AbortSignal
from .assembly import Assembly, PromptText, ToolContribution, ToolSchema
from .config import PromptConfig
from .errors import ContractError
from .render import is_variable_name
from .tool_order import order_tools

#: The built-in sections (CONTRACTS.md, "Literal constants").
IDENTITY_SECTION: Final = "harness:identity"
IDENTITY_ORDER: Final = -100
IDENTITY_TEXT: Final = "You are an AI agent powered by DeepSeek Harness."
PERSONA_SECTION: Final = "deployment:persona"
PERSONA_ORDER: Final = 0

T = TypeVar("T")
#: A provider or listener may answer directly or with an awaitable.
MaybeAwaitable: TypeAlias = T | Awaitable[T]


@dataclass(frozen=True, eq=False)
class Scope:
    """A registration scope (in the loop: an agent). Compared by identity, like an agent object."""

    name: str
    parent: Scope | None = None

    def lineage(self) -> list[Scope]:
        """The chain from the farthest ancestor down to this scope itself."""
        chain: list[Scope] = []
        scope: Scope | None = self
        while scope is not None:
            chain.append(scope)
            scope = scope.parent
        chain.reverse()
        return chain

    def __repr__(self) -> str:
        return f"Scope({self.name!r})"


@dataclass(frozen=True)
class AssembleContext:
    """What providers and listeners are given. The loop passes ``{agent, scope: agent, signal}``."""

    scope: Scope | None = None
    agent: object | None = None
    signal: AbortSignal | None = None


TextSource = str | Callable[[AssembleContext], MaybeAwaitable[str]]
VariableProvider = Callable[[AssembleContext], MaybeAwaitable[str | None]]
ToolProvider = Callable[[AssembleContext], MaybeAwaitable[ToolContribution]]
Next = Callable[[], Awaitable[Assembly]]
AssembleListener = Callable[[Assembly, AssembleContext, Next], MaybeAwaitable[Assembly]]

RegistrationKind = Literal["section", "context", "variable", "tool-provider", "suppressor"]


@dataclass(frozen=True, slots=True)
class Change:
    """One ``system-prompt/change`` notification: a registration or a release."""

    action: Literal["register", "release"]
    kind: RegistrationKind
    name: str | None
    scope: Scope | None


class Registration:
    """The release handle of one registration. Releasing twice is a no-op (and notifies once).

    ``owner`` is the set of handles a scope holds (for `PromptRegistry.dispose_scope`): releasing
    leaves it. The handle refers to its undo and its owner, and neither refers back to the handle
    except the owner while it is registered, so a released or dropped handle is no reference cycle.
    """

    def __init__(
        self, undo: Callable[[], None], owner: dict[Registration, None] | None = None
    ) -> None:
        self._undo: Callable[[], None] | None = undo
        self._owner = owner

    def release(self) -> None:
        undo, self._undo = self._undo, None
        if undo is not None:
            if self._owner is not None:
                self._owner.pop(self, None)
            undo()


@dataclass(eq=False, slots=True)
class _Section:
    name: str
    order: float
    text: TextSource
    complete: bool = False


@dataclass(eq=False, slots=True)
class _Variable:
    name: str
    provider: VariableProvider


@dataclass(eq=False)
class _Listener:
    scope: Scope | None
    listener: AssembleListener


@dataclass
class _Layer:
    """One layer's tables. ``variables`` is replaced by a fresh dict when its last variable is
    released: that is PROMPT-VARIABLE-TEST's new table *generation* (see `_live_variables`)."""

    sections: dict[str, _Section] = field(default_factory=dict)
    contexts: dict[str, _Section] = field(default_factory=dict)
    variables: dict[str, _Variable] = field(default_factory=dict)
    tool_providers: list[ToolProvider] = field(default_factory=list)
    suppressors: list[object] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (
            self.sections
            or self.contexts
            or self.variables
            or self.tool_providers
            or self.suppressors
        )


class PromptRegistry:
    """Registrations in layers, and their assembly into one `Assembly` per scope."""

    def __init__(self, config: PromptConfig | None = None) -> None:
        self.config = config if config is not None else PromptConfig()
        self._layers: dict[Scope | None, _Layer] = {}
        self._listeners: list[_Listener] = []
        self._observers: list[Callable[[Change], None]] = []
        self._owned: dict[Scope, dict[Registration, None]] = {}
        # "Identity and persona are ordinary sections (a scoped section of the same name shadows
        # them), not string concatenation." Registered before anyone can observe changes.
        if self.config.include_harness_identity:
            self.add_section(IDENTITY_SECTION, IDENTITY_ORDER, IDENTITY_TEXT)
        self.add_section(PERSONA_SECTION, PERSONA_ORDER, self.config.persona)

    # -- change notifications ---------------------------------------------------------------

    def subscribe(self, observer: Callable[[Change], None]) -> Registration:
        """Observe every ``system-prompt/change`` (unfiltered: all layers, all scopes)."""
        self._observers.append(observer)
        return Registration(lambda: self._observers.remove(observer))

    def _notify(self, change: Change) -> None:
        for observer in list(self._observers):
            observer(change)

    # -- the five registrations -------------------------------------------------------------

    def add_section(
        self,
        name: str,
        order: float,
        text: TextSource,
        *,
        complete: bool = False,
        scope: Scope | None = None,
    ) -> Registration:
        entry = _Section(name, _finite_order("section", name, order), text, complete)
        return self._add_named("section", "sections", entry, scope)

    def add_context(
        self, name: str, order: float, text: TextSource, *, scope: Scope | None = None
    ) -> Registration:
        entry = _Section(name, _finite_order("context", name, order), text)
        return self._add_named("context", "contexts", entry, scope)

    def add_variable(
        self, name: str, provider: VariableProvider, *, scope: Scope | None = None
    ) -> Registration:
        if not isinstance(name, str) or not is_variable_name(name):
            raise ContractError(
                "invalid-variable-name",
                f"variable name {name!r} does not match [a-z][a-z0-9_]*",
                where=str(name),
            )
        entry = _Variable(name, provider)
        return self._add_named("variable", "variables", entry, scope)

    def add_tool_provider(
        self, provider: ToolProvider, *, scope: Scope | None = None
    ) -> Registration:
        return self._add_listed("tool-provider", "tool_providers", provider, scope)

    def add_suppressor(self, *, scope: Scope | None = None) -> Registration:
        """Suppress runtime context for assemblies that see this layer."""
        return self._add_listed("suppressor", "suppressors", object(), scope)

    def add_assemble_listener(
        self, listener: AssembleListener, *, scope: Scope | None = None
    ) -> Registration:
        """Join the ``system-prompt/assemble`` waterfall (not a registration: no change event).

        DESIGN-SCOPED-LAYERS: "Listeners compose outermost-first in registration order (the first
        registered is outermost); every listener and the innermost step share the one payload
        object". Each gets that payload, the context and ``next``; what it returns is
        authoritative. A scoped listener sees assemblies of its scope and of that scope's
        descendants only.
        """
        entry = _Listener(scope, listener)
        self._listeners.append(entry)
        return self._handle(scope, lambda: self._listeners.remove(entry))

    def dispose_scope(self, scope: Scope) -> None:
        """Release every registration and listener made in ``scope`` (its owner is disposed).

        Each release is an ordinary release: one ``system-prompt/change`` per registration,
        none for listeners. The scope stays usable; only what it held is gone.
        """
        for registration in list(self._owned.pop(scope, {})):
            registration.release()

    def _layer(self, scope: Scope | None) -> _Layer:
        layer = self._layers.get(scope)
        if layer is None:
            layer = self._layers[scope] = _Layer()
        return layer

    def _add_named(
        self,
        kind: RegistrationKind,
        table_name: Literal["sections", "contexts", "variables"],
        entry: _Section | _Variable,
        scope: Scope | None,
    ) -> Registration:
        existing = self._layers.get(scope)
        if existing is not None and entry.name in getattr(existing, table_name):
            raise ContractError(
                "duplicate-registration",
                f"{kind} {entry.name!r} is already registered in {_layer_name(scope)}",
                where=entry.name,
            )
        layer = self._layer(scope)
        table: dict[str, Any] = getattr(layer, table_name)
        table[entry.name] = entry

        def remove() -> None:
            if table.get(entry.name) is entry:
                del table[entry.name]
            if table_name == "variables" and not table and table is layer.variables:
                # "Releasing a table's last variable drains it and starts a new generation"
                layer.variables = {}

        return self._commit(Change("register", kind, entry.name, scope), layer, remove)

    def _add_listed(
        self,
        kind: RegistrationKind,
        table_name: Literal["tool_providers", "suppressors"],
        entry: object,
        scope: Scope | None,
    ) -> Registration:
        layer = self._layer(scope)
        table: list[Any] = getattr(layer, table_name)
        table.append(entry)

        def remove() -> None:
            # By identity: the same provider callable may be registered more than once.
            del table[next(i for i, item in enumerate(table) if item is entry)]

        return self._commit(Change("register", kind, None, scope), layer, remove)

    def _commit(self, change: Change, layer: _Layer, remove: Callable[[], None]) -> Registration:
        """Notify a registration that is already in place, and return its release handle.

        PROMPT-REGISTRY-CONTRACT: "If delivering a registration's `system-prompt/change`
        notification throws, the registration is rolled back (the rollback is a release and
        emits its own notification) and the error reaches the caller: no handle is returned,
        the name is free again, and nothing of it is assembled."
        """
        scope = change.scope

        def undo() -> None:
            remove()
            if scope is not None and layer.is_empty() and self._layers.get(scope) is layer:
                # "a scoped layer exists while it holds at least one registration of any kind"
                del self._layers[scope]
            self._notify(Change("release", change.kind, change.name, scope))

        registration = self._handle(scope, undo)
        try:
            self._notify(change)
        except BaseException:
            registration.release()
            raise
        return registration

    def _handle(self, scope: Scope | None, undo: Callable[[], None]) -> Registration:
        """A release handle, remembered under its scope for `dispose_scope` until released."""
        if scope is None:
            return Registration(undo)
        owned = self._owned.setdefault(scope, {})
        registration = Registration(undo, owned)
        owned[registration] = None
        return registration

    # -- assembly ---------------------------------------------------------------------------

    async def assemble(self, context: AssembleContext | None = None) -> Assembly:
        """Assemble the prompt for ``context.scope`` (PROMPT-ASSEMBLY-PIPELINE, in its order)."""
        context = context if context is not None else AssembleContext()
        # "the scope chain's layers and whether runtime context is suppressed are fixed when it
        # starts": variables (step 1) and tool providers (step 3) are read from those layers only.
        chain = _layer_chain(context.scope)
        layers = self._existing_layers(chain)
        suppressed = not self.config.include_runtime_context or any(
            layer.suppressors for layer in layers
        )

        # 1. evaluate variables
        variables = await self._evaluate_variables(chain, context)

        # 2. form the effective section and context maps — before any text is evaluated, so a
        #    shadowed provider is never called (PROMPT-SCOPE-SHADOW) — from the layers on the
        #    chain now: one a variable provider created is in them.
        sections = self._effective(chain, "sections")
        contexts = self._effective(chain, "contexts")

        # 3. snapshot the tool providers, evaluate each once
        schemas, known_names = await self._evaluate_tool_providers(layers, context)

        # 4. sort sections (ties: effective-map position; `sorted` is stable); at most one complete
        ordered_sections = sorted(sections.values(), key=lambda entry: entry.order)
        complete = [entry.name for entry in ordered_sections if entry.complete]
        if len(complete) > 1:
            raise ContractError(
                "multiple-complete-sections",
                f"more than one effective section is complete: {complete}",
                where=", ".join(complete),
            )

        # 5. evaluate section texts, remembering (a copy of) the complete one: the waterfall gets
        #    the evaluated objects and may edit them in place.
        section_texts = await _evaluate_texts(ordered_sections, context)
        remembered = next(
            (
                PromptText(text.name, text.text)
                for entry, text in zip(ordered_sections, section_texts, strict=True)
                if entry.complete
            ),
            None,
        )

        # 6. evaluate context texts, unless suppressed: then no context provider runs
        context_texts: list[PromptText] = []
        if not suppressed:
            ordered_contexts = sorted(contexts.values(), key=lambda entry: entry.order)
            context_texts = await _evaluate_texts(ordered_contexts, context)

        # 7. order tools
        tools = order_tools(schemas, known_names, self.config.tool_order)

        # 8. the waterfall; its returned value is authoritative
        result = await self._waterfall(
            Assembly(section_texts, context_texts, tools, variables), context, chain
        )

        # 9. final constraints
        return self._apply_final_constraints(result, remembered, suppressed)

    async def _evaluate_tool_providers(
        self, layers: list[_Layer], context: AssembleContext
    ) -> tuple[list[ToolSchema], set[str]]:
        """Schemas in provider order (global first, then farthest->nearest) and known names.

        ``layers`` are those of the chain when the assembly started (PROMPT-ASSEMBLY-PIPELINE): a
        tool provider a variable provider registered into a layer created since is not seen.

        PROMPT-ASSEMBLY-MUTATION-TEST: "Tool-provider membership is snapshotted before any tool
        provider runs: a provider registered while providers are being evaluated contributes from
        the next assembly on."
        """
        providers = [p for layer in layers for p in layer.tool_providers]
        schemas: list[ToolSchema] = []
        known_names: set[str] = set()
        for provider in providers:
            contribution = await _resolve(provider(context))
            if not isinstance(contribution, ToolContribution):
                raise TypeError(
                    f"a tool provider returned {type(contribution).__name__}, "
                    "expected a ToolContribution"
                )
            kept = [ToolSchema.keep(schema) for schema in contribution.schemas]
            schemas.extend(kept)
            names = contribution.known_names
            known_names.update(names if names is not None else (s.name for s in kept))
        return schemas, known_names

    @staticmethod
    def _apply_final_constraints(
        result: Assembly, remembered: PromptText | None, suppressed: bool
    ) -> Assembly:
        """Step 9: "if a complete section was effective, replace the returned sections with
        exactly that remembered section; if suppressed, force contexts to `[]`"."""
        if remembered is not None:
            result.sections = [remembered]
        if suppressed:
            result.contexts = []
        return result

    def _existing_layers(self, chain: list[Scope | None]) -> list[_Layer]:
        return [self._layers[key] for key in chain if key in self._layers]

    def _effective(self, chain: list[Scope | None], table: str) -> dict[str, _Section]:
        # dict.update keeps an existing key's position: the shadowing entry takes the slot of
        # the entry it shadows ("ties by position in the effective map").
        effective: dict[str, _Section] = {}
        for layer in self._existing_layers(chain):
            effective.update(getattr(layer, table))
        return effective

    async def _evaluate_variables(
        self, chain: list[Scope | None], context: AssembleContext
    ) -> dict[str, str | None]:
        """PROMPT-VARIABLE-TEST: iterate the *live* layer tables, global then farthest->nearest.

        "The layers visited are fixed when the assembly starts" (a layer created or re-created
        during the assembly is not visited); within one visited table the iteration is live for
        one generation (`_live_variables`). Every provider runs; a nearer layer's value
        overwrites a farther one's.
        """
        values: dict[str, str | None] = {}
        for layer in self._existing_layers(chain):
            for entry in _live_variables(layer):
                value = await _resolve(entry.provider(context))
                if value is not None and not isinstance(value, str):
                    raise TypeError(
                        f"variable {entry.name!r}: provider returned "
                        f"{type(value).__name__}, expected str or None"
                    )
                values[entry.name] = value
        return values

    async def _waterfall(
        self, assembly: Assembly, context: AssembleContext, chain: list[Scope | None]
    ) -> Assembly:
        listeners = [entry for entry in self._listeners if entry.scope in chain]

        async def call(index: int) -> Assembly:
            if index == len(listeners):
                return assembly
            result = await _resolve(
                listeners[index].listener(assembly, context, lambda: call(index + 1))
            )
            if not isinstance(result, Assembly):
                raise TypeError(
                    f"system-prompt/assemble listener #{index} returned "
                    f"{type(result).__name__}, expected an Assembly"
                )
            return result

        return await call(0)


async def _resolve(value: MaybeAwaitable[T]) -> T:
    if inspect.isawaitable(value):
        return await value
    return value


def _live_variables(layer: _Layer) -> Iterator[_Variable]:
    """The variables of the layer's current table generation, in insertion order, read live.

    Like a JavaScript Map iterator: "a variable registered into it by an earlier provider, before
    the iteration over that table ends, is evaluated in the same assembly; one released before it
    is reached is not evaluated". "Releasing a table's last variable drains it and starts a new
    generation: an iteration in progress over that table stops there" — the registry then gives
    the layer a new dict, so the iteration stops once ``layer.variables`` is another object.
    (A plain ``for`` over the dict would raise when a provider changes it.)
    """
    table = layer.variables
    reached: set[_Variable] = set()
    while table is layer.variables:
        entry = next((entry for entry in table.values() if entry not in reached), None)
        if entry is None:
            return
        reached.add(entry)
        yield entry


async def _evaluate_texts(entries: list[_Section], context: AssembleContext) -> list[PromptText]:
    """Each entry's text, one after the other, in order (a provider may be async)."""
    texts: list[PromptText] = []
    for entry in entries:
        text = entry.text if isinstance(entry.text, str) else await _resolve(entry.text(context))
        if not isinstance(text, str):
            raise TypeError(
                f"{entry.name!r}: text provider returned {type(text).__name__}, expected str"
            )
        texts.append(PromptText(entry.name, text))
    return texts


def _layer_chain(scope: Scope | None) -> list[Scope | None]:
    """The layers an assembly for ``scope`` reads: global (``None``), then farthest to nearest."""
    return [None, *(scope.lineage() if scope else [])]


def _finite_order(kind: str, name: str, order: float) -> float:
    """The order as a double, like the upstream's JavaScript numbers; non-finite is rejected.

    An integer beyond the double range (``10**400``) is Infinity there, so it is rejected here too
    instead of overflowing; a large integer sorts as the double it rounds to.
    """
    value = math.nan
    if isinstance(order, int | float) and not isinstance(order, bool):
        try:
            value = float(order)
        except OverflowError:
            value = math.inf
    if not math.isfinite(value):
        raise ContractError(
            "invalid-order",
            f"{kind} {name!r} has order {order!r}; it must be a finite number",
            where=name,
        )
    return value


def _layer_name(scope: Scope | None) -> str:
    return "the global layer" if scope is None else f"scope {scope.name!r}"
