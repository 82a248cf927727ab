"""The PROMPT-CACHE-E2E prefix check on raw bodies: it finds the ``messages`` array exactly, lets
every stable serializer through, and names where an unstable one first differs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

import dsh_conformance
from dsh_conformance.deepseek.cache_conversation import (
    HISTORIES,
    conversation_case,
    conversation_problems,
)
from dsh_conformance.deepseek.loopback import Recorded
from dsh_conformance.harness.protocol import run_message
from dsh_conformance.judge.prefix_stability import BodyShapeError, prefix_problems, top_level_span

Json = Any
SCHEMA = json.loads(
    (Path(dsh_conformance.__file__).parent / "harness" / "protocol.schema.json").read_text()
)
SYSTEM = {"role": "system", "content": "Be brief — and exact."}
MESSAGES = [
    SYSTEM,
    {"role": "user", "content": "Weather in Zürich?"},
    {"role": "assistant", "content": "", "reasoning_content": "Check it."},
    {"role": "tool", "tool_call_id": "c1", "content": "Sunny, 22°C"},
]
TOOLS = [{"type": "function", "function": {"name": "get_weather"}}]


def encode(messages: list[Json], indent: int | None = None, **extra: Json) -> bytes:
    body = {"model": "m", "messages": messages, "stream": True, **extra}
    separators = (",", ":") if indent is None else None
    return json.dumps(body, ensure_ascii=False, indent=indent, separators=separators).encode()


def conversation(indent: int | None = None, **extra: Json) -> list[bytes]:
    return [encode(MESSAGES[:count], indent, **extra) for count in (2, 3, 4)]


@pytest.mark.parametrize("indent", [None, 0, 2])
def test_a_stable_serializer_passes_compact_or_pretty_printed(indent: int | None) -> None:
    assert prefix_problems(conversation(indent, tools=TOOLS)) == []


def test_the_span_is_found_by_decoding_not_by_searching() -> None:
    body = b'{"model":"\\"messages\\":[1]","x":{"messages":[]},"\\u006dessages" : [ 1 , "]" ] }'
    span = top_level_span(body, "messages")
    assert span is not None
    assert body[span.start : span.end] == b'[ 1 , "]" ]'
    assert body[: span.prefix_end].endswith(b'[ 1 , "]"')
    assert [body[start:end] for start, end in span.elements] == [b"1", b'"]"']
    assert top_level_span(b'{"model":"m"}', "messages") is None
    empty = top_level_span(b'{"messages":[ ]}', "messages")
    assert empty is not None and (empty.prefix_end, empty.elements) == (13, ())


def test_offsets_are_bytes_of_the_utf8_body() -> None:
    body = '{"model":"é—","messages":["ü"]}'.encode()
    span = top_level_span(body, "messages")
    assert span is not None and body[span.start : span.end] == '["ü"]'.encode()


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"[1]", "not a JSON object"),
        (b'{"messages":[1],"messages":[2]}', "twice"),
        (b'{"messages":[1', "not JSON"),
        (b'{"messages":[1]', "no ',' or '}'"),
        (b'{"messages":[1]}{}', "goes on after its object"),
        (b"\xff{}", "not UTF-8"),
    ],
)
def test_a_body_of_the_wrong_shape_is_named(body: bytes, problem: str) -> None:
    with pytest.raises(BodyShapeError, match=problem):
        top_level_span(body, "messages")
    (reported,) = prefix_problems([body])
    assert reported.startswith("request 1: ") and problem in reported


def test_a_body_without_a_messages_array_is_a_problem() -> None:
    (problem,) = prefix_problems([b'{"messages":"none"}'])
    assert "no `messages` array" in problem


def test_the_first_difference_is_named_by_request_byte_and_message() -> None:
    bodies = conversation()
    changed = [*MESSAGES[:2], {"role": "assistant", "content": ""}, MESSAGES[3]]
    bodies[2] = encode(changed)
    (problem,) = prefix_problems(bodies)
    offset = bodies[1].index(b',"reasoning_content"')
    assert problem.startswith(
        f"request 3's body does not extend request 2's messages byte for byte: the first "
        f"difference is at byte {offset} (inside messages[2] of request 2)"
    )
    # Request 2's bytes are shown up to the end of its last message, and no further.
    assert '⟨here⟩ b\',"reasoning_content":"Check it."}\'\n' in problem
    assert '⟨here⟩ b\'},{"role":"tool","tool_call_id":"c1","co\'…' in problem


def test_a_byte_changed_inside_an_earlier_system_message_is_caught() -> None:
    bodies = conversation()
    bodies[1] = bodies[1].replace("—".encode(), b"-")
    first, second = prefix_problems(bodies)
    assert "request 2's body" in first and "inside messages[0] of request 1" in first
    assert "request 3's body" in second and "inside messages[0] of request 2" in second


def test_messages_that_do_not_grow_or_that_shrink_are_caught() -> None:
    bodies = conversation()
    (problem,) = prefix_problems([bodies[1], bodies[1]])
    assert problem == "request 2 sends 3 message(s), request 1 sent 3: the messages must grow"
    (problem,) = prefix_problems([bodies[2], bodies[1]])
    offset = bodies[1].index(b"]")
    assert f"at byte {offset} (after messages[2] of request 1)" in problem


def test_tools_bytes_must_stay_the_same() -> None:
    bodies = conversation(tools=TOOLS)
    bodies[1] = encode(
        MESSAGES[:3], tools=[{"function": {"name": "get_weather"}, "type": "function"}]
    )
    first, second = prefix_problems(bodies)
    assert first.startswith(
        "request 2 sends other `tools` bytes than request 1 for the same tools: the first "
        "difference is at byte 3 of the `tools` value"  # [{"t… against [{"f…
    )
    assert second.startswith("request 3 sends other `tools` bytes than request 2")
    bodies = conversation(tools=TOOLS)
    bodies[2] = encode(MESSAGES[:4])
    assert prefix_problems(bodies) == [
        "request 2 sends `tools` and request 3 none, for the same tools"
    ]


@given(
    st.lists(
        st.dictionaries(st.text(max_size=4), st.text(max_size=6), max_size=3),
        min_size=2,
        max_size=6,
    ),
    st.sampled_from([None, 1]),
    st.data(),
)
def test_any_growing_list_passes_and_any_changed_byte_is_found(
    messages: list[Json], indent: int | None, data: st.DataObject
) -> None:
    bodies = [encode(messages[:count], indent) for count in range(1, len(messages) + 1)]
    assert prefix_problems(bodies) == []
    earlier = data.draw(st.integers(0, len(bodies) - 2))
    span = top_level_span(bodies[earlier], "messages")
    assert span is not None
    offset = data.draw(st.integers(0, span.prefix_end - 1))
    later = bytearray(bodies[earlier + 1])
    later[offset] ^= 0x01
    (problem, *_) = prefix_problems([bodies[earlier], bytes(later)])
    assert problem.startswith("request 2: ") or f"at byte {offset} " in problem


def test_the_conversation_fits_the_schema_and_judges_the_request_count() -> None:
    built = conversation_case("http://127.0.0.1:8765")
    assert Draft202012Validator(SCHEMA).is_valid(run_message(built.id, built.scenario()))
    assert [len(op["request"]["messages"]) for op in built.ops] == [1, 3, 5]
    recorded = [Recorded("POST", "/chat/completions", {}, body) for body in conversation()]
    assert conversation_problems(recorded) == []
    assert conversation_problems(recorded[:2]) == [
        f"expected {len(HISTORIES)} requests to reach the server, got 2"
    ]
