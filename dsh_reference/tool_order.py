"""The canonical order of tool schemas (PROMPT-TOOL-ORDER).

    Without `toolOrder`: schemas sort by name in UTF-16 code-unit order, locale-independent.
    With `toolOrder`: every listed name other than the marker must be in the union of all
    providers' `knownNames` (else `tool-order-unknown-name`, at assembly); a known name that is
    absent in this scope is simply skipped; listed tools appear at their listed positions and
    every unlisted visible tool appears at the marker, in code-unit order. A provider returning a
    schema named `<unlisted-tools>` fails the assembly (`reserved-tool-name`).

Why UTF-16: the upstream harness is TypeScript, whose string comparison is by UTF-16 code unit.
Python's ``sorted()`` on ``str`` compares code points, which disagrees for characters above
U+FFFF (a surrogate pair starts with 0xD800-0xDBFF, below U+E000-U+FFFF).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Final

from .assembly import ToolSchema
from .errors import ContractError

#: The rest marker: where every tool not listed in `toolOrder` goes.
UNLISTED_TOOLS: Final = "<unlisted-tools>"


def code_unit_key(name: str) -> bytes:
    """Sort key giving UTF-16 code-unit order (big-endian bytes compare like the code units).

    ``surrogatepass`` keeps lone surrogates, which JSON and JavaScript strings may carry, sortable
    instead of raising.
    """
    return name.encode("utf-16-be", "surrogatepass")


def validate_tool_order(tool_order: Sequence[str]) -> tuple[str, ...]:
    """Check a configured `toolOrder` when the configuration is loaded (`tool-order-invalid`).

    "A `toolOrder` with a duplicate name, or without exactly one rest marker (an empty list has
    none), is rejected when the configuration is loaded." Its type (a list of strings) is
    `PromptConfig`'s check (`config-invalid`).
    """
    seen: set[str] = set()
    for position, name in enumerate(tool_order):
        if name in seen:
            raise ContractError(
                "tool-order-invalid",
                f"toolOrder lists {name!r} twice (again at position {position})",
                where="toolOrder",
            )
        seen.add(name)
    if UNLISTED_TOOLS not in seen:
        raise ContractError(
            "tool-order-invalid",
            f"toolOrder must contain the rest marker {UNLISTED_TOOLS!r} exactly once",
            where="toolOrder",
        )
    return tuple(tool_order)


def order_tools(
    schemas: Iterable[ToolSchema],
    known_names: Collection[str],
    tool_order: Sequence[str] | None,
) -> list[ToolSchema]:
    """Order the visible schemas; ``known_names`` is the union of every provider's known names.

    ``tool_order`` must already have passed `validate_tool_order`. Schemas sharing a name (the
    contracts do not forbid it) keep their provider order, next to each other.
    """
    visible = list(schemas)
    for schema in visible:
        if schema.name == UNLISTED_TOOLS:
            raise ContractError(
                "reserved-tool-name",
                f"a tool provider returned a schema named {UNLISTED_TOOLS!r}, the toolOrder marker",
                where=UNLISTED_TOOLS,
            )
    by_code_units = sorted(visible, key=lambda schema: code_unit_key(schema.name))
    if tool_order is None:
        return by_code_units

    for name in tool_order:
        if name != UNLISTED_TOOLS and name not in known_names:
            raise ContractError(
                "tool-order-unknown-name",
                f"toolOrder lists {name!r}, which no tool provider knows",
                where=name,
            )
    listed = set(tool_order)
    by_name: dict[str, list[ToolSchema]] = {}
    for schema in visible:
        by_name.setdefault(schema.name, []).append(schema)
    ordered: list[ToolSchema] = []
    for name in tool_order:
        if name == UNLISTED_TOOLS:
            ordered.extend(schema for schema in by_code_units if schema.name not in listed)
        else:
            ordered.extend(by_name.get(name, ()))
    return ordered
