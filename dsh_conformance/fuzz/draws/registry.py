"""The ``registry`` family's draws, and the registry steps the loop family draws too.

Scopes, the five kinds of registration in any layer, releases, scope disposal, change observers
that throw, waterfall listeners (``before`` and after edits, short-circuits, blocking on gates),
providers whose first evaluation registers or releases (edits in the middle of an assembly:
registrations of every kind but suppressors, into any layer or into a scope below the provider's
own that has no layer yet, and replacements of the provider's own registration or another one,
released and registered again under its name in its layer), assemblies (aborted, awaited),
renders, mutations, counts and calls received; variable values that hold references where the
texts render. The registry family draws no render of an assembly that may produce none
(`RegistryBuilder.doomed`), since a render of a failed assembly makes the whole scenario one the
reference cannot run.
"""

from __future__ import annotations

from typing import Final

from hypothesis import strategies as st

from ...scenarios import loopscenario as lp
from ...scenarios import scenario as s
from .builder import Builder, Json, parameters, span

SCOPES: Final = ("s1", "s2")
SECTION_NAMES: Final = ("a", "b", s.IDENTITY_NAME)
CONTEXT_NAMES: Final = ("c", "d")
VARIABLE_NAMES: Final = ("x", "y", "1x")
#: Code-unit order differs from code-point order between the last two (U+FF5A, U+1D4B3).
TOOL_NAMES: Final = ("t", "u", "\uff5a", "\U0001d4b3")
ORDERS: Final = (0, 1, 2.5, -0.0, -1, "NaN", "Infinity")
TEXTS: Final = ("", "plain", "x={{x}}", "{{y}}", "{{x}", "{{{x}}}", "{{ x }}", "a {{ b", "{{1x}}")
#: Texts that are well-formed and refer only to ``x`` and ``y`` (a swarm of the registry family).
RENDERED_TEXTS: Final = ("plain", "x={{x}}", "{{y}}", "")
VALUES: Final = ("v", "", None, "{{x}}", "w")
#: Variable values of the registry family's swarm whose texts render: references to the other
#: variable and to itself, inserted verbatim and never re-scanned (PROMPT-STRICT-RENDER).
RENDERED_VALUES: Final = ("v", "{{y}}", "{{x}}", None, "x={{x}} {{y}}")
CONFIGS: Final = (
    {"toolOrder": ["t", "<unlisted-tools>"]},
    {"toolOrder": ["<unlisted-tools>", "\uff5a", "t"]},
    {"toolOrder": ["nope", "<unlisted-tools>"]},
    {"includeRuntimeContext": False},
    {"persona": "P {{x}}"},
    {"includeHarnessIdentity": False},
    {"toolOrder": None},
)
CAUSES: Final = (lp.USER_CANCEL, {"kind": "hook", "reason": "policy"})
_FOLLOWS: Final = st.lists(st.sampled_from(["render", "context", "mutate", "received"]), max_size=3)


class RegistryBuilder(Builder):
    """A builder that knows the scopes, registrations and listeners it created (and the agents'
    layers, for the loop family), so that every op refers to something that exists."""

    def __init__(self, draw: st.DrawFn, capabilities: frozenset[str] = frozenset()) -> None:
        super().__init__(draw, capabilities)
        self.scopes: list[str] = []
        #: The loop family's agents: each is a layer of its own (`layer`, `assemble`).
        self.agents: list[str] = []
        self.disposed: set[str] = set()
        #: (layer, table, name) of each registration that may hold a name, and its handle.
        self.names: dict[tuple[Json, str | None, Json], str] = {}
        self.releasable: list[str] = []
        self.assemblies: list[str] = []
        self.tracked: list[str] = []
        self.observer_pending = False
        self.has_tools = False
        #: Section and context texts: in a loop, mostly ones that render, so that turns run.
        self.texts: tuple[str, ...] = TEXTS
        #: Variable values.
        self.values: tuple[Json, ...] = VALUES
        #: The chance (percent) that a provider's first evaluation edits the registry.
        self.effects = 15
        #: The registry family's: what its providers' first evaluations edit (`registry_effect`
        #: rather than `effect`), and which renders it leaves out (`doomed`).
        self.registry_edits = False
        #: Each registration or listener that may be in place, by handle (its op): what an
        #: assembly will meet (`doomed`), and what an edit may replace (`registry_effect`).
        self.live: dict[str, Json] = {}
        #: Provider ids of registrations that were rejected: never declared, so never `received`.
        self.undeclared: set[str] = set()
        #: The configuration given by `configure`, if any.
        self.config: Json = {}
        #: Context registrations that may have been accepted: releasing one between turns is a
        #: runtime-context change (LOOP-RUNTIME-CONTEXT: the cleared marker, a new snapshot).
        self.contexts: list[str] = []
        #: The chance (percent) that a listener fails (loop-1.2).
        self.listener_failures = 8

    def scope(self, name: str | None) -> str | None:
        """``name``, creating it (and its parent) first if this scenario has not."""
        if name is not None and name not in self.scopes and name not in self.agents:
            if name == "s2":
                self.scope("s1")
            self.ops.append(s.scope(name, "s1" if name == "s2" else None))
            self.scopes.append(name)
        return name

    def layer(self) -> str | None:
        live = [agent for agent in self.agents if agent not in self.disposed]
        return self.scope(self.pick([None, *SCOPES, *live]))

    def provider(self, values: tuple[Json, ...], own: Json | None = None) -> Json:
        """A PROVIDER: counted under an id; returns, a sequence, or fails; maybe with effects.
        ``own``: the registration it is drawn for (its handle, layer, kind and name)."""
        ident = self.fresh("p")
        self.tracked.append(ident)
        spec: Json = {"id": ident}
        shape = self.pick(["returns"] * 6 + ["sequence"] * 2 + ["fails"])
        if shape == "returns":
            spec["returns"] = self.pick(values)
        elif shape == "sequence":
            spec["sequence"] = [self.pick(values), self.pick(values)]
        else:
            spec["fails"] = "boom"
        if self.chance(self.effects):
            count = self.between(1, 2)
            if self.registry_edits:
                spec["effects"] = [op for _ in range(count) for op in self.registry_effect(own)]
            else:
                spec["effects"] = [self.effect() for _ in range(count)]
        return spec

    def effect(self) -> Json:
        """A registration or release made by a provider's first evaluation (mid-assembly)."""
        kind = self.pick(["variable", "section", "release", "tools"])
        if kind == "release" and self.releasable:
            return s.release(self.pick(self.releasable))
        return self.registration("variable" if kind == "release" else kind, self.layer())

    def registry_effect(self, own: Json | None) -> list[Json]:
        """The registry family's mid-assembly edits (`effect`'s, more of them): a release; a
        registration of any named kind or of a tool provider, into any layer or into a scope
        below the provider's own that has no layer yet (PROMPT-ASSEMBLY-PIPELINE: variables
        and tool providers are read from the layers that existed when the assembly started,
        the section and context maps from those on the chain at step 2); or a replacement: the
        provider's own registration, or another one, released and one of the same kind and
        name registered in its layer (PROMPT-VARIABLE-TEST: releasing a table's last variable
        starts a new generation, and the replacement is first evaluated by the next assembly;
        PROMPT-ASSEMBLY-MUTATION-TEST: a tool provider's from the next assembly on)."""
        kind = self.pick(["variable", "section", "context", "tools", "release", "replace"])
        if kind == "release" and self.releasable:
            return [s.release(self.pick(self.releasable))]
        if kind == "replace":
            others = [op for op in self.live.values() if op["op"] == "register"]
            replaced = own if own is not None and (not others or self.chance(60)) else None
            if replaced is None and others:
                replaced = self.pick(others)
            if replaced is not None and replaced["kind"] != "suppressor":
                again = self.registration(replaced["kind"], replaced.get("layer"))
                if "name" in replaced:
                    again["name"] = replaced["name"]
                return [s.release(replaced["handle"]), again]
            kind = "variable"
        if kind == "release":
            kind = "variable"
        own_layer = None if own is None else own.get("layer")
        # Scopes whose chain passes through the provider's layer, with no registration yet (a
        # listener makes no layer).
        below = [
            scope
            for scope in SCOPES
            if own_layer in _chain(scope)[:-1]
            and not any(op.get("layer") == scope for op in self.live.values())
        ]
        layer = self.scope(self.pick(below)) if below and self.chance(50) else self.layer()
        return [self.registration(kind, layer)]

    def registration(self, kind: str, layer: str | None) -> Json:
        """A registration an edit makes: its provider returns the same plain value each time."""
        handle = self.fresh("e")
        if kind == "section":
            return s.section(handle, "e", 3, "effect {{z}}", layer=layer)
        if kind == "context":
            return s.context(handle, "e", 3, "effect", layer=layer)
        if kind == "tools":
            return s.tools(handle, {"returns": s.toolset(s.schema("t"))}, layer=layer)
        return s.variable(handle, "z", {"returns": "zv"}, layer=layer)

    def text(self, own: Json | None = None) -> Json:
        return self.provider(self.texts, own) if self.chance(40) else self.pick(self.texts)

    def schema(self) -> Json:
        schema = s.schema(
            self.pick(TOOL_NAMES), self.pick(["", "d"]), parameters(self.pick([0, 1]))
        )
        if self.chance(20):
            schema["extra"] = 1
        return schema

    def register(self, op: Json, table: str | None) -> None:
        """Append a ``register`` op; its handle is releasable when it cannot have been rejected."""
        key = (op.get("layer"), table, op.get("name"))
        refused = (
            (table is not None and key in self.names)
            or op.get("order") in ("NaN", "Infinity")
            or op.get("name") == "1x"
        )
        rejected = refused or self.observer_pending
        # A refused registration emits nothing (PROMPT-REGISTRY-CONTRACT): the observer still
        # throws at the next one.
        self.observer_pending = self.observer_pending and refused
        self.ops.append(op)
        if rejected:
            for spec in (op.get("provider"), op.get("text")):
                if isinstance(spec, dict) and "id" in spec:
                    self.undeclared.add(spec["id"])
        else:
            self.live[op["handle"]] = op
            if table is not None:
                self.names[key] = op["handle"]
            self.releasable.append(op["handle"])
            if table == "contexts":
                self.contexts.append(op["handle"])

    def release(self, handle: str) -> None:
        self.ops.append(s.release(handle))
        self.names = {key: held for key, held in self.names.items() if held != handle}
        self.live.pop(handle, None)

    # -- registry steps -----------------------------------------------------------------------

    def section(self) -> None:
        layer, name = self.layer(), self.pick(SECTION_NAMES)
        complete = self.chance(8)
        handle, order = self.fresh("h"), self.pick(ORDERS)
        own = {"handle": handle, "layer": layer, "kind": "section", "name": name}
        op = s.section(handle, name, order, self.text(own), layer=layer)
        if complete:
            op["complete"] = True
        self.register(op, "sections")

    def context(self) -> None:
        layer, name = self.layer(), self.pick(CONTEXT_NAMES)
        handle, order = self.fresh("h"), self.pick(ORDERS)
        own = {"handle": handle, "layer": layer, "kind": "context", "name": name}
        op = s.context(handle, name, order, self.text(own), layer=layer)
        self.register(op, "contexts")

    def variable(self) -> None:
        layer, name = self.layer(), self.pick(VARIABLE_NAMES)
        handle = self.fresh("h")
        own = {"handle": handle, "layer": layer, "kind": "variable", "name": name}
        op = s.variable(handle, name, self.provider(self.values, own), layer=layer)
        self.register(op, "variables")

    def tools(self) -> None:
        layer = self.layer()
        schemas = [self.schema() for _ in range(self.draw(span(1, 3)))]
        toolset = s.toolset(*schemas)
        if self.chance(25):
            toolset["knownNames"] = [self.pick(TOOL_NAMES), "nope"]
        if self.chance(5):
            toolset["schemas"].append(s.schema("<unlisted-tools>"))
        # The registry family's handle comes first, so that an edit may replace its own.
        handle = self.fresh("h") if self.registry_edits else None
        own = {"handle": handle, "layer": layer, "kind": "tools"}
        provider = self.provider((toolset,), own if handle else None)
        self.has_tools = True
        self.register(s.tools(handle or self.fresh("h"), provider, layer=layer), None)

    def suppressor(self) -> None:
        self.register(s.suppressor(self.fresh("h"), layer=self.layer()), None)

    def release_context(self) -> None:
        if self.contexts:
            self.release(self.pick(self.contexts))

    def release_step(self) -> None:
        if self.releasable:
            self.release(self.pick(self.releasable))

    def dispose_scope(self) -> None:
        if self.scopes:
            name = self.pick(self.scopes)
            self.ops.append(s.dispose(name))
            self.names = {key: held for key, held in self.names.items() if key[0] != name}
            self.live = {handle: op for handle, op in self.live.items() if _placed(op) != name}

    def change_observer(self) -> None:
        """An observer that throws once: the next registration is rolled back."""
        self.ops.append(s.change_observer("observer failed"))
        self.observer_pending = True
        for _ in range(3):  # until a registration is not refused, and so rolled back
            self.section()
            if not self.observer_pending:
                break

    def edit(self) -> Json:
        kind = self.pick(["append", "remove", "reverse", "replace", "retext", "set-variable"])
        if kind == "append":
            target = self.pick(["sections", "contexts", "tools"])
            item = self.schema() if target == "tools" else s.entry("l", "listed {{x}}")
            return s.append(target, item)
        if kind == "remove":
            return {"remove": "sections", "name": self.pick(SECTION_NAMES)}
        if kind == "reverse":
            return {"reverse": self.pick(["sections", "contexts", "tools"])}
        if kind == "replace":
            return {"replace": "sections", "items": [s.entry("r", "replaced")]}
        if kind == "retext":
            return {"retext": "sections", "name": self.pick(SECTION_NAMES), "text": "retexted"}
        return s.set_variable(self.pick(VARIABLE_NAMES[:2]), self.pick(["lv", None]))

    def listen(self, scope: str | None = None, gated: bool | None = None) -> None:
        ident = self.fresh("l")
        self.tracked.append(ident)
        listener: Json = {"id": ident}
        if gated and self.has("loop-1.2") and self.chance(40):
            listener["waitFor"] = {"abort": True}  # a cooperative listener: the turn's signal
        elif self.chance(30) if gated is None else gated:
            listener["waitFor"] = {"gate": self.gate()}
        if self.has("loop-1.2") and self.chance(self.listener_failures):
            listener["fails"] = "listener failed"
        if self.chance(30):
            listener["before"] = [self.edit()]
        if self.chance(20):
            listener["callNext"] = False
        if self.chance(60):
            listener["edits"] = [self.edit() for _ in range(self.draw(span(1, 2)))]
        handle = self.fresh("h")
        target = self.layer() if scope is None else scope
        self.ops.append(s.listen(handle, listener, scope=target))
        self.live[handle] = self.ops[-1]
        self.releasable.append(handle)

    def assemble(self) -> None:
        name = self.fresh("as")
        op = s.assemble(name, scope=self.scope(self.pick([None, *SCOPES, *self.agents])))
        if self.chance(10):
            op["aborted"] = True
        self.ops.append(op)
        self.assemblies.append(name)
        follows = self.draw(_FOLLOWS)
        if self.registry_edits and self.doomed(op.get("scope")):
            # It may produce no assembly: nothing to render (the reference could not run it).
            follows = [follow for follow in follows if follow == "received"]
        for follow in follows:
            if follow == "render":
                self.ops.append(s.render(name))
            elif follow == "context":
                self.ops.append(s.render_context(name))
            elif follow == "received":
                # What a provider or listener was given: its context names the agent only in
                # an agent's own scope (DESIGN-SCOPED-LAYERS, `registry-1.2`).
                self.received()
            elif self.has_tools and (not self.registry_edits or self.tooled(op.get("scope"))):
                path: list[str | int] = ["tools", 0, "parameters", "properties"]
                self.ops.append(s.mutate(name, path, set={"k": {"type": "string"}}))

    def open_gate(self) -> None:
        if self.closed_gates:
            gate = self.pick(self.closed_gates)
            self.closed_gates.remove(gate)
            self.ops.append(s.open_gate(gate))

    def await_or_abort(self) -> None:
        if self.assemblies:
            name = self.pick(self.assemblies)
            if self.chance(50):
                self.ops.append(s.await_(name))
            else:
                self.ops.append(s.abort(name, self.pick(CAUSES)))

    def counts(self) -> None:
        self.ops.append(s.counts())

    def received(self) -> None:
        tracked = self.tracked
        if self.registry_edits:
            tracked = [ident for ident in tracked if ident not in self.undeclared]
        if tracked:
            self.ops.append(s.received(self.pick(tracked)))

    def finish(self) -> None:
        """Open every gate, then assemble and render in the global scope and every scope
        created, and count: most of what a registry scenario did shows in these observations."""
        for gate in self.closed_gates:
            self.ops.append(s.open_gate(gate))
        self.closed_gates = []
        scopes = [None, *self.scopes]
        if self.chance(50):
            # Innermost first: a provider is first evaluated where a scope may have no layer yet
            # (PROMPT-ASSEMBLY-PIPELINE: layers created mid-assembly).
            scopes.reverse()
        for scope in scopes:
            name = self.fresh("as")
            self.ops.append(s.assemble(name, scope=scope))
            if not self.doomed(scope):
                self.ops += [s.render(name), s.render_context(name)]
        self.ops.append(s.counts())

    def doomed(self, scope: str | None) -> bool:
        """Whether an assembly in ``scope`` may produce none, from what may be in place on its
        chain: a provider that fails, a tool provider offering `<unlisted-tools>`
        (`reserved-tool-name`), two complete sections, a configured `toolOrder` naming a tool
        no provider knows, a failing listener or one waiting for a closed gate. Its render
        would be a scenario the reference cannot run (PROTOCOL.md: a render needs an
        assembly), discarded whole. Shadowed and suppressed providers count too: an
        implementation that evaluates them (PROMPT-SCOPE-SHADOW, PROMPT-ASSEMBLY-PIPELINE step
        6) would answer such a render `errored`, which the fuzz gallery cannot replay."""
        chain = _chain(scope)
        known: set[str] = set()
        complete = 0
        for op in self.live.values():
            if _placed(op) not in chain:
                continue
            if op["op"] == "listen":
                listener = op["listener"]
                if (
                    "fails" in listener
                    or listener.get("waitFor", {}).get("gate") in self.closed_gates
                ):
                    return True
                continue
            provider = op.get("provider", op.get("text"))
            if isinstance(provider, dict) and "fails" in provider:
                return True
            complete += bool(op.get("complete"))
            if op["kind"] == "tools":
                for toolset in provider.get("sequence", [provider.get("returns")]):
                    names = [schema["name"] for schema in toolset["schemas"]]
                    known.update(toolset.get("knownNames", names))
                    if "<unlisted-tools>" in names:
                        return True
        listed = self.config.get("toolOrder") or []
        unknown = any(name not in known for name in listed if name != "<unlisted-tools>")
        return unknown or complete > 1

    def tooled(self, scope: str | None) -> bool:
        """Whether an assembly in ``scope`` has a tool provider that may be in place (a path
        into its first tool exists)."""
        chain = _chain(scope)
        return any(
            op.get("kind") == "tools" and op.get("layer") in chain for op in self.live.values()
        )

    def configure(self) -> None:
        self.config = dict(self.pick(CONFIGS))
        self.ops.append(s.configure(self.config))

    REGISTRY_STEPS: Final[tuple[tuple[int, str], ...]] = (
        (6, "section"),
        (4, "context"),
        (5, "variable"),
        (4, "tools"),
        (2, "suppressor"),
        (3, "release_step"),
        (1, "dispose_scope"),
        (1, "change_observer"),
        (3, "listen"),
        (6, "assemble"),
        (2, "open_gate"),
        (2, "await_or_abort"),
        (1, "counts"),
        (1, "received"),
        (1, "assemble"),
    )


def _chain(scope: str | None) -> list[str | None]:
    """A registry scope's chain, global first (`RegistryBuilder.scope`: ``s2``'s parent is
    ``s1``)."""
    if scope is None:
        return [None]
    return [None, *(["s1"] if scope == "s2" else []), scope]


def _placed(op: Json) -> str | None:
    """Where a live op of the builder sits: a registration's layer, a listener's scope."""
    placed: str | None = op.get("layer", op.get("scope"))
    return placed


def registry_ops(draw: st.DrawFn, capabilities: frozenset[str]) -> list[Json]:
    """A registry scenario's ops."""
    builder = RegistryBuilder(draw, capabilities)
    builder.registry_edits = True
    if builder.chance(20):
        builder.configure()
    if builder.config.get("includeHarnessIdentity", True):
        # The configuration's identity section holds its name in the global layer
        # (PROMPT-REGISTRY-CONTRACT: an ordinary section): registering it there is refused.
        builder.names[None, "sections", s.IDENTITY_NAME] = ""
    if builder.chance(30):
        # Swarm: a scenario whose texts all render (well-formed references to the variables
        # it registers first), so that renders get past the malformed ones.
        builder.texts, builder.values = RENDERED_TEXTS, RENDERED_VALUES
        builder.variable()
        builder.variable()
    if builder.chance(25):
        # Swarm: most providers edit the registry (register or release) when an assembly
        # first evaluates them, so that a scenario holds several mid-assembly edits.
        builder.effects = 70
    builder.steps(RegistryBuilder.REGISTRY_STEPS, 14)
    builder.finish()
    return builder.ops
