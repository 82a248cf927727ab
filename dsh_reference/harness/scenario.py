"""One ``run`` of dsh_conformance/PROTOCOL.md: the scenario's shared state and its op loop.

A scenario executes its ops in order in a fresh asyncio loop, and after every op runs until
quiescent (every assembly and agent finished, or parked on a closed gate or an unaborted signal),
which makes the observations deterministic. What the capabilities share lives here: the registry
(replaced by ``configure``), the named scopes, the gates and the parked waiters. Each capability
(`registry`, `session`, `loop`, `deepseek` beside this module) answers its own ops; the package's
entry point puts their op tables together, so this module imports none of them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, ClassVar, Final, Protocol

from ..abort import AbortSignal
from ..assembly import Assembly, PromptText
from ..config import PromptConfig
from ..errors import ContractError
from ..loop import Agent
from ..registry import PromptRegistry, Scope

Json = Any

_SETTLE_ROUNDS: Final = 10_000


class ScenarioError(Exception):
    """The scenario cannot be executed (unknown op, unknown name): answered as ``errored``."""


class ScriptedFailure(Exception):
    """What a ``fails`` provider, or a ``change-observer`` op's observer, throws."""


def error_observation(error: ContractError | ScriptedFailure) -> Json:
    """``{"error": ERROR}`` for a rejected op (PROTOCOL.md, "Observations")."""
    if isinstance(error, ScriptedFailure):
        return {"error": {"kind": "scripted-failure", "message": str(error)}}
    body = {"kind": error.kind, "message": str(error)}
    if error.where is not None:
        body["where"] = error.where
    return {"error": body}


class Hooks(Protocol):
    """The parts of the reference model a scenario builds on; a wrong implementation in the
    gallery overrides one of them (`dsh_reference.harness.Driver`)."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry: ...

    def render_prompt(self, assembly: Assembly) -> str: ...

    def render_context(self, assembly: Assembly) -> tuple[list[PromptText], str]: ...

    def make_agent(self, **options: Any) -> Agent: ...


class Capability(Protocol):
    """The ops of one capability, over the state of one scenario."""

    #: The op names it answers.
    OPS: ClassVar[frozenset[str]]

    def __init__(self, scenario: Scenario, /) -> None: ...

    async def apply(self, op: Json) -> Json: ...

    def busy(self) -> int:
        """How many of its tasks are still running (for the scenario's quiescence check)."""
        ...


class Gate:
    """A named gate. Opening it wakes its waiters synchronously, so that `settle` sees them busy."""

    def __init__(self) -> None:
        self.opened = False
        self.waiting: list[Callable[[], None]] = []

    def open(self) -> None:
        self.opened = True
        waiting, self.waiting = self.waiting, []
        for wake in waiting:
            wake()


#: `Scenario.wait`: WAIT (or ``None``: no wait) and the signal an ``{"abort": true}`` waits on.
Wait = Callable[[Json | None, AbortSignal | None], Awaitable[None]]


class Scenario:
    """The state one ``run`` message's ops share, and the loop that applies them."""

    def __init__(self, hooks: Hooks, capabilities: Sequence[type[Capability]]) -> None:
        self.hooks = hooks
        self.changes = 0
        self.registry = self.new_registry(PromptConfig())
        self.scopes: dict[str, Scope] = {}
        #: The scopes agents own: an `assemble` op passes `agent` only for one of these.
        self.agent_scopes: set[Scope] = set()
        self.gates: dict[str, Gate] = {}
        self.parked: list[asyncio.Future[None]] = []
        self._capabilities = [kind(self) for kind in capabilities]
        self._answering = {name: each for each in self._capabilities for name in each.OPS}

    def new_registry(self, config: PromptConfig) -> PromptRegistry:
        """A registry for ``config``; its change notifications are counted for ``counts``."""
        registry = self.hooks.make_registry(config)
        registry.subscribe(self._count_change)
        return registry

    def _count_change(self, _change: object) -> None:
        self.changes += 1

    async def run(self, ops: list[Json]) -> list[Json]:
        observations = []
        for index, op in enumerate(ops):
            if op.get("op") == "configure" and index != 0:
                raise ScenarioError(f"op #{index}: configure is allowed only as the first op")
            name = op.get("op")
            if name not in self._answering:
                raise ScenarioError(f"unknown op {name!r}")
            observations.append(await self._answering[name].apply(op))
            await self.settle()
        return observations

    async def settle(self) -> None:
        """Run until every assembly has finished or is parked on a gate or an abort signal."""
        for _ in range(_SETTLE_ROUNDS):
            self.parked = [waiter for waiter in self.parked if not waiter.done()]
            busy = sum(capability.busy() for capability in self._capabilities)
            if busy <= len(self.parked):
                return
            await asyncio.sleep(0)
        raise ScenarioError(f"the scenario did not become quiescent in {_SETTLE_ROUNDS} rounds")

    async def wait(self, wait_for: Json | None, signal: AbortSignal | None) -> None:
        """WAIT: park until the named gate opens, or until ``signal`` aborts."""
        if wait_for is None:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not waiter.done():
                waiter.set_result(None)

        if "gate" in wait_for:
            gate = self.gate(wait_for["gate"])
            if gate.opened:
                return
            gate.waiting.append(wake)
        elif wait_for.get("abort"):
            if signal is None:
                # PROTOCOL.md: a throw the assembly reports, so that a loop that forgets to pass
                # the turn's signal fails its case instead of erroring the harness.
                raise ScriptedFailure("no abort signal")
            signal.add_listener(wake)
        else:
            raise ScenarioError(f"unknown waitFor {wait_for!r}")
        self.parked.append(waiter)
        await waiter

    def gate(self, name: str) -> Gate:
        return self.gates.setdefault(name, Gate())

    def scope_named(self, name: str | None) -> Scope | None:
        if name is None:
            return None
        if name not in self.scopes:
            raise ScenarioError(f"unknown scope {name!r}")
        return self.scopes[name]
