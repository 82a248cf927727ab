"""The reference loop, by contract: append orders of `upstream/loop-and-session.md` §8 and §9.

Expected logs are worked out by hand from those sections and CONTRACTS.md, written as the list of
event types (and the payloads that matter), never copied from a run.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from dsh_reference.abort import AbortSignal
from dsh_reference.assembly import Assembly
from dsh_reference.loop import (
    Agent,
    Enter,
    PreStep,
    PreStepDecision,
    Reject,
    RequestError,
    ToolCall,
    ToolOutcome,
    user_message,
)
from dsh_reference.model_adapter import AdapterFailure, ScriptedAdapter, ScriptedReply
from dsh_reference.registry import AssembleContext, Next, PromptRegistry, Scope
from dsh_reference.session import SessionLog

CONFIG: Any = {"provider": "p", "model": "m"}
SYSTEM = "You are an AI agent powered by DeepSeek Harness."


def text_reply(text: str) -> ScriptedReply:
    return ScriptedReply(
        [
            {"type": "block-start", "index": 0, "blockType": "text"},
            {"type": "text-delta", "index": 0, "text": text},
            {"type": "block-end", "index": 0, "block": {"type": "text", "text": text}},
            {"type": "finish", "reason": {"kind": "stop"}},
        ]
    )


def tool_reply(call_id: str) -> ScriptedReply:
    block = {"type": "tool-call", "id": call_id, "name": "calc", "arguments": "{}"}
    return ScriptedReply(
        [
            {"type": "block-start", "index": 0, "blockType": "tool-call"},
            {"type": "block-end", "index": 0, "block": block},
            {"type": "finish", "reason": {"kind": "tool-calls"}},
        ]
    )


class Harness:
    """An agent over a fresh (or given) log, with counters for ids."""

    def __init__(
        self,
        replies: list[ScriptedReply],
        *,
        registry: PromptRegistry | None = None,
        log: SessionLog | None = None,
        **hooks: Any,
    ) -> None:
        self.registry = registry or PromptRegistry()
        self.adapter = ScriptedAdapter(replies)
        ids = (f"id{n}" for n in itertools.count())
        self.agent = Agent(
            registry=self.registry,
            scope=Scope("agent"),
            log=log or SessionLog(),
            adapter=self.adapter,
            config=CONFIG,
            session_id="s1",
            new_id=lambda: next(ids),
            clock=lambda: 0,
            **hooks,
        )

    def say(self, text: str) -> None:
        self.agent.followup(user_message(text, self.agent.new_id()))

    @property
    def types(self) -> list[str]:
        return [event.type for event in self.agent.log.events]

    def data(self, type_: str) -> list[Any]:
        return [event.data for event in self.agent.log.events if event.type == type_]


def sync(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an async test in a fresh event loop (the project has no async pytest plugin)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


async def settle() -> None:
    for _ in range(200):
        await asyncio.sleep(0)


def blocking_listener(gate: asyncio.Event) -> Callable[..., Awaitable[Assembly]]:
    async def listener(payload: Assembly, context: AssembleContext, next_: Next) -> Assembly:
        await gate.wait()
        return await next_()

    return listener


ANSWER = ["assistant/chunk"] * 4 + ["assistant/message"]
OPEN = ["turn/start", "step/start", "user/message"]
HEADER = ["request/header", "request/context"]


# -- PROMPT-STEP-BOUNDARY -------------------------------------------------------------------------


@sync
async def test_tool_round_trip_has_the_append_order_of_8_1() -> None:
    async def tools(call: ToolCall, _signal: AbortSignal) -> ToolOutcome:
        return ToolOutcome([{"type": "text", "text": "4"}])

    h = Harness([tool_reply("c1"), text_reply("four")], tools=tools)
    h.say("2+2?")
    await h.agent.when_idle()
    assert h.types == [
        *OPEN,
        *HEADER,
        *["assistant/chunk"] * 3,
        "assistant/message",
        "tool/call",
        "tool/result",
        "step/end",
        "step/start",  # a continuation step: no user/message, no header (nothing changed)
        *ANSWER,
        "step/end",
        "turn/end",
    ]
    result = h.agent.log.events[h.types.index("tool/result")]
    assert result.source_event_seqs == (h.types.index("tool/call"),)
    assert h.data("turn/end") == [{"turn": 1, "reason": {"kind": "completed"}}]
    assert [len(request["messages"]) for request in h.adapter.received] == [1, 3]


@sync
async def test_an_empty_first_decision_completes_the_turn_without_a_step() -> None:
    async def empty(_q: PreStep, _default: Enter) -> PreStepDecision:
        return Enter([])

    h = Harness([], pre_step=empty)
    h.say("hi")
    await h.agent.when_idle()
    assert h.types == ["turn/start", "turn/end"]
    assert h.data("turn/end")[0]["reason"] == {"kind": "completed"}
    assert h.adapter.received == []


@sync
async def test_a_rejected_decision_blocks_the_turn_and_consumes_the_message() -> None:
    async def reject(_q: PreStep, _default: Enter) -> PreStepDecision:
        return Reject()

    h = Harness([], pre_step=reject)
    h.say("hi")
    await h.agent.when_idle()
    assert h.types == ["turn/start", "turn/end"]
    assert h.data("turn/end")[0]["reason"] == {"kind": "blocked"}


@sync
async def test_a_burst_of_followups_gets_one_turn_each() -> None:
    h = Harness([text_reply("a"), text_reply("b"), text_reply("c")])
    for text in ("1", "2", "3"):
        h.say(text)
    await h.agent.when_idle()
    assert [d["turn"] for d in h.data("turn/start")] == [1, 2, 3]
    assert [m["content"][0]["text"] for m in h.data("user/message")] == ["1", "2", "3"]


# -- PROMPT-CANCEL-TEST ---------------------------------------------------------------------------


@pytest.mark.parametrize("dispose", [False, True])
@sync
async def test_cancel_while_assembly_blocks_aborts_the_turn_with_nothing_sent(
    dispose: bool,
) -> None:
    gate = asyncio.Event()
    h = Harness([text_reply("never")])
    h.registry.add_assemble_listener(blocking_listener(gate))
    h.say("hi")
    await settle()
    assert h.types == ["turn/start"]
    h.agent.dispose() if dispose else h.agent.cancel()
    await settle()
    assert h.types == ["turn/start"]  # the turn waits for assembly to settle
    gate.set()
    await h.agent.when_idle()
    cause = {"kind": "disposed"} if dispose else {"kind": "user"}
    assert h.types == ["turn/start", "turn/end"]
    assert h.data("turn/end") == [{"turn": 1, "reason": {"kind": "aborted", "reason": cause}}]
    assert h.adapter.received == []


@sync
async def test_a_cooperative_listener_stops_on_the_assembly_signal() -> None:
    async def listener(payload: Assembly, context: AssembleContext, next_: Next) -> Assembly:
        stopped = asyncio.Event()
        assert context.signal is not None and context.agent is context.scope
        context.signal.add_listener(stopped.set)
        await stopped.wait()
        return payload

    h = Harness([])
    h.registry.add_assemble_listener(listener)
    h.say("hi")
    await settle()
    h.agent.cancel()
    await h.agent.when_idle()
    assert h.types == ["turn/start", "turn/end"]


@sync
async def test_cancel_mid_stream_keeps_the_chunks_and_logs_an_interrupted_message() -> None:
    gate = asyncio.Event()

    async def hold(signal: AbortSignal) -> None:
        signal.add_listener(gate.set)
        await gate.wait()

    partial = ScriptedReply(
        [
            {"type": "block-start", "index": 0, "blockType": "text"},
            {"type": "text-delta", "index": 0, "text": "half"},
        ],
        hold=hold,
    )
    h = Harness([partial])
    h.say("hi")
    await settle()
    h.agent.cancel()
    await h.agent.when_idle()
    chunks = ["assistant/chunk"] * 2
    assert h.types == [*OPEN, *HEADER, *chunks, "assistant/message", "step/end", "turn/end"]
    (message,) = h.data("assistant/message")
    assert message["interrupted"] is True and "usage" not in message
    assert message["message"]["content"] == [{"type": "text", "text": "half"}]
    assert h.agent.log.events[-3].source_event_seqs == (5, 6)


# -- PROMPT-RETRY-BOUNDARY, LOOP-REQUEST-ERROR-TEST -----------------------------------------------


@sync
async def test_a_retry_stays_in_its_step_and_reuses_the_rendered_system() -> None:
    texts = iter(["first", "second", "third"])
    registry = PromptRegistry()
    registry.add_section("s", 1, lambda _context: next(texts))
    questions: list[RequestError] = []

    async def retry_once(question: RequestError) -> str | None:
        questions.append(question)
        return "retry" if len(questions) == 1 else None

    failing = ScriptedReply(failure=AdapterFailure("SERVER", "boom"))
    h = Harness([failing, text_reply("ok")], registry=registry, request_error=retry_once)
    h.say("hi")
    await h.agent.when_idle()
    assert h.types == [*OPEN, *HEADER, "assistant/chunk", *ANSWER, "step/end", "turn/end"]
    failure = {"message": "boom", "code": "SERVER"}
    assert h.data("assistant/chunk")[0] == {
        "turn": 1,
        "step": 1,
        "chunk": {"type": "finish", "reason": {"kind": "error", "failure": failure}},
    }
    assert (questions[0].turn, questions[0].step, questions[0].failure) == (1, 1, failure)
    assert [r["system"] for r in h.adapter.received] == [f"{SYSTEM}\n\nfirst"] * 2
    # The message cites only its own attempt's chunks (seqs 6..9), not the failed one (5).
    assert h.agent.log.events[10].source_event_seqs == (6, 7, 8, 9)


@sync
async def test_an_unretried_failure_ends_the_turn_with_the_failure() -> None:
    h = Harness([ScriptedReply(failure=AdapterFailure("AUTH", "no key"))])
    h.say("hi")
    await h.agent.when_idle()
    assert h.types == [*OPEN, *HEADER, "assistant/chunk", "step/end", "turn/end"]
    reason = {"kind": "error", "error": {"message": "no key", "code": "AUTH"}}
    assert h.data("turn/end") == [{"turn": 1, "reason": reason}]


# -- LOOP-REQUEST-BUILD, PROMPT-HEADER-CHANGE-TEST ------------------------------------------------


@sync
async def test_headers_initial_then_only_on_change_then_resume_for_a_new_instance() -> None:
    registry = PromptRegistry()
    h = Harness([text_reply("a"), text_reply("b"), text_reply("c")], registry=registry)
    h.say("1")
    await h.agent.when_idle()
    h.say("2")
    await h.agent.when_idle()
    registry.add_section("extra", 5, "more")
    h.say("3")
    await h.agent.when_idle()
    assert [d["reason"] for d in h.data("request/header")] == ["initial", "change"]
    assert h.data("request/header")[1]["header"]["system"] == f"{SYSTEM}\n\nmore"
    assert len(h.data("request/context")) == 1

    seeded = SessionLog.from_seed(h.agent.log.to_json())
    again = Harness([text_reply("d")], registry=registry, log=seeded)
    again.say("4")
    await again.agent.when_idle()
    headers = [e.data["reason"] for e in seeded.events if e.type == "request/header"]
    assert headers == ["initial", "change", "resume"]
    # "a new loop instance over a log whose context is unchanged writes none".
    assert len(again.data("request/context")) == 1
    assert again.data("turn/start")[-1] == {"turn": 4}


@sync
async def test_adapter_defaults_are_marked_in_the_header_and_sent() -> None:
    h = Harness([text_reply("a")])
    h.adapter.defaults = {"maxTokens": 100}
    h.adapter.context_window = 1000
    h.say("1")
    await h.agent.when_idle()
    (header,) = h.data("request/header")
    assert header["header"]["adapterDefaults"] == {"maxTokens": True}
    assert h.adapter.received[0]["maxTokens"] == 100
    assert h.data("request/context") == [{"provider": "p", "model": "m", "contextWindow": 1000}]


# -- LOOP-RUNTIME-CONTEXT -------------------------------------------------------------------------


@sync
async def test_runtime_context_is_proposed_once_then_cleared_once() -> None:
    registry = PromptRegistry()
    handle = registry.add_context("now", 0, "noon")
    h = Harness([text_reply(str(n)) for n in range(4)], registry=registry)
    for turn in range(4):
        if turn == 2:
            handle.release()
        h.say(str(turn))
        await h.agent.when_idle()
    owned = [m for m in h.data("user/message") if m["source"]["kind"] == "plugin"]
    assert [m["content"][0]["text"].split("\n\n")[-1] for m in owned] == [
        "noon",
        "Current runtime context: none. Earlier runtime-context snapshots no longer apply.",
    ]
    assert "sections" not in owned[1]["source"]


# -- the call config's seed (upstream §7.2) -------------------------------------------------------


def seeded_with_effort(adapter_default: bool) -> SessionLog:
    header: Any = {"config": {**CONFIG, "reasoningEffort": "high"}}
    if adapter_default:
        header["adapterDefaults"] = {"reasoningEffort": True}
    data = {"header": header, "reason": "initial"}
    return SessionLog.from_seed([{"type": "request/header", "seq": 0, "time": 0, "data": data}])


@pytest.mark.parametrize("adapter_default", [False, True])
@sync
async def test_a_new_instance_restores_only_an_effort_the_adapter_did_not_fill(
    adapter_default: bool,
) -> None:
    h = Harness([text_reply("a")], log=seeded_with_effort(adapter_default))
    h.adapter.defaults = {"reasoningEffort": "low"}
    h.say("1")
    await h.agent.when_idle()
    (resumed,) = [d for d in h.data("request/header") if d["reason"] == "resume"]
    expected = "low" if adapter_default else "high"
    assert resumed["header"]["config"]["reasoningEffort"] == expected
    assert ("adapterDefaults" in resumed["header"]) is adapter_default
    assert h.adapter.received[0]["reasoningEffort"] == expected
