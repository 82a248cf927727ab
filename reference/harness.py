"""The reference model's conformance harness: it answers the messages of conformance/PROTOCOL.md.

`Driver.handle` takes one protocol message and returns the response; the conformance suite calls
it in-process (``--impl reference``), and `main` serves the same messages as JSON lines on
stdin/stdout (``--impl dsh-reference-harness``), so the subprocess path is exercised end to end.

Each ``run`` executes its scenario in a fresh asyncio loop. Scripted providers and listeners are
closures built from the scenario's data; after every op the scenario runs until quiescent (every
assembly finished, or parked on a closed gate or an unaborted signal), which makes the
observations deterministic. Every provider and listener with an ``id`` is counted and records what
it was given (the ``received`` op of protocol 1.1).

Wrong implementations for the suite's own tests subclass `Driver` and override one hook
(`make_registry`, `render_prompt`, `render_context`).
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
import traceback
from collections.abc import Callable
from typing import Any, Final

from . import __version__
from .abort import AbortController, AbortSignal
from .assembly import Assembly, PromptText, ToolContribution, ToolSchema
from .config import PromptConfig
from .errors import ContractError
from .harness_deepseek import DEEPSEEK_OPS, DeepSeekOpError, apply_deepseek_op
from .harness_loop import LOOP_OPS, LoopOps
from .harness_session import SESSION_OPS, SessionOps
from .loop import Agent
from .registry import AssembleContext, Next, PromptRegistry, Registration, Scope
from .render import join_context_sections, render_context_sections, render_prompt

PROTOCOL_VERSION: Final = 1
#: ``registry-1.1``: the registry ops and fields added by protocol 1.1; ``async-providers``: a
#: provider may block (``waitFor``), which the reference allows (providers may be awaitables);
#: ``session``: the session log, the request header and the runtime-context projection;
#: ``loop``: the logged loop (agents, scripted model, cancel, the log and the requests);
#: ``deepseek-wire`` / ``deepseek-http``: the DeepSeek adapter, without and with HTTP.
CAPABILITIES: Final = (
    "registry",
    "registry-1.1",
    "async-providers",
    "session",
    "loop",
    "deepseek-wire",
    "deepseek-http",
)
_SETTLE_ROUNDS: Final = 10_000
_SPECIAL_ORDERS: Final = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}

Json = Any


class ScenarioError(Exception):
    """The scenario cannot be executed (unknown op, unknown name): answered as ``errored``."""


class ScriptedFailure(Exception):
    """What a ``fails`` provider, or a ``change-observer`` op's observer, throws."""


class Driver:
    """Answers protocol messages with the reference model."""

    name = "dsh-reference"
    language = "python"
    capabilities: tuple[str, ...] = CAPABILITIES

    def handle(self, message: Json) -> Json:
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "start":
            return {
                "type": "started",
                "protocol": PROTOCOL_VERSION,
                "implementation": {
                    "name": self.name,
                    "version": _version(),
                    "language": self.language,
                },
                "capabilities": list(self.capabilities),
            }
        if kind == "run":
            case = message.get("case")
            try:
                observations = asyncio.run(_Scenario(self).run(message["scenario"]["ops"]))
            except Exception as error:
                return {"type": "errored", "case": case, "context": _describe(error)}
            return {"type": "observed", "case": case, "observations": observations}
        if kind == "stop":
            return None
        return {"type": "errored", "case": None, "context": f"unknown message type {kind!r}"}

    # -- hooks a wrong implementation may override ------------------------------------------

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        return PromptRegistry(config)

    def render_prompt(self, assembly: Assembly) -> str:
        return render_prompt(assembly)

    def render_context(self, assembly: Assembly) -> tuple[list[PromptText], str]:
        sections = render_context_sections(assembly)
        return sections, join_context_sections(sections)

    def make_agent(self, **options: Any) -> Agent:
        """The loop's agent (`harness_loop`); a wrong loop overrides this."""
        return Agent(**options)


class _Run:
    """One started assembly: its task and the controller of its abort signal."""

    def __init__(self, task: asyncio.Task[Assembly], controller: AbortController) -> None:
        self.task = task
        self.controller = controller


class _Gate:
    """A named gate. Opening it wakes its waiters synchronously, so that `settle` sees them busy."""

    def __init__(self) -> None:
        self.opened = False
        self.waiting: list[Callable[[], None]] = []

    def open(self) -> None:
        self.opened = True
        waiting, self.waiting = self.waiting, []
        for wake in waiting:
            wake()


class _Scenario:
    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.registry = self._fresh_registry(PromptConfig())
        self.scopes: dict[str, Scope] = {}
        self.handles: dict[str, Registration] = {}
        self.runs: dict[str, _Run] = {}
        self.gates: dict[str, _Gate] = {}
        self.parked: list[asyncio.Future[None]] = []
        self.evaluations: dict[str, int] = {}
        self.received: dict[str, list[Json]] = {}
        self.changes = 0
        self.loop = LoopOps(self)
        self.session = SessionOps(ScenarioError)

    def _fresh_registry(self, config: PromptConfig) -> PromptRegistry:
        registry = self.driver.make_registry(config)
        registry.subscribe(self._count_change)
        return registry

    def _count_change(self, _change: object) -> None:
        self.changes += 1

    async def run(self, ops: list[Json]) -> list[Json]:
        observations = []
        for index, op in enumerate(ops):
            if op.get("op") == "configure" and index != 0:
                raise ScenarioError(f"op #{index}: configure is allowed only as the first op")
            observations.append(await self.apply(op))
            await self.settle()
        return observations

    async def apply(self, op: Json) -> Json:
        name = op.get("op")
        if name == "configure":
            try:
                self.registry = self._fresh_registry(PromptConfig.load(op["config"]))
            except ContractError as error:
                return _error(error)
            return _OK
        if name in ("register", "release"):
            try:
                self.apply_effect(op)
            except (ContractError, ScriptedFailure) as error:
                return _error(error)
            return _OK
        if name == "change-observer":
            self.registry.subscribe(_fails_once(op["fails"]))
            return _OK
        if name == "dispose":
            scope = self._scope_named(op["scope"])
            if scope is None:
                raise ScenarioError("dispose needs a scope name (the global layer is not a scope)")
            self.registry.dispose_scope(scope)
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
            self._gate(op["gate"]).open()
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
            return {"evaluations": dict(self.evaluations), "changes": self.changes}
        if name == "received":
            if op["id"] not in self.received:
                raise ScenarioError(f"no provider or listener has id {op['id']!r}")
            return {"calls": list(self.received[op["id"]])}
        # The other capabilities' ops live in modules of their own.
        if name in LOOP_OPS:
            return await self.loop.apply(op)
        if name in SESSION_OPS:
            return self.session.apply(op)
        if name in DEEPSEEK_OPS:
            try:
                return await apply_deepseek_op(op)
            except DeepSeekOpError as error:
                raise ScenarioError(str(error)) from error
        raise ScenarioError(f"unknown op {name!r}")

    async def settle(self) -> None:
        """Run until every assembly has finished or is parked on a gate or an abort signal."""
        for _ in range(_SETTLE_ROUNDS):
            self.parked = [waiter for waiter in self.parked if not waiter.done()]
            busy = sum(not run.task.done() for run in self.runs.values()) + self.loop.busy()
            if busy <= len(self.parked):
                return
            await asyncio.sleep(0)
        raise ScenarioError(f"the scenario did not become quiescent in {_SETTLE_ROUNDS} rounds")

    # -- registrations ----------------------------------------------------------------------

    def apply_effect(self, op: Json) -> None:
        """``register`` or ``release``; a rejected registration raises its `ContractError`."""
        if op.get("op") == "release":
            self._handle(op["handle"]).release()
            return
        handle = self._new_handle(op)
        if "layer" in op and "scope" in op:
            raise ScenarioError("register takes `scope` or its older name `layer`, not both")
        layer = self._scope_named(op.get("scope", op.get("layer")))
        kind = op.get("kind")
        registry = self.registry
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
            await self._wait(spec.get("waitFor"), context.signal)
            for edit in spec.get("before", []):
                _edit(payload, edit)
            result = await next_() if call_next else payload
            for edit in spec.get("edits", []):
                _edit(result, edit)
            return result

        scope = self._scope_named(op.get("scope"))
        self.handles[handle] = self.registry.add_assemble_listener(listener, scope=scope)
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
            await self._wait(spec["waitFor"], context.signal)
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

    async def _wait(self, wait_for: Json | None, signal: AbortSignal | None) -> None:
        if wait_for is None:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not waiter.done():
                waiter.set_result(None)

        if "gate" in wait_for:
            gate = self._gate(wait_for["gate"])
            if gate.opened:
                return
            gate.waiting.append(wake)
        elif wait_for.get("abort"):
            if signal is None:
                raise ScenarioError("waitFor abort, but the assembly context has no signal")
            signal.add_listener(wake)
        else:
            raise ScenarioError(f"unknown waitFor {wait_for!r}")
        self.parked.append(waiter)
        await waiter

    # -- assemblies -------------------------------------------------------------------------

    async def _assemble(self, op: Json) -> Json:
        name = op["assembly"]
        if name in self.runs:
            raise ScenarioError(f"assembly {name!r} already started")
        scope = self._scope_named(op.get("scope"))
        controller = AbortController()
        if op.get("aborted"):
            controller.abort(op.get("reason", _USER_ABORT))
        context = AssembleContext(scope=scope, agent=scope, signal=controller.signal)
        task = asyncio.get_running_loop().create_task(self.registry.assemble(context))
        self.runs[name] = _Run(task, controller)
        await self.settle()
        return self._result(self.runs[name])

    def _result(self, run: _Run) -> Json:
        if not run.task.done():
            return {"pending": True}
        error = run.task.exception()
        if error is None:
            return {"assembly": _assembly_json(run.task.result())}
        if isinstance(error, ContractError | ScriptedFailure):
            return _error(error)
        raise error

    def _render(self, name: str, op: Json) -> Json:
        assembly = self._assembly(op)
        try:
            if name == "render":
                return {"text": self.driver.render_prompt(assembly)}
            sections, text = self.driver.render_context(assembly)
        except ContractError as error:
            return _error(error)
        return {"sections": [_text_json(entry) for entry in sections], "text": text}

    def _assembly(self, op: Json) -> Assembly:
        run = self._run(op)
        if not run.task.done() or run.task.exception() is not None:
            raise ScenarioError(f"assembly {op['assembly']!r} has not produced an assembly")
        return run.task.result()

    # -- names ------------------------------------------------------------------------------

    def _scope(self, op: Json) -> Json:
        name = op["scope"]
        if name in self.scopes:
            raise ScenarioError(f"scope {name!r} already exists")
        self.scopes[name] = Scope(name, self._scope_named(op.get("parent")))
        return _OK

    def _scope_named(self, name: str | None) -> Scope | None:
        if name is None:
            return None
        if name not in self.scopes:
            raise ScenarioError(f"unknown scope {name!r}")
        return self.scopes[name]

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

    def _gate(self, name: str) -> _Gate:
        return self.gates.setdefault(name, _Gate())


_OK: Final = {"ok": True}
#: PROTOCOL.md: `abort` (and an already-aborted `assemble`) without a `reason` mean a user cancel.
_USER_ABORT: Final = {"kind": "user"}


def _error(error: ContractError | ScriptedFailure) -> Json:
    if isinstance(error, ScriptedFailure):
        return {"error": {"kind": "scripted-failure", "message": str(error)}}
    body = {"kind": error.kind, "message": str(error)}
    if error.where is not None:
        body["where"] = error.where
    return {"error": body}


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


def _describe(error: BaseException) -> Json:
    return {
        "error": f"{type(error).__name__}: {error}",
        "traceback": "".join(traceback.format_exception(error)),
    }


def _version() -> str:
    # Not importlib.metadata: importing it was a fifth of the harness's start time.
    return __version__


def serve(driver: Driver, stdin: Any = None, stdout: Any = None) -> None:
    """Answer JSON-lines messages until ``stop`` or end of input."""
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    for line in stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except json.JSONDecodeError as error:
            response: Json = {"type": "errored", "case": None, "context": f"bad JSON: {error}"}
        else:
            response = driver.handle(message)
            if response is None:
                return
        stdout.write(json.dumps(response, allow_nan=False) + "\n")
        stdout.flush()


def main() -> None:
    """``dsh-reference-harness``: the reference model behind the subprocess transport."""
    sys.stdin.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    serve(Driver())


if __name__ == "__main__":
    main()
