"""PROMPT-STRICT-RENDER: the `{{name}}` grammar, its failures, the joiner, render-context.

Most cases configure the identity away, so the rendered text is exactly the case's own sections
(the default persona is '' and renders to nothing).
"""

from __future__ import annotations

from ..judge.case import Case
from ..scenarios import scenario as s
from ..scenarios.scenario import Json

RENDER = ("PROMPT-STRICT-RENDER",)
MALFORMED = "render-malformed-reference"
UNKNOWN = "render-unknown-variable"
UNDEFINED = "render-undefined-variable"
GROUP_RULE = (
    "A `{{` followed by no `{`/`}` characters and `}}` is a group; its inner name must match "
    "^[a-z][a-z0-9_]*$ (else render-malformed-reference)"
)


def _render(
    case_id: str,
    why: str,
    body: str,
    expect: Json,
    *,
    variables: dict[str, str | None] | None = None,
) -> Case:
    """One section `body` with the given variables (no identity); render it."""
    return Case(
        id=f"render/{case_id}",
        contracts=RENDER,
        why=why,
        ops=(
            s.configure({"includeHarnessIdentity": False}),
            *[
                s.variable(f"var-{name}", name, s.provider(value))
                for name, value in (variables or {}).items()
            ],
            s.section("body", "body", 1, body),
            s.assemble("a", expect=s.assembly(sections=[s.EMPTY_PERSONA, s.entry("body", body)])),
            s.render("a", expect=expect),
        ),
    )


def _each_fails(case_id: str, why: str, kind: str, bodies: dict[str, str]) -> Case:
    """Each body as the only extra section of its own scope; each render fails with `kind`."""
    ops: list[Json] = [s.variable("var-name", "name", s.provider("Ann"))]
    for where, body in bodies.items():
        ops += [
            s.scope(where),
            s.section(where, where, 1, body, layer=where),
            s.assemble(where, where),
            s.render(where, expect=s.error(kind, where=where)),
        ]
    return Case(id=f"render/{case_id}", contracts=RENDER, why=why, ops=tuple(ops))


def _contexts(*entries: tuple[str, int, str]) -> list[Json]:
    return [s.context(name, name, order, text) for name, order, text in entries]


#: Many lone `{{` (each followed by a single `}`, never by `}}`): every one is literal text.
CASES: list[Case] = [
    _render(
        "interpolates-registered-variables",
        "A group whose name is a registered variable with a value is replaced by the value; "
        "adjacent groups each interpolate and a single trailing `}` is plain text.",
        "Hi {{name}}! {{a}}{{b}}}",
        s.text("Hi Ann! 12}"),
        variables={"name": "Ann", "a": "1", "b": "2"},
    ),
    _render(
        "constructor-unregistered-is-unknown",
        "The name must be a registered variable — an own key, never an inherited/prototype "
        "name such as `constructor` (else render-unknown-variable).",
        "{{constructor}}",
        s.error(UNKNOWN, where="body"),
    ),
    _render(
        "constructor-registered-is-a-value",
        "`constructor` matches the grammar; registered as an own key, it renders its value.",
        "<{{constructor}}>",
        s.text("<C>"),
        variables={"constructor": "C"},
    ),
    _each_fails(
        "unregistered-names-are-unknown",
        "A well-formed name that is not a registered variable is render-unknown-variable; "
        "names of built-in attributes or methods (keys, items, get) are not registrations.",
        UNKNOWN,
        {"plain": "x {{nope}} y", "keys": "{{keys}}", "items": "{{items}}", "get": "{{get}}"},
    ),
    _each_fails(
        "bad-group-names-are-malformed",
        GROUP_RULE + ": {{}}, {{ name }}, {{Name}}, {{1a}}, {{a-b}}, {{name\\n}} are malformed "
        "even though `name` is registered (the name grammar check comes before the lookup).",
        MALFORMED,
        {
            "empty": "{{}}",
            "spaced": "{{ name }}",
            "upper": "{{Name}}",
            "digit": "{{1a}}",
            "hyphen": "{{a-b}}",
            "newline": "{{name\n}}",
        },
    ),
    _each_fails(
        "brace-without-group-then-close-is-malformed",
        "Where `{{` does not start a group, if a `}}` occurs anywhere later in the text, fail "
        "render-malformed-reference: {{{name}}} fails, a lone `{{` before a valid group fails, "
        "and so does `{{a {b} c}}`.",
        MALFORMED,
        {
            "triple": "{{{name}}}",
            "lone-then-group": "x {{ y {{name}}",
            "inner-brace": "{{a {b} c}}",
            "far-close": "{{ x { y\n\nmuch later: }}",
        },
    ),
    _render(
        "lone-open-without-close-is-literal",
        "Where `{{` does not start a group and no `}}` occurs later, the `{{` is literal text "
        "and scanning continues after it (so `{{{{` stays as is).",
        "a {{ b {{{{ c {x} {{",
        s.text("a {{ b {{{{ c {x} {{"),
    ),
    _render(
        "close-without-open-is-literal",
        "Interpolation scans for `{{` only: `}}` (or `{`, `}`) without a preceding `{{` is "
        "literal text, and a group after it still interpolates.",
        "a }} b {c} }}} {{name}}",
        s.text("a }} b {c} }}} Ann"),
        variables={"name": "Ann"},
    ),
    _render(
        "value-inserted-verbatim-not-rescanned",
        "The value is inserted verbatim and never re-scanned: a value containing `{{x}}` (x "
        "unregistered) or `{{Bad` stays literal.",
        "Hi {{name}}.",
        s.text("Hi {{other}} and {{Bad}}."),
        variables={"name": "{{other}} and {{Bad}}"},
    ),
    _render(
        "undefined-variable",
        "A registered variable must have a value, else render-undefined-variable.",
        "Model: {{model}}",
        s.error(UNDEFINED, where="body"),
        variables={"model": None},
    ),
    _render(
        "unknown-before-malformed",
        "References are checked left to right and the first failing one decides.",
        "{{nope}} then {{Bad}}",
        s.error(UNKNOWN, where="body"),
    ),
    _render(
        "malformed-before-unknown",
        "References are checked left to right and the first failing one decides.",
        "{{Bad}} then {{nope}}",
        s.error(MALFORMED, where="body"),
    ),
    Case(
        id="render/failure-names-the-first-failing-section",
        contracts=RENDER,
        why=(
            "Render interpolates every section of the assembly in order, fails fast, and the "
            "failure names the offending section: `a` (order 1) before `b` (order 2), though "
            "`b` was registered first."
        ),
        ops=(
            s.section("fine", "fine", 0.5, "fine"),
            s.section("b", "b", 2, "{{Bad}}"),
            s.section("a", "a", 1, "{{nope}}"),
            s.assemble("a"),
            s.render("a", expect=s.error(UNKNOWN, where="a")),
        ),
    ),
    Case(
        id="render/empty-sections-dropped-joined-with-blank-line",
        contracts=RENDER,
        why=(
            "Render = interpolate every section, drop sections that render to '' (the default "
            "persona, a '' text, a reference to a '' value), join with \\n\\n; a section of "
            "whitespace is not empty."
        ),
        ops=(
            s.variable("var", "x", s.provider("")),
            s.section("a", "a", 1, "A"),
            s.section("e", "e", 2, ""),
            s.section("v", "v", 3, "{{x}}"),
            s.section("b", "b", 4, "B"),
            s.section("space", "space", 5, " "),
            s.assemble("a"),
            s.render("a", expect=s.text(f"{s.IDENTITY_TEXT}\n\nA\n\nB\n\n ")),
        ),
    ),
    _render(
        "all-empty-renders-empty-string",
        "Sections that render to '' are dropped; all empty → ''.",
        "{{x}}",
        s.text(""),
        variables={"x": ""},
    ),
    # -- render-context ---------------------------------------------------------------------
    Case(
        id="render/context-preamble-and-body",
        contracts=RENDER,
        why=(
            "The context body uses the same interpolation and joiner (\\n\\n); the snapshot "
            "text is the preamble, \\n\\n, then the body; contexts sort by order."
        ),
        ops=(
            s.variable("var", "x", s.provider("2")),
            *_contexts(("second", 2, "two {{x}}"), ("first", 1, "one")),
            s.assemble("a"),
            s.render_context(
                "a",
                expect={
                    "sections": [s.entry("first", "one"), s.entry("second", "two 2")],
                    "text": f"{s.RUNTIME_CONTEXT_PREAMBLE}\n\none\n\ntwo 2",
                },
            ),
        ),
    ),
    Case(
        id="render/no-contexts-render-nothing",
        contracts=RENDER,
        why="With no contexts the rendered context is empty: no sections and '' (no preamble).",
        ops=(
            s.section("a", "a", 1, "A"),
            s.assemble("a"),
            s.render_context("a", expect={"sections": [], "text": ""}),
        ),
    ),
    Case(
        id="render/context-failure-names-the-context",
        contracts=RENDER,
        why=(
            "Failures name the offending section or context: render-context of a context with "
            "an unknown reference fails naming it, while the system render is unaffected."
        ),
        ops=(
            *_contexts(("fine", 1, "ok"), ("clock", 2, "Now: {{nope}}")),
            s.assemble("a"),
            s.render("a", expect=s.text(s.IDENTITY_TEXT)),
            s.render_context("a", expect=s.error(UNKNOWN, where="clock")),
        ),
    ),
]
