"""The LLM message model: what a loop hands a model adapter, and what streams back.

The shapes are the LLM message model of the upstream (`upstream/loop-and-session.md` §0.4), kept as
plain JSON-shaped dicts so that a request built from the session log, a protocol message and a
golden file are the same values: a `Message` holds `ContentBlock`s, an adapter's `stream` yields
`StreamChunk`s and ends with exactly one ``finish`` chunk. Adapter failures travel as that final
chunk (``{"kind": "error" | "aborted", "failure": LlmFailure}``), as the upstream runtime
normalizes them, so a loop consumes chunks only; the sans-IO pieces raise `LlmError` and the
adapter turns it into the chunk.

PROMPT-DEEPSEEK-WIRE: the adapter behind this interface is `reference.deepseek.DeepSeekAdapter`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal, NotRequired, Protocol, TypedDict

from .abort import AbortSignal

Json = Any


class TextBlock(TypedDict):
    type: Literal["text", "reasoning"]
    text: str


class ToolCallBlock(TypedDict):
    type: Literal["tool-call"]
    id: str
    name: str
    arguments: str


class ToolResultBlock(TypedDict):
    type: Literal["tool-result"]
    toolCallId: str
    content: list[Json]
    isError: NotRequired[bool]


ContentBlock = TextBlock | ToolCallBlock | ToolResultBlock


class Message(TypedDict):
    """``{id?, role, content, source?}``; only ``role`` and ``content`` reach the wire."""

    role: Literal["system", "user", "assistant"]
    content: list[Json]
    id: NotRequired[str]
    source: NotRequired[Json]


class ToolSchemaJson(TypedDict):
    name: str
    description: str
    parameters: Json


class LlmRequest(TypedDict):
    """A loop-built request: ``{...config, messages, system?, tools?, sessionId?}`` (ROOT-MODEL)."""

    provider: str
    model: str
    messages: list[Message]
    reasoningEffort: NotRequired[str]
    temperature: NotRequired[float]
    maxTokens: NotRequired[int]
    stop: NotRequired[list[str]]
    system: NotRequired[str]
    tools: NotRequired[list[ToolSchemaJson]]
    sessionId: NotRequired[str]


class TokenUsage(TypedDict):
    """Disjoint counts: ``inputTokens`` excludes the cache reads."""

    inputTokens: int
    outputTokens: int
    cacheReadTokens: NotRequired[int]
    reasoningTokens: NotRequired[int]


class LlmFailure(TypedDict):
    message: str
    code: str
    status: NotRequired[int]
    providerRetryAfterMs: NotRequired[int]
    requestId: NotRequired[str]


#: One stream chunk: ``block-start``, ``text-delta``, ``reasoning-delta``, ``tool-call-delta``,
#: ``block-end``, ``usage`` or ``finish`` (§0.4 ``StreamChunk``), as a JSON object.
StreamChunk = dict[str, Json]


class LlmError(Exception):
    """A failure with a stable code (``AUTH``, ``STREAM_CLOSED``, …) and its structured facts."""

    def __init__(self, code: str, message: str, **facts: Json) -> None:
        super().__init__(f"[{code}] {message}")
        self.failure: LlmFailure = {"message": message, "code": code, **facts}  # type: ignore[typeddict-item]

    @classmethod
    def of(cls, failure: LlmFailure) -> LlmError:
        facts = {key: value for key, value in failure.items() if key not in ("code", "message")}
        return cls(failure["code"], failure["message"], **facts)

    @property
    def code(self) -> str:
        return self.failure["code"]


def failure_chunk(failure: LlmFailure, *, aborted: bool = False) -> StreamChunk:
    """The terminal chunk that carries a failure to the loop."""
    return {
        "type": "finish",
        "reason": {"kind": "aborted" if aborted else "error", "failure": failure},
    }


class ModelAdapter(Protocol):
    """What the loop calls once per model request.

    ``stream`` yields chunks as they arrive and always ends with one ``finish`` chunk; it raises
    only for a bug, never for a provider or transport failure.
    """

    def stream(
        self, request: LlmRequest, signal: AbortSignal | None = None
    ) -> AsyncIterator[StreamChunk]: ...
