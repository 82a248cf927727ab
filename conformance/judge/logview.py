"""What a loop case compares of a reported session log and of the requests a model received.

The issue's rule for observations: compare "what the contracts fix — types, order, turn/step
numbers, reasons, header contents, surface ops and citations — not `time` or generated message
ids (the suite compares ids by identity: same id where the same message appears twice)".

So a reported log is *viewed* before it is compared:

- only events of the core vocabulary (CONTRACTS.md, "The session log") are kept: other types
  "pass through unchecked" (the upstream also logs inbox splices and retry notes);
- each kept event becomes ``{type, data, surfaceOp?, sourceEventSeqs?}``: no ``seq`` (its position
  in the view says it) and no ``time``;
- seqs inside the event (``sourceEventSeqs``, a replace's ``start``/``end``) and a request's
  ``dispatchSeq`` become positions in the view;
- message ids become ``#1``, ``#2``, … in order of first appearance in the log, in the log and in
  the requests alike (an id the log never shows stays visible as ``?<id>``), and the session id
  reported with the observation becomes ``#session``.
"""

from __future__ import annotations

from typing import Any, Final

from ..scenarios.loopscenario import ANY_TEXT
from .jsontext import show

Json = Any

#: CONTRACTS.md, "The session log": the core payloads.
CORE_TYPES: Final = frozenset(
    {
        "turn/start",
        "turn/end",
        "step/start",
        "step/end",
        "user/message",
        "assistant/chunk",
        "assistant/message",
        "tool/call",
        "tool/result",
        "request/header",
        "request/context",
        "session/end-seed",
    }
)
SESSION: Final = "#session"
#: What an expected request field says to require that the field is absent.
ABSENT: Final = "<absent>"


class LoopView:
    """The view of one ``observe`` observation: ``log`` and ``requests`` as the cases write them."""

    def __init__(self, observed: Json) -> None:
        events = observed.get("log", [])
        self._positions: dict[Json, int] = {}
        self._ids: dict[str, str] = {}
        kept = [event for event in events if event.get("type") in CORE_TYPES]
        for position, event in enumerate(kept):
            self._positions[event.get("seq")] = position
        for event in kept:
            for message in _messages_of(event):
                if isinstance(message, dict) and isinstance(message.get("id"), str):
                    self._ids.setdefault(message["id"], f"#{len(self._ids) + 1}")
        self.session_id = observed.get("sessionId")
        self.log = [self._event(event) for event in kept]
        self.requests = [self._request(entry) for entry in observed.get("requests", [])]

    def _event(self, event: Json) -> Json:
        view: Json = {"type": event["type"], "data": self._ids_replaced(event.get("data"))}
        op = event.get("surfaceOp")
        if isinstance(op, dict):
            op = {
                **op,
                "start": self._position(op.get("start")),
                "end": self._position(op.get("end")),
            }
        if op is not None:
            view["surfaceOp"] = op
        if "sourceEventSeqs" in event:
            view["sourceEventSeqs"] = [self._position(seq) for seq in event["sourceEventSeqs"]]
        return view

    def _request(self, entry: Json) -> Json:
        seq = entry.get("dispatchSeq")
        before = sum(1 for logged in self._positions if _below(logged, seq))
        return {"dispatchSeq": before, **self._ids_replaced(entry.get("request", {}))}

    def _position(self, seq: Json) -> Json:
        return self._positions.get(seq, f"?{seq}")

    def _ids_replaced(self, value: Json) -> Json:
        if isinstance(value, list):
            return [self._ids_replaced(item) for item in value]
        if not isinstance(value, dict):
            return value
        copy = {key: self._ids_replaced(item) for key, item in value.items()}
        if _is_message(value) and isinstance(value.get("id"), str):
            copy["id"] = self._ids.get(value["id"], f"?{value['id']}")
        if "sessionId" in value:
            same = value["sessionId"] == self.session_id
            copy["sessionId"] = SESSION if same else value["sessionId"]
        return copy


def compare_loop(expected: Json, observed: Json) -> str | None:
    """``None`` if the viewed observation has what ``expected`` lists, else the first difference.

    ``expected`` may hold ``log`` (the whole view, event by event), ``tail`` (its last events
    only, for a case whose rule fixes how the log ends but not everything before), ``types``
    (only the types of the view) and ``requests`` (for each request, the fields given, plus
    ``dispatchSeq``; a field given as `ABSENT` must be absent). `ANY_TEXT` in an expected
    value matches any string.
    """
    if not isinstance(observed, dict) or "log" not in observed:
        return f"expected a log observation, got {_show(observed)}"
    for key in ("log", "requests"):
        items = observed.get(key, [])
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            return f"`{key}` must be a list of objects, got {_show(items)}"
    view = LoopView(observed)
    if "types" in expected:
        got = [event["type"] for event in view.log]
        if got != expected["types"]:
            return f"event types: expected {_show(expected['types'])}, got {_show(got)}"
    if "log" in expected:
        problem = _compare_list("event", expected["log"], view.log)
        if problem:
            return problem
    if "tail" in expected:
        count = len(expected["tail"])
        if len(view.log) < count:
            return f"expected the log to end with {count} events, it has {len(view.log)}"
        problem = _compare_list("last event", expected["tail"], view.log[len(view.log) - count :])
        if problem:
            return problem
    if "requests" in expected:
        partial = [
            {key: got.get(key, ABSENT) for key in want}
            for want, got in zip(expected["requests"], view.requests, strict=False)
        ]
        problem = _compare_list("request", expected["requests"], partial, len(view.requests))
        if problem:
            return problem
    return None


def _compare_list(what: str, expected: list[Json], got: list[Json], count: int = -1) -> str | None:
    count = len(got) if count < 0 else count
    for index, (want, have) in enumerate(zip(expected, got, strict=False)):
        if not matches(want, have):
            keys = [
                key for key in want if not matches(want.get(key), (have or {}).get(key, ABSENT))
            ]
            return f"{what} #{index}: expected {_show(want)}, got {_show(have)}" + (
                f" (differs in {keys})" if keys else ""
            )
    if len(expected) != count:
        extra = got[len(expected) :] if count > len(expected) else []
        return f"expected {len(expected)} {what}s, got {count}" + (
            f"; the first extra one: {_show(extra[0])}" if extra else ""
        )
    return None


def matches(want: Json, have: Json) -> bool:
    """``want == have``, except that `ANY_TEXT` anywhere in ``want`` matches any string."""
    if want == ANY_TEXT:
        return isinstance(have, str)
    if isinstance(want, dict):
        return (
            isinstance(have, dict)
            and set(want) == set(have)
            and all(matches(value, have[key]) for key, value in want.items())
        )
    if isinstance(want, list):
        return (
            isinstance(have, list)
            and len(want) == len(have)
            and all(matches(a, b) for a, b in zip(want, have, strict=True))
        )
    return bool(want == have)


def _messages_of(event: Json) -> list[Json]:
    data = event.get("data")
    if not isinstance(data, dict):
        return []
    if event.get("type") == "user/message":
        return [data]
    if event.get("type") in ("assistant/message", "tool/result"):
        return [data.get("message")]
    return []


def _is_message(value: Json) -> bool:
    return "role" in value and "content" in value and "id" in value


def _below(seq: Json, bound: Json) -> bool:
    return isinstance(seq, int | float) and isinstance(bound, int | float) and seq < bound


def _show(value: Json, limit: int = 700) -> str:
    return show(value, limit)
