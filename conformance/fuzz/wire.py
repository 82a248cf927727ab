"""The ``wire`` family: ops of the ``deepseek-wire`` capability (PROMPT-DEEPSEEK-WIRE).

Each op is a pure function of what it gives, so a scenario is a few independent ops: requests to
serialize (call configs, every message block kind — images, unknown blocks and system-role
messages in the history too —, logged fields the wire drops, system, tools, keys to check and
trim), response bodies cut into byte chunks anywhere or where a decoder can go wrong (inside a
UTF-8 sequence, between a CR and its LF, at an event's start) and framed by each rule of the
WHATWG event stream the contract names (LF, CR, CRLF and mixed line ends, comments, `data:` with
or without its space, data split over lines, other fields, events without data, one or two BOMs),
holding content, reasoning and tool-call deltas, finish reasons, usage with cache hits and
details, and payloads of every wrong shape the contract reads (`ODD_PAYLOADS`), and error
responses (statuses, bodies with and without the quota and context wordings, odd JSON bodies,
`Retry-After` in seconds, beyond a double's integers and as the three HTTP date forms, under
any name case, request ids, empty ones too). What their observations are compared on is
`conformance.fuzz.oracles.wire_expectation`: never a failure's message, and a request's body as
a JSON value, not bytes ("Bodies are compared across implementations as JSON values").
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from .generate import _Builder

Json = Any

BASE_URL: Final = "https://api.deepseek.test"
#: Keys: valid, empty, trimmed (spaces, U+00A0, and U+FEFF, U+3000, U+2028 and a tab, which
#: JavaScript's `trim` trims), only white space, and ones with a character outside U+0021 to
#: U+007E. Never U+0085 (`AVOIDED`).
KEYS: Final = (
    "sk-1",
    "",
    "  sk-2 ",
    "\u00a0sk-3\u00a0",
    "k\u00e9y",
    "\ufeff\u3000 sk-4\u2028\t",
    "   ",
    "sk a",
)
EFFORTS: Final = (None, "off", "low", "high", "max", "medium")
#: SSE payloads, each one `data:` line's value: the deltas of a stream, its finishes and usages.
DELTAS: Final = (
    '{"choices":[{"delta":{"content":"he"}}]}',
    '{"choices":[{"delta":{"content":"llo"}}]}',
    '{"choices":[{"delta":{"content":"\u00e9\U0001f600"}}]}',
    '{"choices":[{"delta":{"reasoning_content":"th"}}]}',
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"t",'
    '"arguments":"{\\"a\\""}}]}}]}',
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}',
)
FINISHES: Final = (
    '{"choices":[{"delta":{},"finish_reason":"stop"}]}',
    '{"choices":[{"delta":{},"finish_reason":"length"}]}',
    '{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}',
)
USAGES: Final = (
    '{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}',
    '{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,'
    '"prompt_cache_hit_tokens":3,"prompt_cache_miss_tokens":2}}',
)
#: Payloads of the shapes PROMPT-DEEPSEEK-WIRE reads otherwise than a lenient decoder might: not
#: a chunk object, `choices` not a list of objects, a `null` tool call or delta, texts that are
#: not strings, usage without sound counts, empty and mixed-case finish reasons, content beside
#: an empty `tool_calls`, cache details (zero, alone), a second tool call seen before the first
#: index, invalid UTF-8 (U+DCFF stands for the byte 0xFF), blank and padded payloads.
ODD_PAYLOADS: Final = (
    "null",
    "42",
    '"text"',
    "[1,2]",
    "{bad json",
    '{"choices":{"delta":{"content":"b"}}}',
    '{"choices":[null]}',
    '{"choices":[{"delta":{"tool_calls":[null]}}]}',
    '{"choices":[{"delta":{"content":5}}]}',
    '{"choices":[{"delta":{"reasoning_content":{}}}]}',
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":1}}]}}]}',
    '{"choices":[],"usage":{}}',
    '{"choices":[],"usage":"none"}',
    '{"choices":[],"usage":{"prompt_tokens":-1,"completion_tokens":1}}',
    '{"choices":[{"delta":{"content":"a"},"finish_reason":""}]}',
    '{"choices":[{"delta":{"content":"a"},"finish_reason":"Stop"}]}',
    '{"choices":[{"delta":{},"finish_reason":"Content_Filter"}]}',
    '{"choices":[{"delta":{"content":"a","tool_calls":[]}}]}',
    '{"choices":[{"delta":null,"finish_reason":"length"}]}',
    '{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,'
    '"prompt_cache_hit_tokens":8,"prompt_tokens_details":{"cached_tokens":0}}}',
    '{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,'
    '"prompt_tokens_details":{"cached_tokens":6}}}',
    '{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"c2","function":{"name":"u",'
    '"arguments":"{}"}}]}}]}',
    '{"choices":[{"delta":{"content":"a\udcffb"}}]}',
    "   ",
    " [DONE] ",
)
#: A payload split over two `data:` lines, joined with `\n` by the decoder (a JSON white space).
SPLIT_PAYLOAD: Final = ('{"choices":[{"delta":', '{"content":"a"}}]}')
#: Fields other than `data` (ignored), and an event that has no data at all.
OTHER_FIELDS: Final = (("event: message", "id: 7", "retry: 100"), ("foo: bar",))
#: What may come before the first line: one BOM, two (the second is part of the first line), and
#: the BOM's bytes read as Latin-1 (no BOM).
PREFIXES: Final = ("", "\ufeff", "\ufeff\ufeff", "\u00ef\u00bb\u00bf")
STATUSES: Final = (400, 401, 402, 403, 404, 413, 422, 429, 500, 502, 503, 599)
BODIES: Final = (
    "",
    '{"error":{"message":"bad request"}}',
    '{"error":{"message":"Insufficient Balance"}}',
    '{"error":{"message":"maximum context length exceeded"}}',
    "not json",
    "null",
    '{"error":"slow down"}',
    '{"message":"bad request"}',
    '{"error":{"message":"x","code":"insufficient_quota"}}',
)
#: A status and a body whose wording names a later rule ("the first rule that matches wins").
CONFLICTS: Final = (
    (413, BODIES[2]),
    (413, BODIES[-1]),
    (413, BODIES[3]),
    (500, BODIES[3]),
    (429, BODIES[2]),
    (401, BODIES[2]),
)
#: Retry-After values: seconds (a fraction, an Arabic-Indic digit, beyond 2^53 - 1 milliseconds
#: but within a double), and HTTP dates past and future in the IMF-fixdate, RFC 850 and asctime
#: forms.
RETRY_AFTERS: Final = (
    "2",
    "0",
    "1.5",
    "\u0663",
    "9007199254741",
    "Wed, 21 Oct 2015 07:28:00 GMT",
    "Fri, 31 Dec 2100 00:00:00 GMT",
    "Monday, 21-Sep-26 14:13:23 GMT",
    "Mon Sep 21 14:13:23 2026",
)
NOW_MS: Final = 1_700_000_000_000


def wire_steps(builder: _Builder) -> None:
    """One to four independent wire ops."""
    for _ in range(builder.between(1, 4)):
        kind = builder.pick(["request", "stream", "stream", "error"])
        if kind == "request":
            builder.ops.append(
                {
                    "op": "deepseek-request",
                    "request": _request(builder),
                    "apiKey": builder.pick(KEYS),
                    "baseUrl": BASE_URL,
                }
            )
        elif kind == "stream":
            builder.ops.append({"op": "deepseek-stream", "chunks": _chunks(builder)})
        else:
            builder.ops.append(_error(builder))


def _request(builder: _Builder) -> Json:
    pick, chance = builder.pick, builder.chance
    messages = [_message(builder) for _ in range(builder.between(1, 4))]
    # An image is refused only "for a text-only model": the model the cases name as one.
    images = any(block.get("type") == "image" for m in messages for block in m["content"])
    model = "deepseek-v4-flash" if images else pick(["deepseek-chat", "deepseek-reasoner"])
    request: Json = {"provider": "deepseek", "model": model}
    effort = pick(EFFORTS)
    if effort is not None:
        request["reasoningEffort"] = effort
    if chance(30):
        request["temperature"] = pick([0, 0.7])
    if chance(30):
        request["maxTokens"] = 100
    if chance(30):
        request["stop"] = pick([[], ["x"]])
    request["messages"] = messages
    if chance(50):
        request["system"] = pick(["", "S"])
    if chance(40):
        parameters = {"type": "object", "properties": {"b": {"type": "string"}}}
        tools = [{"name": name, "description": "d", "parameters": parameters} for name in "tu"]
        request["tools"] = pick([[], tools[:1], tools])
    if chance(30):
        request["sessionId"] = "s1"
    return request


def _message(builder: _Builder) -> Json:
    """A history message of any role and block kind; sometimes with the fields a logged message
    carries (`id`, `source`), which the wire does not send."""
    message = _content(builder)
    if builder.chance(10):
        message.update(id=builder.fresh("m"), source=builder.pick(["user", "model"]))
    return message


def _content(builder: _Builder) -> Json:
    pick = builder.pick
    kind = pick(["user", "user", "assistant", "assistant", "tool", "mixed", "odd"])
    if kind == "user":
        text = pick(["hi", "", "a\u2028b\u0007", "\U0001f600"])
        return {"role": "user", "content": [{"type": "text", "text": text}]}
    if kind == "odd":  # an image, a block of an unknown type, a system-role message
        odd = pick(["image", "unknown", "system"])
        if odd == "system":
            return {"role": "system", "content": [_text("Be "), _text("brief.")]}
        if odd == "image":
            image = {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
            return {"role": "user", "content": [_text("look"), image]}
        unknown = {"type": "plugin-note", "text": "NOT SENT"}
        return {"role": pick(["user", "assistant"]), "content": [_text("a"), unknown, _text("b")]}
    if kind == "mixed":  # tool results and text in one user message
        result = {
            "type": "tool-result",
            "toolCallId": "c1",
            "content": [_text("r")],
        }
        return {"role": "user", "content": [_text("and"), result]}
    if kind == "tool":
        block: Json = {
            "type": "tool-result",
            "toolCallId": "c1",
            "content": [_text(pick(["r", ""]))],
        }
        if builder.chance(30):
            block["isError"] = True
        return {"role": "user", "content": [block]}
    content: list[Json] = []
    if builder.chance(40):
        content.append({"type": "reasoning", "text": "th"})
    if builder.chance(70):
        content.append(_text(pick(["ok", ""])))
    if builder.chance(40):
        content.append(
            {
                "type": "tool-call",
                "id": "c1",
                "name": pick(["t", "u"]),
                "arguments": pick(["", "{}"]),
            }
        )
    return {"role": "assistant", "content": content}


def _text(text: str) -> Json:
    return {"type": "text", "text": text}


def _chunks(builder: _Builder) -> list[str]:
    """A body of SSE events, cut into byte chunks at drawn positions (`_cuts`): a stream's
    payloads in their order (deltas, a finish, a usage, `[DONE]`, each sometimes left out), with
    odd events put anywhere among them, framed by one of the event stream's line-end rules."""
    pick, chance = builder.pick, builder.chance
    line_end = pick(["\n", "\n", "\r\n", "\r", "mixed"])
    data = "data:" if chance(10) else "data: "
    payloads = [pick(DELTAS) for _ in range(builder.between(0, 3))]
    payloads += [pick(FINISHES)] if chance(60) else []
    payloads += [pick(USAGES)] if chance(30) else []
    payloads += ["[DONE]"] if chance(85) else []
    events = [[data + payload] for payload in payloads]
    for _ in range(builder.between(0, 2) if chance(50) else 0):
        events.insert(builder.between(0, len(events)), _odd_event(builder, data))
    ends = ("\n", "\r\n", "\r")
    text = pick(PREFIXES) if chance(15) else ""
    starts = []
    for event in events:
        starts.append(len(text.encode("utf-8", "surrogateescape")))
        for line in [*event, ""]:
            text += line + (pick(ends) if line_end == "mixed" else line_end)
    body = text.encode("utf-8", "surrogateescape")
    parts = [body[a:b] for a, b in zip(*_cuts(builder, body, starts), strict=True)]
    return [base64.b64encode(part).decode("ascii") for part in parts if part] or [""]


def _odd_event(builder: _Builder, data: str) -> list[str]:
    """An event (its lines) of a shape the contract reads otherwise than a lenient decoder:
    an odd payload, a comment (alone, or inside an event), data split over two lines, fields
    other than `data` (around data, or alone), a bare `data` line, a BOM at an event's start."""
    pick, chance = builder.pick, builder.chance
    shape = pick(["odd", "odd", "odd", "comment", "split", "fields", "bare", "bom"])
    if shape == "odd":
        return [data + pick(ODD_PAYLOADS)]
    if shape == "comment":
        return [": keep-alive"] if chance(50) else [data + pick(DELTAS), ": c"]
    if shape == "split":
        return [data + part for part in SPLIT_PAYLOAD]
    if shape == "fields":
        before, after = OTHER_FIELDS
        return list(before) if chance(40) else [*before, data + pick(DELTAS), *after]
    if shape == "bom":  # the BOM's bytes at an event's start: a BOM only at the stream's
        return ["\ufeff" + data + DELTAS[0]]
    return ["data"]


def _cuts(builder: _Builder, body: bytes, starts: list[int]) -> tuple[list[int], list[int]]:
    """Chunk bounds: cuts anywhere, or where a decoder can go wrong: inside a UTF-8 sequence,
    between a CR and what follows it, at an event's start."""
    inside = [i for i, byte in enumerate(body) if 0x80 <= byte < 0xC0]
    after_cr = [i + 1 for i, byte in enumerate(body[:-1]) if byte == 0x0D]
    cuts = set()
    for _ in range(builder.between(0, 3)):
        where = builder.pick(["any", "any", "inside", "cr", "event"])
        candidates = {"inside": inside, "cr": after_cr, "event": starts}.get(where)
        if candidates:
            cuts.add(builder.pick(candidates))
        else:
            cuts.add(builder.between(0, len(body)))
    ordered = sorted(cuts)
    return [0, *ordered], [*ordered, len(body)]


def _error(builder: _Builder) -> Json:
    pick, chance = builder.pick, builder.chance
    headers: Json = {}
    if chance(40):
        headers[pick(["retry-after", "retry-after", "Retry-After"])] = pick(RETRY_AFTERS)
    if chance(40):
        headers[pick(["x-request-id", "x-deepseek-request-id", "X-Request-Id"])] = pick(["r1", ""])
        if chance(30):  # both: `x-request-id`'s value wins, an empty one too
            headers["x-deepseek-request-id"] = "d1"
    status, body = pick(STATUSES), pick(BODIES)
    if chance(20):  # a status whose rule comes before the one its body's wording names
        status, body = pick(CONFLICTS)
    return {
        "op": "deepseek-http-error",
        "status": status,
        "body": body,
        "headers": headers,
        "nowMs": NOW_MS,
    }
