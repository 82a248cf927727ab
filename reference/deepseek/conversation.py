"""A small conversation driver over a `ModelAdapter`, standing in for the logged loop.

PROMPT-CACHE-E2E is stated "through the loop and the DeepSeek adapter"; until the reference loop
exists this driver does the loop's part that matters to the wire: it carries the message history
forward exactly as the loop's derived messages would be (the user message, the assistant message
with every block of the response, one tool-result user message per call), rebuilds each request as
``{...config, messages, system?, tools?, sessionId}`` (ROOT-MODEL's request shape), and runs the
tools a response calls. It keeps every request and every response's usage so tests can check
prefix stability offline and cache reads online. Switching the E2E to the loop means replacing
`Conversation.turn` by the loop's turn and reading the same usages from the log.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..llm import LlmRequest, Message, ModelAdapter, StreamChunk, TokenUsage

Json = Any

#: A tool: its JSON arguments (already parsed) → its result text.
Tool = Callable[[Json], str]


@dataclass
class Response:
    """One request's outcome, folded from its chunks as the upstream BlockAssembler does."""

    blocks: list[Json]
    usage: TokenUsage | None
    finish: Json


def collect(chunks: list[StreamChunk]) -> Response:
    """``block-end`` blocks in index order, the last ``usage``, the ``finish`` reason; a
    ``max-tokens`` finish drops tool calls (their arguments may be cut off)."""
    ended = {chunk["index"]: chunk["block"] for chunk in chunks if chunk["type"] == "block-end"}
    usages = [chunk["usage"] for chunk in chunks if chunk["type"] == "usage"]
    finishes = [chunk["reason"] for chunk in chunks if chunk["type"] == "finish"]
    finish = finishes[-1] if finishes else {"kind": "stop"}
    blocks = [ended[index] for index in sorted(ended)]
    if finish["kind"] == "max-tokens":
        blocks = [block for block in blocks if block["type"] != "tool-call"]
    return Response(blocks, usages[-1] if usages else None, finish)


@dataclass
class Conversation:
    """A session's message history and the requests made from it."""

    adapter: ModelAdapter
    config: Mapping[str, Json]
    system: str | None = None
    tools: list[Json] = field(default_factory=list)
    implementations: Mapping[str, Tool] = field(default_factory=dict)
    session_id: str = "conversation"
    messages: list[Message] = field(default_factory=list)
    requests: list[LlmRequest] = field(default_factory=list)
    responses: list[Response] = field(default_factory=list)

    async def turn(self, text: str, *, max_steps: int = 8) -> Response:
        """Send a user message; step until the model stops calling tools (or ``max_steps``)."""
        self.messages.append({"role": "user", "content": [{"type": "text", "text": text}]})
        for _ in range(max_steps):
            response = await self.step()
            if response.finish["kind"] != "tool-calls":
                return response
            for block in response.blocks:
                if block["type"] == "tool-call":
                    self.messages.append(self._run_tool(block))
        raise RuntimeError(f"the model was still calling tools after {max_steps} steps")

    async def step(self) -> Response:
        request = self.request()
        self.requests.append(request)
        response = collect([chunk async for chunk in self.adapter.stream(request)])
        self.responses.append(response)
        if response.finish["kind"] == "error":
            failure = response.finish["failure"]
            raise RuntimeError(f"request {len(self.requests)} failed: {failure['code']}")
        self.messages.append({"role": "assistant", "content": response.blocks})
        return response

    def request(self) -> LlmRequest:
        request: Json = {**self.config, "messages": copy.deepcopy(self.messages)}
        if self.system:
            request["system"] = self.system
        if self.tools:
            request["tools"] = self.tools
        request["sessionId"] = self.session_id
        built: LlmRequest = request
        return built

    def _run_tool(self, call: Json) -> Message:
        """The tool-result user message for one call; a failing call is an error result."""
        tool = self.implementations.get(call["name"])
        try:
            if tool is None:
                raise LookupError(f"unknown tool {call['name']!r}")
            text, is_error = tool(json.loads(call["arguments"])), False
        except (LookupError, ValueError) as error:
            text, is_error = f"tool call failed: {error}", True
        result = {"type": "text", "text": text}
        block: Json = {"type": "tool-result", "toolCallId": call["id"], "content": [result]}
        if is_error:
            block["isError"] = True
        return {"role": "user", "content": [block]}
