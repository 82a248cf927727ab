"""The prompt configuration and its load-time validation (CONTRACTS.md, "Configuration").

`includeHarnessIdentity` (default true: register the identity section), `includeRuntimeContext`
(default true; false = a global suppressor), `persona` (default `''`), `toolOrder` (absent =
plain code-unit order). A `toolOrder` with a duplicate name, or without exactly one rest marker
(an empty list has none), is rejected when the configuration is loaded: `tool-order-invalid`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ContractError
from .tool_order import validate_tool_order


@dataclass(frozen=True)
class PromptConfig:
    include_harness_identity: bool = True
    include_runtime_context: bool = True
    persona: str = ""
    tool_order: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.tool_order is not None:
            object.__setattr__(self, "tool_order", validate_tool_order(self.tool_order))

    @classmethod
    def load(cls, raw: Mapping[str, Any]) -> PromptConfig:
        """Build a configuration from its JSON form (camelCase keys), rejecting anything unknown."""
        if not isinstance(raw, Mapping):
            raise ContractError("config-invalid", "the configuration must be a JSON object")
        unknown = sorted(set(raw) - set(_FIELDS))
        if unknown:
            raise ContractError(
                "config-invalid",
                f"unknown configuration key(s) {unknown}; known: {sorted(_FIELDS)}",
                where=unknown[0],
            )
        values: dict[str, Any] = {}
        for key, (attribute, expected) in _FIELDS.items():
            if key not in raw:
                continue
            value = raw[key]
            if not isinstance(value, expected):
                kind = "tool-order-invalid" if key == "toolOrder" else "config-invalid"
                raise ContractError(
                    kind,
                    f"{key} must be {_TYPE_NAMES[expected]}, got {type(value).__name__}",
                    where=key,
                )
            values[attribute] = value
        return cls(**values)


_FIELDS: dict[str, tuple[str, type | tuple[type, ...]]] = {
    "includeHarnessIdentity": ("include_harness_identity", bool),
    "includeRuntimeContext": ("include_runtime_context", bool),
    "persona": ("persona", str),
    "toolOrder": ("tool_order", (list, tuple)),
}
_TYPE_NAMES = {bool: "a boolean", str: "a string", (list, tuple): "a list of tool names"}
