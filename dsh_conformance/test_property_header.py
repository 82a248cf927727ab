"""Property tests of PROMPT-HEADER-CANONICAL equality: pairs equal by construction, or differing in
exactly one field.

A base header is generated (config with any of the optional fields, markers only on fields the
config holds, a system text, tool schemas with arbitrary key order). Its partner is either

- an *equal* rewrite: config keys in another order, an extra config field the rule does not
  compare, a number written as an integral float, an empty system or tool list in place of an
  absent one, an unmarked ``adapterDefaults: {}``; or
- a copy with *one* change, named: a compared config field (including ``stop`` absent ↔ ``[]``),
  a marker, the system text, or the tools (reordered list, one schema's keys reordered, a schema
  added or dropped).

The expected answer is known from how the pair was built; the test never computes equality.
"""

from __future__ import annotations

import copy
from typing import Any, Final

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from .harness.transport import Implementation
from .judge.case import Case
from .run.execute import check
from .scenarios import scenario as s

CONTRACT: Final = "PROMPT-HEADER-CANONICAL"
RULE: Final = (
    "Canonical form: an empty system and an empty tool list become absent fields; "
    "`adapterDefaults` is kept only if one of its two markers is true. Equality: config equal "
    "(provider, model, reasoningEffort, temperature, maxTokens strictly; `stop` lists "
    "element-wise, and an absent `stop` differs from `[]`; no other config field is compared, and "
    "key order never is), markers equal, system strings identical, tool lists of equal length "
    "with each pair serializing to the same JSON (key order included)."
)

Header = dict[str, Any]

_WORDS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=8)
#: No integer-like key: JavaScript lists those first whatever their insertion order, so
#: reordering one would not change the JSON text.
_KEYS: Final = ("type", "a", "b", "items", "zeta", "properties")


@st.composite
def _schemas(draw: st.DrawFn) -> dict[str, Any]:
    """A tool schema whose ``parameters`` has 2-4 distinct keys, in drawn order."""
    keys = draw(st.permutations(_KEYS))[: draw(st.integers(2, 4))]
    parameters = {key: draw(st.one_of(st.integers(-5, 5), _WORDS, st.booleans())) for key in keys}
    return {"name": draw(_WORDS), "description": draw(_WORDS), "parameters": parameters}


@st.composite
def _headers(draw: st.DrawFn, min_tools: int = 0) -> Header:
    config: dict[str, Any] = {"provider": draw(_WORDS), "model": draw(_WORDS)}
    if draw(st.booleans()):
        config["reasoningEffort"] = draw(st.sampled_from(["low", "medium", "high"]))
    if draw(st.booleans()):
        config["temperature"] = draw(st.sampled_from([0, 0.25, 0.7, 1, 1.5]))
    if draw(st.booleans()):
        config["maxTokens"] = draw(st.integers(1, 100_000))
    if draw(st.booleans()):
        config["stop"] = draw(st.lists(_WORDS, max_size=3))
    header: Header = {"config": config}
    markers = {
        marker: True
        for marker in ("reasoningEffort", "maxTokens")
        if marker in config
        if draw(st.booleans())
    }
    if markers:
        header["adapterDefaults"] = markers
    if draw(st.booleans()):
        header["system"] = draw(_WORDS)
    tools = draw(st.lists(_schemas(), min_size=min_tools, max_size=3))
    if tools:
        header["tools"] = tools
    return header


def _equal_rewrite(draw: st.DrawFn, header: Header) -> Header:
    """The same header under the rule, written differently."""
    other = copy.deepcopy(header)
    keys = draw(st.permutations(list(other["config"])))
    other["config"] = {key: other["config"][key] for key in keys}
    if draw(st.booleans()):
        other["config"]["purpose"] = draw(_WORDS)  # not a compared field
    if "maxTokens" in other["config"] and draw(st.booleans()):
        other["config"]["maxTokens"] = float(other["config"]["maxTokens"])  # same JSON number
    if "system" not in other and draw(st.booleans()):
        other["system"] = ""
    if "tools" not in other and draw(st.booleans()):
        other["tools"] = []
    if "adapterDefaults" not in other and draw(st.booleans()):
        other["adapterDefaults"] = {}
    return other


_CHANGES: Final = (
    "provider",
    "model",
    "reasoningEffort",
    "temperature",
    "maxTokens",
    "stop",
    "marker",
    "system",
    "tool-order",
    "tool-key-order",
    "tool-count",
)


def _one_change(draw: st.DrawFn, header: Header, change: str) -> tuple[str, Header]:
    """A copy differing in exactly one compared field; the name of the change made."""
    other = copy.deepcopy(header)
    config = other["config"]
    if change in ("provider", "model"):
        config[change] = config[change] + "x"
    elif change == "reasoningEffort":
        if "reasoningEffort" in config and not _marked(other, "reasoningEffort"):
            del config["reasoningEffort"]
        else:
            config["reasoningEffort"] = config.get("reasoningEffort", "") + "!"
    elif change == "temperature":
        config["temperature"] = config.get("temperature", 0) + 0.5
    elif change == "maxTokens":
        config["maxTokens"] = config.get("maxTokens", 0) + 1
    elif change == "stop":
        stop = config.get("stop")
        if stop is None:
            config["stop"] = []  # absent -> []
            change = "stop-absent-vs-empty"
        elif not stop:
            del config["stop"]  # [] -> absent
            change = "stop-absent-vs-empty"
        else:
            config["stop"] = [*stop, stop[0]]
    elif change == "marker":
        marker = draw(st.sampled_from(["reasoningEffort", "maxTokens"]))
        if _marked(other, marker):
            del other["adapterDefaults"][marker]
        else:
            config.setdefault(marker, "high" if marker == "reasoningEffort" else 1)
            other.setdefault("adapterDefaults", {})[marker] = True
            # Marking it must be the only change: mark it in the base too if it was absent.
            if marker not in header["config"]:
                header["config"][marker] = config[marker]
    elif change == "system":
        other["system"] = other.get("system", "") + "."
    elif change == "tool-order":
        tools = other["tools"]
        tools[0], tools[-1] = tools[-1], tools[0]
        if tools[0] == tools[-1]:
            tools.append(copy.deepcopy(tools[0]))
            change = "tool-count"
    elif change == "tool-key-order":
        schema = other["tools"][0]
        keys = list(schema["parameters"])
        schema["parameters"] = {key: schema["parameters"][key] for key in reversed(keys)}
    else:
        if other.get("tools") and draw(st.booleans()):
            other["tools"].pop()
        else:
            other.setdefault("tools", []).append(draw(_schemas()))
    return change, other


def _marked(header: Header, marker: str) -> bool:
    return header.get("adapterDefaults", {}).get(marker) is True


@st.composite
def _pairs(draw: st.DrawFn, change: str) -> tuple[Header, Header, bool, str]:
    base = draw(_headers(min_tools={"tool-order": 2, "tool-key-order": 1}.get(change, 0)))
    if change == "equal":
        return base, _equal_rewrite(draw, base), True, "equal"
    made, other = _one_change(draw, base, change)
    return base, other, False, made


@pytest.mark.contract(CONTRACT)
@pytest.mark.parametrize("change", ["equal", *_CHANGES])
@given(data=st.data())
def test_header_equality(impl: Implementation, change: str, data: st.DataObject) -> None:
    """PROMPT-HEADER-CANONICAL: equal-by-construction pairs are equal, one-field changes are not,
    in both directions."""
    a, b, equal, how = data.draw(_pairs(change))
    event(how)
    case = Case(
        id=f"property/header-equality-{how}",
        contracts=(CONTRACT,),
        why=RULE,
        ops=(
            s.header_equal(a, b, expect=s.equal(equal)),
            s.header_equal(b, a, expect=s.equal(equal)),
        ),
        requires=("session",),
    )
    check(impl, case)
