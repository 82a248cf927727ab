"""PROMPT-HEADER-CANONICAL: canonical form, equality, and the offline fold of `request/header`.

Expected values are worked out by hand from CONTRACTS.md, PROMPT-HEADER-CANONICAL.
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_reference import (
    SessionLog,
    canonical_header,
    fold_request_header,
    header_differences,
    headers_equal,
)

CONFIG = {"provider": "deepseek", "model": "deepseek-chat"}
TOOL = {
    "name": "read",
    "description": "Read a file",
    "parameters": {"type": "object", "properties": {}},
}


def header(**fields: Any) -> dict[str, Any]:
    config = {**CONFIG, **fields.pop("config", {})}
    return {"config": config, **fields}


class TestCanonicalForm:
    def test_empty_system_and_tools_become_absent(self) -> None:
        assert canonical_header(header(system="", tools=[])) == {"config": CONFIG}

    def test_adapter_defaults_without_a_true_marker_are_dropped(self) -> None:
        assert canonical_header(header(adapterDefaults={})) == {"config": CONFIG}

    def test_adapter_defaults_with_a_marker_are_kept(self) -> None:
        h = header(config={"maxTokens": 8}, adapterDefaults={"maxTokens": True})
        assert canonical_header(h)["adapterDefaults"] == {"maxTokens": True}

    def test_key_order_is_config_adapter_defaults_system_tools(self) -> None:
        h = {
            "tools": [TOOL],
            "system": "S",
            "adapterDefaults": {"reasoningEffort": True},
            "config": {**CONFIG, "reasoningEffort": "high"},
        }
        assert list(canonical_header(h)) == ["config", "adapterDefaults", "system", "tools"]

    def test_config_is_kept_unchanged_with_its_key_order(self) -> None:
        config = {"maxTokens": 5, "model": "m", "provider": "p", "extra": None}
        assert list(canonical_header({"config": config})["config"]) == list(config)

    def test_the_result_shares_nothing_with_the_input(self) -> None:
        h = header(tools=[dict(TOOL)])
        canonical = canonical_header(h)
        with pytest.raises(TypeError):
            canonical["tools"][0]["name"] = "changed"
        with pytest.raises(TypeError):
            canonical["config"]["model"] = "changed"
        h["tools"][0]["name"] = "changed"
        h["config"]["model"] = "changed"
        assert canonical == canonical_header(header(tools=[TOOL]))

    def test_tools_written_alike_are_taken_from_the_header_in_force(self) -> None:
        in_force = canonical_header(header(tools=[TOOL]))
        canonical = canonical_header(header(tools=[dict(TOOL)]), in_force=in_force)
        assert canonical["tools"] is in_force["tools"]
        assert headers_equal(canonical, in_force)

    @pytest.mark.parametrize(
        "tool",
        [
            {"description": "Read a file", "name": "read", "parameters": TOOL["parameters"]},
            {**TOOL, "parameters": {"type": "object", "properties": {}, "minItems": 1.0}},
        ],
    )
    def test_tools_written_otherwise_are_copied(self, tool: dict[str, Any]) -> None:
        in_force = canonical_header(header(tools=[TOOL]))
        canonical = canonical_header(header(tools=[tool]), in_force=in_force)
        assert canonical["tools"] is not in_force["tools"]
        assert canonical["tools"] == [tool]

    def test_a_number_written_otherwise_is_copied_though_the_headers_are_equal(self) -> None:
        one = {**TOOL, "parameters": {"type": "object", "maxItems": 1}}
        in_force = canonical_header(
            header(tools=[{**one, "parameters": {**one["parameters"], "maxItems": 1.0}}])
        )
        canonical = canonical_header(header(tools=[one]), in_force=in_force)
        assert canonical["tools"] is not in_force["tools"]
        assert canonical["tools"][0]["parameters"]["maxItems"] == 1
        assert type(canonical["tools"][0]["parameters"]["maxItems"]) is int
        assert headers_equal(canonical, in_force)

    def test_a_frozen_header_is_its_own_snapshot(self) -> None:
        canonical = canonical_header(header(system="S", tools=[TOOL]))
        again = canonical_header(canonical)
        assert again == canonical
        assert again["config"] is canonical["config"] and again["tools"] is canonical["tools"]


class TestEquality:
    def test_identical_headers_are_equal(self) -> None:
        assert headers_equal(header(system="S", tools=[TOOL]), header(system="S", tools=[TOOL]))

    @pytest.mark.parametrize(
        "field", ["provider", "model", "reasoningEffort", "temperature", "maxTokens"]
    )
    def test_each_compared_config_field_differs_strictly(self, field: str) -> None:
        a = header(config={field: "x" if field in ("provider", "model", "reasoningEffort") else 1})
        b = header(config={field: "y" if field in ("provider", "model", "reasoningEffort") else 2})
        assert header_differences(a, b) == [f"config.{field}"]

    def test_absent_config_field_differs_from_present(self) -> None:
        assert header_differences(header(), header(config={"temperature": 0})) == [
            "config.temperature"
        ]

    def test_numbers_compare_by_value_but_booleans_are_not_numbers(self) -> None:
        assert headers_equal(header(config={"temperature": 1}), header(config={"temperature": 1.0}))
        assert not headers_equal(
            header(config={"maxTokens": 1}), header(config={"maxTokens": True})
        )

    def test_absent_stop_differs_from_empty_stop(self) -> None:
        assert header_differences(header(), header(config={"stop": []})) == ["config.stop"]

    def test_stop_lists_compare_element_wise_in_order(self) -> None:
        assert headers_equal(
            header(config={"stop": ["a", "b"]}), header(config={"stop": ["a", "b"]})
        )
        assert not headers_equal(
            header(config={"stop": ["a", "b"]}), header(config={"stop": ["b", "a"]})
        )

    def test_other_config_fields_and_config_key_order_are_ignored(self) -> None:
        a = {"config": {"provider": "p", "model": "m", "purpose": "x"}}
        b = {"config": {"model": "m", "provider": "p"}}
        assert headers_equal(a, b)

    def test_markers_must_match(self) -> None:
        a = header(config={"maxTokens": 8}, adapterDefaults={"maxTokens": True})
        b = header(config={"maxTokens": 8})
        assert header_differences(a, b) == ["adapterDefaults.maxTokens"]

    def test_empty_system_equals_absent_system(self) -> None:
        assert headers_equal(header(system=""), header())

    def test_systems_compare_exactly(self) -> None:
        assert header_differences(header(system="a"), header(system="a ")) == ["system"]

    def test_empty_tool_list_equals_absent_tools(self) -> None:
        assert headers_equal(header(tools=[]), header())

    def test_key_order_inside_a_tool_schema_matters(self) -> None:
        reordered = {"parameters": TOOL["parameters"], "name": "read", "description": "Read a file"}
        assert header_differences(header(tools=[TOOL]), header(tools=[reordered])) == ["tools"]

    def test_integer_like_keys_are_ordered_as_javascript_orders_them(self) -> None:
        a = {**TOOL, "parameters": {"b": 1, "2": 2, "1": 3}}
        b = {**TOOL, "parameters": {"1": 3, "b": 1, "2": 2}}
        assert headers_equal(header(tools=[a]), header(tools=[b]))

    def test_tool_order_matters(self) -> None:
        other = {**TOOL, "name": "write"}
        assert not headers_equal(header(tools=[TOOL, other]), header(tools=[other, TOOL]))


class TestFold:
    def test_no_header_event_folds_to_none(self) -> None:
        log = SessionLog()
        log.append("turn/start", {"turn": 1})
        assert fold_request_header(log.events) is None

    def test_the_last_snapshot_wins_canonicalized(self) -> None:
        log = SessionLog()
        log.append("request/header", {"header": header(system="one"), "reason": "initial"})
        log.append("turn/start", {"turn": 1})
        log.append("request/header", {"header": header(system="", tools=[]), "reason": "change"})
        assert fold_request_header(log.events) == {"config": CONFIG}
        assert fold_request_header(log.events[:1]) == {"config": CONFIG, "system": "one"}

    def test_folding_continues_from_a_start(self) -> None:
        start = canonical_header(header(system="S"))
        assert fold_request_header([], start) == start
