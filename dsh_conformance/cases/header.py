"""PROMPT-HEADER-CANONICAL: the canonical form of a request header, and header equality.

Each equality case compares a base header with one changed copy; the expected answer is read off
the rule quoted in its ``why``.
"""

from __future__ import annotations

from ..judge.case import Case
from ..scenarios import scenario as s
from ..scenarios.scenario import Json

HEADER = ("PROMPT-HEADER-CANONICAL",)
SESSION = ("session",)

CANONICAL = (
    "Canonical form: an empty system and an empty tool list become absent fields; "
    "`adapterDefaults` is kept only if one of its two markers is true (a marker is only ever "
    "`true`; a marked field is present in `config`)."
)
EQUALITY = (
    "Equality: config equal (provider, model, reasoningEffort, temperature, maxTokens strictly; "
    "`stop` lists element-wise, and an absent `stop` differs from `[]`; no other config field is "
    "compared, and key order never is), markers equal (for each of the two, both headers mark it "
    "or neither does), system strings identical, tool lists of equal length with each pair "
    "serializing to the same JSON (key order included)."
)

CONFIG = {"provider": "deepseek", "model": "deepseek-chat"}
READ = {
    "name": "read",
    "description": "Read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
}
WRITE = {"name": "write", "description": "Write a file", "parameters": {"type": "object"}}
BASE = {"config": CONFIG, "system": "You are terse.", "tools": [READ, WRITE]}
#: Parameters with an integer-like property name, listed first as JavaScript lists it (no case
#: depends on the order of such keys, PROTOCOL.md).
NUMBERED = {"type": "object", "properties": {"0": {"type": "number"}, "path": {"type": "string"}}}


def _header(**fields: Json) -> Json:
    config = {**CONFIG, **fields.pop("config", {})}
    return {"config": config, **fields}


def _canonical(case_id: str, why: str, header: Json, canonical: Json) -> Case:
    return Case(
        id=f"header/canonical-{case_id}",
        contracts=HEADER,
        why=why,
        ops=(s.header_canonical(header, expect=s.header(canonical)),),
        requires=SESSION,
    )


def _equal(case_id: str, why: str, pairs: list[tuple[Json, Json, bool]]) -> Case:
    """Each pair compared both ways round: equality is symmetric."""
    ops = [
        s.header_equal(a, b, expect=s.equal(same))
        for left, right, same in pairs
        for a, b in ((left, right), (right, left))
    ]
    return Case(
        id=f"header/equal-{case_id}",
        contracts=HEADER,
        why=why,
        ops=tuple(ops),
        requires=SESSION,
    )


CASES: list[Case] = [
    _canonical(
        "drops-empty-system",
        CANONICAL + " (An empty `system` alone: the tools stay.)",
        _header(system="", tools=[READ]),
        {"config": CONFIG, "tools": [READ]},
    ),
    _canonical(
        "drops-empty-tools",
        CANONICAL + " (An empty `tools` alone: the system stays.)",
        _header(system="S", tools=[]),
        {"config": CONFIG, "system": "S"},
    ),
    _canonical(
        "drops-unmarked-adapter-defaults",
        CANONICAL + " `adapterDefaults: {}` has no true marker.",
        _header(adapterDefaults={}, system="S"),
        {"config": CONFIG, "system": "S"},
    ),
    _canonical(
        "keeps-marked-adapter-defaults-and-config-as-is",
        CANONICAL + " The config is the resolved call config, kept as it is (any extra field too).",
        {
            "config": {"model": "deepseek-chat", "provider": "deepseek", "maxTokens": 8192, "x": 1},
            "adapterDefaults": {"maxTokens": True},
            "system": "S",
            "tools": [READ],
        },
        {
            "config": {"model": "deepseek-chat", "provider": "deepseek", "maxTokens": 8192, "x": 1},
            "adapterDefaults": {"maxTokens": True},
            "system": "S",
            "tools": [READ],
        },
    ),
    _canonical(
        "keeps-tool-schema-key-order",
        CANONICAL + " Tool schemas are kept as they are: their key order is part of their JSON.",
        _header(tools=[{"parameters": {"b": 1, "a": 2}, "name": "z", "description": ""}]),
        _header(tools=[{"parameters": {"b": 1, "a": 2}, "name": "z", "description": ""}]),
    ),
    _equal(
        "identical-headers",
        EQUALITY + " Identical headers are equal.",
        [(BASE, _header(system="You are terse.", tools=[READ, WRITE]), True)],
    ),
    _equal(
        "config-fields-strictly",
        EQUALITY
        + " Each compared config field differing alone makes the headers differ, an absent "
        "field differs from any present value, and 1 equals 1.0 (JSON numbers) but not true.",
        [
            (BASE, {**BASE, "config": {**CONFIG, "provider": "openai"}}, False),
            (BASE, {**BASE, "config": {**CONFIG, "model": "deepseek-reasoner"}}, False),
            (BASE, {**BASE, "config": {**CONFIG, "reasoningEffort": "high"}}, False),
            (BASE, {**BASE, "config": {**CONFIG, "temperature": 0}}, False),
            (BASE, {**BASE, "config": {**CONFIG, "maxTokens": 4096}}, False),
            (
                {**BASE, "config": {**CONFIG, "temperature": 0.5}},
                {**BASE, "config": {**CONFIG, "temperature": 0.7}},
                False,
            ),
            (
                {**BASE, "config": {**CONFIG, "maxTokens": 1}},
                {**BASE, "config": {**CONFIG, "maxTokens": 1.0}},
                True,
            ),
            (
                {**BASE, "config": {**CONFIG, "maxTokens": 1}},
                {**BASE, "config": {**CONFIG, "maxTokens": True}},
                False,
            ),
        ],
    ),
    _equal(
        "absent-stop-differs-from-empty-stop",
        EQUALITY + " `[]` and an absent `stop` differ; lists compare element-wise, in order.",
        [
            (BASE, {**BASE, "config": {**CONFIG, "stop": []}}, False),
            (
                {**BASE, "config": {**CONFIG, "stop": []}},
                {**BASE, "config": {**CONFIG, "stop": []}},
                True,
            ),
            (
                {**BASE, "config": {**CONFIG, "stop": ["a", "b"]}},
                {**BASE, "config": {**CONFIG, "stop": ["a", "b"]}},
                True,
            ),
            (
                {**BASE, "config": {**CONFIG, "stop": ["a", "b"]}},
                {**BASE, "config": {**CONFIG, "stop": ["b", "a"]}},
                False,
            ),
            (
                {**BASE, "config": {**CONFIG, "stop": ["a"]}},
                {**BASE, "config": {**CONFIG, "stop": ["a", "b"]}},
                False,
            ),
        ],
    ),
    _equal(
        "other-config-fields-and-key-order-ignored",
        EQUALITY + " A config field outside the six, or another config key order, changes nothing.",
        [
            (BASE, {**BASE, "config": {**CONFIG, "purpose": "compaction"}}, True),
            (BASE, {**BASE, "config": {"model": "deepseek-chat", "provider": "deepseek"}}, True),
        ],
    ),
    _equal(
        "markers",
        EQUALITY
        + " A header marking maxTokens differs from one that does not; `{}` marks nothing.",
        [
            (
                {
                    **BASE,
                    "config": {**CONFIG, "maxTokens": 8},
                    "adapterDefaults": {"maxTokens": True},
                },
                {**BASE, "config": {**CONFIG, "maxTokens": 8}},
                False,
            ),
            (
                {
                    **BASE,
                    "config": {**CONFIG, "reasoningEffort": "high"},
                    "adapterDefaults": {"reasoningEffort": True},
                },
                {
                    **BASE,
                    "config": {**CONFIG, "reasoningEffort": "high"},
                    "adapterDefaults": {"reasoningEffort": True},
                },
                True,
            ),
            (BASE, {**BASE, "adapterDefaults": {}}, True),
        ],
    ),
    _equal(
        "system-strings",
        EQUALITY + " " + CANONICAL + " So an empty system equals an absent one, while any other "
        "difference (one trailing space) differs.",
        [
            (_header(system=""), _header(), True),
            (BASE, {**BASE, "system": "You are terse. "}, False),
            (BASE, {"config": CONFIG, "tools": [READ, WRITE]}, False),
        ],
    ),
    _equal(
        "tool-lists",
        EQUALITY + " " + CANONICAL + " An empty tool list equals an absent one; order, length and "
        "the key order inside a schema all count.",
        [
            (_header(tools=[]), _header(), True),
            (BASE, {**BASE, "tools": [WRITE, READ]}, False),
            (BASE, {**BASE, "tools": [READ]}, False),
            (
                BASE,
                {
                    **BASE,
                    "tools": [
                        {
                            "description": "Read a file",
                            "name": "read",
                            "parameters": READ["parameters"],
                        },
                        WRITE,
                    ],
                },
                False,
            ),
            (
                BASE,
                {
                    **BASE,
                    "tools": [
                        {
                            **READ,
                            "parameters": {
                                "properties": {"path": {"type": "string"}},
                                "type": "object",
                            },
                        },
                        WRITE,
                    ],
                },
                False,
            ),
        ],
    ),
    _equal(
        "tool-schemas-compared-as-json-text",
        EQUALITY + " The JSON is what `JSON.stringify` writes: a number is written by its value "
        '(`1.0` is `1`), `{}` and `[]` are different texts, and so are `["path"]` and '
        '`["name"]`.',
        [
            (
                _header(tools=[{**READ, "parameters": {**NUMBERED, "minimum": 1, "enum": [1, 2]}}]),
                _header(
                    tools=[{**READ, "parameters": {**NUMBERED, "minimum": 1.0, "enum": [1.0, 2]}}]
                ),
                True,
            ),
            (
                _header(tools=[{**WRITE, "parameters": {"type": "object", "default": {}}}]),
                _header(tools=[{**WRITE, "parameters": {"type": "object", "default": []}}]),
                False,
            ),
            (
                _header(tools=[{**READ, "parameters": {**NUMBERED, "required": ["path"]}}]),
                _header(tools=[{**READ, "parameters": {**NUMBERED, "required": ["name"]}}]),
                False,
            ),
        ],
    ),
]
