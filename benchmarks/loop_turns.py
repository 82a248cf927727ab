"""How do the reference loop and the suite's request check scale with the conversation length?

Runs one reference agent (`reference.loop.Agent`, scripted adapter, a runtime context and a tool
round trip every fifth turn) for n and 4n turns, then checks every request against the log with
the suite's own `conformance.judge.invariant.check_requests`, and prints the time per turn and per
request. Each request carries the whole derived history, and both the loop (deriving the
messages) and the check (re-deriving them at each dispatch point) walk it, so the time per turn
grows linearly with the conversation: a ratio near 4 between the two runs is the expected
quadratic total, not a regression. This is a script that prints figures, not a test.

    python benchmarks/loop_turns.py
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import time
from typing import Any

from conformance.judge.invariant import check_requests
from reference import PromptRegistry, Scope, SessionLog
from reference.loop import Agent, ToolCall, ToolOutcome, user_message
from reference.model_adapter import ScriptedAdapter, ScriptedReply

BASE_TURNS = 100
SCALE = 4


def text_reply(text: str) -> ScriptedReply:
    block = {"type": "text", "text": text}
    return ScriptedReply(
        [
            {"type": "block-start", "index": 0, "blockType": "text"},
            {"type": "text-delta", "index": 0, "text": text},
            {"type": "block-end", "index": 0, "block": block},
            {"type": "usage", "usage": {"inputTokens": 10, "outputTokens": 2}},
            {"type": "finish", "reason": {"kind": "stop"}},
        ]
    )


def tool_reply(call_id: str) -> ScriptedReply:
    block = {"type": "tool-call", "id": call_id, "name": "clock", "arguments": "{}"}
    return ScriptedReply(
        [
            {"type": "block-start", "index": 0, "blockType": "tool-call"},
            {"type": "block-end", "index": 0, "block": block},
            {"type": "finish", "reason": {"kind": "tool-calls"}},
        ]
    )


async def run(turns: int) -> tuple[float, Agent, list[Any]]:
    registry = PromptRegistry()
    registry.add_context("clock", 0, "noon")
    replies: list[ScriptedReply] = []
    for turn in range(turns):
        if turn % 5 == 0:
            replies.append(tool_reply(f"c{turn}"))
        replies.append(text_reply(f"answer {turn}"))
    ids = (f"m{n}" for n in itertools.count())

    async def tools(call: ToolCall, _signal: Any) -> ToolOutcome:
        return ToolOutcome([{"type": "text", "text": "noon"}])

    recorded: list[Any] = []
    log = SessionLog()

    class Recording(ScriptedAdapter):
        def stream(self, request: Any, signal: Any) -> Any:
            recorded.append({"dispatchSeq": len(log), "request": request})
            return super().stream(request, signal)

    agent = Agent(
        registry=registry,
        scope=Scope("agent"),
        log=log,
        adapter=Recording(replies),
        config={"provider": "p", "model": "m"},
        session_id="s",
        tools=tools,
        new_id=lambda: next(ids),
    )
    start = time.perf_counter()
    for turn in range(turns):
        agent.followup(user_message(f"question {turn}", agent.new_id()))
        await agent.when_idle()
    return time.perf_counter() - start, agent, recorded


def measure(turns: int) -> tuple[float, float, int]:
    gc.collect()
    loop_seconds, agent, requests = asyncio.run(run(turns))
    log = agent.log.to_json()
    start = time.perf_counter()
    violations = check_requests(log, requests, agent.session_id)
    check_seconds = time.perf_counter() - start
    assert not violations, violations[:3]
    return loop_seconds / turns, check_seconds / len(requests), len(log)


def main() -> None:
    rows = [(turns, *measure(turns)) for turns in (BASE_TURNS, BASE_TURNS * SCALE)]
    print(f"{'turns':>6} {'events':>7} {'loop ms/turn':>13} {'check ms/request':>17}")
    for turns, per_turn, per_request, events in rows:
        print(f"{turns:>6} {events:>7} {per_turn * 1000:>13.3f} {per_request * 1000:>17.3f}")
    (_, turn_a, request_a, _), (_, turn_b, request_b, _) = rows
    print(
        f"ratio at {SCALE}x turns: loop {turn_b / turn_a:.1f}, check {request_b / request_a:.1f} "
        f"(linear growth per turn gives about {SCALE})"
    )


if __name__ == "__main__":
    main()
