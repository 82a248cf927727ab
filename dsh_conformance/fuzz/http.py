"""The ``http`` family: ``deepseek-http`` exchanges with the suite's loopback server
(PROMPT-DEEPSEEK-WIRE over real HTTP, capability ``deepseek-http``).

A scenario is one to three exchanges. Each is a ``deepseek-http`` op (a request the
implementation sends through its own HTTP adapter) carrying, under ``response``, the raw response
its own loopback server (`dsh_conformance.deepseek.loopback`) plays back, followed by a
``loopback-received`` op: not sent to the implementation, it stands for what reached that server.
`run` starts one server per exchange on 127.0.0.1 around each run, writes each server's URL into
its op (generated ops hold `PLACEHOLDER`), strips what only the suite reads, and answers the
``loopback-received`` ops from the servers' records. Both oracles then judge it as any scenario:
the differential one compares the stream (`dsh_conformance.fuzz.oracles.wire_expectation`) and the
request that arrived (method, URL, the three contractual headers, the body as a JSON value with key
order), and the self-check judges the raw body's bytes (`body_problems`: "the body is JSON as
`JSON.stringify` writes it") and, where a request's history extends the one before it, the prefix
stability of its serialized messages (`prefix_problems`, PROMPT-CACHE-E2E, judged by
`dsh_conformance.judge.prefix_stability` as the suite's HTTP cases are).

What is drawn, and what is left out, is `dsh_conformance.fuzz.draws.http`.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
from contextlib import ExitStack
from typing import Any, Final

from ..deepseek.loopback import LoopbackServer, Recorded, Scripted
from ..harness.protocol import Outcome
from ..harness.transport import Implementation
from ..judge.prefix_stability import prefix_problems as body_prefix_problems

Json = Any
#: The ``baseUrl`` of a generated op, replaced by its server's URL when it runs (it matches the
#: schema's pattern, so a scenario is well-formed as drawn).
PLACEHOLDER: Final = "http://127.0.0.1:0"
#: The op that stands for what reached an exchange's server; never sent to an implementation.
RECEIVED: Final = "loopback-received"
#: A JSON string escape (every backslash in a JSON text starts one).
_ESCAPE: Final = re.compile(rb"\\(?:u([0-9A-Fa-f]{4})|.)")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def scripted(response: Json) -> Scripted:
    """An op's raw ``response`` as the loopback server's `Scripted`."""
    return Scripted(
        status=response["status"],
        headers=tuple((name, value) for name, value in response["headers"]),
        parts=tuple(base64.b64decode(part) for part in response["parts"]),
        content_length=response.get("contentLength"),
    )


def cut_short(op: Json) -> bool:
    """Whether the op's response closes before its announced ``content-length``."""
    response = op.get("response", {})
    length = response.get("contentLength")
    return length is not None and length > sum(
        len(base64.b64decode(part)) for part in response["parts"]
    )


def run(impl: Implementation, case_id: str, ops: list[Json]) -> Outcome:
    """Run ``ops`` on ``impl`` with one loopback server per ``deepseek-http`` op; the
    ``loopback-received`` ops are answered from the servers' records (what reached each)."""
    with ExitStack() as stack:
        sent: list[Json] = []
        servers: list[LoopbackServer] = []
        for op in ops:
            if op["op"] == RECEIVED:
                continue
            if op["op"] == "deepseek-http":
                server = stack.enter_context(LoopbackServer([scripted(op["response"])]))
                servers.append(server)
                op = {k: v for k, v in op.items() if k != "response"}
                op["baseUrl"] = server.base_url
            sent.append(op)
        outcome = impl.run(case_id, {"ops": sent})
        records = [server.recorded for server in servers]
    if outcome.kind != "observed":
        return outcome
    answers = iter(outcome.observations)
    received = iter(records)
    observations = [
        _received(next(received)) if op["op"] == RECEIVED else next(answers) for op in ops
    ]
    return Outcome("observed", observations)


def _received(recorded: list[Recorded]) -> Json:
    """What reached one server: its one request, parsed, with the body's bytes (base64) for the
    self-check; or how many requests arrived when that is not one."""
    if len(recorded) != 1:
        return {"received": len(recorded)}
    got = recorded[0]
    try:
        body = _loads(got.body)
    except ValueError:
        body = None
    request = {"method": got.method, "url": got.path, "headers": got.headers, "body": body}
    return {"request": request, "bytes": b64(got.body)}


def _loads(data: bytes) -> Json:
    """The body as a JSON value; raw surrogate bytes read as the surrogates they encode, so that
    the differential comparison sees the value and `body_problems` the bytes."""
    return json.loads(data.decode("utf-8", "surrogatepass"))


def body_problems(observed: Json) -> list[str]:
    """What is wrong with a request body's bytes, by PROMPT-DEEPSEEK-WIRE: "the body is JSON as
    `JSON.stringify` writes it — in particular a lone surrogate in any string is written as the
    escape `\\udXXX` (lowercase hex), never as raw bytes and never as an encoding error". So the
    bytes are well-formed UTF-8 holding JSON, and each escape of a lone surrogate is lowercase.
    (Which other characters are escaped is not judged: bodies are compared as JSON values.)"""
    if not isinstance(observed, dict) or not isinstance(observed.get("bytes"), str):
        return []
    raw = base64.b64decode(observed["bytes"])
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return [f"the body is not UTF-8 ({error}): a lone surrogate must go out as an escape"]
    if observed.get("request", {}).get("body") is None:
        return [f"the body is not JSON: {raw[:200]!r}"]
    escapes = list(_ESCAPE.finditer(raw))
    problems = []
    for index, match in enumerate(escapes):
        hexa = match.group(1)
        if hexa is None or not _surrogate(hexa) or hexa == hexa.lower():
            continue
        high = int(hexa, 16) < 0xDC00
        other = escapes[index + 1] if high and index + 1 < len(escapes) else None
        if not high and index:
            other = escapes[index - 1]
        adjacent = other is not None and (
            other.start() == match.end() if high else other.end() == match.start()
        )
        half = other.group(1) if adjacent and other is not None else None
        if half is None or not _surrogate(half) or (int(half, 16) < 0xDC00) == high:
            problems.append(f"the lone surrogate escape \\u{hexa.decode()} is not lowercase")
    return problems


def _surrogate(hexa: bytes) -> bool:
    return 0xD800 <= int(hexa, 16) <= 0xDFFF


def prefix_problems(ops: list[Json], observed: list[Json]) -> list[tuple[int, str]]:
    """``(op index, what is wrong)`` where a request whose history extends the one before it
    (the same call, more messages) is not byte-identical to it where they overlap, judged by
    `dsh_conformance.judge.prefix_stability` as the suite's HTTP cases are: PROMPT-CACHE-E2E, "each
    request body's serialized messages extend the previous request's byte for byte", and
    PROMPT-DEEPSEEK-WIRE, "Byte identity is required between consecutive requests of one
    implementation (the prefix stability of PROMPT-CACHE-E2E)"."""
    exchanges = [
        (index + 1, op["request"], observed[index + 1])
        for index, op in enumerate(ops[:-1])
        if op["op"] == "deepseek-http" and ops[index + 1]["op"] == RECEIVED
    ]
    problems = []
    for (_, before, seen), (index, after, got) in itertools.pairwise(exchanges):
        first, second = _json_body(seen), _json_body(got)
        if grown(before, after) and first is not None and second is not None:
            problems += [(index, problem) for problem in body_prefix_problems([first, second])]
    return problems


def _json_body(observed: Json) -> bytes | None:
    """The raw body of a request that reached the server (``None``: none, or one that is not
    UTF-8 JSON, which `body_problems` reports)."""
    if not isinstance(observed, dict) or not isinstance(observed.get("bytes"), str):
        return None
    if observed.get("request", {}).get("body") is None:
        return None
    raw = base64.b64decode(observed["bytes"])
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return raw


def grown(before: Json, after: Json) -> bool:
    """Whether the request ``after`` is ``before`` with its history grown: the same call, more
    messages, the earlier ones the same."""
    kept = {**after, "messages": after["messages"][: len(before["messages"])]}
    return kept == before and len(after["messages"]) > len(before["messages"])
