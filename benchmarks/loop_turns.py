"""Does a loop turn cost the same whatever the length of the history? (issue 19, goal 1)

Runs one reference agent (`dsh_reference.loop.Agent`, scripted adapter, a runtime context and a tool
round trip every fifth turn) and times each of the 25 turns that follow 10, 100 and 1000 turns of
history, over three agents; the figure is the median turn (the machine is shared: a turn that
loses the processor to another program is an outlier, not a cost). The anchor of each
figure is the same at 10 turns: the log keeps its messages frozen and its derived messages
up to date, so a request copies a list of references and nothing more (goal: within 1.2x).

Then the suite's own request check (`dsh_conformance.judge.invariant.check_requests`) runs over the
log of the first 10 and 100 turns. It compares every request's messages with the log's as JSON
text, so its time per request grows with the history by nature; its anchor is two ``json.dumps``
of the last request's messages (the floor for comparing them as text).
This is a script that prints figures, not a test.

    python benchmarks/loop_turns.py
"""

from __future__ import annotations

import asyncio
import itertools
import json
import statistics
import time
from typing import Any

from figures import best_time, table

from dsh_conformance.judge.invariant import check_requests
from dsh_reference import PromptRegistry, Scope, SessionLog
from dsh_reference.loop import Agent, ToolCall, ToolOutcome, user_message
from dsh_reference.model_adapter import ScriptedAdapter, ScriptedReply

HISTORIES = (10, 100, 1000)
#: The check is quadratic in total (each request holds the history): two sizes, 10x apart.
CHECKED = (10, 100)
WINDOW = 25
AGENTS = 3


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


async def run(turns: int, timed: dict[int, list[float]]) -> tuple[Agent, list[Any]]:
    """Drive ``turns`` turns; add the seconds of each turn from ``history`` to ``history + WINDOW``
    to ``timed[history]``."""
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
    for turn in range(turns):
        start = time.process_time()
        agent.followup(user_message(f"question {turn}", agent.new_id()))
        await agent.when_idle()
        seconds = time.process_time() - start
        for history, times in timed.items():
            if history <= turn < history + WINDOW:
                times.append(seconds)
    return agent, recorded


def main() -> None:
    timed: dict[int, list[float]] = {history: [] for history in HISTORIES}
    for _ in range(AGENTS):
        agent, requests = asyncio.run(run(HISTORIES[-1] + WINDOW, timed))
    turn = {history: statistics.median(times) for history, times in timed.items()}
    worst = table(
        "one turn (ms, median) at a history of n turns; anchor: the same at 10",
        "turns",
        [(history, turn[history], turn[HISTORIES[0]]) for history in HISTORIES],
        unit="ms",
    )
    print(f"goal 1 (within 1.2x at 1000 turns): {'met' if worst <= 1.2 else 'missed'}")

    rows = []
    log = agent.log.to_json()
    for history in CHECKED:
        requests_so_far = [r for r in requests if r["dispatchSeq"] <= _end_of_turn(log, history)]
        log_so_far = log[: _end_of_turn(log, history) + 1]
        start = time.process_time()
        violations = check_requests(log_so_far, requests_so_far, agent.session_id)
        per_request = (time.process_time() - start) / len(requests_so_far)
        assert not violations, violations[:3]
        messages = requests_so_far[-1]["request"]["messages"]
        rows.append((history, per_request, best_time(lambda m=messages: _two_dumps(m))))
    print()
    table(
        "the suite's request check (ms per request) over a log of n turns; anchor: two "
        "json.dumps of the last request's messages",
        "turns",
        rows,
        unit="ms",
    )


def _end_of_turn(log: list[Any], turns: int) -> int:
    """The seq of the `turn/end` that closes turn number ``turns`` (1-based)."""
    ends = [event["seq"] for event in log if event["type"] == "turn/end"]
    return int(ends[turns - 1])


def _two_dumps(messages: Any) -> bool:
    return json.dumps(messages) == json.dumps(messages)


if __name__ == "__main__":
    main()
