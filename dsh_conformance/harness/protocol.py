"""The suite's side of dsh_conformance/PROTOCOL.md: the handshake, the outcomes, and their checks.

Responses are checked structurally here, so that a malformed answer becomes a clear ``errored``
outcome instead of a confusing comparison failure; both transports then check every answer against
the full JSON Schema (``protocol.schema.json``, `dsh_conformance.harness.validate`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

Json = Any

PROTOCOL_VERSION: Final = 1

#: The longest one case may take unless ``--case-timeout`` says otherwise, in seconds.
DEFAULT_TIMEOUT: Final = 10.0

#: The reason of an ``errored`` outcome the implementation answered itself, in the shape the
#: schema fixes; every other ``errored`` outcome (a protocol violation, a timeout, a crash) says
#: what went wrong instead.
ANSWERED_ERRORED: Final = "the implementation answered 'errored'"

#: Capabilities protocol version 1 knows (PROTOCOL.md's table). An implementation may list others;
#: they are ignored.
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


class ProtocolError(Exception):
    """The implementation broke the protocol (bad handshake, malformed or mismatched response)."""


@dataclass(frozen=True)
class Handshake:
    name: str
    version: str
    capabilities: frozenset[str]
    language: str | None = None
    #: ``implementation.singleInstance`` (1.4): the harness may not run as two processes at
    #: once (it holds a port, a lock, a shared directory), so pytest-xdist runs it in one worker.
    single_instance: bool = False

    def describe(self) -> str:
        language = f", {self.language}" if self.language else ""
        capabilities = ", ".join(sorted(self.capabilities)) or "none"
        return f"{self.name} {self.version}{language}; capabilities: {capabilities}"


@dataclass(frozen=True)
class Outcome:
    """What one ``run`` produced: observations, a skip with its reason, or an error with context."""

    kind: Literal["observed", "skipped", "errored"]
    observations: list[Json] = field(default_factory=list)
    reason: str = ""
    context: Json = None

    @classmethod
    def errored(cls, reason: str, **context: Json) -> Outcome:
        return cls("errored", reason=reason, context=context or None)


def start_message() -> Json:
    return {"type": "start", "protocol": PROTOCOL_VERSION}


def run_message(case_id: str, scenario: Json) -> Json:
    return {"type": "run", "case": case_id, "scenario": scenario}


STOP_MESSAGE: Final = {"type": "stop"}


def parse_handshake(message: Json) -> Handshake:
    if not isinstance(message, dict) or message.get("type") != "started":
        raise ProtocolError(
            f"expected a 'started' message in answer to 'start', got {message!r} "
            "(dsh_conformance/PROTOCOL.md, 'Messages')"
        )
    if "protocol" not in message:
        raise ProtocolError(
            f"the 'started' answer has no 'protocol'; this suite speaks protocol {PROTOCOL_VERSION}"
        )
    if message.get("protocol") != PROTOCOL_VERSION:
        raise ProtocolError(
            f"the implementation speaks protocol {message.get('protocol')!r}; "
            f"this suite speaks protocol {PROTOCOL_VERSION} "
            "(dsh_conformance/PROTOCOL.md, 'Versioning')"
        )
    implementation = message.get("implementation")
    capabilities = message.get("capabilities")
    if not isinstance(implementation, dict) or not isinstance(implementation.get("name"), str):
        raise ProtocolError("'started.implementation' must be an object with a string 'name'")
    if not isinstance(capabilities, list) or not all(isinstance(c, str) for c in capabilities):
        raise ProtocolError("'started.capabilities' must be a list of strings")
    return Handshake(
        name=implementation["name"],
        version=str(implementation.get("version", "?")),
        language=implementation.get("language"),
        capabilities=frozenset(capabilities),
        single_instance=implementation.get("singleInstance") is True,
    )


def parse_outcome(message: Json, case_id: str, ops: int) -> Outcome:
    """The outcome of a ``run`` of ``ops`` ops; checked before the full schema, and cheaply, so
    that an answer with another number of observations is refused by that fact alone."""
    if not isinstance(message, dict):
        raise ProtocolError(f"expected a JSON object in answer to 'run', got {message!r}")
    kind = message.get("type")
    if message.get("case") != case_id and kind != "errored":
        raise ProtocolError(
            f"answer names case {message.get('case')!r}, but case {case_id!r} was sent"
        )
    if kind == "observed":
        observations = message.get("observations")
        if not isinstance(observations, list):
            raise ProtocolError("'observed.observations' must be a list")
        if len(observations) != ops:
            raise ProtocolError(
                f"answered {len(observations)} observations to a scenario of {ops} ops "
                "(one observation per op)"
            )
        return Outcome("observed", observations=observations)
    if kind == "skipped":
        reason = message.get("reason")
        if not isinstance(reason, str) or not reason:
            raise ProtocolError("'skipped' needs a non-empty string 'reason'")
        return Outcome("skipped", reason=reason)
    if kind == "errored":
        return Outcome(
            "errored",
            reason=ANSWERED_ERRORED,
            context=message.get("context"),
        )
    raise ProtocolError(f"unknown answer type {kind!r} to 'run'")
