"""PROMPT-CACHE-E2E offline: consecutive request bodies extend each other byte for byte.

CONTRACTS.md:

    Offline, the same property is checked as prefix stability: each request body's serialized
    messages extend the previous request's byte for byte.

and, under PROMPT-DEEPSEEK-WIRE: "Byte identity is required between consecutive requests of one
implementation (the prefix stability of PROMPT-CACHE-E2E), which a deterministic serializer
gives." The provider's cache matches the prompt from its first token, so one byte that differs
inside the earlier messages (a dropped ``reasoning_content``, a timestamp in the system text, keys
in another order) turns every later token into a miss.

This module judges the raw bytes that reached the server, never a re-encoding of them. The
*prefix* of a body is its bytes from the first one up to the end of the last element of its
top-level ``messages`` array: the closing ``]`` is excluded (the next request puts ``,`` and its
new messages there), and so is any whitespace before that ``]`` (a pretty-printer that puts the
bracket on a line of its own writes ``,\\n`` and the next element there, not the same
whitespace). An empty array's prefix ends just after its ``[``. The array is found by decoding,
not by searching for the text ``"messages"``: the top-level object is walked key by key with
`json.JSONDecoder.raw_decode` (so a key written with escapes still counts, and a ``"messages"``
inside a string or a nested object never does), and the array's end is where ``raw_decode`` of
its elements stops. Offsets are byte offsets into the UTF-8 body, not character indexes.

The same holds for ``tools``: the provider renders the tool schemas into the prompt ahead of the
conversation (upstream notes, deepseek-adapter.md §6.1: request N+1 has "the same tools in the
same order"), so requests that are given the same tools must send the same ``tools`` bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Final

#: JSON's insignificant whitespace (RFC 8259 §2): space, tab, LF, CR.
_SPACE: Final = re.compile(r"[ \t\n\r]*")
_DECODER: Final = json.JSONDecoder()
#: Bytes shown on each side of the first difference.
_BEFORE, _AFTER = 24, 40


class BodyShapeError(ValueError):
    """The body is not a JSON object with the expected top-level key."""


@dataclass(frozen=True)
class Span:
    """Byte offsets into one body: where a top-level value starts and ends (``end``
    exclusive), and for an array, where its prefix ends and where each element starts and ends."""

    start: int
    end: int
    prefix_end: int
    elements: tuple[tuple[int, int], ...]


def top_level_span(body: bytes, key: str) -> Span | None:
    """The span of the value of the top-level ``key`` of a JSON object body (``None`` when the
    object has no such key). Raises `BodyShapeError` for a body that is not one JSON object in
    UTF-8, or that has the key twice."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BodyShapeError(f"the body is not UTF-8 (byte {error.start})") from None
    found: Span | None = None
    for name, start in _members(text):
        if name != key:
            continue
        if found is not None:
            raise BodyShapeError(f"the body has the key {key!r} twice")
        found = _value_span(text, start)
    return None if found is None else _to_bytes(text, found)


def _members(text: str) -> list[tuple[str, int]]:
    """Each top-level key of the object ``text`` and the character index where its value starts."""
    index = _skip(text, 0)
    if not text.startswith("{", index):
        raise BodyShapeError("the body is not a JSON object")
    members: list[tuple[str, int]] = []
    index = _skip(text, index + 1)
    if text.startswith("}", index):
        return _ended(text, index, members)
    while True:
        name, index = _decode(text, index, "a key")
        if not isinstance(name, str):
            raise BodyShapeError(f"a key of the body is not a string (character {index})")
        index = _skip(text, index)
        if not text.startswith(":", index):
            raise BodyShapeError(f"no ':' after the key {name!r}")
        value_start = _skip(text, index + 1)
        members.append((name, value_start))
        _, index = _decode(text, value_start, f"the value of {name!r}")
        index = _skip(text, index)
        if text.startswith("}", index):
            return _ended(text, index, members)
        if not text.startswith(",", index):
            raise BodyShapeError(f"no ',' or '}}' after the value of {name!r}")
        index = _skip(text, index + 1)


def _ended(text: str, index: int, members: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """``members``, if nothing but whitespace follows the object's ``}`` at ``index``."""
    if _skip(text, index + 1) != len(text):
        raise BodyShapeError(f"the body goes on after its object (character {index + 1})")
    return members


def _value_span(text: str, start: int) -> Span:
    """The span of the value at ``start``, in characters; an array's elements are walked."""
    _, end = _decode(text, start, "a value")
    if not text.startswith("[", start):
        return Span(start, end, end, ())
    elements: list[tuple[int, int]] = []
    prefix_end = start + 1
    index = _skip(text, prefix_end)
    while not text.startswith("]", index):
        _, prefix_end = _decode(text, index, "an array element")
        elements.append((index, prefix_end))
        index = _skip(text, prefix_end)
        if text.startswith(",", index):
            index = _skip(text, index + 1)
    return Span(start, end, prefix_end, tuple(elements))


def _to_bytes(text: str, span: Span) -> Span:
    def offset(index: int) -> int:
        return len(text[:index].encode("utf-8"))

    return Span(
        offset(span.start),
        offset(span.end),
        offset(span.prefix_end),
        tuple((offset(start), offset(end)) for start, end in span.elements),
    )


def _decode(text: str, index: int, what: str) -> tuple[object, int]:
    try:
        return _DECODER.raw_decode(text, index)
    except json.JSONDecodeError as error:
        raise BodyShapeError(f"{what} is not JSON at character {index}: {error.msg}") from None


def _skip(text: str, index: int) -> int:
    match = _SPACE.match(text, index)
    return match.end() if match else index


# -- the checks ---------------------------------------------------------------------------------


def prefix_problems(bodies: list[bytes]) -> list[str]:
    """How consecutive bodies fail to extend each other's messages, and differ in ``tools``.

    The bodies are those of requests that differ only in their messages, each one's extending
    the previous one's (so each is given the same tools). Request numbers count from 1, in the
    order the server received them.
    """
    problems: list[str] = []
    spans: list[tuple[Span, Span | None]] = []
    for number, body in enumerate(bodies, start=1):
        try:
            messages = top_level_span(body, "messages")
            tools = top_level_span(body, "tools")
        except BodyShapeError as error:
            return [f"request {number}: {error}: {body[:_AFTER]!r}"]
        if messages is None or not body.startswith(b"[", messages.start):
            return [f"request {number}: the body has no `messages` array: {body[:_AFTER]!r}"]
        spans.append((messages, tools))
    for number in range(2, len(bodies) + 1):
        earlier, later = bodies[number - 2], bodies[number - 1]
        (before, tools_before), (after, tools_after) = spans[number - 2], spans[number - 1]
        problem = _extension_problem(number, earlier, before, later, after)
        if problem:
            problems.append(problem)
        problem = _tools_problem(number, earlier, tools_before, later, tools_after)
        if problem:
            problems.append(problem)
    return problems


def _extension_problem(
    number: int, earlier: bytes, before: Span, later: bytes, after: Span
) -> str | None:
    prefix = earlier[: before.prefix_end]
    if later.startswith(prefix):
        if len(after.elements) > len(before.elements):
            return None
        return (
            f"request {number} sends {len(after.elements)} message(s), request {number - 1} "
            f"sent {len(before.elements)}: the messages must grow"
        )
    offset = _first_difference(prefix, later)
    where = _element_at(before, offset)
    return (
        f"request {number}'s body does not extend request {number - 1}'s messages byte for "
        f"byte: the first difference is at byte {offset} ({where} of request {number - 1});\n"
        f"      request {number - 1}: {_excerpt(earlier, offset, end=before.prefix_end)}\n"
        f"      request {number}: {_excerpt(later, offset)}"
    )


def _tools_problem(
    number: int, earlier: bytes, before: Span | None, later: bytes, after: Span | None
) -> str | None:
    if before is None or after is None:
        if before is after:
            return None
        sent, unsent = (number - 1, number) if after is None else (number, number - 1)
        return f"request {sent} sends `tools` and request {unsent} none, for the same tools"
    tools_before = earlier[before.start : before.end]
    tools_after = later[after.start : after.end]
    if tools_before == tools_after:
        return None
    offset = _first_difference(tools_before, tools_after)
    return (
        f"request {number} sends other `tools` bytes than request {number - 1} for the same "
        f"tools: the first difference is at byte {offset} of the `tools` value;\n"
        f"      request {number - 1}: {_excerpt(tools_before, offset)}\n"
        f"      request {number}: {_excerpt(tools_after, offset)}"
    )


def _first_difference(a: bytes, b: bytes) -> int:
    for offset, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return offset
    return min(len(a), len(b))


def _element_at(span: Span, offset: int) -> str:
    """Where ``offset`` falls among the messages of the earlier body."""
    for index, (start, end) in reversed(list(enumerate(span.elements))):
        if start <= offset:
            return f"inside messages[{index}]" if offset < end else f"after messages[{index}]"
    return "before the first message"


def _excerpt(data: bytes, offset: int, *, end: int | None = None) -> str:
    """The bytes around ``offset`` (up to ``end``), marked where the difference starts."""
    limit = len(data) if end is None else end
    stop = min(limit, offset + _AFTER)
    head = data[max(0, offset - _BEFORE) : offset]
    return f"{head!r} ⟨here⟩ {data[offset:stop]!r}{'…' if stop < limit else ''}"
