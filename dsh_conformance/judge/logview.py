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

    def compared(self, expected: Json) -> Json:
        """The parts of the view ``expected`` lists: ``types``, ``log``, ``tail`` (the log's last
        events, as many as expected) and ``requests`` (each request cut to the fields its
        expectation gives, a missing one shown as `ABSENT`)."""
        parts: Json = {}
        if "types" in expected:
            parts["types"] = [event["type"] for event in self.log]
        if "log" in expected:
            parts["log"] = self.log
        if "tail" in expected:
            count = len(expected["tail"])
            parts["tail"] = self.log[len(self.log) - count :] if count else []
        if "requests" in expected:
            wanted = expected["requests"]
            parts["requests"] = [
                {key: got.get(key, ABSENT) for key in want}
                for want, got in zip(wanted, self.requests, strict=False)
            ] + self.requests[len(wanted) :]
        return parts

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
    problem = _malformed(observed)
    if problem:
        return problem
    compared = LoopView(observed).compared(expected)
    if "types" in expected and compared["types"] != expected["types"]:
        return f"event types: expected {_show(expected['types'])}, got {_show(compared['types'])}"
    for key, what in (("log", "event"), ("tail", "last event"), ("requests", "request")):
        if key in expected:
            problem = _compare_list(what, expected[key], compared[key])
            if problem:
                return problem
    return None


def compared_view(expected: Json, observed: Json) -> Json:
    """What `compare_loop` compares ``expected`` with: the view's part for each key it lists. A
    failure's pointers must name places in this, not in the raw observation (whose seqs, ids and
    non-core events the comparison never saw); a malformed observation is shown as it is."""
    return observed if _malformed(observed) else LoopView(observed).compared(expected)


def _malformed(observed: Json) -> str | None:
    if not isinstance(observed, dict) or "log" not in observed:
        return f"expected a log observation, got {_show(observed)}"
    for key in ("log", "requests"):
        items = observed.get(key, [])
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            return f"`{key}` must be a list of objects, got {_show(items)}"
    return None


def _compare_list(what: str, expected: list[Json], got: list[Json]) -> str | None:
    for index, (want, have) in enumerate(zip(expected, got, strict=False)):
        if not matches(want, have):
            keys = [
                key for key in want if not matches(want.get(key), (have or {}).get(key, ABSENT))
            ]
            return f"{what} #{index}: expected {_show(want)}, got {_show(have)}" + (
                f" (differs in {keys})" if keys else ""
            )
    if len(expected) != len(got):
        extra = got[len(expected) :]
        return f"expected {len(expected)} {what}s, got {len(got)}" + (
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
