"""PROMPT-TOOL-ORDER: code-unit sort, and a configured order with one rest marker.

Code-unit orders below are worked out by hand from the UTF-16 encodings: "B" 0042, "_" 005F,
"b" 0062, U+1F600 as the surrogate pair D83D DE00, U+E000 E000, U+FF5E FF5E.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from dsh_reference import (
    AssembleContext,
    Assembly,
    ContractError,
    PromptConfig,
    PromptRegistry,
    ToolContribution,
    ToolSchema,
    code_unit_key,
    order_tools,
)

MARKER = "<unlisted-tools>"
GRIN = "\U0001f600"  # UTF-16: D83D DE00
TILDE = "\uff5e"  # UTF-16: FF5E
PRIVATE = "\ue000"  # UTF-16: E000


def schemas(*names: str) -> list[ToolSchema]:
    return [ToolSchema(name, f"{name} tool", {}) for name in names]


def ordered(names: Sequence[str], tool_order: Sequence[str] | None, known=None) -> list[str]:
    known_names = set(names) if known is None else set(known)
    return [s.name for s in order_tools(schemas(*names), known_names, tool_order)]


def provider(*names: str, known: Sequence[str] | None = None):
    def provide(context: AssembleContext) -> ToolContribution:
        return ToolContribution([{"name": n, "parameters": {}} for n in names], known)

    return provide


def assemble_tools(tool_order: list[str] | None, *providers) -> list[str]:
    raw = {} if tool_order is None else {"toolOrder": tool_order}
    registry = PromptRegistry(PromptConfig.load(raw))
    for p in providers:
        registry.add_tool_provider(p)
    assembly = asyncio.run(registry.assemble(AssembleContext()))
    return [tool.name for tool in assembly.tools]


def assembly_error(tool_order: list[str] | None, *providers) -> ContractError:
    with pytest.raises(ContractError) as info:
        assemble_tools(tool_order, *providers)
    return info.value


class TestPromptToolOrderCodeUnits:
    """PROMPT-TOOL-ORDER: without `toolOrder`, schemas sort by UTF-16 code unit."""

    def test_astral_name_sorts_before_high_bmp_names(self) -> None:
        names = [TILDE, "b", GRIN, "B", PRIVATE, "_"]
        expected = ["B", "_", "b", GRIN, PRIVATE, TILDE]
        assert expected != sorted(names)  # code-point order puts GRIN last
        assert ordered(names, None) == expected

    def test_code_unit_key_orders_like_utf16(self) -> None:
        assert sorted([TILDE, GRIN], key=code_unit_key) == [GRIN, TILDE]

    def test_order_is_case_sensitive_not_locale_aware(self) -> None:
        assert ordered(["apple", "Zebra", "banana", "Apple"], None) == [
            "Apple",
            "Zebra",
            "apple",
            "banana",
        ]

    def test_prefix_sorts_before_its_extension(self) -> None:
        assert ordered(["read_file", "read"], None) == ["read", "read_file"]

    def test_assembly_orders_tools_without_tool_order(self) -> None:
        assert assemble_tools(None, provider(TILDE, "z"), provider(GRIN, "a")) == [
            "a",
            "z",
            GRIN,
            TILDE,
        ]


class TestPromptToolOrderConfigured:
    """PROMPT-TOOL-ORDER: listed names at their positions, every unlisted tool at the marker."""

    def test_listed_positions_and_unlisted_at_marker_in_code_unit_order(self) -> None:
        names = ["read", "write", TILDE, "grep", GRIN, "bash"]
        assert ordered(names, ["write", MARKER, "read"]) == [
            "write",
            "bash",
            "grep",
            GRIN,
            TILDE,
            "read",
        ]

    def test_marker_first_puts_listed_names_last(self) -> None:
        assert ordered(["b", "a", "c"], [MARKER, "a"]) == ["b", "c", "a"]

    def test_marker_alone_is_code_unit_order(self) -> None:
        assert ordered([TILDE, GRIN, "a"], [MARKER]) == ["a", GRIN, TILDE]

    def test_known_but_absent_name_is_skipped(self) -> None:
        assert ordered(["b", "a"], ["ghost", "b", MARKER], known={"a", "b", "ghost"}) == [
            "b",
            "a",
        ]

    def test_unknown_listed_name_fails(self) -> None:
        with pytest.raises(ContractError) as info:
            ordered(["a"], ["ghost", MARKER])
        assert info.value.kind == "tool-order-unknown-name"

    def test_unknown_listed_name_fails_at_assembly(self) -> None:
        error = assembly_error(["ghost", MARKER], provider("a"))
        assert error.kind == "tool-order-unknown-name"

    def test_known_names_default_to_schema_names(self) -> None:
        assert assemble_tools(["b", MARKER], provider("a", "b")) == ["b", "a"]

    def test_known_names_are_the_union_across_providers(self) -> None:
        got = assemble_tools(
            ["ghost", "x", MARKER, "spirit"],
            provider(known=["ghost"]),
            provider("y", "x"),
            provider("z", known=["z", "spirit"]),
        )
        assert got == ["x", "y", "z"]

    def test_ordering_happens_before_the_waterfall(self) -> None:
        registry = PromptRegistry(PromptConfig.load({"toolOrder": ["c", MARKER]}))
        registry.add_tool_provider(provider("b", "c", "a"))
        seen: list[list[str]] = []

        def listener(assembly: Assembly, context, next_) -> Assembly:
            seen.append([tool.name for tool in assembly.tools])
            return assembly

        registry.add_assemble_listener(listener)
        asyncio.run(registry.assemble(AssembleContext()))
        assert seen == [["c", "a", "b"]]


class TestPromptToolOrderReservedName:
    """PROMPT-TOOL-ORDER: a schema named `<unlisted-tools>` fails the assembly."""

    @pytest.mark.parametrize("tool_order", [None, [MARKER]])
    def test_reserved_schema_name_fails_assembly(self, tool_order: list[str] | None) -> None:
        error = assembly_error(tool_order, provider("a"), provider(MARKER))
        assert error.kind == "reserved-tool-name"

    def test_reserved_schema_name_fails_order_tools(self) -> None:
        with pytest.raises(ContractError) as info:
            ordered(["a", MARKER], None)
        assert info.value.kind == "reserved-tool-name"
