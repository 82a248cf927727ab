"""PROMPT-ASSEMBLY-PIPELINE, PROMPT-ASSEMBLY-MUTATION-TEST and PROMPT-VARIABLE-TEST.

The order of `assemble()`, waterfall authority, complete sections, suppression, registry mutation
during assembly, fresh containers and variable evaluation.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from dsh_reference import (
    AssembleContext,
    Assembly,
    ContractError,
    PromptConfig,
    PromptRegistry,
    PromptText,
    Scope,
    ToolContribution,
    render_prompt,
)

PERSONA = "deployment:persona"

ROOT = Scope("root")
CHILD = Scope("child", ROOT)
SIBLING = Scope("sibling")


def bare(**raw: Any) -> PromptRegistry:
    """A registry without the identity section (the persona section, '' by default, remains)."""
    return PromptRegistry(PromptConfig.load({"includeHarnessIdentity": False, **raw}))


def assemble(registry: PromptRegistry, scope: Scope | None = None) -> Assembly:
    return asyncio.run(registry.assemble(AssembleContext(scope=scope, agent=scope)))


def pairs(items) -> list[tuple[str, str]]:
    return [(item.name, item.text) for item in items]


class Counted:
    """A text, variable or tool provider returning ``value`` and counting its calls.

    ``then``, if given, is a side effect run on the first call only.
    """

    def __init__(self, value: Any = "", then: Callable[[], object] | None = None) -> None:
        self.value, self.then, self.calls = value, then, 0

    def __call__(self, context: AssembleContext) -> Any:
        self.calls += 1
        if self.then is not None and self.calls == 1:
            self.then()
        return self.value


def tools_of(*names: str) -> ToolContribution:
    return ToolContribution([{"name": name, "parameters": {}} for name in names])


def editing(edit: Callable[[Assembly], Assembly | None]):
    """A waterfall listener that applies ``edit`` to the assembly and returns the result."""

    async def listener(assembly: Assembly, context: AssembleContext, next_) -> Assembly:
        result = await next_()
        replaced = edit(result)
        return result if replaced is None else replaced

    return listener


class TestPromptAssemblyPipeline:
    """PROMPT-ASSEMBLY-PIPELINE: step order, waterfall authority, final constraints."""

    def test_steps_run_in_contract_order(self) -> None:
        registry = bare()
        events: list[str] = []

        def step(label: str, value: Any):
            return Counted(value, then=lambda: events.append(label))

        # Registered in reverse pipeline order, so registration order cannot explain the result.
        registry.add_assemble_listener(editing(lambda a: events.append("waterfall")))
        registry.add_context("c", 1, step("context", "C"))
        registry.add_section("s", 1, step("section", "S"))
        registry.add_tool_provider(step("tools", tools_of("t")))
        registry.add_variable("v", step("variable", "V"))
        assemble(registry)
        assert events == ["variable", "tools", "section", "context", "waterfall"]

    def test_throwing_provider_rejects_the_whole_assembly(self) -> None:
        registry = bare()
        waterfall: list[Assembly] = []
        registry.add_assemble_listener(editing(waterfall.append))

        def boom(context: AssembleContext) -> str:
            raise RuntimeError("provider failed")

        registry.add_section("s", 1, boom)
        with pytest.raises(RuntimeError, match="provider failed"):
            assemble(registry)
        assert waterfall == []

    def test_sections_and_contexts_come_out_uninterpolated(self) -> None:
        registry = bare()
        registry.add_variable("who", Counted("Ann"))
        registry.add_section("s", 1, "Hello {{who}}")
        registry.add_context("c", 1, "{{who}} is here")
        assembly = assemble(registry)
        assert pairs(assembly.sections)[-1] == ("s", "Hello {{who}}")
        assert pairs(assembly.contexts) == [("c", "{{who}} is here")]
        assert render_prompt(assembly) == "Hello Ann"

    def test_registry_output_is_deterministic(self) -> None:
        registry = bare()
        registry.add_section("s", 1, "S")
        registry.add_context("c", 1, "C")
        registry.add_variable("v", Counted("V"))
        registry.add_tool_provider(Counted(tools_of("b", "a")))
        assert assemble(registry) == assemble(registry)

    def test_only_name_description_and_parameters_are_kept_from_schemas(self) -> None:
        registry = bare()
        schema = {
            "name": "t",
            "description": "a tool",
            "parameters": {"type": "object"},
            "strict": True,
            "extra": 1,
        }
        registry.add_tool_provider(Counted(ToolContribution([schema])))
        (tool,) = assemble(registry).tools
        assert dataclasses.asdict(tool) == {
            "name": "t",
            "description": "a tool",
            "parameters": {"type": "object"},
        }

    def test_waterfall_return_value_is_authoritative(self) -> None:
        registry = bare()
        registry.add_section("a", 1, "A")
        registry.add_section("b", 2, "B")
        replacement = Assembly(
            sections=[PromptText("b", "B2"), PromptText("new", "N")],
            contexts=[PromptText("ctx", "added")],
            variables={"x": "y"},
        )
        registry.add_assemble_listener(editing(lambda a: replacement))
        assembly = assemble(registry)
        assert pairs(assembly.sections) == [("b", "B2"), ("new", "N")]
        assert pairs(assembly.contexts) == [("ctx", "added")]
        assert assembly.variables == {"x": "y"}

    def test_waterfall_may_reorder_sections(self) -> None:
        registry = bare()
        registry.add_section("a", 1, "A")
        registry.add_section("b", 2, "B")
        registry.add_assemble_listener(editing(lambda a: a.sections.reverse()))
        assert render_prompt(assemble(registry)) == "B\n\nA"


class TestPromptAssemblyPipelineComplete:
    """PROMPT-ASSEMBLY-PIPELINE: `complete: true` sections."""

    def test_complete_section_replaces_all_returned_sections(self) -> None:
        registry = PromptRegistry()
        registry.add_section("before", -1, "B")
        registry.add_section("full", 5, "Everything.", complete=True)
        assert pairs(assemble(registry).sections) == [("full", "Everything.")]

    def test_two_effective_complete_sections_fail_before_section_texts(self) -> None:
        registry = bare()
        first, second = Counted("one"), Counted("two")
        registry.add_section("one", 1, first, complete=True)
        registry.add_section("two", 2, second, complete=True, scope=CHILD)
        with pytest.raises(ContractError) as info:
            assemble(registry, CHILD)
        assert info.value.kind == "multiple-complete-sections"
        assert (first.calls, second.calls) == (0, 0)

    def test_complete_section_shadowed_by_non_complete_one_is_not_counted(self) -> None:
        registry = bare()
        registry.add_section("one", 1, "global one", complete=True)
        registry.add_section("two", 2, "two", complete=True)
        registry.add_section("one", 1, "scoped one", scope=CHILD)
        assert pairs(assemble(registry, CHILD).sections) == [("two", "two")]
        with pytest.raises(ContractError) as info:
            assemble(registry, SIBLING)
        assert info.value.kind == "multiple-complete-sections"

    def test_complete_section_removed_by_listener_is_restored(self) -> None:
        registry = bare()
        registry.add_section("other", 1, "O")
        registry.add_section("full", 2, Counted("Full text."), complete=True)
        registry.add_assemble_listener(
            editing(lambda a: dataclasses.replace(a, sections=[PromptText("x", "X")]))
        )
        assert pairs(assemble(registry).sections) == [("full", "Full text.")]

    def test_complete_section_edited_in_place_by_listener_is_restored(self) -> None:
        registry = bare()
        registry.add_section("full", 2, "Full text.", complete=True)

        def tamper(assembly: Assembly) -> None:
            for section in assembly.sections:
                section.name, section.text = "renamed", "tampered"

        registry.add_assemble_listener(editing(tamper))
        assert pairs(assemble(registry).sections) == [("full", "Full text.")]

    def test_complete_section_does_not_skip_other_steps(self) -> None:
        registry = bare()
        variable, context = Counted("V"), Counted("C")
        tools, other = Counted(tools_of("t")), Counted("other")
        waterfall: list[Assembly] = []
        registry.add_variable("v", variable)
        registry.add_context("c", 1, context)
        registry.add_tool_provider(tools)
        registry.add_section("other", 1, other)
        registry.add_section("full", 2, "F", complete=True)
        registry.add_assemble_listener(editing(waterfall.append))
        assembly = assemble(registry)
        assert [variable.calls, context.calls, tools.calls, len(waterfall)] == [1, 1, 1, 1]
        assert (assembly.variables, pairs(assembly.contexts)) == ({"v": "V"}, [("c", "C")])
        assert [tool.name for tool in assembly.tools] == ["t"]


class TestPromptAssemblyPipelineSuppression:
    """PROMPT-ASSEMBLY-PIPELINE: a runtime-context suppressor empties contexts, runs no provider."""

    @staticmethod
    def with_context(registry: PromptRegistry) -> Counted:
        provider = Counted("C")
        registry.add_context("c", 1, provider)
        registry.add_assemble_listener(
            editing(lambda a: a.contexts.append(PromptText("late", "L")))
        )
        return provider

    def test_unsuppressed_contexts_keep_provider_and_listener_output(self) -> None:
        registry = bare()
        provider = self.with_context(registry)
        assert pairs(assemble(registry).contexts) == [("c", "C"), ("late", "L")]
        assert provider.calls == 1

    def test_global_suppressor_empties_contexts_of_every_scope(self) -> None:
        registry = bare()
        provider = self.with_context(registry)
        registry.add_suppressor()
        for scope in (None, CHILD, SIBLING):
            assert assemble(registry, scope).contexts == []
        assert provider.calls == 0

    def test_include_runtime_context_false_suppresses(self) -> None:
        registry = bare(includeRuntimeContext=False)
        provider = self.with_context(registry)
        assert assemble(registry, CHILD).contexts == []
        assert provider.calls == 0

    def test_scoped_suppressor_affects_its_scope_and_descendants_only(self) -> None:
        registry = bare()
        provider = self.with_context(registry)
        registry.add_suppressor(scope=ROOT)
        assert assemble(registry, ROOT).contexts == []
        assert assemble(registry, CHILD).contexts == []
        assert provider.calls == 0
        assert pairs(assemble(registry, SIBLING).contexts) == [("c", "C"), ("late", "L")]
        assert pairs(assemble(registry).contexts) == [("c", "C"), ("late", "L")]

    def test_released_suppressor_no_longer_suppresses(self) -> None:
        registry = bare()
        self.with_context(registry)
        registry.add_suppressor().release()
        assert pairs(assemble(registry).contexts) == [("c", "C"), ("late", "L")]

    def test_suppressor_registered_mid_assembly_applies_from_next_assembly(self) -> None:
        registry = bare()
        provider = self.with_context(registry)
        registry.add_variable("v", Counted("V", then=registry.add_suppressor))
        assert pairs(assemble(registry).contexts) == [("c", "C"), ("late", "L")]
        assert assemble(registry).contexts == []
        assert provider.calls == 1

    def test_suppressor_released_mid_assembly_still_suppresses_that_assembly(self) -> None:
        registry = bare()
        provider = self.with_context(registry)
        suppressor = registry.add_suppressor()
        registry.add_variable("v", Counted("V", then=suppressor.release))
        assert assemble(registry).contexts == []
        assert provider.calls == 0
        assert pairs(assemble(registry).contexts) == [("c", "C"), ("late", "L")]


class TestPromptAssemblyMutationTest:
    """PROMPT-ASSEMBLY-MUTATION-TEST: registry mutation during assembly; fresh containers."""

    def test_tool_provider_registered_by_a_tool_provider_contributes_from_next_assembly(
        self,
    ) -> None:
        registry = bare()
        late = Counted(tools_of("late"))
        registry.add_tool_provider(
            Counted(tools_of("early"), then=lambda: registry.add_tool_provider(late))
        )
        assert [tool.name for tool in assemble(registry).tools] == ["early"]
        assert late.calls == 0
        assert [tool.name for tool in assemble(registry).tools] == ["early", "late"]

    def test_tool_provider_registered_during_variables_contributes_at_once(self) -> None:
        registry = bare()
        registry.add_variable(
            "v", Counted("V", then=lambda: registry.add_tool_provider(Counted(tools_of("t"))))
        )
        assert [tool.name for tool in assemble(registry).tools] == ["t"]

    def test_variable_registered_by_a_tool_provider_is_evaluated_from_next_assembly(self) -> None:
        registry = bare()
        late = Counted("L")
        registry.add_tool_provider(
            Counted(tools_of(), then=lambda: registry.add_variable("late", late))
        )
        assert assemble(registry).variables == {}
        assert late.calls == 0
        assert assemble(registry).variables == {"late": "L"}

    def test_section_registered_by_a_variable_provider_is_in_the_same_assembly(self) -> None:
        registry = bare()
        registry.add_variable("v", Counted("V", then=lambda: registry.add_section("s", 1, "S")))
        assert pairs(assemble(registry).sections) == [(PERSONA, ""), ("s", "S")]

    def test_mutating_returned_tool_parameters_changes_neither_provider_nor_later_assembly(
        self,
    ) -> None:
        registry = bare()
        parameters = {"type": "object", "properties": {"path": {"type": "string"}}}
        schema = {"name": "read", "description": "d", "parameters": parameters}
        contribution = ToolContribution([schema])
        registry.add_tool_provider(lambda context: contribution)  # the SAME dict every time
        first = assemble(registry)
        first.tools[0].parameters["properties"]["path"]["type"] = "integer"
        first.tools[0].parameters["added"] = True
        expected = {"type": "object", "properties": {"path": {"type": "string"}}}
        assert parameters == expected
        assert assemble(registry).tools[0].parameters == expected

    def test_provider_mutating_its_schema_later_does_not_change_an_earlier_assembly(self) -> None:
        registry = bare()
        parameters: dict[str, Any] = {"type": "object", "properties": {}}
        contribution = ToolContribution([{"name": "t", "parameters": parameters}])
        registry.add_tool_provider(lambda context: contribution)
        first = assemble(registry)
        parameters["properties"]["x"] = {"type": "string"}
        assert first.tools[0].parameters == {"type": "object", "properties": {}}

    def test_mutating_returned_containers_does_not_change_a_later_assembly(self) -> None:
        registry = bare()
        registry.add_section("s", 1, "S")
        registry.add_context("c", 1, "C")
        registry.add_tool_provider(Counted(tools_of("t")))
        first = assemble(registry)
        first.sections.append(PromptText("injected", "I"))
        first.sections[0].text = "changed"
        first.contexts.clear()
        first.tools.clear()
        second = assemble(registry)
        assert pairs(second.sections) == [(PERSONA, ""), ("s", "S")]
        assert pairs(second.contexts) == [("c", "C")]
        assert [tool.name for tool in second.tools] == ["t"]


class TestPromptVariableTest:
    """PROMPT-VARIABLE-TEST: variable evaluation, shadowing, undefined values."""

    def test_variable_registered_by_an_earlier_provider_is_evaluated_in_the_same_assembly(
        self,
    ) -> None:
        registry = bare()
        late = Counted("L")
        registry.add_variable(
            "early", Counted("E", then=lambda: registry.add_variable("late", late))
        )
        registry.add_section("s", 1, "{{early}}{{late}}")
        assembly = assemble(registry)
        assert assembly.variables == {"early": "E", "late": "L"}
        assert late.calls == 1
        assert render_prompt(assembly) == "EL"

    def test_variable_registered_into_a_nearer_layer_is_evaluated_in_the_same_assembly(
        self,
    ) -> None:
        registry = bare()
        late = Counted("L")
        registry.add_section("keeps-the-layer", 1, "", scope=CHILD)
        registry.add_variable(
            "early", Counted("E", then=lambda: registry.add_variable("late", late, scope=CHILD))
        )
        assert assemble(registry, CHILD).variables == {"early": "E", "late": "L"}
        assert late.calls == 1

    def test_layer_created_during_the_assembly_is_not_visited(self) -> None:
        registry = bare()
        late = Counted("L")
        registry.add_variable(
            "early", Counted("E", then=lambda: registry.add_variable("late", late, scope=CHILD))
        )
        assert assemble(registry, CHILD).variables == {"early": "E"}
        assert late.calls == 0
        assert assemble(registry, CHILD).variables == {"early": "E", "late": "L"}

    def test_layer_emptied_and_recreated_during_the_assembly_is_not_visited(self) -> None:
        registry = bare()
        handles: dict[str, Any] = {}
        replacement = Counted("new")

        def replace() -> None:
            handles["old"].release()  # CHILD's only registration: the layer is gone
            registry.add_variable("v", replacement, scope=CHILD)

        registry.add_variable("early", Counted("E", then=replace))
        handles["old"] = registry.add_variable("v", Counted("old"), scope=CHILD)
        assert assemble(registry, CHILD).variables == {"early": "E"}
        assert replacement.calls == 0
        assert assemble(registry, CHILD).variables == {"early": "E", "v": "new"}

    def test_self_replacement_in_a_table_of_one_waits_for_the_next_assembly(self) -> None:
        registry = bare()
        registry.add_section("keeps-the-layer", 1, "", scope=CHILD)
        handles: dict[str, Any] = {}
        replacement = Counted("new")

        def replace() -> None:
            handles["old"].release()  # the table's last variable: a new generation starts
            registry.add_variable("v", replacement, scope=CHILD)

        handles["old"] = registry.add_variable("v", Counted("old", then=replace), scope=CHILD)
        assert assemble(registry, CHILD).variables == {"v": "old"}
        assert replacement.calls == 0
        assert assemble(registry, CHILD).variables == {"v": "new"}

    def test_self_replacement_beside_another_variable_is_evaluated_at_once(self) -> None:
        registry = bare()
        handles: dict[str, Any] = {}
        replacement = Counted("new")

        def replace() -> None:
            handles["old"].release()  # "other" remains: the same generation goes on
            registry.add_variable("v", replacement, scope=CHILD)

        handles["old"] = registry.add_variable("v", Counted("old", then=replace), scope=CHILD)
        registry.add_variable("other", Counted("O"), scope=CHILD)
        assert assemble(registry, CHILD).variables == {"v": "new", "other": "O"}
        assert replacement.calls == 1

    def test_variable_released_before_its_turn_is_not_evaluated(self) -> None:
        registry = bare()
        handles: dict[str, Any] = {}
        later = Counted("never")
        registry.add_variable("first", Counted("F", then=lambda: handles["later"].release()))
        handles["later"] = registry.add_variable("later", later)
        assembly = assemble(registry)
        assert later.calls == 0
        assert "later" not in assembly.variables

    def test_shadowed_global_variable_provider_runs_and_is_overwritten(self) -> None:
        registry = bare()
        scoped, shadowed = Counted("scoped"), Counted("global")
        registry.add_variable("v", scoped, scope=CHILD)  # registered first on purpose
        registry.add_variable("v", shadowed)
        assert assemble(registry, CHILD).variables == {"v": "scoped"}
        assert (shadowed.calls, scoped.calls) == (1, 1)

    def test_variables_of_other_scopes_are_not_evaluated(self) -> None:
        registry = bare()
        other = Counted("other")
        registry.add_variable("v", other, scope=SIBLING)
        assert assemble(registry, CHILD).variables == {}
        assert other.calls == 0

    def test_undefined_variable_stays_listed_and_fails_render(self) -> None:
        registry = bare()
        registry.add_variable("v", Counted(None))
        registry.add_section("needs-v", 1, "value: {{v}}")
        assembly = assemble(registry)
        assert assembly.variables == {"v": None}
        with pytest.raises(ContractError) as info:
            render_prompt(assembly)
        assert (info.value.kind, info.value.where) == ("render-undefined-variable", "needs-v")

    def test_unreferenced_undefined_variable_does_not_fail_render(self) -> None:
        registry = bare()
        registry.add_variable("v", Counted(None))
        registry.add_section("s", 1, "no reference")
        assert render_prompt(assemble(registry)) == "no reference"

    def test_registered_constructor_variable_renders_and_unregistered_fails(self) -> None:
        registry = bare()
        registry.add_section("s", 1, "{{constructor}}")
        with pytest.raises(ContractError) as info:
            render_prompt(assemble(registry))
        assert info.value.kind == "render-unknown-variable"
        registry.add_variable("constructor", Counted("built"))
        assert render_prompt(assemble(registry)) == "built"
