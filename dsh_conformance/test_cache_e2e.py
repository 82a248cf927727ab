"""PROMPT-CACHE-E2E, key-gated: every request after the first reads from DeepSeek's prefix cache.

CONTRACTS.md:

    Key-gated (skipped without `DEEPSEEK_API_KEY`; never run in CI): through the loop and the
    DeepSeek adapter, a turn with a tool round trip (≥ 2 requests) and a follow-up turn (≥ 1
    request); every request after the first MUST report `cacheReadTokens > 0`, and where both
    hit and miss counts are reported, hit + miss = `prompt_tokens`. The system prompt must be long
    enough to span a provider cache block from the first request.

The suite runs it only when asked, with ``--live`` (which needs the key and refuses CI): the main
command must never go online, or spend money, because a key happens to be in the environment.
Otherwise it is reported as *live not run*, and the contract's verdict says that only its offline
half conforms.

The scenario is the upstream's (`upstream/deepseek-adapter.md` §6.1): the reference loop
(`dsh_reference.loop.Agent`) over a fresh `SessionLog`, the registry's identity section and a
persona of about 520 characters (the upstream's is about 536), the `lookup` tool, agent `cache-e2e`
on ``deepseek-official`` / ``deepseek-v4-flash`` with no other config (so the adapter's defaults
apply: ``maxTokens`` 256000, ``reasoningEffort`` ``high``), and
`dsh_reference.deepseek.DeepSeekAdapter` as the loop's model adapter. The usages are read from the
log's `assistant/message` events, as the upstream test reads them; the raw hit and miss counts,
which the mapped usage does not keep, from the recorded response bodies. It drives the reference
in-process, so only the ``reference`` implementation can run it; for the others it is "not
applicable" until the protocol has an op for a live conversation. The run costs three to five
short requests to ``deepseek-v4-flash``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import httpx
import pytest

from .deepseek.cache_conversation import LOOKUP
from .harness.transport import Implementation
from .run.execute import LIVE_NOT_RUN, NOT_APPLICABLE

if TYPE_CHECKING:  # the suite imports the reference only where it drives it
    from dsh_reference.abort import AbortSignal
    from dsh_reference.header import CallConfig

Json = Any

#: The persona, after the registry's identity section: long enough (about 130 tokens with it)
#: that the shared prefix spans the provider's 64-token cache block from the first request.
PERSONA: Final = (
    "You are a careful operations assistant for a small platform team. You answer questions about "
    "deployment settings, feature flags and stored configuration values. When a question names a "
    "stored key, you never guess its value: you call the lookup tool with exactly that key and "
    "report the value it returns, verbatim, in one short sentence. You add no speculation, "
    "alternatives or advice unless asked. If the tool reports an error, say so plainly and stop. "
    "Keep every answer under forty words, in plain text without markdown."
)
#: Provider and model only: the adapter fills in its defaults, as in the upstream test.
CONFIG: Final[CallConfig] = {"provider": "deepseek-official", "model": "deepseek-v4-flash"}
SESSION_ID: Final = "cache-e2e"
VALUE: Final = "azure-falcon-42"
TURN_1: Final = 'Look up the key "deploy-color" with the lookup tool and tell me the value.'
TURN_2: Final = "Thanks. Repeat that value one more time."


class Unreachable(Exception):
    """The DeepSeek API could not be reached (the adapter's ``TRANSPORT`` failure)."""


@dataclass
class Run:
    """What one conversation left: the log, and each request's bytes and response's bytes."""

    log: Json
    sent: list[bytes]
    received: list[bytes]


async def converse(transport: httpx.AsyncBaseTransport) -> Run:
    """Turn 1 (a tool round trip), then the follow-up turn, through the loop and the adapter.

    ``transport`` carries the HTTP requests (`Recording` keeps their bytes). A turn that does not
    end ``completed`` fails the run with the reason the loop logged.
    """
    from dsh_reference.assembly import ToolContribution
    from dsh_reference.deepseek import DeepSeekAdapter
    from dsh_reference.loop import Agent, ToolCall, ToolOutcome, user_message
    from dsh_reference.registry import PromptRegistry, Scope
    from dsh_reference.session import SessionLog

    async def lookup(call: ToolCall, _signal: AbortSignal) -> ToolOutcome:
        try:
            key = json.loads(call.arguments)["key"]
        except (ValueError, TypeError, KeyError) as error:
            return ToolOutcome([{"type": "text", "text": f"bad arguments: {error}"}], True)
        return ToolOutcome([{"type": "text", "text": f"value({key}) = {VALUE}"}])

    registry = PromptRegistry()
    registry.add_section("persona", 1, PERSONA)
    registry.add_tool_provider(lambda _context: ToolContribution([LOOKUP]))
    recording = Recording(transport)
    async with httpx.AsyncClient(transport=recording) as client:
        agent = Agent(
            registry=registry,
            scope=Scope("cache-e2e"),
            log=SessionLog(),
            adapter=DeepSeekAdapter(client=client),
            config=CONFIG,
            session_id=SESSION_ID,
            tools=lookup,
        )
        for text in (TURN_1, TURN_2):
            agent.followup(user_message(text, agent.new_id()))
            await agent.when_idle()
            (end, *_) = [e.data for e in reversed(agent.log.events) if e.type == "turn/end"]
            error = end["reason"].get("error")
            if isinstance(error, dict) and error.get("code") == "TRANSPORT":
                raise Unreachable(str(error.get("message", "")))
            assert end["reason"] == {"kind": "completed"}, f"the turn ended {end['reason']}"
    return Run(agent.log.to_json(), recording.sent, [bytes(body) for body in recording.received])


def check(run: Run) -> None:
    """PROMPT-CACHE-E2E's assertions over one run (the upstream test's, `:83-102`)."""
    messages = [event["data"] for event in run.log if event["type"] == "assistant/message"]
    turn_1 = [data for data in messages if data["turn"] == 1]
    assert len(turn_1) >= 2, f"turn 1 must call the tool, then answer: {len(turn_1)} request(s)"
    assert len(messages) > len(turn_1), "the follow-up turn made no request"
    usages = [data.get("usage") for data in messages]
    assert len(usages) >= 3 and all(usage is not None for usage in usages), usages
    for number, usage in enumerate(usages[1:], start=2):
        assert usage.get("cacheReadTokens", 0) > 0, (
            f"request {number} read nothing from the cache: {usage}"
        )
    for body in run.received:
        wire = wire_usage(body)
        if "prompt_cache_hit_tokens" in wire and "prompt_cache_miss_tokens" in wire:
            hit, miss = wire["prompt_cache_hit_tokens"], wire["prompt_cache_miss_tokens"]
            assert hit + miss == wire["prompt_tokens"], wire
    # Offline and online: "each request body's serialized messages extend the previous
    # request's byte for byte".
    for number, (earlier, later) in enumerate(itertools.pairwise(run.sent), start=2):
        prefix = earlier[: earlier.index(b'],"stream":true')]
        assert later.startswith(prefix), f"request {number} does not extend request {number - 1}"
    final = messages[-1]["message"]["content"]
    answer = "".join(block["text"] for block in final if block["type"] == "text")
    assert VALUE in answer, answer


class Recording(httpx.AsyncBaseTransport):
    """``inner``, keeping each request body and each response body's bytes."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
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


def wire_usage(body: bytes) -> Json:
    """The last non-null ``usage`` object of a recorded SSE body, as DeepSeek sent it."""
    from dsh_reference.deepseek import SSEDecoder

    decoder = SSEDecoder()
    usage: Json = {}
    for payload in [*decoder.feed(body), *decoder.close()]:
        if payload != "[DONE]":
            usage = json.loads(payload).get("usage") or usage
    return usage


def _skip_reason(impl: Implementation, live: bool) -> str | None:
    """Why the live test does not run here: it is an explicit opt-in (``--live``), so that the
    main command never goes online, or spends money, because a key happens to be exported."""
    if impl.label != "reference":
        return (
            f"{NOT_APPLICABLE} the live E2E drives the reference adapter in-process; the protocol "
            "has no op for a live conversation yet"
        )
    if not live:
        return (
            f"{LIVE_NOT_RUN} PROMPT-CACHE-E2E's live half calls the real DeepSeek API; add --live "
            "(with DEEPSEEK_API_KEY set) to run it"
        )
    return None


@pytest.mark.contract("PROMPT-CACHE-E2E")
def test_every_request_after_the_first_reads_the_cache(
    impl: Implementation, pytestconfig: pytest.Config
) -> None:
    """Live (--live, DEEPSEEK_API_KEY): every request after the first reads the provider's cache."""
    run_live(impl, live=pytestconfig.getoption("--live"))


def run_live(impl: Implementation, *, live: bool) -> None:
    """The live test's body: skipped unless ``live`` (``--live``), else one conversation with the
    API, checked; an API that cannot be reached is named as such."""
    reason = _skip_reason(impl, live)
    if reason:
        pytest.skip(reason)
    _allow_network()
    try:
        run = asyncio.run(converse(httpx.AsyncHTTPTransport()))
    except (Unreachable, httpx.TransportError) as error:
        pytest.fail(
            f"the live test (PROMPT-CACHE-E2E, --live) could not reach DeepSeek: {error}; "
            "check the network, or run without --live to skip it",
            pytrace=False,
        )
    check(run)


def _allow_network() -> None:
    """The project's own test run forbids sockets (pytest-socket); this test is the exception."""
    try:
        import pytest_socket
    except ImportError:
        return
    pytest_socket.enable_socket()
