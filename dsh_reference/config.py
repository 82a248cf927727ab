"""The prompt configuration and its load-time validation (CONTRACTS.md, "Configuration").

`includeHarnessIdentity` (default true: register the identity section), `includeRuntimeContext`
(default true; false = a global suppressor), `persona` (default `''`), `toolOrder` (absent =
plain code-unit order). A `toolOrder` with a duplicate name, or without exactly one rest marker
(an empty list has none), is rejected when the configuration is loaded: `tool-order-invalid`.
A field of the wrong type — a non-string `persona`, a non-boolean flag (`0` is not `false`), a
`toolOrder` that is not a list of strings — is rejected when loaded: `config-invalid`. A field
given as `null` means absent (its default), for every field including `toolOrder`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

from .errors import ContractError
from .tool_order import validate_tool_order


@dataclass(frozen=True)
class PromptConfig:
    include_harness_identity: bool = True
    include_runtime_context: bool = True
    persona: str = ""
    tool_order: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        for attribute in fields(self):
            value = getattr(self, attribute.name)
            key, expected = _KEYS[attribute.name], _TYPES[attribute.name]
            if attribute.name == "tool_order" and value is None:
                continue
            # `bool` is an `int` in Python, but no other type is a `bool`: 0 is not false.
            names = (self.tool_order or ()) if attribute.name == "tool_order" else ()
            if not isinstance(value, expected) or not all(isinstance(n, str) for n in names):
                raise ContractError(
                    "config-invalid",
                    f"{key} must be {_TYPE_NAMES[attribute.name]}, got {value!r}",
                    where=key,
                )
        if self.tool_order is not None:
            object.__setattr__(self, "tool_order", validate_tool_order(self.tool_order))

    @classmethod
    def load(cls, raw: Mapping[str, Any]) -> PromptConfig:
        """Build a configuration from its JSON form (camelCase keys); ``null`` means absent.

        Unknown keys are implementation-defined (PROMPT-REGISTRY-CONTRACT); the reference rejects
        them, so that a misspelt key is never silently a default.
        """
        if not isinstance(raw, Mapping):
            raise ContractError("config-invalid", "the configuration must be a JSON object")
        attributes = {key: attribute for attribute, key in _KEYS.items()}
        unknown = sorted(set(raw) - set(attributes))
        if unknown:
            raise ContractError(
                "config-invalid",
                f"unknown configuration key(s) {unknown}; known: {sorted(attributes)}",
                where=unknown[0],
            )
        return cls(**{attributes[key]: value for key, value in raw.items() if value is not None})


#: Attribute -> JSON key, and the type the JSON value must have.
_KEYS: Final = {
    "include_harness_identity": "includeHarnessIdentity",
    "include_runtime_context": "includeRuntimeContext",
    "persona": "persona",
    "tool_order": "toolOrder",
}
_TYPES: Final[dict[str, type | tuple[type, ...]]] = {
    "include_harness_identity": bool,
    "include_runtime_context": bool,
    "persona": str,
    "tool_order": (list, tuple),
}
_TYPE_NAMES: Final = {
    "include_harness_identity": "a boolean",
    "include_runtime_context": "a boolean",
    "persona": "a string",
    "tool_order": "a list of tool names",
}
