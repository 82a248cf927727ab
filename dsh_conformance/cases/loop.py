"""The loop's turns and steps: PROMPT-STEP-BOUNDARY, PROMPT-CANCEL-TEST, PROMPT-RETRY-BOUNDARY and
LOOP-REQUEST-ERROR-TEST.

Expected logs are worked out by hand from CONTRACTS.md and the append orders of
`upstream/loop-and-session.md` §8-§9, in the view of `dsh_conformance.judge.logview`: the comment
before each event is its position (the seq it would have in a log of core events only), and message
ids are ``#n`` in order of first appearance. Every case also runs the suite's own request check
(`test_loop_invariant`).

Why one module: it is a table of the loop's turns and steps in the order of the contracts
above; its cases share the scripted answers defined at its top, which a split would scatter.
"""

from __future__ import annotations

from ..judge.case import Case
from ..scenarios import loopscenario as lp
from ..scenarios import scenario as s
from ..scenarios.scenario import Json

LOOP = ("registry", "loop")
STEP = ("PROMPT-STEP-BOUNDARY",)
CANCEL = ("PROMPT-CANCEL-TEST",)
RETRY = ("PROMPT-RETRY-BOUNDARY", "LOOP-REQUEST-ERROR-TEST")

ARGS = '{"a":2,"b":2}'
CALL = lp.tool_call("c1", "add", ARGS)
FOUR = lp.answer("4")
HELLO = lp.answer("hello")
#: A stream that yields nothing and waits for the abort.
SILENT = {"chunks": [], "waitFor": {"abort": True}}
#: A tool call cut off mid-arguments, then waiting for the abort.
HALF_CALL = {
    "chunks": [
        {"type": "block-start", "index": 0, "blockType": "tool-call"},
        {
            "type": "tool-call-delta",
            "index": 0,
            "id": "c1",
            "name": "add",
            "argumentsDelta": '{"a"',
        },
    ],
    "waitFor": {"abort": True},
}
#: A reasoning block streamed, then the wait for the abort (PROMPT-RETRY-BOUNDARY's cancel).
HALF_REASONING = {
    "chunks": [
        {"type": "block-start", "index": 0, "blockType": "reasoning"},
        {"type": "reasoning-delta", "index": 0, "text": "hmm"},
    ],
    "waitFor": {"abort": True},
}
#: One text block cut into two deltas, then the wait for the abort.
TWO_DELTAS = {
    **lp.partial("hal"),
    "chunks": [*lp.partial("hal")["chunks"], {"type": "text-delta", "index": 0, "text": "lo"}],
}
#: A text block that ended, then a second text block streamed, then the wait for the abort.
TWO_BLOCKS = {
    **lp.partial("hal"),
    "chunks": [
        {"type": "block-start", "index": 0, "blockType": "text"},
        {"type": "text-delta", "index": 0, "text": "hmm"},
        {"type": "block-end", "index": 0, "block": {"type": "text", "text": "hmm"}},
        {"type": "block-start", "index": 1, "blockType": "text"},
        {"type": "text-delta", "index": 1, "text": "hal"},
    ],
}
#: A text answer whose stream ends with `max-tokens`.
CUT_TEXT = {"chunks": [*HELLO["chunks"][:-1], {"type": "finish", "reason": {"kind": "max-tokens"}}]}
#: A tool call whose stream ends with `max-tokens`.
CUT_CALL = {
    "chunks": [
        *CALL["chunks"][:-1],
        {"type": "finish", "reason": {"kind": "max-tokens"}},
    ]
}
#: Two chunks of a text block, then the adapter fails.
PARTIAL_FAILURE = {**lp.partial("hal"), "fail": {"code": "SERVER", "message": "reset"}}
del PARTIAL_FAILURE["waitFor"]
#: Two chunks of a text block, then the adapter fails with code ABORTED, the turn not cancelled.
ABORTED_FAILURE = {**PARTIAL_FAILURE, "fail": {"code": "ABORTED", "message": "x"}}
#: A text block started, never given a delta nor ended, then the finish (upstream notes §0.5).
STARTED_TEXT = {
    "chunks": [
        {"type": "block-start", "index": 0, "blockType": "text"},
        {"type": "finish", "reason": {"kind": "stop"}},
    ]
}
#: A reasoning block started, given no delta and never ended, then the stream's finish.
STARTED_REASONING = {
    "chunks": [
        {"type": "block-start", "index": 0, "blockType": "reasoning"},
        {"type": "finish", "reason": {"kind": "stop"}},
    ]
}
#: The answer "hi", then a delta and a second end for its block after its end.
LATE_CHUNKS = {
    "chunks": [
        *lp.answer("hi")["chunks"][:3],
        {"type": "text-delta", "index": 0, "text": " again"},
        {"type": "block-end", "index": 0, "block": lp.text_block("bye")},
        {"type": "finish", "reason": {"kind": "stop"}},
    ]
}
#: `CALL`'s tool call streamed as two argument deltas and never ended.
UNENDED_CALL = {
    "chunks": [
        {"type": "block-start", "index": 0, "blockType": "tool-call"},
        {
            "type": "tool-call-delta",
            "index": 0,
            "id": "c1",
            "name": "add",
            "argumentsDelta": ARGS[:7],
        },
        {"type": "tool-call-delta", "index": 0, "id": "c1", "argumentsDelta": ARGS[7:]},
        {"type": "finish", "reason": {"kind": "tool-calls"}},
    ]
}
#: A text, a reasoning and a tool-call delta, each for an index no `block-start` opened.
UNSTARTED = {
    "chunks": [
        {"type": "text-delta", "index": 0, "text": "a"},
        {"type": "reasoning-delta", "index": 1, "text": "r"},
        {"type": "tool-call-delta", "index": 2, "id": "c1", "name": "add", "argumentsDelta": ARGS},
        {"type": "finish", "reason": {"kind": "tool-calls"}},
    ]
}
#: A text block whose deltas carry less than its end.
END_WINS = {
    "chunks": [
        {"type": "block-start", "index": 0, "blockType": "text"},
        {"type": "text-delta", "index": 0, "text": "hel"},
        {"type": "block-end", "index": 0, "block": lp.text_block("hello")},
        {"type": "finish", "reason": {"kind": "stop"}},
    ]
}
#: Two blocks started, then their deltas in the other order.
STARTED_IN_ORDER = {
    "chunks": [
        {"type": "block-start", "index": 0, "blockType": "text"},
        {"type": "block-start", "index": 1, "blockType": "reasoning"},
        {"type": "reasoning-delta", "index": 1, "text": "r"},
        {"type": "text-delta", "index": 0, "text": "t"},
        {"type": "block-end", "index": 0, "block": lp.text_block("t")},
        {"type": "block-end", "index": 1, "block": {"type": "reasoning", "text": "r"}},
        {"type": "finish", "reason": {"kind": "stop"}},
    ]
}
#: What a stream reports as its usage, and a usage the log refuses (-0 is not lossless JSON).
USAGE = {"inputTokens": 3, "outputTokens": 1}
REFUSED_USAGE = {
    "chunks": [
        *lp.partial("hello")["chunks"],
        {"type": "usage", "usage": {"inputTokens": -0.0, "outputTokens": 1}},
        {"type": "finish", "reason": {"kind": "stop"}},
    ]
}
#: A text block, a usage chunk, then a wait for the abort (a cancel cuts the stream there).
USAGE_THEN_WAIT = {
    **lp.partial("hal"),
    "chunks": [*lp.partial("hal")["chunks"], {"type": "usage", "usage": USAGE}],
}


def _turn_with_tools() -> list[Json]:
    """Turn 1: "2+2?" → a tool call → its result → the answer "4" (positions 0-20)."""
    return [
        lp.turn_start(1),  # 0
        lp.step_start(1, 1),  # 1
        lp.user("2+2?", "#1"),  # 2
        lp.header("initial"),  # 3
        lp.context(),  # 4
        *lp.attempt(1, 1, CALL),  # 5-8
        lp.assistant(1, 1, [lp.call_block("c1", "add", ARGS)], "#2", range(5, 9)),  # 9
        lp.tool_call_event(1, 1, "c1", "add", ARGS),  # 10
        lp.tool_result_event(1, 1, "c1", "4", "#3", 10),  # 11
        lp.step_end(1, 1),  # 12
        lp.step_start(1, 2),  # 13
        *lp.attempt(1, 2, FOUR),  # 14-17
        lp.assistant(1, 2, [lp.text_block("4")], "#4", range(14, 18)),  # 18
        lp.step_end(1, 2),  # 19
        lp.turn_end(1),  # 20
    ]


def _answered_turn(
    turn: int,
    text: str,
    first_id: int,
    *,
    header: Json = None,
    extra: tuple[Json, ...] = (),
    config: Json = lp.CONFIG,
) -> list[Json]:
    """A one-step turn: the user's ``text`` (id ``#first_id``), the ``extra`` messages entered
    after it, [a header and context], the answer "hello" (from ``config``'s route)."""
    opening = [lp.header("initial"), lp.context()] if header is None else header
    start = 3 + len(extra) + len(opening)
    answer_id = f"#{first_id + 1 + len(extra)}"
    return [
        lp.turn_start(turn),
        lp.step_start(turn, 1),
        lp.user(text, f"#{first_id}"),
        *extra,
        *opening,
        *lp.attempt(turn, 1, HELLO),
        lp.assistant(
            turn, 1, [lp.text_block("hello")], answer_id, range(start, start + 4), config=config
        ),
        lp.step_end(turn, 1),
        lp.turn_end(turn),
    ]


def _relative(events: list[Json], offset: int) -> list[Json]:
    """``events`` as they appear ``offset`` positions later in a log."""
    moved = []
    for event in events:
        if "sourceEventSeqs" in event:
            event = {**event, "sourceEventSeqs": [seq + offset for seq in event["sourceEventSeqs"]]}
        moved.append(event)
    return moved


def _blocked_assembly(gate: str = "g") -> Json:
    """A listener scoped to agent ``a`` that holds every assembly until ``gate`` opens."""
    return s.listen("hold", s.listener(wait_gate=gate), scope="a")


def _answered_by(case_id: str, why: str, reply: Json, content: list[Json]) -> Case:
    """A ROOT-MODEL case on how a reply's chunks make the answer: "hi", ``reply``, and the
    `assistant/message` it must log, holding ``content`` and citing every chunk."""
    chunks = range(5, 5 + len(reply["chunks"]))
    return Case(
        id=case_id,
        contracts=("ROOT-MODEL",),
        requires=LOOP,
        why=why,
        ops=(
            lp.agent("a", model=[reply]),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, reply),
                    lp.assistant(1, 1, content, "#2", chunks),
                    lp.step_end(1, 1),
                    lp.turn_end(1),
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    )


def _called_by(case_id: str, why: str, reply: Json, content: list[Json]) -> Case:
    """`_answered_by` for a reply holding `CALL`'s tool call: it runs, and its result concludes
    the turn."""
    chunks = range(5, 5 + len(reply["chunks"]))
    return Case(
        id=case_id,
        contracts=("ROOT-MODEL",),
        requires=LOOP,
        why=why,
        ops=(
            lp.agent("a", model=[reply], tools=[lp.tool_result("4", concludes=True)]),
            lp.followup("a", "2+2?"),
            lp.observe(
                "a",
                log=[
                    *_turn_with_tools()[:5],  # 0-4
                    *lp.attempt(1, 1, reply),
                    lp.assistant(1, 1, content, "#2", chunks),
                    lp.tool_call_event(1, 1, "c1", "add", ARGS),
                    lp.tool_result_event(1, 1, "c1", "4", "#3", chunks.stop + 1),
                    lp.step_end(1, 1),
                    lp.turn_end(1),
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    )


CASES = [
    # -- PROMPT-STEP-BOUNDARY ---------------------------------------------------------------------
    Case(
        id="loop/tool-round-trip-continuation-step",
        contracts=STEP,
        requires=LOOP,
        why=(
            "An admitted decision opens `step/start` when it has at least one message, or when "
            "the previous step of the turn ran tool calls without concluding the turn (a "
            "continuation step, which may open with no `user/message`); `tool/result` cites its "
            "`tool/call`; headers are written only when they change (upstream §8.1)."
        ),
        ops=(
            lp.agent("a", model=[CALL, FOUR], tools=[lp.tool_result("4")]),
            lp.followup("a", "2+2?"),
            lp.observe(
                "a",
                log=_turn_with_tools(),
                requests=[{"dispatchSeq": 5}, {"dispatchSeq": 14}],
            ),
        ),
    ),
    Case(
        id="loop/empty-first-decision-completes-without-step",
        contracts=STEP,
        requires=LOOP,
        why=(
            'an empty decision on the turn\'s first step ends it `{kind: "completed"}` with no '
            "step and no model call"
        ),
        ops=(
            lp.agent("a", model=[HELLO], pre_step=["empty"]),
            lp.followup("a", "hi"),
            lp.observe("a", log=[lp.turn_start(1), lp.turn_end(1)], requests=[]),
        ),
    ),
    Case(
        id="loop/rejected-first-decision-blocks",
        contracts=STEP,
        requires=LOOP,
        why=(
            'A rejected decision ends the turn `{kind: "blocked"}`, with no model call: here the '
            "turn's first decision. (Whether its message is logged is the next case's rule: only "
            "the log's last event is compared.)"
        ),
        ops=(
            lp.agent("a", model=[HELLO], pre_step=["reject"]),
            lp.followup("a", "hi"),
            lp.observe("a", tail=[lp.turn_end(1, lp.BLOCKED)], requests=[]),
        ),
    ),
    Case(
        id="loop/rejected-decision-consumes-the-message",
        contracts=STEP,
        requires=LOOP,
        why=(
            "A rejected decision: a claimed message it consumed is not logged as a "
            "`user/message` (and no step opens). (How the turn ends is the previous case's rule: "
            "only the event types are compared.)"
        ),
        ops=(
            lp.agent("a", model=[HELLO], pre_step=["reject"]),
            lp.followup("a", "hi"),
            lp.observe("a", types=["turn/start", "turn/end"]),
        ),
    ),
    Case(
        id="loop/rejected-decision-after-a-step-blocks",
        contracts=STEP,
        requires=LOOP,
        why=(
            'A rejected decision ends the turn `{kind: "blocked"}` (even after earlier steps '
            "completed): the continuation step after the tool call is rejected."
        ),
        ops=(
            lp.agent(
                "a",
                model=[CALL, FOUR],
                tools=[lp.tool_result("4")],
                pre_step=["default", "reject"],
            ),
            lp.followup("a", "2+2?"),
            lp.observe(
                "a",
                log=[*_turn_with_tools()[:13], lp.turn_end(1, lp.BLOCKED)],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/burst-of-followups-one-turn-each",
        contracts=STEP,
        requires=LOOP,
        why=(
            "preStep claims all next-step messages, then — on a turn's first step only — at most "
            "one next-turn message: three follow-ups queued while turn 1 assembles make three "
            "turns of one message each (turns continue from the last `turn/start`)."
        ),
        ops=(
            lp.agent("a", model=[HELLO, HELLO, HELLO]),
            _blocked_assembly(),
            lp.followup("a", "one"),
            lp.followup("a", "two"),
            lp.followup("a", "three"),
            s.open_gate("g"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "one", 1),  # 0-11
                    *_relative(_answered_turn(2, "two", 3, header=[]), 12),  # 12-21
                    *_relative(_answered_turn(3, "three", 5, header=[]), 22),  # 22-31
                ],
            ),
        ),
    ),
    Case(
        id="loop/steer-during-a-step-opens-the-next-step",
        contracts=STEP,
        requires=LOOP,
        why=(
            "preStep claims the inbox before it assembles, so a steer sent while step 1's "
            "assembly is blocked waits in next-step; the concluded step is followed by step 2 of "
            "the same turn with that message, since the turn ends only when no next-step message "
            "waits."
        ),
        ops=(
            lp.agent("a", model=[HELLO, FOUR]),
            _blocked_assembly(),
            lp.followup("a", "one"),
            lp.steer("a", "also"),
            s.open_gate("g"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "one", 1)[:-1],  # 0-10
                    lp.step_start(1, 2),  # 11
                    lp.user("also", "#3"),  # 12
                    *lp.attempt(1, 2, FOUR),  # 13-16
                    lp.assistant(1, 2, [lp.text_block("4")], "#4", range(13, 17)),  # 17
                    lp.step_end(1, 2),  # 18
                    lp.turn_end(1),  # 19
                ],
            ),
        ),
    ),
    Case(
        id="loop/a-later-step-cut-at-max-tokens-ends-the-turn-max-tokens",
        contracts=STEP,
        requires=LOOP,
        why=(
            "A turn ends with the outcome of its last concluded step (`max-tokens` is sticky "
            "over the turn): step 1 completes, a steer sent while its assembly was blocked opens "
            "step 2, whose answer is cut at `max-tokens`, so the turn ends `max-tokens`."
        ),
        ops=(
            lp.agent("a", model=[HELLO, CUT_TEXT]),
            _blocked_assembly(),
            lp.followup("a", "one"),
            lp.steer("a", "also"),
            s.open_gate("g"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "one", 1)[:-1],  # 0-10
                    lp.step_start(1, 2),  # 11
                    lp.user("also", "#3"),  # 12
                    *lp.attempt(1, 2, CUT_TEXT),  # 13-16
                    lp.assistant(1, 2, [lp.text_block("hello")], "#4", range(13, 17)),  # 17
                    lp.step_end(1, 2),  # 18
                    lp.turn_end(1, {"kind": "max-tokens"}),  # 19
                ],
            ),
        ),
    ),
    # -- PROMPT-CANCEL-TEST -----------------------------------------------------------------------
    *[
        Case(
            id=f"loop/{verb}-while-assembly-blocked-aborts-the-turn",
            contracts=CANCEL,
            requires=LOOP,
            why=(
                'If a turn is cancelled (cause `{kind: "user"}`) or its owner is disposed '
                '(cause `{kind: "disposed"}`) while the step\'s assembly is blocked, then once '
                'assembly settles the turn ends `turn/end {reason: {kind: "aborted", reason: '
                "<cause>}}` and the log has no `step/start`, ..., and the model adapter received "
                "no request. Until the assembly settles the turn stays open."
            ),
            ops=(
                lp.agent("a", model=[HELLO]),
                _blocked_assembly(),
                lp.followup("a", "hi"),
                lp.cancel("a") if verb == "cancel" else lp.dispose("a"),
                lp.observe("a", log=[lp.turn_start(1)], requests=[]),
                s.open_gate("g"),
                lp.observe("a", log=[lp.turn_start(1), lp.turn_end(1, lp.aborted(cause))]),
            ),
        )
        for verb, cause in (("cancel", lp.USER_CANCEL), ("dispose", lp.DISPOSED))
    ],
    Case(
        id="loop/dispose-while-a-provider-blocks-aborts-the-turn",
        contracts=CANCEL,
        # A provider that blocks needs `async-providers` (the upstream's providers are
        # synchronous); the listener-blocked cases above cover the rest.
        requires=(*LOOP, "async-providers"),
        why=(
            "while the step's assembly is blocked (a waterfall listener or provider has not "
            "finished): here an agent-scoped section provider waits on a gate; disposal aborts "
            "the turn once it returns, with nothing of the step logged and no request."
        ),
        ops=(
            lp.agent("a", model=[HELLO]),
            s.section("slow", "slow", 5, s.provider("late", wait_gate="g"), layer="a"),
            lp.followup("a", "hi"),
            lp.dispose("a"),
            s.open_gate("g"),
            lp.observe(
                "a",
                log=[lp.turn_start(1), lp.turn_end(1, lp.aborted(lp.DISPOSED))],
                requests=[],
            ),
        ),
    ),
    Case(
        id="loop/dispose-of-an-idle-agent-releases-its-scope-at-once",
        contracts=CANCEL,
        requires=LOOP,
        why=(
            "`dispose-agent` disposes the agent's scope once its turn has ended, at once when "
            "none runs (PROTOCOL.md): an idle agent's section is released (one more change "
            "notification) and an assembly in its scope sees only the global section."
        ),
        ops=(
            lp.agent("a", model=[]),
            s.section("mine", "mine", 10, "agent-scoped", layer="a"),
            s.section("shared", "shared", 20, "global"),
            lp.dispose("a"),
            s.counts(expect=s.evaluations(changes=3)),
            s.assemble(
                "after",
                "a",
                expect=s.assembly(
                    sections=[s.IDENTITY, s.EMPTY_PERSONA, s.entry("shared", "global")]
                ),
            ),
        ),
    ),
    Case(
        id="loop/dispose-releases-the-agent-scope-once-the-turn-has-ended",
        contracts=CANCEL,
        requires=LOOP,
        why=(
            "Owner disposal is, in order (upstream notes, section 9): "
            "\"machine.cancel({kind:'disposed'}); await machine.whenIdle(), which waits for the "
            "blocked driver; scope.dispose\". While the listener blocks the turn's assembly the "
            "agent's scope keeps what it holds: a new assembly in it is held by the same "
            "listener. Once the gate opens the turn ends aborted, then the scope is disposed: its "
            "section is released (one more change notification; the listener is not a "
            "registration and notifies nothing) and an assembly in the scope sees only the "
            "global section and no longer calls the listener."
        ),
        ops=(
            lp.agent("a", model=[HELLO]),
            s.section("mine", "mine", 10, "agent-scoped", layer="a"),
            s.section("shared", "shared", 20, "global"),
            s.listen("hold", s.listener(id="hold", wait_gate="g"), scope="a"),
            lp.followup("a", "hi"),
            lp.dispose("a"),
            s.assemble("probe", "a", expect={"pending": True}),
            s.counts(expect=s.evaluations(changes=2, hold=2)),
            s.open_gate("g"),
            lp.observe(
                "a", log=[lp.turn_start(1), lp.turn_end(1, lp.aborted(lp.DISPOSED))], requests=[]
            ),
            s.counts(expect=s.evaluations(changes=3, hold=2)),
            s.assemble(
                "after",
                "a",
                expect=s.assembly(
                    sections=[s.IDENTITY, s.EMPTY_PERSONA, s.entry("shared", "global")]
                ),
            ),
            s.counts(expect=s.evaluations(changes=3, hold=2)),
        ),
    ),
    Case(
        id="loop/followup-after-cancel-runs-once-the-aborted-turn-ends",
        contracts=CANCEL,
        requires=LOOP,
        why=(
            "Once assembly settles the cancelled turn ends aborted with nothing of its step "
            "logged; a follow-up sent meanwhile is not lost: it gets the next turn (turns "
            "continue from the last `turn/start`), and that turn's first request build writes "
            "the loop instance's `initial` header."
        ),
        ops=(
            lp.agent("a", model=[HELLO]),
            _blocked_assembly(),
            lp.followup("a", "one"),
            lp.cancel("a"),
            lp.followup("a", "two"),
            s.open_gate("g"),
            lp.observe(
                "a",
                log=[
                    lp.turn_start(1),  # 0
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 1
                    *_relative(_answered_turn(2, "two", 1), 2),  # 2-13
                ],
                requests=[{"dispatchSeq": 7}],
            ),
        ),
    ),
    Case(
        id="loop/cancel-drops-followups-queued-behind-the-turn",
        contracts=CANCEL,
        requires=LOOP,
        why=(
            "`cancel` clears the inbox, then aborts the running turn (PROTOCOL.md, `cancel`; "
            "upstream notes section 5): the follow-ups queued behind the blocked turn 1 are "
            "dropped with it, so the next follow-up, sent once turn 1 has ended aborted, is "
            "turn 2 and the only message of the only turn after it."
        ),
        ops=(
            lp.agent("a", model=[HELLO, HELLO]),
            _blocked_assembly(),
            lp.followup("a", "one"),
            lp.followup("a", "two"),
            lp.followup("a", "three"),
            lp.cancel("a"),
            s.open_gate("g"),
            lp.followup("a", "four"),
            lp.observe(
                "a",
                log=[
                    lp.turn_start(1),  # 0
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 1
                    *_relative(_answered_turn(2, "four", 1), 2),  # 2-13
                ],
                requests=[{"dispatchSeq": 7}],
            ),
        ),
    ),
    Case(
        id="loop/followups-sent-while-a-cancelled-turn-settles-get-a-turn-each",
        contracts=STEP,
        requires=LOOP,
        why=(
            "A follow-up is queued for a turn of its own (PROTOCOL.md, `followup`), and a turn's "
            "first step claims at most one next-turn message: two follow-ups sent after a "
            "cancel, while the cancelled turn's assembly is still held, are turns 2 and 3."
        ),
        ops=(
            lp.agent("a", model=[HELLO, HELLO]),
            _blocked_assembly(),
            lp.followup("a", "one"),
            lp.cancel("a"),
            lp.followup("a", "two"),
            lp.followup("a", "three"),
            s.open_gate("g"),
            lp.observe(
                "a",
                log=[
                    lp.turn_start(1),  # 0
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 1
                    *_relative(_answered_turn(2, "two", 1), 2),  # 2-13
                    *_relative(_answered_turn(3, "three", 3, header=[]), 14),  # 14-23
                ],
            ),
        ),
    ),
    Case(
        id="loop/cancel-reaches-a-cooperative-listener-through-the-signal",
        contracts=CANCEL,
        requires=LOOP,
        why=(
            "The assembly context carries the turn's abort signal so a cooperative listener can "
            "stop early: a listener waiting for the abort settles at once, and the turn ends "
            "aborted with the cancel's own cause (here a hook's)."
        ),
        ops=(
            lp.agent("a", model=[HELLO]),
            s.listen("coop", s.listener(wait_abort=True), scope="a"),
            lp.followup("a", "hi"),
            lp.cancel("a", {"kind": "hook", "reason": "stop"}),
            lp.observe(
                "a",
                log=[
                    lp.turn_start(1),
                    lp.turn_end(1, lp.aborted({"kind": "hook", "reason": "stop"})),
                ],
                requests=[],
            ),
        ),
    ),
    # -- PROMPT-RETRY-BOUNDARY, LOOP-REQUEST-ERROR-TEST -------------------------------------------
    Case(
        id="loop/retry-keeps-turn-and-step-and-the-rendered-system",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "`step()` renders the system string once, before its retry loop [...] it reuses the "
            "step's rendered system; the retry stays in the same turn and step (no new "
            "`step/start`); the successful `assistant/message` cites exactly its own attempt's "
            "chunk seqs. The section's provider answers differently on every evaluation, so "
            "anything evaluated again would show."
        ),
        ops=(
            lp.agent("a", model=[lp.fails("SERVER", "overloaded"), HELLO], request_error=["retry"]),
            s.section("moving", "moving", 10, s.provider(sequence=["one", "two", "three"])),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=[
                    lp.turn_start(1),  # 0
                    lp.step_start(1, 1),  # 1
                    lp.user("hi", "#1"),  # 2
                    lp.header("initial", system=f"{lp.SYSTEM}\n\none"),  # 3
                    lp.context(),  # 4
                    *lp.attempt(1, 1, lp.fails("SERVER", "overloaded")),  # 5
                    *lp.attempt(1, 1, HELLO),  # 6-9
                    lp.assistant(1, 1, [lp.text_block("hello")], "#2", range(6, 10)),  # 10
                    lp.step_end(1, 1),  # 11
                    lp.turn_end(1),  # 12
                ],
                requests=[
                    {"dispatchSeq": 5, "system": f"{lp.SYSTEM}\n\none"},
                    {"dispatchSeq": 6, "system": f"{lp.SYSTEM}\n\none"},
                ],
            ),
        ),
    ),
    Case(
        id="loop/retry-after-partial-stream-cites-only-its-own-chunks",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "A failed attempt (error or aborted finish) writes its chunks but no "
            "`assistant/message`; the successful attempt's `assistant/message` cites exactly its "
            "own attempt's chunk seqs, in order."
        ),
        ops=(
            lp.agent("a", model=[PARTIAL_FAILURE, HELLO], request_error=["retry"]),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, PARTIAL_FAILURE),  # 5-7
                    *lp.attempt(1, 1, HELLO),  # 8-11
                    lp.assistant(1, 1, [lp.text_block("hello")], "#2", range(8, 12)),  # 12
                    lp.step_end(1, 1),  # 13
                    lp.turn_end(1),  # 14
                ],
                requests=[{"dispatchSeq": 5}, {"dispatchSeq": 8}],
            ),
        ),
    ),
    Case(
        id="loop/cancel-during-the-request-error-decision-aborts-the-turn",
        contracts=CANCEL,
        requires=LOOP,
        why=(
            "Upstream notes 8.3, row g, a cancel landing during the `agent/request-error` "
            'decision: "no `assistant/message` for the failed stream; `step/end`, `turn/end '
            'aborted`" with the cause, though the decision then says retry (CONTRACTS.md: the '
            "failed attempt writes its chunks, here its one terminal `finish` chunk); the retry "
            "is never sent."
        ),
        ops=(
            lp.agent(
                "a",
                model=[lp.fails("SERVER", "overloaded"), HELLO],
                request_error=[lp.after_gate("d", "retry")],
            ),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            s.open_gate("d"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, lp.fails("SERVER", "overloaded")),  # 5
                    lp.step_end(1, 1),  # 6
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 7
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/unretried-failure-ends-the-turn-with-error",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "the `agent/request-error` decision either retries [...] or ends the turn "
            '`{kind: "error", error: <failure>}`; an adapter that fails is logged as one '
            'terminal `finish` chunk `{kind: "error", failure}` and no `assistant/message`.'
        ),
        ops=(
            lp.agent("a", model=[lp.fails("AUTH", "no key"), HELLO], request_error=["end"]),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, lp.fails("AUTH", "no key")),  # 5
                    lp.step_end(1, 1),  # 6
                    lp.turn_end(
                        1, {"kind": "error", "error": {"message": "no key", "code": "AUTH"}}
                    ),
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/adapter-failure-with-code-aborted-ends-the-turn-with-error",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "An adapter that fails is logged as one terminal `finish` chunk whose reason is "
            '`{kind: "error" | "aborted", failure}` (ROOT-MODEL; kind `aborted` for code '
            "ABORTED, PROTOCOL.md's REPLY, which "
            "`loop/an-adapter-failure-with-code-aborted-is-logged-as-an-aborted-finish` "
            "compares; this case does not). Either way the attempt failed: it writes its "
            "chunks but no `assistant/message`, and the default `agent/request-error` action "
            '(`end`) ends the turn `{kind: "error", error: <failure>}`, not `completed`.'
        ),
        ops=(
            lp.agent("a", model=[ABORTED_FAILURE]),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                types=[
                    *("turn/start", "step/start", "user/message"),
                    *("request/header", "request/context"),
                    *("assistant/chunk",) * 3,
                    *("step/end", "turn/end"),
                ],
                tail=[
                    lp.step_end(1, 1),
                    lp.turn_end(1, {"kind": "error", "error": {"message": "x", "code": "ABORTED"}}),
                ],
            ),
        ),
    ),
    Case(
        id="loop/a-request-beyond-the-script-fails-script-exhausted",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "PROTOCOL.md, REPLY: a request beyond the script fails with code `SCRIPT_EXHAUSTED` "
            "(a failure `{message, code}`, the message free text). A failure the default "
            '`agent/request-error` action (`end`) does not retry ends the turn `{kind: "error", '
            "error: <failure>}`: an agent with no scripted reply ends its first turn so."
        ),
        ops=(
            lp.agent("a", model=[]),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                types=[
                    *("turn/start", "step/start", "user/message"),
                    *("request/header", "request/context", "assistant/chunk"),
                    *("step/end", "turn/end"),
                ],
                tail=[
                    lp.step_end(1, 1),
                    lp.turn_end(
                        1,
                        {
                            "kind": "error",
                            "error": {"message": lp.ANY_TEXT, "code": "SCRIPT_EXHAUSTED"},
                        },
                    ),
                ],
            ),
        ),
    ),
    Case(
        id="loop/cancel-mid-stream-keeps-an-interrupted-message",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "If the turn is cancelled while a stream runs, the chunks received so far stay "
            "logged, and if any of them carried non-blank text [...] an `assistant/message "
            "{turn, step, message, interrupted: true}` holding only those text and reasoning "
            "blocks is appended (surface append, citing all of the attempt's chunks); it is part "
            "of the messages of later requests. No `finish` is logged for the cancelled stream."
        ),
        ops=(
            lp.agent("a", model=[lp.partial("hal"), HELLO]),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            lp.followup("a", "again"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, lp.partial("hal")),  # 5-6
                    lp.assistant(1, 1, [lp.text_block("hal")], "#2", [5, 6], interrupted=True),
                    lp.step_end(1, 1),  # 8
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 9
                    *_relative(_answered_turn(2, "again", 3, header=[])[:3], 10),  # 10-12
                    *lp.attempt(2, 1, HELLO),  # 13-16
                    lp.assistant(2, 1, [lp.text_block("hello")], "#4", range(13, 17)),  # 17
                    lp.step_end(2, 1),  # 18
                    lp.turn_end(2),  # 19
                ],
                requests=[
                    {"dispatchSeq": 5},
                    {
                        "dispatchSeq": 13,
                        "messages": [
                            lp.user("hi", "#1")["data"],
                            lp.assistant(1, 1, [lp.text_block("hal")], "#2", [], interrupted=True)[
                                "data"
                            ]["message"],
                            lp.user("again", "#3")["data"],
                        ],
                    },
                ],
            ),
        ),
    ),
    Case(
        id="loop/a-throwing-provider-ends-the-turn-unknown",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "A turn ended by anything else that throws (a provider, ...) ends `{kind: "
            '"error", error: {message, code: "UNKNOWN"}}`: a section provider of the agent\'s '
            "scope throws while the first step assembles, so the turn ends with no step and no "
            "request (the message is free text)."
        ),
        ops=(
            lp.agent("a", model=[HELLO]),
            s.section("broken", "broken", 5, s.provider(fails="boom"), layer="a"),
            lp.followup("a", "hi"),
            lp.observe("a", log=[lp.turn_start(1), lp.turn_end(1, lp.UNKNOWN)], requests=[]),
        ),
    ),
    Case(
        id="loop/a-followup-during-a-multi-step-turn-waits-for-the-next-turn",
        contracts=STEP,
        requires=LOOP,
        why=(
            "preStep claims all next-step messages, then — on a turn's first step only — at most "
            "one next-turn message: a follow-up sent while step 1 streams its tool call is not "
            "claimed by the continuation step 2 (which opens with no `user/message`), but by the "
            "first step of turn 2."
        ),
        ops=(
            lp.agent(
                "a",
                model=[{**CALL, "waitFor": {"gate": "g"}}, FOUR, HELLO],
                tools=[lp.tool_result("4")],
            ),
            lp.followup("a", "2+2?"),
            lp.followup("a", "later"),
            s.open_gate("g"),
            lp.observe(
                "a",
                log=[
                    *_turn_with_tools(),  # 0-20
                    *_relative(_answered_turn(2, "later", 5, header=[]), 21),  # 21-30
                ],
            ),
        ),
    ),
    Case(
        id="loop/providers-get-the-agent-as-agent-and-scope",
        contracts=(*STEP, "DESIGN-SCOPED-LAYERS"),
        requires=(*LOOP, "registry-1.1"),
        why=(
            'preStep assembles the scoped prompt with `{agent, scope: agent, signal}` ("In '
            'the loop, the assembly context carries the agent as both `agent` and `scope`"): a '
            "section provider of the agent's scope is called with the agent as both (CALL names "
            "scopes; the agent's scope has its name) and a signal not aborted. A provider, not a "
            "listener: a listener's CALL also holds the payload, whose `variables` may list the "
            "loop's own."
        ),
        ops=(
            lp.agent("a", model=[HELLO]),
            s.section("seen", "seen", 5, s.provider("x", id="seen"), layer="a"),
            lp.followup("a", "hi"),
            s.received("seen", expect=s.calls(s.call("a"))),
        ),
    ),
    Case(
        id="loop/listeners-get-the-agent-as-agent-and-scope",
        contracts=(*STEP, "DESIGN-SCOPED-LAYERS"),
        requires=(*LOOP, "registry-1.1"),
        why=(
            "In the loop, the assembly context carries the agent as both `agent` and `scope`, "
            "for the `system-prompt/assemble` waterfall as for providers: a listener of the "
            "agent's own scope is called with the agent as both and a signal not aborted. Its "
            "payload is not compared (its `variables` may list the loop's own)."
        ),
        ops=(
            lp.agent("a", model=[HELLO]),
            s.listen("heard", s.listener(id="heard"), scope="a"),
            lp.followup("a", "hi"),
            s.received("heard", expect=s.calls(s.call("a"))),
        ),
    ),
    Case(
        id="loop/assemble-in-an-agents-scope-passes-the-agent",
        contracts=("DESIGN-SCOPED-LAYERS",),
        requires=(*LOOP, "registry-1.1", "registry-1.2"),
        why=(
            "`assemble` passes `agent` for an agent's own scope (PROTOCOL.md, registry-1.2): an "
            "assembly op for agent a's scope, outside any turn, gives a provider the agent a as "
            "both `agent` and `scope`."
        ),
        ops=(
            lp.agent("a", model=[]),
            s.variable("v", "v", s.provider("V", id="v")),
            s.assemble("x", "a"),
            s.received("v", expect=s.calls(s.call("a"))),
        ),
    ),
    Case(
        id="loop/an-agent-with-a-parent-scope-sees-the-parent-layers",
        contracts=("DESIGN-SCOPED-LAYERS",),
        requires=LOOP,
        why=(
            "Scopes form chains (a sub-agent's scope has its parent's scope as parent), and an "
            "assembly for scope S sees every existing layer on S's chain: an agent created with "
            "a parent scope renders the parent's section into its system text."
        ),
        ops=(
            s.scope("p"),
            s.section("rule", "rule", 5, "parent rule", layer="p"),
            lp.agent("a", model=[HELLO], parent="p"),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=_answered_turn(
                    1,
                    "hi",
                    1,
                    header=[
                        lp.header("initial", system=f"{lp.SYSTEM}\n\nparent rule"),
                        lp.context(),
                    ],
                ),
            ),
        ),
    ),
    Case(
        id="loop/concluding-tool-ends-the-turn-after-its-step",
        contracts=STEP,
        requires=LOOP,
        why=(
            "A continuation step opens only when the previous step of the turn ran tool calls "
            "without concluding the turn: a tool result that concludes it ends the turn "
            "`completed` after `step/end`, with no second request."
        ),
        ops=(
            lp.agent("a", model=[CALL, FOUR], tools=[lp.tool_result("4", concludes=True)]),
            lp.followup("a", "2+2?"),
            lp.observe(
                "a",
                log=[*_turn_with_tools()[:13], lp.turn_end(1)],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/max-tokens-drops-tool-calls-and-ends-the-turn",
        contracts=STEP,
        requires=LOOP,
        why=(
            'turn/end reason `{kind: "max-tokens"}` when the step hit max-tokens; a max-tokens '
            "finish drops the tool calls (none runs: no `tool/call`), and an `assistant/message` "
            "whose content is empty is not among the derived messages of the next request."
        ),
        ops=(
            lp.agent("a", model=[CUT_CALL, HELLO]),
            lp.followup("a", "2+2?"),
            lp.followup("a", "again"),
            lp.observe(
                "a",
                log=[
                    *_turn_with_tools()[:5],  # 0-4
                    *lp.attempt(1, 1, CUT_CALL),  # 5-8
                    lp.assistant(1, 1, [], "#2", range(5, 9)),  # 9
                    lp.step_end(1, 1),  # 10
                    lp.turn_end(1, {"kind": "max-tokens"}),  # 11
                    *_relative(_answered_turn(2, "again", 3, header=[]), 12),  # 12-21
                ],
                requests=[
                    {"dispatchSeq": 5},
                    {
                        "dispatchSeq": 15,
                        "messages": [lp.user("2+2?", "#1")["data"], lp.user("again", "#3")["data"]],
                    },
                ],
            ),
        ),
    ),
    Case(
        id="loop/max-tokens-is-sticky-over-the-turn",
        contracts=STEP,
        requires=LOOP,
        why=(
            "`max-tokens` is sticky over the turn: step 1 hits max-tokens, a steer waiting in "
            "next-step opens step 2, which completes, and the turn still ends "
            '`{kind: "max-tokens"}`.'
        ),
        ops=(
            lp.agent("a", model=[CUT_TEXT, HELLO]),
            _blocked_assembly(),
            lp.followup("a", "one"),
            lp.steer("a", "two"),
            s.open_gate("g"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "one", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, CUT_TEXT),  # 5-8
                    lp.assistant(1, 1, [lp.text_block("hello")], "#2", range(5, 9)),  # 9
                    lp.step_end(1, 1),  # 10
                    lp.step_start(1, 2),  # 11
                    lp.user("two", "#3"),  # 12
                    *lp.attempt(1, 2, HELLO),  # 13-16
                    lp.assistant(1, 2, [lp.text_block("hello")], "#4", range(13, 17)),  # 17
                    lp.step_end(1, 2),  # 18
                    lp.turn_end(1, {"kind": "max-tokens"}),  # 19
                ],
            ),
        ),
    ),
    Case(
        id="loop/cancel-before-the-first-chunk-logs-no-attempt",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "A request cancelled before its first chunk leaves no event: the step ends, the turn "
            "ends aborted, and the request is known only by its `dispatchSeq` (the log length at "
            "dispatch, right after the header and context)."
        ),
        ops=(
            lp.agent("a", model=[SILENT]),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            lp.observe(
                "a",
                log=[
                    *_turn_with_tools()[:2],
                    lp.user("hi", "#1"),
                    *_turn_with_tools()[3:5],
                    lp.step_end(1, 1),
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/a-turn-after-a-request-cancelled-before-its-first-chunk-sends-again",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "A request cancelled before its first chunk leaves no event, and the requests of one "
            "loop instance pair with its attempts in order: the unstreamed request of the "
            "aborted turn 1 pairs with nothing, and turn 2's request pairs with the attempt at "
            "its dispatchSeq. Nothing changed, so turn 2 logs no header and no context."
        ),
        ops=(
            lp.agent("a", model=[SILENT, HELLO]),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            lp.followup("a", "again"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    lp.step_end(1, 1),  # 5
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 6
                    *_relative(_answered_turn(2, "again", 2, header=[]), 7),  # 7-16
                ],
                requests=[{"dispatchSeq": 5}, {"dispatchSeq": 10}],
            ),
        ),
    ),
    Case(
        id="loop/cancel-mid-tool-call-logs-no-tool-call-and-no-message",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "If the turn is cancelled while a stream runs, the chunks received so far stay "
            "logged; an interrupted `assistant/message` is appended only if one of them carried "
            "non-blank text or reasoning — a half-streamed tool call carries neither, and no "
            "`tool/call` is written."
        ),
        ops=(
            lp.agent("a", model=[HALF_CALL]),
            lp.followup("a", "2+2?"),
            lp.cancel("a"),
            lp.observe(
                "a",
                log=[
                    *_turn_with_tools()[:5],  # 0-4
                    *lp.attempt(1, 1, HALF_CALL),  # 5-6
                    lp.step_end(1, 1),  # 7
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 8
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/cancel-mid-reasoning-keeps-the-reasoning-block",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "If the turn is cancelled while a stream runs [...] and if any of them carried "
            "non-blank text or reasoning, an `assistant/message {turn, step, message, "
            "interrupted: true}` holding only those text and reasoning blocks is appended: a "
            "stream that carried only reasoning leaves that reasoning block."
        ),
        ops=(
            lp.agent("a", model=[HALF_REASONING]),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, HALF_REASONING),  # 5-6
                    lp.assistant(
                        1, 1, [{"type": "reasoning", "text": "hmm"}], "#2", [5, 6], interrupted=True
                    ),  # 7
                    lp.step_end(1, 1),  # 8
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 9
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/cancel-after-blank-text-logs-no-message",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "If the turn is cancelled while a stream runs, the chunks received so far stay "
            "logged, and if any of them carried non-blank text or reasoning, an interrupted "
            "`assistant/message` is appended: a stream that carried only whitespace text "
            "leaves its chunks and no message."
        ),
        ops=(
            lp.agent("a", model=[lp.partial(" \n ")]),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, lp.partial(" \n ")),  # 5-6
                    lp.step_end(1, 1),  # 7
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 8
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/cancel-after-two-deltas-keeps-their-joined-text",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "If the turn is cancelled while a stream runs, [...] an `assistant/message {turn, "
            "step, message, interrupted: true}` holding only those text and reasoning blocks is "
            "appended: the text block holds all the text its deltas carried, `hal` then `lo`."
        ),
        ops=(
            lp.agent("a", model=[TWO_DELTAS]),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, TWO_DELTAS),  # 5-7
                    lp.assistant(1, 1, [lp.text_block("hallo")], "#2", [5, 6, 7], interrupted=True),
                    lp.step_end(1, 1),  # 9
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 10
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/a-stream-that-yields-nothing-is-answered-by-an-empty-message",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "A stream that yields no chunk and ends normally appears only as an "
            "`assistant/message` with `sourceEventSeqs: []`; the successful attempt's message "
            "cites its chunk seqs (`[]` when the stream yielded none)."
        ),
        ops=(
            lp.agent("a", model=[{"chunks": []}]),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    lp.assistant(1, 1, [], "#2", []),  # 5
                    lp.step_end(1, 1),  # 6
                    lp.turn_end(1),  # 7
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/cancel-after-two-blocks-keeps-both",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "If the turn is cancelled while a stream runs, [...] an `assistant/message {turn, "
            "step, message, interrupted: true}` holding only those text and reasoning blocks is "
            "appended: a text block that ended and the text block streamed after it are both "
            "held, in the order they streamed (two text blocks, so that no rule about reasoning "
            "blocks is a second reason to fail)."
        ),
        ops=(
            lp.agent("a", model=[TWO_BLOCKS]),
            lp.followup("a", "hi"),
            lp.cancel("a"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, TWO_BLOCKS),  # 5-9
                    lp.assistant(
                        1,
                        1,
                        [lp.text_block("hmm"), lp.text_block("hal")],
                        "#2",
                        range(5, 10),
                        interrupted=True,
                    ),  # 10
                    lp.step_end(1, 1),  # 11
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 12
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    # -- issue 35 item 6: what the mutation audit found no case for -----------------------------
    _answered_by(
        "loop/a-text-block-started-and-never-ended-holds-empty-text",
        (
            "The upstream's assembler (upstream notes §0.5, which decide where CONTRACTS.md is "
            "silent): deltas append to their block, and a block never ended keeps what they "
            'built. A text block is `{type: "text", text}`, so one started and given no '
            'delta holds the empty text: the answer is `[{type: "text", text: ""}]`.'
        ),
        STARTED_TEXT,
        [lp.text_block("")],
    ),
    _answered_by(
        "loop/a-reasoning-block-started-and-never-ended-holds-empty-text",
        (
            "The upstream's assembler (upstream notes §0.5, which decide where CONTRACTS.md is "
            "silent): deltas append to their block, and a block never ended keeps what they "
            'built. A reasoning block is `{type: "reasoning", text}` as a text block is `{type: '
            '"text", text}`, so one started and given no delta holds the empty text: the answer '
            'is `[{type: "reasoning", text: ""}]`.'
        ),
        STARTED_REASONING,
        [{"type": "reasoning", "text": ""}],
    ),
    _answered_by(
        "loop/chunks-after-a-blocks-end-are-ignored",
        (
            "The upstream's assembler (upstream notes §0.5): \"`block-end` stores the "
            "authoritative block; the first close wins and later deltas for that index are "
            "ignored\". A delta and a second end after the block's end change nothing: the "
            "answer holds the first end's block, `hi`."
        ),
        LATE_CHUNKS,
        [lp.text_block("hi")],
    ),
    _called_by(
        "loop/a-tool-call-never-ended-runs-with-its-joined-arguments",
        (
            "The upstream's assembler (upstream notes §0.5): deltas append to their block, and "
            "`blocks()` is every block, ended or not. A tool call streamed as two "
            '`argumentsDelta`s and never ended is `{type: "tool-call", id, name, arguments}` '
            "with the two joined, and its `tool/call` carries them as they are."
        ),
        UNENDED_CALL,
        [lp.call_block("c1", "add", ARGS)],
    ),
    Case(
        id="loop/the-streams-usage-is-on-its-assistant-message",
        contracts=("ROOT-MODEL",),
        requires=LOOP,
        why=(
            "`assistant/message` is `{turn, step, message, usage?, interrupted?: true}`; the "
            'upstream writes the assembler\'s usage there, "the last value seen" of the '
            "attempt's `usage` chunks (upstream notes §0.5, §7.1 steps 4 and 6): a finished "
            "answer and the interrupted message of a cancelled stream both carry it."
        ),
        ops=(
            lp.agent("a", model=[lp.answer("hello", usage=USAGE), USAGE_THEN_WAIT]),
            lp.followup("a", "hi"),
            lp.followup("a", "again"),
            lp.cancel("a"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, lp.answer("hello", usage=USAGE)),  # 5-9
                    lp.assistant(1, 1, [lp.text_block("hello")], "#2", range(5, 10), usage=USAGE),
                    lp.step_end(1, 1),  # 11
                    lp.turn_end(1),  # 12
                    lp.turn_start(2),  # 13
                    lp.step_start(2, 1),  # 14
                    lp.user("again", "#3"),  # 15
                    *lp.attempt(2, 1, USAGE_THEN_WAIT),  # 16-18
                    lp.assistant(
                        2,
                        1,
                        [lp.text_block("hal")],
                        "#4",
                        [16, 17, 18],
                        usage=USAGE,
                        interrupted=True,
                    ),  # 19
                    lp.step_end(2, 1),  # 20
                    lp.turn_end(2, lp.aborted(lp.USER_CANCEL)),  # 21
                ],
                requests=[{"dispatchSeq": 5}, {"dispatchSeq": 16}],
            ),
        ),
    ),
    Case(
        id="loop/a-chunk-the-log-refuses-ends-the-turn-without-an-interrupted-message",
        contracts=RETRY,
        requires=LOOP,
        why=(
            "A stream chunk holding -0 is not lossless JSON, so its `assistant/chunk` append is "
            'refused (`session-non-json`): that throw is not a cancel. "A turn ended by anything '
            'else that throws [...] ends `{kind: "error", error: {message, code: "UNKNOWN"}}`", '
            'and the interrupted `assistant/message` is written only "if the turn is cancelled '
            'while a stream runs": the text streamed before it stays in its chunks only.'
        ),
        ops=(
            lp.agent("a", model=[REFUSED_USAGE]),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, {"chunks": REFUSED_USAGE["chunks"][:2]}),  # 5-6
                    lp.step_end(1, 1),  # 7
                    lp.turn_end(1, lp.UNKNOWN),  # 8
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    Case(
        id="loop/an-adapter-failure-with-code-aborted-is-logged-as-an-aborted-finish",
        contracts=("ROOT-MODEL",),
        requires=LOOP,
        why=(
            'An adapter that fails is logged as one terminal `finish` chunk `{kind: "error" | '
            '"aborted", failure}` (ROOT-MODEL); PROTOCOL.md\'s REPLY (1.3, settled by the '
            "upstream's error normalization, upstream notes §0.4): kind `aborted` when the code "
            "is `ABORTED`, even with the turn not cancelled. The attempt failed, so the default "
            '`agent/request-error` action ends the turn `{kind: "error", error: <failure>}`.'
        ),
        ops=(
            lp.agent("a", model=[lp.fails("ABORTED", "x")]),
            lp.followup("a", "hi"),
            lp.observe(
                "a",
                log=[
                    *_answered_turn(1, "hi", 1)[:5],  # 0-4
                    *lp.attempt(1, 1, lp.fails("ABORTED", "x")),  # 5
                    lp.step_end(1, 1),  # 6
                    lp.turn_end(1, {"kind": "error", "error": {"message": "x", "code": "ABORTED"}}),
                ],
                requests=[{"dispatchSeq": 5}],
            ),
        ),
    ),
    _called_by(
        "loop/deltas-without-a-block-start-open-blocks-of-their-kind",
        (
            "The upstream's assembler (upstream notes §0.5): blocks are kept in first-seen index "
            "order and deltas append to their block, so a delta for an index not seen yet opens "
            "its block: a `text-delta` a text block, a `reasoning-delta` a reasoning block, a "
            "`tool-call-delta` a tool call (a scripted REPLY need not start its blocks: "
            "PROTOCOL.md asks that structure of an adapter's output only). The tool call runs."
        ),
        UNSTARTED,
        [lp.text_block("a"), {"type": "reasoning", "text": "r"}, lp.call_block("c1", "add", ARGS)],
    ),
    _answered_by(
        "loop/a-blocks-end-replaces-what-its-deltas-built",
        (
            "The upstream's assembler (upstream notes §0.5): \"`block-end` stores the "
            'authoritative block": a text block whose deltas carried `hel` and whose end carries '
            "`hello` is `hello` in the answer."
        ),
        END_WINS,
        [lp.text_block("hello")],
    ),
    _answered_by(
        "loop/blocks-keep-the-order-they-were-started-in",
        (
            "The upstream's assembler (upstream notes §0.5): \"Blocks are kept in first-seen "
            'index order". A text block started at index 0 and a reasoning block at index 1, '
            "whose deltas then come in the other order, are the answer's blocks in the order "
            "they were started: the text, then the reasoning."
        ),
        STARTED_IN_ORDER,
        [lp.text_block("t"), {"type": "reasoning", "text": "r"}],
    ),
    Case(
        id="loop/a-steer-sent-while-a-cancelled-turn-settles-gets-a-turn-of-its-own",
        contracts=STEP,
        requires=LOOP,
        why=(
            "A message sent (and waking the agent) while a cancelled turn is still settling goes "
            "to the next turn, whatever its target: the upstream's `wakingAfterAbort` (upstream "
            "notes §5, `send`; PROTOCOL.md, `steer`). So a steer sent after a cancel, while the "
            "cancelled turn's assembly is held, is turn 2 on its own, and a follow-up sent after "
            "it is turn 3 (a turn's first step claims at most one next-turn message)."
        ),
        ops=(
            lp.agent("a", model=[HELLO, HELLO]),
            _blocked_assembly(),
            lp.followup("a", "one"),
            lp.cancel("a"),
            lp.steer("a", "two"),
            lp.followup("a", "three"),
            s.open_gate("g"),
            lp.observe(
                "a",
                log=[
                    lp.turn_start(1),  # 0
                    lp.turn_end(1, lp.aborted(lp.USER_CANCEL)),  # 1
                    *_relative(_answered_turn(2, "two", 1), 2),  # 2-13
                    *_relative(_answered_turn(3, "three", 3, header=[]), 14),  # 14-23
                ],
            ),
        ),
    ),
]
