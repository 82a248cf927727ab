"""PROMPT-VARIABLE-TEST: variable evaluation, shadowing and values that are absent."""

from __future__ import annotations

from ..judge.case import Case
from ..judge.logview import ABSENT
from ..scenarios import scenario as s
from ..scenarios.scenario import Json

VARIABLES = ("PROMPT-VARIABLE-TEST",)
NO_IDENTITY = s.configure({"includeHarnessIdentity": False})


def _new() -> Json:
    return s.provider("new", id="new")


def _late() -> Json:
    return s.provider("L", id="late")


def _chain() -> list[Json]:
    return [s.scope("gp"), s.scope("p", "gp"), s.scope("c", "p")]


CASES: list[Case] = [
    Case(
        id="variables/provider-value-is-listed",
        contracts=VARIABLES,
        why=(
            "Step 1 evaluates every variable provider once; the assembly lists each registered "
            "variable with its value, whether or not any section references it."
        ),
        ops=(
            s.variable("model", "model", s.provider("deepseek-chat", id="model")),
            s.variable("unused", "unused", s.provider("u", id="unused")),
            s.assemble("a", expect=s.assembly(variables={"model": "deepseek-chat", "unused": "u"})),
            s.counts(expect=s.evaluations(model=1, unused=1)),
        ),
    ),
    Case(
        id="variables/no-value-stays-listed-as-null",
        contracts=VARIABLES,
        why=(
            "A provider may return 'undefined' (no value): the variable stays listed as "
            "registered (null in the assembly)."
        ),
        ops=(
            s.variable("x", "x", s.provider(None)),
            s.assemble("a", expect=s.assembly(variables={"x": None})),
        ),
    ),
    Case(
        id="variables/empty-string-is-a-value",
        contracts=(*VARIABLES, "PROMPT-STRICT-RENDER"),
        why=(
            "Only 'undefined' means no value: '' is a value, listed as '' and inserted by "
            "render (not render-undefined-variable)."
        ),
        ops=(
            NO_IDENTITY,
            s.variable("x", "x", s.provider("")),
            s.section("body", "body", 1, "[{{x}}]"),
            s.assemble("a", expect=s.assembly(variables={"x": ""})),
            s.render("a", expect=s.text("[]")),
        ),
    ),
    Case(
        id="variables/shadowed-global-provider-still-runs",
        contracts=VARIABLES,
        why=(
            "Every provider runs, including a global one shadowed by a scoped one (its value is "
            "then overwritten): both run, the scoped value wins."
        ),
        ops=(
            s.scope("s"),
            s.variable("g", "x", s.provider("global", id="g")),
            s.variable("sc", "x", s.provider("scoped", id="sc"), layer="s"),
            s.assemble("a", "s", expect=s.assembly(variables={"x": "scoped"})),
            s.counts(expect=s.evaluations(g=1, sc=1)),
        ),
    ),
    Case(
        id="variables/all-chain-providers-run-nearest-wins",
        contracts=VARIABLES,
        why=(
            "Variables are evaluated over the layer tables global, then the chain farthest→"
            "nearest; every provider on the chain runs and the nearest value wins."
        ),
        ops=(
            *_chain(),
            *[
                s.variable(f"x-{lr}", "x", s.provider(f"from {lr}", id=lr), layer=layer)
                for lr, layer in (("g", None), ("gp", "gp"), ("p", "p"), ("c", "c"))
            ],
            s.assemble("in-c", "c", expect=s.assembly(variables={"x": "from c"})),
            s.counts(expect=s.evaluations(g=1, gp=1, p=1, c=1)),
            s.assemble("in-p", "p", expect=s.assembly(variables={"x": "from p"})),
            s.counts(expect=s.evaluations(g=2, gp=2, p=2, c=1)),
        ),
    ),
    Case(
        id="variables/shadowed-global-provider-failure-rejects",
        contracts=VARIABLES,
        why=(
            "Every variable provider runs, including a global one shadowed by a scoped one; a "
            "provider throwing rejects the whole assembly — even when its value would be "
            "overwritten (unlike a shadowed section provider, which is never called)."
        ),
        ops=(
            s.scope("s"),
            s.variable("g", "x", s.provider(fails="global x")),
            s.variable("sc", "x", s.provider("scoped"), layer="s"),
            s.assemble("a", "s", expect=s.error("scripted-failure")),
        ),
    ),
    Case(
        id="variables/nearest-no-value-overrides-farther-value",
        contracts=(*VARIABLES, "PROMPT-STRICT-RENDER"),
        why=(
            "The nearest layer wins a variable name and the shadowed value is overwritten, "
            "also by 'no value': the variable is null and a reference to it is "
            "render-undefined-variable."
        ),
        ops=(
            s.scope("s"),
            s.variable("g", "x", s.provider("global")),
            s.variable("sc", "x", s.provider(None), layer="s"),
            s.section("body", "body", 1, "{{x}}"),
            s.assemble("a", "s", expect=s.assembly(variables={"x": None})),
            s.render("a", expect=s.error("render-undefined-variable", where="body")),
        ),
    ),
    Case(
        id="variables/nearest-value-overrides-farther-no-value",
        contracts=VARIABLES,
        why="The nearest layer wins the name: a scoped value overwrites a global 'no value'.",
        ops=(
            s.scope("s"),
            s.variable("g", "x", s.provider(None)),
            s.variable("sc", "x", s.provider("scoped"), layer="s"),
            s.assemble("in-s", "s", expect=s.assembly(variables={"x": "scoped"})),
            s.assemble("in-g", expect=s.assembly(variables={"x": None})),
        ),
    ),
    Case(
        id="variables/evaluated-once-per-assembly",
        contracts=(*VARIABLES, "PROMPT-STRICT-RENDER"),
        why=(
            "Variables are evaluated once per assembly (step 1): each assembly gets a new "
            "evaluation; render uses the assembly's values and evaluates nothing again."
        ),
        ops=(
            NO_IDENTITY,
            s.variable("x", "x", s.provider(sequence=["one", "two"], id="x")),
            s.section("body", "body", 1, "{{x}} and {{x}}"),
            s.assemble("a1", expect=s.assembly(variables={"x": "one"})),
            s.render("a1", expect=s.text("one and one")),
            s.counts(expect=s.evaluations(x=1)),
            s.assemble("a2", expect=s.assembly(variables={"x": "two"})),
            s.render("a2", expect=s.text("two and two")),
            s.render("a1", expect=s.text("one and one")),
            s.counts(expect=s.evaluations(x=2)),
        ),
    ),
    Case(
        id="variables/registrations-during-evaluation-chain",
        contracts=VARIABLES,
        why=(
            "Iteration over the live layer tables visits later insertions: a registers b, b "
            "registers c, all three are evaluated in the same assembly, once each."
        ),
        ops=(
            s.variable(
                "a",
                "a",
                s.provider(
                    "A",
                    id="a",
                    effects=[
                        s.variable(
                            "b",
                            "b",
                            s.provider(
                                "B",
                                id="b",
                                effects=[s.variable("c", "c", s.provider("C", id="c"))],
                            ),
                        )
                    ],
                ),
            ),
            s.assemble("a1", expect=s.assembly(variables={"a": "A", "b": "B", "c": "C"})),
            s.counts(expect=s.evaluations(a=1, b=1, c=1)),
        ),
    ),
    Case(
        id="variables/global-provider-registers-scoped-variable",
        contracts=VARIABLES,
        why=(
            "Layers are iterated global, then the chain farthest→nearest, live: a variable that "
            "a global provider registers in the assembly's own scope layer is evaluated in the "
            "same assembly and, being nearer, wins its name."
        ),
        ops=(
            s.scope("s"),
            # Layer s exists before the assembly starts ("every existing layer on S's chain").
            s.variable("sx", "x", s.provider("X"), layer="s"),
            s.variable(
                "a",
                "a",
                s.provider(
                    "A",
                    effects=[s.variable("sb", "b", s.provider("scoped B", id="sb"), layer="s")],
                ),
            ),
            s.variable("gb", "b", s.provider("global B")),
            s.assemble(
                "a1", "s", expect=s.assembly(variables={"a": "A", "b": "scoped B", "x": "X"})
            ),
            s.counts(expect=s.evaluations(sb=1)),
        ),
    ),
    Case(
        id="variables/off-chain-providers-not-run",
        contracts=VARIABLES,
        why=(
            "An assembly evaluates the variables of the global layer and S's chain only: a "
            "variable of scope a is neither listed nor evaluated for the global assembly or "
            "for sibling b."
        ),
        ops=(
            s.scope("a"),
            s.scope("b"),
            s.variable("va", "x", s.provider("in a", id="va"), layer="a"),
            s.assemble("in-g", expect=s.assembly(variables={"x": ABSENT})),
            s.assemble("in-b", "b", expect=s.assembly(variables={"x": ABSENT})),
            s.counts(expect=s.evaluations(va=0)),
        ),
    ),
    Case(
        id="variables/released-variable-not-evaluated",
        contracts=VARIABLES,
        why=(
            "Only registered variables are evaluated and listed: after release the provider "
            "no longer runs and the name is gone."
        ),
        ops=(
            s.variable("x", "x", s.provider("X", id="x")),
            s.assemble("a1", expect=s.assembly(variables={"x": "X"})),
            s.release("x"),
            s.assemble("a2", expect=s.assembly(variables={"x": ABSENT})),
            s.counts(expect=s.evaluations(x=1)),
        ),
    ),
    Case(
        id="variables/released-before-its-turn-is-not-evaluated",
        contracts=VARIABLES,
        why=(
            "Variables are evaluated by iterating the live layer tables: a variable that an "
            "earlier variable provider releases before its turn is neither evaluated nor listed."
        ),
        ops=(
            s.variable("a", "a", s.provider("A", effects=[s.release("b")])),
            s.variable("b", "b", s.provider("B", id="b")),
            s.assemble("a1", expect=s.assembly(variables={"a": "A"})),
            s.counts(expect=s.evaluations(b=0)),
        ),
    ),
    # -- table generations and the layers visited (CONTRACTS.md, updated for issue 6) -------
    Case(
        id="variables/self-replacement-alone-in-its-table-waits-for-the-next-assembly",
        contracts=VARIABLES,
        why=(
            "Releasing a table's last variable drains it and starts a new generation: an "
            "iteration in progress over that table stops there, and variables registered into it "
            "afterwards are first evaluated by the next assembly (e.g. a scoped variable that "
            "releases itself and registers its replacement). A section keeps layer s alive, so "
            "only the generation rule is at work; the old provider was evaluated, so its value "
            "is listed."
        ),
        ops=(
            s.scope("s"),
            s.section("keep", "keep", 1, "", layer="s"),
            s.variable(
                "old",
                "x",
                s.provider(
                    "old",
                    id="old",
                    effects=[s.release("old"), s.variable("new", "x", _new(), layer="s")],
                ),
                layer="s",
            ),
            s.assemble("a1", "s", expect=s.assembly(variables={"x": "old"})),
            s.counts(expect=s.evaluations(old=1, new=0)),
            s.assemble("a2", "s", expect=s.assembly(variables={"x": "new"})),
            s.counts(expect=s.evaluations(old=1, new=1)),
        ),
    ),
    Case(
        id="variables/self-replacement-beside-another-variable-is-evaluated-now",
        contracts=VARIABLES,
        why=(
            "Within one visited table the iteration is live for one table generation: the table "
            "still holds y when x releases itself, so no new generation starts, and the "
            "replacement registered before the iteration over that table ends is evaluated in "
            "the same assembly (after y), its value overwriting the old one."
        ),
        ops=(
            s.scope("s"),
            s.variable(
                "old",
                "x",
                s.provider(
                    "old",
                    id="old",
                    effects=[s.release("old"), s.variable("new", "x", _new(), layer="s")],
                ),
                layer="s",
            ),
            s.variable("y", "y", s.provider("Y", id="y"), layer="s"),
            s.assemble("a1", "s", expect=s.assembly(variables={"x": "new", "y": "Y"})),
            s.counts(expect=s.evaluations(old=1, new=1, y=1)),
        ),
    ),
    Case(
        id="variables/provider-releasing-a-later-scoped-variable",
        contracts=VARIABLES,
        why=(
            "A variable released before it is reached is not evaluated: the global provider "
            "releases b of layer s, which is visited later (global first, then the chain); c "
            "keeps the table's generation alive and is evaluated."
        ),
        ops=(
            s.scope("s"),
            s.variable("a", "a", s.provider("A", id="a", effects=[s.release("b")])),
            s.variable("b", "b", s.provider("B", id="b"), layer="s"),
            s.variable("c", "c", s.provider("C", id="c"), layer="s"),
            s.assemble("a1", "s", expect=s.assembly(variables={"a": "A", "c": "C"})),
            s.counts(expect=s.evaluations(a=1, b=0, c=1)),
        ),
    ),
    Case(
        id="variables/layer-created-mid-assembly-is-not-visited",
        contracts=VARIABLES,
        why=(
            "The layers visited are fixed when the assembly starts: a scoped layer exists while "
            "it holds at least one registration, so s has no layer when the assembly starts, "
            "and the layer the global provider creates by registering into s is not visited; "
            "the next assembly evaluates it."
        ),
        ops=(
            s.scope("s"),
            s.variable(
                "a",
                "a",
                s.provider("A", effects=[s.variable("late", "b", _late(), layer="s")]),
            ),
            s.assemble("a1", "s", expect=s.assembly(variables={"a": "A"})),
            s.counts(expect=s.evaluations(late=0)),
            s.assemble("a2", "s", expect=s.assembly(variables={"a": "A", "b": "L"})),
            s.counts(expect=s.evaluations(late=1)),
        ),
    ),
    Case(
        id="variables/layer-re-created-mid-assembly-is-not-visited",
        contracts=VARIABLES,
        why=(
            "A layer re-created after it emptied during the assembly is not visited: releasing "
            "s's only registration ends layer s, and registering into s again creates a new "
            "layer, evaluated from the next assembly."
        ),
        ops=(
            s.scope("s"),
            s.variable(
                "a",
                "a",
                s.provider(
                    "A",
                    effects=[s.release("only"), s.variable("late", "b", _late(), layer="s")],
                ),
            ),
            s.variable("only", "x", s.provider("X", id="only"), layer="s"),
            s.assemble("a1", "s", expect=s.assembly(variables={"a": "A"})),
            s.counts(expect=s.evaluations(only=0, late=0)),
            s.assemble("a2", "s", expect=s.assembly(variables={"a": "A", "b": "L"})),
        ),
    ),
]
