"""The key-gated PROMPT-CACHE-E2E test, run offline against scripted responses.

The live test only runs with a real key, so its code path — the reference loop driving the
DeepSeek adapter, the usages read from the log — is exercised here against respx-mocked SSE
bodies (a scripted tool call, then answers with cache-hit usage): it passes when every request
after the first reports cache reads, and fails when one does not, when the hit and miss counts do
not add up to ``prompt_tokens``, when turn 1 calls no tool, when the answer lacks the tool's
value, or when a request does not extend the previous one. Its skip reasons are checked too.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from dsh_conformance import test_cache_e2e as e2e
from dsh_conformance.harness.transport import load_implementation
from dsh_reference.deepseek import wire

Json = Any
BASE = "https://deepseek.test"


def sse(*payloads: str) -> bytes:
    return "".join(f"data: {payload}\n\n" for payload in payloads).encode()


def usage(prompt: int, hit: int) -> str:
    return (
        f'"usage":{{"prompt_tokens":{prompt},"completion_tokens":5,'
        f'"prompt_cache_hit_tokens":{hit},"prompt_cache_miss_tokens":{prompt - hit}}}'
    )


def responses(
    second_hit: int = 128, second_miss_delta: int = 0, value: str = "azure-falcon-42"
) -> list[httpx.Response]:
    call = (
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c0","type":"function","function":'
        '{"name":"lookup","arguments":"{\\"key\\":\\"deploy-color\\"}"}}]},'
        '"finish_reason":"tool_calls"}],' + usage(300, 0) + "}"
    )
    second = usage(340, second_hit).replace(
        f'"prompt_cache_miss_tokens":{340 - second_hit}',
        f'"prompt_cache_miss_tokens":{340 - second_hit + second_miss_delta}',
    )
    answer = '{"choices":[{"delta":{"content":"It is ' + value + '."},"finish_reason":"stop"}],'
    bodies = [sse(call, "[DONE]"), sse(answer + second + "}", "[DONE]")]
    bodies.append(sse(answer + usage(360, 320) + "}", "[DONE]"))
    return [httpx.Response(200, content=body) for body in bodies]


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-offline-fake")
    monkeypatch.setenv("DEEPSEEK_BASE_URL", BASE)


def run_e2e(scripted: list[httpx.Response]) -> None:
    with respx.mock() as router:
        router.post(f"{BASE}/chat/completions").mock(side_effect=scripted)
        e2e.run_live(load_implementation("reference"), live=True)


@pytest.mark.usefixtures("live")
def test_the_e2e_passes_when_every_later_request_reads_the_cache() -> None:
    run_e2e(responses())


@pytest.mark.usefixtures("live")
def test_the_e2e_fails_without_cache_reads() -> None:
    with pytest.raises(AssertionError, match="request 2 read nothing from the cache"):
        run_e2e(responses(second_hit=0))


@pytest.mark.usefixtures("live")
def test_the_e2e_fails_when_hit_and_miss_do_not_add_up() -> None:
    with pytest.raises(AssertionError, match="prompt_cache_miss_tokens"):
        run_e2e(responses(second_miss_delta=1))


@pytest.mark.usefixtures("live")
def test_the_e2e_fails_when_turn_1_calls_no_tool() -> None:
    with pytest.raises(AssertionError, match="turn 1 must call the tool"):
        run_e2e(responses()[1:])


@pytest.mark.usefixtures("live")
def test_the_e2e_fails_when_the_answer_lacks_the_value() -> None:
    with pytest.raises(AssertionError, match="It is azure-falcon-0"):
        run_e2e(responses(value="azure-falcon-0"))


@pytest.mark.usefixtures("live")
def test_the_e2e_fails_when_a_request_does_not_extend_the_previous_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A wrong serializer that sends the system message after the history: each body is valid
    JSON, but request 2's messages no longer start with request 1's."""
    right = wire.wire_messages

    def system_last(request: Json) -> list[Json]:
        (system, *history) = right(request)
        return [*history, system]

    monkeypatch.setattr(wire, "wire_messages", system_last)
    with pytest.raises(AssertionError, match="request 2 does not extend request 1"):
        run_e2e(responses())


def test_skip_reasons() -> None:
    """Only ``--live`` runs it (the plugin refuses ``--live`` without a key or in CI)."""
    reference = load_implementation("reference")
    assert str(e2e._skip_reason(reference, False)).startswith("live not run:")
    assert "add --live" in str(e2e._skip_reason(reference, False))
    assert e2e._skip_reason(reference, True) is None
    other = load_implementation("dsh-reference-harness")
    try:
        assert str(e2e._skip_reason(other, True)).startswith("not applicable:")
    finally:
        other.close()
