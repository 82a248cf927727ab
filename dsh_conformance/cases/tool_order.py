"""PROMPT-TOOL-ORDER: code-unit sort, configured order with one rest marker, kept schema fields.

(The load-time rejections of a bad `toolOrder` are in `registry.py`.)
"""

from __future__ import annotations

from typing import Final

from ..judge.case import Case
from ..scenarios import scenario as s
from ..scenarios.scenario import Json

TOOL_ORDER = ("PROMPT-TOOL-ORDER",)
REST = s.UNLISTED_TOOLS
GRIN = "\U0001f600"  # U+1F600, UTF-16 D83D DE00: before U+E000 and U+FF5E in code-unit order
PRIVATE = "\ue000"
TILDE = "\uff5e"


def _provider(
    *names: str, known: list[str] | None = None, handle: str = "tools", layer: str | None = None
) -> Json:
    """A tool provider returning plain schemas with these names."""
    return s.tools(handle, s.provider(s.toolset(*_schemas(*names), known=known)), layer=layer)


def _schemas(*names: str) -> list[Json]:
    return [s.schema(name) for name in names]


def _unsorted_params() -> Json:
    """Parameters whose keys are deliberately not sorted (a fresh object per call)."""
    return {
        "required": ["path", "body"],
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "where"},
            "body": {"description": "what", "type": "string"},
        },
        "additionalProperties": False,
    }


#: Providers in the order they are registered: (layer, [(name, description)…]). Collection order
#: is by layer (global, then p, then c), each provider's list in its own order.
_SHARED: Final = (
    ("c", [("a", "c")]),
    (None, [("a", "g-1"), ("b", "g"), ("a", "g-2")]),
    ("p", [("b", "p"), ("a", "p")]),
)
#: The schemas of `_SHARED` in collection order.
_COLLECTED: Final = [("a", "g-1"), ("b", "g"), ("a", "g-2"), ("b", "p"), ("a", "p"), ("a", "c")]


def _shared_names_case(case_id: str, tool_order: list[str] | None, names: list[str]) -> Case:
    """Schemas sharing names spread over three layers; ``names`` is the expected name order."""
    config = [] if tool_order is None else [s.configure({"toolOrder": tool_order})]
    # A stable order keeps each name's schemas in collection order.
    by_name = {name: [d for n, d in _COLLECTED if n == name] for name in ("a", "b")}
    expected = [s.schema(name, by_name[name].pop(0)) for name in names]
    return Case(
        id=f"tool-order/{case_id}",
        contracts=TOOL_ORDER,
        why=(
            "Schemas sharing a name are all kept (no de-duplication) and the sort is stable: "
            "they keep their collection order (providers global first, then farthest→nearest, "
            "each provider's list in its own order), both in plain code-unit order and at a "
            "listed position."
        ),
        ops=(
            *config,
            s.scope("p"),
            s.scope("c", "p"),
            *[
                s.tools(
                    f"tools-{index}",
                    s.provider(s.toolset(*[s.schema(n, d) for n, d in schemas])),
                    layer=layer,
                )
                for index, (layer, schemas) in enumerate(_SHARED)
            ],
            s.assemble("a", "c", expect=s.assembly(tools=expected)),
        ),
    )


def _ordered(
    case_id: str,
    why: str,
    names: list[str],
    expected: list[str],
    *,
    tool_order: list[str] | None = None,
    known: list[str] | None = None,
) -> Case:
    config = [] if tool_order is None else [s.configure({"toolOrder": tool_order})]
    return Case(
        id=f"tool-order/{case_id}",
        contracts=TOOL_ORDER,
        why=why,
        ops=(
            *config,
            _provider(*names, known=known),
            s.assemble("a", expect=s.assembly(tools=_schemas(*expected))),
        ),
    )


CASES: list[Case] = [
    _ordered(
        "code-unit-order-without-config",
        "Without toolOrder, schemas sort by name in UTF-16 code-unit order, locale-independent: "
        "uppercase before `_` before lowercase, a prefix before its extensions.",
        ["beta", "alpha2", "Zeta", "alpha", "_x"],
        ["Zeta", "_x", "alpha", "alpha2", "beta"],
    ),
    _ordered(
        "astral-names-by-utf16-code-units",
        "Code-unit order, not code-point order: U+1F600 is the surrogate pair D83D DE00, so it "
        "sorts before U+E000 and U+FF5E (plain sorted() would put it last).",
        [TILDE, GRIN, PRIVATE, "z"],
        ["z", GRIN, PRIVATE, TILDE],
    ),
    _ordered(
        "lone-surrogates-by-utf16-code-units",
        "Code-unit order holds for names holding a lone surrogate, which JSON can carry as "
        "\\ud800: D800 < D83D DE00 (U+1F600) < DFFF < E000 (CONTRACTS.md's Python hint is "
        '`name.encode("utf-16-be", "surrogatepass")`).',
        [PRIVATE, "\udfff", GRIN, "\ud800"],
        ["\ud800", GRIN, "\udfff", PRIVATE],
    ),
    Case(
        id="tool-order/schemas-of-all-providers-sorted-together",
        contracts=TOOL_ORDER,
        why=(
            "Without toolOrder the schemas of all providers (global and scoped) are sorted "
            "together by name, not grouped by provider."
        ),
        ops=(
            s.scope("s"),
            _provider("zeta", "beta", handle="one"),
            _provider("gamma", "alpha", handle="two", layer="s"),
            s.assemble(
                "a", "s", expect=s.assembly(tools=_schemas("alpha", "beta", "gamma", "zeta"))
            ),
        ),
    ),
    _ordered(
        "listed-names-at-listed-positions",
        "With toolOrder, listed tools appear at their listed positions and every unlisted "
        "visible tool appears at the marker.",
        ["a", "b", "c", "d"],
        ["c", "b", "d", "a"],
        tool_order=["c", REST, "a"],
    ),
    _ordered(
        "unlisted-at-marker-in-code-unit-order",
        "Unlisted tools appear at the marker in code-unit order (astral names included).",
        [TILDE, "m", "z", GRIN, "a", "B"],
        ["z", "B", "m", GRIN, TILDE, "a"],
        tool_order=["z", REST, "a"],
    ),
    _ordered(
        "known-but-absent-name-skipped",
        "A listed name in the providers' knownNames that is absent in this scope is simply "
        "skipped.",
        ["b", "a"],
        ["a", "b"],
        tool_order=["x", "a", REST],
        known=["a", "b", "x"],
    ),
    Case(
        id="tool-order/known-names-are-a-union-over-providers",
        contracts=TOOL_ORDER,
        why=(
            "Listed names must be in the union of all providers' knownNames: a name known only "
            "to a provider with no schemas is valid and skipped where absent; where a scoped "
            "provider supplies it, it takes its listed position."
        ),
        ops=(
            s.configure({"toolOrder": ["x", REST, "a"]}),
            s.scope("s"),
            _provider(known=["x"], handle="knows-x"),
            _provider("b", "a", handle="ab"),
            _provider("x", handle="has-x", layer="s"),
            s.assemble("in-g", expect=s.assembly(tools=_schemas("b", "a"))),
            s.assemble("in-s", "s", expect=s.assembly(tools=_schemas("x", "b", "a"))),
        ),
    ),
    Case(
        id="tool-order/unknown-listed-name-fails-at-assembly",
        contracts=TOOL_ORDER,
        why=(
            "Every listed name other than the marker must be in the union of the providers' "
            "knownNames, else tool-order-unknown-name — at assembly (the configuration itself "
            "loads), with or without tools."
        ),
        ops=(
            s.configure({"toolOrder": ["ghost", REST]}),
            s.assemble("a1", expect=s.error("tool-order-unknown-name", where="ghost")),
            _provider("a", "b"),
            s.assemble("a2", expect=s.error("tool-order-unknown-name", where="ghost")),
        ),
    ),
    _ordered(
        "default-known-names-are-the-schema-names",
        "knownNames defaults to the provider's schema names, so listing a schema name of a "
        "provider without knownNames is valid.",
        ["b", "a"],
        ["b", "a"],
        tool_order=["b", REST],
    ),
    Case(
        id="tool-order/explicit-known-names-replace-the-default",
        contracts=TOOL_ORDER,
        why=(
            "knownNames is optional with the schema names as default; given explicitly it is "
            "the provider's known set, so a listed schema name outside it is unknown."
        ),
        ops=(
            s.configure({"toolOrder": ["b", REST]}),
            _provider("a", "b", known=["a"]),
            s.assemble("a", expect=s.error("tool-order-unknown-name", where="b")),
        ),
    ),
    Case(
        id="tool-order/known-names-only-from-the-assembly-providers",
        contracts=TOOL_ORDER,
        why=(
            "knownNames come from the providers evaluated for the assembly (global and chain): "
            "a name known only to a provider of scope s is unknown to the global assembly."
        ),
        ops=(
            s.configure({"toolOrder": ["x", REST]}),
            s.scope("s"),
            _provider("a"),
            _provider(known=["x"], handle="scoped", layer="s"),
            s.assemble("in-s", "s", expect=s.assembly(tools=_schemas("a"))),
            s.assemble("in-g", expect=s.error("tool-order-unknown-name", where="x")),
        ),
    ),
    Case(
        id="tool-order/reserved-marker-name-rejected",
        contracts=TOOL_ORDER,
        why=(
            "A provider returning a schema named <unlisted-tools> fails the assembly "
            "(reserved-tool-name), with or without a configured toolOrder."
        ),
        ops=(
            s.scope("s"),
            s.scope("t"),
            _provider("a", REST, handle="bad", layer="s"),
            _provider(REST, handle="bad-too", layer="t"),
            s.assemble("in-s", "s", expect=s.error("reserved-tool-name", where=REST)),
            s.assemble("in-t", "t", expect=s.error("reserved-tool-name", where=REST)),
            s.assemble("in-g", expect=s.assembly(tools=[])),
        ),
    ),
    Case(
        id="tool-order/reserved-marker-name-rejected-with-tool-order",
        contracts=TOOL_ORDER,
        why="A schema named <unlisted-tools> fails the assembly (reserved-tool-name).",
        ops=(
            s.configure({"toolOrder": ["a", REST]}),
            _provider("a", REST),
            s.assemble("a", expect=s.error("reserved-tool-name", where=REST)),
        ),
    ),
    Case(
        id="tool-order/only-name-description-parameters-kept",
        contracts=TOOL_ORDER,
        why=(
            "Only `name`, `description` and a structural copy of `parameters` are kept from "
            "each schema; extra keys are dropped."
        ),
        ops=(
            s.tools(
                "tools",
                s.provider(
                    s.toolset(
                        s.schema(
                            "read", "Read a file", strict=True, type="function", title="Reader"
                        )
                    )
                ),
            ),
            s.assemble("a", expect=s.assembly(tools=[s.schema("read", "Read a file")])),
        ),
    ),
    Case(
        id="tool-order/parameters-key-order-preserved",
        contracts=TOOL_ORDER,
        why=(
            "`parameters` is kept as a structural copy, key order included (tools are compared "
            "by their JSON serialization)."
        ),
        ops=(
            s.tools(
                "tools",
                s.provider(
                    s.toolset(
                        s.schema(
                            "write",
                            "Write",
                            _unsorted_params(),
                        )
                    )
                ),
            ),
            s.assemble(
                "a",
                expect=s.assembly(
                    tools=[
                        s.schema(
                            "write",
                            "Write",
                            _unsorted_params(),
                        )
                    ]
                ),
            ),
        ),
    ),
    Case(
        id="tool-order/ordering-happens-before-the-waterfall",
        contracts=TOOL_ORDER,
        why=(
            "Ordering happens before the waterfall: a listener sees the ordered tools, and "
            "what it returns (an appended tool at the end, here) is not re-sorted."
        ),
        ops=(
            _provider("b", "a"),
            s.listen("l", s.listener({"append": "tools", "item": s.schema("0first")})),
            s.assemble("a", expect=s.assembly(tools=_schemas("a", "b", "0first"))),
        ),
    ),
    *[
        _shared_names_case(case_id, tool_order, expected)
        for case_id, tool_order, expected in (
            ("shared-names-kept-in-collection-order", None, ["a"] * 4 + ["b"] * 2),
            ("shared-names-kept-at-a-listed-position", ["b", REST], ["b"] * 2 + ["a"] * 4),
        )
    ],
]
