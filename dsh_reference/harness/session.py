"""The reference harness's ``session`` capability: session-log, header and projection ops.

A translator, not a model: each op of dsh_conformance/PROTOCOL.md ("The `session` capability") calls
the public API of `session`, `header` and `runtime_context` and turns the result into an
observation. The model functions are looked up through their modules on every call, so a wrong
implementation in the gallery can replace one of them.

One case holds one session (empty until ``session-seed`` builds one over seeded events) and at most
one runtime-context projection, which sees every event appended after ``projection-start``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, ClassVar, Final

from .. import header as header_model
from .. import runtime_context, session
from ..assembly import PromptText
from ..errors import ContractError
from .scenario import Scenario, ScenarioError

Json = Any


class Undefined:
    """Stands for JavaScript's ``undefined`` written where a key should be absent (not JSON)."""


class NonPlain:
    """An object that is not a plain JSON object (a class instance; JavaScript: a ``Date``)."""


_INJECTED: Final[dict[str, Callable[[], object]]] = {
    "undefined": Undefined,
    "non-plain": NonPlain,
    "NaN": lambda: float("nan"),
    "Infinity": lambda: float("inf"),
    "-Infinity": lambda: float("-inf"),
    "-0": lambda: -0.0,
}


def option(value: Json) -> Json:
    """An append option as the reference takes it: ``None`` when absent. "A `surfaceOp` or
    `sourceEventSeqs` option given with an absent value (JavaScript's `undefined`, a language's
    "no value") is the option not given" (CONTRACTS.md, "The session log"); an absent value
    *inside* a given option stays, and is `session-non-json`."""
    return None if isinstance(value, Undefined) else value


class SessionOps:
    """The session state of one scenario and the ops that act on it."""

    OPS: ClassVar[frozenset[str]] = frozenset(
        {
            "session-seed",
            "session-append",
            "session-log",
            "session-surface",
            "session-messages",
            "session-header",
            "header-canonical",
            "header-equal",
            "projection-start",
            "project",
        }
    )

    def __init__(self, _scenario: Scenario) -> None:
        self.log = session.SessionLog()
        self.projection: runtime_context.RuntimeContextProjection | None = None

    def busy(self) -> int:
        return 0  # every session op completes before it answers

    async def apply(self, op: Json) -> Json:
        name = op["op"]
        if name == "session-seed":
            return self._attempt(lambda: self._seed(op["events"]))
        if name == "session-append":
            return self._attempt(lambda: self._append(op))
        if name == "session-log":
            return {"events": self.log.to_json()}
        if name == "session-surface":
            return {"surface": list(self.log.surface)}
        if name == "session-messages":
            return {"messages": self.log.messages()}
        if name == "session-header":
            return {"header": self.log.request_header()}
        if name == "header-canonical":
            return {"header": header_model.canonical_header(op["header"])}
        if name == "header-equal":
            return {"equal": header_model.headers_equal(op["a"], op["b"])}
        if name == "projection-start":
            self.projection = runtime_context.RuntimeContextProjection.restore(self.log)
            return _OK
        if name == "project":
            sections = [PromptText(entry["name"], entry["text"]) for entry in op["sections"]]
            return {"message": self._projection().project(sections)}
        raise ScenarioError(f"unknown session op {name!r}")

    def _attempt(self, action: Callable[[], None]) -> Json:
        try:
            action()
        except ContractError as error:
            return {"error": {"kind": error.kind, "message": str(error)}}
        return _OK

    def _seed(self, events: Json) -> None:
        self.log = session.SessionLog.from_seed(events)
        self.projection = None

    def _append(self, op: Json) -> None:
        event = self._with_injections(op["event"], op.get("inject", []))
        logged = self.log.append(
            event["type"],
            event.get("data"),
            surface_op=option(session.surface_field(event, "surfaceOp")),
            source_event_seqs=option(session.surface_field(event, "sourceEventSeqs")),
        )
        if self.projection is not None:
            self.projection.observe(logged)

    def _with_injections(self, event: Json, injections: Json) -> Json:
        """The event with each INJECT value put at its path (`data`, `surfaceOp`, ...)."""
        event = copy.deepcopy(event)
        for injection in injections:
            *parents, last = injection["at"]
            target = event
            for key in parents:
                target = target[key]
            value = injection["value"]
            if value == "cycle":
                target[last] = target
            elif value in _INJECTED:
                target[last] = _INJECTED[value]()
            else:
                raise ScenarioError(f"unknown injected value {value!r}")
        return event

    def _projection(self) -> runtime_context.RuntimeContextProjection:
        if self.projection is None:
            raise ScenarioError("`project` before `projection-start`")
        return self.projection


_OK: Final = {"ok": True}
