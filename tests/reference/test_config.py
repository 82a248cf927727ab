"""Configuration (CONTRACTS.md, "Configuration"), and PROMPT-TOOL-ORDER's load-time check."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_reference import ContractError, PromptConfig

MARKER = "<unlisted-tools>"


def load_error(raw: dict[str, Any]) -> ContractError:
    with pytest.raises(ContractError) as info:
        PromptConfig.load(raw)
    return info.value


class TestConfiguration:
    """Configuration: defaults and the four known keys."""

    def test_defaults(self) -> None:
        config = PromptConfig.load({})
        assert config.include_harness_identity is True
        assert config.include_runtime_context is True
        assert config.persona == ""
        assert config.tool_order is None

    def test_every_key_is_loaded(self) -> None:
        config = PromptConfig.load(
            {
                "includeHarnessIdentity": False,
                "includeRuntimeContext": False,
                "persona": "You are terse.",
                "toolOrder": ["b", MARKER, "a"],
            }
        )
        assert config.include_harness_identity is False
        assert config.include_runtime_context is False
        assert config.persona == "You are terse."
        assert list(config.tool_order) == ["b", MARKER, "a"]

    @pytest.mark.parametrize("key", ["tool_order", "Persona", "includeIdentity", "extra"])
    def test_unknown_key_is_config_invalid(self, key: str) -> None:
        assert load_error({key: True}).kind == "config-invalid"

    @pytest.mark.parametrize(
        ("key", "value"),
        [
            ("persona", 5),
            ("persona", True),
            ("includeRuntimeContext", 0),
            ("includeHarnessIdentity", "yes"),
            ("toolOrder", "a"),
            ("toolOrder", [1, MARKER]),
            ("toolOrder", {"a": MARKER}),
        ],
    )
    def test_a_field_of_the_wrong_type_is_config_invalid(self, key: str, value: Any) -> None:
        error = load_error({key: value})
        assert (error.kind, error.where) == ("config-invalid", key)

    def test_null_means_absent_for_every_field(self) -> None:
        keys = ["includeHarnessIdentity", "includeRuntimeContext", "persona", "toolOrder"]
        assert PromptConfig.load(dict.fromkeys(keys)) == PromptConfig()

    def test_the_python_constructor_checks_types_too(self) -> None:
        with pytest.raises(ContractError) as info:
            PromptConfig(persona=None)  # type: ignore[arg-type]
        assert info.value.kind == "config-invalid"


class TestPromptToolOrderConfig:
    """PROMPT-TOOL-ORDER: a bad `toolOrder` is rejected at load time (`tool-order-invalid`)."""

    @pytest.mark.parametrize(
        "tool_order",
        [
            pytest.param(["a", MARKER, "a"], id="duplicate-name"),
            pytest.param(["a", "b"], id="no-marker"),
            pytest.param([MARKER, "a", MARKER], id="two-markers"),
            pytest.param([], id="empty-list"),
        ],
    )
    def test_invalid_tool_order_is_rejected_at_load(self, tool_order: list[str]) -> None:
        assert load_error({"toolOrder": tool_order}).kind == "tool-order-invalid"

    @pytest.mark.parametrize(
        "tool_order",
        [[MARKER], ["a", MARKER], [MARKER, "a"], ["b", MARKER, "a", "ghost"]],
    )
    def test_exactly_one_marker_and_no_duplicates_is_accepted(self, tool_order: list[str]) -> None:
        assert list(PromptConfig.load({"toolOrder": tool_order}).tool_order) == tool_order
