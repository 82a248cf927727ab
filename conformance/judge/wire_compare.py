"""Comparisons for the ``deepseek-wire`` observations (PROMPT-DEEPSEEK-WIRE).

`conformance.judge.case.compare` hands an expectation here when it holds one of the keys of
`WIRE_COMPARISONS`:

- ``request``: the URL and method exactly, each expected header (names case-insensitive; more
  headers may be sent), and the body as a JSON value *with key order*: CONTRACTS.md says "Bodies
  are compared across implementations as JSON values with key order (numbers by value, strings by
  value), not as bytes".
- ``stream``: the chunk sequence obeys the stream's structure — a ``block-start`` before a block's
  deltas, its deltas adding up to the block its ``block-end`` carries, the ``block-end`` chunks in
  opening order, then ``usage`` if any, then exactly one ``finish``, last — and the assembled
  blocks, the usage and the finish reason are the expected ones. How the text is cut into deltas
  is the implementation's business; a failure is compared on the fields the case gives (never
  its free-text ``message``).
- ``failure``: the code, and ``providerRetryAfterMs`` present with its value exactly when expected
  (a Retry-After that is neither seconds nor an HTTP date "is ignored").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from .jsontext import show

Json = Any

_DELTAS: Final = {
    "text-delta": ("text", "text"),
    "reasoning-delta": ("reasoning", "text"),
    "tool-call-delta": ("tool-call", "argumentsDelta"),
}


def compare_request(expected: Json, observed: Json) -> str | None:
    got = observed.get("request")
    if not isinstance(got, dict):
        return f"expected a request, got {_show(observed)}"
    for key in ("method", "url"):
        if key in expected and got.get(key) != expected[key]:
            return f"{key}: expected {_show(expected[key])}, got {_show(got.get(key))}"
    headers = got.get("headers")
    if not isinstance(headers, dict):
        return f"headers: expected an object, got {_show(headers)}"
    sent = {str(name).lower(): value for name, value in headers.items()}
    for name, value in expected.get("headers", {}).items():
        if sent.get(name) != value:
            return f"header {name}: expected {_show(value)}, got {_show(sent.get(name))}"
    if "body" in expected:
        return ordered_difference(expected["body"], got.get("body"), "body")
    return None


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
    blocks = [chunk.get("block") for chunk in chunks if chunk["type"] == "block-end"]
    if blocks != expected["blocks"]:
        return f"blocks: expected {_show(expected['blocks'])}, got {_show(blocks)}"
    usages = [chunk.get("usage") for chunk in chunks if chunk["type"] == "usage"]
    want_usage = [] if expected.get("usage") is None else [expected["usage"]]
    if usages != want_usage:
        return f"usage chunks: expected {_show(want_usage)}, got {_show(usages)}"
    return _compare_finish(expected["finish"], chunks[-1].get("reason"))


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
        assembled[index] += str(chunk.get(field, ""))
    if "usage" in kinds and any(kind == "block-end" for kind in kinds[kinds.index("usage") :]):
        return "a usage chunk came before a block-end"
    return None


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
    if "failure" in expected:
        got = observed.get("failure") or {}
        for key, want in expected["failure"].items():
            if got.get(key) != want:
                return f"finish: expected failure {key} {want!r}, got {got.get(key)!r}"
    return None


def compare_failure(expected: Json, observed: Json) -> str | None:
    got = observed.get("failure")
    if not isinstance(got, dict):
        return f"expected a failure, got {_show(observed)}"
    if got.get("code") != expected["code"]:
        return f"failure code: expected {expected['code']!r}, got {got.get('code')!r}"
    want_retry = expected.get("providerRetryAfterMs", "<absent>")
    got_retry = got.get("providerRetryAfterMs", "<absent>")
    if want_retry != got_retry:
        return f"providerRetryAfterMs: expected {want_retry}, got {got_retry}"
    return None


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
