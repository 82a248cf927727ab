"""Wire goldens (PROMPT-DEEPSEEK-WIRE): each named scenario's request as it goes over the wire.

Capability ``deepseek-wire``: the implementation serializes each scenario's request
(``deepseek-request``, with a fixed fake key and the official base URL) and the method, URL,
headers and body must be ``golden/deepseek/<scenario>.json``, byte for byte: key order is
contractual, so the files keep it (`dsh_conformance.run.goldens.OrderedGoldenFiles`). Of the headers
only the three of the contract are judged, their names case-insensitively: a real adapter adds its
own (a user agent, an id header), which the contract leaves free.

Update after an intended wire change (from a checkout): ``python -m pytest
dsh_conformance/test_golden_wire.py --snapshot-update`` and review the diff of ``golden/``: it is
the wire change.
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from .harness.transport import Implementation
from .judge.case import Case
from .run.execute import check
from .run.goldens import OrderedGoldenFiles, assert_golden

Json = Any
CONTRACT: Final = "PROMPT-DEEPSEEK-WIRE"
FAKE_KEY: Final = "sk-golden-fake-key"
BASE_URL: Final = "https://api.deepseek.com"
#: The headers PROMPT-DEEPSEEK-WIRE names, in the goldens' order.
CONTRACT_HEADERS: Final = ("authorization", "content-type", "accept")
WHY: Final = (
    "POST {base}/chat/completions with `authorization: Bearer <key>`, `content-type: "
    "application/json`, `accept: text/event-stream`; body keys in order `model`, `messages`, "
    "`stream: true`, `stream_options: {include_usage: true}`, then `thinking`, "
    "`reasoning_effort`, `tools`, `temperature`, `max_tokens`, `stop`, only those that are set."
)


class WireGoldens(OrderedGoldenFiles):
    """``golden/deepseek/<scenario>.json``, every object's key order kept."""

    golden_set = "deepseek"


def text(value: str) -> Json:
    return {"type": "text", "text": value}


WEATHER = {
    "name": "get_weather",
    "description": "Get the current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "City name"}},
        "required": ["city"],
    },
}
CONFIG = {"provider": "deepseek-official", "model": "deepseek-v4-pro", "reasoningEffort": "high"}
SYSTEM = "You are an AI agent powered by DeepSeek Harness."
ASK = {"role": "user", "content": [text("What is the weather in Paris right now?")]}
CALL = {
    "role": "assistant",
    "content": [
        {"type": "reasoning", "text": "I should check the weather."},
        {
            "type": "tool-call",
            "id": "call_00_x",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
    ],
}
RESULT = {
    "role": "user",
    "content": [
        {"type": "tool-result", "toolCallId": "call_00_x", "content": [text("Sunny, 22°C")]}
    ],
}
ANSWER = {"role": "assistant", "content": [text("It is sunny and 22°C in Paris.")]}
FOLLOW_UP = {"role": "user", "content": [text("And tomorrow?")]}

SCENARIOS: Final[dict[str, Json]] = {
    "first-request": {**CONFIG, "messages": [ASK], "system": SYSTEM, "tools": [WEATHER]},
    "after-a-tool-call": {
        **CONFIG,
        "messages": [ASK, CALL, RESULT],
        "system": SYSTEM,
        "tools": [WEATHER],
    },
    "follow-up-turn": {
        **CONFIG,
        "messages": [ASK, CALL, RESULT, ANSWER, FOLLOW_UP],
        "system": SYSTEM,
        "tools": [WEATHER],
    },
    "reasoning-content": {
        "provider": "deepseek-official",
        "model": "deepseek-v4-flash",
        "reasoningEffort": "low",
        "maxTokens": 2000,
        "messages": [
            {"role": "user", "content": [text("Which is larger, 9.11 or 9.8?")]},
            {
                "role": "assistant",
                "content": [{"type": "reasoning", "text": "Compare 0.11 with 0.8."}, text("9.8")],
            },
            {"role": "user", "content": [text("Why?")]},
        ],
    },
    "empty-user-message": {
        "provider": "deepseek-official",
        "model": "deepseek-v4-flash",
        "reasoningEffort": "off",
        "temperature": 0,
        "stop": ["END"],
        "messages": [{"role": "user", "content": []}],
    },
}


@pytest.mark.contract(CONTRACT)
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_wire_request_matches_the_golden(
    impl: Implementation, scenario: str, snapshot: SnapshotAssertion
) -> None:
    """Each scenario's request (URL, headers, body in order) is golden/deepseek/<name>.json."""
    op = {
        "op": "deepseek-request",
        "request": SCENARIOS[scenario],
        "apiKey": FAKE_KEY,
        "baseUrl": BASE_URL,
    }
    case = Case(
        id=f"golden/deepseek/{scenario}",
        contracts=(CONTRACT,),
        why=WHY,
        ops=(op,),
        requires=("deepseek-wire",),
    )
    (observed,) = check(impl, case)
    sent = observed.get("request", observed) if isinstance(observed, dict) else observed
    assert_golden(snapshot, WireGoldens, scenario, contractual_headers_only(sent))


def contractual_headers_only(sent: Json) -> Json:
    """``sent`` with its headers cut down to the contract's three, names lower-cased, in the
    contract's order; anything that is not a request with a header object is left as is."""
    if not isinstance(sent, dict) or not isinstance(sent.get("headers"), dict):
        return sent
    lowered = {str(name).lower(): value for name, value in sent["headers"].items()}
    headers = {name: lowered[name] for name in CONTRACT_HEADERS if name in lowered}
    return {key: headers if key == "headers" else value for key, value in sent.items()}
