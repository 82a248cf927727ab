"""The reference model's conformance harness: it answers the messages of
dsh_conformance/PROTOCOL.md.

`Driver.handle` takes one protocol message and returns the response; the conformance suite calls
it in-process (``--impl reference``), and `main` serves the same messages as JSON lines on
stdin/stdout (``--impl dsh-reference-harness``), so the subprocess path is exercised end to end.

The package: `scenario` runs one ``run`` message's ops over the state they share; `registry`,
`session`, `loop` and `deepseek` each answer one capability's ops and may import `scenario`, never
each other. This entry point is the one place that knows them all: it puts their op tables
together (`CAPABILITY_OPS`). Nothing inside the package imports it.

Wrong implementations for the suite's own tests subclass `Driver` and override one hook
(`make_registry`, `render_prompt`, `render_context`, `make_agent`).
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from typing import Any, Final

from .. import __version__
from ..assembly import Assembly, PromptText
from ..config import PromptConfig
from ..loop import Agent
from ..registry import PromptRegistry
from ..render import join_context_sections, render_context_sections, render_prompt
from .deepseek import DeepSeekOps
from .loop import LoopOps
from .registry import RegistryOps
from .scenario import Capability, Scenario
from .session import SessionOps

__all__ = ["CAPABILITIES", "PROTOCOL_VERSION", "Driver", "main", "serve"]

PROTOCOL_VERSION: Final = 1
#: ``registry-1.1``: the registry ops and fields added by protocol 1.1 (``registry-1.2``: an
#: `assemble` op passes `agent` only for an agent's own scope); ``async-providers``: a
#: provider may block (``waitFor``), which the reference allows (providers may be awaitables);
#: ``registry-1.4``: a LISTENER's ``fails`` without a loop (a throwing listener rejects `assemble`);
#: ``session``: the session log, the request header and the runtime-context projection
#: (``session-1.2``: the `session-event-invalid` kind and an option injected as absent);
#: ``loop``: the logged loop (agents, scripted model, cancel, the log and the requests);
#: ``loop-1.2``: the loop's hooks, refused agents, failed builds, ``inject`` and the reads;
#: ``loop-1.3``: the turn-stopping hook, ``register-adapter`` and adapters' effort sets;
#: ``deepseek-wire`` / ``deepseek-http``: the DeepSeek adapter, without and with HTTP.
CAPABILITIES: Final = (
    "registry",
    "registry-1.1",
    "registry-1.2",
    "registry-1.4",
    "async-providers",
    "session",
    "session-1.2",
    "loop",
    "loop-1.2",
    "loop-1.3",
    "deepseek-wire",
    "deepseek-http",
)
#: Every op of the protocol, by the capability module that answers it.
CAPABILITY_OPS: Final[tuple[type[Capability], ...]] = (
    RegistryOps,
    SessionOps,
    LoopOps,
    DeepSeekOps,
)

Json = Any


def _observe(scenario: Scenario, ops: list[Json]) -> list[Json]:
    """``asyncio.run(scenario.run(ops))``, the observations handed over outside the task's result.

    In the main thread, with Python's own SIGINT handler in place, `asyncio.run` installs one that
    holds the task; on taking it down, `signal` tries that handler as a `signal.Handlers` member,
    and the error it catches formats the finished task's repr, its result included. Twice a case,
    for a loop case's observations (every request) that cost more than the rest of the run.
    """
    observations: list[Json] = []

    async def observe() -> None:
        observations.extend(await scenario.run(ops))

    asyncio.run(observe())
    return observations


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
                scenario = Scenario(self, CAPABILITY_OPS)
                observations = _observe(scenario, message["scenario"]["ops"])
            except Exception as error:
                return {"type": "errored", "case": case, "context": _describe(error)}
            return {"type": "observed", "case": case, "observations": observations}
        if kind == "stop":
            return None
        return {"type": "errored", "case": None, "context": f"unknown message type {kind!r}"}

    # -- hooks a wrong implementation may override (`scenario.Hooks`) ------------------------

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        return PromptRegistry(config)

    def render_prompt(self, assembly: Assembly) -> str:
        return render_prompt(assembly)

    def render_context(self, assembly: Assembly) -> tuple[list[PromptText], str]:
        sections = render_context_sections(assembly)
        return sections, join_context_sections(sections)

    def make_agent(self, **options: Any) -> Agent:
        """The loop's agent (`loop`); a wrong loop overrides this."""
        return Agent(**options)


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
