"""What the loop writes besides turns and steps: request headers and context (LOOP-REQUEST-BUILD,
PROMPT-HEADER-CHANGE-TEST) and runtime-context snapshots (LOOP-RUNTIME-CONTEXT).

Expected logs are in the view of `dsh_conformance.judge.logview` (positions, ``#n`` ids), worked out
by hand from CONTRACTS.md; the comment after an event is its position.

Why one module: it is a table ordered as CONTRACTS.md's sections are (the request build and its
headers, then the runtime context), each case read alone; the schemas and helpers they share are
defined at its top.
"""

from __future__ import annotations

from ..judge.case import Case
from ..judge.logview import ABSENT
from ..scenarios import loopscenario as lp
from ..scenarios import scenario as s
from ..scenarios.scenario import Json
from .loop import (
    ARGS,
    CALL,
    FOUR,
    HELLO,
    LOOP,
    USAGE,
    USAGE_THEN_WAIT,
    _answered_turn,
    _relative,
)

BUILD = ("LOOP-REQUEST-BUILD",)
HEADERS = ("LOOP-REQUEST-BUILD", "PROMPT-HEADER-CHANGE-TEST")
RUNTIME = ("LOOP-RUNTIME-CONTEXT",)
CLOCK = ("clock", "noon")
RESULT = lp.tool_result("4")
#: A call config with a temperature and stop sequences (kept from turn to turn).
TUNED = {**lp.CONFIG, "temperature": 0.5, "stop": ["END"]}
#: The config the adapter resolves from `lp.CONFIG` with both defaults filled in, and its markers.
DEFAULTED = {**lp.CONFIG, "reasoningEffort": "high", "maxTokens": 4096}
BOTH_MARKED = {"reasoningEffort": True, "maxTokens": True}
#: The same provider with another model.
OTHER_MODEL = {**lp.CONFIG, "model": "m2"}

_ANSWER = ["assistant/chunk"] * 4 + ["assistant/message"]
_TOOL_STEP = [*_ANSWER, "tool/call", "tool/result", "step/end"]


def _clock_context() -> Json:
    return s.context("clock", "clock", 0, "noon")


def _seed(*, replaced: bool) -> list[Json]:
    """An earlier run's surface: a user message, then a runtime-context snapshot of ``CLOCK``;
    with ``replaced``, a summary that replaces both."""
    events = [lp.user("earlier", "u0"), lp.snapshot("s0", CLOCK)]
    if replaced:
        events.append(lp.replacing(lp.summary("c0"), 0, 1))
    return lp.envelopes(*events)


#: An owned runtime-context message no current loop writes: the snapshot text of ``CLOCK`` under
#: the bare owner source (no `form`, no `sections`), which a loop gives only the cleared marker.
_FOREIGN = lp.user(lp.snapshot("x", CLOCK)["data"]["content"][0]["text"], "f0")
_FOREIGN["data"]["source"] = lp.cleared("x")["data"]["source"]


def _resumed_turn(config: Json, resumed: Json) -> list[Json]:
    """Turn 2 of a new loop instance over turn 1's log (after `session/end-seed` at 12), its
    agent's config ``config``: the `resume` header with ``resumed``, a `request/context` when
    the route changed, the answer."""
    opening = [lp.header("resume", config=resumed)]
    if config["model"] != lp.CONFIG["model"]:
        opening.append(lp.context(config))
    start = 16 + len(opening)
    return [
        lp.end_seed(),  # 12
        lp.turn_start(2),  # 13
        lp.step_start(2, 1),  # 14
        lp.user("two", "#3"),  # 15
        *opening,
        *lp.attempt(2, 1, HELLO),
        lp.assistant(2, 1, [lp.text_block("hello")], "#4", range(start, start + 4), config=config),
        lp.step_end(2, 1),
        lp.turn_end(2),
    ]


#: The effort set of the adapters of the effort rules' cases under a set (ADAPTERS_ENTRY
#: `efforts`, loop-1.3): it holds every effort those cases use.
EFFORTS = ["low", "high"]
_NO_SET = (
    " The adapter names no effort set, so every effort passes resolution (PROTOCOL.md, "
    'ADAPTERS_ENTRY `efforts`: "without `efforts` every effort passes"); the same case under '
    "an effort set holding these efforts is `-under-an-effort-set`."
)
_UNDER_A_SET = (
    ' Every adapter here names the effort set `["low", "high"]` (ADAPTERS_ENTRY `efforts`), '
    "which holds each effort used: the rule is the same under a set as without one."
)


def _adapters(adapter: Json, efforts: list[str] | None) -> Json:
    """The agent's adapter fields: ``adapter`` as the one adapter, or (with ``efforts``) as the
    route's provider's ADAPTERS_ENTRY with that effort set."""
    if efforts is None:
        return {"adapter": adapter}
    return {"adapters": {lp.CONFIG["provider"]: {**adapter, "efforts": efforts}}}


#: Two tool schemas an agent's scope offers (`read` sorts before `write`).
READ_TOOL = s.schema("read", "Read a file.")
WRITE_TOOL = s.schema("write", "Write a file.")

CASES = [
    # -- LOOP-REQUEST-BUILD, PROMPT-HEADER-CHANGE-TEST ------------------------------------------
    Case(
        id="loop/header-initial-then-none-over-unchanged-steps",
        contracts=HEADERS,
        requires=LOOP,
        why=(
            "A loop instance's first successful request build writes `request/header` with "
            "reason `initial` if the log had no header; after that it writes `change` only when "
            "the canonical header is not equal to the folded one. Re-assembling every step with "
            "unchanged values adds no header (four requests over three steps and two turns), and "
            "`request/context` is written only when none was logged yet or it differs."
        ),
        ops=(
            lp.agent(
                "a",
                model=[CALL, lp.tool_call("c2", "add", "{}"), FOUR, HELLO],
                tools=[RESULT, RESULT],
            ),
            lp.followup("a", "go"),
            lp.followup("a", "more"),
            lp.observe(
                "a",
                types=[
                    *["turn/start", "step/start", "user/message", "request/header"],
                    "request/context",
                    *_TOOL_STEP,
                    "step/start",
                    *_TOOL_STEP,
                    "step/start",
                    *_ANSWER,
                    *["step/end", "turn/end", "turn/start", "step/start", "user/message"],
                    *_ANSWER,
                    *["step/end", "turn/end"],
                ],
                requests=[{"dispatchSeq": seq} for seq in (5, 14, 23, 33)],
            ),
        ),
    ),
    Case(
        id="loop/one-change-header-after-a-section-change",
        contracts=HEADERS,
        requires=LOOP,
        why=(
            'a real section change writes exactly one more header: `{reason: "change"}` with '
            "the new system, inside the open step before the request; the turn after it, "
            "unchanged, writes none. The provider and model are unchanged, so no new "
            "`request/context`."
        ),
        ops=(
            lp.agent("a", model=[HELLO, HELLO, HELLO]),
            lp.followup("a", "one"),
            s.section("extra", "extra", 5, "more"),
            lp.followup("a", "two"),
            lp.followup("a", "three"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "one", 1),  # 0-11
                    *_relative(
                        _answered_turn(
                            2, "two", 3, header=[lp.header("change", system=f"{lp.SYSTEM}\n\nmore")]
                        ),
                        12,
                    ),  # 12-22, the header at 15
                    *_relative(_answered_turn(3, "three", 5, header=[]), 23),  # 23-32
                ],
            ),
        ),
    ),
    Case(
        id="loop/tools-added-after-a-turn-write-one-change-header",
        contracts=HEADERS,
        requires=LOOP,
        why=(
            'After its first header a loop instance writes `{reason: "change"}` only when the '
            "canonical header is not equal to the folded one, and a loop-built request has "
            "`tools` exactly when the canonical header has them: the first turn assembles no "
            "tools (a header without `tools`); a tool provider registered in the agent's scope "
            "before the second turn makes its header a `change` holding the two schemas, in "
            "name order; the third turn, with the same tools, writes no header, and both later "
            "requests carry the tools."
        ),
        ops=(
            lp.agent("a", model=[HELLO, HELLO, HELLO]),
            lp.followup("a", "one"),
            s.tools("tools", s.provider(s.toolset(WRITE_TOOL, READ_TOOL)), layer="a"),
            lp.followup("a", "two"),
            lp.followup("a", "three"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "one", 1),  # 0-11
                    *_relative(
                        _answered_turn(
                            2,
                            "two",
                            3,
                            header=[lp.header("change", tools=[READ_TOOL, WRITE_TOOL])],
                        ),
                        12,
                    ),  # 12-22, the header at 15
                    *_relative(_answered_turn(3, "three", 5, header=[]), 23),  # 23-32
                ],
                requests=[
                    {"dispatchSeq": 5, "tools": ABSENT},
                    {"dispatchSeq": 16, "tools": [READ_TOOL, WRITE_TOOL]},
                    {"dispatchSeq": 26, "tools": [READ_TOOL, WRITE_TOOL]},
                ],
            ),
        ),
    ),
    Case(
        id="loop/resume-header-for-a-new-loop-over-a-seeded-log",
        contracts=BUILD,
        requires=LOOP,
        why=(
            "A session built over a seed appends `session/end-seed`; a loop instance starts right "
            "after it, and its first request build writes `resume` since the log has a header — "
            "even when identical. A new loop instance over a log whose context is unchanged "
            "writes no `request/context`; turns continue from the last `turn/start`."
        ),
        ops=(
            lp.agent("a1", model=[HELLO]),
            lp.followup("a1", "one"),
            lp.agent("a2", model=[HELLO], seed={"agent": "a1"}),
            lp.followup("a2", "two"),
            lp.observe(
                "a2",
                log=[
                    *_answered_turn(1, "one", 1),  # 0-11
                    lp.end_seed(),  # 12
                    *_relative(
                        _answered_turn(2, "two", 3, header=[lp.header("resume")]), 13
                    ),  # 13-23, the header at 16
                ],
            ),
        ),
    ),
    Case(
        id="loop/resume-header-with-unchanged-tools-is-the-header-alone",
        contracts=BUILD,
        requires=LOOP,
        why=(
            "A new loop instance's first request build writes `resume` even when the header is "
            "identical, and a header is `{config, adapterDefaults?, system?, tools?}` "
            "(PROMPT-HEADER-CANONICAL): a global tool provider gives both instances the same "
            "two schemas, so the `resume` header holds them as `tools`, in name order, and "
            "nothing else beside the config and the system."
        ),
        ops=(
            s.tools("tools", s.provider(s.toolset(WRITE_TOOL, READ_TOOL))),
            lp.agent("a1", model=[HELLO]),
            lp.followup("a1", "one"),
            lp.agent("a2", model=[HELLO], seed={"agent": "a1"}),
            lp.followup("a2", "two"),
            lp.observe(
                "a2",
                log=[
                    *_answered_turn(
                        1,
                        "one",
                        1,
                        header=[lp.header("initial", tools=[READ_TOOL, WRITE_TOOL]), lp.context()],
                    ),  # 0-11
                    lp.end_seed(),  # 12
                    *_relative(
                        _answered_turn(
                            2, "two", 3, header=[lp.header("resume", tools=[READ_TOOL, WRITE_TOOL])]
                        ),
                        13,
                    ),  # 13-23, the header at 16
                ],
                requests=[{"dispatchSeq": 17, "tools": [READ_TOOL, WRITE_TOOL]}],
            ),
        ),
    ),
    Case(
        id="loop/adapter-defaults-are-marked-and-sent",
        contracts=BUILD,
        requires=LOOP,
        why=(
            "`config` holds resolved values, those filled from adapter defaults included, and "
            "`adapterDefaults` marks them (`{maxTokens: true}`); `request/context` is "
            "`{provider, model, contextWindow?}`; the request carries every config field."
        ),
        ops=(
            lp.agent(
                "a",
                model=[HELLO],
                adapter={"defaults": {"maxTokens": 4096}, "contextWindow": 65536},
            ),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=_answered_turn(
                    1,
                    "hi",
                    1,
                    header=[
                        lp.header(
                            "initial",
                            config={**lp.CONFIG, "maxTokens": 4096},
                            adapter_defaults={"maxTokens": True},
                        ),
                        lp.context(window=65536),
                    ],
                ),
                requests=[{"dispatchSeq": 5, "maxTokens": 4096}],
            ),
        ),
    ),
    Case(
        id="loop/new-instance-with-another-context-window-writes-request-context",
        contracts=BUILD,
        requires=LOOP,
        why=(
            "After the header, the build writes `request/context {provider, model, "
            "contextWindow?}` when no request context was logged yet or one of those three "
            "differs from the last one: a new loop instance over the log, with the same provider "
            "and model but another context window, writes `resume` and then a new context."
        ),
        ops=(
            lp.agent("a1", model=[HELLO], adapter={"contextWindow": 65536}),
            lp.followup("a1", "one"),
            lp.agent("a2", model=[HELLO], seed={"agent": "a1"}, adapter={"contextWindow": 131072}),
            lp.followup("a2", "two"),
            lp.observe(
                "a2",
                log=[
                    *_answered_turn(
                        1, "one", 1, header=[lp.header("initial"), lp.context(window=65536)]
                    ),  # 0-11
                    lp.end_seed(),  # 12
                    *_relative(
                        _answered_turn(
                            2,
                            "two",
                            3,
                            header=[lp.header("resume"), lp.context(window=131072)],
                        ),
                        13,
                    ),  # 13-25
                ],
            ),
        ),
    ),
    Case(
        id="loop/adapter-defaults-stay-marked-on-the-next-turn",
        contracts=HEADERS,
        requires=LOOP,
        why=(
            "Once the instance has written a header, the proposal is the folded header's config "
            "without the fields it marks as adapter defaults (marked defaults are re-resolved): "
            "the adapter fills them in and marks them again, so the next turn's canonical header "
            "equals the folded one and no `change` header is written; both requests carry the "
            "resolved values. The adapter names no effort set, so its default effort passes "
            '(ADAPTERS_ENTRY `efforts`: "without `efforts` every effort passes"); '
            "loop/a-route-switch-is-resolved-by-the-new-providers-adapter fills defaults under "
            "effort sets."
        ),
        ops=(
            lp.agent(
                "a",
                model=[HELLO, HELLO],
                adapter={"defaults": {"reasoningEffort": "high", "maxTokens": 4096}},
            ),
            lp.followup("a", "one"),
            lp.followup("a", "two"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(
                        1,
                        "one",
                        1,
                        header=[
                            lp.header("initial", config=DEFAULTED, adapter_defaults=BOTH_MARKED),
                            lp.context(),
                        ],
                    ),  # 0-11
                    *_relative(_answered_turn(2, "two", 3, header=[]), 12),  # 12-21
                ],
                requests=[
                    {"dispatchSeq": 5, "reasoningEffort": "high", "maxTokens": 4096},
                    {"dispatchSeq": 15, "reasoningEffort": "high", "maxTokens": 4096},
                ],
            ),
        ),
    ),
    Case(
        id="loop/temperature-and-stop-carry-to-the-next-turn",
        contracts=BUILD,
        requires=LOOP,
        why=(
            "Once the instance has written a header, the proposal is the folded header's config "
            "(so `temperature` and `stop` carry over from turn to turn): the second turn's "
            "request has the same `temperature` and `stop`, and its header is unchanged (none "
            "written)."
        ),
        ops=(
            lp.agent("a", model=[HELLO, HELLO], config=TUNED),
            lp.followup("a", "one"),
            lp.followup("a", "two"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(
                        1,
                        "one",
                        1,
                        header=[lp.header("initial", config=TUNED), lp.context()],
                    ),  # 0-11
                    *_relative(_answered_turn(2, "two", 3, header=[]), 12),  # 12-21
                ],
                requests=[
                    {"dispatchSeq": 5, "temperature": 0.5, "stop": ["END"]},
                    {"dispatchSeq": 15, "temperature": 0.5, "stop": ["END"]},
                ],
            ),
        ),
    ),
    *[
        Case(
            id=f"loop/new-instance-{name}" + ("-under-an-effort-set" if efforts else ""),
            contracts=BUILD,
            requires=(*LOOP, "loop-1.2", "loop-1.3") if efforts else LOOP,
            why=why + (_UNDER_A_SET if efforts else _NO_SET if "effort" in name else ""),
            ops=(
                lp.agent("a1", model=[HELLO], config=first, **_adapters(adapter, efforts)),
                lp.followup("a1", "one"),
                lp.agent(
                    "a2",
                    model=[HELLO],
                    seed={"agent": "a1"},
                    config=second,
                    **(_adapters({}, efforts) if efforts else {}),
                ),
                lp.followup("a2", "two"),
                lp.observe("a2", tail=_resumed_turn(second, resumed)),
            ),
        )
        for efforts in (None, EFFORTS)
        for name, first, adapter, second, resumed, why in (
            (
                "restores-the-effort-for-the-same-route",
                {**lp.CONFIG, "reasoningEffort": "high"},
                {},
                lp.CONFIG,
                {**lp.CONFIG, "reasoningEffort": "high"},
                "Before the loop instance has written a header, the proposal is the agent's "
                "route, its `maxTokens` when set, and the folded header's `reasoningEffort` when "
                "that header's provider and model equal the route and its effort was not marked "
                "as an adapter default: a new instance whose agent sets no effort resumes with "
                "the logged one.",
            ),
            (
                "keeps-its-own-effort-over-the-logged-one",
                {**lp.CONFIG, "reasoningEffort": "high"},
                {},
                {**lp.CONFIG, "reasoningEffort": "low"},
                {**lp.CONFIG, "reasoningEffort": "low"},
                "The agent's own `reasoningEffort` is added to the proposal before the instance "
                "has written a header and wins over a restored one (PROTOCOL.md, CALL_CONFIG): a "
                "new instance whose agent sets `low` over a log whose header (same route, not an "
                "adapter default) has `high` resumes with `low`.",
            ),
            (
                "restores-no-effort-for-another-model",
                {**lp.CONFIG, "reasoningEffort": "high"},
                {},
                OTHER_MODEL,
                OTHER_MODEL,
                "The folded header's `reasoningEffort` is restored only when that header's "
                "provider and model equal the route: a new instance with another model proposes "
                "none (and writes a new `request/context`).",
            ),
            (
                "restores-no-adapter-default-effort",
                lp.CONFIG,
                {"defaults": {"reasoningEffort": "high"}},
                lp.CONFIG,
                lp.CONFIG,
                "The folded header's `reasoningEffort` is restored only when its effort was not "
                "marked as an adapter default: the first instance's adapter filled it in, so the "
                "new instance (whose adapter has no defaults) proposes none.",
            ),
            (
                "restores-no-temperature-stop-or-max-tokens",
                {**TUNED, "maxTokens": 100},
                {},
                lp.CONFIG,
                lp.CONFIG,
                "Before the instance has written a header the proposal is the route, the agent's "
                "own `maxTokens` when set, and maybe the effort (`temperature` and `stop` are "
                "never restored by a new instance): the new instance's agent sets none of them, "
                "so its header has none.",
            ),
        )
        if not efforts or "effort" in name
    ],
    Case(
        id="loop/empty-system-and-tools-are-absent-from-header-and-request",
        contracts=("PROMPT-HEADER-CANONICAL", "LOOP-REQUEST-BUILD"),
        requires=LOOP,
        why=(
            "Canonical form: an empty system and an empty tool list become absent fields; a "
            "loop-built request has `system` and `tools` exactly when the canonical header has "
            "them (absent, never `null`, `''` or `[]`). Without the identity section and with "
            "an empty persona the rendered system is `''`, and no tool is registered."
        ),
        ops=(
            s.configure({"includeHarnessIdentity": False}),
            lp.agent("a", model=[HELLO]),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=_answered_turn(
                    1, "hi", 1, header=[lp.header("initial", system=None), lp.context()]
                ),
                requests=[{"dispatchSeq": 5, "system": ABSENT, "tools": ABSENT}],
            ),
        ),
    ),
    Case(
        id="loop/assembled-tools-are-in-the-header-and-the-request",
        contracts=("PROMPT-HEADER-CANONICAL", "LOOP-REQUEST-BUILD"),
        requires=LOOP,
        why=(
            "The header holds the ordered tool schemas the step assembled (PROMPT-HEADER-"
            "CANONICAL), and a loop-built request has `tools` exactly when the canonical header "
            "has them, equal to the header's (ROOT-MODEL): two schemas registered in the agent's "
            "scope, in name order."
        ),
        ops=(
            lp.agent("a", model=[HELLO]),
            s.tools("tools", s.provider(s.toolset(WRITE_TOOL, READ_TOOL)), layer="a"),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=_answered_turn(
                    1,
                    "hi",
                    1,
                    header=[lp.header("initial", tools=[READ_TOOL, WRITE_TOOL]), lp.context()],
                ),
                requests=[{"dispatchSeq": 5, "tools": [READ_TOOL, WRITE_TOOL]}],
            ),
        ),
    ),
    Case(
        id="loop/compact-replaces-and-cites-exactly-its-positions",
        contracts=("ROOT-MODEL",),
        requires=LOOP,
        why=(
            "`compact` appends its summary as a surface replace of the nodes at positions "
            "`start`..`end`, citing each of them (PROTOCOL.md): positions 1..2 of a four-node "
            "surface are the first answer (seq 9) and the second question (seq 14), so the "
            "summary replaces 9..14 and cites [9, 14], not the answer after them."
        ),
        ops=(
            lp.agent("a", model=[HELLO, HELLO]),
            lp.followup("a", "one"),
            lp.followup("a", "two"),
            lp.compact("a", 1, 2),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "one", 1),  # 0-11
                    *_relative(_answered_turn(2, "two", 3, header=[]), 12),  # 12-21
                    lp.replacing(lp.summary("#5"), 9, 14, [9, 14]),  # 22
                ],
            ),
        ),
    ),
    Case(
        id="loop/compact-beyond-the-surface-is-refused",
        contracts=("ROOT-MODEL",),
        requires=LOOP,
        why=(
            "`compact` answers `surface-replace-invalid` when the surface has no such positions "
            "(PROTOCOL.md): after one answered turn the surface has two nodes, so positions "
            "0..2 are refused and nothing is logged."
        ),
        ops=(
            lp.agent("a", model=[HELLO]),
            lp.followup("a", "one"),
            lp.compact("a", 0, 2, expect=s.error("surface-replace-invalid")),
            lp.observe("a", log=_answered_turn(1, "one", 1)),
        ),
    ),
    # -- LOOP-RUNTIME-CONTEXT -------------------------------------------------------------------
    Case(
        id="loop/runtime-context-unchanged-over-steps-one-snapshot",
        contracts=RUNTIME,
        requires=LOOP,
        why=(
            "Only a change of the complete value proposes a message; an unchanged context over "
            "many steps proposes nothing. The snapshot is the last message of the default "
            'pre-step decision: `{role: "user", content: [{type: "text", text}], source}`, '
            "text = the preamble, `\\n\\n`, the context texts."
        ),
        ops=(
            lp.agent("a", model=[CALL, FOUR, HELLO], tools=[RESULT]),
            _clock_context(),
            lp.followup("a", "2+2?"),
            lp.followup("a", "more"),
            lp.observe(
                "a",
                log=[
                    lp.turn_start(1),  # 0
                    lp.step_start(1, 1),  # 1
                    lp.user("2+2?", "#1"),  # 2
                    lp.snapshot("#2", CLOCK),  # 3
                    lp.header("initial"),  # 4
                    lp.context(),  # 5
                    *lp.attempt(1, 1, CALL),  # 6-9
                    lp.assistant(1, 1, [lp.call_block("c1", "add", ARGS)], "#3", range(6, 10)),
                    lp.tool_call_event(1, 1, "c1", "add", ARGS),  # 11
                    lp.tool_result_event(1, 1, "c1", "4", "#4", 11),  # 12
                    lp.step_end(1, 1),  # 13
                    lp.step_start(1, 2),  # 14
                    *lp.attempt(1, 2, FOUR),  # 15-18
                    lp.assistant(1, 2, [lp.text_block("4")], "#5", range(15, 19)),  # 19
                    lp.step_end(1, 2),  # 20
                    lp.turn_end(1),  # 21
                    *_relative(_answered_turn(2, "more", 6, header=[]), 22),  # 22-31
                ],
            ),
        ),
    ),
    Case(
        id="loop/runtime-context-removed-sends-the-cleared-marker-once",
        contracts=RUNTIME,
        requires=LOOP,
        why=(
            "project(current): current empty → the cleared marker (unless that is already "
            "retained), whose source has no `form` and no `sections`; the turn after it proposes "
            "nothing."
        ),
        ops=(
            lp.agent("a", model=[HELLO, HELLO, HELLO]),
            _clock_context(),
            lp.followup("a", "one"),
            s.release("clock"),
            lp.followup("a", "two"),
            lp.followup("a", "three"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "one", 1, extra=(lp.snapshot("#2", CLOCK),)),  # 0-12
                    *_relative(
                        _answered_turn(2, "two", 4, header=[], extra=(lp.cleared("#5"),)), 13
                    ),  # 13-23
                    *_relative(_answered_turn(3, "three", 7, header=[]), 24),  # 24-33
                ],
            ),
        ),
    ),
    Case(
        id="loop/runtime-context-restored-from-a-seed-is-not-re-proposed",
        contracts=RUNTIME,
        requires=LOOP,
        why=(
            "constructed over an existing log, the projection restores the newest owned "
            "`user/message` whose seq is still on the surface; the same context is then not "
            "proposed again (equal to the retained text)."
        ),
        ops=(
            lp.agent("a", model=[HELLO], seed=_seed(replaced=False)),
            _clock_context(),
            lp.followup("a", "next"),
            lp.observe(
                "a",
                log=[
                    lp.user("earlier", "#1"),  # 0
                    lp.snapshot("#2", CLOCK),  # 1
                    lp.end_seed(),  # 2
                    *_relative(_answered_turn(1, "next", 3), 3),  # 3-14
                ],
            ),
        ),
    ),
    Case(
        id="loop/runtime-context-replaced-on-the-surface-is-re-proposed",
        contracts=RUNTIME,
        requires=LOOP,
        why=(
            "restore: none on the surface but some in the log = none-retained — a snapshot "
            "replaced on the surface is forgotten, so the same context is proposed again."
        ),
        ops=(
            lp.agent("a", model=[HELLO], seed=_seed(replaced=True)),
            _clock_context(),
            lp.followup("a", "next"),
            lp.observe(
                "a",
                log=[
                    lp.user("earlier", "#1"),  # 0
                    lp.snapshot("#2", CLOCK),  # 1
                    lp.replacing(lp.summary("#3"), 0, 1),  # 2
                    lp.end_seed(),  # 3
                    *_relative(
                        _answered_turn(1, "next", 4, extra=(lp.snapshot("#5", CLOCK),)), 4
                    ),  # 4-16
                ],
            ),
        ),
    ),
    Case(
        id="loop/runtime-context-seeded-in-another-form-is-restored-by-its-owner",
        contracts=RUNTIME,
        requires=LOOP,
        why=(
            "Seeded events are checked only against the append rules: a seed may hold "
            "runtime-context messages whose content no current loop would produce (here a "
            "snapshot's text under the cleared marker's source). Over an existing log the "
            "projection restores the newest owned `user/message` (owned = its source) still on "
            "the surface, and its text equals the current context's snapshot: nothing proposed."
        ),
        ops=(
            lp.agent("a", model=[HELLO], seed=lp.envelopes(lp.user("earlier", "u0"), _FOREIGN)),
            _clock_context(),
            lp.followup("a", "next"),
            lp.observe(
                "a",
                log=[
                    lp.user("earlier", "#1"),  # 0
                    {**_FOREIGN, "data": {**_FOREIGN["data"], "id": "#2"}},  # 1
                    lp.end_seed(),  # 2
                    *_relative(_answered_turn(1, "next", 3), 3),  # 3-14
                ],
            ),
        ),
    ),
    *[
        Case(
            id=f"loop/runtime-context-{name}",
            contracts=RUNTIME,
            requires=LOOP,
            why=why,
            ops=(
                lp.agent("a", model=[HELLO, HELLO]),
                _clock_context(),
                lp.followup("a", "one"),
                lp.compact("a", start, 2),
                lp.followup("a", "two"),
                lp.observe(
                    "a",
                    log=[
                        *_answered_turn(1, "one", 1, extra=(lp.snapshot("#2", CLOCK),)),  # 0-12
                        lp.replacing(lp.summary("#4"), first, 10, cites),  # 13
                        *_relative(_answered_turn(2, "two", 5, header=[], extra=extra), 14),
                    ],
                ),
            ),
        )
        for name, start, first, cites, extra, why in (
            (
                "replaced-live-is-forgotten-and-re-proposed",
                0,
                2,
                [2, 3, 10],
                (lp.snapshot("#6", CLOCK),),
                "Live, a surface replacement whose `sourceEventSeqs` include the retained seq "
                "makes it none-retained (forgotten): a compaction of the whole surface, snapshot "
                "included, between turns makes the next turn propose the unchanged context again.",
            ),
            (
                "kept-by-a-replacement-that-spares-it",
                2,
                10,
                [10],
                (),
                "Only a replacement citing the retained seq forgets it: a compaction of the "
                "assistant's answer alone leaves the snapshot retained, so the unchanged context "
                "proposes nothing.",
            ),
        )
    ],
    Case(
        id="loop/usage-is-never-logged-as-null",
        contracts=("ROOT-MODEL",),
        requires=LOOP,
        why=(
            '`assistant/message` is `{turn, step, message, usage?, interrupted?: true}`, and "an '
            'absent optional field is omitted, never `null`": whether a message repeats the '
            "usage its stream reported is not decided (the view compares only the event types), "
            "but neither the answer of a stream that reported usage nor the interrupted message "
            "of a cancelled one carries `usage: null` (the suite's fold of the log checks it)."
        ),
        ops=(
            lp.agent("a", model=[lp.answer("hello", usage=USAGE), USAGE_THEN_WAIT]),
            lp.followup("a", "hi"),
            lp.followup("a", "again"),
            lp.cancel("a"),
            lp.observe(
                "a",
                types=[
                    *("turn/start", "step/start", "user/message"),
                    *("request/header", "request/context"),
                    *("assistant/chunk",) * 5,
                    *("assistant/message", "step/end", "turn/end"),
                    *("turn/start", "step/start", "user/message"),
                    *("assistant/chunk",) * 3,
                    *("assistant/message", "step/end", "turn/end"),
                ],
            ),
        ),
    ),
]
