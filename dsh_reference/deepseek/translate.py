"""From SSE payloads to stream chunks: deltas to blocks, finish and usage (PROMPT-DEEPSEEK-WIRE).

CONTRACTS.md:

    Stream: SSE `data:` payloads up to `[DONE]`; EOF without it → `STREAM_CLOSED`; bad JSON →
    `MALFORMED_RESPONSE`; `finish_reason` `stop` / `tool_calls` / `length` → stop / tool-calls /
    max-tokens, others → error with the reason uppercased; usage (on the finish chunk or a trailing
    usage-only chunk, last wins): [...] A `stop` finish with no content at all is `EMPTY_RESPONSE`.

    A `data:` payload that is blank, not JSON, or JSON that is not a chunk object of the expected
    shape is `MALFORMED_RESPONSE`.

The block rules follow the upstream translator (`upstream/deepseek-adapter.md` §3.5): at most one
reasoning block and one text block, one tool-call block per wire ``tool_calls[].index``, block
indices in order of first appearance; deltas stream as they arrive, and at ``[DONE]`` come the
``block-end`` chunks in opening order, then ``usage`` if any arrived, then exactly one ``finish``.
Sans-IO: `StreamReader` takes bytes and returns chunks.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any, Final

from ..llm import LlmError, TokenUsage, failure_chunk
from ..model_adapter import Chunk
from .sse import SSEDecoder

Json = Any

DONE: Final = "[DONE]"

#: Wire ``finish_reason`` → finish kind; anything else is an error coded as the reason uppercased.
FINISH_KINDS: Final = {"stop": "stop", "tool_calls": "tool-calls", "length": "max-tokens"}


def map_finish(reason: str) -> Json:
    if reason in FINISH_KINDS:
        return {"kind": FINISH_KINDS[reason]}
    return {
        "kind": "error",
        "failure": {"message": f"model stopped: {reason}", "code": reason.upper()},
    }


def map_usage(usage: Json) -> TokenUsage:
    """``cacheReadTokens`` = ``prompt_tokens_details.cached_tokens`` else
    ``prompt_cache_hit_tokens``; ``inputTokens`` = ``prompt_tokens`` - cache reads;
    ``outputTokens`` = ``completion_tokens``; ``reasoningTokens`` from
    ``completion_tokens_details``. A count present as 0 is reported; an absent one is not."""
    cache_read = _count(usage.get("prompt_tokens_details"), "cached_tokens")
    if cache_read is None:
        cache_read = _count(usage, "prompt_cache_hit_tokens")
    mapped: TokenUsage = {
        "inputTokens": _required_count(usage, "prompt_tokens") - (cache_read or 0),
        "outputTokens": _required_count(usage, "completion_tokens"),
    }
    if cache_read is not None:
        mapped["cacheReadTokens"] = cache_read
    reasoning = _count(usage.get("completion_tokens_details"), "reasoning_tokens")
    if reasoning is not None:
        mapped["reasoningTokens"] = reasoning
    return mapped


class StreamTranslator:
    """Payloads in, chunks out; `done` once ``[DONE]`` has been translated."""

    def __init__(self) -> None:
        self.done = False
        # Each block's fixed fields, and its text or arguments as the pieces that arrived: joined
        # once at the end, so a long answer in many deltas costs linear time.
        self._blocks: list[dict[str, Json]] = []
        self._pieces: list[list[str]] = []
        self._text: int | None = None
        self._reasoning: int | None = None
        self._tool_calls: dict[int, int] = {}
        self._finish: Json = None
        self._usage: TokenUsage | None = None

    def payload(self, data: str) -> list[Chunk]:
        if self.done:
            return []  # "Anything after it is ignored."
        if data == DONE:
            self.done = True
            return self._final()
        chunk = _parse(data)
        out: list[Chunk] = []
        for entry in chunk.get("choices") or []:
            choice = _object(entry, "choices[]", data)
            if choice is None:
                raise _malformed("choices[] is null", data)
            delta = _object(choice.get("delta"), "choices[].delta", data) or {}
            self._append_text(out, "reasoning", _text(delta, "reasoning_content", data))
            self._append_text(out, "text", _text(delta, "content", data))
            for call in _list(delta.get("tool_calls"), "delta.tool_calls", data):
                self._append_call(out, call, data)
            reason = choice.get("finish_reason")
            if reason is not None:
                if not isinstance(reason, str):
                    raise _malformed("finish_reason is not a string", data)
                self._finish = map_finish(reason)
        usage = chunk.get("usage")
        if usage is not None:
            try:
                self._usage = map_usage(_object(usage, "usage", data))
            except (TypeError, ValueError) as error:
                raise _malformed(f"usage: {error}", data) from None
        return out

    def _open(self, out: list[Chunk], block: dict[str, Json]) -> int:
        index = len(self._blocks)
        self._blocks.append(block)
        self._pieces.append([])
        out.append({"type": "block-start", "index": index, "blockType": block["type"]})
        return index

    def _append_text(self, out: list[Chunk], kind: str, text: str | None) -> None:
        """A non-empty string opens the block on first sight and appends; ``""``/null do not."""
        if not text:
            return
        index = self._reasoning if kind == "reasoning" else self._text
        if index is None:
            index = self._open(out, {"type": kind})
            if kind == "reasoning":
                self._reasoning = index
            else:
                self._text = index
        self._pieces[index].append(text)
        out.append({"type": f"{kind}-delta", "index": index, "text": text})

    def _append_call(self, out: list[Chunk], call: Json, data: str) -> None:
        call = _object(call, "tool_calls[]", data)
        if call is None:
            raise _malformed("tool_calls[] is null", data)
        wire_index = call.get("index")
        if not isinstance(wire_index, int) or isinstance(wire_index, bool):
            raise _malformed("tool_calls[].index is not an integer", data)
        function = _object(call.get("function"), "tool_calls[].function", data) or {}
        call_id, name = _text(call, "id", data), _text(function, "name", data)
        arguments = _text(function, "arguments", data) or ""
        if wire_index not in self._tool_calls:
            block = {"type": "tool-call", "id": "", "name": ""}
            self._tool_calls[wire_index] = self._open(out, block)
        index = self._tool_calls[wire_index]
        block = self._blocks[index]
        if call_id is not None:
            block["id"] = call_id
        if name is not None:
            block["name"] = name
        self._pieces[index].append(arguments)
        delta: Chunk = {"type": "tool-call-delta", "index": index, "id": block["id"]}
        if block["name"]:
            delta["name"] = block["name"]
        delta["argumentsDelta"] = arguments
        out.append(delta)

    def _assembled(self, index: int) -> dict[str, Json]:
        block = dict(self._blocks[index])
        block["arguments" if block["type"] == "tool-call" else "text"] = "".join(
            self._pieces[index]
        )
        return block

    def _final(self) -> list[Chunk]:
        out: list[Chunk] = [
            {"type": "block-end", "index": index, "block": self._assembled(index)}
            for index in range(len(self._blocks))
        ]
        if self._usage is not None:
            out.append({"type": "usage", "usage": self._usage})
        finish = self._finish or {"kind": "stop"}
        if finish["kind"] == "stop" and not self._blocks:
            message = "model returned a completed response with no content"
            finish = {"kind": "error", "failure": {"message": message, "code": "EMPTY_RESPONSE"}}
        out.append({"type": "finish", "reason": finish})
        return out


class StreamReader:
    """Bytes in, chunks out: `SSEDecoder` then `StreamTranslator`.

    `feed` and `close` are generators, so the chunks of the payloads before a bad one are
    delivered before its `LlmError` is raised.
    """

    def __init__(self) -> None:
        self._decoder = SSEDecoder()
        self._translator = StreamTranslator()

    @property
    def done(self) -> bool:
        return self._translator.done

    def feed(self, data: bytes) -> Iterator[Chunk]:
        return self._translate(self._decoder.feed(data))

    def close(self) -> Iterator[Chunk]:
        """End of the body: the last chunks, or ``STREAM_CLOSED`` if ``[DONE]`` never came."""
        yield from self._translate(self._decoder.close())
        if not self.done:
            raise LlmError("STREAM_CLOSED", "SSE stream ended without [DONE]")

    def _translate(self, payloads: list[str]) -> Iterator[Chunk]:
        for payload in payloads:
            yield from self._translator.payload(payload)


def translate_stream(parts: list[bytes]) -> list[Chunk]:
    """The whole translation of a body received as ``parts``; a failure ends it as the loop sees
    it, with one ``finish`` chunk of kind ``error`` after the chunks already produced."""
    reader = StreamReader()
    chunks: list[Chunk] = []
    try:
        for part in parts:
            chunks.extend(reader.feed(part))
            if reader.done:
                return chunks
        chunks.extend(reader.close())
    except LlmError as error:
        chunks.append(failure_chunk(error.failure))
    return chunks


# -- shape checks -------------------------------------------------------------------------------


def _malformed(problem: str, data: str) -> LlmError:
    return LlmError("MALFORMED_RESPONSE", f"malformed SSE payload ({problem}): {data[:120]}")


def _parse(data: str) -> dict[str, Json]:
    try:
        chunk = json.loads(data, parse_constant=_reject_constant)
    except ValueError:
        raise _malformed("not JSON", data) from None
    if not isinstance(chunk, dict):
        raise _malformed("not a JSON object", data)
    _list(chunk.get("choices"), "choices", data)
    return chunk


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _object(value: Json, where: str, data: str) -> dict[str, Json] | None:
    if value is not None and not isinstance(value, dict):
        raise _malformed(f"{where} is not an object", data)
    return value


def _list(value: Json, where: str, data: str) -> list[Json]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _malformed(f"{where} is not a list", data)
    return value


def _text(container: dict[str, Json], key: str, data: str) -> str | None:
    value = container.get(key)
    if value is not None and not isinstance(value, str):
        raise _malformed(f"{key} is not a string", data)
    return value


def _count(container: Json, key: str) -> int | None:
    if container is None:
        return None
    if not isinstance(container, dict):
        raise TypeError(f"expected an object holding {key}")
    value = container.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"{key} is not a token count: {value!r}")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise ValueError(f"{key} is not a whole number: {value!r}")
    return int(value)


def _required_count(usage: Json, key: str) -> int:
    value = _count(usage, key)
    if value is None:
        raise ValueError(f"{key} is missing")
    return value
