"""PROMPT-DEEPSEEK-WIRE: the request body, headers and message serialization
(dsh_reference.deepseek).

Expected values are the contract's rules and the upstream's own examples
(`upstream/deepseek-adapter.md` §1-§2), written out by hand.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from dsh_reference.deepseek import (
    chat_url,
    check_api_key,
    encode_body,
    request_body,
    request_headers,
    wire_messages,
)
from dsh_reference.llm import LlmError

Json = Any


def user(*blocks: Json) -> Json:
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks: Json) -> Json:
    return {"role": "assistant", "content": list(blocks)}


def text(value: str) -> Json:
    return {"type": "text", "text": value}


def reasoning(value: str) -> Json:
    return {"type": "reasoning", "text": value}


def call(call_id: str, name: str, arguments: str) -> Json:
    return {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}


def result(call_id: str, *blocks: Json) -> Json:
    return {"type": "tool-result", "toolCallId": call_id, "content": list(blocks)}


def request(*messages: Json, **fields: Json) -> Json:
    return {
        "provider": "deepseek-official",
        "model": "deepseek-v4-flash",
        "messages": list(messages),
        **fields,
    }


def test_a_bare_request_has_exactly_the_four_fixed_keys_in_order() -> None:
    body = request_body(request(user(text("hi"))))
    assert list(body) == ["model", "messages", "stream", "stream_options"]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


def test_every_optional_field_in_the_contractual_order() -> None:
    tool = {"name": "get_weather", "description": "Get it.", "parameters": {"type": "object"}}
    body = request_body(
        request(
            user(text("hi")),
            stop=["END"],
            maxTokens=100,
            temperature=0.2,
            tools=[tool],
            reasoningEffort="high",
            system="S",
            sessionId="s1",
        )
    )
    assert list(body) == [
        "model",
        "messages",
        "stream",
        "stream_options",
        "thinking",
        "reasoning_effort",
        "tools",
        "temperature",
        "max_tokens",
        "stop",
    ]
    assert body["thinking"] == {"type": "enabled"}
    assert body["reasoning_effort"] == "high"
    assert body["tools"] == [{"type": "function", "function": tool}]
    assert list(body["tools"][0]) == ["type", "function"]
    assert list(body["tools"][0]["function"]) == ["name", "description", "parameters"]
    assert (body["temperature"], body["max_tokens"], body["stop"]) == (0.2, 100, ["END"])


def test_absent_null_and_empty_fields_are_omitted_never_null() -> None:
    body = request_body(request(user(), tools=[], temperature=None, maxTokens=None, stop=None))
    assert list(body) == ["model", "messages", "stream", "stream_options"]
    assert "null" not in encode_body(body).decode()


def test_the_bytes_sent_read_back_as_the_body_in_its_key_order() -> None:
    body = request_body(
        request(user(text("é 😀")), system="S", reasoningEffort="high", temperature=0, stop=["E"])
    )
    sent = json.loads(encode_body(body))
    assert sent == body
    assert list(sent) == list(body)


def test_temperature_zero_counts_as_set() -> None:
    assert request_body(request(user(), temperature=0))["temperature"] == 0


def test_effort_off_disables_thinking_and_sends_no_effort() -> None:
    body = request_body(request(user(), reasoningEffort="off"))
    assert body["thinking"] == {"type": "disabled"}
    assert "reasoning_effort" not in body


def test_an_unknown_effort_is_rejected_before_anything_is_sent() -> None:
    with pytest.raises(LlmError) as raised:
        request_body(request(user(), reasoningEffort="medium"))
    assert raised.value.code == "UNSUPPORTED_REASONING_EFFORT"


def test_no_cache_directive_anywhere() -> None:
    body = encode_body(request_body(request(user(text("x")), system="S", sessionId="s"))).decode()
    for directive in ("cache_control", "cacheControl", "prompt_cache_key", "ephemeral"):
        assert directive not in body


def test_system_first_then_user_text_blocks_joined() -> None:
    messages = wire_messages(request(user(text("hello "), text("world")), system="S"))
    assert messages == [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "hello world"},
    ]


def test_an_empty_user_message_is_sent_as_empty_content() -> None:
    assert wire_messages(request(user())) == [{"role": "user", "content": ""}]


def test_tool_results_follow_the_user_text_whatever_the_block_order() -> None:
    message = user(result("c1", text("one")), text("see"), result("c2"))
    assert wire_messages(request(message)) == [
        {"role": "user", "content": "see"},
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
        {"role": "tool", "tool_call_id": "c2", "content": "(no output)"},
    ]


def test_a_user_message_of_only_tool_results_emits_no_user_message() -> None:
    assert wire_messages(request(user(result("c1", text("a"), text("b"))))) == [
        {"role": "tool", "tool_call_id": "c1", "content": "ab"}
    ]


def test_assistant_tool_call_turn_has_empty_string_content_and_reasoning() -> None:
    message = assistant(
        reasoning("I should check the weather."), call("call-1", "get_weather", '{"city":"Paris"}')
    )
    (wire,) = wire_messages(request(message))
    assert wire == {
        "role": "assistant",
        "content": "",
        "reasoning_content": "I should check the weather.",
        "tool_calls": [
            {
                "id": "call-1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            }
        ],
    }
    assert list(wire) == ["role", "content", "reasoning_content", "tool_calls"]


def test_assistant_without_reasoning_or_calls_has_only_role_and_content() -> None:
    assert wire_messages(request(assistant())) == [{"role": "assistant", "content": ""}]
    assert wire_messages(request(assistant(reasoning(""), text("a"), text("b")))) == [
        {"role": "assistant", "content": "ab"}
    ]


def test_a_system_message_in_the_history_stays_in_place() -> None:
    history = [user(text("a")), {"role": "system", "content": [text("x"), text("y")]}]
    assert wire_messages(request(*history))[1] == {"role": "system", "content": "xy"}


def test_unknown_blocks_are_skipped_and_images_rejected() -> None:
    assert wire_messages(request(user({"type": "plugin-thing"}, text("a")))) == [
        {"role": "user", "content": "a"}
    ]
    with pytest.raises(LlmError) as raised:
        wire_messages(request(user({"type": "image", "attachment": {}})))
    assert raised.value.code == "UNSUPPORTED_CONTENT"


@pytest.mark.parametrize(
    ("bad", "where"),
    [
        (request(user(text("a")), model=7), "request.model"),
        ({"model": "m", "messages": "hi"}, "request.messages"),
        (request({"role": "robot", "content": []}), "request.messages[0].role"),
        (request(user({"type": "text"})), "request.messages[0].content[0]"),
        (request(assistant({"type": "tool-call", "id": "c"})), "request.messages[0].content[0]"),
        (request(user({"type": "tool-result", "content": []})), "request.messages[0].content[0]"),
        (request(user(), tools=[{"description": "x"}]), "request.tools[0]"),
    ],
)
def test_bad_requests_say_what_is_wrong_and_where(bad: Json, where: str) -> None:
    with pytest.raises(ValueError, match=f"^{where.replace('[', '.').replace(']', '.')}"):
        request_body(bad)


def test_the_body_encodes_like_json_stringify_and_is_deterministic() -> None:
    body = request_body(request(user(text("héllo \u2028")), temperature=0.5))
    encoded = encode_body(body)
    assert encoded == encode_body(json.loads(encoded))
    assert encoded.startswith(b'{"model":"deepseek-v4-flash","messages":[{"role":"user"')
    assert "héllo".encode() in encoded


def test_surrogates_are_written_as_json_stringify_writes_them() -> None:
    """A pair is one character, written as is; a lone surrogate is a lowercase escape."""
    encoded = encode_body({"s": "\ud83d\ude00 \ud800 \udfff\ud800", "\udc00": "\x01"})
    assert encoded == '{"s":"😀 \\ud800 \\udfff\\ud800","\\udc00":"\\u0001"}'.encode()
    assert json.loads(encoded) == {"s": "😀 \ud800 \udfff\ud800", "\udc00": "\x01"}


def test_headers_url_and_key_checks() -> None:
    assert request_headers("sk-x") == {
        "authorization": "Bearer sk-x",
        "content-type": "application/json",
        "accept": "text/event-stream",
    }
    assert chat_url("https://api.deepseek.com") == "https://api.deepseek.com/chat/completions"
    assert chat_url("http://h/") == "http://h//chat/completions"
    assert check_api_key("\ufeff sk-abc \u3000\n") == "sk-abc"
    for raw, code in [
        (None, "MISSING_CREDENTIAL"),
        ("", "MISSING_CREDENTIAL"),
        ("  ", "INVALID_CREDENTIAL"),
        ("\x1csk-abc", "INVALID_CREDENTIAL"),
    ]:
        with pytest.raises(LlmError, match=code):
            check_api_key(raw)
    with pytest.raises(LlmError) as raised:
        check_api_key("sk bad")
    assert raised.value.code == "INVALID_CREDENTIAL"
    assert "sk bad" not in str(raised.value)
