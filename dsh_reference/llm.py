"""What a model adapter reports besides chunks: token usage, failures, and the failure chunk.

The request and chunk shapes are `dsh_reference.model_adapter`'s (``Request``, ``Chunk``, the one
`ModelAdapter` protocol the loop calls). This module holds the typed facts inside them, as the
upstream's LLM model names them (`upstream/loop-and-session.md` §0.4): a ``usage`` chunk's
`TokenUsage`, and the `LlmFailure` a failed request carries. Adapter failures travel as the final
chunk (``{"kind": "error" | "aborted", "failure": LlmFailure}``), as the upstream runtime
normalizes them and as the loop logs them (ROOT-MODEL: "an adapter that throws or fails is logged
as one such terminal `finish` chunk"); the sans-IO pieces raise `LlmError` and the adapter turns it
into that chunk.

PROMPT-DEEPSEEK-WIRE: the adapter that uses them is `dsh_reference.deepseek.DeepSeekAdapter`.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from .jsonvalue import Json
from .model_adapter import Chunk


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
    providerRetryAfterMs: NotRequired[float]
    requestId: NotRequired[str]


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


def failure_chunk(failure: LlmFailure, *, aborted: bool = False) -> Chunk:
    """The terminal chunk that carries a failure to the loop."""
    return {
        "type": "finish",
        "reason": {"kind": "aborted" if aborted else "error", "failure": failure},
    }
