"""PROMPT-STRICT-RENDER: the `{{name}}` grammar, its failures, and how sections are joined.

Every expected value below is worked out by hand from CONTRACTS.md, PROMPT-STRICT-RENDER and the
"Literal constants" table.
"""

from __future__ import annotations

import pytest

from dsh_reference import (
    Assembly,
    ContractError,
    PromptText,
    interpolate,
    join_context_sections,
    render_context_sections,
    render_prompt,
)

MALFORMED = "render-malformed-reference"
UNKNOWN = "render-unknown-variable"
UNDEFINED = "render-undefined-variable"
PREAMBLE = "Current runtime context. This snapshot supersedes earlier runtime-context snapshots."


def render_error(text: str, variables: dict[str, str | None] | None = None) -> ContractError:
    with pytest.raises(ContractError) as info:
        interpolate(text, variables or {}, where="sec")
    return info.value


def texts(*pairs: tuple[str, str]) -> list[PromptText]:
    return [PromptText(name, text) for name, text in pairs]


class TestPromptStrictRenderGroups:
    """PROMPT-STRICT-RENDER: well-formed `{{name}}` groups."""

    def test_group_is_replaced_by_the_variable_value(self) -> None:
        assert interpolate("Hi {{name}}, bye", {"name": "Ann"}, where="s") == "Hi Ann, bye"

    def test_adjacent_and_repeated_groups_are_all_replaced(self) -> None:
        assert interpolate("{{a}}{{b}}{{a}}", {"a": "x", "b": "y"}, where="s") == "xyx"

    def test_name_grammar_allows_digits_and_underscores_after_first_letter(self) -> None:
        assert interpolate("[{{a_1b}}]", {"a_1b": "ok"}, where="s") == "[ok]"

    def test_text_without_braces_is_unchanged(self) -> None:
        assert interpolate("plain text", {}, where="s") == "plain text"

    def test_single_braces_are_literal(self) -> None:
        assert interpolate("{name} {x}", {"name": "N"}, where="s") == "{name} {x}"

    def test_substituted_value_is_not_rescanned(self) -> None:
        assert interpolate("[{{a}}]", {"a": "{{x}}"}, where="s") == "[{{x}}]"

    def test_values_forming_braces_together_stay_literal(self) -> None:
        variables = {"o": "{{", "c": "}}"}
        assert interpolate("{{o}}name{{c}}", variables, where="s") == "{{name}}"

    def test_registered_constructor_renders_its_value(self) -> None:
        assert interpolate("{{constructor}}", {"constructor": "C"}, where="s") == "C"

    def test_empty_value_renders_as_empty(self) -> None:
        assert interpolate("a{{e}}b", {"e": ""}, where="s") == "ab"


class TestPromptStrictRenderLiteralBraces:
    """PROMPT-STRICT-RENDER: `{{` with no later `}}` is literal; a stray `}}` alone is literal."""

    @pytest.mark.parametrize(
        "text",
        ["{{", "a {{ b", "x {{", "{{{{", "{{ one {{ two", "{{}", "{{name"],
    )
    def test_open_without_any_later_close_is_literal(self, text: str) -> None:
        assert interpolate(text, {"name": "N"}, where="s") == text

    def test_lone_open_after_a_group_is_literal(self) -> None:
        assert interpolate("{{name}} and {{ lone", {"name": "V"}, where="s") == "V and {{ lone"

    def test_close_without_open_is_literal(self) -> None:
        assert interpolate("a }} b {{name}} }}", {"name": "V"}, where="s") == "a }} b V }}"


class TestPromptStrictRenderFailures:
    """PROMPT-STRICT-RENDER: malformed, unknown and undefined references."""

    @pytest.mark.parametrize(
        "text",
        [
            pytest.param("{{}}", id="empty-name"),
            pytest.param("{{ name }}", id="spaces-around-name"),
            pytest.param("{{{model}}}", id="triple-braces"),
            pytest.param("{{Name}}", id="uppercase"),
            pytest.param("{{1a}}", id="leading-digit"),
            pytest.param("{{a-b}}", id="hyphen"),
            pytest.param("{{_a}}", id="leading-underscore"),
            pytest.param("{{name\n}}", id="trailing-newline"),
            pytest.param("{{x} and later }}", id="stray-close-later"),
            pytest.param("{{ lone {{name}}", id="lone-open-before-a-group"),
            pytest.param("{{{{name}}", id="double-open"),
        ],
    )
    def test_malformed_reference(self, text: str) -> None:
        assert render_error(text, {"name": "N", "model": "M"}).kind == MALFORMED

    def test_grammar_is_checked_before_registration(self) -> None:
        assert render_error("{{Name}}", {"Name": "registered anyway"}).kind == MALFORMED

    @pytest.mark.parametrize("name", ["constructor", "items", "get", "missing"])
    def test_unregistered_name_is_unknown(self, name: str) -> None:
        assert render_error("{{" + name + "}}", {"other": "x"}).kind == UNKNOWN

    def test_registered_variable_without_value_is_undefined(self) -> None:
        assert render_error("a {{v}} b", {"v": None}).kind == UNDEFINED

    @pytest.mark.parametrize(
        ("text", "kind"),
        [
            ("{{nope}} {{Bad}}", UNKNOWN),
            ("{{Bad}} {{nope}}", MALFORMED),
            ("{{undef}} {{nope}}", UNDEFINED),
            ("{{nope}} {{undef}}", UNKNOWN),
            ("{{ok}} {{x} {{nope}}", MALFORMED),
            ("{{ok}} {{nope}} {{", UNKNOWN),
        ],
    )
    def test_first_failing_reference_left_to_right_decides(self, text: str, kind: str) -> None:
        assert render_error(text, {"ok": "fine", "undef": None}).kind == kind

    def test_error_names_where_it_happened(self) -> None:
        with pytest.raises(ContractError) as info:
            interpolate("{{nope}}", {}, where="plugin:section")
        assert info.value.where == "plugin:section"


class TestPromptStrictRenderJoin:
    """PROMPT-STRICT-RENDER: render drops empty sections and joins with a blank line."""

    def test_sections_join_with_blank_line_and_empty_renderings_drop(self) -> None:
        assembly = Assembly(
            sections=texts(("a", "A"), ("e", ""), ("v", "{{empty}}"), ("b", "B {{x}}")),
            variables={"empty": "", "x": "X"},
        )
        assert render_prompt(assembly) == "A\n\nB X"

    def test_all_empty_sections_render_to_empty_string(self) -> None:
        assembly = Assembly(sections=texts(("a", ""), ("b", "{{e}}")), variables={"e": ""})
        assert render_prompt(assembly) == ""

    def test_no_sections_render_to_empty_string(self) -> None:
        assert render_prompt(Assembly()) == ""

    def test_failing_section_is_named(self) -> None:
        assembly = Assembly(sections=texts(("ok", "fine"), ("bad", "{{nope}}")))
        with pytest.raises(ContractError) as info:
            render_prompt(assembly)
        assert (info.value.kind, info.value.where) == (UNKNOWN, "bad")

    def test_first_failing_section_decides(self) -> None:
        assembly = Assembly(sections=texts(("first", "{{Bad}}"), ("second", "{{nope}}")))
        with pytest.raises(ContractError) as info:
            render_prompt(assembly)
        assert (info.value.kind, info.value.where) == (MALFORMED, "first")

    def test_context_sections_are_interpolated_and_empty_ones_dropped(self) -> None:
        assembly = Assembly(
            contexts=texts(("c1", "now {{t}}"), ("c2", ""), ("c3", "{{e}}"), ("c4", "D")),
            variables={"t": "12:00", "e": ""},
        )
        rendered = render_context_sections(assembly)
        assert [(c.name, c.text) for c in rendered] == [("c1", "now 12:00"), ("c4", "D")]

    def test_failing_context_is_named(self) -> None:
        assembly = Assembly(contexts=texts(("clock", "{{v}}")), variables={"v": None})
        with pytest.raises(ContractError) as info:
            render_context_sections(assembly)
        assert (info.value.kind, info.value.where) == (UNDEFINED, "clock")

    def test_context_body_has_exact_preamble_and_joiner(self) -> None:
        body = join_context_sections(texts(("c1", "first"), ("c2", "second")))
        assert body == (
            "Current runtime context. This snapshot supersedes earlier runtime-context snapshots."
            "\n\nfirst\n\nsecond"
        )
        assert body.startswith(PREAMBLE + "\n\n")
