"""PROMPT-DEEPSEEK-WIRE: SSE framing, deltas to blocks, finish and usage (dsh_reference.deepseek).

Each SSE rule of CONTRACTS.md ("lines end in LF, CR or CRLF (a stream ending in a bare CR still
ends that line), `:` lines are comments, multiple `data:` lines of one event join with `\\n`, a
leading BOM is dropped") has its own test, and every framing test also runs with the bytes split
at every possible position, so a split inside a UTF-8 sequence or a CRLF is covered. Sample bodies
are the upstream's (`upstream/deepseek-adapter.md` §7.2).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from dsh_reference.deepseek import SSEDecoder, StreamReader, map_usage, translate_stream
from dsh_reference.llm import LlmError

Json = Any
FIRST = '{"choices":[{"delta":{"role":"assistant","content":null,"reasoning_content":""}}]}'


def splits(data: bytes) -> list[list[bytes]]:
    """The body whole, byte by byte, and cut in two at every position."""
    cuts = [[data], [data[i : i + 1] for i in range(len(data))]]
    return cuts + [[data[:i], data[i:]] for i in range(1, len(data))]


def decode(parts: list[bytes]) -> list[str]:
    decoder = SSEDecoder()
    payloads = [payload for part in parts for payload in decoder.feed(part)]
    return payloads + decoder.close()


@pytest.mark.parametrize(
    ("body", "payloads"),
    [
        (b"data: a\n\ndata: b\n\n", ["a", "b"]),
        (b"data: a\r\n\r\ndata: b\r\n\r\n", ["a", "b"]),
        (b"data: a\r\rdata: b\r\r", ["a", "b"]),
        (b"data: a\n\r\ndata: b\r\n\n", ["a", "b"]),
        (b"data: a\r", []),
        (b"data: a\n\r", ["a"]),
        (b"data: a\r\r", ["a"]),
        (b"\xef\xbb\xbfdata: a\n\n", ["a"]),
        (b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\n", []),
        (b": keep-alive\n\ndata: a\n:comment\n\n", ["a"]),
        (b"data: a\ndata:b\ndata:  c\n\n", ["a\nb\n c"]),
        (b"data\n\n", [""]),
        (b"data:\n\n", [""]),
        (b"event: x\nid: 1\nretry: 5\n\n", []),
        (b"event: x\ndata: a\nfoo: bar\n\n", ["a"]),
        (b"data: a\n\ndata: b", ["a"]),
        (b"data: a\n", []),
        ("data: h\u00e9\u20ac\U0001f600\n\n".encode(), ["h\u00e9\u20ac\U0001f600"]),
        (b"data: \xff\n\n", ["\ufffd"]),
        (b"data: \xe2\x82\n\n", ["\ufffd"]),
        (b"\n\n\ndata: a\n\n", ["a"]),
    ],
    ids=[
        "lf",
        "crlf",
        "cr",
        "mixed-line-ends",
        "bare-cr-at-eof-ends-the-line-but-not-the-event",
        "bare-cr-at-eof-ends-the-blank-line",
        "cr-cr-at-eof",
        "bom-dropped",
        "only-one-bom-dropped",
        "comments",
        "multi-line-data-one-optional-space",
        "field-without-colon",
        "empty-data",
        "no-data-no-event",
        "other-fields-ignored",
        "unterminated-event-discarded",
        "unterminated-blank-line",
        "multibyte-utf8",
        "invalid-utf8-replaced",
        "truncated-utf8-replaced",
        "leading-blank-lines",
    ],
)
def test_sse_framing_survives_every_split(body: bytes, payloads: list[str]) -> None:
    for parts in splits(body):
        assert decode(parts) == payloads, parts


def test_a_truncated_utf8_sequence_at_eof_is_replaced_not_an_error() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: \xe2\x82") == []
    assert decoder.close() == []


def sse(*payloads: str, line_end: str = "\n") -> bytes:
    return "".join(f"data: {p}{line_end}{line_end}" for p in payloads).encode()


def translated(body: bytes) -> list[Json]:
    """The chunks of ``body``, checked to be the same for every split of it."""
    results = [translate_stream(parts) for parts in splits(body)]
    for other in results[1:]:
        assert _fold(other) == _fold(results[0])
    return results[0]


def _fold(chunks: list[Json]) -> list[Json]:
    """Chunks with consecutive deltas of one block merged: splits may cut a delta differently."""
    folded: list[Json] = []
    for chunk in chunks:
        last = folded[-1] if folded else None
        if (
            last is not None
            and chunk["type"] in ("text-delta", "reasoning-delta")
            and last["type"] == chunk["type"]
            and last["index"] == chunk["index"]
        ):
            folded[-1] = {**last, "text": last["text"] + chunk["text"]}
        else:
            folded.append(chunk)
    return folded


def kinds(chunks: list[Json]) -> list[str]:
    return [chunk["type"] for chunk in chunks]


def test_sample_a_minimal_text_with_usage_on_the_finish_chunk() -> None:
    chunks = translated(
        sse(
            FIRST,
            '{"choices":[{"delta":{"content":"hello"}}]}',
            '{"choices":[{"delta":{"content":""},"finish_reason":"stop"}],'
            '"usage":{"prompt_tokens":3,"completion_tokens":1}}',
            "[DONE]",
        )
    )
    assert chunks == [
        {"type": "block-start", "index": 0, "blockType": "text"},
        {"type": "text-delta", "index": 0, "text": "hello"},
        {"type": "block-end", "index": 0, "block": {"type": "text", "text": "hello"}},
        {"type": "usage", "usage": {"inputTokens": 3, "outputTokens": 1}},
        {"type": "finish", "reason": {"kind": "stop"}},
    ]


def arguments(fragment: str) -> str:
    """A chunk carrying one fragment of call 0's arguments (``fragment`` is JSON-escaped)."""
    call = '{"index":0,"function":{"arguments":"' + fragment + '"}}'
    return '{"choices":[{"delta":{"tool_calls":[' + call + "]}}]}"


def test_sample_b_a_tool_call_in_fragments() -> None:
    chunks = translated(
        sse(
            FIRST,
            '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_00_x","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}}]}',
            arguments('{\\"city\\"'),
            arguments(': \\"Paris\\"}'),
            '{"choices":[{"delta":{"content":""},"finish_reason":"tool_calls"}],'
            '"usage":{"prompt_tokens":28,"completion_tokens":6}}',
            "[DONE]",
        )
    )
    block = {
        "type": "tool-call",
        "id": "call_00_x",
        "name": "get_weather",
        "arguments": '{"city": "Paris"}',
    }
    assert chunks[0] == {"type": "block-start", "index": 0, "blockType": "tool-call"}
    deltas = [c for c in chunks if c["type"] == "tool-call-delta"]
    assert "".join(d["argumentsDelta"] for d in deltas) == block["arguments"]
    assert all(d["id"] == "call_00_x" and d["name"] == "get_weather" for d in deltas)
    assert chunks[-3:] == [
        {"type": "block-end", "index": 0, "block": block},
        {"type": "usage", "usage": {"inputTokens": 28, "outputTokens": 6}},
        {"type": "finish", "reason": {"kind": "tool-calls"}},
    ]


def test_sample_c_reasoning_then_text_without_usage() -> None:
    chunks = translated(
        sse(
            FIRST,
            '{"choices":[{"delta":{"content":null,"reasoning_content":"think"}}]}',
            '{"choices":[{"delta":{"content":null,"reasoning_content":"ing"}}]}',
            '{"choices":[{"delta":{"content":"answer","reasoning_content":null}}]}',
            '{"choices":[{"delta":{},"finish_reason":"stop"}]}',
            "[DONE]",
        )
    )
    assert kinds(chunks) == [
        "block-start", "reasoning-delta", "reasoning-delta", "block-start", "text-delta",
        "block-end", "block-end", "finish",
    ]  # fmt: skip
    assert chunks[-3:] == [
        {"type": "block-end", "index": 0, "block": {"type": "reasoning", "text": "thinking"}},
        {"type": "block-end", "index": 1, "block": {"type": "text", "text": "answer"}},
        {"type": "finish", "reason": {"kind": "stop"}},
    ]


def test_sample_d_and_e_a_trailing_usage_chunk_wins_and_cache_reads_are_subtracted() -> None:
    chunks = translated(
        sse(
            FIRST,
            '{"choices":[{"delta":{"content":"ok"}}]}',
            '{"choices":[{"delta":{},"finish_reason":"stop"}],"usage":null}',
            '{"choices":[],"usage":{"prompt_tokens":283,"completion_tokens":69,'
            '"prompt_cache_hit_tokens":256,"prompt_cache_miss_tokens":27,'
            '"prompt_tokens_details":{"cached_tokens":256},'
            '"completion_tokens_details":{"reasoning_tokens":24}}}',
            "[DONE]",
            line_end="\r\n",
        )
    )
    usage = {"inputTokens": 27, "outputTokens": 69, "cacheReadTokens": 256, "reasoningTokens": 24}
    assert chunks[-2:] == [
        {"type": "usage", "usage": usage},
        {"type": "finish", "reason": {"kind": "stop"}},
    ]


@pytest.mark.parametrize(
    ("usage", "mapped"),
    [
        ({"prompt_tokens": 10, "completion_tokens": 2, "prompt_cache_hit_tokens": 8},
         {"inputTokens": 2, "outputTokens": 2, "cacheReadTokens": 8}),
        ({"prompt_tokens": 10, "completion_tokens": 2}, {"inputTokens": 10, "outputTokens": 2}),
        ({"prompt_tokens": 10, "completion_tokens": 2, "prompt_cache_hit_tokens": 8,
          "prompt_tokens_details": {"cached_tokens": 0}},
         {"inputTokens": 10, "outputTokens": 2, "cacheReadTokens": 0}),
        ({"prompt_tokens": 10, "completion_tokens": 2, "prompt_tokens_details": None,
          "completion_tokens_details": {"reasoning_tokens": 0}},
         {"inputTokens": 10, "outputTokens": 2, "reasoningTokens": 0}),
    ],
    ids=["hit-tokens-only", "no-cache-fields", "details-win-even-when-zero", "null-details"],
)  # fmt: skip
def test_usage_mapping(usage: Json, mapped: Json) -> None:
    assert map_usage(usage) == mapped
    assert list(map_usage(usage)) == list(mapped)


def finish_of(*payloads: str) -> Json:
    return translated(sse(*payloads))[-1]["reason"]


def failure_code(reason: Json) -> str:
    assert reason["kind"] == "error", reason
    code: str = reason["failure"]["code"]
    return code


def test_finish_reason_mapping() -> None:
    text = '{"choices":[{"delta":{"content":"x"},"finish_reason":"%s"}]}'
    assert finish_of(text % "length", "[DONE]") == {"kind": "max-tokens"}
    assert failure_code(finish_of(text % "content_filter", "[DONE]")) == "CONTENT_FILTER"
    assert (
        failure_code(finish_of(text % "insufficient_system_resource", "[DONE]"))
        == "INSUFFICIENT_SYSTEM_RESOURCE"
    )
    assert finish_of('{"choices":[{"delta":{"content":"x"}}]}', "[DONE]") == {"kind": "stop"}


def test_a_stop_with_no_content_is_empty_response_after_its_usage() -> None:
    chunks = translated(sse("{}", "[DONE]"))
    assert failure_code(chunks[-1]["reason"]) == "EMPTY_RESPONSE"
    chunks = translated(
        sse('{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0}}', "[DONE]")
    )
    assert kinds(chunks) == ["usage", "finish"]
    assert failure_code(chunks[-1]["reason"]) == "EMPTY_RESPONSE"


def test_reasoning_only_is_a_stop_and_length_without_blocks_passes_through() -> None:
    assert finish_of('{"choices":[{"delta":{"reasoning_content":"r"}}]}', "[DONE]") == {
        "kind": "stop"
    }
    assert finish_of('{"choices":[{"delta":{},"finish_reason":"length"}]}', "[DONE]") == {
        "kind": "max-tokens"
    }


def test_parallel_calls_by_index_and_missing_id_or_name() -> None:
    chunks = translated(
        sse(
            '{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"g","arguments":"{}"}},'
            '{"index":0,"function":{"arguments":"[1"}}]}}]}',
            '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"]"}}]},'
            '"finish_reason":"tool_calls"}]}',
            "[DONE]",
        )
    )
    ends = [c["block"] for c in chunks if c["type"] == "block-end"]
    assert ends == [
        {"type": "tool-call", "id": "b", "name": "g", "arguments": "{}"},
        {"type": "tool-call", "id": "", "name": "", "arguments": "[1]"},
    ]


@pytest.mark.parametrize(
    "body",
    [
        sse("{bad json", "[DONE]"),
        sse("", "[DONE]"),
        b"data:\n\ndata: [DONE]\n\n",
        sse("[1,2]", "[DONE]"),
        sse('{"choices":{}}', "[DONE]"),
        sse('{"choices":[7]}', "[DONE]"),
        sse('{"choices":[{"delta":{"content":5}}]}', "[DONE]"),
        sse('{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"x"}}]}}]}'),
        sse('{"choices":[{"delta":{"tool_calls":[{"index":true}]}}]}'),
        sse('{"choices":[{"delta":{"tool_calls":[null]}}]}'),
        sse('{"choices":[{"delta":{},"finish_reason":1}]}'),
        sse('{"choices":[],"usage":{"prompt_tokens":"3","completion_tokens":1}}'),
        sse('{"choices":[],"usage":{"completion_tokens":1}}'),
        sse('{"choices":[],"usage":{"prompt_tokens":NaN,"completion_tokens":1}}'),
    ],
    ids=[
        "bad-json",
        "blank-payload",
        "empty-data-line",
        "not-an-object",
        "choices-not-a-list",
        "choice-not-an-object",
        "content-not-a-string",
        "tool-call-without-index",
        "boolean-index",
        "null-tool-call",
        "finish-reason-not-a-string",
        "usage-count-a-string",
        "usage-without-prompt-tokens",
        "nan-literal",
    ],
)
def test_malformed_payloads(body: bytes) -> None:
    assert failure_code(translate_stream([body])[-1]["reason"]) == "MALFORMED_RESPONSE"


@pytest.mark.parametrize(
    "body",
    [b"", sse('{"a":1}'), b'data: {"choices":[]}\n', b"data: [DONE]\n", b"data: [DONE]"],
    ids=["empty", "no-done", "mid-event", "done-without-blank-line", "done-unterminated"],
)
def test_eof_without_done_is_stream_closed(body: bytes) -> None:
    chunks = translate_stream([body])
    assert failure_code(chunks[-1]["reason"]) == "STREAM_CLOSED"
    reader = StreamReader()
    list(reader.feed(body))
    with pytest.raises(LlmError, match="STREAM_CLOSED"):
        list(reader.close())


def test_nothing_after_done_is_read() -> None:
    chunks = translate_stream([sse('{"choices":[{"delta":{"content":"a"}}]}', "[DONE]", "{bad")])
    assert chunks[-1] == {"type": "finish", "reason": {"kind": "stop"}}
    assert kinds(chunks).count("finish") == 1


def test_deltas_before_a_failure_are_kept_and_the_failure_is_last() -> None:
    chunks = translate_stream([sse('{"choices":[{"delta":{"content":"a"}}]}', "{bad")])
    assert kinds(chunks) == ["block-start", "text-delta", "finish"]
    assert json.dumps(chunks[-1]).count("MALFORMED_RESPONSE") == 1
