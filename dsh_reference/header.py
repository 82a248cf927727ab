"""The request header: canonical form, equality, and the offline fold (PROMPT-HEADER-CANONICAL).

From CONTRACTS.md:

    Header = `{config, adapterDefaults?, system?, tools?}`: the resolved call config, which config
    fields were filled from adapter defaults (`{reasoningEffort?: true, maxTokens?: true}`), the
    rendered system text and the ordered tool schemas.

Headers are JSON values (they are logged as `request/header {header, reason}`), so this module
works on plain dicts, typed as `RequestHeader`. Equality compares canonical forms: "an empty system
and an empty tool list become absent fields", so ``system: ''`` equals no system at all.

A header's ``config`` may carry fields the contract does not compare; they are kept, untouched, and
its key order is not fixed ("fields filled from adapter defaults come last"), so a config is
compared field by field, never as JSON text.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal, NotRequired, Protocol, TypedDict

from .jsonvalue import Json, frozen, same_json_text, strict_equal


class CallConfig(TypedDict):
    """The resolved call configuration; values filled from adapter defaults included."""

    provider: str
    model: str
    reasoningEffort: NotRequired[str]
    temperature: NotRequired[float]
    maxTokens: NotRequired[int]
    stop: NotRequired[list[str]]


class AdapterDefaults(TypedDict, total=False):
    """Which config fields were filled from adapter defaults. "A marker is only ever `true`"."""

    reasoningEffort: Literal[True]
    maxTokens: Literal[True]


class RequestHeader(TypedDict):
    """``{config, adapterDefaults?, system?, tools?}``, in that key order when canonical."""

    config: CallConfig
    adapterDefaults: NotRequired[AdapterDefaults]
    system: NotRequired[str]
    tools: NotRequired[list[dict[str, Any]]]


#: "provider, model, reasoningEffort, temperature, maxTokens strictly; `stop` lists element-wise
#: ... no other config field is compared".
COMPARED_CONFIG_FIELDS: Final = ("provider", "model", "reasoningEffort", "temperature", "maxTokens")
#: The two adapter-default markers.
MARKERS: Final = ("reasoningEffort", "maxTokens")
#: `request/header` reasons a log may hold (LOOP-REQUEST-BUILD); `fallback` is legacy and refused.
HEADER_REASONS: Final = ("initial", "resume", "change")

_ABSENT: Final = object()


def canonical_header(
    header: Mapping[str, Any], *, in_force: RequestHeader | None = None
) -> RequestHeader:
    """The canonical form of ``header``: a new ``{config, adapterDefaults?, system?, tools?}``.

    "an empty system and an empty tool list become absent fields; `adapterDefaults` is kept only
    if one of its two markers is true". ``config`` is copied unchanged (no field is added, dropped
    or reordered). The result is read-only (`jsonvalue.frozen`), so it shares nothing mutable with
    ``header``: a frozen value is its own snapshot and is reused, not copied (a header read from
    the log costs no copy), and a plain one is copied once, into the form the log and the request
    keep as they are.

    ``in_force`` is the header in force (the log's, frozen). Tools that serialize to the same JSON
    text as its tools are the same value, so its own tools are taken instead of a copy: a request
    whose tools did not change copies none, and `headers_equal` then compares them by identity.
    """
    canonical = _canonical_fields(header)
    if (
        in_force is not None
        and "tools" in canonical
        and _same_text(canonical["tools"], in_force.get("tools"))
    ):
        canonical["tools"] = in_force["tools"]
    return frozen(canonical)


def _canonical_fields(header: Mapping[str, Any]) -> RequestHeader:
    """The canonical form of ``header`` built of ``header``'s own values: read it, never keep it."""
    canonical: dict[str, Any] = {"config": header["config"]}
    if any(_marked(header, marker) for marker in MARKERS):
        canonical["adapterDefaults"] = header["adapterDefaults"]
    if header.get("system"):
        canonical["system"] = header["system"]
    if header.get("tools"):
        canonical["tools"] = header["tools"]
    return canonical  # type: ignore[return-value]


def header_differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """The fields in which two headers differ under PROMPT-HEADER-CANONICAL (``[]``: equal).

    Fields are named ``config.<field>``, ``adapterDefaults.<marker>``, ``system`` and ``tools``.
    Both headers are canonicalized first (read in place: nothing is copied).
    """
    a, b = _canonical_fields(a), _canonical_fields(b)
    config_a, config_b = a["config"], b["config"]
    differences = [
        f"config.{field}"
        for field in (*COMPARED_CONFIG_FIELDS, "stop")
        # `stop`: "an absent `stop` differs from `[]`" — absent only equals absent.
        if not _same_field(config_a, config_b, field)
    ]
    # "markers equal (for each of the two, both headers mark it or neither does)".
    differences += [
        f"adapterDefaults.{marker}"
        for marker in MARKERS
        if _marked(a, marker) != _marked(b, marker)
    ]
    if a.get("system") != b.get("system"):
        differences.append("system")
    # "tool lists of equal length with each pair serializing to the same JSON (key order included)"
    if not _same_tools(a.get("tools", []), b.get("tools", [])):
        differences.append("tools")
    return differences


def headers_equal(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """PROMPT-HEADER-CANONICAL equality of two headers (after canonicalizing both)."""
    return not header_differences(a, b)


class LoggedEvent(Protocol):
    """What the fold reads of an event: its ``type`` and its ``data``."""

    @property
    def type(self) -> str: ...

    @property
    def data(self) -> Json: ...


def fold_request_header(
    events: Iterable[LoggedEvent], start: RequestHeader | None = None
) -> RequestHeader | None:
    """The header in force after ``events``: "the last full snapshot, canonicalized".

    ``start`` is the header in force before them (``None``: no header yet). A header is a full
    snapshot, never a delta, so every `request/header` event replaces what came before.
    """
    state = start
    for event in events:
        if event.type == "request/header":
            state = canonical_header(event.data["header"])
    return state


def header_problem(header: Json) -> str | None:
    """Why ``header`` is not a well-formed header snapshot, or ``None``.

    The upstream validates seeded headers this way (`upstream/loop-and-session.md` §1.7): a
    non-empty ``config.provider`` and ``config.model``, a non-empty ``reasoningEffort`` if present,
    ``adapterDefaults`` holding only the two markers, each exactly ``true`` and present in
    ``config``. ``system`` must be a string and ``tools`` a list of objects when present.
    """
    if not isinstance(header, dict) or not isinstance(header.get("config"), dict):
        return "a header is an object whose `config` is an object"
    config = header["config"]
    for field in ("provider", "model"):
        if not isinstance(config.get(field), str) or not config[field]:
            return f"config.{field} must be a non-empty string"
    if "reasoningEffort" in config and not (
        isinstance(config["reasoningEffort"], str) and config["reasoningEffort"]
    ):
        return "config.reasoningEffort, when present, must be a non-empty string"
    if "stop" in config and not (
        isinstance(config["stop"], list) and all(isinstance(s, str) for s in config["stop"])
    ):
        return "config.stop, when present, must be a list of strings"
    if "adapterDefaults" in header:
        markers = header["adapterDefaults"]
        if not isinstance(markers, dict) or not set(markers) <= set(MARKERS):
            return "adapterDefaults may hold only the markers reasoningEffort and maxTokens"
        for marker, value in markers.items():
            if value is not True:
                return f"adapterDefaults.{marker} must be true (a marker is only ever true)"
            if marker not in config:
                return f"adapterDefaults marks {marker}, but config has no {marker}"
    if "system" in header and not isinstance(header["system"], str):
        return "system, when present, must be a string"
    if "tools" in header and not (
        isinstance(header["tools"], list) and all(isinstance(t, dict) for t in header["tools"])
    ):
        return "tools, when present, must be a list of tool schema objects"
    return None


def _same_tools(tools_a: list[Json], tools_b: list[Json]) -> bool:
    """ "tool lists of equal length with each pair serializing to the same JSON".

    The same list (`canonical_header`'s ``in_force``) or equal texts from ``json.dumps`` settle it
    at once: JavaScript writes both sides' keys and numbers alike. Texts that differ (or values it
    cannot write) get the walk that follows JavaScript's key order and numbers (``1`` and ``1.0``
    are one number there).
    """
    if tools_a is tools_b or _same_text(tools_a, tools_b):
        return True
    return len(tools_a) == len(tools_b) and all(map(same_json_text, tools_a, tools_b))


def _same_text(a: Json, b: Json) -> bool:
    """Whether ``json.dumps`` writes ``a`` and ``b`` alike (and can write them): then they are
    the same JSON value, key order, number forms and all, compared at the speed of the C encoder.
    """
    with contextlib.suppress(TypeError, ValueError):
        return json.dumps(a) == json.dumps(b)
    return False


def _same_field(a: Mapping[str, Any], b: Mapping[str, Any], field: str) -> bool:
    value_a, value_b = a.get(field, _ABSENT), b.get(field, _ABSENT)
    if value_a is _ABSENT or value_b is _ABSENT:
        return value_a is value_b
    return strict_equal(value_a, value_b)


def _marked(header: Mapping[str, Any], marker: str) -> bool:
    markers = header.get("adapterDefaults")
    return isinstance(markers, dict) and markers.get(marker) is True
