"""PROMPT-CACHE-E2E, key-gated: every request after the first reads from DeepSeek's prefix cache.

CONTRACTS.md:

    Key-gated (skipped without `DEEPSEEK_API_KEY`; never run in CI): through the loop and the
    DeepSeek adapter, a turn with a tool round trip (≥ 2 requests) and a follow-up turn (≥ 1
    request); every request after the first MUST report `cacheReadTokens > 0`, and where both
    hit and miss counts are reported, hit + miss = `prompt_tokens`. The system prompt must be long
    enough to span a provider cache block from the first request.

The reference loop does not exist yet, so the conversation runs through
`reference.deepseek.Conversation`, which carries the messages forward as the loop's derived
messages would be and rebuilds each request from them; swapping it for the loop's turn is the only
change the loop needs here. It drives the reference adapter in-process, so only the ``reference``
implementation can run it; for the others it is "not applicable" until the protocol has an op for
a live conversation. The run costs four or five short requests to ``deepseek-v4-flash``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
from collections.abc import AsyncIterator
from typing import Any, Final

import httpx
import pytest

from .execute import NOT_APPLICABLE
from .transport import Implementation

Json = Any

#: The identity section then a persona long enough (~150 tokens) that the shared prefix spans
#: the provider's 64-token cache block from the first request.
SYSTEM: Final = (
    "You are an AI agent powered by DeepSeek Harness.\n\n"
    "You are a careful operations assistant for a small platform team. You answer questions about "
    "deployment settings, feature flags and stored configuration values. When a question names a "
    "stored key, you never guess its value: you call the lookup tool with exactly that key and "
    "report the value it returns, verbatim, in one short sentence. You do not add speculation, "
    "alternatives or advice unless asked. If the tool reports an error, you say so plainly and "
    "stop. Keep every answer under forty words, use plain text without markdown, and repeat a "
    "value exactly as the tool returned it when the user asks for it again."
)
LOOKUP: Final = {
    "name": "lookup",
    "description": "Look up the stored value for a key.",
    "parameters": {
        "type": "object",
        "properties": {"key": {"type": "string", "description": "The key to look up."}},
        "required": ["key"],
    },
}
CONFIG: Final = {
    "provider": "deepseek-official",
    "model": "deepseek-v4-flash",
    "reasoningEffort": "low",
    "maxTokens": 2000,
}
VALUE: Final = "azure-falcon-42"
TURN_1: Final = 'Look up the key "deploy-color" with the lookup tool and tell me the value.'
TURN_2: Final = "Thanks. Repeat that value one more time."


def _lookup(arguments: Json) -> str:
    return f"value({arguments['key']}) = {VALUE}"


class _Recording(httpx.AsyncBaseTransport):
    """The real transport, keeping each request body and each response body's bytes."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.sent: list[bytes] = []
        self.received: list[bytearray] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(await request.aread())
        response = await self.inner.handle_async_request(request)
        received = bytearray()
        self.received.append(received)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Tee(response.stream, received),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Tee(httpx.AsyncByteStream):
    def __init__(self, stream: Any, into: bytearray) -> None:
        self.stream, self.into = stream, into

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for part in self.stream:
            self.into.extend(part)
            yield part

    async def aclose(self) -> None:
        await self.stream.aclose()


def _wire_usage(body: bytes) -> Json:
    """The last non-null ``usage`` object of a recorded SSE body, as DeepSeek sent it."""
    from reference.deepseek import SSEDecoder

    decoder = SSEDecoder()
    usage = None
    for payload in [*decoder.feed(body), *decoder.close()]:
        if payload != "[DONE]":
            usage = json.loads(payload).get("usage") or usage
    return usage


def _skip_reason(impl: Implementation) -> str | None:
    if not os.environ.get("DEEPSEEK_API_KEY"):
        return (
            "PROMPT-CACHE-E2E needs a real key: set DEEPSEEK_API_KEY to run it (a few short "
            "requests to deepseek-v4-flash; see the README)"
        )
    if os.environ.get("CI"):
        return "PROMPT-CACHE-E2E is never run in CI (it calls the real DeepSeek API)"
    if impl.label != "reference":
        return (
            f"{NOT_APPLICABLE} the live E2E drives the reference adapter in-process; the protocol "
            "has no op for a live conversation yet"
        )
    return None


@pytest.mark.contract("PROMPT-CACHE-E2E")
def test_every_request_after_the_first_reads_the_cache(impl: Implementation) -> None:
    """Live (DEEPSEEK_API_KEY): every request after the first reads the provider's cache."""
    reason = _skip_reason(impl)
    if reason:
        pytest.skip(reason)
    _allow_network()
    from reference.deepseek import Conversation, DeepSeekAdapter

    recording = _Recording()

    async def converse() -> Conversation:
        async with httpx.AsyncClient(transport=recording, timeout=300) as client:
            conversation = Conversation(
                DeepSeekAdapter(client=client),
                CONFIG,
                system=SYSTEM,
                tools=[LOOKUP],
                implementations={"lookup": _lookup},
                session_id="cache-e2e",
            )
            await conversation.turn(TURN_1)
            turn_1_requests = len(conversation.requests)
            await conversation.turn(TURN_2)
            assert turn_1_requests >= 2, "turn 1 must call the tool, then answer"
            return conversation

    conversation = asyncio.run(converse())
    usages = [response.usage for response in conversation.responses]
    assert len(usages) >= 3 and all(usage is not None for usage in usages), usages
    for number, usage in enumerate(usages[1:], start=2):
        assert usage is not None and usage.get("cacheReadTokens", 0) > 0, (
            f"request {number} read nothing from the cache: {usage}"
        )
    for body in recording.received:
        wire = _wire_usage(bytes(body))
        if "prompt_cache_hit_tokens" in wire and "prompt_cache_miss_tokens" in wire:
            hit, miss = wire["prompt_cache_hit_tokens"], wire["prompt_cache_miss_tokens"]
            assert hit + miss == wire["prompt_tokens"], wire
    for earlier, later in itertools.pairwise(recording.sent):
        prefix = earlier[: earlier.index(b'],"stream":true')]
        assert later.startswith(prefix), "a request does not extend the previous one"
    answer = "".join(
        block["text"] for block in conversation.responses[-1].blocks if block["type"] == "text"
    )
    assert VALUE in answer, answer


def _allow_network() -> None:
    """The project's own test run forbids sockets (pytest-socket); this test is the exception."""
    try:
        import pytest_socket
    except ImportError:
        return
    pytest_socket.enable_socket()
