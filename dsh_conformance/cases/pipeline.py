"""PROMPT-ASSEMBLY-PIPELINE and PROMPT-ASSEMBLY-MUTATION-TEST: the steps of assemble().

The nine steps: 1 variables; 2 effective maps; 3 tool-provider snapshot and evaluation; 4 sort,
complete check; 5 section texts; 6 context texts unless suppressed; 7 tool order; 8 waterfall;
9 complete section restored, suppressed contexts forced to [].

Why one module: it is a table ordered by the nine steps above, each case read alone; the
providers and registrations they share are defined at its top.
"""

from __future__ import annotations

from collections.abc import Callable

from ..judge.case import Case
from ..scenarios import scenario as s
from ..scenarios.scenario import Json

PIPELINE = ("PROMPT-ASSEMBLY-PIPELINE",)
MUTATION = ("PROMPT-ASSEMBLY-MUTATION-TEST",)
BUILTINS = [s.IDENTITY, s.EMPTY_PERSONA]
ONLY = s.entry("only", "Only")


def _sections(*extra: Json) -> list[Json]:
    return [*BUILTINS, *extra]


def _append(list_name: str, item: Json) -> Json:
    return {"append": list_name, "item": item}


# -- step order: observed through a throwing provider, or one blocked on a gate ---------------

_STAGES = ("var", "tools", "sec", "ctx", "listener")
_STAGE_CASES = {
    "var": ("variables-evaluated-first", "1. evaluate variables comes before everything else"),
    "tools": (
        "tool-providers-before-section-texts",
        "3. evaluate the tool providers comes before 5. evaluate section texts",
    ),
    "sec": (
        "section-texts-before-context-texts",
        "5. evaluate section texts comes before 6. evaluate context texts",
    ),
    "ctx": (
        "context-texts-before-waterfall",
        "6. evaluate context texts comes before 8. run the system-prompt/assemble waterfall",
    ),
}


def _stage_registrations(provider: Callable[[object, str], Json]) -> list[Json]:
    """One counted registration per stage, registered in the reverse of the step order."""
    return [
        s.listen("listener", s.listener(id="listener")),
        s.context("ctx", "ctx", 1, provider("C", "ctx")),
        s.section("sec", "sec", 1, provider("S", "sec")),
        s.tools("tools", provider(s.toolset(s.schema("tool")), "tools")),
        s.variable("var", "var", provider("V", "var")),
    ]


def _step_order_case(failing: str) -> Case:
    """Every stage counts its evaluations; `failing` throws, so the later stages never run."""

    def provider(value: object, stage: str) -> Json:
        if stage == failing:
            return s.provider(fails=f"{stage} fails", id=stage)
        return s.provider(value, id=stage)

    name, rule = _STAGE_CASES[failing]
    done = _STAGES[: _STAGES.index(failing) + 1]
    return Case(
        id=f"pipeline/{name}",
        contracts=PIPELINE,
        why=(
            f"assemble(context) does its steps in order: {rule}; a provider throwing rejects the "
            "whole assembly, so no later step runs."
        ),
        ops=(
            *_stage_registrations(provider),
            s.assemble("a", expect=s.error("scripted-failure")),
            s.counts(expect=s.evaluations(**{stage: int(stage in done) for stage in _STAGES})),
        ),
    )


def _blocked_step_order_case(blocked: str) -> Case:
    """Every stage counts its evaluations; `blocked` waits on gate g, so later ones wait too."""

    def provider(value: object, stage: str) -> Json:
        return s.provider(value, id=stage, wait_gate="g" if stage == blocked else None)

    name, rule = _STAGE_CASES[blocked]
    done = _STAGES[: _STAGES.index(blocked) + 1]
    return Case(
        id=f"pipeline/{name}-while-blocked",
        contracts=PIPELINE,
        requires=s.ASYNC_PROVIDERS,
        why=f"assemble(context) does its steps in order: {rule}.",
        ops=(
            *_stage_registrations(provider),
            s.assemble("a", expect=s.PENDING),
            s.counts(expect=s.evaluations(**{stage: int(stage in done) for stage in _STAGES})),
            s.open_gate("g"),
            s.await_(
                "a",
                expect=s.assembly(
                    sections=_sections(s.entry("sec", "S")),
                    contexts=[s.entry("ctx", "C")],
                    tools=[s.schema("tool")],
                    variables={"var": "V"},
                ),
            ),
            s.counts(expect=s.evaluations(**dict.fromkeys(_STAGES, 1))),
        ),
    )


# -- suppression -----------------------------------------------------------------------------


def _context_probe() -> list[Json]:
    """A counted context provider and a listener that appends a context."""
    return [
        s.context("clock", "clock", 1, s.provider("noon", id="clock")),
        s.listen("l", s.listener(_append("contexts", s.entry("late", "L")), id="l")),
    ]


UNSUPPRESSED = [s.entry("clock", "noon"), s.entry("late", "L")]


def _mutated_params() -> Json:
    """`_params` after the mutation cases' three edits."""
    return {
        "type": "array",
        "properties": {"path": {"type": "number"}},
        "required": ["path", "mode"],
    }


def _params() -> Json:
    """Fresh tool parameters (a new object per call, so expectations never alias provider data)."""
    return {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    }


CASES: list[Case] = [
    *[_step_order_case(stage) for stage in _STAGE_CASES],
    *[_blocked_step_order_case(stage) for stage in _STAGE_CASES],
    # -- the waterfall is authoritative --------------------------------------------------
    Case(
        id="pipeline/waterfall-result-is-authoritative",
        contracts=PIPELINE,
        why=(
            "8. run the system-prompt/assemble waterfall — its returned value is authoritative: "
            "a listener reversing the sections decides their order, also for render."
        ),
        ops=(
            s.section("a", "a", 1, "A"),
            s.section("b", "b", 2, "B"),
            s.listen("l", s.listener({"reverse": "sections"})),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=[s.entry("b", "B"), s.entry("a", "A"), s.EMPTY_PERSONA, s.IDENTITY]
                ),
            ),
            s.render("a", expect=s.text(f"B\n\nA\n\n{s.IDENTITY_TEXT}")),
        ),
    ),
    Case(
        id="pipeline/waterfall-may-remove-append-replace",
        contracts=PIPELINE,
        why=(
            "The waterfall's returned value is authoritative for sections, contexts and tools: "
            "a removed identity, an appended context and replaced tools are what comes out."
        ),
        ops=(
            s.context("ctx", "clock", 1, "noon"),
            s.tools("tools", s.provider(s.toolset(s.schema("read"), s.schema("write")))),
            s.listen(
                "l",
                s.listener(
                    {"remove": "sections", "name": s.IDENTITY_NAME},
                    _append("contexts", s.entry("extra", "E")),
                    {"replace": "tools", "items": [s.schema("only", "replaced")]},
                ),
            ),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=[s.EMPTY_PERSONA],
                    contexts=[s.entry("clock", "noon"), s.entry("extra", "E")],
                    tools=[s.schema("only", "replaced")],
                ),
            ),
            s.render("a", expect=s.text("")),
        ),
    ),
    # -- complete sections ---------------------------------------------------------------
    Case(
        id="pipeline/complete-section-is-the-only-section",
        contracts=PIPELINE,
        why=(
            "9. if a complete section was effective, replace the returned sections with exactly "
            "that remembered section — the built-ins and other sections are gone."
        ),
        ops=(
            s.section("other", "other", 1, "Other"),
            s.section("only", "only", 5, "Only", complete=True),
            s.assemble("a", expect=s.assembly(sections=[ONLY])),
            s.render("a", expect=s.text("Only")),
        ),
    ),
    Case(
        id="pipeline/complete-section-restored-after-listener-edits",
        contracts=PIPELINE,
        why=(
            "Step 9 runs after the waterfall: a listener that removes the complete section and "
            "appends another still yields exactly the remembered complete section."
        ),
        ops=(
            s.section("only", "only", 5, "Only", complete=True),
            s.listen(
                "l",
                s.listener(
                    {"remove": "sections", "name": "only"},
                    _append("sections", s.entry("extra", "X")),
                ),
            ),
            s.assemble("a", expect=s.assembly(sections=[ONLY])),
        ),
    ),
    Case(
        id="pipeline/complete-section-restored-with-its-evaluated-text",
        contracts=PIPELINE,
        why=(
            "5. evaluate section texts (remember the complete one's evaluated {name, text}); "
            "step 9 restores exactly that, not the listener's edited copy, per assembly."
        ),
        ops=(
            s.section(
                "only", "only", 5, s.provider(sequence=["first", "second"], id="p"), complete=True
            ),
            s.listen(
                "l", s.listener({"replace": "sections", "items": [s.entry("only", "edited")]})
            ),
            s.assemble("a1", expect=s.assembly(sections=[s.entry("only", "first")])),
            s.assemble("a2", expect=s.assembly(sections=[s.entry("only", "second")])),
            s.counts(expect=s.evaluations(p=2)),
        ),
    ),
    Case(
        id="pipeline/two-complete-sections-rejected",
        contracts=PIPELINE,
        why=(
            "4. sort sections; if more than one effective section has complete: true, fail "
            "(multiple-complete-sections) — after 1. variables and 3. tool providers were "
            "evaluated, before 5. evaluates any section text."
        ),
        ops=(
            s.variable("var", "x", s.provider("X", id="var")),
            s.tools("tools", s.provider(s.toolset(s.schema("t")), id="tools")),
            s.section("a", "a", 1, "A", complete=True),
            s.section("b", "b", 2, s.provider("B", id="b"), complete=True),
            s.assemble("a", expect=s.error("multiple-complete-sections")),
            s.counts(expect=s.evaluations(var=1, tools=1, b=0)),
        ),
    ),
    Case(
        id="pipeline/complete-sections-counted-across-layers",
        contracts=PIPELINE,
        why=(
            "The complete check counts effective sections: a global and a scoped complete "
            "section with different names are both effective for the scope (fail), while the "
            "global assembly has one."
        ),
        ops=(
            s.scope("s"),
            s.section("a", "a", 1, "A", complete=True),
            s.section("b", "b", 2, "B", complete=True, layer="s"),
            s.assemble("in-s", "s", expect=s.error("multiple-complete-sections")),
            s.assemble("in-g", expect=s.assembly(sections=[s.entry("a", "A")])),
        ),
    ),
    Case(
        id="pipeline/complete-section-shadowed-by-non-complete",
        contracts=PIPELINE,
        why=(
            "Only an effective section is complete: a global complete section shadowed by a "
            "scoped non-complete one is not complete in that scope."
        ),
        ops=(
            s.scope("s"),
            s.section("g", "a", 1, "A", complete=True),
            s.section("sc", "a", 1, "scoped A", layer="s"),
            s.assemble(
                "in-s", "s", expect=s.assembly(sections=_sections(s.entry("a", "scoped A")))
            ),
            s.assemble("in-g", expect=s.assembly(sections=[s.entry("a", "A")])),
        ),
    ),
    Case(
        id="pipeline/complete-section-skips-nothing-else",
        contracts=PIPELINE,
        why=(
            "A complete section does not skip variables, contexts, tools or the waterfall: all "
            "are evaluated once and come out next to the single complete section."
        ),
        ops=(
            s.section("only", "only", 5, "Only", complete=True),
            s.variable("var", "model", s.provider("m", id="var")),
            s.context("ctx", "clock", 1, s.provider("noon", id="ctx")),
            s.tools("tools", s.provider(s.toolset(s.schema("read")), id="tools")),
            s.listen("l", s.listener(_append("contexts", s.entry("late", "L")), id="l")),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=[ONLY],
                    contexts=[s.entry("clock", "noon"), s.entry("late", "L")],
                    tools=[s.schema("read")],
                    variables={"model": "m"},
                ),
            ),
            s.counts(expect=s.evaluations(var=1, ctx=1, tools=1, l=1)),
        ),
    ),
    # -- runtime-context suppression ------------------------------------------------------
    Case(
        id="pipeline/global-suppressor-suppresses-contexts",
        contracts=PIPELINE,
        why=(
            "6. if a suppressor exists in the global layer, contexts are [] and no context "
            "provider runs; 9. if suppressed, force contexts to [] (after the waterfall)."
        ),
        ops=(
            *_context_probe(),
            s.suppressor("sup"),
            s.assemble("a", expect=s.assembly(contexts=[])),
            s.counts(expect=s.evaluations(clock=0, l=1)),
            s.render_context("a", expect={"sections": [], "text": ""}),
        ),
    ),
    Case(
        id="pipeline/suppressor-on-the-chain-suppresses",
        contracts=PIPELINE,
        why=(
            "A suppressor on the chain (here the grandparent's layer) suppresses an assembly "
            "for its descendant c; assemblies off that chain are not suppressed."
        ),
        ops=(
            s.scope("gp"),
            s.scope("p", "gp"),
            s.scope("c", "p"),
            *_context_probe(),
            s.suppressor("sup", layer="gp"),
            s.assemble("in-c", "c", expect=s.assembly(contexts=[])),
            s.counts(expect=s.evaluations(clock=0, l=1)),
            s.assemble("in-g", expect=s.assembly(contexts=UNSUPPRESSED)),
            s.counts(expect=s.evaluations(clock=1, l=2)),
        ),
    ),
    Case(
        id="pipeline/include-runtime-context-false-suppresses",
        contracts=PIPELINE,
        why=(
            "includeRuntimeContext false = a global suppressor: contexts [], no context "
            "provider runs, and a listener's appended context is forced away."
        ),
        ops=(
            s.configure({"includeRuntimeContext": False}),
            *_context_probe(),
            s.assemble("a", expect=s.assembly(contexts=[])),
            s.counts(expect=s.evaluations(clock=0, l=1)),
        ),
    ),
    Case(
        id="pipeline/suppressor-off-the-chain-does-not-suppress",
        contracts=PIPELINE,
        why=(
            "Only a suppressor in the global layer or on the chain suppresses: one in sibling "
            "scope a suppresses neither sibling b nor the common parent p."
        ),
        ops=(
            s.scope("p"),
            s.scope("a", "p"),
            s.scope("b", "p"),
            *_context_probe(),
            s.suppressor("sup", layer="a"),
            s.assemble("in-b", "b", expect=s.assembly(contexts=UNSUPPRESSED)),
            s.assemble("in-p", "p", expect=s.assembly(contexts=UNSUPPRESSED)),
            s.assemble("in-a", "a", expect=s.assembly(contexts=[])),
            s.counts(expect=s.evaluations(clock=2, l=3)),
        ),
    ),
    Case(
        id="pipeline/suppression-fixed-when-assembly-starts",
        contracts=PIPELINE,
        why=(
            "Whether runtime context is suppressed is fixed when assemble starts: a suppressor "
            "registered by a variable provider (step 1) suppresses only the next assembly."
        ),
        ops=(
            s.variable("var", "x", s.provider("X", effects=[s.suppressor("sup")])),
            s.context("clock", "clock", 1, s.provider("noon", id="clock")),
            s.assemble("a1", expect=s.assembly(contexts=[s.entry("clock", "noon")])),
            s.assemble("a2", expect=s.assembly(contexts=[])),
            s.counts(expect=s.evaluations(clock=1)),
        ),
    ),
    Case(
        id="pipeline/suppressors-released-one-by-one",
        contracts=PIPELINE,
        why=(
            "Contexts are [] while a suppressor exists in the global layer or on the chain: "
            "with two suppressors, releasing one leaves the other, and only releasing the last "
            "lets the contexts (and their provider) back."
        ),
        ops=(
            s.scope("s"),
            s.suppressor("global-1"),
            s.suppressor("global-2"),
            s.suppressor("scoped", layer="s"),
            s.context("clock", "clock", 1, s.provider("noon", id="clock")),
            s.assemble("a1", expect=s.assembly(contexts=[])),
            s.release("global-1"),
            s.assemble("a2", expect=s.assembly(contexts=[])),
            s.release("global-2"),
            s.assemble("a3", expect=s.assembly(contexts=[s.entry("clock", "noon")])),
            s.assemble("a4", "s", expect=s.assembly(contexts=[])),
            s.release("scoped"),
            s.assemble("a5", "s", expect=s.assembly(contexts=[s.entry("clock", "noon")])),
            s.counts(expect=s.evaluations(clock=2)),
        ),
    ),
    # -- a listener that throws (LISTENER `fails`, registry-1.4) ---------------------------------
    Case(
        id="pipeline/a-throwing-listener-rejects-the-assembly",
        contracts=PIPELINE,
        requires=("registry", "registry-1.4"),
        why=(
            "The waterfall's result is the assembly's: a listener that throws instead of "
            "returning one (PROTOCOL.md, LISTENER `fails`: it throws an error with that message, "
            "the assembly rejects) rejects the assembly, which `assemble` answers with the "
            "scripted failure's kind, `scripted-failure`."
        ),
        ops=(
            s.listen("bad", {"fails": "boom"}),
            s.assemble("a", expect=s.error("scripted-failure")),
        ),
    ),
    # -- a listener that does not call next ------------------------------------------------
    Case(
        id="pipeline/listener-without-next-owns-the-result",
        contracts=(*PIPELINE, "DESIGN-SCOPED-LAYERS"),
        why=(
            "A listener may not call `next` at all: its own result is then authoritative for "
            "everything inside it, so the inner listener is never called, and the result is "
            "the payload it was given (the registry's output) with its edits."
        ),
        ops=(
            s.context("clock", "clock", 1, s.provider("noon")),
            s.listen(
                "outer",
                s.listener(_append("sections", s.entry("mine", "M")), id="outer", call_next=False),
            ),
            s.listen("inner", s.listener(_append("sections", s.entry("inner", "I")), id="inner")),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=_sections(s.entry("mine", "M")), contexts=[s.entry("clock", "noon")]
                ),
            ),
            s.counts(expect=s.evaluations(outer=1, inner=0)),
        ),
    ),
    Case(
        id="pipeline/short-circuiting-listener-still-gets-final-constraints",
        contracts=PIPELINE,
        why=(
            "Step 9 follows the waterfall whatever its listeners did: a listener that does not "
            "call `next` and returns its own sections and contexts still has the sections "
            "replaced by exactly the remembered complete section, and the contexts forced to "
            "[] under a suppressor."
        ),
        ops=(
            s.section("only", "only", 5, "Only", complete=True),
            s.suppressor("sup"),
            s.context("clock", "clock", 1, s.provider("noon", id="clock")),
            s.listen(
                "l",
                s.listener(
                    {"replace": "sections", "items": [s.entry("mine", "M")]},
                    _append("contexts", s.entry("late", "L")),
                    call_next=False,
                ),
            ),
            s.assemble("a", expect=s.assembly(sections=[ONLY], contexts=[])),
            s.counts(expect=s.evaluations(clock=0)),
        ),
    ),
    # -- blocking in a listener -------------------------------------------------------------
    Case(
        id="pipeline/listener-blocks-after-every-provider-ran",
        contracts=PIPELINE,
        why=(
            "8. the waterfall runs after steps 1-7, so a listener blocked on a gate finds every "
            "provider evaluated once; the assembly is pending until the listener goes on, and "
            "what `next` gave it is then the result."
        ),
        ops=(
            s.listen("listener", s.listener(id="listener", wait_gate="g")),
            *_stage_registrations(lambda value, stage: s.provider(value, id=stage))[1:],
            s.assemble("a", expect=s.PENDING),
            s.counts(expect=s.evaluations(**dict.fromkeys(_STAGES, 1))),
            s.await_("a", expect=s.PENDING),
            s.open_gate("g"),
            s.await_(
                "a",
                expect=s.assembly(
                    sections=_sections(s.entry("sec", "S")),
                    contexts=[s.entry("ctx", "C")],
                    tools=[s.schema("tool")],
                    variables={"var": "V"},
                ),
            ),
            s.counts(expect=s.evaluations(**dict.fromkeys(_STAGES, 1))),
        ),
    ),
    # -- output and failures --------------------------------------------------------------
    Case(
        id="pipeline/sections-and-contexts-come-out-uninterpolated",
        contracts=PIPELINE,
        why=(
            "Sections and contexts come out uninterpolated: references stay as written, and "
            "even a reference render would reject does not fail the assembly."
        ),
        ops=(
            s.variable("var", "name", s.provider("Ann")),
            s.section("hello", "hello", 1, s.provider("Hello {{name}}")),
            s.section("bad", "bad", 2, "{{Bad}} {{nope}}"),
            s.context("where", "where", 1, "At {{name}}'s"),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=_sections(
                        s.entry("hello", "Hello {{name}}"), s.entry("bad", "{{Bad}} {{nope}}")
                    ),
                    contexts=[s.entry("where", "At {{name}}'s")],
                    variables={"name": "Ann"},
                ),
            ),
        ),
    ),
    Case(
        id="pipeline/any-throwing-provider-rejects-the-assembly",
        contracts=PIPELINE,
        why=(
            "A provider throwing rejects the whole assembly — whether it provides a variable, "
            "a section text, a context text or tools."
        ),
        ops=(
            *[s.scope(kind) for kind in ("var", "sec", "ctx", "tools")],
            s.variable("var", "x", s.provider(fails="variable"), layer="var"),
            s.section("sec", "x", 1, s.provider(fails="section"), layer="sec"),
            s.context("ctx", "x", 1, s.provider(fails="context"), layer="ctx"),
            s.tools("tools", s.provider(fails="tools"), layer="tools"),
            *[
                s.assemble(f"in-{kind}", kind, expect=s.error("scripted-failure"))
                for kind in ("var", "sec", "ctx", "tools")
            ],
            s.assemble("in-g", expect=s.assembly(sections=BUILTINS)),
        ),
    ),
    Case(
        id="pipeline/variable-provider-registers-tool-provider-in-time",
        contracts=(*PIPELINE, *MUTATION),
        why=(
            "1. evaluate variables happens before 3. snapshot the tool providers: a tool "
            "provider registered by a variable provider contributes to the same assembly."
        ),
        ops=(
            s.variable(
                "var",
                "x",
                s.provider("X", effects=[s.tools("late", s.provider(s.toolset(s.schema("late"))))]),
            ),
            s.assemble("a", expect=s.assembly(tools=[s.schema("late")])),
        ),
    ),
    Case(
        id="pipeline/section-provider-registers-tool-provider-too-late",
        contracts=(*PIPELINE, *MUTATION),
        why=(
            "3. snapshot the tool providers happens before 5. evaluate section texts: a tool "
            "provider registered by a section provider contributes from the next assembly on."
        ),
        ops=(
            s.section(
                "sec",
                "sec",
                1,
                s.provider(
                    "S",
                    effects=[s.tools("late", s.provider(s.toolset(s.schema("late")), id="late"))],
                ),
            ),
            s.assemble("a1", expect=s.assembly(tools=[])),
            s.counts(expect=s.evaluations(late=0)),
            s.assemble("a2", expect=s.assembly(tools=[s.schema("late")])),
        ),
    ),
    # -- PROMPT-ASSEMBLY-MUTATION-TEST ----------------------------------------------------
    Case(
        id="mutation/tool-provider-registered-during-tool-evaluation",
        contracts=MUTATION,
        why=(
            "Tool-provider membership is snapshotted before any tool provider runs: a provider "
            "registered while providers are being evaluated contributes from the next assembly."
        ),
        ops=(
            s.tools(
                "first",
                s.provider(
                    s.toolset(s.schema("first")),
                    id="first",
                    effects=[
                        s.tools("second", s.provider(s.toolset(s.schema("second")), id="second"))
                    ],
                ),
            ),
            s.assemble("a1", expect=s.assembly(tools=[s.schema("first")])),
            s.counts(expect=s.evaluations(first=1, second=0)),
            s.assemble("a2", expect=s.assembly(tools=[s.schema("first"), s.schema("second")])),
            s.counts(expect=s.evaluations(first=2, second=1)),
        ),
    ),
    Case(
        id="mutation/tool-provider-released-during-tool-evaluation",
        contracts=MUTATION,
        why=(
            "Membership is snapshotted before any tool provider runs, so a provider released "
            "by another during evaluation still contributes to this assembly, not the next."
        ),
        ops=(
            s.tools(
                "first",
                s.provider(s.toolset(s.schema("first")), effects=[s.release("second")]),
            ),
            s.tools("second", s.provider(s.toolset(s.schema("second")), id="second")),
            s.assemble("a1", expect=s.assembly(tools=[s.schema("first"), s.schema("second")])),
            s.assemble("a2", expect=s.assembly(tools=[s.schema("first")])),
            s.counts(expect=s.evaluations(second=1)),
        ),
    ),
    Case(
        id="mutation/variable-registered-during-variable-evaluation",
        contracts=(*MUTATION, "PROMPT-VARIABLE-TEST"),
        why=(
            "Variables are evaluated by iterating the live layer tables: a variable registered "
            "by an earlier variable provider during that iteration is evaluated in the same "
            "assembly."
        ),
        ops=(
            s.variable(
                "a",
                "a",
                s.provider("A", id="a", effects=[s.variable("b", "b", s.provider("B", id="b"))]),
            ),
            s.assemble("a1", expect=s.assembly(variables={"a": "A", "b": "B"})),
            s.counts(expect=s.evaluations(a=1, b=1)),
        ),
    ),
    Case(
        id="mutation/returned-tool-parameters-are-structural-copies",
        contracts=MUTATION,
        why=(
            "Tool parameters are structural copies: mutating a returned assembly's parameters "
            "(nested values and lists) never changes a provider's data or a later assembly."
        ),
        ops=(
            s.tools("tools", s.provider(s.toolset(s.schema("read", "Read", _params())))),
            s.assemble("a1"),
            s.mutate("a1", ["tools", 0, "parameters", "properties", "path", "type"], set="number"),
            s.mutate("a1", ["tools", 0, "parameters", "required"], append="mode"),
            s.mutate("a1", ["tools", 0, "parameters", "type"], set="array"),
            s.await_("a1", expect=s.assembly(tools=[s.schema("read", "Read", _mutated_params())])),
            s.assemble("a2", expect=s.assembly(tools=[s.schema("read", "Read", _params())])),
        ),
    ),
    Case(
        id="mutation/returned-section-and-context-lists-are-fresh",
        contracts=MUTATION,
        why=(
            "Every assembly returns fresh section and context containers: editing a returned "
            "assembly's lists does not change a later assembly."
        ),
        ops=(
            s.section("sec", "a", 1, "A"),
            s.context("ctx", "clock", 1, "noon"),
            s.assemble("a1"),
            s.mutate("a1", ["sections"], append=s.entry("extra", "X")),
            s.mutate("a1", ["sections", 0], set=s.entry("replaced", "R")),
            s.mutate("a1", ["contexts"], append=s.entry("extra", "X")),
            s.mutate("a1", ["contexts", 0], set=s.entry("replaced", "R")),
            s.await_(
                "a1",
                expect=s.assembly(
                    # section 0 was the identity section
                    sections=[
                        s.entry("replaced", "R"),
                        s.EMPTY_PERSONA,
                        s.entry("a", "A"),
                        s.entry("extra", "X"),
                    ],
                    contexts=[s.entry("replaced", "R"), s.entry("extra", "X")],
                ),
            ),
            s.assemble(
                "a2",
                expect=s.assembly(
                    sections=_sections(s.entry("a", "A")), contexts=[s.entry("clock", "noon")]
                ),
            ),
        ),
    ),
    Case(
        id="mutation/returned-tool-list-is-fresh",
        contracts=MUTATION,
        why="Every assembly returns a fresh tool container: editing it changes no later assembly.",
        ops=(
            s.tools("tools", s.provider(s.toolset(s.schema("read")))),
            s.assemble("a1"),
            s.mutate("a1", ["tools"], append=s.schema("extra", strict=True)),
            s.mutate("a1", ["tools", 0], set=s.schema("replaced", title="R")),
            # PROTOCOL: mutate values are converted like provider values (extra keys dropped).
            s.await_("a1", expect=s.assembly(tools=[s.schema("replaced"), s.schema("extra")])),
            s.assemble("a2", expect=s.assembly(tools=[s.schema("read")])),
        ),
    ),
    Case(
        id="mutation/returned-variables-are-fresh",
        contracts=MUTATION,
        why=(
            "Mutating a returned assembly never changes a later assembly: a changed or added "
            "variable in one assembly's variables does not appear in the next."
        ),
        ops=(
            s.variable("var", "x", s.provider("orig")),
            s.assemble("a1"),
            s.mutate("a1", ["variables", "x"], set="changed"),
            s.mutate("a1", ["variables", "y"], set="added"),
            s.await_("a1", expect=s.assembly(variables={"x": "changed", "y": "added"})),
            s.assemble("a2", expect=s.assembly(variables={"x": "orig"})),
        ),
    ),
    Case(
        id="mutation/listener-edits-do-not-leak-into-later-assemblies",
        contracts=MUTATION,
        why=(
            "Every assembly returns fresh containers: what a waterfall listener did to one "
            "assembly's lists is gone in the next assembly once the listener is released."
        ),
        ops=(
            s.context("ctx", "clock", 1, "noon"),
            s.tools("tools", s.provider(s.toolset(s.schema("read")))),
            s.listen(
                "l",
                s.listener(
                    {"remove": "sections", "name": s.IDENTITY_NAME},
                    _append("sections", s.entry("extra", "X")),
                    _append("contexts", s.entry("extra", "X")),
                    _append("tools", s.schema("extra")),
                ),
            ),
            s.assemble(
                "a1",
                expect=s.assembly(
                    sections=[s.EMPTY_PERSONA, s.entry("extra", "X")],
                    contexts=[s.entry("clock", "noon"), s.entry("extra", "X")],
                    tools=[s.schema("read"), s.schema("extra")],
                ),
            ),
            s.release("l"),
            s.assemble(
                "a2",
                expect=s.assembly(
                    sections=BUILTINS,
                    contexts=[s.entry("clock", "noon")],
                    tools=[s.schema("read")],
                ),
            ),
        ),
    ),
    Case(
        id="pipeline/variable-provider-registers-section-in-time",
        contracts=PIPELINE,
        why=(
            "1. evaluate variables happens before 2. form the effective section and context "
            "maps: a section and a context registered by a variable provider are in the same "
            "assembly."
        ),
        ops=(
            s.variable(
                "var",
                "x",
                s.provider(
                    "X",
                    effects=[
                        s.section("late-sec", "late", 1, "L"),
                        s.context("late-ctx", "late", 1, "C"),
                    ],
                ),
            ),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=_sections(s.entry("late", "L")), contexts=[s.entry("late", "C")]
                ),
            ),
        ),
    ),
    Case(
        id="pipeline/variable-provider-creates-a-layer-its-tool-provider-waits",
        contracts=PIPELINE,
        why=(
            "The scope chain's layers are fixed when the assembly starts, and tool providers "
            "(step 3) are read from those layers only: a tool provider registered by a variable "
            "provider into a layer that did not exist when the assembly started is not seen "
            "(from the next assembly on, it is)."
        ),
        ops=(
            s.scope("s"),
            s.variable(
                "var",
                "x",
                s.provider(
                    "X",
                    effects=[s.tools("late", s.provider(s.toolset(s.schema("late"))), layer="s")],
                ),
            ),
            s.assemble("a1", "s", expect=s.assembly(tools=[])),
            s.assemble("a2", "s", expect=s.assembly(tools=[s.schema("late")])),
        ),
    ),
    Case(
        id="pipeline/variable-provider-creates-a-layer-its-section-is-seen",
        contracts=PIPELINE,
        why=(
            "The section and context maps of step 2 are formed from the layers on the chain at "
            "that moment: a section registered by a variable provider into a layer that did not "
            "exist when the assembly started is seen in that assembly."
        ),
        ops=(
            s.scope("s"),
            s.variable(
                "var",
                "x",
                s.provider("X", effects=[s.section("late-sec", "late", 1, "L", layer="s")]),
            ),
            s.assemble("a", "s", expect=s.assembly(sections=_sections(s.entry("late", "L")))),
        ),
    ),
    Case(
        id="pipeline/tool-provider-registers-section-too-late",
        contracts=PIPELINE,
        why=(
            "2. form the effective section and context maps happens before 3. evaluate the tool "
            "providers: a section or context registered by a tool provider joins from the next "
            "assembly on."
        ),
        ops=(
            s.tools(
                "tools",
                s.provider(
                    s.toolset(),
                    effects=[
                        s.section("late-sec", "late", 1, s.provider("L", id="late-sec")),
                        s.context("late-ctx", "late", 1, s.provider("C", id="late-ctx")),
                    ],
                ),
            ),
            s.assemble("a1", expect=s.assembly(sections=BUILTINS, contexts=[])),
            s.counts(expect=s.evaluations(**{"late-sec": 0, "late-ctx": 0})),
            s.assemble(
                "a2",
                expect=s.assembly(
                    sections=_sections(s.entry("late", "L")), contexts=[s.entry("late", "C")]
                ),
            ),
        ),
    ),
    Case(
        id="pipeline/complete-section-restored-after-an-in-place-edit",
        contracts=PIPELINE,
        why=(
            "5. remember the complete section's evaluated {name, text}; 9. replace the returned "
            "sections with exactly that remembered section — even when a listener edited the "
            "section object it was handed in place."
        ),
        ops=(
            s.section("full", "full", 5, "Full text", complete=True),
            s.listen("l", s.listener({"retext": "sections", "name": "full", "text": "tampered"})),
            s.assemble("a", expect=s.assembly(sections=[s.entry("full", "Full text")])),
        ),
    ),
    Case(
        id="mutation/returned-items-are-fresh",
        contracts=MUTATION,
        why=(
            "Every assembly returns fresh section, context and tool containers — their items "
            "included: editing a returned item in place changes neither a provider's data nor a "
            "later assembly."
        ),
        ops=(
            s.section("sec", "a", 1, "A"),
            s.context("ctx", "clock", 1, s.provider("noon")),
            s.tools("tools", s.provider(s.toolset(s.schema("read", "Read")))),
            s.assemble("a1"),
            s.mutate("a1", ["sections", 2, "text"], set="CHANGED"),
            s.mutate("a1", ["sections", 2, "name"], set="renamed"),
            s.mutate("a1", ["contexts", 0, "text"], set="CHANGED"),
            s.mutate("a1", ["tools", 0, "name"], set="renamed"),
            s.mutate("a1", ["tools", 0, "description"], set="CHANGED"),
            s.await_(
                "a1",
                expect=s.assembly(
                    sections=_sections(s.entry("renamed", "CHANGED")),
                    contexts=[s.entry("clock", "CHANGED")],
                    tools=[s.schema("renamed", "CHANGED")],
                ),
            ),
            s.assemble(
                "a2",
                expect=s.assembly(
                    sections=_sections(s.entry("a", "A")),
                    contexts=[s.entry("clock", "noon")],
                    tools=[s.schema("read", "Read")],
                ),
            ),
        ),
    ),
    Case(
        id="mutation/listener-in-place-edits-do-not-leak",
        contracts=MUTATION,
        why=(
            "Every assembly returns fresh containers: a listener that edits the section and "
            "context objects it is handed changes that assembly only."
        ),
        ops=(
            s.section("sec", "a", 1, "A"),
            s.context("ctx", "clock", 1, "noon"),
            s.listen(
                "l",
                s.listener(
                    {"retext": "sections", "name": "a", "text": "edited"},
                    {"retext": "contexts", "name": "clock", "text": "edited"},
                ),
            ),
            s.assemble(
                "a1",
                expect=s.assembly(
                    sections=_sections(s.entry("a", "edited")),
                    contexts=[s.entry("clock", "edited")],
                ),
            ),
            s.release("l"),
            s.assemble(
                "a2",
                expect=s.assembly(
                    sections=_sections(s.entry("a", "A")), contexts=[s.entry("clock", "noon")]
                ),
            ),
        ),
    ),
]
