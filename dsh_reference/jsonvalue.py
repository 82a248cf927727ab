"""JSON values as the session log holds them: lossless, compared the way the upstream compares.

The log stores plain JSON (ROOT-MODEL, "The session log"): "`data` or the surface metadata is not
lossless JSON (an absent value written in place of an absent key, NaN, ±Infinity, -0, non-plain
objects, cycles)" is the error `session-non-json`. In Python a JSON value is ``None``, a ``bool``,
an ``int``, a finite ``float`` other than ``-0.0``, a ``str``, a ``list`` of JSON values or a
``dict`` with ``str`` keys and JSON values; anything else (a tuple, a set, an object standing for
JavaScript's ``undefined``...) is not.

Two comparisons are needed, both as JavaScript sees numbers (a double: ``1`` and ``1.0`` are the
same number, ``true`` is not ``1``):

- `strict_equal`: structural deep equality, object key order ignored (``deep-equal`` in the
  tool-result replacement rule; ``===`` on config scalars);
- `same_json_text`: equality of ``JSON.stringify`` output, key order included (tool schemas in
  PROMPT-HEADER-CANONICAL). JavaScript objects list integer-like keys first, ascending, whatever
  their insertion order, so both sides are read in that order ("no check depends on the order of
  integer-like keys", PROMPT-ASSEMBLY-PIPELINE).
"""

from __future__ import annotations

import copy
import math
from typing import Any, Final, TypeAlias, TypeVar

#: A JSON value. ``Any`` rather than a recursive alias: the log carries whatever callers wrote.
Json: TypeAlias = Any

_Value = TypeVar("_Value")

#: JavaScript's array-index keys: canonical decimal integers below 2**32 - 1.
_MAX_INDEX_KEY: Final = 2**32 - 2


def lossless_problem(value: object) -> str | None:
    """Why ``value`` is not lossless JSON (a path and a reason), or ``None`` when it is."""
    return _problem(value, "$", set())


def _problem(value: object, path: str, open_containers: set[int]) -> str | None:
    if value is None or isinstance(value, (bool, str, int)):
        return None
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return f"{path} is {value!r}, which JSON cannot carry"
        if value == 0 and math.copysign(1.0, value) < 0:
            return f"{path} is -0, which JSON turns into 0"
        return None
    if not isinstance(value, (list, dict)) or type(value) not in _PLAIN_CONTAINERS:
        return f"{path} is a {type(value).__name__}, not a plain JSON value"
    if id(value) in open_containers:
        return f"{path} refers back to a container it is inside (a cycle)"
    open_containers.add(id(value))
    try:
        if isinstance(value, list):
            children = [(f"{path}[{index}]", item) for index, item in enumerate(value)]
        else:
            bad_key = next((key for key in value if not isinstance(key, str)), _NO_KEY)
            if bad_key is not _NO_KEY:
                return f"{path} has the key {bad_key!r}; JSON object keys are strings"
            children = [(f"{path}.{key}", item) for key, item in value.items()]
        for child_path, item in children:
            problem = _problem(item, child_path, open_containers)
            if problem is not None:
                return problem
    finally:
        open_containers.discard(id(value))
    return None


_NO_KEY: Final = object()


def snapshot(value: Json) -> Json:
    """A private deep copy of a lossless JSON value (the log never aliases a caller's objects).

    Frozen parts (`frozen`) are shared, not copied: nobody can change them, as with a ``str``.
    """
    return copy.deepcopy(value)


class FrozenObject(dict[str, Any]):
    """A JSON object nobody can change: every mutating method raises ``TypeError``.

    Still a ``dict`` for every reader (``json.dumps``, ``==``, ``isinstance``). Copying it returns
    it, so a value made of frozen parts is copied in the time it takes to copy its mutable rest.
    """

    def _read_only(self, *args: object, **kwargs: object) -> None:
        raise TypeError("a frozen JSON object is read-only: change a copy made with thawed()")

    __setitem__ = __delitem__ = __ior__ = _read_only  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _read_only  # type: ignore[assignment]

    def __copy__(self) -> FrozenObject:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenObject:
        return self


class FrozenArray(list[Any]):
    """A JSON array nobody can change; see `FrozenObject`."""

    _read_only = FrozenObject._read_only
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only  # type: ignore[assignment]
    append = extend = insert = remove = _read_only
    pop = clear = sort = reverse = _read_only

    def __copy__(self) -> FrozenArray:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenArray:
        return self


#: Plain JSON containers: the built-in ones and their read-only forms (`frozen`).
_PLAIN_CONTAINERS: Final = (list, dict, FrozenArray, FrozenObject)


def frozen(value: _Value) -> _Value:
    """A read-only deep copy of a lossless JSON value; frozen parts are reused as they are.

    The session log (ROOT-MODEL) freezes what it appends, as the upstream keeps its logged
    messages immutable: a message frozen once can go into every later request without a copy.
    """
    if isinstance(value, (FrozenObject, FrozenArray)):
        return value
    if isinstance(value, dict):
        return FrozenObject({key: frozen(item) for key, item in value.items()})  # type: ignore[return-value]
    if isinstance(value, list):
        return FrozenArray([frozen(item) for item in value])  # type: ignore[return-value]
    return value


class NotLossless(ValueError):
    """``value`` is not lossless JSON; the message is `lossless_problem`'s (a path, a reason)."""


def frozen_lossless(value: _Value) -> _Value:
    """`frozen` ``value`` if it is lossless JSON (`lossless_problem`), else raise `NotLossless`.

    The log checks and freezes every value it appends (ROOT-MODEL), and one walk does both: the
    common shapes (built-in types exactly, nested less than `_QUICK_DEPTH` deep) are checked while
    they are copied. Anything else — a subclass, a deeper value, a cycle, a value that is not
    lossless — is left to `lossless_problem`, which decides it and names where the problem is.
    """
    try:
        return _quick_frozen(value, 0)  # type: ignore[no-any-return]
    except _Unusual:
        pass
    problem = lossless_problem(value)
    if problem is not None:
        raise NotLossless(problem)
    return frozen(value)


#: How deep `frozen_lossless`'s quick walk goes: far deeper than JSON a harness writes, and it
#: stops a cycle long before Python's recursion limit.
_QUICK_DEPTH: Final = 64


#: The one type `_quick_frozen` takes for object keys.
_STRING: Final = frozenset({str})


class _Unusual(Exception):
    """The quick walk met a value it leaves to `lossless_problem`."""


def _quick_frozen(value: Json, depth: int) -> Json:
    """`frozen` for the common shapes (see `frozen_lossless`); raises `_Unusual` for the rest."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        if math.isfinite(value) and (value != 0 or math.copysign(1.0, value) > 0):
            return value
    elif depth < _QUICK_DEPTH:
        # A frozen part is walked too (anything can be frozen) but kept, as `frozen` keeps it.
        if kind is dict or kind is FrozenObject:
            if set(map(type, value)) <= _STRING:  # every key exactly a ``str``
                copy = FrozenObject(
                    {key: _quick_frozen(item, depth + 1) for key, item in value.items()}
                )
                return value if kind is FrozenObject else copy
        elif kind is list or kind is FrozenArray:
            items = FrozenArray([_quick_frozen(item, depth + 1) for item in value])
            return value if kind is FrozenArray else items
    raise _Unusual


def thawed(value: Json) -> Json:
    """A plain, mutable deep copy of a JSON value, frozen parts included."""
    if isinstance(value, dict):
        return {key: thawed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [thawed(item) for item in value]
    return value


def strict_equal(a: Json, b: Json) -> bool:
    """Deep equality as JavaScript values: numbers by value, ``true`` ≠ ``1``, key order ignored."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(strict_equal(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(strict_equal, a, b))
    return _scalar_kind(a) == _scalar_kind(b) and a == b


def same_json_text(a: Json, b: Json) -> bool:
    """Whether ``JSON.stringify(a) === JSON.stringify(b)``: key order counts, as JS orders keys."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys_a, keys_b = js_key_order(a), js_key_order(b)
        return keys_a == keys_b and all(same_json_text(a[key], b[key]) for key in keys_a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(same_json_text, a, b))
    return _scalar_kind(a) == _scalar_kind(b) and a == b


def js_key_order(obj: dict[str, Any]) -> list[str]:
    """The order a JavaScript object lists keys: integer-like keys ascending, then the rest."""
    index_keys = sorted((key for key in obj if _is_index_key(key)), key=int)
    return index_keys + [key for key in obj if not _is_index_key(key)]


def _is_index_key(key: str) -> bool:
    return key.isascii() and key.isdigit() and str(int(key)) == key and int(key) <= _MAX_INDEX_KEY


def _scalar_kind(value: Json) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__
