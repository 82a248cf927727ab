"""The suite's tool comparison ignores the order of integer-like keys, and only that.

PROMPT-ASSEMBLY-PIPELINE step 3: "an implementation whose objects put integer-like keys first —
JavaScript's do — may reorder those, so no check depends on the order of integer-like keys".
"""

from __future__ import annotations

from dsh_conformance.judge.case import compare
from dsh_conformance.scenarios.scenario import assembly, schema


def _tools(properties: dict[str, object]) -> list[object]:
    return [schema("t", parameters={"type": "object", "properties": properties})]


def test_integer_like_keys_listed_first_still_match() -> None:
    given = {"b": {}, "10": {}, "a": {}, "2": {}}
    javascript = {"2": {}, "10": {}, "b": {}, "a": {}}
    assert (
        compare(assembly(tools=_tools(given)), {"assembly": {"tools": _tools(javascript)}}) is None
    )


def test_other_keys_out_of_order_still_fail() -> None:
    given = {"b": {}, "10": {}, "a": {}}
    swapped = {"10": {}, "a": {}, "b": {}}
    problem = compare(assembly(tools=_tools(given)), {"assembly": {"tools": _tools(swapped)}})
    assert problem is not None and "key order" in problem


def test_keys_that_only_look_numeric_keep_their_order() -> None:
    # "01" and "4294967295" are no array indices: JavaScript keeps them in insertion order.
    given = {"4294967295": {}, "01": {}}
    swapped = {"01": {}, "4294967295": {}}
    assert compare(assembly(tools=_tools(given)), {"assembly": {"tools": _tools(swapped)}})
