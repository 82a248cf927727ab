"""PROMPT-REGISTRY-CONTRACT, DESIGN-SCOPED-LAYERS and PROMPT-SCOPE-SHADOW.

Registrations, change notifications, rejections, the built-in sections, scope chains, shadowing and
ordering. The assembly pipeline itself is pinned in `test_registry_assembly.py`.
"""

from __future__ import annotations

import asyncio
import gc
import math
import weakref
from collections.abc import Callable
from typing import Any

import pytest

from dsh_reference import (
    AssembleContext,
    Assembly,
    Change,
    ContractError,
    PromptConfig,
    PromptRegistry,
    Scope,
    ToolContribution,
    render_prompt,
)

IDENTITY = "harness:identity"
IDENTITY_TEXT = "You are an AI agent powered by DeepSeek Harness."
PERSONA = "deployment:persona"

ROOT = Scope("root")
CHILD = Scope("child", ROOT)
GRANDCHILD = Scope("grandchild", CHILD)
SIBLING = Scope("sibling")


def make(**raw: Any) -> PromptRegistry:
    return PromptRegistry(PromptConfig.load(raw))


def bare(**raw: Any) -> PromptRegistry:
    """A registry without the identity section (the persona section, '' by default, remains)."""
    return make(includeHarnessIdentity=False, **raw)


def assemble(registry: PromptRegistry, scope: Scope | None = None) -> Assembly:
    return asyncio.run(registry.assemble(AssembleContext(scope=scope, agent=scope)))


def pairs(items) -> list[tuple[str, str]]:
    return [(item.name, item.text) for item in items]


def recorded(registry: PromptRegistry) -> list[Change]:
    changes: list[Change] = []
    registry.subscribe(changes.append)
    return changes


def rejected(call: Callable[[], object]) -> str:
    with pytest.raises(ContractError) as info:
        call()
    return info.value.kind


class Counted:
    """A text, variable or tool provider returning ``value`` and counting its calls."""

    def __init__(self, value: Any = "") -> None:
        self.value = value
        self.calls = 0
        self.contexts: list[AssembleContext] = []

    def __call__(self, context: AssembleContext) -> Any:
        self.calls += 1
        self.contexts.append(context)
        return self.value


def watch(seen: list[Scope | None]):
    async def listener(assembly: Assembly, context: AssembleContext, next_) -> Assembly:
        seen.append(context.scope)
        return await next_()

    return listener


# The five registrations, each as (registry, scope, name) -> handle.
REGISTRATIONS: dict[str, Callable[[PromptRegistry, Scope | None, str], Any]] = {
    "section": lambda r, s, n: r.add_section(n, 1, "t", scope=s),
    "context": lambda r, s, n: r.add_context(n, 1, "t", scope=s),
    "variable": lambda r, s, n: r.add_variable(n, Counted("v"), scope=s),
    "tool-provider": lambda r, s, n: r.add_tool_provider(Counted(ToolContribution([])), scope=s),
    "suppressor": lambda r, s, n: r.add_suppressor(scope=s),
}
NAMED = ["section", "context", "variable"]


class TestPromptRegistryContractNotifications:
    """PROMPT-REGISTRY-CONTRACT: one `system-prompt/change` per registration and per release."""

    @pytest.mark.parametrize("scope", [None, CHILD], ids=["global", "scoped"])
    @pytest.mark.parametrize("kind", list(REGISTRATIONS))
    def test_registration_notifies_exactly_once(self, kind: str, scope: Scope | None) -> None:
        registry = make()
        changes = recorded(registry)
        REGISTRATIONS[kind](registry, scope, "name")
        assert len(changes) == 1

    @pytest.mark.parametrize("kind", list(REGISTRATIONS))
    def test_release_notifies_once_and_second_release_is_a_no_op(self, kind: str) -> None:
        registry = make()
        handle = REGISTRATIONS[kind](registry, CHILD, "name")
        changes = recorded(registry)
        handle.release()
        assert len(changes) == 1
        handle.release()
        assert len(changes) == 1

    def test_every_observer_sees_changes_of_every_layer(self) -> None:
        registry = make()
        first, second = recorded(registry), recorded(registry)
        registry.add_section("g", 1, "t")
        registry.add_section("s", 1, "t", scope=SIBLING)
        assert len(first) == len(second) == 2

    def test_released_section_is_no_longer_assembled(self) -> None:
        registry = bare()
        handle = registry.add_section("a", 1, "A")
        handle.release()
        assert pairs(assemble(registry).sections) == [(PERSONA, "")]

    def test_second_release_does_not_remove_a_later_registration_of_the_same_name(self) -> None:
        registry = bare()
        old = registry.add_section("a", 1, "old")
        old.release()
        registry.add_section("a", 1, "new")
        old.release()
        assert ("a", "new") in pairs(assemble(registry).sections)


class FailsOnce:
    """A change observer that throws on its first notification only, recording every one."""

    def __init__(self) -> None:
        self.changes: list[Change] = []

    def __call__(self, change: Change) -> None:
        self.changes.append(change)
        if len(self.changes) == 1:
            raise RuntimeError("observer failed")


class TestPromptRegistryContractNotificationFailure:
    """PROMPT-REGISTRY-CONTRACT: a throwing change notification rolls the registration back."""

    @pytest.mark.parametrize("scope", [None, CHILD], ids=["global", "scoped"])
    @pytest.mark.parametrize("kind", list(REGISTRATIONS))
    def test_registration_is_rolled_back_and_the_error_reaches_the_caller(
        self, kind: str, scope: Scope | None
    ) -> None:
        registry = make()
        observer = FailsOnce()
        registry.subscribe(observer)
        with pytest.raises(RuntimeError, match="observer failed"):
            REGISTRATIONS[kind](registry, scope, "name")
        assert [change.action for change in observer.changes] == ["register", "release"]
        assert assemble(registry, scope) == assemble(make(), scope)
        REGISTRATIONS[kind](registry, scope, "name")  # the name is free again

    def test_a_rolled_back_tool_provider_contributes_nothing(self) -> None:
        registry = bare()
        registry.subscribe(FailsOnce())
        provider = Counted(ToolContribution([{"name": "t", "parameters": {}}]))
        with pytest.raises(RuntimeError):
            registry.add_tool_provider(provider)
        registry.add_tool_provider(provider)
        assert [tool.name for tool in assemble(registry).tools] == ["t"]
        assert provider.calls == 1


class TestScopeDisposal:
    """DESIGN-SCOPED-LAYERS: disposing a scope releases everything it holds, and only that."""

    def test_every_registration_and_listener_of_the_scope_is_released_once(self) -> None:
        registry = bare()
        seen: list[Scope | None] = []
        for kind, register in REGISTRATIONS.items():
            register(registry, CHILD, kind)
        registry.add_section("kept", 1, "K", scope=ROOT)
        registry.add_assemble_listener(watch(seen), scope=CHILD)
        changes = recorded(registry)
        registry.dispose_scope(CHILD)
        assert [change.action for change in changes] == ["release"] * len(REGISTRATIONS)
        assembly = assemble(registry, CHILD)
        assert pairs(assembly.sections) == [(PERSONA, ""), ("kept", "K")]
        assert (assembly.contexts, assembly.tools, assembly.variables, seen) == ([], [], {}, [])
        registry.dispose_scope(CHILD)
        assert len(changes) == len(REGISTRATIONS)

    def test_a_dropped_or_released_handle_is_freed_without_the_cycle_collector(self) -> None:
        """A handle is no reference cycle: with the collector off, dropping it frees it, except
        that a scope keeps its live handles until it is disposed."""
        registry = bare()
        kept = registry.add_section("kept", 1, "K")
        scoped = registry.add_section("scoped", 1, "S", scope=CHILD)
        released = registry.add_section("gone", 1, "G", scope=CHILD)
        released.release()
        refs = [weakref.ref(handle) for handle in (kept, scoped, released)]
        gc.disable()
        try:
            del kept, scoped, released
            assert [ref() is None for ref in refs] == [True, False, True]
            registry.dispose_scope(CHILD)
            assert refs[1]() is None
        finally:
            gc.enable()
        assert pairs(assemble(registry, CHILD).sections) == [(PERSONA, ""), ("kept", "K")]

    def test_a_handle_released_before_disposal_is_not_released_again(self) -> None:
        registry = bare()
        first = registry.add_section("a", 1, "A", scope=CHILD)
        first.release()
        registry.add_section("a", 1, "again", scope=CHILD)
        changes = recorded(registry)
        registry.dispose_scope(CHILD)
        assert len(changes) == 1
        assert pairs(assemble(registry, CHILD).sections) == [(PERSONA, "")]


class TestPromptRegistryContractRejections:
    """PROMPT-REGISTRY-CONTRACT: duplicates, non-finite orders, bad variable names."""

    @pytest.mark.parametrize("scope", [None, CHILD], ids=["global", "scoped"])
    @pytest.mark.parametrize("kind", NAMED)
    def test_duplicate_name_in_same_layer_is_rejected(self, kind: str, scope: Scope | None) -> None:
        registry = make()
        REGISTRATIONS[kind](registry, scope, "dup")
        changes = recorded(registry)
        assert rejected(lambda: REGISTRATIONS[kind](registry, scope, "dup")) == (
            "duplicate-registration"
        )
        assert changes == []

    @pytest.mark.parametrize("kind", NAMED)
    def test_same_name_in_different_layers_is_allowed(self, kind: str) -> None:
        registry = make()
        changes = recorded(registry)
        for scope in (None, ROOT, CHILD, SIBLING):
            REGISTRATIONS[kind](registry, scope, "shared")
        assert len(changes) == 4

    def test_rejected_duplicate_leaves_the_original_in_place(self) -> None:
        registry = bare()
        registry.add_section("a", 1, "original")
        registry.add_context("c", 1, "original context")
        registry.add_variable("v", Counted("original value"))
        for call in (
            lambda: registry.add_section("a", -5, "replacement"),
            lambda: registry.add_context("c", -5, "replacement"),
            lambda: registry.add_variable("v", Counted("replacement")),
        ):
            assert rejected(call) == "duplicate-registration"
        assembly = assemble(registry)
        assert pairs(assembly.sections) == [(PERSONA, ""), ("a", "original")]
        assert pairs(assembly.contexts) == [("c", "original context")]
        assert assembly.variables == {"v": "original value"}

    @pytest.mark.parametrize("name", [IDENTITY, PERSONA])
    def test_built_in_section_names_are_taken_in_the_global_layer(self, name: str) -> None:
        registry = make()
        assert rejected(lambda: registry.add_section(name, 1, "again")) == (
            "duplicate-registration"
        )

    @pytest.mark.parametrize("order", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
    @pytest.mark.parametrize("kind", ["section", "context"])
    def test_non_finite_order_is_rejected_without_change(self, kind: str, order: float) -> None:
        registry = bare()
        add = registry.add_section if kind == "section" else registry.add_context
        changes = recorded(registry)
        for scope in (None, CHILD):
            assert rejected(lambda s=scope: add("x", order, "t", scope=s)) == "invalid-order"
        assert changes == []
        assembly = assemble(registry, CHILD)
        assert pairs(assembly.sections) == [(PERSONA, "")]
        assert assembly.contexts == []

    @pytest.mark.parametrize("order", [10**400, -(10**400), True, "1", None])
    def test_an_order_that_is_no_finite_number_is_rejected(self, order: object) -> None:
        # 10**400 is Infinity as a JavaScript number (the upstream); it must not overflow here.
        registry = bare()
        assert rejected(lambda: registry.add_section("x", order, "t")) == "invalid-order"  # type: ignore[arg-type]

    def test_orders_compare_as_doubles(self) -> None:
        # 2**53 + 1 rounds to the double 2**53, so it ties with 2**53 and keeps map position.
        registry = bare()
        registry.add_section("later-but-bigger-int", 2**53 + 1, "A")
        registry.add_section("equal-as-double", float(2**53), "B")
        assert pairs(assemble(registry).sections)[1:] == [
            ("later-but-bigger-int", "A"),
            ("equal-as-double", "B"),
        ]

    @pytest.mark.parametrize("name", ["Name", "1a", "a-b", "", "a\n", "_a", "a b", "é"])
    def test_invalid_variable_name_is_rejected_without_change(self, name: str) -> None:
        registry = make()
        changes = recorded(registry)
        provider = Counted("x")
        assert rejected(lambda: registry.add_variable(name, provider)) == "invalid-variable-name"
        assert changes == []
        assert assemble(registry).variables == {}
        assert provider.calls == 0

    @pytest.mark.parametrize("name", ["a", "a1", "a_b", "snake_case_2", "x__"])
    def test_grammar_conforming_variable_name_is_accepted(self, name: str) -> None:
        registry = make()
        registry.add_variable(name, Counted("ok"))
        assert assemble(registry).variables == {name: "ok"}


class TestPromptRegistryContractBuiltIns:
    """PROMPT-REGISTRY-CONTRACT: identity and persona are ordinary sections."""

    def test_identity_section_is_present_by_default_with_exact_text(self) -> None:
        assembly = assemble(make())
        assert pairs(assembly.sections) == [(IDENTITY, IDENTITY_TEXT), (PERSONA, "")]

    def test_identity_section_has_order_minus_100(self) -> None:
        registry = make()
        registry.add_section("before", -100.5, "B")
        registry.add_section("after", -99.5, "A")
        names = [s.name for s in assemble(registry).sections]
        assert names == ["before", IDENTITY, "after", PERSONA]

    def test_identity_section_is_absent_when_disabled(self) -> None:
        registry = bare()
        assert IDENTITY not in [s.name for s in assemble(registry).sections]
        assert render_prompt(assemble(registry)) == ""

    def test_default_persona_is_empty_and_dropped_from_render(self) -> None:
        assert render_prompt(assemble(make())) == IDENTITY_TEXT

    def test_configured_persona_is_a_section_at_order_0(self) -> None:
        registry = make(persona="Be brief.")
        registry.add_section("neg", -0.5, "N")
        registry.add_section("pos", 0.5, "P")
        assembly = assemble(registry)
        assert pairs(assembly.sections)[1:] == [("neg", "N"), (PERSONA, "Be brief."), ("pos", "P")]
        assert render_prompt(assembly) == f"{IDENTITY_TEXT}\n\nN\n\nBe brief.\n\nP"

    def test_scoped_section_shadows_identity_for_that_scope_only(self) -> None:
        registry = make()
        registry.add_section(IDENTITY, 50, "Scoped identity.", scope=ROOT)
        assert render_prompt(assemble(registry, CHILD)) == "Scoped identity."
        assert render_prompt(assemble(registry, SIBLING)) == IDENTITY_TEXT

    def test_text_provider_runs_per_assembly_with_the_assembly_context(self) -> None:
        registry = bare()
        provider = Counted("dynamic")
        registry.add_section("d", 1, provider)
        context = AssembleContext(scope=CHILD, agent=CHILD)
        for _ in range(2):
            assert ("d", "dynamic") in pairs(asyncio.run(registry.assemble(context)).sections)
        assert provider.calls == 2
        assert provider.contexts == [context, context]

    def test_async_providers_are_awaited(self) -> None:
        registry = bare()

        async def text(context: AssembleContext) -> str:
            return "async text"

        async def value(context: AssembleContext) -> str:
            return "async value"

        registry.add_section("s", 1, text)
        registry.add_variable("v", value)
        assembly = assemble(registry)
        assert pairs(assembly.sections)[-1] == ("s", "async text")
        assert assembly.variables == {"v": "async value"}


class TestDesignScopedLayers:
    """DESIGN-SCOPED-LAYERS: global layer + scope chain; the nearest layer wins a name."""

    def test_nearest_layer_wins_section_context_and_variable(self) -> None:
        registry = bare()
        for scope, label in ((None, "global"), (ROOT, "root"), (CHILD, "child")):
            registry.add_section("s", 1, f"section {label}", scope=scope)
            registry.add_context("c", 1, f"context {label}", scope=scope)
            registry.add_variable("v", Counted(f"value {label}"), scope=scope)
        for scope, label in (
            (None, "global"),
            (ROOT, "root"),
            (CHILD, "child"),
            (GRANDCHILD, "child"),
        ):
            assembly = assemble(registry, scope)
            assert ("s", f"section {label}") in pairs(assembly.sections)
            assert pairs(assembly.contexts) == [("c", f"context {label}")]
            assert assembly.variables == {"v": f"value {label}"}

    def test_assembly_sees_its_ancestors_but_not_siblings_or_descendants(self) -> None:
        registry = bare()
        for scope in (None, ROOT, CHILD, SIBLING):
            name = scope.name if scope else "global"
            registry.add_section(name, 1, name, scope=scope)
            registry.add_context(name, 1, name, scope=scope)
            registry.add_variable(name, Counted(name), scope=scope)
        assembly = assemble(registry, CHILD)
        assert [s.name for s in assembly.sections] == [PERSONA, "global", "root", "child"]
        assert [c.name for c in assembly.contexts] == ["global", "root", "child"]
        assert list(assembly.variables) == ["global", "root", "child"]
        root_assembly = assemble(registry, ROOT)
        assert [c.name for c in root_assembly.contexts] == ["global", "root"]

    def test_tool_providers_contribute_global_first_then_farthest_to_nearest(self) -> None:
        registry = make()
        calls: list[str] = []

        def tool_provider(label: str):
            def provide(context: AssembleContext) -> ToolContribution:
                calls.append(label)
                return ToolContribution([{"name": label, "parameters": {}}])

            return provide

        for scope, label in ((CHILD, "child"), (SIBLING, "sibling"), (ROOT, "root"), (None, "g")):
            registry.add_tool_provider(tool_provider(label), scope=scope)
        tools = assemble(registry, GRANDCHILD).tools
        assert calls == ["g", "root", "child"]
        assert sorted(tool.name for tool in tools) == ["child", "g", "root"]

    def test_sections_sort_ascending_by_order_including_negative_and_float(self) -> None:
        registry = bare()
        for name, order in (("p25", 2.5), ("m3", -3), ("p01", 0.1), ("m05", -0.5), ("p2", 2)):
            registry.add_section(name, order, name)
        names = [s.name for s in assemble(registry).sections]
        assert names == ["m3", "m05", PERSONA, "p01", "p2", "p25"]

    def test_contexts_sort_ascending_by_order(self) -> None:
        registry = bare()
        for name, order in (("late", 10), ("early", -1.5), ("mid", 0.25)):
            registry.add_context(name, order, name)
        assert [c.name for c in assemble(registry).contexts] == ["early", "mid", "late"]

    def test_equal_orders_keep_effective_map_position(self) -> None:
        registry = bare()
        registry.add_section("a", 1, "global a")
        registry.add_section("b", 1, "global b")
        registry.add_section("c", 1, "child c", scope=CHILD)
        registry.add_section("b", 1, "child b", scope=CHILD)
        registry.add_section("a", 1, "root a", scope=ROOT)
        assembly = assemble(registry, CHILD)
        assert pairs(assembly.sections)[1:] == [("a", "root a"), ("b", "child b"), ("c", "child c")]

    def test_equal_context_orders_keep_effective_map_position(self) -> None:
        registry = bare()
        registry.add_context("x", 0, "global x")
        registry.add_context("y", 0, "global y")
        registry.add_context("z", 0, "scoped z", scope=SIBLING)
        registry.add_context("x", 0, "scoped x", scope=SIBLING)
        assembly = assemble(registry, SIBLING)
        assert pairs(assembly.contexts) == [("x", "scoped x"), ("y", "global y"), ("z", "scoped z")]

    def test_shadowing_entry_with_new_order_moves_by_order(self) -> None:
        registry = bare()
        registry.add_section("a", 1, "A")
        registry.add_section("b", 2, "B")
        registry.add_section("a", 3, "scoped A", scope=CHILD)
        assert pairs(assemble(registry, CHILD).sections)[1:] == [("b", "B"), ("a", "scoped A")]

    def test_unscoped_listener_sees_every_assembly(self) -> None:
        registry = make()
        seen: list[Scope | None] = []
        registry.add_assemble_listener(watch(seen))
        for scope in (None, ROOT, CHILD, SIBLING):
            assemble(registry, scope)
        assert seen == [None, ROOT, CHILD, SIBLING]

    def test_scoped_listener_sees_its_scope_and_descendants_only(self) -> None:
        registry = make()
        seen: list[Scope | None] = []
        registry.add_assemble_listener(watch(seen), scope=ROOT)
        for scope in (None, ROOT, CHILD, GRANDCHILD, SIBLING):
            assemble(registry, scope)
        assert seen == [ROOT, CHILD, GRANDCHILD]


class TestPromptScopeShadow:
    """PROMPT-SCOPE-SHADOW: a shadowed section or context provider is never evaluated."""

    def test_shadowed_global_section_provider_never_runs(self) -> None:
        registry = bare()
        shadowed, nearest = Counted("global"), Counted("scoped")
        registry.add_section("s", 1, shadowed)
        registry.add_section("s", 1, nearest, scope=CHILD)
        assembly = assemble(registry, CHILD)
        assert ("s", "scoped") in pairs(assembly.sections)
        assert (shadowed.calls, nearest.calls) == (0, 1)

    def test_shadowed_context_provider_never_runs(self) -> None:
        registry = bare()
        shadowed, nearest = Counted("global"), Counted("scoped")
        registry.add_context("c", 1, shadowed)
        registry.add_context("c", 1, nearest, scope=CHILD)
        assert pairs(assemble(registry, CHILD).contexts) == [("c", "scoped")]
        assert (shadowed.calls, nearest.calls) == (0, 1)

    def test_providers_shadowed_at_every_level_never_run(self) -> None:
        registry = bare()
        providers = [Counted(label) for label in ("global", "root", "child")]
        for scope, provider in zip((None, ROOT, CHILD), providers, strict=True):
            registry.add_section("s", 1, provider, scope=scope)
        assert ("s", "child") in pairs(assemble(registry, GRANDCHILD).sections)
        assert [p.calls for p in providers] == [0, 0, 1]

    def test_shadowed_provider_runs_again_for_a_scope_that_does_not_shadow_it(self) -> None:
        registry = bare()
        shadowed = Counted("global")
        registry.add_section("s", 1, shadowed)
        registry.add_section("s", 1, "scoped", scope=CHILD)
        assemble(registry, CHILD)
        assert ("s", "global") in pairs(assemble(registry, SIBLING).sections)
        assert shadowed.calls == 1

    def test_scoped_persona_replaces_global_persona_for_that_scope_only(self) -> None:
        registry = make(persona="Global persona.")
        scoped = Counted("Root persona.")
        registry.add_section(PERSONA, 0, scoped, scope=ROOT)
        registry.add_section("tail", 0, "Tail.")
        assert render_prompt(assemble(registry, CHILD)) == (
            f"{IDENTITY_TEXT}\n\nRoot persona.\n\nTail."
        )
        assert render_prompt(assemble(registry, SIBLING)) == (
            f"{IDENTITY_TEXT}\n\nGlobal persona.\n\nTail."
        )
        assert render_prompt(assemble(registry)) == f"{IDENTITY_TEXT}\n\nGlobal persona.\n\nTail."
        assert scoped.calls == 1
