"""How the suite compares observations with a case's expectations (`dsh_conformance.judge.case`).

The comparison decides pass or fail for every implementation, so its rules are pinned here:
state ops default to ``{"ok": true}``, assemblies compare only the fields a case names (each one
exactly), errors compare the kind and, when given, ``where``, tools keep ``parameters`` key order.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest

from dsh_conformance.cases import all_cases
from dsh_conformance.judge.case import Case, compare, expected_observation, mismatches
from dsh_conformance.judge.logview import ABSENT
from dsh_conformance.scenarios import scenario as s

PROTOCOL = Path(__file__).parents[2] / "dsh_conformance" / "PROTOCOL.md"
SCHEMA = {"name": "t", "description": "", "parameters": {"b": 1, "a": 2}}


def case(*ops: Any) -> Case:
    return Case(id="c", contracts=("PROMPT-TOOL-ORDER",), why="because", ops=ops)


class TestExpectedObservation:
    def test_state_ops_expect_ok_unless_told(self) -> None:
        assert expected_observation(s.scope("x")) == s.OK
        assert expected_observation(s.section("h", "a", "NaN", "A", expect=s.error("e"))) == {
            "error": {"kind": "e"}
        }

    def test_observing_ops_are_checked_only_when_told(self) -> None:
        assert expected_observation(s.assemble("a")) is None
        assert expected_observation(s.counts()) is None


class TestCompare:
    def test_an_assembly_compares_only_the_named_fields_each_exactly(self) -> None:
        observed = {
            "assembly": {
                "sections": [s.IDENTITY],
                "contexts": [],
                "tools": [],
                "variables": {"x": None},
            }
        }
        assert compare(s.assembly(sections=[s.IDENTITY]), observed) is None
        assert compare(s.assembly(variables={"x": ABSENT}), observed) is not None
        assert compare(s.assembly(sections=[]), observed) is not None

    def test_an_error_matches_on_kind_and_where_never_on_the_message(self) -> None:
        observed = {"error": {"kind": "render-unknown-variable", "where": "sec", "message": "m"}}
        assert compare(s.error("render-unknown-variable"), observed) is None
        assert compare(s.error("render-unknown-variable", where="sec"), observed) is None
        assert "must name 'other'" in str(
            compare(s.error("render-unknown-variable", where="other"), observed)
        )
        assert "got error 'render-unknown-variable'" in str(
            compare(s.error("render-undefined-variable"), observed)
        )

    def test_an_unexpected_error_is_reported_with_its_kind(self) -> None:
        problem = compare(s.OK, {"error": {"kind": "duplicate-registration", "message": "dup"}})
        assert problem is not None and "duplicate-registration" in problem

    def test_evaluations_compare_the_named_ids_and_the_change_count(self) -> None:
        observed = {"evaluations": {"p": 1, "q": 0}, "changes": 3}
        assert compare(s.evaluations(p=1), observed) is None
        assert compare(s.evaluations(changes=3, q=0), observed) is None
        assert compare(s.evaluations(p=2), observed) is not None
        assert compare(s.evaluations(changes=2), observed) is not None

    def test_tools_keep_parameters_key_order_but_not_the_schema_key_order(self) -> None:
        reordered_schema = {"parameters": {"b": 1, "a": 2}, "description": "", "name": "t"}
        reordered_parameters = {**SCHEMA, "parameters": {"a": 2, "b": 1}}
        assert (
            compare(s.assembly(tools=[SCHEMA]), {"assembly": {"tools": [reordered_schema]}}) is None
        )
        problem = compare(
            s.assembly(tools=[SCHEMA]), {"assembly": {"tools": [reordered_parameters]}}
        )
        assert problem is not None and "lost the provider's key order" in problem


class TestCompareSessionObservations:
    """The `session` capability's observations (PROTOCOL.md, "The `session` capability")."""

    def test_messages_compare_as_json_text(self) -> None:
        message = {"id": "u", "role": "user", "content": [], "source": {"kind": "user"}}
        reordered = {"role": "user", "id": "u", "content": [], "source": {"kind": "user"}}
        assert compare(s.messages(message), {"messages": [message]}) is None
        problem = compare(s.messages(message), {"messages": [reordered]})
        assert problem is not None and "key order" in problem

    def test_headers_compare_config_by_value_and_tools_as_json_text(self) -> None:
        header = {"config": {"provider": "p", "model": "m"}, "tools": [SCHEMA]}
        config_reordered = {**header, "config": {"model": "m", "provider": "p"}}
        tool_reordered = {**header, "tools": [{**SCHEMA, "parameters": {"a": 2, "b": 1}}]}
        assert compare(s.header(header), {"header": config_reordered}) is None
        assert compare(s.header(header), {"header": tool_reordered}) is not None
        assert compare(s.header(header), {"header": {**header, "system": "S"}}) is not None

    def test_a_header_tool_schema_keeps_its_own_key_order(self) -> None:
        """PROTOCOL.md, HEADER: "each tool schema as JSON text (its key order counts)": unlike an
        assembly's tools, whose schema keys a harness orders itself."""
        header = {"config": {"provider": "p", "model": "m"}, "tools": [SCHEMA]}
        schema_reordered = {key: SCHEMA[key] for key in reversed(list(SCHEMA))}
        assert list(schema_reordered) != list(SCHEMA)
        problem = compare(s.header(header), {"header": {**header, "tools": [schema_reordered]}})
        assert problem is not None and "header" in problem
        assert compare(s.header(header), {"header": {**header, "tools": [dict(SCHEMA)]}}) is None

    def test_none_is_null_or_a_missing_key(self) -> None:
        assert compare(s.header(None), {"header": None}) is None
        assert compare(s.header(None), {}) is None
        assert compare(s.proposed(None), {}) is None
        assert compare(s.proposed(None), {"message": {"role": "user"}}) is not None
        assert compare(s.header({"config": {}}), {}) is not None

    def test_events_ignore_time(self) -> None:
        expected = s.events({"type": "turn/start", "seq": 0, "data": {"turn": 1}})
        observed = {"events": [{"type": "turn/start", "seq": 0, "time": 17, "data": {"turn": 1}}]}
        assert compare(expected, observed) is None
        assert compare(expected, {"events": []}) is not None
        assert compare(expected, {"events": [{**observed["events"][0], "seq": 1}]}) is not None


class TestMismatches:
    def test_one_observation_per_op_is_required(self) -> None:
        assert mismatches(case(s.scope("x"), s.scope("y")), [s.OK]) == [
            "expected 2 observations (one per op), got 1"
        ]

    def test_each_difference_names_the_op(self) -> None:
        problems = mismatches(
            case(s.scope("x"), s.assemble("a", expect=s.PENDING)), [s.OK, {"assembly": {}}]
        )
        assert len(problems) == 1 and problems[0].startswith("op #1 (assemble a)")

    @pytest.mark.parametrize("contracts", [(), ("NOT-A-CONTRACT",)])
    def test_a_case_must_name_known_contract_ids(self, contracts: tuple[str, ...]) -> None:
        with pytest.raises(ValueError, match="contract IDs"):
            Case(id="c", contracts=contracts, why="w", ops=())


def test_an_assembly_is_compared_only_on_the_variables_the_case_names() -> None:
    """PROTOCOL.md: an assembly's `variables` may list the loop's own variables."""
    expected = s.assembly(variables={"x": "1", "gone": ABSENT, "empty": None})
    own = {"x": "1", "empty": None, "model": "deepseek-chat"}
    assert compare(expected, {"assembly": {"variables": own}}) is None
    for wrong in ({**own, "x": "2"}, {**own, "gone": "here"}, {"x": "1", "model": "m"}):
        assert compare(expected, {"assembly": {"variables": wrong}}) is not None, wrong


def _error_table() -> dict[str, bool]:
    """PROTOCOL.md's table of error kinds: each kind, and whether the table gives its `where`."""
    lines = PROTOCOL.read_text(encoding="utf-8").split("\n## Error kinds\n", 1)[1].splitlines()
    start = lines.index("| kind | from ops | `where` |") + 2
    table: dict[str, bool] = {}
    for line in itertools.takewhile(lambda text: text.startswith("|"), lines[start:]):
        kinds, _ops, where = (cell.strip() for cell in line.strip("|").split(" | "))
        for kind in re.findall(r"`([^`]+)`", kinds):
            table[kind] = where != "—"
    return table


def _expected_errors(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, list | tuple):
        return [error for item in value for error in _expected_errors(item)]
    if not isinstance(value, dict):
        return []
    error = value.get("error")
    # An ERROR has a `kind`; a turn's failure (`{kind: "error", error: {message, code}}`) is none.
    found = [error] if isinstance(error, dict) and "kind" in error else []
    return found + [error for item in value.values() for error in _expected_errors(item)]


def test_every_expected_error_compares_where_exactly_where_the_error_table_gives_it() -> None:
    """Issue 15 §1.5. CONTRACTS.md, "Configuration": "Every error names where it arose:
    PROTOCOL.md's error table says what `where` holds for each kind". A case compares `where` for
    a kind whose row names it, and never for one whose row says —; a kind the table lacks is a gap
    in it (the adapter's own codes, upper case, are one row)."""
    table = _error_table()
    adapter_codes = re.compile(r"[A-Z][A-Z0-9_]*")
    problems = []
    for example in all_cases():
        for error in _expected_errors(list(example.ops)):
            kind = error["kind"]
            gives = table.get(kind, False if adapter_codes.fullmatch(kind) else None)
            if gives is None:
                problems.append(f"{example.id}: {kind} is not in PROTOCOL.md's error table")
            elif gives != ("where" in error):
                problems.append(f"{example.id}: {kind} with where {error.get('where')!r}")
    assert table["config-invalid"] and not table["session-event-invalid"]
    assert problems == []


@pytest.mark.parametrize(
    ("expected", "observed", "holds"),
    [
        ({"message": None}, {"message": None}, True),
        ({"message": None}, {}, True),
        ({"message": None}, {"ok": True}, False),
        ({"header": None}, {}, True),
        ({"header": None}, {"ok": True}, False),
        ({"header": {"config": {}}}, {"ok": True}, False),
        ({"ok": True}, {}, False),
    ],
)
def test_absent_is_none_only_for_an_empty_observation(
    expected: Any, observed: Any, holds: bool
) -> None:
    """Issue 37, H6: `{}` is JavaScript's `{message: undefined}`; `{"ok": true}` is not "none"
    (the `null-or-absent` and `header` rules, COMPARISON.md version 2)."""
    assert (compare(expected, observed) is None) is holds
