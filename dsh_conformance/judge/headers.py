"""The suite's own request-header rules (PROMPT-HEADER-CANONICAL), independent of `dsh_reference/`.

Canonical form: an empty system and an empty tool list become absent fields; `adapterDefaults`
is kept only if one of its two markers is true [...]. Equality: config equal (provider, model,
reasoningEffort, temperature, maxTokens strictly; `stop` lists element-wise, and an absent
`stop` differs from `[]`; no other config field is compared, and key order never is), markers
equal (for each of the two, both headers mark it or neither does), system strings identical,
tool lists of equal length with each pair serializing to the same JSON (key order included).
"""

from __future__ import annotations

import copy
from typing import Any, Final

from .jsonvalues import same_json_text, strict_equal

Json = Any

COMPARED_CONFIG: Final = (
    "provider",
    "model",
    "reasoningEffort",
    "temperature",
    "maxTokens",
    "stop",
)
MARKERS: Final = ("reasoningEffort", "maxTokens")
REASONS: Final = ("initial", "resume", "change")
_ABSENT: Final = object()


def canonical(header: Json) -> Json:
    """``{config, adapterDefaults?, system?, tools?}``, empty system/tools and unmarked defaults
    dropped; a copy."""
    result: Json = {"config": copy.deepcopy(header["config"])}
    if any(marked(header, marker) for marker in MARKERS):
        result["adapterDefaults"] = copy.deepcopy(header["adapterDefaults"])
    if header.get("system"):
        result["system"] = header["system"]
    if header.get("tools"):
        result["tools"] = copy.deepcopy(header["tools"])
    return result


def differences(a: Json, b: Json) -> list[str]:
    """Where two headers differ, as ``config.<field>``, ``adapterDefaults.<marker>``, ``system``,
    ``tools``; ``[]`` when they are equal. Both are canonicalized first."""
    a, b = canonical(a), canonical(b)
    found = [
        f"config.{field}"
        for field in COMPARED_CONFIG
        if not _same_field(a["config"], b["config"], field)
    ]
    found += [f"adapterDefaults.{m}" for m in MARKERS if marked(a, m) != marked(b, m)]
    if a.get("system", _ABSENT) != b.get("system", _ABSENT):
        found.append("system")
    tools_a, tools_b = a.get("tools", []), b.get("tools", [])
    if len(tools_a) != len(tools_b) or not all(map(same_json_text, tools_a, tools_b)):
        found.append("tools")
    return found


def marked(header: Json, marker: str) -> bool:
    markers = header.get("adapterDefaults")
    return isinstance(markers, dict) and markers.get(marker) is True


def snapshot_problem(header: Json) -> str | None:
    """Why ``header`` is not a header snapshot the contracts allow, or ``None``.

    Config ``provider`` and ``model`` are non-empty strings, ``reasoningEffort`` a non-empty
    string if present, ``stop`` a list of strings; "a marker is only ever `true`; a marked field
    is present in `config`"; ``system`` a string, ``tools`` a list of objects.
    """
    if not isinstance(header, dict) or not isinstance(header.get("config"), dict):
        return "the header must be an object with a `config` object"
    config = header["config"]
    unknown = sorted(set(header) - {"config", "adapterDefaults", "system", "tools"})
    if unknown:
        return f"the header has unknown field(s) {unknown}"
    for field in ("provider", "model"):
        if not _non_empty_string(config.get(field)):
            return f"config.{field} must be a non-empty string"
    if "reasoningEffort" in config and not _non_empty_string(config["reasoningEffort"]):
        return "config.reasoningEffort must be a non-empty string"
    stop = config.get("stop", [])
    if not isinstance(stop, list) or not all(isinstance(item, str) for item in stop):
        return "config.stop must be a list of strings"
    markers = header.get("adapterDefaults", {})
    if not isinstance(markers, dict) or not set(markers) <= set(MARKERS):
        return "adapterDefaults may hold only reasoningEffort and maxTokens"
    for marker, value in markers.items():
        if value is not True:
            return f"adapterDefaults.{marker} is {value!r}; a marker is only ever true"
        if marker not in config:
            return f"adapterDefaults marks {marker}, which config does not hold"
    if not isinstance(header.get("system", ""), str):
        return "system must be a string"
    tools = header.get("tools", [])
    if not isinstance(tools, list) or not all(isinstance(tool, dict) for tool in tools):
        return "tools must be a list of tool schema objects"
    return None


def _same_field(a: Json, b: Json, field: str) -> bool:
    value_a, value_b = a.get(field, _ABSENT), b.get(field, _ABSENT)
    if value_a is _ABSENT or value_b is _ABSENT:
        return value_a is value_b
    return strict_equal(value_a, value_b)


def _non_empty_string(value: Json) -> bool:
    return isinstance(value, str) and value != ""
