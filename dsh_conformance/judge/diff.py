"""Where an observation departs from its expectation: JSON pointers and the differing part.

A failure message must show what differs, not the first 160 characters of two long values. The
expectation is partial (`dsh_conformance.judge.case.compare` checks only the keys it names), so the
walk follows the expected keys only; strings are shown around their first differing character.
"""

from __future__ import annotations

from typing import Any, Final

from .jsontext import dumps, show

Json = Any

_ABSENT: Final = object()
_CONTEXT: Final = 40
_VALUE_CHARS: Final = 160


def differences(expected: Json, observed: Json, at: str = "") -> list[tuple[str, Json, Json]]:
    """Each ``(pointer, expected, observed)`` where ``observed`` departs from ``expected``."""
    if isinstance(expected, dict) and isinstance(observed, dict):
        found: list[tuple[str, Json, Json]] = []
        for key, want in expected.items():
            where = f"{at}/{_escape(key)}"
            if key in observed:
                found += differences(want, observed[key], where)
            else:
                found.append((where, want, _ABSENT))
        return found
    if isinstance(expected, list) and isinstance(observed, list):
        found = []
        for index, (want, got) in enumerate(zip(expected, observed, strict=False)):
            found += differences(want, got, f"{at}/{index}")
        for index in range(len(observed), len(expected)):
            found.append((f"{at}/{index}", expected[index], _ABSENT))
        for index in range(len(expected), len(observed)):
            found.append((f"{at}/{index}", _ABSENT, observed[index]))
        return found
    if expected == observed and isinstance(expected, bool) == isinstance(observed, bool):
        return []
    return [(at or "/", expected, observed)]


def describe(expected: Json, observed: Json, limit: int = 5) -> list[str]:
    """The differences as lines a person can act on, at most ``limit`` of them (and a count)."""
    found = differences(expected, observed)
    lines = [_line(*difference) for difference in found[:limit]]
    if len(found) > limit:
        lines.append(f"… and {len(found) - limit} more difference(s)")
    return lines


def _line(where: str, want: Json, got: Json) -> str:
    if isinstance(want, str) and isinstance(got, str):
        index = next(
            (i for i, (a, b) in enumerate(zip(want, got, strict=False)) if a != b),
            min(len(want), len(got)),
        )
        return (
            f"at {where}, character {index}: expected {_around(want, index)}, "
            f"got {_around(got, index)}"
        )
    return f"at {where}: expected {_value(want)}, got {_value(got)}"


def _around(text: str, index: int) -> str:
    start = max(0, index - _CONTEXT)
    shown = dumps(text[start : index + _CONTEXT])
    return ("…" if start else "") + shown + ("…" if index + _CONTEXT < len(text) else "")


def _value(value: Json) -> str:
    if value is _ABSENT:
        return "nothing (absent)"
    return show(value, _VALUE_CHARS)


def _escape(key: object) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")
