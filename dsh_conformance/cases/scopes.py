"""DESIGN-SCOPED-LAYERS and PROMPT-SCOPE-SHADOW: the global layer plus a scope chain.

Most cases use the chain global → gp → p → c (grandparent, parent, child).

Why one module: it is a table of cases over the one scope chain defined at its top; splitting
it would repeat the chain in every part.
"""

from __future__ import annotations

from ..judge.case import Case
from ..judge.logview import ABSENT
from ..scenarios import scenario as s
from ..scenarios.scenario import Json

LAYERS = ("DESIGN-SCOPED-LAYERS",)
SHADOW = ("PROMPT-SCOPE-SHADOW",)
BUILTINS = [s.IDENTITY, s.EMPTY_PERSONA]
CHAIN = ("gp", "p", "c")
LAYER_NAMES = (None, *CHAIN)


def _chain() -> list[Json]:
    """Scopes gp, p (child of gp) and c (child of p)."""
    return [s.scope("gp"), s.scope("p", "gp"), s.scope("c", "p")]


def _label(layer: str | None) -> str:
    return "g" if layer is None else layer


def _sections(*extra: Json) -> list[Json]:
    return [*BUILTINS, *extra]


def _with_scope(register: Json, scope: str | None) -> Json:
    """A `register` op saying `scope` (protocol 1.1) where the builders say `layer`."""
    return {**{k: v for k, v in register.items() if k != "layer"}, "scope": scope}


def _payload() -> Json:
    """The registry's output with nothing registered: what the waterfall's first listener gets."""
    return {"sections": _sections(), "contexts": [], "tools": [], "variables": {}}


def _append_section(name: str, text: str) -> Json:
    return s.append("sections", s.entry(name, text))


CASES: list[Case] = [
    # -- DESIGN-SCOPED-LAYERS: nearest layer wins a name -------------------------------------
    Case(
        id="scopes/nearest-section-wins-on-a-chain-of-three",
        contracts=LAYERS,
        why=(
            "An assembly for scope S sees the global layer, then every layer on S's chain from "
            "the farthest ancestor to S; for sections the nearest layer wins a name."
        ),
        ops=(
            *_chain(),
            *[
                s.section(f"x-{_label(lr)}", "x", 1, f"from {_label(lr)}", layer=lr)
                for lr in LAYER_NAMES
            ],
            *[
                s.assemble(
                    f"a-{_label(lr)}",
                    lr,
                    expect=s.assembly(sections=_sections(s.entry("x", f"from {_label(lr)}"))),
                )
                for lr in LAYER_NAMES
            ],
        ),
    ),
    Case(
        id="scopes/nearest-context-wins-on-a-chain-of-three",
        contracts=LAYERS,
        why="For contexts the nearest layer on the scope chain wins a name.",
        ops=(
            *_chain(),
            *[
                s.context(f"x-{_label(lr)}", "x", 1, f"from {_label(lr)}", layer=lr)
                for lr in LAYER_NAMES
            ],
            *[
                s.assemble(
                    f"a-{_label(lr)}",
                    lr,
                    expect=s.assembly(contexts=[s.entry("x", f"from {_label(lr)}")]),
                )
                for lr in LAYER_NAMES
            ],
        ),
    ),
    Case(
        id="scopes/nearest-variable-wins-on-a-chain-of-three",
        contracts=LAYERS,
        why="For variables the nearest layer on the scope chain wins a name.",
        ops=(
            *_chain(),
            *[
                s.variable(f"x-{_label(lr)}", "x", s.provider(f"from {_label(lr)}"), layer=lr)
                for lr in LAYER_NAMES
            ],
            *[
                s.assemble(
                    f"a-{_label(lr)}", lr, expect=s.assembly(variables={"x": f"from {_label(lr)}"})
                )
                for lr in LAYER_NAMES
            ],
        ),
    ),
    Case(
        id="scopes/nearest-existing-layer-wins",
        contracts=LAYERS,
        why=(
            "The assembly sees every *existing* layer on the chain: when only global and gp "
            "define section x and only global and p define variable y, scope c gets gp's x and "
            "p's y."
        ),
        ops=(
            *_chain(),
            s.section("x-g", "x", 1, "from g"),
            s.section("x-gp", "x", 1, "from gp", layer="gp"),
            s.variable("y-g", "y", s.provider("from g")),
            s.variable("y-p", "y", s.provider("from p"), layer="p"),
            s.assemble(
                "a",
                "c",
                expect=s.assembly(
                    sections=_sections(s.entry("x", "from gp")), variables={"y": "from p"}
                ),
            ),
        ),
    ),
    Case(
        id="scopes/layers-merge-distinct-names",
        contracts=LAYERS,
        why=(
            "Distinct names from the global layer and every layer on the chain all take part; "
            "a scope does not see its descendants' layers."
        ),
        ops=(
            *_chain(),
            s.section("g", "g", 1, "G"),
            s.section("gp", "gp", 2, "GP", layer="gp"),
            s.section("c", "c", 3, "C", layer="c"),
            s.context("ctx-p", "p", 1, "P", layer="p"),
            s.variable("var-gp", "gp", s.provider("GP"), layer="gp"),
            s.variable("var-c", "c", s.provider("C"), layer="c"),
            s.assemble(
                "in-c",
                "c",
                expect=s.assembly(
                    sections=_sections(s.entry("g", "G"), s.entry("gp", "GP"), s.entry("c", "C")),
                    contexts=[s.entry("p", "P")],
                    variables={"gp": "GP", "c": "C"},
                ),
            ),
            s.assemble(
                "in-gp",
                "gp",
                expect=s.assembly(
                    sections=_sections(s.entry("g", "G"), s.entry("gp", "GP")),
                    contexts=[],
                    variables={"gp": "GP"},
                ),
            ),
        ),
    ),
    Case(
        id="scopes/sibling-scopes-do-not-see-each-other",
        contracts=LAYERS,
        why=(
            "Only layers on S's own chain are seen: a registration in sibling scope a (same "
            "parent) is invisible to an assembly for scope b, and its providers are not run."
        ),
        ops=(
            s.scope("p"),
            s.scope("a", "p"),
            s.scope("b", "p"),
            s.section("sec", "only-a", 1, "A", layer="a"),
            s.context("ctx", "only-a", 1, "A", layer="a"),
            s.variable("var", "only_a", s.provider("A", id="var"), layer="a"),
            s.tools("tools", s.provider(s.toolset(s.schema("only_a")), id="tools"), layer="a"),
            s.assemble(
                "in-b",
                "b",
                expect=s.assembly(
                    sections=BUILTINS, contexts=[], tools=[], variables={"only_a": ABSENT}
                ),
            ),
            s.counts(expect=s.evaluations(var=0, tools=0)),
            s.assemble(
                "in-a",
                "a",
                expect=s.assembly(
                    sections=_sections(s.entry("only-a", "A")),
                    contexts=[s.entry("only-a", "A")],
                    tools=[s.schema("only_a")],
                    variables={"only_a": "A"},
                ),
            ),
        ),
    ),
    Case(
        id="scopes/ties-by-layer-then-registration-position",
        contracts=LAYERS,
        why=(
            "Sections sort ascending by order, ties by position in the effective map, which is "
            "formed from the global layer then the chain farthest→nearest — not by the time of "
            "registration (here the child's section was registered first)."
        ),
        ops=(
            *_chain(),
            s.section("w", "w", 1, "from c", layer="c"),
            s.section("z", "z", 1, "from p", layer="p"),
            s.section("y", "y", 1, "from gp", layer="gp"),
            s.section("x2", "x2", 1, "from g, second"),
            s.section("x1", "x1", 1, "from g, first"),
            s.assemble(
                "a",
                "c",
                expect=s.assembly(
                    sections=_sections(
                        s.entry("x2", "from g, second"),
                        s.entry("x1", "from g, first"),
                        s.entry("y", "from gp"),
                        s.entry("z", "from p"),
                        s.entry("w", "from c"),
                    )
                ),
            ),
        ),
    ),
    Case(
        id="scopes/shadowing-section-takes-shadowed-position",
        contracts=LAYERS,
        why=(
            "Ties are broken by position in the effective map, where an entry that shadows a "
            "name takes the shadowed entry's position: scoped `a` stays before global `b`."
        ),
        ops=(
            s.scope("s"),
            s.section("a", "a", 1, "A"),
            s.section("b", "b", 1, "B"),
            s.section("a2", "a", 1, "scoped A", layer="s"),
            s.assemble(
                "a",
                "s",
                expect=s.assembly(sections=_sections(s.entry("a", "scoped A"), s.entry("b", "B"))),
            ),
        ),
    ),
    Case(
        id="scopes/shadowing-context-takes-shadowed-position",
        contracts=LAYERS,
        why=(
            "Contexts sort like sections: ties by effective-map position, a shadowing entry "
            "taking the shadowed entry's position (a grandparent's, here)."
        ),
        ops=(
            *_chain(),
            s.context("a", "a", 1, "A", layer="gp"),
            s.context("b", "b", 1, "B", layer="p"),
            s.context("a2", "a", 1, "A from c", layer="c"),
            s.assemble(
                "a",
                "c",
                expect=s.assembly(contexts=[s.entry("a", "A from c"), s.entry("b", "B")]),
            ),
        ),
    ),
    Case(
        id="scopes/shadowing-entry-keeps-its-own-order",
        contracts=LAYERS,
        why=(
            "The inherited position only breaks ties: the shadowing entry sorts by its own "
            "`order` (3), after global `b` (2)."
        ),
        ops=(
            s.scope("s"),
            s.section("a", "a", 1, "A"),
            s.section("b", "b", 2, "B"),
            s.section("a2", "a", 3, "scoped A", layer="s"),
            s.assemble(
                "a",
                "s",
                expect=s.assembly(sections=_sections(s.entry("b", "B"), s.entry("a", "scoped A"))),
            ),
        ),
    ),
    Case(
        id="scopes/scoped-persona-replaces-global-persona-in-its-scope-only",
        contracts=(*LAYERS, "PROMPT-REGISTRY-CONTRACT"),
        why=(
            "Identity and persona are ordinary sections: a scoped persona replaces the global "
            "persona for that scope only, taking its position (before global `g`, also order 0)."
        ),
        ops=(
            s.configure({"persona": "Global persona"}),
            s.scope("s"),
            s.scope("t"),
            s.section("g", "g", 0, "G"),
            s.section("persona", s.PERSONA_NAME, 0, "Scoped persona", layer="s"),
            s.assemble(
                "in-s",
                "s",
                expect=s.assembly(
                    sections=[
                        s.IDENTITY,
                        s.entry(s.PERSONA_NAME, "Scoped persona"),
                        s.entry("g", "G"),
                    ]
                ),
            ),
            s.render("in-s", expect=s.text(f"{s.IDENTITY_TEXT}\n\nScoped persona\n\nG")),
            *[
                s.assemble(
                    f"in-{where}",
                    None if where == "global" else where,
                    expect=s.assembly(
                        sections=[
                            s.IDENTITY,
                            s.entry(s.PERSONA_NAME, "Global persona"),
                            s.entry("g", "G"),
                        ]
                    ),
                )
                for where in ("global", "t")
            ],
        ),
    ),
    Case(
        id="scopes/scoped-identity-shadows-builtin-identity",
        contracts=(*LAYERS, "PROMPT-REGISTRY-CONTRACT"),
        why=(
            "The identity is an ordinary section: a scoped section named harness:identity "
            "shadows it in that scope, with its own text and order (5, after persona's 0)."
        ),
        ops=(
            s.scope("s"),
            s.section("id", s.IDENTITY_NAME, 5, "Custom identity", layer="s"),
            s.assemble(
                "a",
                "s",
                expect=s.assembly(
                    sections=[s.EMPTY_PERSONA, s.entry(s.IDENTITY_NAME, "Custom identity")]
                ),
            ),
            s.render("a", expect=s.text("Custom identity")),
        ),
    ),
    Case(
        id="scopes/tool-providers-of-every-chain-layer-contribute",
        contracts=LAYERS,
        why=(
            "Tool providers of all the layers seen (global, then the chain) contribute; a "
            "scope's providers do not contribute to its ancestors' assemblies."
        ),
        ops=(
            *_chain(),
            s.tools("t-c", s.provider(s.toolset(s.schema("c_tool"))), layer="c"),
            s.tools("t-gp", s.provider(s.toolset(s.schema("gp_tool"))), layer="gp"),
            s.tools("t-g", s.provider(s.toolset(s.schema("g_tool")))),
            s.assemble(
                "in-c",
                "c",
                expect=s.assembly(
                    tools=[s.schema("c_tool"), s.schema("g_tool"), s.schema("gp_tool")]
                ),
            ),
            s.assemble(
                "in-gp", "gp", expect=s.assembly(tools=[s.schema("g_tool"), s.schema("gp_tool")])
            ),
            s.assemble("in-g", expect=s.assembly(tools=[s.schema("g_tool")])),
        ),
    ),
    Case(
        id="scopes/scoped-listener-sees-its-scope-and-descendants",
        contracts=LAYERS,
        why=(
            "An unscoped listener sees every assembly; a scoped listener sees assemblies of its "
            "scope and of that scope's descendants only (not ancestors, not other roots)."
        ),
        ops=(
            *_chain(),
            s.scope("other"),
            s.scope("other_child", "other"),
            s.listen(
                "lgp",
                s.listener({"append": "contexts", "item": s.entry("seen", "by gp")}, id="lgp"),
                scope="gp",
            ),
            s.listen("lall", s.listener(id="lall")),
            s.assemble("in-g", expect=s.assembly(contexts=[])),
            s.assemble("in-gp", "gp", expect=s.assembly(contexts=[s.entry("seen", "by gp")])),
            s.assemble("in-p", "p"),
            s.assemble("in-c", "c", expect=s.assembly(contexts=[s.entry("seen", "by gp")])),
            s.assemble("in-other", "other", expect=s.assembly(contexts=[])),
            s.assemble("in-other-child", "other_child", expect=s.assembly(contexts=[])),
            s.counts(expect=s.evaluations(lgp=3, lall=6)),
        ),
    ),
    Case(
        id="scopes/listeners-compose-outermost-first-in-registration-order",
        contracts=LAYERS,
        requires=s.REGISTRY_1_1,
        why=(
            "Listeners compose outermost-first in registration order (the first registered is "
            "outermost): the outer listener's edit before `next` comes first, the inner one's "
            "after it; after `next`, the inner listener edits first and the outer one last."
        ),
        ops=(
            s.configure({"includeHarnessIdentity": False}),
            s.listen(
                "outer",
                s.listener(
                    s.append("sections", s.entry("outer-after", "D")),
                    before=[s.append("sections", s.entry("outer-before", "A"))],
                ),
            ),
            s.listen(
                "inner",
                s.listener(
                    s.append("sections", s.entry("inner-after", "C")),
                    before=[s.append("sections", s.entry("inner-before", "B"))],
                ),
            ),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=[
                        s.EMPTY_PERSONA,
                        s.entry("outer-before", "A"),
                        s.entry("inner-before", "B"),
                        s.entry("inner-after", "C"),
                        s.entry("outer-after", "D"),
                    ]
                ),
            ),
        ),
    ),
    Case(
        id="scopes/listeners-share-one-payload-object",
        contracts=LAYERS,
        requires=s.REGISTRY_1_1,
        why=(
            "Every listener and the innermost step share the one payload object, so an in-place "
            "edit made before `next` is what inner listeners see: the inner listener is given "
            "the payload with the outer one's edits (a section appended, a variable set), and "
            "the innermost step returns that same object."
        ),
        ops=(
            s.configure({"includeHarnessIdentity": False}),
            s.variable("x", "x", s.provider("from provider")),
            s.listen(
                "outer",
                s.listener(
                    before=[
                        s.append("sections", s.entry("added", "by outer")),
                        s.set_variable("x", "from outer"),
                        s.set_variable("y", None),
                    ],
                ),
            ),
            s.listen("inner", s.listener(id="inner")),
            s.assemble(
                "a",
                expect=s.assembly(
                    sections=[s.EMPTY_PERSONA, s.entry("added", "by outer")],
                    variables={"x": "from outer", "y": None},
                ),
            ),
            s.received(
                "inner",
                expect=s.calls(
                    s.call(
                        payload={
                            "sections": [s.EMPTY_PERSONA, s.entry("added", "by outer")],
                            "contexts": [],
                            "tools": [],
                            "variables": {"x": "from outer", "y": None},
                        }
                    )
                ),
            ),
        ),
    ),
    Case(
        id="scopes/released-scoped-context-lets-the-global-one-show-again",
        contracts=LAYERS,
        why=(
            "The nearest layer wins a name, among the registrations in force: once the scoped "
            "context is released, the scope's assemblies see the global context of that name "
            "again (it was shadowed, never removed)."
        ),
        ops=(
            s.scope("s"),
            s.context("g", "clock", 1, "global"),
            s.context("sc", "clock", 1, "scoped", layer="s"),
            s.assemble("a1", "s", expect=s.assembly(contexts=[s.entry("clock", "scoped")])),
            s.release("sc"),
            s.assemble("a2", "s", expect=s.assembly(contexts=[s.entry("clock", "global")])),
            s.assemble("a3", expect=s.assembly(contexts=[s.entry("clock", "global")])),
        ),
    ),
    Case(
        id="scopes/disposing-a-scope-releases-what-it-holds",
        contracts=LAYERS,
        requires=s.REGISTRY_1_1,
        why=(
            "Disposing a scope (PROTOCOL: dispose) releases every registration and listener "
            "made in it: each release emits its system-prompt/change notification (five "
            "here), the names it shadowed show again, its tools, variable, suppressor and "
            "listener are gone — and what its child scope holds stays."
        ),
        ops=(
            s.scope("s"),
            s.scope("c", "s"),
            s.context("g", "clock", 1, "global"),
            s.section("sx", "x", 1, "from s", layer="s"),
            s.context("sctx", "clock", 1, "from s", layer="s"),
            s.variable("sv", "v", s.provider("from s"), layer="s"),
            s.tools("st", s.provider(s.toolset(s.schema("s_tool"))), layer="s"),
            s.suppressor("ssup", layer="s"),
            s.listen("sl", s.listener(id="sl"), scope="s"),
            s.section("cx", "y", 2, "from c", layer="c"),
            s.counts(expect=s.evaluations(changes=7)),
            s.dispose("s"),
            s.counts(expect=s.evaluations(changes=12)),
            s.assemble(
                "a",
                "c",
                expect=s.assembly(
                    sections=_sections(s.entry("y", "from c")),
                    contexts=[s.entry("clock", "global")],
                    tools=[],
                    variables={"v": ABSENT},
                ),
            ),
            s.counts(expect=s.evaluations(sl=0)),
        ),
    ),
    Case(
        id="scopes/providers-and-listeners-get-the-assembly-context",
        contracts=LAYERS,
        requires=s.REGISTRY_1_1,
        why=(
            "Every provider and listener of an assembly for scope c is given that assembly "
            "context (scope c), including those registered in the global layer and in c's "
            "parent. (Whether it carries an `agent` is checked with registry-1.2.)"
        ),
        ops=(
            s.scope("p"),
            s.scope("c", "p"),
            s.variable("v", "v", s.provider("V", id="v")),
            s.section("sec", "sec", 1, s.provider("S", id="sec"), layer="p"),
            s.context("ctx", "ctx", 1, s.provider("C", id="ctx"), layer="c"),
            s.tools("tools", s.provider(s.toolset(), id="tools"), layer="p"),
            s.assemble("a", "c"),
            *[
                s.received(tracked, expect=s.calls(s.call("c", agent=s.NOT_COMPARED)))
                for tracked in ("v", "sec", "ctx", "tools")
            ],
            s.assemble("b"),
            s.received(
                "v",
                expect=s.calls(
                    s.call("c", agent=s.NOT_COMPARED), s.call(None, agent=s.NOT_COMPARED)
                ),
            ),
        ),
    ),
    Case(
        id="scopes/assemble-passes-no-agent-outside-an-agents-scope",
        contracts=LAYERS,
        requires=s.REGISTRY_1_2,
        why=(
            "In the loop, the assembly context carries the agent as both `agent` and `scope`; "
            "an assembly for a scope that is no agent's is given `{scope, signal}` only "
            "(PROTOCOL.md: `assemble` passes `agent` only for an agent's own scope)."
        ),
        ops=(
            s.scope("c"),
            s.variable("v", "v", s.provider("V", id="v")),
            s.listen("l", s.listener(id="l"), scope="c"),
            s.assemble("a", "c"),
            s.received("v", expect=s.calls(s.call("c", agent=None))),
            s.received("l", expect=s.calls(s.call("c", agent=None))),
        ),
    ),
    Case(
        id="scopes/listener-waiting-for-the-abort-signal",
        contracts=LAYERS,
        why=(
            "system-prompt/assemble listeners are asynchronous and may block (await a gate or "
            "the abort signal): a listener waiting for the signal keeps its assembly pending "
            "until that assembly — and no other — is aborted, then goes on; the assembly then "
            "completes with the listener's result."
        ),
        ops=(
            s.listen(
                "l",
                s.listener(
                    _append_section("after-abort", "A"),
                    id="l",
                    wait_abort=True,
                ),
            ),
            s.assemble("a", expect=s.PENDING),
            s.assemble("b", expect=s.PENDING),
            s.abort("a"),
            s.await_("a", expect=s.assembly(sections=_sections(s.entry("after-abort", "A")))),
            s.await_("b", expect=s.PENDING),
            s.abort("b", {"kind": "disposed"}),
            s.await_("b", expect=s.assembly(sections=_sections(s.entry("after-abort", "A")))),
        ),
    ),
    Case(
        id="scopes/abort-reasons-reach-the-assembly-context",
        contracts=LAYERS,
        requires=s.REGISTRY_1_1,
        why=(
            "The assembly context carries the assembly's own abort signal, so a listener that "
            "runs after the abort sees it aborted, with the reason given (PROTOCOL: `abort` "
            "without a reason means {kind: user}; an assembly may start already aborted)."
        ),
        ops=(
            s.listen("outer", s.listener(wait_abort=True)),
            s.listen("inner", s.listener(id="inner")),
            s.assemble("a", expect=s.PENDING),
            s.assemble("b", expect=s.PENDING),
            s.received("inner", expect=s.calls()),
            s.abort("a"),
            s.abort("b", {"kind": "disposed"}),
            s.assemble("c", aborted=True, reason={"kind": "disposed", "by": "test"}),
            s.received(
                "inner",
                expect=s.calls(
                    s.call(reason={"kind": "user"}, payload=_payload()),
                    s.call(reason={"kind": "disposed"}, payload=_payload()),
                    s.call(reason={"kind": "disposed", "by": "test"}, payload=_payload()),
                ),
            ),
        ),
    ),
    Case(
        id="scopes/releasing-one-registration-keeps-the-rest-of-the-layer",
        contracts=LAYERS,
        why=(
            "Every existing layer on S's chain is seen; a release removes that registration "
            "only: the scope's other sections, contexts and tool providers stay in force, "
            "whichever kind goes first."
        ),
        ops=(
            s.scope("s"),
            s.section("x", "x", 1, "X", layer="s"),
            s.context("c", "c", 1, "C", layer="s"),
            s.tools("t", s.provider(s.toolset(s.schema("s_tool"))), layer="s"),
            s.release("c"),
            s.assemble(
                "a1",
                "s",
                expect=s.assembly(
                    sections=_sections(s.entry("x", "X")), contexts=[], tools=[s.schema("s_tool")]
                ),
            ),
            s.release("x"),
            s.assemble(
                "a2", "s", expect=s.assembly(sections=_sections(), tools=[s.schema("s_tool")])
            ),
            s.suppressor("sup", layer="s"),
            s.context("c2", "c", 1, "C", layer="s"),
            s.release("t"),
            s.assemble("a3", "s", expect=s.assembly(contexts=[], tools=[])),
            s.release("sup"),
            s.assemble("a4", "s", expect=s.assembly(contexts=[s.entry("c", "C")])),
        ),
    ),
    Case(
        id="scopes/disposing-an-empty-scope",
        contracts=LAYERS,
        requires=s.REGISTRY_1_1,
        why=(
            "Disposing a scope releases what it holds (PROTOCOL: dispose): a scope that holds "
            "nothing, or whose registrations were all released already, releases nothing and "
            "emits no notification."
        ),
        ops=(
            s.scope("empty"),
            s.scope("s"),
            s.section("x", "x", 1, "X", layer="s"),
            s.release("x"),
            s.counts(expect=s.evaluations(changes=2)),
            s.dispose("empty"),
            s.dispose("s"),
            s.counts(expect=s.evaluations(changes=2)),
        ),
    ),
    Case(
        id="scopes/listener-gates-are-independent-and-stay-open",
        contracts=LAYERS,
        why=(
            "Listeners may block on a gate (PROTOCOL: a gate, once open, stays open): a gate "
            "opened before a listener waits on it does not block, and opening one gate does not "
            "release a listener waiting on another."
        ),
        ops=(
            s.open_gate("early"),
            s.listen("first", s.listener(id="first", wait_gate="early")),
            s.listen("second", s.listener(id="second", wait_gate="late")),
            s.assemble("a", expect=s.PENDING),
            s.counts(expect=s.evaluations(first=1, second=1)),
            s.open_gate("unrelated"),
            s.await_("a", expect=s.PENDING),
            s.open_gate("late"),
            s.await_("a", expect=s.assembly(sections=_sections())),
        ),
    ),
    Case(
        id="scopes/register-says-scope-since-1-1",
        contracts=LAYERS,
        requires=s.REGISTRY_1_1,
        why=(
            "Each registration is made in the caller's layer, global or one scope (PROTOCOL "
            "1.1: `register` takes `scope` as the word for `layer`): a section registered with "
            "scope s is seen by s's assemblies only."
        ),
        ops=(
            s.scope("s"),
            _with_scope(s.section("x", "x", 1, "in s"), "s"),
            _with_scope(s.context("g", "clock", 1, "global"), None),
            s.assemble("in-s", "s", expect=s.assembly(sections=_sections(s.entry("x", "in s")))),
            s.assemble(
                "in-g",
                expect=s.assembly(sections=_sections(), contexts=[s.entry("clock", "global")]),
            ),
        ),
    ),
    Case(
        id="scopes/provider-waiting-for-the-abort-signal",
        contracts=LAYERS,
        requires=s.ASYNC_PROVIDERS,
        why=(
            "An implementation may accept asynchronous providers; the assembly context carries "
            "the abort signal, so a provider waiting for it holds its assembly until that "
            "assembly is aborted, then goes on."
        ),
        ops=(
            s.section("sec", "sec", 1, s.provider("S", wait_abort=True)),
            s.assemble("a", expect=s.PENDING),
            s.abort("a"),
            s.await_("a", expect=s.assembly(sections=_sections(s.entry("sec", "S")))),
        ),
    ),
    Case(
        id="scopes/already-aborted-assembly",
        contracts=LAYERS,
        requires=s.REGISTRY_1_1,
        why=(
            "The assembly context carries the signal: started with a signal that is already "
            "aborted, providers and listeners are given an aborted signal, and a listener "
            "waiting for the abort goes on at once — the registry itself completes the "
            "assembly (it is the listeners' job to stop early)."
        ),
        ops=(
            s.section("sec", "sec", 1, s.provider("S", id="sec")),
            s.listen("l", s.listener(_append_section("after-abort", "A"), id="l", wait_abort=True)),
            s.assemble(
                "a",
                aborted=True,
                expect=s.assembly(
                    sections=_sections(s.entry("sec", "S"), s.entry("after-abort", "A"))
                ),
            ),
            s.received("sec", expect=s.calls(s.call(None, reason={"kind": "user"}))),
        ),
    ),
    # -- PROMPT-SCOPE-SHADOW: a shadowed provider is never evaluated -----------------------
    Case(
        id="scope-shadow/shadowed-section-provider-not-evaluated",
        contracts=SHADOW,
        why=(
            "The effective maps are formed before any text is evaluated, so a shadowed section "
            "provider is never called; it runs again where it is not shadowed."
        ),
        ops=(
            s.scope("s"),
            s.section("g", "x", 1, s.provider("global", id="g")),
            s.section("sc", "x", 1, s.provider("scoped", id="sc"), layer="s"),
            s.assemble("in-s", "s", expect=s.assembly(sections=_sections(s.entry("x", "scoped")))),
            s.counts(expect=s.evaluations(g=0, sc=1)),
            s.assemble("in-g", expect=s.assembly(sections=_sections(s.entry("x", "global")))),
            s.counts(expect=s.evaluations(g=1, sc=1)),
        ),
    ),
    Case(
        id="scope-shadow/shadowed-context-provider-not-evaluated",
        contracts=SHADOW,
        why="A shadowed context provider is never called; the shadowing one is.",
        ops=(
            s.scope("s"),
            s.context("g", "x", 1, s.provider("global", id="g")),
            s.context("sc", "x", 1, s.provider("scoped", id="sc"), layer="s"),
            s.assemble("in-s", "s", expect=s.assembly(contexts=[s.entry("x", "scoped")])),
            s.counts(expect=s.evaluations(g=0, sc=1)),
        ),
    ),
    Case(
        id="scope-shadow/only-the-nearest-of-four-providers-runs",
        contracts=SHADOW,
        why=(
            "With a section and a context named x in global, gp, p and c, an assembly for c "
            "evaluates only c's providers; one for p only p's."
        ),
        ops=(
            *_chain(),
            *[
                op
                for lr in LAYER_NAMES
                for op in (
                    s.section(
                        f"s-{_label(lr)}", "x", 1, s.provider("S", id=f"s-{_label(lr)}"), layer=lr
                    ),
                    s.context(
                        f"c-{_label(lr)}", "x", 1, s.provider("C", id=f"c-{_label(lr)}"), layer=lr
                    ),
                )
            ],
            s.assemble("in-c", "c"),
            s.counts(
                expect=s.evaluations(
                    **{"s-g": 0, "s-gp": 0, "s-p": 0, "s-c": 1, "c-g": 0, "c-gp": 0, "c-p": 0}
                )
            ),
            s.assemble("in-p", "p"),
            s.counts(expect=s.evaluations(**{"s-g": 0, "s-gp": 0, "s-p": 1, "s-c": 1, "c-p": 1})),
        ),
    ),
    Case(
        id="scope-shadow/shadowed-failing-provider-is-harmless",
        contracts=SHADOW,
        why=(
            "A shadowed provider is never called, so a global section or context provider that "
            "would throw does not reject the scoped assembly; unshadowed, it rejects the whole "
            "assembly."
        ),
        ops=(
            s.scope("s"),
            s.section("g-sec", "x", 1, s.provider(fails="global section")),
            s.context("g-ctx", "y", 1, s.provider(fails="global context")),
            s.section("s-sec", "x", 1, "scoped", layer="s"),
            s.context("s-ctx", "y", 1, "scoped", layer="s"),
            s.assemble(
                "in-s",
                "s",
                expect=s.assembly(
                    sections=_sections(s.entry("x", "scoped")), contexts=[s.entry("y", "scoped")]
                ),
            ),
            s.assemble("in-g", expect=s.error("scripted-failure")),
        ),
    ),
    Case(
        id="scope-shadow/shadowed-blocking-provider-is-not-awaited",
        contracts=SHADOW,
        requires=s.ASYNC_PROVIDERS,
        why=(
            "A shadowed provider is never called: a global provider that would block on a "
            "closed gate does not hold up the scoped assembly."
        ),
        ops=(
            s.scope("s"),
            s.section("g", "x", 1, s.provider("global", wait_gate="never", id="g")),
            s.section("sc", "x", 1, "scoped", layer="s"),
            s.assemble("a", "s", expect=s.assembly(sections=_sections(s.entry("x", "scoped")))),
            s.counts(expect=s.evaluations(g=0)),
        ),
    ),
    Case(
        id="scope-shadow/shadowing-is-per-scope",
        contracts=SHADOW,
        why=(
            "Shadowing applies to the shadowing scope (and its descendants) only: the global "
            "provider runs for sibling b, is not called for a nor for a's child."
        ),
        ops=(
            s.scope("a"),
            s.scope("a_child", "a"),
            s.scope("b"),
            s.section("g", "x", 1, s.provider("global", id="g")),
            s.section("sa", "x", 1, s.provider("in a", id="sa"), layer="a"),
            s.assemble("in-a", "a", expect=s.assembly(sections=_sections(s.entry("x", "in a")))),
            s.assemble(
                "in-a-child", "a_child", expect=s.assembly(sections=_sections(s.entry("x", "in a")))
            ),
            s.assemble("in-b", "b", expect=s.assembly(sections=_sections(s.entry("x", "global")))),
            s.counts(expect=s.evaluations(g=1, sa=2)),
        ),
    ),
    Case(
        id="scope-shadow/released-shadow-unshadows",
        contracts=SHADOW,
        why=(
            "Shadowing is decided per assembly from the registrations in force: after the "
            "scoped section is released the global provider is evaluated again for the scope."
        ),
        ops=(
            s.scope("s"),
            s.section("g", "x", 1, s.provider("global", id="g")),
            s.section("sc", "x", 1, s.provider("scoped", id="sc"), layer="s"),
            s.assemble("a1", "s", expect=s.assembly(sections=_sections(s.entry("x", "scoped")))),
            s.release("sc"),
            s.assemble("a2", "s", expect=s.assembly(sections=_sections(s.entry("x", "global")))),
            s.counts(expect=s.evaluations(g=1, sc=1)),
        ),
    ),
    Case(
        id="scope-shadow/maps-formed-before-text-evaluation",
        contracts=SHADOW,
        why=(
            "The effective name→entry maps are formed BEFORE any text is evaluated: a shadow "
            "registered by a section provider while texts are evaluated does not affect this "
            "assembly (the global entry is evaluated) and takes effect from the next one."
        ),
        ops=(
            s.scope("s"),
            s.section(
                "first",
                "first",
                1,
                s.provider(
                    "F",
                    id="first",
                    effects=[
                        s.section("late", "second", 2, s.provider("late", id="late"), layer="s")
                    ],
                ),
            ),
            s.section("second", "second", 2, s.provider("G", id="second")),
            s.assemble(
                "a1",
                "s",
                expect=s.assembly(
                    sections=_sections(s.entry("first", "F"), s.entry("second", "G"))
                ),
            ),
            s.counts(expect=s.evaluations(second=1, late=0)),
            s.assemble(
                "a2",
                "s",
                expect=s.assembly(
                    sections=_sections(s.entry("first", "F"), s.entry("second", "late"))
                ),
            ),
            s.counts(expect=s.evaluations(second=1, late=1)),
        ),
    ),
    Case(
        id="scope-shadow/context-registered-during-evaluation-waits",
        contracts=SHADOW,
        why=(
            "The effective maps are formed before texts are evaluated: a context registered by "
            "a context provider during evaluation is not in this assembly, only in the next."
        ),
        ops=(
            s.context(
                "clock",
                "clock",
                1,
                s.provider("noon", effects=[s.context("late", "late", 0, "L")]),
            ),
            s.assemble("a1", expect=s.assembly(contexts=[s.entry("clock", "noon")])),
            s.assemble(
                "a2", expect=s.assembly(contexts=[s.entry("late", "L"), s.entry("clock", "noon")])
            ),
        ),
    ),
]
