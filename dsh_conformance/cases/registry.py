"""PROMPT-REGISTRY-CONTRACT: registrations, change notifications, rejections, built-in sections.

Also the load-time validation of `toolOrder` (CONTRACTS.md, "Configuration"), which the
`configure` op reaches; those cases are tagged PROMPT-TOOL-ORDER.
"""

from __future__ import annotations

from ..judge.case import Case
from ..judge.logview import ABSENT
from ..scenarios import scenario as s
from ..scenarios.scenario import Json

REGISTRY = ("PROMPT-REGISTRY-CONTRACT",)
TOOL_ORDER = ("PROMPT-TOOL-ORDER",)
BUILTINS = [s.IDENTITY, s.EMPTY_PERSONA]
DUPLICATE = "duplicate-registration"


def _sections(*extra: Json) -> list[Json]:
    return [*BUILTINS, *extra]


def _bad_tool_order(case_id: str, tool_order: list[str], why: str) -> Case:
    return Case(
        id=f"registry/config-tool-order-{case_id}",
        contracts=TOOL_ORDER,
        why=why,
        ops=(
            s.configure(
                {"toolOrder": tool_order}, expect=s.error("tool-order-invalid", where="toolOrder")
            ),
        ),
    )


def _wrong_type(field: str, value: Json, label: str, contracts: tuple[str, ...]) -> Case:
    return Case(
        id=f"registry/config-{field}-given-{label}",
        contracts=contracts,
        why=(
            "A field of the wrong type — a non-string persona, a non-boolean flag (0 is not "
            "false), a toolOrder that is not a list of strings — is rejected when loaded: "
            "config-invalid."
        ),
        ops=(s.configure({field: value}, expect=s.error("config-invalid", where=field)),),
    )


def _null_field(
    field: str, default: str, *ops: Json, contracts: tuple[str, ...] = REGISTRY
) -> Case:
    return Case(
        id=f"registry/config-{field}-null-means-absent",
        contracts=contracts,
        why=f"A field given as null means absent (its default), for every field: {field}: "
        f"null, so {default}.",
        ops=(s.configure({field: None}), *ops),
    )


#: Variable names outside the grammar `^[a-z][a-z0-9_]*$`.
BAD_NAMES = ("Model", "aB", "1a", "_a", "a-b", "a b", "", "modèle", "abc\n", "a.b")

CASES: list[Case] = [
    # -- built-in sections ----------------------------------------------------------------
    Case(
        id="registry/builtin-sections-by-default",
        contracts=REGISTRY,
        why=(
            "The default configuration registers the identity section (harness:identity, order "
            "-100, the fixed text) and the persona section (deployment:persona, order 0, text = "
            "config persona, default ''), and nothing else. (How they render, and that they are "
            "no change notification, are other cases' rules.)"
        ),
        ops=(s.assemble("a", expect=s.assembly(sections=BUILTINS, contexts=[], tools=[])),),
    ),
    Case(
        id="registry/persona-text-from-config",
        contracts=REGISTRY,
        why="persona section: name deployment:persona, order 0, text = config `persona`.",
        ops=(
            s.configure({"persona": "Answer briefly."}),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=[s.IDENTITY, s.entry(s.PERSONA_NAME, "Answer briefly.")]
                ),
            ),
            s.render("a", expect=s.text(s.IDENTITY_TEXT + "\n\nAnswer briefly.")),
        ),
    ),
    Case(
        id="registry/identity-configured-away",
        contracts=REGISTRY,
        why="`includeHarnessIdentity` (default true: register the identity section); false: not.",
        ops=(
            s.configure({"includeHarnessIdentity": False}),
            s.assemble("a", expect=s.assembly(sections=[s.EMPTY_PERSONA])),
        ),
    ),
    Case(
        id="registry/builtins-sort-as-ordinary-sections",
        contracts=REGISTRY,
        why=(
            "Identity and persona are ordinary sections, not string concatenation: they sort by "
            "their orders (-100 and 0) among the registered sections."
        ),
        ops=(
            s.section("late", "late", 1, "L"),
            s.section("mid", "mid", -50, "M"),
            s.section("early", "early", -200, "E"),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=[
                        s.entry("early", "E"),
                        s.IDENTITY,
                        s.entry("mid", "M"),
                        s.EMPTY_PERSONA,
                        s.entry("late", "L"),
                    ]
                ),
            ),
            s.render("a", expect=s.text(f"E\n\n{s.IDENTITY_TEXT}\n\nM\n\nL")),
        ),
    ),
    Case(
        id="registry/builtin-names-taken-in-global-layer",
        contracts=REGISTRY,
        why=(
            "Identity and persona are ordinary sections of the global layer, so a second global "
            "section with either name is rejected (duplicate-registration) and changes nothing."
        ),
        ops=(
            s.section(
                "id2",
                s.IDENTITY_NAME,
                -100,
                "Other identity",
                expect=s.error(DUPLICATE, where=s.IDENTITY_NAME),
            ),
            s.section(
                "persona2",
                s.PERSONA_NAME,
                0,
                "Other persona",
                expect=s.error(DUPLICATE, where=s.PERSONA_NAME),
            ),
            s.counts(expect=s.evaluations(changes=0)),
            s.assemble("a", expect=s.assembly(sections=BUILTINS)),
        ),
    ),
    Case(
        id="registry/identity-name-free-when-not-configured",
        contracts=REGISTRY,
        why=(
            "With includeHarnessIdentity false no identity section is registered, so the name "
            "harness:identity is an ordinary free name in the global layer."
        ),
        ops=(
            s.configure({"includeHarnessIdentity": False}),
            s.section("mine", s.IDENTITY_NAME, 5, "Mine"),
            s.assemble(
                "a", expect=s.assembly(sections=[s.EMPTY_PERSONA, s.entry(s.IDENTITY_NAME, "Mine")])
            ),
        ),
    ),
    # -- duplicates -----------------------------------------------------------------------
    Case(
        id="registry/duplicate-section-same-layer",
        contracts=REGISTRY,
        why=(
            "A second section with the same name in the same layer is rejected "
            "(duplicate-registration), in the global layer and in a scope's layer alike."
        ),
        ops=(
            s.scope("s"),
            s.section("g1", "a", 1, "first"),
            s.section("g2", "a", 2, "second", expect=s.error(DUPLICATE, where="a")),
            s.section("s1", "b", 1, "first", layer="s"),
            s.section("s2", "b", 1, "second", layer="s", expect=s.error(DUPLICATE, where="b")),
        ),
    ),
    Case(
        id="registry/duplicate-context-same-layer",
        contracts=REGISTRY,
        why="A second context with the same name in the same layer is rejected.",
        ops=(
            s.scope("s"),
            s.context("g1", "clock", 1, "first"),
            s.context("g2", "clock", 1, "second", expect=s.error(DUPLICATE, where="clock")),
            s.context("s1", "clock", 1, "first", layer="s"),
            s.context(
                "s2", "clock", 3, "second", layer="s", expect=s.error(DUPLICATE, where="clock")
            ),
        ),
    ),
    Case(
        id="registry/duplicate-variable-same-layer",
        contracts=REGISTRY,
        why="A second variable with the same name in the same layer is rejected.",
        ops=(
            s.scope("s"),
            s.variable("g1", "model", s.provider("one")),
            s.variable("g2", "model", s.provider("two"), expect=s.error(DUPLICATE, where="model")),
            s.variable("s1", "model", s.provider("three"), layer="s"),
            s.variable(
                "s2",
                "model",
                s.provider("four"),
                layer="s",
                expect=s.error(DUPLICATE, where="model"),
            ),
        ),
    ),
    Case(
        id="registry/same-name-in-different-layers-allowed",
        contracts=REGISTRY,
        why=(
            "The same name in different layers is allowed (that is shadowing): global, a scope "
            "and its child scope may each register section, context and variable `x`; every "
            "registration emits one change."
        ),
        ops=(
            s.scope("s"),
            s.scope("t", "s"),
            *[
                op
                for layer in (None, "s", "t")
                for op in (
                    s.section(f"sec-{layer}", "x", 1, "S", layer=layer),
                    s.context(f"ctx-{layer}", "x", 1, "C", layer=layer),
                    s.variable(f"var-{layer}", "x", s.provider("V"), layer=layer),
                )
            ],
            s.counts(expect=s.evaluations(changes=9)),
        ),
    ),
    Case(
        id="registry/rejected-duplicate-leaves-registry-unchanged",
        contracts=REGISTRY,
        why=(
            "A rejected registration leaves the registry unchanged and emits nothing: the first "
            "registration stays in force and only its change is counted."
        ),
        ops=(
            s.section("first", "a", 1, "first"),
            s.section("second", "a", -1, "second", expect=s.error(DUPLICATE, where="a")),
            s.variable("v1", "x", s.provider("one")),
            s.variable("v2", "x", s.provider("two"), expect=s.error(DUPLICATE, where="x")),
            s.counts(expect=s.evaluations(changes=2)),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=_sections(s.entry("a", "first")), variables={"x": "one"}
                ),
            ),
        ),
    ),
    # -- change notifications and release -------------------------------------------------
    Case(
        id="registry/one-change-per-registration-and-release",
        contracts=REGISTRY,
        why=(
            "Every registration and every release emits one system-prompt/change notification, "
            "for all five kinds (section, context, variable, tool provider, suppressor). A "
            "waterfall listener is not a registration (PROTOCOL: listen emits no change)."
        ),
        ops=(
            s.listen("l", s.listener()),
            s.counts(expect=s.evaluations(changes=0)),
            s.section("sec", "a", 1, "A"),
            s.counts(expect=s.evaluations(changes=1)),
            s.context("ctx", "c", 1, "C"),
            s.variable("var", "v", s.provider("V")),
            s.tools("tools", s.provider(s.toolset(s.schema("t")))),
            s.suppressor("sup"),
            s.counts(expect=s.evaluations(changes=5)),
            s.release("sec"),
            s.counts(expect=s.evaluations(changes=6)),
            s.release("ctx"),
            s.release("var"),
            s.release("tools"),
            s.release("sup"),
            s.counts(expect=s.evaluations(changes=10)),
        ),
    ),
    Case(
        id="registry/failed-change-notification-rolls-a-section-back",
        contracts=REGISTRY,
        requires=s.REGISTRY_1_1,
        why=(
            "If delivering a registration's system-prompt/change notification throws, the "
            "registration is rolled back (the rollback is a release and emits its own "
            "notification) and the error reaches the caller: no handle is returned, the name is "
            "free again, and nothing of it is assembled."
        ),
        ops=(
            s.configure({"includeHarnessIdentity": False}),
            s.change_observer("observer fails"),
            s.section("first", "x", 1, "first", expect=s.error("scripted-failure")),
            s.counts(expect=s.evaluations(changes=2)),
            s.assemble("a1", expect=s.assembly(sections=[s.EMPTY_PERSONA])),
            s.section("second", "x", 1, "second"),
            s.counts(expect=s.evaluations(changes=3)),
            s.assemble("a2", expect=s.assembly(sections=[s.EMPTY_PERSONA, s.entry("x", "second")])),
        ),
    ),
    Case(
        id="registry/failed-change-notification-rolls-a-tool-provider-back",
        contracts=REGISTRY,
        requires=s.REGISTRY_1_1,
        why=(
            "A registration whose change notification throws is rolled back: nothing of it is "
            "assembled, so a tool provider registered again after the failure contributes once, "
            "and the rolled-back one is never evaluated."
        ),
        ops=(
            s.change_observer("observer fails"),
            s.tools(
                "first",
                s.provider(s.toolset(s.schema("t", "first")), id="first"),
                expect=s.error("scripted-failure"),
            ),
            s.tools("second", s.provider(s.toolset(s.schema("t", "second")), id="second")),
            s.assemble("a", expect=s.assembly(tools=[s.schema("t", "second")])),
            s.counts(expect=s.evaluations(second=1, changes=3)),
        ),
    ),
    Case(
        id="registry/failed-change-notification-rolls-back-in-a-scope",
        contracts=REGISTRY,
        requires=s.REGISTRY_1_1,
        why=(
            "A rolled-back registration frees its name (here a scoped variable: registering "
            "the name again in the same scope is no duplicate-registration) and nothing of it "
            "is assembled."
        ),
        ops=(
            s.scope("s"),
            s.change_observer("observer fails"),
            s.variable(
                "first",
                "x",
                s.provider("first", id="first"),
                layer="s",
                expect=s.error("scripted-failure"),
            ),
            s.assemble("a1", "s", expect=s.assembly(variables={"x": ABSENT})),
            s.variable("second", "x", s.provider("second"), layer="s"),
            s.assemble("a2", "s", expect=s.assembly(variables={"x": "second"})),
            s.counts(expect=s.evaluations(changes=3)),
        ),
    ),
    Case(
        id="registry/second-release-is-a-no-op",
        contracts=REGISTRY,
        why=(
            "Releasing twice is a no-op the second time (one notification): it neither notifies "
            "again nor removes a later registration of the same name."
        ),
        ops=(
            s.section("old", "x", 1, "old"),
            s.release("old"),
            s.section("new", "x", 1, "new"),
            s.release("old"),
            s.counts(expect=s.evaluations(changes=3)),
            s.assemble("a", expect=s.assembly(sections=_sections(s.entry("x", "new")))),
        ),
    ),
    Case(
        id="registry/release-removes-from-next-assembly",
        contracts=REGISTRY,
        why=(
            "Each registration returns a release handle; after release the registration no "
            "longer takes part in assemblies, and its name is free again in its layer."
        ),
        ops=(
            s.section("sec", "a", 1, "A"),
            s.context("ctx", "c", 1, "C"),
            s.variable("var", "v", s.provider("V", id="var")),
            s.tools("tools", s.provider(s.toolset(s.schema("t")), id="tools")),
            s.assemble(
                "a1",
                expect=s.assembly(
                    sections=_sections(s.entry("a", "A")),
                    contexts=[s.entry("c", "C")],
                    tools=[s.schema("t")],
                    variables={"v": "V"},
                ),
            ),
            s.release("sec"),
            s.release("ctx"),
            s.release("var"),
            s.release("tools"),
            s.assemble(
                "a2",
                expect=s.assembly(
                    sections=BUILTINS, contexts=[], tools=[], variables={"v": ABSENT}
                ),
            ),
            s.counts(expect=s.evaluations(var=1, tools=1)),
            s.section("sec-again", "a", 1, "A again"),
            s.assemble("a3", expect=s.assembly(sections=_sections(s.entry("a", "A again")))),
        ),
    ),
    Case(
        id="registry/release-removes-only-that-registration",
        contracts=REGISTRY,
        why=(
            "A release handle belongs to one registration: releasing the scoped section `a` "
            "leaves the global section `a` (another layer) in force."
        ),
        ops=(
            s.scope("s"),
            s.section("global", "a", 1, "global"),
            s.section("scoped", "a", 1, "scoped", layer="s"),
            s.release("scoped"),
            s.assemble("a", "s", expect=s.assembly(sections=_sections(s.entry("a", "global")))),
        ),
    ),
    # -- invalid orders and names ---------------------------------------------------------
    Case(
        id="registry/non-finite-section-order-rejected",
        contracts=REGISTRY,
        why=(
            "A non-finite section order (NaN, +Infinity, -Infinity) is rejected (invalid-order); "
            "a rejected registration leaves the registry unchanged and emits nothing."
        ),
        ops=(
            s.section("nan", "nan", "NaN", "N", expect=s.error("invalid-order", where="nan")),
            s.section("inf", "inf", "Infinity", "I", expect=s.error("invalid-order", where="inf")),
            s.section(
                "ninf", "ninf", "-Infinity", "M", expect=s.error("invalid-order", where="ninf")
            ),
            s.counts(expect=s.evaluations(changes=0)),
            s.assemble("a", expect=s.assembly(sections=BUILTINS)),
        ),
    ),
    Case(
        id="registry/non-finite-context-order-rejected",
        contracts=REGISTRY,
        why="A non-finite context order (NaN, ±Infinity) is rejected (invalid-order), silently.",
        ops=(
            s.context("nan", "nan", "NaN", "N", expect=s.error("invalid-order", where="nan")),
            s.context("inf", "inf", "Infinity", "I", expect=s.error("invalid-order", where="inf")),
            s.context(
                "ninf", "ninf", "-Infinity", "M", expect=s.error("invalid-order", where="ninf")
            ),
            s.counts(expect=s.evaluations(changes=0)),
            s.assemble("a", expect=s.assembly(contexts=[])),
        ),
    ),
    Case(
        id="registry/extreme-finite-orders-accepted",
        contracts=REGISTRY,
        why=(
            "Only non-finite orders are rejected: ±1e308 and the smallest positive double are "
            "finite, accepted, and sort by value around identity (-100) and persona (0)."
        ),
        ops=(
            s.section("high", "high", 1e308, "H"),
            s.section("tiny", "tiny", 5e-324, "T"),
            s.section("low", "low", -1e308, "L"),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=[
                        s.entry("low", "L"),
                        s.IDENTITY,
                        s.EMPTY_PERSONA,
                        s.entry("tiny", "T"),
                        s.entry("high", "H"),
                    ]
                ),
            ),
        ),
    ),
    Case(
        id="registry/orders-at-the-builtin-orders-tie-after-them",
        contracts=REGISTRY,
        why=(
            "Identity sorts at order -100 and persona at 0, as ordinary sections; ties go by "
            "position in the effective map, and the built-ins were registered first: a section "
            "at -100 comes right after identity, one at -0.5 between identity and persona, one "
            "at 0 right after persona (whatever order they were registered in)."
        ),
        ops=(
            s.section("at-persona", "at-persona", 0, "P"),
            s.section("between", "between", -0.5, "B"),
            s.section("at-identity", "at-identity", -100, "I"),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=[
                        s.IDENTITY,
                        s.entry("at-identity", "I"),
                        s.entry("between", "B"),
                        s.EMPTY_PERSONA,
                        s.entry("at-persona", "P"),
                    ]
                ),
            ),
        ),
    ),
    Case(
        id="registry/negative-zero-order-equals-zero",
        contracts=REGISTRY,
        why=(
            "Only non-finite orders are rejected, and sections sort ascending by order: -0 is "
            "finite and equal to 0, so it ties with persona (order 0) and, registered later, "
            "comes after it — and before 0.5."
        ),
        ops=(
            s.section("half", "half", 0.5, "H"),
            s.section("negative-zero", "negative-zero", -0.0, "Z"),
            s.context("c-half", "c-half", 0.5, "CH"),
            s.context("c-zero", "c-zero", 0, "C0"),
            s.context("c-negative-zero", "c-negative-zero", -0.0, "CZ"),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=_sections(s.entry("negative-zero", "Z"), s.entry("half", "H")),
                    contexts=[
                        s.entry("c-zero", "C0"),
                        s.entry("c-negative-zero", "CZ"),
                        s.entry("c-half", "CH"),
                    ],
                ),
            ),
        ),
    ),
    Case(
        id="registry/integer-orders-beyond-the-double-range-rejected",
        contracts=REGISTRY,
        why=(
            "Orders are numbers (doubles, as in the upstream's JavaScript): an integer with 400 "
            "digits is Infinity there, and a non-finite order is rejected (invalid-order), for "
            "sections and contexts alike; a rejected registration leaves nothing behind."
        ),
        ops=(
            s.section("huge", "huge", 10**400, "H", expect=s.error("invalid-order", where="huge")),
            s.context(
                "tiny", "tiny", -(10**400), "T", expect=s.error("invalid-order", where="tiny")
            ),
            s.counts(expect=s.evaluations(changes=0)),
            s.assemble("a", expect=s.assembly(sections=_sections(), contexts=[])),
        ),
    ),
    Case(
        id="registry/variable-names-checked-at-registration",
        contracts=REGISTRY,
        why=(
            "A variable name outside the grammar ^[a-z][a-z0-9_]*$ is rejected at registration "
            "(invalid-variable-name), leaving the registry unchanged and emitting nothing. The "
            "`$` ends the name: a trailing newline is outside the grammar. Names in the "
            "grammar (one letter; digits and underscores after it) are accepted."
        ),
        ops=(
            *[
                s.variable(
                    f"bad{index}",
                    name,
                    s.provider("x"),
                    expect=s.error("invalid-variable-name", where=name),
                )
                for index, name in enumerate(BAD_NAMES)
            ],
            s.counts(expect=s.evaluations(changes=0)),
            s.assemble("a1", expect=s.assembly(variables=dict.fromkeys(BAD_NAMES, ABSENT))),
            s.variable("v1", "a", s.provider("1")),
            s.variable("v2", "a1", s.provider("2")),
            s.variable("v3", "a_", s.provider("3")),
            s.variable("v4", "snake_case_9", s.provider("4")),
            s.assemble(
                "a2",
                expect=s.assembly(variables={"a": "1", "a1": "2", "a_": "3", "snake_case_9": "4"}),
            ),
        ),
    ),
    Case(
        id="registry/text-provider-evaluated-per-assembly",
        contracts=REGISTRY,
        why=(
            "`text` is a string or a provider evaluated per assembly: each assembly calls the "
            "section's and the context's provider once and uses that evaluation's value."
        ),
        ops=(
            s.section("sec", "a", 1, s.provider(sequence=["one", "two"], id="sec")),
            s.context("ctx", "c", 1, s.provider(sequence=["uno", "dos"], id="ctx")),
            s.assemble(
                "a1",
                expect=s.assembly(
                    sections=_sections(s.entry("a", "one")), contexts=[s.entry("c", "uno")]
                ),
            ),
            s.assemble(
                "a2",
                expect=s.assembly(
                    sections=_sections(s.entry("a", "two")), contexts=[s.entry("c", "dos")]
                ),
            ),
            s.counts(expect=s.evaluations(sec=2, ctx=2)),
        ),
    ),
    # -- configuration: field types and null ----------------------------------------------
    *[
        _wrong_type(field, value, label, contracts)
        for field, value, label, contracts in (
            ("persona", 5, "a-number", REGISTRY),
            ("includeRuntimeContext", 0, "zero", REGISTRY),
            ("includeHarnessIdentity", "false", "a-string", REGISTRY),
            ("toolOrder", "a", "a-string", (*REGISTRY, *TOOL_ORDER)),
            ("toolOrder", [1, s.UNLISTED_TOOLS], "a-number-in-the-list", (*REGISTRY, *TOOL_ORDER)),
        )
    ],
    # A field given as null: one case per field, so that one departure fails one case.
    _null_field(
        "includeHarnessIdentity",
        "the identity section is registered",
        s.assemble("a", expect=s.assembly(sections=_sections())),
    ),
    _null_field(
        "includeRuntimeContext",
        "runtime context is not suppressed",
        s.context("clock", "clock", 1, "noon"),
        s.assemble("a", expect=s.assembly(contexts=[s.entry("clock", "noon")])),
    ),
    _null_field(
        "persona",
        "the persona section's text is ''",
        s.assemble("a", expect=s.assembly(sections=_sections())),
    ),
    _null_field(
        "toolOrder",
        "tools sort in plain code-unit order (the upstream throws a TypeError: a departure)",
        s.tools("tools", s.provider(s.toolset(s.schema("b"), s.schema("a")))),
        s.assemble("a", expect=s.assembly(tools=[s.schema("a"), s.schema("b")])),
        contracts=(*REGISTRY, *TOOL_ORDER),
    ),
    # -- configuration: toolOrder validation at load time ----------------------------------
    _bad_tool_order(
        "duplicate-name",
        ["read", "read", s.UNLISTED_TOOLS],
        "A toolOrder with a duplicate name is rejected when the configuration is loaded "
        "(tool-order-invalid).",
    ),
    _bad_tool_order(
        "without-marker",
        ["read", "write"],
        "A toolOrder without exactly one rest marker is rejected at load (tool-order-invalid).",
    ),
    _bad_tool_order(
        "two-markers",
        [s.UNLISTED_TOOLS, "read", s.UNLISTED_TOOLS],
        "A toolOrder must have exactly one rest marker; two are rejected (tool-order-invalid).",
    ),
    _bad_tool_order(
        "empty",
        [],
        "An empty toolOrder has no rest marker, so it is rejected at load (tool-order-invalid).",
    ),
]
