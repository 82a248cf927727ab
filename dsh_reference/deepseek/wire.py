"""The request that goes over the wire: body, headers, URL (PROMPT-DEEPSEEK-WIRE). Sans-IO.

CONTRACTS.md:

    Body, keys in this order: `model`, `messages`, `stream: true`, `stream_options:
    {include_usage: true}`, then only when set: `thinking`, `reasoning_effort`, `tools`
    (non-empty; `{type: "function", function: {name, description, parameters}}`), `temperature`,
    `max_tokens`, `stop`. Never null, never any cache directive.

The message rules are quoted beside `wire_messages` and the functions it calls. Every dict here is
built in the contractual key order, and `encode_body` is deterministic, so consecutive requests of
one conversation extend each other byte for byte (the offline half of PROMPT-CACHE-E2E).

The serializers are looked up as module attributes at call time, so the wrong implementations of
``tests/gallery`` can replace exactly one rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from ..llm import LlmError
from ..model_adapter import Request

Json = Any

#: CONTRACTS.md, "Literal constants": the endpoint, its default base and the two variables.
DEFAULT_BASE_URL: Final = "https://api.deepseek.com"
BASE_URL_ENV: Final = "DEEPSEEK_BASE_URL"
API_KEY_ENV: Final = "DEEPSEEK_API_KEY"

#: The tool result text sent when a result has no text ("empty → `(no output)`").
NO_OUTPUT: Final = "(no output)"

#: Request efforts the upstream accepts; ``off`` switches thinking off and sends no effort.
REASONING_EFFORTS: Final = ("off", "low", "high", "max")

#: Config field → wire field, in the contractual order after ``tools``.
_SAMPLING: Final = (("temperature", "temperature"), ("maxTokens", "max_tokens"), ("stop", "stop"))

#: What JavaScript's ``String.prototype.trim`` removes: its WhiteSpace (TAB, VT, FF, U+FEFF and
#: every space separator, Zs) and LineTerminator (LF, CR, U+2028, U+2029) characters.
JS_WHITE_SPACE: Final = (
    "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)

#: The upstream's credential rule: printable ASCII without spaces, after trimming.
_KEY: Final = re.compile(r"[\x21-\x7e]+")

#: A surrogate pair, else one lone surrogate (a JSON string's text never holds them otherwise).
_SURROGATES: Final = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")


def chat_url(base_url: str) -> str:
    """``POST {base}/chat/completions``: the path is appended as is, with no normalization."""
    return f"{base_url}/chat/completions"


def checked_key(request: Request, raw_key: str | None) -> str:
    """The key to send, once the request has passed the refusals made before any I/O.

    CONTRACTS.md: "Refused before any I/O (nothing reaches the server), the first that applies
    of: an image block for a text-only model → `UNSUPPORTED_CONTENT`; no key or the empty string
    → `MISSING_CREDENTIAL`; [a malformed key] → `INVALID_CREDENTIAL`; a reasoning effort outside
    `off`/`low`/`high`/`max` → `UNSUPPORTED_REASONING_EFFORT`." Each raises `LlmError`.
    """
    wire_messages(request)  # an image block anywhere: UNSUPPORTED_CONTENT
    key = check_api_key(raw_key)
    reasoning_fields(request.get("reasoningEffort"))
    return key


def check_api_key(raw: str | None) -> str:
    """The key to send, or `LlmError` ``MISSING_CREDENTIAL`` / ``INVALID_CREDENTIAL``.

    "No key or the empty string → `MISSING_CREDENTIAL`; any other key is trimmed of white space
    as JavaScript's `String.prototype.trim` defines it [...] and must then be one or more
    characters U+0021-U+007E, else `INVALID_CREDENTIAL` (a key of only white space is
    `INVALID_CREDENTIAL`; the trimmed key is the one sent)." Python's `str.strip` is not that
    trim (it strips U+001C-U+001F and U+0085, and keeps U+FEFF), so the set is spelled out. The
    messages name the variable, never the value: the key must not reach any output.
    """
    if not raw:
        raise LlmError("MISSING_CREDENTIAL", f"no DeepSeek API key: set {API_KEY_ENV}")
    key = raw.strip(JS_WHITE_SPACE)
    if _KEY.fullmatch(key) is None:
        raise LlmError(
            "INVALID_CREDENTIAL",
            f"the DeepSeek API key in {API_KEY_ENV} must be printable ASCII without spaces",
        )
    return key


def request_headers(api_key: str) -> dict[str, str]:
    """``authorization: Bearer <key>``, ``content-type: application/json``,
    ``accept: text/event-stream`` (lowercase names, in this order)."""
    return {
        "authorization": f"Bearer {api_key}",
        "content-type": "application/json",
        "accept": "text/event-stream",
    }


def request_body(request: Request) -> dict[str, Json]:
    """The JSON body of one streaming chat-completions request, keys in the contractual order."""
    body: dict[str, Json] = {
        "model": _string(request, "model"),
        "messages": wire_messages(request),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    body.update(reasoning_fields(request.get("reasoningEffort")))
    tools = request.get("tools")
    if tools:
        body["tools"] = [wire_tool(tool, f"tools[{i}]") for i, tool in enumerate(tools)]
    for field, wire_name in _SAMPLING:
        value = request.get(field)
        if value is not None:
            body[wire_name] = value
    return body


def encode_body(body: Mapping[str, Json]) -> bytes:
    """``JSON.stringify`` of the body: compact, non-ASCII kept, no NaN; deterministic.

    A Python string may hold surrogates (JSON text can carry ``\\ud800``), which UTF-8 cannot
    encode. ``JSON.stringify`` sees UTF-16: a high surrogate followed by a low one is one
    character, written as is; a lone one is written as the escape ``\\udXXX`` in lowercase hex
    (CONTRACTS.md, PROMPT-DEEPSEEK-WIRE: "a lone surrogate in any string is written as the escape
    `\\udXXX` (lowercase hex), never as raw bytes and never as an encoding error").
    """
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _SURROGATES.sub(_stringify_surrogates, text).encode()


def _stringify_surrogates(match: re.Match[str]) -> str:
    pair = match.group()
    if len(pair) == 2:
        return chr(0x10000 + ((ord(pair[0]) - 0xD800) << 10) + (ord(pair[1]) - 0xDC00))
    return f"\\u{ord(pair):04x}"


def reasoning_fields(effort: Json) -> dict[str, Json]:
    """``thinking`` and ``reasoning_effort`` from the request's effort (upstream §1.4).

    ``off`` → ``thinking: {type: "disabled"}`` alone; ``low``/``high``/``max`` → ``thinking:
    {type: "enabled"}`` and the effort; no effort → neither field (the provider default applies).
    """
    if effort is None:
        return {}
    if effort not in REASONING_EFFORTS:
        raise LlmError(
            "UNSUPPORTED_REASONING_EFFORT",
            f"reasoningEffort {effort!r} is not one of {', '.join(REASONING_EFFORTS)}",
        )
    if effort == "off":
        return {"thinking": {"type": "disabled"}}
    return {"thinking": {"type": "enabled"}, "reasoning_effort": effort}


def wire_tool(tool: Json, where: str) -> Json:
    """``{type: "function", function: {name, description, parameters}}`` (no ``strict``)."""
    if not isinstance(tool, Mapping):
        raise ValueError(f"request.{where}: a tool schema must be an object, got {tool!r}")
    function = {key: tool[key] for key in ("name", "description", "parameters") if key in tool}
    if not isinstance(function.get("name"), str):
        raise ValueError(f"request.{where}: a tool schema needs a string `name`")
    return {"type": "function", "function": function}


# -- messages -----------------------------------------------------------------------------------


def wire_messages(request: Request) -> list[Json]:
    """The system text first as ``{role: "system"}`` when present, then the derived history.

    "When present" is the upstream's ``!== undefined``: an empty system string is still sent;
    ROOT-MODEL already makes the loop leave an empty system out.
    """
    messages = request.get("messages")
    if not isinstance(messages, list):
        raise ValueError("request.messages must be a list of messages")
    wire: list[Json] = []
    system = request.get("system")
    if system is not None:
        wire.append({"role": "system", "content": _string(request, "system")})
    for index, message in enumerate(messages):
        wire.extend(wire_message(message, f"messages[{index}]"))
    return wire


def wire_message(message: Json, where: str) -> list[Json]:
    """One history message as zero or more wire messages."""
    if not isinstance(message, Mapping) or not isinstance(message.get("content"), list):
        raise ValueError(f"request.{where} must be an object with a `content` list")
    role = message.get("role")
    if role == "user":
        return wire_user(message["content"], where)
    if role == "assistant":
        return [wire_assistant(message["content"], where)]
    if role == "system":
        # A system-role message inside the history stays where it is (it is not hoisted).
        return [{"role": "system", "content": joined_text(message["content"], "text", where)}]
    raise ValueError(f"request.{where}.role must be user, assistant or system, got {role!r}")


def wire_user(content: list[Json], where: str) -> list[Json]:
    """User text blocks joined into one string; each tool result its own ``role: "tool"``
    message, after the user text when both exist.

    "A user message holding only tool results emits no user message; an empty user message emits
    `{role: "user", content: ""}`." The results keep their block order, wherever the text was.
    """
    text = joined_text(content, "text", where)
    results = [wire_tool_result(block, f"{where}.content[{i}]") for i, block in _results(content)]
    if results and not text:
        return results
    return [{"role": "user", "content": text}, *results]


def wire_tool_result(block: Json, where: str) -> Json:
    """``{role: "tool", tool_call_id, content}``; an empty result text becomes ``(no output)``."""
    call_id = block.get("toolCallId")
    if not isinstance(call_id, str):
        raise ValueError(f"request.{where}: a tool-result needs a string `toolCallId`")
    inner = block.get("content")
    if not isinstance(inner, list):
        raise ValueError(f"request.{where}: a tool-result's `content` must be a list of blocks")
    return {
        "role": "tool",
        "tool_call_id": call_id,
        "content": joined_text(inner, "text", where) or NO_OUTPUT,
    }


def wire_assistant(content: list[Json], where: str) -> Json:
    """Assistant ``content`` always a string (``""``, never null), ``reasoning_content`` when
    non-empty, ``tool_calls`` ``[{id, type: "function", function: {name, arguments}}]``."""
    message: dict[str, Json] = {"role": "assistant", "content": joined_text(content, "text", where)}
    reasoning = joined_text(content, "reasoning", where)
    if reasoning:
        message["reasoning_content"] = reasoning
    calls = [
        wire_tool_call(block, f"{where}.content[{i}]")
        for i, block in enumerate(content)
        if _type(block) == "tool-call"
    ]
    if calls:
        message["tool_calls"] = calls
    return message


def wire_tool_call(block: Json, where: str) -> Json:
    """Arguments stay the raw JSON string the model produced: re-encoding would break the
    byte-identical prefix the provider cache needs."""
    fields = [block.get(key) for key in ("id", "name", "arguments")]
    if not all(isinstance(value, str) for value in fields):
        raise ValueError(f"request.{where}: a tool-call needs string `id`, `name`, `arguments`")
    call_id, name, arguments = fields
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def joined_text(content: list[Json], block_type: str, where: str) -> str:
    """The texts of the blocks of one type, joined with ``''``; other block types are skipped,
    except images, which the text-only wire cannot carry (``UNSUPPORTED_CONTENT``)."""
    texts = []
    for index, block in enumerate(content):
        kind = _type(block)
        if kind == "image":
            raise LlmError("UNSUPPORTED_CONTENT", f"request.{where}.content[{index}] is an image")
        if kind == block_type:
            text = block.get("text")
            if not isinstance(text, str):
                raise ValueError(f"request.{where}.content[{index}] needs a string `text`")
            texts.append(text)
    return "".join(texts)


def _results(content: list[Json]) -> list[tuple[int, Json]]:
    return [(i, block) for i, block in enumerate(content) if _type(block) == "tool-result"]


def _type(block: Json) -> Json:
    return block.get("type") if isinstance(block, Mapping) else None


def _string(request: Request, field: str) -> str:
    value = request.get(field)
    if not isinstance(value, str):
        raise ValueError(f"request.{field} must be a string, got {value!r}")
    return value
