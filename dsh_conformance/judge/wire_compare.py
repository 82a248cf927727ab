"""Comparisons for the ``deepseek-wire`` observations (PROMPT-DEEPSEEK-WIRE).

`dsh_conformance.judge.case.compare` hands an expectation here when it holds one of the keys of
`WIRE_COMPARISONS`:

- ``request``: the URL and method exactly, each expected header once, with its value (names
  case-insensitive, so two sent names differing only in letter case are that header twice; more
  headers may be sent), and the body as a JSON value *with key order*: CONTRACTS.md says "Bodies
  are compared across implementations as JSON values with key order (numbers by value, strings by
  value), not as bytes".
- ``stream``: the chunk sequence obeys the stream's structure — a ``block-start`` before a block's
  deltas, its deltas adding up to the block its ``block-end`` carries, the ``block-end`` chunks in
  opening order, then ``usage`` if any, then exactly one ``finish``, last — and the assembled
  blocks, the usage and the finish reason are the expected ones. How the text is cut into deltas
  is the implementation's business; a failure is compared on the fields the case gives (never
  its free-text ``message``). Each chunk must still have its STREAM_CHUNK shape where the
  comparison does not look: a ``tool-call-delta`` carries a string ``id`` and, when it has one, a
  string ``name``; the failure a ``finish`` carries is an LLM_FAILURE (a string ``message``, no
  field beyond PROTOCOL.md's ``{message, code, status?, providerRetryAfterMs?, requestId?}``).
- ``failure``: the code; and for an HTTP failure (an expectation naming a ``status``) the
  ``status``, and ``providerRetryAfterMs`` and ``requestId`` each present with its value exactly
  when expected ("Every HTTP failure carries `status` (the HTTP status) and `requestId`"; a
  Retry-After that is not positive seconds or a future HTTP date is ignored). The same rule judges
  the failure a stream's ``finish`` carries. Over ``deepseek-http`` an HTTP date is measured
  against the adapter's live clock, so the expectation there is ``{"between": [low, high]}``: the
  value present, a number in that range.

Every difference is reported, not only the first: a report that stops at the blocks hides a wrong
finish code behind them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from .jsontext import show

Json = Any

#: What an HTTP failure carries besides its code (PROMPT-DEEPSEEK-WIRE).
_HTTP_FACTS: Final = ("status", "providerRetryAfterMs", "requestId")
#: Every field an LLM_FAILURE may have (PROTOCOL.md, `deepseek-wire`).
_FAILURE_FIELDS: Final = frozenset(("message", "code", *_HTTP_FACTS))
_ABSENT: Final = "<absent>"

_DELTAS: Final = {
    "text-delta": ("text", "text"),
    "reasoning-delta": ("reasoning", "text"),
    "tool-call-delta": ("tool-call", "argumentsDelta"),
}


def compare_request(expected: Json, observed: Json) -> str | None:
    got = observed.get("request")
    if not isinstance(got, dict):
        return f"expected a request, got {_show(observed)}"
    problems: list[str | None] = [
        f"{key}: expected {_show(expected[key])}, got {_show(got.get(key))}"
        for key in ("method", "url")
        if key in expected and got.get(key) != expected[key]
    ]
    headers = got.get("headers")
    if isinstance(headers, dict):
        # An expected header is sent once: two names that differ only in letter case are the same
        # header sent twice (HTTP names are case-insensitive), whichever value comes last.
        for name, value in expected.get("headers", {}).items():
            sent = [v for key, v in headers.items() if str(key).lower() == name]
            if sent != [value]:
                problems.append(f"header {name}: expected {_show(value)} once, got {_show(sent)}")
    else:
        problems.append(f"headers: expected an object, got {_show(headers)}")
    if "body" in expected:
        problems.append(ordered_difference(expected["body"], got.get("body"), "body"))
    return _joined(problems)


def ordered_difference(expected: Json, observed: Json, path: str) -> str | None:
    """Where two JSON values differ, key order included; numbers compare by value, and a boolean
    is never equal to a number."""
    if isinstance(expected, dict):
        if not isinstance(observed, dict):
            return f"{path}: expected an object, got {_show(observed)}"
        if list(expected) != list(observed):
            return f"{path}: expected the keys {list(expected)} in this order, got {list(observed)}"
        for key, value in expected.items():
            problem = ordered_difference(value, observed[key], f"{path}.{key}")
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(observed, list) or len(observed) != len(expected):
            return f"{path}: expected {_show(expected)}, got {_show(observed)}"
        for index, (want, got) in enumerate(zip(expected, observed, strict=True)):
            problem = ordered_difference(want, got, f"{path}[{index}]")
            if problem:
                return problem
        return None
    if _kind(expected) != _kind(observed) or expected != observed:
        return f"{path}: expected {_show(expected)}, got {_show(observed)}"
    return None


def compare_stream(expected: Json, observed: Json) -> str | None:
    chunks = observed.get("chunks")
    if not isinstance(chunks, list) or not all(isinstance(c, dict) for c in chunks):
        return f"expected a list of stream chunks, got {_show(observed)}"
    problem = _structure(chunks)
    if problem:
        return problem
    problems: list[str | None] = []
    blocks = [chunk.get("block") for chunk in chunks if chunk["type"] == "block-end"]
    if blocks != expected["blocks"]:
        problems.append(f"blocks: expected {_show(expected['blocks'])}, got {_show(blocks)}")
    usages = [chunk.get("usage") for chunk in chunks if chunk["type"] == "usage"]
    want_usage = [] if expected.get("usage") is None else [expected["usage"]]
    if usages != want_usage:
        problems.append(f"usage chunks: expected {_show(want_usage)}, got {_show(usages)}")
    problems.append(_compare_finish(expected["finish"], chunks[-1].get("reason")))
    return _joined(problems)


def _structure(chunks: list[Json]) -> str | None:
    """The order rules every translation obeys, whatever its delta granularity."""
    kinds = [chunk.get("type") for chunk in chunks]
    if kinds.count("finish") != 1 or kinds[-1] != "finish":
        return f"expected exactly one finish chunk, last; got the chunk types {kinds}"
    opened: dict[Json, Json] = {}
    assembled: dict[Json, str] = {}
    ended: list[Json] = []
    closing = False  # past the first block-end: only block-end, usage, finish may follow
    for position, chunk in enumerate(chunks[:-1]):
        kind, index = chunk.get("type"), chunk.get("index")
        where = f"chunk #{position} ({kind})"
        if kind == "usage":
            closing = True
            continue
        if kind not in ("block-start", "block-end", *_DELTAS):
            return f"{where}: not a stream chunk type"
        if kind != "block-end" and closing:
            return f"{where}: after the closing block-end/usage chunks"
        if kind == "block-start":
            if index in opened:
                return f"{where}: block {index} started twice"
            opened[index], assembled[index] = chunk.get("blockType"), ""
            continue
        if index not in opened or index in ended:
            return f"{where}: block {index} is not open"
        if kind == "block-end":
            closing = True
            if ended and index < ended[-1]:
                return f"{where}: block-end chunks must come in opening order"
            problem = _check_end(chunk.get("block"), opened[index], assembled[index], where)
            if problem:
                return problem
            ended.append(index)
            continue
        block_type, field = _DELTAS[kind]
        if opened[index] != block_type:
            return f"{where}: a {kind} for a {opened[index]} block"
        if kind == "tool-call-delta" and not _tool_call_delta_shape(chunk):
            return f"{where}: not `{{index, id, name?, argumentsDelta}}` with string values"
        assembled[index] += str(chunk.get(field, ""))
    if "usage" in kinds and any(kind == "block-end" for kind in kinds[kinds.index("usage") :]):
        return "a usage chunk came before a block-end"
    return None


def _tool_call_delta_shape(chunk: Json) -> bool:
    """STREAM_CHUNK's ``tool-call-delta {index, id, name?, argumentsDelta}``: the id and the name
    (when given) are strings, whatever value they have so far."""
    return isinstance(chunk.get("id"), str) and isinstance(chunk.get("name", ""), str)


def _check_end(block: Json, block_type: Json, assembled: str, where: str) -> str | None:
    if not isinstance(block, dict) or block.get("type") != block_type:
        return f"{where}: expected a {block_type} block, got {_show(block)}"
    content = block.get("arguments" if block_type == "tool-call" else "text")
    if content != assembled:
        return f"{where}: the block holds {_show(content)}, its deltas add up to {_show(assembled)}"
    return None


def _compare_finish(expected: Json, observed: Json) -> str | None:
    if not isinstance(observed, dict) or observed.get("kind") != expected["kind"]:
        return f"finish: expected {_show(expected)}, got {_show(observed)}"
    if "failure" not in expected:
        return None
    got = observed.get("failure")
    if not isinstance(got, dict):
        return f"finish: expected a failure, got {_show(observed)}"
    problems = _failure_problems(expected["failure"], got)
    if not isinstance(got.get("message"), str) or not set(got) <= _FAILURE_FIELDS:
        problems.append(f"not an LLM_FAILURE {{message, code, status?, …}}: {_show(got)}")
    return _joined([f"finish: {problem}" for problem in problems])


def compare_failure(expected: Json, observed: Json) -> str | None:
    got = observed.get("failure")
    if not isinstance(got, dict):
        return f"expected a failure, got {_show(observed)}"
    return _joined(_failure_problems(expected, got))


def _failure_problems(expected: Json, got: Json) -> list[str]:
    """The code always (a list: any of those codes, where the contract names none of them);
    an HTTP failure's facts exactly (absent when the case expects none)."""
    problems = []
    code = expected["code"]
    if got.get("code", _ABSENT) not in (code if isinstance(code, list) else [code]):
        problems.append(
            f"failure code: expected {_show(code)}, got {_fact(got.get('code', _ABSENT))}"
        )
    for key in _HTTP_FACTS if "status" in expected else ():
        want, have = expected.get(key, _ABSENT), got.get(key, _ABSENT)
        if isinstance(want, dict):
            low, high = want["between"]
            if _kind(have) != "number" or not low <= have <= high:
                problems.append(f"failure {key}: expected {low} to {high}, got {_fact(have)}")
        elif _kind(want) != _kind(have) or want != have:
            problems.append(f"failure {key}: expected {_fact(want)}, got {_fact(have)}")
    return problems


def _fact(value: Json) -> str:
    return value if value is _ABSENT else _show(value)


def _joined(problems: Sequence[str | None]) -> str | None:
    found = [problem for problem in problems if problem]
    return "; ".join(found) or None


def _kind(value: Json) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def _show(value: Json) -> str:
    return show(value, 600)


#: Expectation key → comparison of the expectation's value with the whole observation.
WIRE_COMPARISONS: Final[dict[str, Callable[[Json, Json], str | None]]] = {
    "request": compare_request,
    "stream": compare_stream,
    "failure": compare_failure,
}
