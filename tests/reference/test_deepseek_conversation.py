"""The conversation driver that stands in for the loop (reference.deepseek.conversation)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from reference.abort import AbortSignal
from reference.deepseek import Conversation, collect
from reference.llm import LlmRequest, StreamChunk

Json = Any


def end(index: int, block: Json) -> StreamChunk:
    return {"type": "block-end", "index": index, "block": block}


def finish(kind: str, **extra: Json) -> StreamChunk:
    return {"type": "finish", "reason": {"kind": kind, **extra}}


CALL = {"type": "tool-call", "id": "c1", "name": "lookup", "arguments": '{"key": "k"}'}


class Scripted:
    """A model adapter answering each request with the next scripted chunk list."""

    def __init__(self, *responses: list[StreamChunk]) -> None:
        self.responses = list(responses)
        self.requests: list[LlmRequest] = []

    async def stream(
        self, request: LlmRequest, signal: AbortSignal | None = None
    ) -> AsyncIterator[StreamChunk]:
        self.requests.append(request)
        for chunk in self.responses.pop(0):
            yield chunk


def test_collect_keeps_ended_blocks_last_usage_and_drops_calls_cut_by_max_tokens() -> None:
    text = {"type": "text", "text": "a"}
    usage = {"type": "usage", "usage": {"inputTokens": 1, "outputTokens": 1}}
    response = collect([end(1, CALL), end(0, text), usage, finish("max-tokens")])
    assert response.blocks == [text]
    assert response.usage == {"inputTokens": 1, "outputTokens": 1}
    assert collect([end(0, CALL), finish("tool-calls")]).blocks == [CALL]


def test_a_turn_runs_tools_and_carries_every_message_forward() -> None:
    adapter = Scripted(
        [end(0, CALL), finish("tool-calls")],
        [end(0, {"type": "text", "text": "done"}), finish("stop")],
    )
    conversation = Conversation(
        adapter,
        {"provider": "p", "model": "m"},
        system="S",
        tools=[{"name": "lookup", "description": "", "parameters": {}}],
        implementations={"lookup": lambda arguments: f"v={arguments['key']}"},
    )
    asyncio.run(conversation.turn("go"))
    first, second = adapter.requests
    assert list(second) == ["provider", "model", "messages", "system", "tools", "sessionId"]
    assert second["messages"][: len(first["messages"])] == first["messages"]
    assert second["messages"][1:] == [
        {"role": "assistant", "content": [CALL]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "content": [{"type": "text", "text": "v=k"}],
                }
            ],
        },
    ]


def test_an_unknown_tool_is_an_error_result_and_a_failure_stops_the_turn() -> None:
    adapter = Scripted(
        [end(0, {**CALL, "name": "nope"}), finish("tool-calls")],
        [finish("error", failure={"code": "SERVER", "message": "boom"})],
    )
    conversation = Conversation(adapter, {"provider": "p", "model": "m"})
    with pytest.raises(RuntimeError, match="SERVER"):
        asyncio.run(conversation.turn("go"))
    (result,) = conversation.messages[-1]["content"]
    assert result["isError"] is True
    assert "unknown tool 'nope'" in result["content"][0]["text"]
