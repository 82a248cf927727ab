"""How a found divergence in an assembly is filed (`dsh_conformance.fuzz.found.contracts_of`): by
the error kinds when one side failed, by the field that differs otherwise (issue 21: the written
case names the contract of the rule it breaks)."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.fuzz.engine import Divergence
from dsh_conformance.fuzz.found import contracts_of
from dsh_conformance.fuzz.oracles import differences

ASSEMBLE = {"op": "assemble", "assembly": "x", "scope": None, "expect": {}}


def _assembly(*tools: str) -> dict[str, Any]:
    schemas = [{"name": name, "description": "", "parameters": {}} for name in tools]
    return {"assembly": {"sections": [], "contexts": [], "tools": schemas, "variables": {}}}


def _filed(expected: Any, observed: Any) -> tuple[str, ...]:
    found = differences([ASSEMBLE], [expected], [observed])
    assert found, "the two observations must differ"
    divergence = Divergence("registry", [ASSEMBLE], [expected], [observed], found, [])
    return contracts_of(divergence)


@pytest.mark.parametrize("kind", ["tool-order-unknown-name", "reserved-tool-name"])
def test_a_tool_order_failure_on_either_side_is_the_tool_orders(kind: str) -> None:
    error = {"error": {"kind": kind}}
    assert _filed(error, _assembly("t")) == ("PROMPT-TOOL-ORDER",)
    assert _filed(_assembly("t"), error) == ("PROMPT-TOOL-ORDER",)


def test_another_failure_is_the_pipelines_whatever_the_assembly_holds() -> None:
    # The expected assembly holds tools: the words of either side decide nothing.
    failed = {"error": {"kind": "scripted-failure"}}
    assert _filed(_assembly("tool"), failed) == ("PROMPT-ASSEMBLY-PIPELINE",)
    assert _filed(failed, _assembly("tool")) == ("PROMPT-ASSEMBLY-PIPELINE",)


def test_tools_in_another_order_are_the_tool_orders() -> None:
    assert _filed(_assembly("a", "b"), _assembly("b", "a")) == ("PROMPT-TOOL-ORDER",)


def test_other_tools_are_also_the_pipelines() -> None:
    # Which tools an assembly holds is decided by step 3 (the providers read) as well.
    filed = _filed(_assembly("a"), _assembly("a", "b"))
    assert set(filed) == {"PROMPT-TOOL-ORDER", "PROMPT-ASSEMBLY-PIPELINE"}
