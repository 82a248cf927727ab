"""The two oracles a generated scenario is judged by, both independent of the implementation.

- `self_check`: the suite's own checks that need no expected value, over what the implementation
  under test observed: LOGGEDLOOP-REQUEST-INVARIANT and ROOT-MODEL from every ``observe``
  (`dsh_conformance.judge.invariant`), the suite's fold of every log
  (`dsh_conformance.judge.logfold`: envelope, append rules, surface, citations, headers,
  runtime-context messages), header canonical form and equality (`dsh_conformance.judge.headers`),
  and tool order in UTF-16 code units where nothing may reorder the tools (PROMPT-TOOL-ORDER).
- `expectations`: the differential oracle. Each observation of the other implementation (the
  reference model by default) becomes an expectation in the form the example cases write, so the
  comparison is the suite's own (`dsh_conformance.judge.case.compare`) and fixes only what the
  contracts fix: a log through `dsh_conformance.judge.logview` (core events, positions for seqs,
  ``#n`` for message ids, no ``time``), an ERROR by its ``kind`` and, for the kinds whose `where`
  the protocol fixes, its ``where`` (never a message), headers as PROMPT-HEADER-CANONICAL
  compares them.
"""

from __future__ import annotations

from typing import Any, Final

from ..judge import headers
from ..judge.case import compare, describe_op
from ..judge.invariant import check_requests
from ..judge.logfold import fold_log, seeded_length
from ..judge.logview import LoopView
from ..scenarios.loopscenario import ANY_TEXT
from . import http

Json = Any

#: The error kinds whose ``where`` PROTOCOL.md's table fixes ("`where` is given where the table
#: says so and compared only there").
WHERE_KINDS: Final = frozenset(
    {
        "duplicate-registration",
        "invalid-order",
        "invalid-variable-name",
        "config-invalid",
        "tool-order-invalid",
        "tool-order-unknown-name",
        "reserved-tool-name",
        "render-malformed-reference",
        "render-unknown-variable",
        "render-undefined-variable",
        "agent-config-invalid",
    }
)
_UNLISTED: Final = "<unlisted-tools>"
#: The fold's rules that judge an append as such. A log the scenario itself appended to
#: (``session-log``) was written by no loop instance, and "the rules about what a loop writes ...
#: judge the events each loop instance wrote itself" (CONTRACTS.md, "The session log").
APPEND_RULES: Final = frozenset(
    {
        "envelope",
        "seq-not-contiguous",
        "session-non-json",
        "session-legacy-header",
        "surface-op-required",
        "surface-op-forbidden",
        "surface-replace-invalid",
        "source-seqs-invalid",
        "tool-result-replace-invalid",
        "payload-shape",
    }
)


#: The request headers PROMPT-DEEPSEEK-WIRE names (more may be sent; names are compared
#: case-insensitively).
_WIRE_HEADERS: Final = ("authorization", "content-type", "accept")
#: A connection closed mid-body before `[DONE]`: "EOF without it → `STREAM_CLOSED`", and the
#: contract names no code for a broken connection (the upstream says `TRANSPORT`), so either is
#: expected (as `deepseek-http/closed-mid-body` does).
_BROKEN: Final = ("STREAM_CLOSED", "TRANSPORT")
#: What an HTTP failure carries besides its code and message.
_HTTP_FACTS: Final = ("status", "providerRetryAfterMs", "requestId")


def wire_expectation(op: Json, observed: Json) -> Json | None:
    """A ``deepseek-wire`` observation as the wire cases expect it (`dsh_conformance.judge.
    wire_compare`): a request's method, URL, the contract's three headers and its body (key
    order included); a stream's ended blocks, usage and finish; a failure's code and, for an
    HTTP failure, its status, Retry-After and request id; never a message. ``None`` for what
    is not one."""
    if op["op"] == "deepseek-request" and isinstance(observed.get("request"), dict):
        request = observed["request"]
        sent = {str(name).lower(): value for name, value in request.get("headers", {}).items()}
        headers = {name: sent[name] for name in _WIRE_HEADERS if name in sent}
        kept = {key: request[key] for key in ("method", "url", "body") if key in request}
        return {"request": {**kept, "headers": headers}}
    if op["op"] == http.RECEIVED:
        return http_expectation(observed)
    if op["op"] in ("deepseek-stream", "deepseek-http") and isinstance(
        observed.get("chunks"), list
    ):
        chunks = observed["chunks"]
        usages = [chunk.get("usage") for chunk in chunks if chunk.get("type") == "usage"]
        finish = dict(chunks[-1].get("reason", {})) if chunks else {}
        if isinstance(finish.get("failure"), dict):
            finish["failure"] = _failure(finish["failure"])
            if http.cut_short(op) and finish["failure"]["code"] in _BROKEN:
                finish["failure"]["code"] = list(_BROKEN)
        blocks = [chunk.get("block") for chunk in chunks if chunk.get("type") == "block-end"]
        return {
            "stream": {"blocks": blocks, "usage": usages[0] if usages else None, "finish": finish}
        }
    if op["op"] == "deepseek-http-error" and isinstance(observed.get("failure"), dict):
        return {"failure": _failure(observed["failure"])}
    return None


def http_expectation(observed: Json) -> Json:
    """What reached a loopback server (`dsh_conformance.fuzz.http`), as the ``deepseek-http`` cases
    judge it: the request as a ``deepseek-request``'s (its bytes are the self-check's), or how
    many requests arrived when that is not one (none: refused before any I/O)."""
    if "request" in observed:
        return wire_expectation({"op": "deepseek-request"}, observed)
    return {"received": observed.get("received")}


def _failure(failure: Json) -> Json:
    kept = {"code": failure.get("code")}
    if "status" in failure:
        kept.update((key, failure[key]) for key in _HTTP_FACTS if key in failure)
    return kept


def expectation(op: Json, observed: Json) -> Json:
    """What a case would expect of ``op``, given the other implementation's ``observed``."""
    wire = wire_expectation(op, observed) if isinstance(observed, dict) else None
    if wire is not None:
        return wire
    if op["op"] == "observe" and isinstance(observed, dict) and "log" in observed:
        view = LoopView(observed)
        return {"log": _any_failure_message(view.log), "requests": view.requests}
    if isinstance(observed, dict) and isinstance(observed.get("error"), dict):
        error = observed["error"]
        kept = {"kind": error.get("kind")}
        if error.get("kind") in WHERE_KINDS and "where" in error:
            kept["where"] = error["where"]
        return {"error": kept}
    if op["op"] == "session-log" and isinstance(observed, dict):
        events = observed.get("events", [])
        return {"events": [{k: v for k, v in event.items() if k != "time"} for event in events]}
    return observed


def _any_failure_message(value: Json) -> Json:
    """``value`` with every failure's ``message`` as `ANY_TEXT`: "Codes are compared; messages
    never are" (a failure is an object with a string ``code`` and a string ``message``)."""
    if isinstance(value, list):
        return [_any_failure_message(item) for item in value]
    if not isinstance(value, dict):
        return value
    copied = {key: _any_failure_message(item) for key, item in value.items()}
    if isinstance(copied.get("code"), str) and isinstance(copied.get("message"), str):
        copied["message"] = ANY_TEXT
    return copied


def expectations(ops: list[Json], observed: list[Json]) -> list[Json]:
    return [expectation(op, seen) for op, seen in zip(ops, observed, strict=True)]


def differences(ops: list[Json], expected: list[Json], observed: Json) -> list[tuple[int, str]]:
    """``(op index, what differs)`` for each op whose observation misses its expectation."""
    if not isinstance(observed, list) or len(observed) != len(ops):
        count = len(observed) if isinstance(observed, list) else "no list of"
        return [(-1, f"expected {len(ops)} observations (one per op), got {count}")]
    found = []
    for index, (op, want, got) in enumerate(zip(ops, expected, observed, strict=True)):
        problem = compare(want, got)
        if problem:
            found.append((index, f"op #{index} {describe_op(op)}: {problem}"))
    return found


def self_check(ops: list[Json], observed: Json) -> list[tuple[int, str, str]]:
    """``(op index, contract ID, what is wrong)`` for each rule the observations break."""
    if not isinstance(observed, list) or len(observed) != len(ops):
        return []  # the differential oracle reports the count
    found: list[tuple[int, str, str]] = []
    reorders = any(op["op"] in ("listen", "configure", "mutate") for op in ops)
    for index, (op, got) in enumerate(zip(ops, observed, strict=True)):
        where = f"op #{index} {describe_op(op)}"
        if not isinstance(got, dict):
            continue
        name = op["op"]
        if name == "observe" and isinstance(got.get("log"), list):
            for violation in check_requests(
                got["log"], got.get("requests", []), got.get("sessionId")
            ):
                found.append((index, violation.contract, f"{where}: {violation}"))
            found += _fold(index, where, got["log"])
        elif name == "session-log" and isinstance(got.get("events"), list):
            found += _fold(index, where, got["events"], APPEND_RULES)
        elif name == "header-canonical":
            problem = compare({"header": headers.canonical(op["header"])}, got)
            if problem:
                found.append((index, "PROMPT-HEADER-CANONICAL", f"{where}: {problem}"))
        elif name == "header-equal":
            problem = compare({"equal": not headers.differences(op["a"], op["b"])}, got)
            if problem:
                found.append((index, "PROMPT-HEADER-CANONICAL", f"{where}: {problem}"))
        elif name == http.RECEIVED:
            found += [
                (index, "PROMPT-DEEPSEEK-WIRE", f"{where}: {problem}")
                for problem in http.body_problems(got)
            ]
        elif name in ("assemble", "await") and not reorders:
            problem = _tool_order_problem(got)
            if problem:
                found.append((index, "PROMPT-TOOL-ORDER", f"{where}: {problem}"))
    if any(op["op"] == http.RECEIVED for op in ops):
        found += [
            (index, "PROMPT-CACHE-E2E", f"op #{index} {describe_op(ops[index])}: {problem}")
            for index, problem in http.prefix_problems(ops, observed)
        ]
    return found


def _fold(
    index: int, where: str, log: list[Json], rules: frozenset[str] | None = None
) -> list[tuple[int, str, str]]:
    """The suite's fold, as the example cases run it: the events up to the last
    `session/end-seed` were seeded and are judged by the append rules only ("Seeded events are
    checked only against these append rules", CONTRACTS.md, "The session log")."""
    return [
        (index, v.contract, f"{where}: the suite's fold: {v}")
        for v in fold_log(log, seeded_length(log)).violations
        if rules is None or v.rule in rules
    ]


def code_units(name: str) -> bytes:
    """PROMPT-TOOL-ORDER's sort key: UTF-16 code units, lone surrogates included."""
    return name.encode("utf-16-be", "surrogatepass")


def _tool_order_problem(result: Json) -> str | None:
    """Without ``toolOrder`` and with nothing after the registry's step 7, tool names come out
    in code-unit order (ties keep collection order, which is not checked here)."""
    tools = result.get("assembly", {}).get("tools") if isinstance(result, dict) else None
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        return None
    names = [tool.get("name") for tool in tools]
    if not all(isinstance(name, str) for name in names) or _UNLISTED in names:
        return None
    keys = [code_units(name) for name in names]
    if keys != sorted(keys):
        return f"tools are not in UTF-16 code-unit order: {names!r}"
    return None
