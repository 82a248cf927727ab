"""The ``loop`` capability of the reference harness (conformance/PROTOCOL.md, "The loop").

A translator, not a model: each op builds or drives a `reference.loop.Agent` from the scenario's
data. An agent's scope is a registry scope named after it, so the registry ops of the same case
(``register`` with ``layer``, ``listen`` with ``scope``) reach its assemblies; a blocking
listener is how a case holds a step's assembly pending. The scripted model, tool results and
decisions are closures over lists consumed in order. Every request the model adapter receives is
recorded with the log length at its dispatch (``dispatchSeq``), so the suite can rebuild it from
the log (LOGGEDLOOP-REQUEST-INVARIANT).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import ClassVar, Final, Literal

from ..abort import AbortSignal
from ..jsonvalue import Json, snapshot
from ..loop import (
    Agent,
    Enter,
    PreStep,
    PreStepDecision,
    Reject,
    RequestError,
    ToolCall,
    ToolOutcome,
    ToolRunner,
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
from .scenario import Scenario, ScenarioError

#: The source of the summary a ``compact`` op writes: another plugin's message, not runtime
#: context.
COMPACTOR: Final = {"kind": "plugin", "plugin": "compactor"}
#: The scripted decisions an agent accepts, per list.
_DECISIONS: Final = {"preStep": ("default", "reject", "empty"), "requestError": ("retry", "end")}


@dataclass
class _Recorder:
    """The scripted model adapter, recording each request with the log length at its dispatch."""

    scripted: ScriptedAdapter
    log: SessionLog
    received: list[Json] = field(default_factory=list)

    @property
    def defaults(self) -> AdapterDefaultValues:
        return self.scripted.defaults

    @property
    def context_window(self) -> int | None:
        return self.scripted.context_window

    def stream(self, request: Request, signal: AbortSignal) -> AsyncIterator[Chunk]:
        self.received.append({"dispatchSeq": len(self.log), "request": snapshot(request)})
        return self.scripted.stream(request, signal)


class LoopOps:
    """The agents of one scenario and the ops that drive them."""

    OPS: ClassVar[frozenset[str]] = frozenset(
        {"agent", "followup", "steer", "cancel", "dispose-agent", "compact", "observe"}
    )

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.agents: dict[str, Agent] = {}
        self.adapters: dict[str, _Recorder] = {}
        self._ids = 0

    def busy(self) -> int:
        """How many agents have a running driver (for the scenario's quiescence check)."""
        return sum(agent.busy for agent in self.agents.values())

    async def apply(self, op: Json) -> Json:
        name = op["op"]
        if name == "agent":
            self._create(op)
            return {"ok": True}
        agent = self._agent(op["agent"])
        if name in ("followup", "steer"):
            if agent.disposed:
                raise ScenarioError(f"agent {op['agent']!r} is disposed")
            message = user_message(op["text"], agent.new_id())
            (agent.followup if name == "followup" else agent.steer)(message)
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

    def _create(self, op: Json) -> None:
        name = op["agent"]
        scenario = self.scenario
        for key, allowed in _DECISIONS.items():
            unknown = [value for value in op.get(key, []) if _decision(key, value) not in allowed]
            if unknown:
                raise ScenarioError(f"agent {name!r}: unknown {key} decision(s) {unknown}")
        if name in scenario.scopes:
            raise ScenarioError(f"agent {name!r}: a scope of that name already exists")
        scope = Scope(name, scenario.scope_named(op.get("parent")))
        scenario.scopes[name] = scope
        scenario.agent_scopes.add(scope)
        log = self._log(op.get("seed"))
        adapter_spec = op.get("adapter", {})
        scripted = ScriptedAdapter(
            [self._reply(reply) for reply in op.get("model", [])],
            defaults=adapter_spec.get("defaults", {}),
            context_window=adapter_spec.get("contextWindow"),
        )
        adapter = _Recorder(scripted, log)
        self.adapters[name] = adapter
        self.agents[name] = scenario.hooks.make_agent(
            registry=scenario.registry,
            scope=scope,
            log=log,
            adapter=adapter,
            config=op["config"],
            session_id=self._new_id("session"),
            tools=_scripted_tools(op.get("tools", [])),
            pre_step=_scripted_pre_step(op.get("preStep", [])),
            request_error=_scripted_request_error(op.get("requestError", []), scenario.wait),
            new_id=lambda: self._new_id("message"),
        )

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


def _scripted_tools(results: list[Json]) -> ToolRunner:
    queue = list(results)

    async def run(call: ToolCall, _signal: AbortSignal) -> ToolOutcome:
        if not queue:
            text = f"Error: no scripted result for tool call {call.call_id}"
            return ToolOutcome([{"type": "text", "text": text}], is_error=True)
        result = queue.pop(0)
        return ToolOutcome(
            snapshot(result["content"]),
            is_error=result.get("isError", False),
            concludes=result.get("concludes", False),
        )

    return run


def _scripted_pre_step(
    decisions: list[Json],
) -> Callable[[PreStep, Enter], Awaitable[PreStepDecision]]:
    queue = list(decisions)

    async def decide(_question: PreStep, default: Enter) -> PreStepDecision:
        decision = queue.pop(0) if queue else "default"
        if decision == "reject":
            return Reject()
        return Enter([]) if decision == "empty" else default

    return decide


def _decision(key: str, value: Json) -> Json:
    """The name of a scripted decision: the string, or ``action`` of the object form
    ``{"action", "waitFor"}`` (an ACTION that waits: requestError only)."""
    if key == "requestError" and isinstance(value, dict) and set(value) == {"action", "waitFor"}:
        return value["action"]
    return value


def _scripted_request_error(
    actions: list[Json], wait: Callable[[Json, AbortSignal], Awaitable[None]]
) -> Callable[[RequestError], Awaitable[Literal["retry"] | None]]:
    """Each failed attempt takes the next ACTION; one with ``waitFor`` first waits for the gate
    or the turn's abort signal, so a case can cancel while the decision is pending (upstream
    section 8.3, row g)."""
    queue = list(actions)

    async def decide(question: RequestError) -> Literal["retry"] | None:
        action = queue.pop(0) if queue else "end"
        if isinstance(action, dict):
            await wait(action["waitFor"], question.signal)
        return "retry" if _decision("requestError", action) == "retry" else None

    return decide
