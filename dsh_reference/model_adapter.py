"""The model-adapter interface the loop calls, and a scripted adapter for tests and the harness.

An adapter turns one loop-built request into a stream of chunks in the upstream vocabulary
(`upstream/loop-and-session.md` §0.4): ``block-start``, ``text-delta``, ``reasoning-delta``,
``tool-call-delta``, ``block-end``, ``usage`` and the terminal ``finish``. It is kept this small on
purpose, so that a real adapter (DeepSeek's) plugs in beside the scripted one:

    stream(request, signal) -> AsyncIterator[chunk]

An adapter that cannot answer raises `AdapterFailure` (from ``stream`` or while iterating); the
loop logs that as one terminal ``finish`` chunk (ROOT-MODEL: "an adapter that throws or fails is
logged as one such terminal `finish` chunk"). ``defaults`` are the values an adapter fills in
when the call config leaves them out (PROMPT-HEADER-CANONICAL's ``adapterDefaults`` markers), and
``context_window`` is what `request/context` reports (LOOP-REQUEST-BUILD).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict

from .abort import AbortSignal
from .jsonvalue import Json, snapshot

#: A stream chunk: a JSON object whose ``type`` is one of the §0.4 chunk types.
Chunk = dict[str, Any]
#: A loop-built request: ``{...config, messages, system?, tools?, sessionId}`` (ROOT-MODEL).
Request = dict[str, Any]

#: "an adapter failure with this code becomes an `aborted` finish" (§0.4).
ABORTED: str = "ABORTED"


class AdapterDefaultValues(TypedDict, total=False):
    """What an adapter fills in for a config that leaves the field out."""

    reasoningEffort: str
    maxTokens: int


class AdapterFailure(Exception):
    """A failed request: ``{message, code}`` as the upstream's `LlmFailure` carries it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "code": self.code}


class ModelAdapter(Protocol):
    """What the loop needs of a model provider."""

    @property
    def defaults(self) -> AdapterDefaultValues: ...

    @property
    def context_window(self) -> int | None: ...

    def stream(self, request: Request, signal: AbortSignal) -> AsyncIterator[Chunk]: ...


#: What a scripted reply does after its chunks: wait for something (a gate, the abort signal).
Hold = Callable[[AbortSignal], Awaitable[None]]


@dataclass
class ScriptedReply:
    """One scripted answer: stream ``chunks``, then maybe ``hold``, then maybe fail.

    With ``hold``, the stream waits after its chunks; if the signal is aborted by then, the stream
    fails with code ``ABORTED`` (a cancel mid-stream), otherwise it ends (or fails, with
    ``failure``).
    """

    chunks: Sequence[Chunk] = ()
    failure: AdapterFailure | None = None
    hold: Hold | None = None


@dataclass
class ScriptedAdapter:
    """Answers the n-th request with the n-th reply and records every request it receives.

    A request beyond the script fails with code ``SCRIPT_EXHAUSTED``, so the loop logs it like any
    other failure instead of hanging.
    """

    replies: list[ScriptedReply] = field(default_factory=list)
    defaults: AdapterDefaultValues = field(default_factory=AdapterDefaultValues)
    context_window: int | None = None
    received: list[Request] = field(default_factory=list)

    def stream(self, request: Request, signal: AbortSignal) -> AsyncIterator[Chunk]:
        index = len(self.received)
        self.received.append(snapshot(request))
        return self._play(index, signal)

    async def _play(self, index: int, signal: AbortSignal) -> AsyncIterator[Chunk]:
        if index >= len(self.replies):
            raise AdapterFailure("SCRIPT_EXHAUSTED", f"no scripted reply for request #{index}")
        reply = self.replies[index]
        for chunk in reply.chunks:
            await asyncio.sleep(0)
            yield snapshot(chunk)
        if reply.hold is not None:
            await reply.hold(signal)
            if signal.aborted:
                raise AdapterFailure(ABORTED, "the request was aborted")
        if reply.failure is not None:
            raise reply.failure


def failure_json(error: BaseException) -> Json:
    """The ``failure`` of a terminal chunk for whatever an adapter raised."""
    if isinstance(error, AdapterFailure):
        return error.to_json()
    return {"message": f"{type(error).__name__}: {error}", "code": "UNKNOWN"}
