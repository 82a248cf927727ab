"""Wire goldens: each named scenario's request as it goes over the wire (PROMPT-DEEPSEEK-WIRE).

The snapshots live in ``golden/deepseek/`` at the top of the repository, one JSON file per
scenario: the URL, the headers (with a fixed fake key) and the body. Key order is contractual, and
syrupy's own JSON extension sorts keys, so `OrderedJSON` writes the values as they are. Update
them after an intended change with ``python -m pytest tests/reference/test_deepseek_golden.py
--snapshot-update`` and review the diff: it is the wire change.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.json import JSONSnapshotExtension
from syrupy.location import PyTestLocation
from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData, SerializedData

from reference.deepseek import chat_url, encode_body, request_body, request_headers

Json = Any
GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "deepseek"
FAKE_KEY = "sk-golden-fake-key"


class OrderedJSON(JSONSnapshotExtension):
    """JSON snapshots in ``golden/deepseek/`` that keep every object's key order."""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(GOLDEN)

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> SerializedData:
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@pytest.fixture
def golden(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(OrderedJSON)


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

SCENARIOS: dict[str, Json] = {
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


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_wire_golden(golden: SnapshotAssertion, scenario: str) -> None:
    request = SCENARIOS[scenario]
    body = request_body(request)
    # The body that is sent is exactly the golden's body, re-read in order.
    assert json.loads(encode_body(body)) == body
    assert golden == {
        "method": "POST",
        "url": chat_url("https://api.deepseek.com"),
        "headers": request_headers(FAKE_KEY),
        "body": body,
    }
