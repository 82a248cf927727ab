"""LOGGEDLOOP-REQUEST-INVARIANT, checked by the suite itself from a reported log and requests.

CONTRACTS.md: "The conformance suite MUST check this itself, from the log the implementation
reports, for every request of every loop case — not trust the implementation's own check." For
each request, with the suite's own fold (`dsh_conformance.judge.logfold`) of the log up to the
request's
``dispatchSeq`` ("a conformance harness reports with each model request the log length at
dispatch"):

- ``messages`` equals, as JSON text (key order included), the messages derived from the surface;
- ``provider``, ``model``, ``reasoningEffort``, ``temperature``, ``maxTokens``, ``stop``,
  ``system`` and ``tools`` equal the folded header (PROMPT-HEADER-CANONICAL equality), ``system``
  and ``tools`` present exactly when the header has them, never ``null``, ``''`` or ``[]``; the
  request holds nothing but ``{...config, messages, system?, tools?, sessionId}``;
- ``sessionId`` is the id the implementation reports for the session;
- a step is open, and a header written by the current loop instance precedes the request
  (ROOT-MODEL: "anchored in the log before a request is sent").

And the pairing, both ways: "A request is dispatched immediately before its attempt's first
event, and the requests of one loop instance pair with its attempts in order. A request cancelled
before its first chunk leaves no event". Requests are only dispatched in the live loop instance, so
its attempts and the reported requests are walked together: each request pairs with the attempt
starting at its ``dispatchSeq``, or after events outside the core vocabulary only ("Events
outside the core vocabulary, which an implementation may log at any time, may stand between a
dispatch and its attempt's first event"), which end no attempt either; an attempt no request
pairs with is a violation, and so is a request with no attempt there, unless it is the last
request of its turn and the turn ended ``aborted`` (or has not ended yet) without model output
after it: the one request a cancel may leave without events.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from . import headers
from .jsontext import show
from .jsonvalues import strict_equal
from .logfold import LogFold, seeded_length
from .logview import CORE_TYPES

Json = Any

#: The contracts the suite's check of every loop case (`check_requests` and the fold) stands for.
INVARIANT_CONTRACTS: Final = ("ROOT-MODEL", "LOGGEDLOOP-REQUEST-INVARIANT")
#: What a loop-built request may hold besides its config fields.
REQUEST_FIELDS: Final = ("messages", "system", "tools", "sessionId")


@dataclass(frozen=True)
class RequestViolation:
    """A request (``index``, dispatched at ``seq``) that differs from its log in ``field``."""

    index: int
    seq: Json
    field: str
    message: str
    contract: str = "LOGGEDLOOP-REQUEST-INVARIANT"

    def __str__(self) -> str:
        where = f"request #{self.index} (dispatchSeq {self.seq})"
        return f"{where}: {self.field} ({self.contract}): {self.message}"


def check_requests(
    log: list[Json], requests: list[Json], session_id: Json
) -> list[RequestViolation]:
    """Every violation of the invariant by ``requests`` against ``log``."""
    # "no request of this run is dispatched from seeded events": this run starts after the last
    # `session/end-seed`. The events before it are folded as seeds, by the append rules only
    # ("Seeded events are checked only against these append rules"), as COMPARISON.md folds them.
    last = live = seeded_length(log)
    fold = LogFold(seeded=live)
    found: list[RequestViolation] = []
    for index, entry in enumerate(requests):
        seq = entry.get("dispatchSeq") if isinstance(entry, dict) else None
        if not isinstance(seq, int) or isinstance(seq, bool) or not last <= seq <= len(log):
            found.append(
                RequestViolation(
                    index, seq, "dispatchSeq", f"must be a log length from {last} to {len(log)}"
                )
            )
            continue
        last = seq
        while len(fold.events) < seq:
            fold.add(log[len(fold.events)])
        found += [
            RequestViolation(index, seq, field, message, contract)
            for field, message, contract in _request_problems(
                fold, entry.get("request"), session_id
            )
        ]
    return found + _pairing_problems(log, requests, live)


def _pairing_problems(log: list[Json], requests: list[Json], live: int) -> list[RequestViolation]:
    """The requests and the live attempts, paired in order (see the module docstring)."""
    attempts = [seq for seq in attempt_starts(log) if seq >= live]
    found: list[RequestViolation] = []
    for index, entry in enumerate(requests):
        seq = entry.get("dispatchSeq") if isinstance(entry, dict) else None
        if not isinstance(seq, int) or isinstance(seq, bool):
            continue  # already reported as a bad dispatchSeq
        while attempts and attempts[0] < seq:
            found.append(_unrequested(attempts.pop(0), f"request #{index} is dispatched at {seq}"))
        if attempts and _outside_the_core(log[seq : attempts[0]]):
            attempts.pop(0)
        elif not _cancelled_before_a_chunk(log, seq, _next_dispatch(requests, index)):
            after = f"the next attempt starts at seq {attempts[0]}" if attempts else "none follows"
            found.append(
                RequestViolation(
                    index,
                    seq,
                    "attempt",
                    f"no attempt starts at its dispatchSeq ({after}); only the last request of a "
                    "turn that ends aborted before that request's first chunk may leave no event",
                )
            )
    return found + [_unrequested(seq, "no request is dispatched there") for seq in attempts]


def _outside_the_core(events: list[Json]) -> bool:
    """Whether only events outside the core vocabulary stand between a dispatch and an attempt:
    "Events outside the core vocabulary, which an implementation may log at any time, may stand
    between a dispatch and its attempt's first event" (LOGGEDLOOP-REQUEST-INVARIANT)."""
    return all(_type(event) not in CORE_TYPES for event in events)


def _unrequested(seq: int, why: str) -> RequestViolation:
    return RequestViolation(
        -1, seq, "attempt", f"the attempt starting at seq {seq} has no reported request ({why})"
    )


def _next_dispatch(requests: list[Json], index: int) -> Json:
    """The dispatchSeq of the request after ``index`` (``None`` for the last)."""
    following = requests[index + 1] if index + 1 < len(requests) else None
    return following.get("dispatchSeq") if isinstance(following, dict) else None


def _cancelled_before_a_chunk(log: list[Json], seq: int, next_seq: Json) -> bool:
    """Whether the request dispatched at ``seq`` is the last of its turn, and from ``seq`` on the
    turn logs no model output and has not ended yet or ends `aborted` ("A request cancelled
    before its first chunk leaves no event"). A later turn may send requests again."""
    for end, event in enumerate(log[seq:], start=seq):
        if _type(event) in ("assistant/chunk", "assistant/message"):
            return False
        if _type(event) == "turn/end":
            data = event.get("data")
            reason = data.get("reason") if isinstance(data, dict) else None
            aborted = isinstance(reason, dict) and reason.get("kind") == "aborted"
            return aborted and (next_seq is None or (isinstance(next_seq, int) and next_seq > end))
    return next_seq is None


def _type(event: Json) -> Json:
    return event.get("type") if isinstance(event, dict) else None


def attempt_starts(log: list[Json]) -> list[int]:
    """The seqs where attempts start.

    "An *attempt* is a maximal run of `assistant/chunk` events of one turn and step ending at its
    `finish` chunk ...; a stream that yields no chunk and ends normally appears only as an
    `assistant/message` with `sourceEventSeqs: []`."
    """
    starts, inside = [], False
    for seq, event in enumerate(log):
        kind = _type(event)
        if kind not in CORE_TYPES:
            continue  # "an implementation may log [them] at any time": they end no attempt
        data = event.get("data") if isinstance(event, dict) else None
        if kind == "assistant/chunk":
            if not inside:
                starts.append(seq)
            chunk = data.get("chunk") if isinstance(data, dict) else None
            inside = not (isinstance(chunk, dict) and chunk.get("type") == "finish")
            continue
        inside = False
        if (
            kind == "assistant/message"
            and event.get("sourceEventSeqs") == []
            and isinstance(data, dict)
            and not data.get("interrupted")
        ):
            starts.append(seq)
    return starts


def _request_problems(fold: LogFold, request: Json, session_id: Json) -> list[tuple[str, str, str]]:
    if not isinstance(request, dict):
        return [("request", "a request is a JSON object", "LOGGEDLOOP-REQUEST-INVARIANT")]
    problems: list[tuple[str, str, str]] = []

    def fail(field: str, message: str, contract: str = "LOGGEDLOOP-REQUEST-INVARIANT") -> None:
        problems.append((field, message, contract))

    if not fold.open_steps:
        fail("step", "no step is open at dispatch (its step/start logged, its step/end not)")
    derived = fold.messages()
    if json.dumps(request.get("messages")) != json.dumps(derived):
        fail("messages", _first_difference(request.get("messages"), derived))
    instance_started = fold.instance_starts[-1] < len(fold.events)
    header = fold.header
    if header is None or not (fold.instance_has_header and instance_started):
        fail("header", "no request/header of this loop instance before it", "ROOT-MODEL")
    else:
        for field in ("system", "tools"):
            if field in request and request[field] in (None, "", []):
                fail(field, f"{json.dumps(request[field])} where the field must be absent")
        as_header: Json = {
            "config": {key: request[key] for key in headers.COMPARED_CONFIG if key in request},
            **{key: request[key] for key in ("system", "tools") if key in request},
        }
        if "adapterDefaults" in header:
            as_header["adapterDefaults"] = header["adapterDefaults"]
        for field in headers.differences(header, as_header):
            got = _field(as_header, field)
            fail(field, f"the request has {got}, the folded header {_field(header, field)}")
        extra = sorted(set(request) - set(REQUEST_FIELDS) - set(header["config"]))
        missing = sorted(set(header["config"]) - set(request))
        if extra or missing:
            fail(
                "fields",
                f"not exactly {{...config, messages, system?, tools?, sessionId}}: "
                f"extra {extra}, missing config fields {missing}",
            )
    if not strict_equal(request.get("sessionId"), session_id):
        fail(
            "sessionId",
            f"{json.dumps(request.get('sessionId'))}, the session is {json.dumps(session_id)}",
        )
    return problems


def _short(value: Json) -> str:
    return show(value, 300)


def _field(header: Json, field: str) -> str:
    value: Json = header
    for key in field.split("."):
        value = value.get(key, "<absent>") if isinstance(value, dict) else "<absent>"
    return _short(value)


def _first_difference(sent: Json, derived: list[Json]) -> str:
    if not isinstance(sent, list):
        return f"not a list of messages: {json.dumps(sent)[:200]}"
    for index, (a, b) in enumerate(zip(sent, derived, strict=False)):
        if json.dumps(a) != json.dumps(b):
            return (
                f"message #{index} differs from the log's derived message: "
                f"sent {_short(a)}, derived {_short(b)}"
            )
    return f"{len(sent)} message(s) sent, the log derives {len(derived)}"
