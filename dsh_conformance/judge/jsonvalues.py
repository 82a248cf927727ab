"""How the suite compares JSON values the way the contracts do, independent of `dsh_reference/`.

The implementations under test are mostly JavaScript-shaped: a number is a double (``1`` and
``1.0`` are the same number; ``true`` is not ``1``), and an object lists integer-like keys first,
ascending, whatever their insertion order. Three comparisons follow from CONTRACTS.md:

- `strict_equal`: deep equality, object key order ignored (the tool-result replacement rule's
  "deep-equal"; ``===`` on config fields);
- `same_json_text`: ``JSON.stringify`` equality, key order included (tool schemas in
  PROMPT-HEADER-CANONICAL; derived messages in LOGGEDLOOP-REQUEST-INVARIANT);
- `lossless_problem`: why a value is not lossless JSON ("NaN, ±Infinity, -0, non-plain objects,
  cycles"), for the session log's `session-non-json` rule.
"""

from __future__ import annotations

import math
from typing import Any, Final

Json = Any

_MAX_INDEX_KEY: Final = 2**32 - 2


def strict_equal(a: Json, b: Json) -> bool:
    """Deep equality as JavaScript values: numbers by value, ``true`` ≠ ``1``, key order ignored."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(strict_equal(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(strict_equal, a, b))
    return _kind(a) == _kind(b) and a == b


def same_json_text(a: Json, b: Json) -> bool:
    """Whether both serialize to the same JSON text in JavaScript (key order included)."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = js_key_order(a)
        return keys == js_key_order(b) and all(same_json_text(a[key], b[key]) for key in keys)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(same_json_text, a, b))
    return _kind(a) == _kind(b) and a == b


def js_key_order(obj: dict[str, Any]) -> list[str]:
    """The order in which JavaScript lists an object's keys: integer-like keys first, ascending."""
    index = sorted((key for key in obj if _is_index_key(key)), key=int)
    return index + [key for key in obj if not _is_index_key(key)]


def lossless_problem(value: Json, path: str = "$") -> str | None:
    """Why ``value`` is not lossless JSON (a JSON path and the reason), or ``None``."""
    if type(value) in _PLAIN:  # most values the log fold checks, cheaply
        return None
    found = _problem(value, set())
    return None if found is None else f"{path}{found[0]} {found[1]}"


#: Values that are lossless JSON by their type alone (``bool`` is an ``int``).
_PLAIN: Final = (str, int, bool, type(None))


def _problem(value: Json, inside: set[int]) -> tuple[str, str] | None:
    """The relative path of the first value that is not lossless JSON, and why; the path is
    built only for that one (the log fold calls this on every event's data)."""
    if isinstance(value, _PLAIN):
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return "", f"is {value!r}"
        if value == 0 and math.copysign(1.0, value) < 0:
            return "", "is -0"
        return None
    if type(value) not in (list, dict):
        return "", f"is a {type(value).__name__}"
    if id(value) in inside:
        return "", "is a cycle"
    inside.add(id(value))
    items = enumerate(value) if isinstance(value, list) else value.items()
    try:
        for key, item in items:
            if type(item) in _PLAIN:
                continue
            found = _problem(item, inside)
            if found is not None:
                step = f"[{key}]" if isinstance(value, list) else f".{key}"
                return step + found[0], found[1]
    finally:
        inside.discard(id(value))
    return None


def _is_index_key(key: str) -> bool:
    return key.isascii() and key.isdigit() and str(int(key)) == key and int(key) <= _MAX_INDEX_KEY


def _kind(value: Json) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__
