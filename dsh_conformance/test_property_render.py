"""Property tests of PROMPT-STRICT-RENDER: templates generated from the grammar, with their result.

Every template is built as a sequence of *pieces* whose rendering (or failure) the rule states
directly, so the expected system string, context snapshot or error is known by construction; the
test never asks the reference model and never scans a template itself. The pieces:

- a *literal run*: text with no ``{{`` (any unicode, astral characters and newlines, stray ``}``
  and ``}}``, a ``{`` followed by a character that is not a brace) renders as itself;
- ``{{name}}`` for a registered variable with a value renders as the value, verbatim (values are
  drawn full of braces, ``{{x}}``, ``}}``, ``{{``: never re-scanned);
- ``{{name}}`` for a grammatical name nobody registered fails ``render-unknown-variable``;
- ``{{name}}`` for a variable whose provider returns no value fails ``render-undefined-variable``;
- ``{{inner}}`` with a brace-free ``inner`` outside the name grammar fails
  ``render-malformed-reference``;
- a *stray* ``{{`` that does not open a group (``{{{``, ``{{a{``, ``{{ a}x``) carries a ``}}`` later
  in the same piece, so it fails ``render-malformed-reference`` whatever else follows;
- a *tail* after every other piece, made of text with no ``}`` at all: a ``{{`` there can neither
  open a group nor see a ``}}`` later, so the whole tail is literal (``{{``, ``{``, ``{{name}``).

The template is a valid prefix, then optionally one failing piece followed by arbitrary text (the
first failing reference decides, nothing after it matters), then the tail. Pieces cannot fuse at
their boundaries: nothing in the prefix ends with ``{``, and nothing in the tail starts with ``}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from .harness.transport import Implementation
from .judge.case import Case
from .run.execute import check
from .scenarios import scenario as s

CONTRACT: Final = "PROMPT-STRICT-RENDER"

RULE: Final = (
    "Interpolation scans left to right for `{{`; at each one: if the text there matches `{{` + "
    "(no `{` or `}` characters) + `}}`, that is a group: its inner name must match the grammar "
    "(else `render-malformed-reference`), must be a registered variable (else "
    "`render-unknown-variable`), and must have a value (else `render-undefined-variable`); the "
    "value is inserted verbatim and never re-scanned; otherwise, if a `}}` occurs anywhere later "
    "in the text, fail `render-malformed-reference`; if not, the `{{` is literal text and "
    "scanning continues after it. References are checked left to right and the first failing "
    "one decides. Failures name the offending section or context."
)
JOIN_RULE: Final = (
    "Render = interpolate every section, drop sections that render to `''`, join with `\\n\\n` "
    "(all empty -> `''`). The context body uses the same interpolation and joiner."
)

#: CONTRACTS.md, "Literal constants": the variable name grammar `^[a-z][a-z0-9_]*$` (the
#: upstream is JavaScript, where `$` does not match before a trailing newline: a full match).
NAME_GRAMMAR: Final = re.compile(r"[a-z][a-z0-9_]*")
JOINER: Final = "\n\n"
MALFORMED: Final = "render-malformed-reference"
UNKNOWN: Final = "render-unknown-variable"
UNDEFINED: Final = "render-undefined-variable"

SECTION_NAME: Final = "property:template"
CONTEXT_NAME: Final = "property:context"

Variables = dict[str, str | None]


@dataclass(frozen=True)
class Piece:
    """Template text with its known outcome: ``failure`` if it fails, else ``rendering``."""

    text: str
    rendering: str = ""
    failure: str | None = None


@dataclass(frozen=True)
class Template:
    """A whole template: ``failure`` (an error kind) if it fails, else its ``rendering``."""

    text: str
    rendering: str | None
    failure: str | None


# -- characters and names -------------------------------------------------------------------

#: Any character but a brace or a lone surrogate, with the interesting ones made likely.
_BRACE_FREE_CHAR: Final = st.one_of(
    st.characters(exclude_characters="{}", exclude_categories=("Cs",)),
    st.sampled_from(["\n", "\r", "\t", " ", "é", "\uffff", "\U0001f600", "\U0010ffff", "$", "\\"]),
)
_BRACE_FREE_TEXT: Final = st.text(_BRACE_FREE_CHAR, max_size=6)
_NON_BRACE_CHAR: Final = _BRACE_FREE_CHAR

#: Grammatical names, among them names an object prototype would "have" in JavaScript.
_PROTOTYPE_NAMES: Final = ("constructor", "hasownproperty", "valueof", "tostring", "prototype")
_VALID_NAMES: Final = st.one_of(
    st.sampled_from(("a", "model", "x_1", *_PROTOTYPE_NAMES)),
    st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True),
)
#: Brace-free texts outside the grammar: empty, spaces, uppercase, leading digit or underscore,
#: dash, non-ASCII letters, a trailing newline (`$` of a JavaScript regex does not match there).
_MALFORMED_INNERS: Final = st.one_of(
    st.sampled_from(
        (
            "",
            " ",
            " name ",
            "Name",
            "a\n",
            "toString",
            "__proto__",
            "a.b",
            "café",
            "\uff41",  # FULLWIDTH LATIN SMALL LETTER A
            "a\u0301",
        )
    ),
    st.tuples(st.sampled_from(("_", "1", " ", "A", "\u00e9", "\n", "-")), _VALID_NAMES).map(
        "".join
    ),
    st.tuples(_VALID_NAMES, st.sampled_from((" ", "-x", "\u00e9", "A", "\t"))).map("".join),
    _VALID_NAMES.map(lambda name: name + "\n"),  # re.match(r"^...$") would accept it
    _BRACE_FREE_TEXT.filter(lambda inner: NAME_GRAMMAR.fullmatch(inner) is None),
)
_VALUES: Final = st.one_of(
    st.sampled_from(("", "{{x}}", "{{a}}", "}}", "{{", "{{{a}}}", "{", "}", "{{ a }}")),
    st.text(st.one_of(_BRACE_FREE_CHAR, st.sampled_from("{}")), max_size=8),
)


@st.composite
def _variable_tables(draw: st.DrawFn) -> Variables:
    """Registered variables: name -> value, ``None`` for "registered, no value".

    Values may hold a reference to another registered variable: inserted verbatim, it must
    stay literal.
    """
    variables: Variables = {}
    for name in draw(st.lists(_VALID_NAMES, unique=True, min_size=1, max_size=4)):
        defined = [known for known, value in variables.items() if value is not None]
        references = [_group(known) for known in defined]
        holding_a_reference = st.sampled_from(references or [""])
        values = st.one_of(st.none(), _VALUES, holding_a_reference, holding_a_reference)
        variables[name] = draw(values)
    return variables


# -- pieces ---------------------------------------------------------------------------------


def _group(inner: str) -> str:
    return "{{" + inner + "}}"


def _literal_pieces() -> st.SearchStrategy[Piece]:
    """Text without ``{{``: brace-free runs, ``}``, ``}}``, and ``{`` + a non-brace character."""
    atoms = st.one_of(
        _BRACE_FREE_TEXT.filter(bool),
        st.sampled_from(("}", "}}")),
        _NON_BRACE_CHAR.map(lambda char: "{" + char),
    )
    return st.lists(atoms, min_size=1, max_size=3).map("".join).map(lambda t: Piece(t, t))


def _reference_pieces(variables: Variables) -> st.SearchStrategy[Piece] | None:
    with_value = sorted(name for name, value in variables.items() if value is not None)
    if not with_value:
        return None
    # Values with braces are the interesting ones: make them likely.
    braced = [name for name in with_value if "{" in (variables[name] or "")]
    names = st.one_of(st.sampled_from(with_value), st.sampled_from(braced or with_value))
    return names.map(lambda name: Piece(_group(name), variables[name] or ""))


def _valid_pieces(variables: Variables) -> st.SearchStrategy[Piece]:
    references = _reference_pieces(variables)
    literals = _literal_pieces()
    return literals if references is None else st.one_of(literals, references, references)


@st.composite
def _failing_pieces(draw: st.DrawFn, variables: Variables) -> Piece | None:
    """``None`` (the template renders) or one failing piece.

    The outcome is drawn first, so that every kind of failure is frequent.
    """
    undefined = sorted(name for name, value in variables.items() if value is None)
    kinds = ["renders", "stray", "malformed", "unknown", "renders"]
    kind = draw(st.sampled_from([*kinds, "undefined"] if undefined else kinds))
    if kind == "renders":
        return None
    event(f"fails: {kind}")
    if kind == "unknown":
        names = st.one_of(st.sampled_from(_PROTOTYPE_NAMES), _VALID_NAMES)
        return Piece(
            _group(draw(names.filter(lambda name: name not in variables))), failure=UNKNOWN
        )
    if kind == "undefined":
        return Piece(_group(draw(st.sampled_from(undefined))), failure=UNDEFINED)
    if kind == "malformed":
        return Piece(_group(draw(_MALFORMED_INNERS)), failure=MALFORMED)
    return draw(_stray_pieces())


def _stray_pieces() -> st.SearchStrategy[Piece]:
    """A ``{{`` that opens no group, then anything, then a ``}}``: always malformed."""
    opening = st.one_of(
        st.just("{{{"),
        _BRACE_FREE_TEXT.map(lambda inner: "{{" + inner + "{"),
        st.tuples(_BRACE_FREE_TEXT, _NON_BRACE_CHAR).map(lambda p: "{{" + p[0] + "}" + p[1]),
    )
    closing = st.sampled_from(("}}", "}}}"))
    return st.tuples(opening, _noise(), closing).map(
        lambda parts: Piece("".join(parts), failure=MALFORMED)
    )


def _noise() -> st.SearchStrategy[str]:
    """Arbitrary short text, braces and references included."""
    chunks = st.one_of(
        st.text(st.one_of(_BRACE_FREE_CHAR, st.sampled_from("{}")), max_size=4),
        st.sampled_from(("{{a}}", "{{", "}}", "{{Name}}", "{{{model}}}", "{{constructor}}")),
    )
    return st.lists(chunks, max_size=3).map("".join)


def _tail() -> st.SearchStrategy[str]:
    """Text with no ``}}`` and not starting with ``}``: every ``{{`` in it is literal."""
    atoms = st.one_of(
        _BRACE_FREE_TEXT.filter(bool),
        st.sampled_from(("{", "{{", "{{{")),
        st.tuples(_BRACE_FREE_TEXT, _NON_BRACE_CHAR).map(lambda p: "{{" + p[0] + "}" + p[1]),
    )
    return st.lists(atoms, max_size=3).map("".join)


# -- templates ------------------------------------------------------------------------------


@st.composite
def _templates(draw: st.DrawFn, variables: Variables, *, may_fail: bool = True) -> Template:
    prefix = draw(st.lists(_valid_pieces(variables), max_size=4))
    failing = draw(_failing_pieces(variables)) if may_fail else None
    after = draw(_noise()) if failing is not None else ""
    tail = draw(_tail())
    text = "".join(piece.text for piece in prefix)
    if failing is not None:
        return Template(text + failing.text + after + tail, None, failing.failure)
    event("renders" + (", with a literal '{{' in the tail" if "{{" in tail else ""))
    rendering = "".join(piece.rendering for piece in prefix) + tail
    return Template(text + tail, rendering, None)


@st.composite
def _render_scenarios(draw: st.DrawFn) -> tuple[Variables, Template]:
    variables = draw(_variable_tables())
    return variables, draw(_templates(variables))


@st.composite
def _joined_scenarios(draw: st.DrawFn) -> tuple[Variables, list[Template], list[float]]:
    variables = dict(draw(_variable_tables()))
    empties = [Template("", "", None)]
    if draw(st.booleans()):
        variables["empty"] = ""  # a reference to it renders to ''
        empties.append(Template("{{empty}}", "", None))
    template = st.one_of(st.sampled_from(empties), _templates(variables, may_fail=False))
    templates = draw(st.lists(template, min_size=1, max_size=4))
    start = draw(st.integers(-20, 20))
    steps = draw(st.lists(st.integers(1, 5), min_size=len(templates), max_size=len(templates)))
    orders = [(start + sum(steps[: index + 1])) / 2 for index in range(len(templates))]
    return variables, templates, orders


def _variable_ops(variables: Variables) -> list[s.Json]:
    return [
        s.variable(f"var-{index}", name, s.provider(value))
        for index, (name, value) in enumerate(variables.items())
    ]


def _context_expectation(entries: list[tuple[str, str]]) -> s.Json:
    """``render-context``: the non-empty rendered contexts, and the snapshot text."""
    kept = [(name, text) for name, text in entries if text]
    body = JOINER.join(text for _, text in kept)
    return {
        "sections": [s.entry(name, text) for name, text in kept],
        "text": s.RUNTIME_CONTEXT_PREAMBLE + JOINER + body if body else "",
    }


# -- the properties -------------------------------------------------------------------------


@pytest.mark.contract(CONTRACT)
@given(_render_scenarios())
def test_render_follows_the_grammar(
    impl: Implementation, generated: tuple[Variables, Template]
) -> None:
    """PROMPT-STRICT-RENDER: one template, as the only non-empty section and as a context.

    The identity section is configured away and the persona is ``''`` (dropped), so the system
    string is exactly the rendered template; the expected rendering or error kind is the one
    the template's pieces were built with, and the error names the section or the context.
    """
    variables, template = generated
    if template.failure is not None:
        expect_render = s.error(template.failure, where=SECTION_NAME)
        expect_context = s.error(template.failure, where=CONTEXT_NAME)
    else:
        assert template.rendering is not None
        expect_render = s.text(template.rendering)
        expect_context = _context_expectation([(CONTEXT_NAME, template.rendering)])
    case = Case(
        id="property/render-grammar",
        contracts=(CONTRACT,),
        why=RULE,
        ops=(
            s.configure({"includeHarnessIdentity": False}),
            *_variable_ops(variables),
            s.section("template-section", SECTION_NAME, 1, template.text),
            s.context("template-context", CONTEXT_NAME, 1, template.text),
            s.assemble("a"),
            s.render("a", expect=expect_render),
            s.render_context("a", expect=expect_context),
        ),
    )
    check(impl, case)


@pytest.mark.contract(CONTRACT)
@given(_joined_scenarios())
def test_render_drops_empty_sections_and_joins_the_rest(
    impl: Implementation, generated: tuple[Variables, list[Template], list[float]]
) -> None:
    """PROMPT-STRICT-RENDER: several sections (and contexts) that each render, maybe to ``''``.

    Each template renders to a string known by construction (possibly ``''``, also through a
    reference to an empty value); with distinct increasing orders the system string is the
    non-empty renderings joined with ``\\n\\n`` (``''`` if none), and the context snapshot is the
    preamble, the joiner and the same join of the non-empty contexts.
    """
    variables, templates, orders = generated
    renderings = [template.rendering or "" for template in templates]
    if not any(renderings):
        event("every section renders to ''")
    elif not all(renderings):
        event("some sections render to ''")
    registrations: list[s.Json] = []
    for index, (template, order) in enumerate(zip(templates, orders, strict=True)):
        registrations.append(s.section(f"section-{index}", f"s{index}", order, template.text))
        registrations.append(s.context(f"context-{index}", f"c{index}", order, template.text))
    case = Case(
        id="property/render-joiner",
        contracts=(CONTRACT,),
        why=JOIN_RULE,
        ops=(
            s.configure({"includeHarnessIdentity": False}),
            *_variable_ops(variables),
            *registrations,
            s.assemble("a"),
            s.render("a", expect=s.text(JOINER.join(text for text in renderings if text))),
            s.render_context(
                "a",
                expect=_context_expectation(
                    [(f"c{index}", text) for index, text in enumerate(renderings)]
                ),
            ),
        ),
    )
    check(impl, case)
