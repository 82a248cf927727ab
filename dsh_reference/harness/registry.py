"""The ``registry`` capability of the reference harness (dsh_conformance/PROTOCOL.md, "Scenario
ops").

A translator, not a model: scripted providers and listeners are closures built from the scenario's
data, and every provider and listener with an ``id`` is counted and records what it was given (the
``received`` op of protocol 1.1). Assemblies run as tasks of the scenario's loop, so a case can
hold one pending on a gate or an abort signal and act on the registry meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable
from typing import Any, ClassVar, Final

from ..abort import AbortController
from ..assembly import Assembly, PromptText, ToolContribution, ToolSchema
from ..config import PromptConfig
from ..errors import ContractError
from ..registry import AssembleContext, Next, Registration, Scope
from .scenario import Json, Scenario, ScenarioError, ScriptedFailure, error_observation

_SPECIAL_ORDERS: Final = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


class _Run:
    """One started assembly: its task and the controller of its abort signal."""

    def __init__(self, task: asyncio.Task[Assembly], controller: AbortController) -> None:
        self.task = task
        self.controller = controller


class RegistryOps:
    """The ``registry`` capability: registrations, assemblies and what providers were given."""

    OPS: ClassVar[frozenset[str]] = frozenset(
        {
            "configure",
            "register",
            "release",
            "change-observer",
            "dispose",
            "scope",
            "listen",
            "assemble",
            "await",
            "open",
            "abort",
            "render",
            "render-context",
            "mutate",
            "counts",
            "received",
        }
    )

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.handles: dict[str, Registration] = {}
        self.runs: dict[str, _Run] = {}
        self.evaluations: dict[str, int] = {}
        self.received: dict[str, list[Json]] = {}

    def busy(self) -> int:
        return sum(not run.task.done() for run in self.runs.values())

    async def apply(self, op: Json) -> Json:
        name = op.get("op")
        if name == "configure":
            try:
                self.scenario.registry = self.scenario.new_registry(PromptConfig.load(op["config"]))
            except ContractError as error:
                return error_observation(error)
            return _OK
        if name in ("register", "release"):
            try:
                self.apply_effect(op)
            except (ContractError, ScriptedFailure) as error:
                return error_observation(error)
            return _OK
        if name == "change-observer":
            self.scenario.registry.subscribe(_fails_once(op["fails"]))
            return _OK
        if name == "dispose":
            scope = self.scenario.scope_named(op["scope"])
            if scope is None:
                raise ScenarioError("dispose needs a scope name (the global layer is not a scope)")
            self.scenario.registry.dispose_scope(scope)
            return _OK
        if name == "scope":
            return self._scope(op)
        if name == "listen":
            self._listen(op)
            return _OK
        if name == "assemble":
            return await self._assemble(op)
        if name == "await":
            return self._result(self._run(op))
        if name == "open":
            self.scenario.gate(op["gate"]).open()
            return _OK
        if name == "abort":
            self._run(op).controller.abort(op.get("reason", _USER_ABORT))
            return _OK
        if name in ("render", "render-context"):
            return self._render(name, op)
        if name == "mutate":
            _mutate(self._assembly(op), op)
            return _OK
        if name == "counts":
            return {"evaluations": dict(self.evaluations), "changes": self.scenario.changes}
        if name == "received":
            if op["id"] not in self.received:
                raise ScenarioError(f"no provider or listener has id {op['id']!r}")
            return {"calls": list(self.received[op["id"]])}
        raise ScenarioError(f"unknown registry op {name!r}")

    # -- registrations ----------------------------------------------------------------------

    def apply_effect(self, op: Json) -> None:
        """``register`` or ``release``; a rejected registration raises its `ContractError`."""
        if op.get("op") == "release":
            self._handle(op["handle"]).release()
            return
        handle = self._new_handle(op)
        if "layer" in op and "scope" in op:
            raise ScenarioError("register takes `scope` or its older name `layer`, not both")
        layer = self.scenario.scope_named(op.get("scope", op.get("layer")))
        kind = op.get("kind")
        registry = self.scenario.registry
        if kind == "section":
            registration = registry.add_section(
                op["name"],
                _order(op["order"]),
                self._text(op["text"]),
                complete=op.get("complete", False),
                scope=layer,
            )
        elif kind == "context":
            registration = registry.add_context(
                op["name"], _order(op["order"]), self._text(op["text"]), scope=layer
            )
        elif kind == "variable":
            provider = self._provider(op["provider"], lambda value: value)
            registration = registry.add_variable(op["name"], provider, scope=layer)
        elif kind == "tools":
            provider = self._provider(op["provider"], _tool_contribution)
            registration = registry.add_tool_provider(provider, scope=layer)
        elif kind == "suppressor":
            registration = registry.add_suppressor(scope=layer)
        else:
            raise ScenarioError(f"unknown registration kind {kind!r}")
        self.handles[handle] = registration
        self._declare(op.get("text"), op.get("provider"))

    def _listen(self, op: Json) -> None:
        handle = self._new_handle(op)
        spec = op["listener"]
        track = self._tracker(spec.get("id"))
        call_next = spec.get("callNext", True)

        async def listener(payload: Assembly, context: AssembleContext, next_: Next) -> Assembly:
            track(context, payload)
            await self.scenario.wait(spec.get("waitFor"), context.signal)
            if "fails" in spec:
                raise ScriptedFailure(spec["fails"])
            for edit in spec.get("before", []):
                _edit(payload, edit)
            result = await next_() if call_next else payload
            for edit in spec.get("edits", []):
                _edit(result, edit)
            return result

        scope = self.scenario.scope_named(op.get("scope"))
        self.handles[handle] = self.scenario.registry.add_assemble_listener(listener, scope=scope)
        self._declare(spec)

    def _text(self, spec: Json) -> str | Callable[[AssembleContext], Any]:
        return spec if isinstance(spec, str) else self._provider(spec, lambda value: value)

    def _provider(
        self, spec: Json, convert: Callable[[Json], Any]
    ) -> Callable[[AssembleContext], Any]:
        """Build a scripted provider; the converted value is built once and returned every time."""
        track = self._tracker(spec.get("id"))
        if "sequence" in spec:
            values = [convert(value) for value in spec["sequence"]]
        elif "returns" in spec:
            values = [convert(spec["returns"])]
        elif "fails" not in spec:
            raise ScenarioError(f"provider {spec!r} has none of returns, sequence, fails")
        effects = list(spec.get("effects", []))
        calls = 0

        def evaluate(context: AssembleContext) -> Any:
            nonlocal calls
            calls += 1
            track(context, None)
            if calls == 1:
                for effect in effects:
                    self.apply_effect(effect)
            return calls

        def outcome(call: int) -> Any:
            if "fails" in spec:
                raise ScriptedFailure(spec["fails"])
            return values[min(call, len(values)) - 1]

        if "waitFor" not in spec:
            return lambda context: outcome(evaluate(context))

        async def evaluate_after_wait(context: AssembleContext) -> Any:
            call = evaluate(context)
            await self.scenario.wait(spec["waitFor"], context.signal)
            return outcome(call)

        return evaluate_after_wait

    def _tracker(
        self, tracked_id: str | None
    ) -> Callable[[AssembleContext, Assembly | None], None]:
        """Count the calls of a provider or listener with an ``id``, and record what each got."""
        if tracked_id is None:
            return lambda _context, _payload: None

        def track(context: AssembleContext, payload: Assembly | None) -> None:
            self.evaluations[tracked_id] = self.evaluations.get(tracked_id, 0) + 1
            signal = context.signal
            call = {
                "scope": _scope_json(context.scope),
                "agent": _scope_json(context.agent),
                "aborted": signal is not None and signal.aborted,
            }
            if signal is not None and signal.aborted:
                call["reason"] = signal.reason
            if payload is not None:
                call["payload"] = _assembly_json(payload)
            self.received.setdefault(tracked_id, []).append(call)

        return track

    def _declare(self, *specs: Json) -> None:
        """List a registration's provider and listener ids in `counts` once it is accepted."""
        for spec in specs:
            if isinstance(spec, dict) and "id" in spec:
                self.evaluations.setdefault(spec["id"], 0)
                self.received.setdefault(spec["id"], [])

    # -- assemblies -------------------------------------------------------------------------

    async def _assemble(self, op: Json) -> Json:
        name = op["assembly"]
        if name in self.runs:
            raise ScenarioError(f"assembly {name!r} already started")
        scope = self.scenario.scope_named(op.get("scope"))
        controller = AbortController()
        if op.get("aborted"):
            controller.abort(op.get("reason", _USER_ABORT))
        # PROTOCOL.md (1.2): `agent` only for an agent's own scope, `{scope, signal}` otherwise.
        agent = scope if scope in self.scenario.agent_scopes else None
        context = AssembleContext(scope=scope, agent=agent, signal=controller.signal)
        task = asyncio.get_running_loop().create_task(self.scenario.registry.assemble(context))
        # One that fails after its op answered is reported by an `await` op, or by none: its
        # error is retrieved here, so that asyncio does not log it as lost on stderr.
        task.add_done_callback(_retrieve)
        self.runs[name] = _Run(task, controller)
        await self.scenario.settle()
        return self._result(self.runs[name])

    def _result(self, run: _Run) -> Json:
        if not run.task.done():
            return {"pending": True}
        error = run.task.exception()
        if error is None:
            return {"assembly": _assembly_json(run.task.result())}
        if isinstance(error, ContractError | ScriptedFailure):
            return error_observation(error)
        raise error

    def _render(self, name: str, op: Json) -> Json:
        assembly = self._assembly(op)
        try:
            if name == "render":
                return {"text": self.scenario.hooks.render_prompt(assembly)}
            sections, text = self.scenario.hooks.render_context(assembly)
        except ContractError as error:
            return error_observation(error)
        return {"sections": [_text_json(entry) for entry in sections], "text": text}

    def _assembly(self, op: Json) -> Assembly:
        run = self._run(op)
        if not run.task.done() or run.task.exception() is not None:
            raise ScenarioError(f"assembly {op['assembly']!r} has not produced an assembly")
        return run.task.result()

    # -- names ------------------------------------------------------------------------------

    def _scope(self, op: Json) -> Json:
        name = op["scope"]
        if name in self.scenario.scopes:
            raise ScenarioError(f"scope {name!r} already exists")
        self.scenario.scopes[name] = Scope(name, self.scenario.scope_named(op.get("parent")))
        return _OK

    def _new_handle(self, op: Json) -> str:
        handle: str = op["handle"]
        if handle in self.handles:
            raise ScenarioError(f"handle {handle!r} is already used in this scenario")
        return handle

    def _handle(self, name: str) -> Registration:
        if name not in self.handles:
            raise ScenarioError(f"unknown handle {name!r}")
        return self.handles[name]

    def _run(self, op: Json) -> _Run:
        name = op["assembly"]
        if name not in self.runs:
            raise ScenarioError(f"unknown assembly {name!r}")
        return self.runs[name]


_OK: Final = {"ok": True}
#: PROTOCOL.md: `abort` (and an already-aborted `assemble`) without a `reason` mean a user cancel.
_USER_ABORT: Final = {"kind": "user"}


def _fails_once(message: str) -> Callable[[object], None]:
    """A ``system-prompt/change`` observer that throws on its first notification only."""
    calls = 0

    def observer(_change: object) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ScriptedFailure(message)

    return observer


def _scope_json(scope: object) -> Json:
    return scope.name if isinstance(scope, Scope) else None


def _order(value: Json) -> Json:
    """The protocol's spelling of NaN and the infinities; anything else goes to the registry."""
    if isinstance(value, str):
        if value not in _SPECIAL_ORDERS:
            raise ScenarioError(f"order {value!r} is neither a number nor NaN/Infinity/-Infinity")
        return _SPECIAL_ORDERS[value]
    return value


def _tool_contribution(value: Json) -> ToolContribution:
    return ToolContribution(schemas=value["schemas"], known_names=value.get("knownNames"))


def _text_json(entry: PromptText) -> Json:
    return {"name": entry.name, "text": entry.text}


def _assembly_json(assembly: Assembly) -> Json:
    # A JSON round trip: the observation must not alias the implementation's objects.
    return json.loads(
        json.dumps(
            {
                "sections": [_text_json(entry) for entry in assembly.sections],
                "contexts": [_text_json(entry) for entry in assembly.contexts],
                "tools": [schema.to_json() for schema in assembly.tools],
                "variables": assembly.variables,
            }
        )
    )


_LISTS: Final = ("sections", "contexts", "tools")
_EDITS: Final = ("append", "remove", "reverse", "replace", "retext", "set-variable")


def _native(list_name: str, item: Json) -> PromptText | ToolSchema:
    if list_name == "tools":
        return ToolSchema.keep(item)
    return PromptText(item["name"], item["text"])


def _edit(assembly: Assembly, edit: Json) -> None:
    verb = next((key for key in _EDITS if key in edit), None)
    if verb == "set-variable":
        value = edit["value"]
        if value is not None and not isinstance(value, str):
            raise ScenarioError(f"set-variable needs a string or null value, got {value!r}")
        assembly.variables[edit["set-variable"]] = value
        return
    list_name = edit.get(verb) if verb else None
    if list_name not in _LISTS or (verb == "retext" and list_name == "tools"):
        raise ScenarioError(f"unknown listener edit {edit!r}")
    items = getattr(assembly, list_name)
    if verb == "append":
        items.append(_native(list_name, edit["item"]))
    elif verb == "remove":
        items[:] = [item for item in items if item.name != edit["name"]]
    elif verb == "reverse":
        items.reverse()
    elif verb == "replace":
        items[:] = [_native(list_name, item) for item in edit["items"]]
    else:
        for item in items:
            if item.name == edit["name"]:
                item.text = edit["text"]


def _mutate(assembly: Assembly, op: Json) -> None:
    """Edit the returned assembly in place, following ``path`` through its native objects."""
    path = op["path"]
    if not path:
        raise ScenarioError("mutate needs a non-empty path")
    *parents, last = path
    target: Any = assembly
    for key in parents:
        target = _step(target, key)
    list_name = path[0] if path[0] in _LISTS else None
    if "append" in op:
        value = op["append"]
        _step(target, last).append(
            _native(list_name, value) if list_name and len(path) == 1 else value
        )
    elif "set" in op:
        value = op["set"]
        _assign(target, last, _native(list_name, value) if list_name and len(path) == 2 else value)
    else:
        raise ScenarioError("mutate needs `set` or `append`")


def _step(target: Any, key: str | int) -> Any:
    if _is_item(target, key):
        return target[key]
    if isinstance(key, str):
        return getattr(target, key)
    raise ScenarioError(f"cannot follow {key!r} into a {type(target).__name__}")


def _assign(target: Any, key: str | int, value: Any) -> None:
    """Set what `_step` reads: an item of a dict or list, or an attribute."""
    if _is_item(target, key):
        target[key] = value
    elif isinstance(key, str):
        setattr(target, key, value)
    else:
        raise ScenarioError(f"cannot set {key!r} of a {type(target).__name__}")


def _is_item(target: Any, key: str | int) -> bool:
    """Whether ``key`` names an item (a dict key, a list index) rather than an attribute."""
    return isinstance(target, dict) or (isinstance(target, list) and isinstance(key, int))


def _retrieve(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()
