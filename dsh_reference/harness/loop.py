"""The ``loop`` capability of the reference harness (PROTOCOL.md, "The `loop` capability").

A translator, not a model: each op builds or drives a `dsh_reference.loop.Agent` from the scenario's
data. An agent's scope is a registry scope named after it, so the registry ops of the same case
(``register`` with ``layer``, ``listen`` with ``scope``) reach its assemblies; a blocking
listener is how a case holds a step's assembly pending. The scripted model, tool results and
decisions are closures over lists consumed in order. Every request the model adapter receives is
recorded with the log length at its dispatch (``dispatchSeq``), so the suite can rebuild it from
the log (LOGGEDLOOP-REQUEST-INVARIANT).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Final, Literal

from ..abort import AbortSignal
from ..errors import ContractError
from ..jsonvalue import Json, snapshot
from ..loop import (
    NO_ADAPTER,
    Agent,
    Enter,
    PreStep,
    PreStepDecision,
    Reject,
    RequestBuild,
    RequestError,
    RequestHook,
    Resolution,
    Resolver,
    ToolCall,
    ToolOutcome,
    ToolRunner,
    TurnStopping,
    TurnStoppingHook,
    prepare_config,
    user_message,
)
from ..model_adapter import (
    AdapterDefaultValues,
    AdapterFailure,
    Chunk,
    Request,
    ScriptedAdapter,
    ScriptedReply,
)
from ..registry import Scope
from ..session import SessionLog, SurfaceReplace
from .scenario import Scenario, ScenarioError, ScriptedFailure, Wait, error_observation

#: The source of the summary a ``compact`` op writes: another plugin's message, not runtime
#: context.
COMPACTOR: Final = {"kind": "plugin", "plugin": "compactor"}
#: The source of a message the ``inject`` op places in the inbox (1.2).
INJECTOR: Final = {"kind": "plugin", "plugin": "injector"}
#: The scripted decisions an agent accepts, per list.
_DECISIONS: Final = {
    "preStep": ("default", "reject", "empty", "throws"),
    "requestError": ("retry", "end", "throws"),
}


@dataclass
class _Recorder:
    """The scripted model adapter, recording each request with the log length at its dispatch.

    With ``providers`` (an ``adapters`` map, 1.2, read as it is at each request: an adapter may
    be registered later), a request for a provider it lacks has no adapter: its stream fails
    with ``NO_ADAPTER`` and takes no scripted reply.
    """

    scripted: ScriptedAdapter
    log: SessionLog
    providers: Mapping[str, Json] | None = None
    received: list[Json] = field(default_factory=list)

    @property
    def defaults(self) -> AdapterDefaultValues:
        return self.scripted.defaults

    @property
    def context_window(self) -> int | None:
        return self.scripted.context_window

    def stream(self, request: Request, signal: AbortSignal) -> AsyncIterator[Chunk]:
        self.received.append({"dispatchSeq": len(self.log), "request": snapshot(request)})
        if self.providers is not None and request["provider"] not in self.providers:
            return _no_adapter(request["provider"])
        return self.scripted.stream(request, signal)


async def _no_adapter(provider: str) -> AsyncIterator[Chunk]:
    raise AdapterFailure(NO_ADAPTER, f"no model adapter for provider {provider!r}")
    yield {}  # pragma: no cover - makes this an async generator


class LoopOps:
    """The agents of one scenario and the ops that drive them."""

    OPS: ClassVar[frozenset[str]] = frozenset(
        {"agent", "followup", "steer", "cancel", "dispose-agent", "compact", "observe"}
        | {"inject", "hook-calls", "request-state", "register-adapter"}
    )

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.agents: dict[str, Agent] = {}
        self.adapters: dict[str, _Recorder] = {}
        #: Per agent created with ``adapters`` (1.2), its adapters by provider, as registered
        #: so far (``register-adapter`` adds to it).
        self.adapter_maps: dict[str, dict[str, Json]] = {}
        #: Per agent, what its `agent/pre-step` and `agent/request` hooks were asked (1.2).
        self.hook_calls: dict[str, dict[str, list[Json]]] = {}
        self._ids = 0

    def busy(self) -> int:
        """How many agents have a running driver (for the scenario's quiescence check)."""
        return sum(agent.busy for agent in self.agents.values())

    async def apply(self, op: Json) -> Json:
        name = op["op"]
        if name == "agent":
            return self._create(op)
        agent = self._agent(op["agent"])
        if name in ("followup", "steer", "inject"):
            if agent.disposed:
                raise ScenarioError(f"agent {op['agent']!r} is disposed")
            message = user_message(op["text"], agent.new_id())
            if name == "inject":
                agent.inject({**message, "source": dict(INJECTOR)})
            else:
                (agent.followup if name == "followup" else agent.steer)(message)
        elif name == "hook-calls":
            return snapshot(self.hook_calls[op["agent"]])
        elif name == "request-state":
            return {"header": agent.log.request_header(), "context": agent.log.request_context()}
        elif name == "register-adapter":
            self._register_adapter(op)
        elif name == "cancel":
            agent.cancel(op.get("reason", {"kind": "user"}))
        elif name == "dispose-agent":
            agent.dispose()
        elif name == "compact":
            return self._compact(agent, op)
        else:
            return {
                "sessionId": agent.session_id,
                "log": agent.log.to_json(),
                "requests": snapshot(self.adapters[op["agent"]].received),
            }
        return {"ok": True}

    def _register_adapter(self, op: Json) -> None:
        """Register the adapter of ``provider`` for an agent created with ``adapters`` (1.2):
        the model layer's registry, which the agent's later resolutions and requests read."""
        adapters = self.adapter_maps.get(op["agent"])
        if adapters is None:
            raise ScenarioError(f"agent {op['agent']!r} was created without `adapters`")
        if op["provider"] in adapters:
            raise ScenarioError(f"agent {op['agent']!r}: {op['provider']!r} has an adapter")
        adapters[op["provider"]] = op["adapter"]

    def _compact(self, agent: Agent, op: Json) -> Json:
        """Replace the surface nodes ``start``..``end`` (surface positions) with a summary.

        What a compaction plugin does between turns; the agent's runtime-context projection
        sees the replacement live (LOOP-RUNTIME-CONTEXT: "a surface replacement whose
        `sourceEventSeqs` include the retained seq makes it none-retained").
        """
        if agent.busy:
            raise ScenarioError(f"agent {op['agent']!r} is running a turn: compact when idle")
        surface = agent.log.surface
        start, end = op["start"], op["end"]
        if not 0 <= start <= end < len(surface):
            # Not a scenario error: a loop that logged other surface nodes than the case
            # expects ends up here, and must fail the case, not error.
            message = f"compact {start}..{end}: the surface has {len(surface)} nodes"
            return {"error": {"kind": "surface-replace-invalid", "message": message}}
        summary = {
            "role": "user",
            "content": [{"type": "text", "text": op["text"]}],
            "source": dict(COMPACTOR),
            "id": agent.new_id(),
        }
        agent.append(
            "user/message",
            summary,
            surface_op=SurfaceReplace(surface[start], surface[end]),
            source_event_seqs=list(surface[start : end + 1]),
        )
        return {"ok": True}

    def _create(self, op: Json) -> Json:
        name = op["agent"]
        scenario = self.scenario
        for key, allowed in _DECISIONS.items():
            unknown = [value for value in op.get(key, []) if _decision(key, value) not in allowed]
            if unknown:
                raise ScenarioError(f"agent {name!r}: unknown {key} decision(s) {unknown}")
        for key, allowed_keys in _HOOK_KEYS.items():
            bad_hooks = [
                hook
                for hook in op.get(key, [])
                if hook != "pass" and not (isinstance(hook, dict) and set(hook) <= allowed_keys)
            ]
            if bad_hooks:
                raise ScenarioError(f"agent {name!r}: unknown {key} hook(s) {bad_hooks}")
        if name in scenario.scopes or name in self.agents:
            raise ScenarioError(f"agent {name!r}: a scope of that name already exists")
        calls: dict[str, list[Json]] = {"preStep": [], "requestHook": [], "requestError": []}
        scope = Scope(name, scenario.scope_named(op.get("parent")))
        log = self._log(op.get("seed"))
        adapter_spec = op.get("adapter", {})
        scripted = ScriptedAdapter(
            [self._reply(reply) for reply in op.get("model", [])],
            defaults=adapter_spec.get("defaults", {}),
            context_window=adapter_spec.get("contextWindow"),
        )
        adapters = None if "adapters" not in op else dict(op["adapters"])
        if adapters is not None and "adapter" in op:
            raise ScenarioError(f"agent {name!r}: give `adapter` or `adapters`, not both")
        adapter = _Recorder(scripted, log, adapters)
        # Refused (`agent-config-invalid`, 1.2): nothing is kept, the scope included.
        try:
            agent = self._make_agent(op, scope, log, adapter, calls, adapters)
        except ContractError as error:
            return error_observation(error)
        if adapters is not None:
            self.adapter_maps[name] = adapters
        scenario.scopes[name] = scope
        scenario.agent_scopes.add(scope)
        self.adapters[name], self.agents[name], self.hook_calls[name] = adapter, agent, calls
        return {"ok": True}

    def _make_agent(
        self,
        op: Json,
        scope: Scope,
        log: SessionLog,
        adapter: _Recorder,
        calls: Json,
        adapters: dict[str, Json] | None,
    ) -> Agent:
        scenario = self.scenario
        return scenario.hooks.make_agent(
            registry=scenario.registry,
            scope=scope,
            log=log,
            adapter=adapter,
            config=op["config"],
            session_id=self._new_id("session"),
            tools=_scripted_tools(op.get("tools", []), scenario.wait),
            pre_step=_scripted_pre_step(op.get("preStep", []), scenario.wait, calls["preStep"]),
            request_error=_scripted_request_error(
                op.get("requestError", []), scenario.wait, calls["requestError"]
            ),
            request=_scripted_request(op.get("request", []), scenario.wait, calls["requestHook"]),
            turn_stopping=_scripted_turn_stopping(op.get("turnStopping", []), scenario.wait),
            resolve=None if adapters is None else self._resolver(adapters),
            new_id=lambda: self._new_id("message"),
        )

    def _resolver(self, adapters: Mapping[str, Json]) -> Resolver:
        """Model resolution over an ``adapters`` map (1.2), read as it is at each resolution: the
        proposed provider's adapter, after its ``resolve`` wait, fails (the model layer's
        failure), throws, or resolves with its defaults and effort set (`prepare_config`); a
        provider without one is ``NO_ADAPTER``."""

        async def resolve(proposed: dict[str, Json], signal: AbortSignal) -> Resolution:
            spec = adapters.get(proposed["provider"])
            if spec is None:
                raise AdapterFailure(NO_ADAPTER, f"no adapter for {proposed['provider']!r}")
            how = spec.get("resolve", {})
            await self.scenario.wait(how.get("waitFor"), signal)
            if "fails" in how:
                raise AdapterFailure(how["fails"]["code"], how["fails"]["message"])
            if "throws" in how:
                raise ScriptedFailure(how["throws"])
            config, markers = prepare_config(
                proposed, spec.get("defaults", {}), spec.get("efforts")
            )
            return Resolution(config, markers, spec.get("contextWindow"))

        return resolve

    def _reply(self, reply: Json) -> ScriptedReply:
        """REPLY: stream ``chunks``, then wait (``waitFor``), then fail (``fail``) if asked."""
        fail, wait_for = reply.get("fail"), reply.get("waitFor")

        async def hold(signal: AbortSignal) -> None:
            await self.scenario.wait(wait_for, signal)

        return ScriptedReply(
            chunks=reply.get("chunks", []),
            failure=None if fail is None else AdapterFailure(fail["code"], fail["message"]),
            hold=None if wait_for is None else hold,
        )

    def _log(self, seed: Json) -> SessionLog:
        """A fresh log, or one seeded with events (a list) or with another agent's log."""
        if seed is None:
            return SessionLog()
        if isinstance(seed, dict) and "agent" in seed:
            return SessionLog.from_seed(self._agent(seed["agent"]).log.to_json())
        if isinstance(seed, list):
            return SessionLog.from_seed(seed)
        raise ScenarioError(f"seed {seed!r} is neither a list of events nor {{agent}}")

    def _agent(self, name: str) -> Agent:
        if name not in self.agents:
            raise ScenarioError(f"unknown agent {name!r}")
        return self.agents[name]

    def _new_id(self, kind: str) -> str:
        self._ids += 1
        return f"{kind}-{self._ids}"


def _scripted_tools(results: list[Json], wait: Wait) -> ToolRunner:
    """TOOL_RESULT, one per call: after its ``waitFor`` (1.2), the result, or the tool runtime
    throws (``throws``, 1.2)."""
    queue = list(results)

    async def run(call: ToolCall, signal: AbortSignal) -> ToolOutcome:
        if not queue:
            text = f"Error: no scripted result for tool call {call.call_id}"
            return ToolOutcome([{"type": "text", "text": text}], is_error=True)
        result = queue.pop(0)
        await wait(result.get("waitFor"), signal)
        if "throws" in result:
            raise ScriptedFailure(result["throws"])
        return ToolOutcome(
            snapshot(result["content"]),
            is_error=result.get("isError", False),
            concludes=result.get("concludes", False),
        )

    return run


def _scripted_pre_step(
    decisions: list[Json], wait: Wait, calls: list[Json]
) -> Callable[[PreStep, Enter], Awaitable[PreStepDecision]]:
    """DECISION, one per call, each call recorded: what was claimed, and the runtime-context
    message the default decision proposes after the claimed ones (``null`` for none)."""
    queue = list(decisions)

    async def decide(question: PreStep, default: Enter) -> PreStepDecision:
        proposed = default.messages[len(question.claimed) :]
        calls.append(
            {
                "turn": question.turn,
                "step": question.step,
                "claimed": [_without_id(message) for message in question.claimed],
                "proposed": _without_id(proposed[0]) if proposed else None,
            }
        )
        decision = queue.pop(0) if queue else "default"
        if isinstance(decision, dict):
            await wait(decision.get("waitFor"), question.signal)
            if "throws" in decision:
                raise ScriptedFailure(decision["throws"])
            decision = decision["decision"]
        if decision == "reject":
            return Reject()
        return Enter([]) if decision == "empty" else default

    return decide


def _scripted_request(hooks: list[Json], wait: Wait, calls: list[Json]) -> RequestHook:
    """REQUEST_HOOK (`agent/request`, 1.2), one per request build, each call recorded with the
    proposal it was given: ``"pass"``, or after its ``waitFor``, throw (``throws``) or set the
    fields of ``set`` (``null`` removes one)."""
    queue = list(hooks)

    async def propose(question: RequestBuild, proposal: dict[str, Json]) -> dict[str, Json]:
        calls.append({"turn": question.turn, "step": question.step, "proposal": snapshot(proposal)})
        hook = queue.pop(0) if queue else "pass"
        if not isinstance(hook, dict):
            return proposal
        await wait(hook.get("waitFor"), question.signal)
        if "throws" in hook:
            raise ScriptedFailure(hook["throws"])
        changed = {**proposal, **hook.get("set", {})}
        return {key: value for key, value in changed.items() if value is not None}

    return propose


def _scripted_turn_stopping(hooks: list[Json], wait: Wait) -> TurnStoppingHook:
    """STOPPING (`agent/turn-stopping`, 1.2), one per call, then ``"pass"``: an object waits
    (``waitFor``: a gate, or the turn's abort signal) before the turn goes on to end."""
    queue = list(hooks)

    async def stopping(question: TurnStopping) -> None:
        hook = queue.pop(0) if queue else "pass"
        if isinstance(hook, dict):
            await wait(hook.get("waitFor"), question.signal)

    return stopping


def _decision(key: str, value: Json) -> Json:
    """The name of a scripted decision: the string, or the object forms (1.2 for all but the
    requestError ``{"action", "waitFor"}``): ``{"decision"|"action", "waitFor"?}``, and
    ``{"throws", "waitFor"?}`` (any name: the hook throws)."""
    if not isinstance(value, dict):
        return None if value == _THROWS else value
    if "throws" in value:
        return _THROWS
    named = value.get("decision" if key == "preStep" else "action")
    return named if set(value) <= {"decision", "action", "waitFor"} else None


#: The keys of a REQUEST_HOOK and of a STOPPING object, by the `agent` field that lists them.
_HOOK_KEYS: Final = {
    "request": frozenset({"set", "throws", "waitFor"}),
    "turnStopping": frozenset({"waitFor"}),
}
#: Stands for "the hook throws" among the allowed decision names.
_THROWS: Final = "throws"


def _without_id(message: Json) -> Json:
    """A message as HOOK_CALLS records it: ids are generated, so left out."""
    return {key: snapshot(value) for key, value in message.items() if key != "id"}


def _scripted_request_error(
    actions: list[Json], wait: Wait, calls: list[Json]
) -> Callable[[RequestError], Awaitable[Literal["retry"] | None]]:
    """Each failed attempt takes the next ACTION; one with ``waitFor`` first waits for the gate
    or the turn's abort signal, so a case can cancel while the decision is pending (upstream
    section 8.3, row g)."""
    queue = list(actions)

    async def decide(question: RequestError) -> Literal["retry"] | None:
        calls.append(
            {"turn": question.turn, "step": question.step, "failure": snapshot(question.failure)}
        )
        action = queue.pop(0) if queue else "end"
        if isinstance(action, dict):
            await wait(action.get("waitFor"), question.signal)
            if "throws" in action:
                raise ScriptedFailure(action["throws"])
        return "retry" if _decision("requestError", action) == "retry" else None

    return decide
