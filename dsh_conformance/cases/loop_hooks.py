"""Protocol 1.2 (`loop-1.2`): the loop's hooks, failed request builds, refused agents, injected
messages and the request-state read; and protocol 1.3 (`loop-1.3`): the turn-stopping hook,
adapters registered later and adapters' effort sets.

Expected logs are in the view of `dsh_conformance.judge.logview`, worked out by hand from
CONTRACTS.md and, where it is silent, from `upstream/loop-and-session.md` (each ``why`` says which);
the comment after an event is its position.

Why one module: it is the table of the loop's later protocol minors, read in order; its cases
share the agents, adapters and hook scripts defined at its top, which a split would scatter.
"""

from __future__ import annotations

from ..judge.case import Case
from ..scenarios import loopscenario as lp
from ..scenarios import scenario as s
from ..scenarios.scenario import Json
from .loop import CALL, FOUR, HELLO, RETRY, _answered_turn, _relative, _turn_with_tools

LOOP_12 = ("registry", "loop", "loop-1.2")
#: The 1.3 additions (`loop-1.3`): `turnStopping`, `register-adapter`, an adapter's `efforts`.
LOOP_13 = (*LOOP_12, "loop-1.3")
BUILD = ("LOOP-REQUEST-BUILD",)
STEP = ("PROMPT-STEP-BOUNDARY",)
CANCEL = ("PROMPT-CANCEL-TEST",)
#: A step's opening before its request build: turn 1, step 1, the user's "hi" (positions 0-2).
OPENING = [lp.turn_start(1), lp.step_start(1, 1), lp.user("hi", "#1")]
#: The same provider with another model.
OTHER_MODEL = {**lp.CONFIG, "model": "m2"}
#: Another provider with the same model.
OTHER_PROVIDER = {**lp.CONFIG, "provider": "other"}
#: The model layer's failure a resolution fails with.
UNSUPPORTED = {"code": "UNSUPPORTED_REASONING_EFFORT", "message": "not for this model"}
#: The failure of a resolution whose effort is outside the adapter's set (message free text).
UNSUPPORTED_EFFORT = {"message": lp.ANY_TEXT, "code": "UNSUPPORTED_REASONING_EFFORT"}
#: A request that fails before any chunk (the decision then ends the turn with it).
AUTH_FAILURE = lp.fails("AUTH", "no key")
#: The failure of a request for a provider without an adapter (its message is free text).
NO_ADAPTER = {"message": lp.ANY_TEXT, "code": "NO_ADAPTER"}
#: Two routes, each to a provider with an adapter of its own: its defaults, context window and
#: effort set (1.2, ADAPTERS_ENTRY).
ROUTE1 = {"provider": "p1", "model": "m1"}
ROUTE2 = {"provider": "p2", "model": "m2"}
ADAPTERS = {
    "p1": {
        "defaults": {"reasoningEffort": "low", "maxTokens": 100},
        "contextWindow": 1000,
        "efforts": ["low", "high"],
    },
    "p2": {
        "defaults": {"reasoningEffort": "max", "maxTokens": 200},
        "contextWindow": 2000,
        "efforts": ["off", "max"],
    },
}
BOTH_MARKED = {"reasoningEffort": True, "maxTokens": True}
HI = {
    "content": [{"type": "text", "text": "hi"}],
    "source": {"kind": "user"},
    "role": "user",
}


def _no_adapter_finish(turn: int, step: int) -> Json:
    """The terminal chunk of a request for a provider without an adapter."""
    reason = {"kind": "error", "failure": NO_ADAPTER}
    chunk = {"type": "finish", "reason": reason}
    return {"type": "assistant/chunk", "data": {"turn": turn, "step": step, "chunk": chunk}}


def _step_after_a_note() -> list[Json]:
    """Turn 1: "hi" answered "hello", then a step 2 that opens with the injected "note" and is
    answered "4" (positions 0-19)."""
    return [
        *_answered_turn(1, "hi", 1)[:-1],  # 0-10
        lp.step_start(1, 2),  # 11
        lp.injected("note", "#3"),  # 12
        *lp.attempt(1, 2, FOUR),  # 13-16
        lp.assistant(1, 2, [lp.text_block("4")], "#4", range(13, 17)),  # 17
        lp.step_end(1, 2),  # 18
        lp.turn_end(1),  # 19
    ]


def _failed_build() -> list[Json]:
    """A turn whose first request build fails: no header, no context, no request."""
    return [*OPENING, lp.step_end(1, 1), lp.turn_end(1, lp.UNKNOWN)]


CASES = [
    # -- PROMPT-RETRY-BOUNDARY: throws that are not the model layer's failure -------------------
    Case(
        id="loop/a-throwing-listener-ends-the-turn-unknown",
        contracts=RETRY,
        requires=LOOP_12,
        why=(
            "A turn ended by anything else that throws (..., a listener, ...) ends `{kind: "
            '"error", error: {message, code: "UNKNOWN"}}`: a listener of the agent\'s scope '
            "throws while the first step assembles."
        ),
        ops=(
            lp.agent("a", model=[HELLO]),
            s.listen("bad", {"fails": "boom"}, scope="a"),
            lp.followup("a", "hi"),
            lp.observe("a", log=[lp.turn_start(1), lp.turn_end(1, lp.UNKNOWN)], requests=[]),
        ),
    ),
    Case(
        id="loop/a-throwing-pre-step-hook-ends-the-turn-unknown",
        contracts=RETRY,
        requires=LOOP_12,
        why=(
            "A turn ended by anything else that throws (..., a hook, ...) ends `UNKNOWN`: the "
            "`agent/pre-step` decision throws, so no step opens."
        ),
        ops=(
            lp.agent("a", model=[HELLO], pre_step=[{"throws": "boom"}]),
            lp.followup("a", "hi"),
            lp.observe("a", log=[lp.turn_start(1), lp.turn_end(1, lp.UNKNOWN)], requests=[]),
        ),
    ),
    Case(
        id="loop/a-throwing-tool-runtime-ends-the-turn-unknown",
        contracts=RETRY,
        requires=LOOP_12,
        why=(
            "A turn ended by anything else that throws (..., a tool runtime, ...) ends "
            "`UNKNOWN`: the runtime throws running the model's tool call, the step ends and so "
            "does the turn, with no second request. (Whether the call's `tool/call` is logged "
            "first is not stated, so only how the log ends is compared.)"
        ),
        ops=(
            lp.agent("a", model=[CALL, FOUR], tools=[{"throws": "boom"}]),
            lp.followup("a", "2+2?"),
            lp.observe(
                "a",
                tail=[lp.step_end(1, 1), lp.turn_end(1, lp.UNKNOWN)],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/a-throwing-request-error-decision-ends-the-turn-unknown",
        contracts=RETRY,
        requires=LOOP_12,
        why=(
            "A turn ended by anything else that throws (..., a hook, ...) ends `UNKNOWN`: the "
            "`agent/request-error` decision on a failed attempt throws, and the turn ends with "
            "`UNKNOWN`, not with the attempt's failure (upstream notes 7.1: the throw leaves "
            "the step as it is)."
        ),
        ops=(
            lp.agent(
                "a", model=[lp.fails("SERVER", "overloaded")], request_error=[{"throws": "x"}]
            ),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, lp.fails("SERVER", "overloaded")),  # 5
                    lp.step_end(1, 1),  # 6
                    lp.turn_end(1, lp.UNKNOWN),  # 7
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    # -- LOOP-REQUEST-BUILD: failed builds, refused agents -----------------------------------------
    Case(
        id="loop/a-throwing-request-hook-fails-the-build",
        contracts=(*BUILD, *RETRY),
        requires=LOOP_12,
        why=(
            "A request build that fails is not a request error: no `agent/request-error` "
            "decision is asked, no header or context is written for it, and the turn ends as "
            "for any other throw (`UNKNOWN`): the `agent/request` waterfall throws."
        ),
        ops=(
            lp.agent("a", model=[HELLO], request=[{"throws": "boom"}], request_error=["retry"]),
            lp.followup("a", "hi"),
            lp.observe("a", log=_failed_build(), requests=[]),
            lp.hook_calls("a", expect={"requestError": []}),
        ),
    ),
    Case(
        id="loop/the-request-error-decision-is-asked-about-the-failed-attempt",
        contracts=("LOOP-REQUEST-ERROR-TEST",),
        requires=LOOP_12,
        why=(
            "A failed attempt asks the `agent/request-error` decision, which is told the turn, "
            "the step and the attempt's failure (PROTOCOL.md, `hook-calls`): turn 2's first "
            "request fails, the decision retries, the retry answers."
        ),
        ops=(
            lp.agent("a", model=[HELLO, AUTH_FAILURE, HELLO], request_error=["retry"]),
            lp.followup("a", "one"),
            lp.followup("a", "two"),
            lp.hook_calls(
                "a",
                expect={
                    "requestError": [
                        {"turn": 2, "step": 1, "failure": {"message": "no key", "code": "AUTH"}}
                    ]
                },
            ),
        ),
    ),
    Case(
        id="loop/a-route-less-agent-fails-the-build",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            "A request build that fails — no provider or model after the `agent/request` "
            "waterfall — is not a request error: no `agent/request-error` decision is asked "
            "(though it would retry), no header or context is written, and the turn ends "
            "`UNKNOWN`. The agent has no route and its waterfall passes the proposal through."
        ),
        ops=(
            lp.agent("a", model=[HELLO], config={}, request_error=["retry"]),
            lp.followup("a", "hi"),
            lp.observe("a", log=_failed_build(), requests=[]),
            lp.hook_calls("a", expect={"requestError": []}),
        ),
    ),
    Case(
        id="loop/a-route-less-agent-proposes-an-empty-route",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            "An agent created without a provider or model proposes it as the empty string "
            '(`{provider: "", model: ""}` before any waterfall listener runs): its `agent/request` '
            "hook is given that proposal (PROTOCOL.md, `hook-calls`), passes it through, and the "
            "build fails (`UNKNOWN`)."
        ),
        ops=(
            lp.agent("a", model=[HELLO], config={}, request=["pass"]),
            lp.followup("a", "hi"),
            lp.hook_calls(
                "a",
                expect={
                    "requestHook": [
                        {"turn": 1, "step": 1, "proposal": {"provider": "", "model": ""}}
                    ]
                },
            ),
            lp.observe("a", log=_failed_build(), requests=[]),
        ),
    ),
    Case(
        id="loop/a-route-less-agent-whose-request-hook-supplies-the-route-sends-it",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            'The route is checked after the `agent/request` waterfall ("no provider or model '
            'after the `agent/request` waterfall" fails the build): an agent created without '
            "one whose hook sets a provider and a model builds, logs and sends the request "
            "with that route."
        ),
        ops=(
            lp.agent("a", model=[HELLO], config={}, request=[{"set": dict(lp.CONFIG)}]),
            lp.followup("a", "hi"),
            lp.observe("a", log=_answered_turn(1, "hi", 1), requests=[{"dispatchSeq": 5}]),
        ),
    ),
    Case(
        id="loop/an-empty-route-after-the-request-hook-counts-as-none",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            "After the `agent/request` waterfall an empty provider or model counts as none: a "
            'hook that sets the model to `""` fails the build (`UNKNOWN`, no header, no context, '
            "no request), though the agent has a model of its own."
        ),
        ops=(
            lp.agent("a", model=[HELLO], request=[{"set": {"model": ""}}]),
            lp.followup("a", "hi"),
            lp.observe("a", log=_failed_build(), requests=[]),
        ),
    ),
    Case(
        id="loop/an-agent-with-a-provider-but-no-model-fails-the-build-before-resolution",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            "A request build that fails — no provider *or* no model after the `agent/request` "
            "waterfall — ends the turn as for any other throw (`UNKNOWN`) with no header or "
            "context: the route is checked before model resolution, so the provider's adapter, "
            "whose resolution would fail with the model layer's failure, is never asked."
        ),
        ops=(
            lp.agent(
                "a",
                model=[HELLO],
                config={"provider": lp.CONFIG["provider"]},
                adapters={lp.CONFIG["provider"]: {"resolve": {"fails": UNSUPPORTED}}},
                request_error=["retry"],
            ),
            lp.followup("a", "hi"),
            lp.observe("a", log=_failed_build(), requests=[]),
        ),
    ),
    Case(
        id="loop/the-adapters-entry-resolves-defaults-and-context-window",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            "A config is resolved by its provider's adapter: the `adapters` entry's defaults "
            "fill what the config leaves out, marked in `adapterDefaults`, and its "
            "`contextWindow` is what `request/context` reports (PROTOCOL.md, `adapters`)."
        ),
        ops=(
            lp.agent(
                "a",
                model=[HELLO],
                adapters={
                    lp.CONFIG["provider"]: {"defaults": {"maxTokens": 512}, "contextWindow": 8192}
                },
            ),
            lp.followup("a", "hi"),
            lp.request_state(
                "a",
                header={
                    "config": {**lp.CONFIG, "maxTokens": 512},
                    "adapterDefaults": {"maxTokens": True},
                    "system": lp.SYSTEM,
                },
                context={**lp.CONFIG, "contextWindow": 8192},
            ),
        ),
    ),
    Case(
        id="loop/a-resolution-that-throws-fails-the-build",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            "A request build that fails — the model resolution throwing something that is not "
            "the model layer's failure — is not a request error: no decision is asked, no "
            "header or context is written, and the turn ends `UNKNOWN`."
        ),
        ops=(
            lp.agent(
                "a",
                model=[HELLO],
                adapters={lp.CONFIG["provider"]: {"resolve": {"throws": "boom"}}},
                request_error=["retry"],
            ),
            lp.followup("a", "hi"),
            lp.observe("a", log=_failed_build(), requests=[]),
            lp.hook_calls("a", expect={"requestError": []}),
        ),
    ),
    Case(
        id="loop/a-resolution-failing-with-the-model-layer-failure-ends-the-turn-with-it",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            "A request build that fails — ... the model resolution throwing — is not a request "
            "error: no `agent/request-error` decision is asked, no header or context is "
            "written, and the turn ends with the resolution's failure when it is the model "
            "layer's failure error (here the scripted adapter's resolution fails with code "
            "`UNSUPPORTED_REASONING_EFFORT`)."
        ),
        ops=(
            lp.agent(
                "a",
                model=[HELLO],
                adapters={"scripted": {"resolve": {"fails": UNSUPPORTED}}},
                request_error=["retry"],
            ),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=[
                    *OPENING,
                    lp.step_end(1, 1),
                    lp.turn_end(1, {"kind": "error", "error": {**UNSUPPORTED}}),
                ],
                requests=[],
            ),
            lp.hook_calls("a", expect={"requestError": []}),
        ),
    ),
    Case(
        id="loop/a-provider-without-an-adapter-is-sent-unresolved",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            "A provider for which no adapter is registered is not a build failure: the "
            "proposed config is used unresolved (no `adapterDefaults`), the header and context "
            "are written, and the request is dispatched; its stream ends with an error finish "
            "`NO_ADAPTER`, which is a request error like any other (the decision here ends the "
            "turn with it). The only adapter is another provider's, with defaults."
        ),
        ops=(
            lp.agent(
                "a",
                model=[HELLO],
                adapters={"other": {"defaults": {"maxTokens": 512}, "contextWindow": 8192}},
                request_error=["end"],
            ),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=[
                    *OPENING,  # 0-2
                    lp.header("initial"),  # 3
                    lp.context(),  # 4
                    _no_adapter_finish(1, 1),  # 5
                    lp.step_end(1, 1),  # 6
                    lp.turn_end(1, {"kind": "error", "error": NO_ADAPTER}),  # 7
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/an-adapter-registered-later-resolves-the-next-build",
        contracts=BUILD,
        requires=LOOP_13,
        why=(
            "Each attempt's config is resolved by the model adapter, and a provider for which "
            "no adapter is registered is sent unresolved (`NO_ADAPTER`). Turn 1 finds none; an "
            "adapter for the provider is then registered, and turn 2's build is resolved by it: "
            "its default `maxTokens` fills in, marked, so the header differs (`change`), and its "
            "context window makes a new `request/context`. (When a registration takes effect "
            "is not stated; the upstream prepares the call anew on every attempt, notes 7.3.)"
        ),
        ops=(
            lp.agent("a", model=[HELLO], adapters={}, request_error=["end"]),
            lp.followup("a", "hi"),
            lp.register_adapter(
                "a", "scripted", {"defaults": {"maxTokens": 512}, "contextWindow": 8192}
            ),
            lp.followup("a", "two"),
            lp.observe(
                "a",
                log=[
                    *OPENING,  # 0-2
                    lp.header("initial"),  # 3
                    lp.context(),  # 4
                    _no_adapter_finish(1, 1),  # 5
                    lp.step_end(1, 1),  # 6
                    lp.turn_end(1, {"kind": "error", "error": NO_ADAPTER}),  # 7
                    *_relative(
                        _answered_turn(
                            2,
                            "two",
                            2,
                            header=[
                                lp.header(
                                    "change",
                                    config={**lp.CONFIG, "maxTokens": 512},
                                    adapter_defaults={"maxTokens": True},
                                ),
                                lp.context(window=8192),
                            ],
                        ),
                        8,
                    ),  # 8-19
                ],
                requests=[{"dispatchSeq": 5}, {"dispatchSeq": 13, "maxTokens": 512}],
            ),
        ),
    ),
    Case(
        id="loop/a-route-switch-is-resolved-by-the-new-providers-adapter",
        contracts=BUILD,
        requires=LOOP_13,
        why=(
            "Each attempt's config is resolved by the model adapter (the proposed provider's), "
            "which fills unset `reasoningEffort`/`maxTokens` from its defaults and marks them; "
            "the context is written when provider, model or window differ. Turn 2's hook "
            "switches to another provider: its adapter's defaults replace the first's (a "
            "`change` header, both still marked) and its window makes a new `request/context`."
        ),
        ops=(
            lp.agent(
                "a",
                model=[HELLO, HELLO],
                config=ROUTE1,
                adapters=ADAPTERS,
                request=["pass", {"set": ROUTE2}],
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
                            lp.header(
                                "initial",
                                config={**ROUTE1, "reasoningEffort": "low", "maxTokens": 100},
                                adapter_defaults=BOTH_MARKED,
                            ),
                            lp.context(ROUTE1, window=1000),
                        ],
                        config=ROUTE1,
                    ),  # 0-11
                    *_relative(
                        _answered_turn(
                            2,
                            "two",
                            3,
                            header=[
                                lp.header(
                                    "change",
                                    config={**ROUTE2, "reasoningEffort": "max", "maxTokens": 200},
                                    adapter_defaults=BOTH_MARKED,
                                ),
                                lp.context(ROUTE2, window=2000),
                            ],
                            config=ROUTE2,
                        ),
                        12,
                    ),  # 12-23
                ],
                requests=[
                    {"dispatchSeq": 5, **ROUTE1, "reasoningEffort": "low", "maxTokens": 100},
                    {"dispatchSeq": 17, **ROUTE2, "reasoningEffort": "max", "maxTokens": 200},
                ],
            ),
        ),
    ),
    Case(
        id="loop/an-effort-outside-the-new-adapters-set-fails-the-build",
        contracts=BUILD,
        requires=LOOP_13,
        why=(
            "Model resolution validates the effort against the adapter's effort set "
            "(`UNSUPPORTED_REASONING_EFFORT`, upstream notes 7.2 step 4); a resolution that "
            "throws the model layer's failure fails the build: no header or context, and the "
            "turn ends with that failure. The agent's effort `high` is one the first provider's "
            "adapter accepts and, set by the agent, it carries to turn 2, whose hook switches "
            "to a provider whose adapter does not know it."
        ),
        ops=(
            lp.agent(
                "a",
                model=[HELLO, HELLO],
                config={**ROUTE1, "reasoningEffort": "high"},
                adapters=ADAPTERS,
                request=["pass", {"set": ROUTE2}],
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
                            lp.header(
                                "initial",
                                config={**ROUTE1, "reasoningEffort": "high", "maxTokens": 100},
                                adapter_defaults={"maxTokens": True},
                            ),
                            lp.context(ROUTE1, window=1000),
                        ],
                        config=ROUTE1,
                    ),  # 0-11
                    lp.turn_start(2),  # 12
                    lp.step_start(2, 1),  # 13
                    lp.user("two", "#3"),  # 14
                    lp.step_end(2, 1),  # 15
                    lp.turn_end(2, {"kind": "error", "error": UNSUPPORTED_EFFORT}),  # 16
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/an-agent-whose-max-tokens-is-not-a-positive-safe-integer-is-refused",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            "An agent whose `maxTokens` is not a positive integer of at most 2^53 - 1 is refused "
            "when it is created (`agent-config-invalid`, `where`: `maxTokens`); 1 and 2^53 - 1 "
            "themselves are accepted."
        ),
        ops=(
            *[
                lp.agent(
                    f"bad{index}",
                    model=[],
                    config={**lp.CONFIG, "maxTokens": value},
                    expect={"error": {"kind": "agent-config-invalid", "where": "maxTokens"}},
                )
                for index, value in enumerate((0, -1, 1.5, 2**53))
            ],
            lp.agent("ok", model=[], config={**lp.CONFIG, "maxTokens": 2**53 - 1}),
            lp.agent("one", model=[], config={**lp.CONFIG, "maxTokens": 1}),
        ),
    ),
    Case(
        id="loop/a-request-hook-switching-the-model-sticks-for-later-turns",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            "Each attempt's config is proposed, may be replaced by the `agent/request` "
            "waterfall, and is then resolved; once the instance has written a header, the "
            "proposal is the folded header's config: turn 2's hook switches the model (a "
            "`change` header and a new `request/context`), and turn 3's hook is offered that "
            "model, not the agent's."
        ),
        ops=(
            lp.agent(
                "a",
                model=[HELLO, HELLO, HELLO],
                request=["pass", {"set": {"model": "m2"}}, "pass"],
            ),
            lp.followup("a", "one"),
            lp.followup("a", "two"),
            lp.followup("a", "three"),
            lp.hook_calls(
                "a",
                expect={
                    "requestHook": [
                        {"turn": 1, "step": 1, "proposal": lp.CONFIG},
                        {"turn": 2, "step": 1, "proposal": lp.CONFIG},
                        {"turn": 3, "step": 1, "proposal": OTHER_MODEL},
                    ]
                },
            ),
            lp.observe(
                "a",
                requests=[
                    {"dispatchSeq": 5, "model": "m1"},
                    {"dispatchSeq": 17, "model": "m2"},
                    {"dispatchSeq": 27, "model": "m2"},
                ],
            ),
            lp.request_state(
                "a",
                header={"config": OTHER_MODEL, "system": lp.SYSTEM},
                context={"provider": "scripted", "model": "m2"},
            ),
        ),
    ),
    Case(
        id="loop/a-request-hook-switching-only-the-provider-writes-request-context",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            "The build writes `request/context` when one of provider, model and contextWindow "
            "differs from the last one: turn 2's hook switches the provider alone (same model, "
            "neither adapter has a context window), so turn 2 writes a `change` header and a "
            "new `request/context` naming the new provider."
        ),
        ops=(
            lp.agent(
                "a",
                model=[HELLO, HELLO],
                adapters={"scripted": {}, "other": {}},
                request=["pass", {"set": {"provider": "other"}}],
            ),
            lp.followup("a", "one"),
            lp.followup("a", "two"),
            lp.request_state(
                "a",
                header={"config": OTHER_PROVIDER, "system": lp.SYSTEM},
                context=OTHER_PROVIDER,
            ),
        ),
    ),
    Case(
        id="loop/request-state-reads-the-folded-header-and-context",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            "A new loop instance over a log whose context is unchanged writes none, and one "
            "whose context window differs writes a new one: read without a request, the new "
            "instance's log first holds the seeded header and context, then, after its first "
            "build, the context with its own window."
        ),
        ops=(
            lp.agent("a1", model=[HELLO], adapter={"contextWindow": 65536}),
            lp.followup("a1", "one"),
            lp.agent("a2", model=[HELLO], seed={"agent": "a1"}, adapter={"contextWindow": 131072}),
            lp.request_state(
                "a2",
                header={"config": lp.CONFIG, "system": lp.SYSTEM},
                context={**lp.context(window=65536)["data"]},
            ),
            lp.followup("a2", "two"),
            lp.request_state(
                "a2",
                header={"config": lp.CONFIG, "system": lp.SYSTEM},
                context={**lp.context(window=131072)["data"]},
            ),
        ),
    ),
    # -- PROMPT-CANCEL-TEST, PROMPT-STEP-BOUNDARY: a pre-step decision that waits ----------------
    Case(
        id="loop/cancel-while-the-pre-step-decision-waits-aborts-the-turn",
        contracts=CANCEL,
        requires=LOOP_12,
        why=(
            "preStep runs the `agent/pre-step` decision, then checks cancellation: a cancel "
            "while the decision is pending aborts the turn once it settles, with no step opened "
            "and no request, though the decision then admits the claimed message (upstream "
            "notes 8.3, row b). The decision is given the turn's signal (it waits for its "
            "abort), and was offered the claimed message and no snapshot."
        ),
        ops=(
            lp.agent(
                "a", model=[HELLO], pre_step=[{"decision": "default", "waitFor": {"abort": True}}]
            ),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            lp.hook_calls(
                "a",
                expect={"preStep": [{"turn": 1, "step": 1, "claimed": [HI], "proposed": None}]},
            ),
            lp.observe(
                "a", log=[lp.turn_start(1), lp.turn_end(1, lp.aborted(lp.USER_CANCEL))], requests=[]
            ),
        ),
    ),
    Case(
        id="loop/cancel-while-the-request-error-decision-waits-aborts-the-turn",
        contracts=CANCEL,
        requires=LOOP_12,
        why=(
            "The `agent/request-error` decision is given the turn's signal: one waiting for its "
            "abort settles on a cancel, and the turn ends aborted with the cancel's cause (the "
            "failed attempt's chunk stays logged; no `assistant/message`)."
        ),
        ops=(
            lp.agent(
                "a",
                model=[AUTH_FAILURE],
                request_error=[{"action": "end", "waitFor": {"abort": True}}],
            ),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, AUTH_FAILURE),  # 5
                    lp.step_end(1, 1),  # 6
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 7
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/cancel-while-the-request-hook-waits-writes-no-header",
        contracts=CANCEL,
        requires=LOOP_12,
        why=(
            "A cancel during the `agent/request` waterfall (upstream notes 8.3, row d): the "
            "hook is given the turn's signal and settles on its abort; the build stops there, "
            "so the step ends with no `request/header`, no context and no request, and the "
            "turn ends aborted."
        ),
        ops=(
            lp.agent("a", model=[HELLO], request=[{"waitFor": {"abort": True}}]),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            lp.observe(
                "a",
                log=[*OPENING, lp.step_end(1, 1), lp.turn_end(1, lp.aborted(lp.USER_CANCEL))],
                requests=[],
            ),
        ),
    ),
    Case(
        id="loop/cancel-while-model-resolution-waits-writes-no-header",
        contracts=CANCEL,
        requires=LOOP_12,
        why=(
            "A cancel during model resolution (the upstream's `prepareCall`, notes 8.3, row d): "
            "resolution is given the turn's signal and settles on its abort; the build stops "
            "there, so the step ends with no `request/header`, no context and no request, and "
            "the turn ends aborted."
        ),
        ops=(
            lp.agent(
                "a",
                model=[HELLO],
                adapters={"scripted": {"resolve": {"waitFor": {"abort": True}}}},
            ),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            lp.observe(
                "a",
                log=[*OPENING, lp.step_end(1, 1), lp.turn_end(1, lp.aborted(lp.USER_CANCEL))],
                requests=[],
            ),
        ),
    ),
    *(
        Case(
            id=f"loop/dispose-while-{what}-waits-writes-nothing-for-the-attempt",
            contracts=BUILD,
            requires=LOOP_12,
            why=(
                'LOOP-REQUEST-BUILD: "A cancel or disposal while the `agent/request` waterfall '
                "or the model resolution waits ends the turn `aborted` with the cause once it "
                'settles: no header, context or request is written for that attempt." Here the '
                f"owner disposes of the agent while {what} waits for the turn's abort signal."
            ),
            ops=(
                lp.agent("a", model=[HELLO], **waiting),
                lp.followup("a", "hi"),
                lp.dispose("a"),
                lp.observe(
                    "a",
                    log=[*OPENING, lp.step_end(1, 1), lp.turn_end(1, lp.aborted(lp.DISPOSED))],
                    requests=[],
                ),
            ),
        )
        for what, waiting in (
            ("the-request-hook", {"request": [{"waitFor": {"abort": True}}]}),
            (
                "model-resolution",
                {"adapters": {"scripted": {"resolve": {"waitFor": {"abort": True}}}}},
            ),
        )
    ),
    Case(
        id="loop/cancel-while-a-tool-runs-keeps-its-result-and-aborts",
        contracts=CANCEL,
        requires=LOOP_12,
        why=(
            'PROMPT-RETRY-BOUNDARY: "If the turn is cancelled while a tool call runs, that call '
            "still commits one `tool/result` citing it — the tool's own result or a "
            "cancellation result (`isError: true`); which one is the implementation's choice, "
            "and the suite compares neither its content nor `isError` — then the step ends and "
            'the turn ends `aborted` with the cause, sending no further request." The tool is '
            "given the turn's signal and settles on its abort. Compared: the event types (one "
            "`tool/result` after the `tool/call`), the log's end, the one request; not the "
            "result's message (so not its citation either: the view has no wildcard for a "
            "message whose content is the implementation's)."
        ),
        ops=(
            lp.agent(
                "a",
                model=[CALL, FOUR],
                tools=[{**lp.tool_result("4"), "waitFor": {"abort": True}}],
            ),
            lp.followup("a", "2+2?"),
            lp.cancel("a"),
            lp.observe(
                "a",
                types=[event["type"] for event in _turn_with_tools()[:12]]
                + ["step/end", "turn/end"],
                tail=[lp.step_end(1, 1), lp.turn_end(1, lp.aborted(lp.USER_CANCEL))],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/cancel-while-the-turn-stopping-hook-waits-aborts-the-turn",
        contracts=CANCEL,
        requires=LOOP_13,
        why=(
            "A cancel while the `agent/turn-stopping` hook waits (upstream notes 6.2 step 11: "
            "the hook, then a cancellation check; 8.3 row i; CONTRACTS.md names no such hook): "
            "the hook is given the turn's signal and settles on its abort; the turn, whose step "
            "had completed, ends aborted after its `step/end`, with no further step."
        ),
        ops=(
            lp.agent("a", model=[HELLO], turn_stopping=[{"waitFor": {"abort": True}}]),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:-1],  # 0-10
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 11
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    # -- PROMPT-STEP-BOUNDARY: the turn-stopping hook ----------------------------------------------
    Case(
        id="loop/the-turn-stopping-hook-waits-before-the-turn-ends",
        contracts=STEP,
        requires=LOOP_13,
        why=(
            "A turn whose step concluded with no next-step message waiting awaits the "
            "`agent/turn-stopping` hook before it ends (upstream notes 6.2 step 11, 8.1 item 23; "
            "CONTRACTS.md names no such hook): after a tool round trip the hook is reached once, "
            "after the second step's `step/end` (not after the tool step, which is followed by "
            "a continuation step), and `turn/end` waits for it."
        ),
        ops=(
            lp.agent(
                "a",
                model=[CALL, FOUR],
                tools=[lp.tool_result("4")],
                turn_stopping=[{"waitFor": {"gate": "g"}}],
            ),
            lp.followup("a", "2+2?"),
            lp.observe("a", log=_turn_with_tools()[:20]),
            s.open_gate("g"),
            lp.observe("a", log=_turn_with_tools()),
        ),
    ),
    Case(
        id="loop/a-message-injected-while-the-turn-stopping-hook-waits-opens-another-step",
        contracts=STEP,
        requires=LOOP_13,
        why=(
            "After the `agent/turn-stopping` hook the turn ends only if no next-step message "
            'waits (upstream notes 6.2 step 12: "If `turnEnds` is set and `nextStep` is still '
            'empty: break"): one injected while the hook waits is claimed by a step 2 of the '
            "same turn; the hook is reached again after it, and the turn then ends."
        ),
        ops=(
            lp.agent("a", model=[HELLO, FOUR], turn_stopping=[{"waitFor": {"gate": "g"}}]),
            lp.followup("a", "hi"),
            lp.inject("a", "note"),
            s.open_gate("g"),
            lp.observe("a", log=_step_after_a_note()),
        ),
    ),
    # -- PROMPT-STEP-BOUNDARY: injected messages ---------------------------------------------------
    Case(
        id="loop/an-injected-message-waits-idle-for-the-next-turn",
        contracts=STEP,
        requires=LOOP_12,
        why=(
            "A next-step message placed in the inbox while the agent is idle wakes nothing (the "
            "upstream's `inject`, notes section 5); the next follow-up's turn claims all "
            "next-step messages, then the one next-turn message, in that order."
        ),
        ops=(
            lp.agent("a", model=[HELLO]),
            lp.inject("a", "note"),
            lp.observe("a", log=[], requests=[]),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=[
                    lp.turn_start(1),  # 0
                    lp.step_start(1, 1),  # 1
                    lp.injected("note", "#1"),  # 2
                    lp.user("hi", "#2"),  # 3
                    lp.header("initial"),  # 4
                    lp.context(),  # 5
                    *lp.attempt(1, 1, HELLO),  # 6-9
                    lp.assistant(1, 1, [lp.text_block("hello")], "#3", range(6, 10)),  # 10
                    lp.step_end(1, 1),  # 11
                    lp.turn_end(1),  # 12
                ],
            ),
        ),
    ),
    Case(
        id="loop/a-message-injected-while-a-cancelled-turn-settles-wakes-nothing",
        contracts=STEP,
        requires=LOOP_12,
        why=(
            "`inject` places a message for the next step without waking the agent (PROTOCOL.md, "
            "`inject`; the upstream's `inject`, notes section 5): one injected after a cancel, "
            "while the cancelled turn's assembly is still held, is not claimed by any turn once "
            "turn 1 has ended aborted; the agent stays idle."
        ),
        ops=(
            lp.agent("a", model=[HELLO]),
            s.listen("hold", s.listener(wait_gate="g"), scope="a"),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            lp.inject("a", "note"),
            s.open_gate("g"),
            lp.observe(
                "a",
                log=[lp.turn_start(1), lp.turn_end(1, lp.aborted(lp.USER_CANCEL))],
                requests=[],
            ),
        ),
    ),
    Case(
        id="loop/a-message-injected-during-a-turn-that-fails-wakes-nothing",
        contracts=STEP,
        requires=LOOP_12,
        why=(
            "`inject` places a message for the next step without waking the agent (PROTOCOL.md, "
            "`inject`): one injected while step 1 streams is left unclaimed when that step's "
            "request fails and the `agent/request-error` decision ends the turn; no turn starts "
            "for it."
        ),
        ops=(
            lp.agent(
                "a", model=[{**AUTH_FAILURE, "waitFor": {"gate": "g"}}], request_error=["end"]
            ),
            lp.followup("a", "hi"),
            lp.inject("a", "note"),
            s.open_gate("g"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, AUTH_FAILURE),  # 5
                    lp.step_end(1, 1),  # 6
                    lp.turn_end(
                        1, {"kind": "error", "error": {"message": "no key", "code": "AUTH"}}
                    ),  # 7
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/a-turn-ended-by-an-empty-decision-goes-on-to-the-queued-followup",
        contracts=STEP,
        requires=LOOP_12,
        why=(
            "An empty decision after a step that concluded ends the turn with that step's "
            "outcome; the follow-up queued meanwhile still gets its own turn (PROTOCOL.md, "
            "`followup`: it queued the message and woke the agent). Step 1 answers, the steer "
            "sent while its assembly was held opens step 2, whose decision is empty (the steer "
            "is consumed, not logged), and the follow-up is turn 2."
        ),
        ops=(
            lp.agent("a", model=[HELLO, HELLO], pre_step=["default", "empty", "default"]),
            s.listen("hold", s.listener(wait_gate="g"), scope="a"),
            lp.followup("a", "one"),
            lp.steer("a", "also"),
            lp.followup("a", "two"),
            s.open_gate("g"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "one", 1),  # 0-11
                    *_relative(_answered_turn(2, "two", 3, header=[]), 12),  # 12-21
                ],
            ),
        ),
    ),
    Case(
        id="loop/a-message-injected-during-a-step-opens-the-next-step",
        contracts=STEP,
        requires=LOOP_12,
        why=(
            "A concluded step is followed by another step of the same turn while a next-step "
            "message waits: one injected while step 1 streams is claimed by step 2, which "
            "opens with it."
        ),
        ops=(
            lp.agent("a", model=[{**HELLO, "waitFor": {"gate": "g"}}, FOUR]),
            lp.followup("a", "hi"),
            lp.inject("a", "note"),
            s.open_gate("g"),
            lp.observe("a", log=_step_after_a_note()),
        ),
    ),
]

#: The snapshot of a `clock` context reading "noon", as `hook-calls` records it (no `id`).
_SNAPSHOT_PROPOSED = {
    key: value for key, value in lp.snapshot("", ("clock", "noon"))["data"].items() if key != "id"
}

#: A tool result the runtime reports as an error (TOOL_RESULT `isError: true`).
_ERROR_RESULT = lp.tool_result("no such tool", is_error=True)


def _turn_with_an_error_result() -> list[Json]:
    """`_turn_with_tools`, the tool's result being an error: the logged block says so."""
    events = _turn_with_tools()
    result = lp.tool_result_event(1, 1, "c1", "no such tool", "#3", 10)
    result["data"]["message"]["content"][0]["isError"] = True
    return [*events[:11], result, *events[12:]]


# Cases the mutation run of the reference harness showed missing (issue 15 §3): each checks how
# PROTOCOL.md defines a scripted op, through the loop rule it feeds.
CASES += [
    Case(
        id="loop/a-tool-result-marked-as-an-error-is-logged-as-one",
        contracts=STEP,
        requires=("registry", "loop"),
        why=(
            "TOOL_RESULT `isError: true` (PROTOCOL.md) is a result the tool runtime reports as "
            "an error: its `tool/result` message's tool-result block carries `isError: true`, "
            "and, the step having run a tool call without concluding, a continuation step "
            "follows."
        ),
        ops=(
            lp.agent("a", model=[CALL, FOUR], tools=[_ERROR_RESULT]),
            lp.followup("a", "2+2?"),
            lp.observe(
                "a",
                log=_turn_with_an_error_result(),
                requests=[{"dispatchSeq": 5}, {"dispatchSeq": 14}],
            ),
        ),
    ),
    Case(
        id="loop/an-empty-decision-still-opens-a-continuation-step",
        contracts=STEP,
        requires=("registry", "loop"),
        why=(
            "An admitted decision opens `step/start` when the previous step of the turn ran tool "
            "calls without concluding the turn, even with no message: an `empty` decision "
            "(PROTOCOL.md DECISION: enter with no messages) after the tool step opens step 2 "
            "and the turn goes on exactly as with the default decision."
        ),
        ops=(
            lp.agent(
                "a", model=[CALL, FOUR], tools=[lp.tool_result("4")], pre_step=["default", "empty"]
            ),
            lp.followup("a", "2+2?"),
            lp.observe(
                "a", log=_turn_with_tools(), requests=[{"dispatchSeq": 5}, {"dispatchSeq": 14}]
            ),
        ),
    ),
    Case(
        id="loop/a-decision-object-decides-by-its-decision",
        contracts=STEP,
        requires=LOOP_12,
        why=(
            'DECISION `{"decision": "reject"}` (PROTOCOL.md, 1.2: the object form, its `waitFor` '
            "optional) is the `reject` decision: the turn's first decision rejects, so the turn "
            'ends `{kind: "blocked"}` with no model call.'
        ),
        ops=(
            lp.agent("a", model=[HELLO], pre_step=[{"decision": "reject"}]),
            lp.followup("a", "hi"),
            lp.observe("a", tail=[lp.turn_end(1, lp.BLOCKED)], requests=[]),
        ),
    ),
    Case(
        id="loop/a-request-hook-that-only-waits-passes-the-proposal",
        contracts=BUILD,
        requires=LOOP_12,
        why=(
            "REQUEST_HOOK `{waitFor}` with neither `throws` nor `set` (PROTOCOL.md: an object "
            "with any of them) waits, then returns the proposal with no field set: what the "
            "waterfall returns is what is resolved and sent, so once the gate opens the turn "
            "is the plain answered one."
        ),
        ops=(
            lp.agent("a", model=[HELLO], request=[{"waitFor": {"gate": "g"}}]),
            lp.followup("a", "hi"),
            s.open_gate("g"),
            lp.observe("a", log=_answered_turn(1, "hi", 1), requests=[{"dispatchSeq": 5}]),
        ),
    ),
    Case(
        id="loop/hook-calls-record-the-snapshot-the-default-decision-proposes",
        contracts=("LOOP-RUNTIME-CONTEXT",),
        requires=LOOP_12,
        why=(
            "The proposed runtime-context message is the last message of the default pre-step "
            "decision, after the claimed ones; `hook-calls` records it as `proposed` (PROTOCOL.md: "
            "the runtime-context message the default decision adds after the claimed ones, "
            "without its id). A context in force on the first step proposes its snapshot."
        ),
        ops=(
            lp.agent("a", model=[HELLO]),
            s.context("clock", "clock", 0, "noon"),
            lp.followup("a", "hi"),
            lp.hook_calls(
                "a",
                expect={
                    "preStep": [
                        {"turn": 1, "step": 1, "claimed": [HI], "proposed": _SNAPSHOT_PROPOSED}
                    ]
                },
            ),
        ),
    ),
    Case(
        id="loop/an-unscripted-request-error-decision-ends-the-turn",
        contracts=RETRY,
        requires=("registry", "loop"),
        why=(
            "ACTION: one per failed attempt in order, then `end` (PROTOCOL.md): with none "
            "scripted, the failed attempt's decision ends the turn "
            '`{kind: "error", error: <failure>}`.'
        ),
        ops=(
            lp.agent("a", model=[AUTH_FAILURE, HELLO]),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, AUTH_FAILURE),  # 5
                    lp.step_end(1, 1),  # 6
                    lp.turn_end(
                        1, {"kind": "error", "error": {"message": "no key", "code": "AUTH"}}
                    ),
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
]
