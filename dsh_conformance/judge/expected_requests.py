"""The requests a loop case's own expectations fix, for runners without the suite's fold.

LOGGEDLOOP-REQUEST-INVARIANT: "`request.messages` equals the messages derived from the log at the
point of dispatch", and the rest of the request is the header in force and the session's id
(ROOT-MODEL: "A loop-built request is exactly `{...config, messages, system?, tools?,
sessionId}`"). The suite checks that itself on every loop case (`dsh_conformance.judge.invariant`,
on the log the implementation reports). A runner in another language has no fold; but where a
case's hand-written expectation fixes the log view completely (an ``observe`` op expecting the
whole ``log``) and fixes where each request was dispatched, every request follows from that
expectation alone, by the fold CONTRACTS.md defines. This module works them out,
with the suite's own fold (`dsh_conformance.judge.logfold`) run on the expected view — never with
the reference's output — so that ``export-cases`` can write them beside the case
(dsh_conformance/export/COMPARISON.md, "Expected requests").

The expected view is a log whose seqs are positions (the view drops non-core events, which never
touch the surface) and whose message ids are the view's names (``#1``, …), the same names the view
gives the reported requests: so the derived messages are compared with the *viewed* requests.

Where each request was dispatched: the ``dispatchSeq`` (a view position) every expected request
gives; or else the invariant's pairing ("the requests of one loop instance pair with its attempts
in order. A request cancelled before its first chunk leaves no event"): when every turn of the
expected log ends, and none ends aborted, no request can lack its attempt, so there is one request
per attempt of this loop instance, dispatched where the attempt starts (the case's expected
requests, if it gives any, must then be as many). Otherwise the case does not fix them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .invariant import attempt_starts
from .logfold import LogFold, seeded_length
from .logview import SESSION

Json = Any

#: Why a loop case fixes no request, when no ``observe`` op of it expects the whole log.
NO_WHOLE_LOG: Final = (
    "no observe op of the case expects the whole log (`log`): its expectations do not fix the "
    "log the requests are derived from"
)
#: Why, when the whole log is expected but where each request was dispatched is not fixed.
UNPLACED: Final = (
    "the expected log has a turn that ends aborted or does not end, so a request cancelled "
    "before its first chunk may have left no attempt, and the expected requests do not say "
    "where each was dispatched"
)


@dataclass(frozen=True)
class FixedRequests:
    """The requests one ``observe`` op (index ``op``) fixes: per request, the view position it
    was dispatched at and the request itself, as the view shows it (message ids ``#1``, …, the
    session id ``#session``)."""

    op: int
    requests: list[dict[str, Json]]

    def as_json(self) -> Json:
        return {"op": self.op, "requests": self.requests}


def fixed_requests(ops: list[Json]) -> tuple[list[FixedRequests], str | None]:
    """The requests the ``observe`` ops of a case fix, and — when none does — why not."""
    found: list[FixedRequests] = []
    why: str | None = NO_WHOLE_LOG
    for index, op in enumerate(ops):
        expected = op.get("expect") if op.get("op") == "observe" else None
        if not isinstance(expected, dict) or "log" not in expected:
            continue
        # The view's events as envelopes whose seq is their position.
        events = [_envelope(event, seq) for seq, event in enumerate(expected["log"])]
        positions = _dispatch_positions(events, expected.get("requests"))
        if positions is None:
            why = UNPLACED
            continue
        requests = [
            {"dispatchSeq": position, "request": request}
            for position, request in zip(positions, _requests_at(events, positions), strict=True)
        ]
        found.append(FixedRequests(index, requests))
    return found, None if found else why


def _requests_at(events: list[Json], positions: list[int]) -> list[Json]:
    """The request dispatched after the first ``position`` events, for each of ``positions`` in
    order, as the invariant derives it from one fold of the log (as `check_requests` reads it):
    ``{...config, messages, system?, tools?, sessionId}`` — the folded header's config fields,
    the derived messages, the header's system and tools when it has them, and the session's id
    as the view names it."""
    fold = LogFold(seeded=seeded_length(events))
    requests: list[Json] = []
    for position in positions:
        if not len(fold.events) <= position <= len(events):
            raise ValueError(
                f"the expected requests' dispatchSeq {position} is not a position from "
                f"{len(fold.events)} to {len(events)} of the expected log"
            )
        while len(fold.events) < position:
            fold.add(events[len(fold.events)])
        if fold.header is None:
            raise ValueError(f"the expected log has no request/header before position {position}")
        request: Json = {**fold.header["config"], "messages": fold.messages()}
        request.update({key: fold.header[key] for key in ("system", "tools") if key in fold.header})
        requests.append({**request, "sessionId": SESSION})
    return requests


def _dispatch_positions(events: list[Json], requests: list[Json] | None) -> list[int] | None:
    given = [request.get("dispatchSeq") for request in requests or []]
    if requests and all(isinstance(seq, int) and not isinstance(seq, bool) for seq in given):
        return [int(seq) for seq in given]
    live = seeded_length(events)
    ends = [event["data"].get("reason") for event in events[live:] if event["type"] == "turn/end"]
    starts = sum(1 for event in events[live:] if event["type"] == "turn/start")
    aborted = any(isinstance(end, dict) and end.get("kind") == "aborted" for end in ends)
    if aborted or starts != len(ends):
        return None
    attempts = [seq for seq in attempt_starts(events) if seq >= live]
    if requests is not None and len(requests) != len(attempts):
        raise ValueError(
            f"the case expects {len(requests)} requests and a log of {len(attempts)} attempts, "
            "where the invariant pairs them one to one"
        )
    return attempts


def _envelope(event: Json, seq: int) -> Json:
    """A view event as a log event: its position for ``seq``, a ``time`` of 0."""
    return {"type": event["type"], "seq": seq, "time": 0, **event}
