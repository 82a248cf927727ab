"""PROMPT-DEEPSEEK-WIRE and the offline half of PROMPT-CACHE-E2E: the httpx adapter under respx.

No socket is opened (pytest-socket enforces it for the whole run; `test_the_run_opens_no_socket`
shows the guard is on). A scripted conversation — a tool round trip, then a follow-up turn — runs
through the reference loop (`dsh_reference.loop.Agent`) with the adapter as its model adapter, every
response body delivered whole, byte by byte, and split in two at many positions; the request
bodies are asserted byte for byte against bodies written out by hand from the contract, each
request's messages must extend the previous request's byte for byte, and the suite's own
LOGGEDLOOP-REQUEST-INVARIANT check (`dsh_conformance.judge.invariant`) passes over the log and the
requests. Every error path ends the stream in one failure chunk, and the fake key appears in no
output.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import logging
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal

import httpx
import pytest
import respx
from pytest_socket import SocketBlockedError

from dsh_conformance.deepseek.cache_conversation import LOOKUP
from dsh_conformance.judge.invariant import check_requests
from dsh_reference.abort import AbortController, AbortSignal
from dsh_reference.assembly import ToolContribution
from dsh_reference.deepseek import DeepSeekAdapter
from dsh_reference.loop import Agent, RequestError, ToolCall, ToolOutcome, user_message
from dsh_reference.model_adapter import Chunk, Request
from dsh_reference.registry import PromptRegistry, Scope
from dsh_reference.session import SessionLog

Json = Any
BASE = "https://deepseek.test"
URL = f"{BASE}/chat/completions"
KEY = "sk-FAKE-0123456789abcdef"
ENV = {"DEEPSEEK_API_KEY": KEY, "DEEPSEEK_BASE_URL": BASE}
FIRST = '{"choices":[{"delta":{"role":"assistant","content":null,"reasoning_content":""}}]}'


class Parts(httpx.AsyncByteStream):
    """A response body delivered in the given parts, optionally waiting on an event first."""

    def __init__(self, parts: list[bytes], before: asyncio.Event | None = None) -> None:
        self.parts = parts
        self.before = before

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in self.parts:
            yield part
        if self.before is not None:
            await self.before.wait()


def sse(*payloads: str, line_end: str = "\n") -> bytes:
    return "".join(f"data: {p}{line_end}{line_end}" for p in payloads).encode()


def streamed(parts: list[bytes]) -> httpx.Response:
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Parts(parts))


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


async def chunks_of(adapter: DeepSeekAdapter, request: Json, **kwargs: Any) -> list[Chunk]:
    return [chunk async for chunk in adapter.stream(request, **kwargs)]


# -- the scripted conversation ------------------------------------------------------------------

SYSTEM = "You are terse. Use tools when asked."
CONFIG = {"provider": "deepseek-official", "model": "deepseek-v4-flash", "maxTokens": 512}
TURN_1 = 'Look up the key "deploy-color" and tell me. 🙂'
TURN_2 = "Thanks. Repeat that value one more time."


def arguments(fragment: str) -> str:
    """A chunk carrying one fragment of call 0's arguments (``fragment`` is JSON-escaped)."""
    call = '{"index":0,"function":{"arguments":"' + fragment + '"}}'
    return '{"choices":[{"delta":{"tool_calls":[' + call + "]}}]}"


#: The three responses: a reasoning + tool call, an answer (CRLF framing, cache hits in a
#: trailing usage chunk), and a follow-up answer with usage on the finish chunk.
RESPONSES = [
    sse(
        FIRST,
        '{"choices":[{"delta":{"content":null,"reasoning_content":"Need the tool."}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_0","type":"function",'
        '"function":{"name":"lookup","arguments":""}}]}}]}',
        arguments('{\\"key\\": '),
        arguments('\\"deploy-color\\"}'),
        '{"choices":[{"delta":{"content":""},"finish_reason":"tool_calls"}],'
        '"usage":{"prompt_tokens":120,"completion_tokens":20,"prompt_cache_hit_tokens":0,'
        '"prompt_cache_miss_tokens":120}}',
        "[DONE]",
    ),
    b": keep-alive\r\n\r\n"
    + sse(
        '{"choices":[{"delta":{"content":"It is "}}]}',
        '{"choices":[{"delta":{"content":"azure-falcon-42 — ✓"}}]}',
        '{"choices":[{"delta":{},"finish_reason":"stop"}],"usage":null}',
        '{"choices":[],"usage":{"prompt_tokens":180,"completion_tokens":9,'
        '"prompt_cache_hit_tokens":128,"prompt_cache_miss_tokens":52,'
        '"prompt_tokens_details":{"cached_tokens":128}}}',
        "[DONE]",
        line_end="\r\n",
    ),
    sse(
        '{"choices":[{"delta":{"content":"azure-falcon-42"},"finish_reason":"stop"}],'
        '"usage":{"prompt_tokens":200,"completion_tokens":5,"prompt_cache_hit_tokens":192}}',
        "[DONE]",
    ),
]

#: The adapter's default effort, which the loop fills in (the config sets none): "Effort `low`,
#: `high` or `max` gives `thinking: {type:'enabled'}` plus `reasoning_effort: <effort>`".
_EFFORT = '"thinking":{"type":"enabled"},"reasoning_effort":"high",'
_TOOLS = (
    '"tools":[{"type":"function","function":{"name":"lookup","description":"Look up the stored '
    'value for a key.","parameters":{"type":"object","properties":{"key":{"type":"string",'
    '"description":"The key to look up."}},"required":["key"]}}}],"max_tokens":512}'
)
_FIXED = '],"stream":true,"stream_options":{"include_usage":true},'
_M1 = (
    # The identity section (order -100) and the persona, joined with a blank line.
    '{"role":"system","content":"You are an AI agent powered by DeepSeek Harness.\\n\\n'
    'You are terse. Use tools when asked."},'
    '{"role":"user","content":"Look up the key \\"deploy-color\\" and tell me. 🙂"}'
)
_M2 = (
    _M1 + ',{"role":"assistant","content":"","reasoning_content":"Need the tool.","tool_calls":'
    '[{"id":"call_0","type":"function","function":{"name":"lookup","arguments":'
    '"{\\"key\\": \\"deploy-color\\"}"}}]},'
    '{"role":"tool","tool_call_id":"call_0","content":"value(deploy-color) = azure-falcon-42"}'
)
_M3 = (
    _M2 + ',{"role":"assistant","content":"It is azure-falcon-42 — ✓"},'
    '{"role":"user","content":"Thanks. Repeat that value one more time."}'
)
#: The request bodies, byte for byte, written out from the contract's body and message rules.
EXPECTED_BODIES = [
    ('{"model":"deepseek-v4-flash","messages":[' + messages + _FIXED + _EFFORT + _TOOLS).encode()
    for messages in (_M1, _M2, _M3)
]


def split_every(position: int) -> Callable[[bytes], list[bytes]]:
    return lambda body: [body[:position], body[position:]]


SPLITTERS: list[tuple[str, Callable[[bytes], list[bytes]]]] = [
    ("whole", lambda body: [body]),
    ("bytes", lambda body: [body[i : i + 1] for i in range(len(body))]),
    *((f"at-{p}", split_every(p)) for p in range(1, max(map(len, RESPONSES)), 9)),
]


async def lookup(call: ToolCall, _signal: AbortSignal) -> ToolOutcome:
    key = json.loads(call.arguments)["key"]
    return ToolOutcome([{"type": "text", "text": f"value({key}) = azure-falcon-42"}])


class Dispatching:
    """The adapter, reporting with each request the log length at dispatch (``dispatchSeq``),
    as a conformance harness does for the suite's invariant check."""

    def __init__(self, adapter: DeepSeekAdapter, log: SessionLog) -> None:
        self.adapter, self.log = adapter, log
        self.defaults, self.context_window = adapter.defaults, adapter.context_window
        self.requests: list[Json] = []

    def stream(self, request: Request, signal: AbortSignal) -> AsyncIterator[Chunk]:
        self.requests.append({"dispatchSeq": len(self.log), "request": copy.deepcopy(request)})
        return self.adapter.stream(request, signal)


def make_agent(**hooks: Any) -> tuple[Agent, Dispatching]:
    """An agent over a fresh log with the persona and `lookup`, the adapter as its model."""
    registry = PromptRegistry()
    registry.add_section("persona", 0, SYSTEM)
    registry.add_tool_provider(lambda _context: ToolContribution([LOOKUP]))
    log = SessionLog()
    adapter = Dispatching(DeepSeekAdapter(env=ENV), log)
    ids = (f"m{n}" for n in itertools.count())
    agent = Agent(
        registry=registry,
        scope=Scope("agent"),
        log=log,
        adapter=adapter,
        config=CONFIG,
        session_id="s1",
        tools=lookup,
        new_id=lambda: next(ids),
        **hooks,
    )
    return agent, adapter


async def talk(agent: Agent, responses: list[Any], *turns: str) -> list[httpx.Request]:
    """Each of ``turns`` as a follow-up, run to the end; the HTTP requests made."""
    with respx.mock(assert_all_called=True) as router:
        route = router.post(URL).mock(side_effect=responses)
        for text in turns:
            agent.followup(user_message(text, agent.new_id()))
            await agent.when_idle()
        return [call.request for call in route.calls]


async def converse(split: Callable[[bytes], list[bytes]]) -> tuple[Agent, Dispatching, list[bytes]]:
    agent, adapter = make_agent()
    responses = [streamed(split(body)) for body in RESPONSES]
    sent = await talk(agent, responses, TURN_1, TURN_2)
    for request in sent:
        assert request.headers["authorization"] == f"Bearer {KEY}"
        assert request.headers["content-type"] == "application/json"
        assert request.headers["accept"] == "text/event-stream"
    return agent, adapter, [request.content for request in sent]


def of_type(agent: Agent, type_: str) -> list[Json]:
    return [event.data for event in agent.log.events if event.type == type_]


@pytest.mark.parametrize(("name", "split"), SPLITTERS, ids=[name for name, _ in SPLITTERS])
def test_a_tool_round_trip_and_a_follow_up_byte_for_byte(
    name: str, split: Callable[[bytes], list[bytes]]
) -> None:
    agent, adapter, bodies = run(converse(split))
    assert bodies == EXPECTED_BODIES
    assert [end["reason"] for end in of_type(agent, "turn/end")] == [{"kind": "completed"}] * 2
    answers = of_type(agent, "assistant/message")
    assert [answer["usage"] for answer in answers] == [
        {"inputTokens": 120, "outputTokens": 20, "cacheReadTokens": 0},
        {"inputTokens": 52, "outputTokens": 9, "cacheReadTokens": 128},
        {"inputTokens": 8, "outputTokens": 5, "cacheReadTokens": 192},
    ]
    assert answers[-1]["message"]["content"] == [{"type": "text", "text": "azure-falcon-42"}]
    assert check_requests(agent.log.to_json(), adapter.requests, "s1") == []


def test_the_loop_fills_in_and_marks_the_adapter_defaults() -> None:
    """§5: the runtime fills `reasoningEffort` `high` (and `maxTokens` 256000) into a config that
    leaves them out, marked in the header's `adapterDefaults`; `request/context` reports the
    `defaultContextWindow`, 1000000."""
    agent, _, _ = run(converse(lambda body: [body]))
    ((header,),) = [[data["header"] for data in of_type(agent, "request/header")]]
    assert header["config"] == {**CONFIG, "reasoningEffort": "high"}
    assert header["adapterDefaults"] == {"reasoningEffort": True}
    assert of_type(agent, "request/context") == [
        {"provider": "deepseek-official", "model": "deepseek-v4-flash", "contextWindow": 1000000}
    ]


OK = sse('{"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}', "[DONE]")
#: "deltas to blocks": the first content opens a text block; the finish ends it, then `finish`.
OK_CHUNKS = ["block-start", "text-delta", "block-end", "finish"]


def chunk_types(agent: Agent) -> list[str]:
    return [data["chunk"]["type"] for data in of_type(agent, "assistant/chunk")]


def test_a_failed_request_ends_the_turn_with_its_failure() -> None:
    """ROOT-MODEL: an adapter that fails "is logged as one such terminal `finish` chunk"; the
    default `agent/request-error` decision ends the turn `{kind: "error", error: <failure>}`."""
    agent, adapter = make_agent()
    run(
        talk(
            agent, [httpx.Response(401, json={"error": {"message": "Authentication Fails"}})], "hi"
        )
    )
    failure = {"message": "Authentication Fails", "code": "AUTH", "status": 401}
    assert [data["chunk"] for data in of_type(agent, "assistant/chunk")] == [
        {"type": "finish", "reason": {"kind": "error", "failure": failure}}
    ]
    assert of_type(agent, "assistant/message") == []
    assert of_type(agent, "turn/end") == [
        {"turn": 1, "reason": {"kind": "error", "error": failure}}
    ]
    assert check_requests(agent.log.to_json(), adapter.requests, "s1") == []


def test_a_retried_request_stays_in_its_step() -> None:
    """LOOP-REQUEST-ERROR-TEST: a retry keeps the turn and step; the failed attempt logs its
    `finish` chunk only, the next attempt's message cites its own chunks."""
    asked: list[Json] = []

    async def retry(question: RequestError) -> Literal["retry"] | None:
        asked.append((question.turn, question.step, question.failure["code"]))
        return "retry"

    agent, adapter = make_agent(request_error=retry)
    run(talk(agent, [httpx.Response(502, text="Bad Gateway"), streamed([OK])], "hi"))
    assert asked == [(1, 1, "SERVER")]
    assert chunk_types(agent) == ["finish", *OK_CHUNKS]
    assert len(of_type(agent, "step/start")) == 1
    (answer,) = of_type(agent, "assistant/message")
    assert answer["message"]["content"] == [{"type": "text", "text": "ok"}]
    assert of_type(agent, "turn/end") == [{"turn": 1, "reason": {"kind": "completed"}}]
    assert len(adapter.requests) == 2
    assert check_requests(agent.log.to_json(), adapter.requests, "s1") == []


def test_a_cancel_mid_stream_through_the_loop() -> None:
    """PROMPT-CANCEL-TEST: the chunks received stay logged, no `finish`, an interrupted message
    with the text so far, and the turn ends `aborted` with the cause."""
    agent, adapter = make_agent()
    never = asyncio.Event()
    first = sse('{"choices":[{"delta":{"content":"a"}}]}')

    async def go() -> None:
        with respx.mock() as router:
            router.post(URL).mock(return_value=httpx.Response(200, stream=Parts([first], never)))
            agent.followup(user_message("hi", agent.new_id()))
            while "text-delta" not in chunk_types(agent):
                await asyncio.sleep(0)
            agent.cancel()
            await agent.when_idle()

    run(asyncio.wait_for(go(), timeout=5))
    assert chunk_types(agent) == ["block-start", "text-delta"]
    (interrupted,) = of_type(agent, "assistant/message")
    assert interrupted["interrupted"] is True
    assert interrupted["message"]["content"] == [{"type": "text", "text": "a"}]
    assert of_type(agent, "turn/end") == [
        {"turn": 1, "reason": {"kind": "aborted", "reason": {"kind": "user"}}}
    ]
    assert check_requests(agent.log.to_json(), adapter.requests, "s1") == []


def test_the_defaults_are_configurable() -> None:
    adapter = DeepSeekAdapter(max_tokens=100, reasoning_effort="off", context_window=64_000)
    assert adapter.defaults == {"maxTokens": 100, "reasoningEffort": "off"}
    assert adapter.context_window == 64_000
    assert DeepSeekAdapter().defaults == {"maxTokens": 256_000, "reasoningEffort": "high"}
    with pytest.raises(ValueError, match="reasoning_effort 'medium' is not one of off, low"):
        DeepSeekAdapter(reasoning_effort="medium")


def test_the_invariant_check_sees_a_request_that_differs_from_the_log() -> None:
    """The check above can fail: a request whose messages were changed after dispatch."""
    agent, adapter, _ = run(converse(lambda body: [body]))
    request = adapter.requests[1]["request"]  # frozen, like every loop-built request
    adapter.requests[1]["request"] = {**request, "messages": request["messages"][:-1]}
    (violation,) = check_requests(agent.log.to_json(), adapter.requests, "s1")
    assert (violation.index, violation.field) == (1, "messages")


def test_each_request_extends_the_previous_one_byte_for_byte() -> None:
    """PROMPT-CACHE-E2E, offline: "each request body's serialized messages extend the previous
    request's byte for byte"."""
    _, _, bodies = run(converse(lambda body: [body]))
    for earlier, later in itertools.pairwise(bodies):
        prefix = earlier[: earlier.index(_FIXED.encode())]
        assert later.startswith(prefix)
        assert later[len(prefix) : len(prefix) + 1] == b","


# -- error paths --------------------------------------------------------------------------------

REQUEST: Json = {
    **CONFIG,
    "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
}


def fail(response: Any, *, env: Json = ENV, request: Json = REQUEST, **kwargs: Any) -> Json:
    """Run one request against ``response`` (or side effect); return its final finish reason."""

    async def go() -> list[Chunk]:
        with respx.mock(assert_all_called=False) as router:
            router.post(URL).mock(side_effect=[response])
            return await chunks_of(DeepSeekAdapter(env=env), request, **kwargs)

    chunks = run(go())
    assert [chunk["type"] for chunk in chunks].count("finish") == 1
    assert chunks[-1]["type"] == "finish"
    reason: Json = chunks[-1]["reason"]
    return reason


ERROR_RESPONSES: list[tuple[str, Any, str]] = [
    ("auth", httpx.Response(401, json={"error": {"message": "Authentication Fails"}}), "AUTH"),
    ("quota", httpx.Response(402, json={"error": {"message": "Insufficient Balance"}}), "QUOTA"),
    ("rate-limit", httpx.Response(429, headers={"retry-after": "2"}), "RATE_LIMIT"),
    (
        "context",
        httpx.Response(400, json={"error": {"message": "maximum context length is 8 tokens"}}),
        "CONTEXT_WINDOW_EXCEEDED",
    ),
    ("invalid", httpx.Response(413, text="too big"), "INVALID_REQUEST"),
    ("server", httpx.Response(502, text="Bad Gateway"), "SERVER"),
    ("other", httpx.Response(418, text="teapot"), "HTTP_418"),
    ("stream-closed", streamed([sse(FIRST)]), "STREAM_CLOSED"),
    ("empty-body", streamed([]), "STREAM_CLOSED"),
    ("malformed", streamed([sse("{bad json", "[DONE]")]), "MALFORMED_RESPONSE"),
    ("empty-response", streamed([sse("{}", "[DONE]")]), "EMPTY_RESPONSE"),
    ("filter", streamed([sse('{"choices":[{"finish_reason":"content_filter"}]}', "[DONE]")]),
     "CONTENT_FILTER"),
    ("connect", httpx.ConnectError("connection refused"), "TRANSPORT"),
    ("read", httpx.ReadError("connection reset"), "TRANSPORT"),
    ("timeout", httpx.ReadTimeout("idle"), "TIMEOUT"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "response", "code"), ERROR_RESPONSES, ids=[name for name, _, _ in ERROR_RESPONSES]
)
def test_every_error_path_ends_in_one_failure_chunk(name: str, response: Any, code: str) -> None:
    reason = fail(response)
    assert reason["kind"] == "error"
    assert reason["failure"]["code"] == code


def test_http_failures_keep_status_retry_after_and_request_id() -> None:
    response = httpx.Response(
        429,
        headers={"retry-after": "2", "x-request-id": "req-429"},
        json={"error": {"message": "slow down"}},
    )
    assert fail(response)["failure"] == {
        "message": "slow down",
        "code": "RATE_LIMIT",
        "status": 429,
        "providerRetryAfterMs": 2000,
        "requestId": "req-429",
    }


@pytest.mark.parametrize(
    ("env", "request_", "code"),
    [
        ({"DEEPSEEK_BASE_URL": BASE}, REQUEST, "MISSING_CREDENTIAL"),
        ({**ENV, "DEEPSEEK_API_KEY": ""}, REQUEST, "MISSING_CREDENTIAL"),
        ({**ENV, "DEEPSEEK_API_KEY": "sk bad"}, REQUEST, "INVALID_CREDENTIAL"),
        (ENV, {**REQUEST, "reasoningEffort": "medium"}, "UNSUPPORTED_REASONING_EFFORT"),
    ],
    ids=["no-key", "empty-key", "bad-key", "bad-effort"],
)
def test_failures_before_any_io_send_nothing(env: Json, request_: Json, code: str) -> None:
    async def go() -> tuple[list[Chunk], int]:
        with respx.mock(assert_all_called=False) as router:
            route = router.post(URL).mock(return_value=streamed([sse("[DONE]")]))
            chunks = await chunks_of(DeepSeekAdapter(env=env), request_)
            return chunks, route.call_count

    chunks, calls = run(go())
    assert calls == 0
    assert chunks == [
        {"type": "finish", "reason": {"kind": "error", "failure": chunks[0]["reason"]["failure"]}}
    ]
    assert chunks[0]["reason"]["failure"]["code"] == code


def test_the_default_base_url_and_a_given_client() -> None:
    async def go() -> Json:
        with respx.mock() as router:
            route = router.post("https://api.deepseek.com/chat/completions").mock(
                return_value=streamed([sse('{"choices":[{"delta":{"content":"a"}}]}', "[DONE]")])
            )
            async with httpx.AsyncClient() as client:
                adapter = DeepSeekAdapter(env={"DEEPSEEK_API_KEY": KEY}, client=client)
                chunks = await chunks_of(adapter, REQUEST)
                assert not client.is_closed
            assert route.call_count == 1
            return chunks[-1]

    assert run(go()) == {"type": "finish", "reason": {"kind": "stop"}}


def test_an_abort_before_sending_and_while_streaming() -> None:
    controller = AbortController()
    controller.abort("user")
    reason = fail(streamed([sse("[DONE]")]), signal=controller.signal)
    assert reason["kind"] == "aborted"
    assert reason["failure"]["code"] == "ABORTED"

    async def go() -> list[Chunk]:
        controller = AbortController()
        never = asyncio.Event()
        body = Parts([sse('{"choices":[{"delta":{"content":"a"}}]}')], before=never)
        response = httpx.Response(200, stream=body)
        with respx.mock() as router:
            router.post(URL).mock(return_value=response)
            chunks = []
            async for chunk in DeepSeekAdapter(env=ENV).stream(REQUEST, controller.signal):
                chunks.append(chunk)
                if chunk["type"] == "text-delta":
                    controller.abort("user")
            return chunks

    chunks = run(asyncio.wait_for(go(), timeout=5))
    assert [chunk["type"] for chunk in chunks] == ["block-start", "text-delta", "finish"]
    assert chunks[-1]["reason"]["kind"] == "aborted"


def test_the_key_appears_in_no_output(caplog: pytest.LogCaptureFixture) -> None:
    """Failing requests of every kind, with debug logging of httpx on: the fake key is in no
    failure, message, repr or log line."""
    caplog.set_level(logging.DEBUG)
    seen = [repr(DeepSeekAdapter(env=ENV)), str(DeepSeekAdapter(env=ENV))]
    for _, response, _ in ERROR_RESPONSES:
        seen.append(repr(fail(response)))
    seen.append(repr(fail(streamed([]), env={**ENV, "DEEPSEEK_API_KEY": KEY + " x"})))
    echo = httpx.Response(401, json={"error": {"message": f"Your api key {KEY} is invalid"}})
    echoed = fail(echo)
    assert echoed["failure"]["code"] == "AUTH"
    seen.append(repr(echoed))
    seen.append(caplog.text)
    assert all(KEY not in text and KEY[3:] not in text for text in seen)
    assert "HTTP Request" in caplog.text  # httpx did log, so the check above looked at something


def test_the_run_opens_no_socket() -> None:
    """pytest-socket is on for the default run (``--disable-socket`` in pyproject's addopts)."""
    with pytest.warns(UserWarning, match="socket"), pytest.raises(SocketBlockedError):
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)
