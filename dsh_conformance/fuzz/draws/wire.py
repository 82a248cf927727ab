"""The ``wire`` family: ops of the ``deepseek-wire`` capability (PROMPT-DEEPSEEK-WIRE).

Each op is a pure function of what it gives, so a scenario is independent ops (about a dozen,
each shrunk away as a whole when it shows nothing): requests to serialize (call configs, every
message block kind — images, unknown blocks and system-role messages in the history too —,
histories calling several tools, logged fields the wire drops, system, tools in either order,
keys to check and trim), response bodies cut into byte chunks anywhere or where a decoder can go
wrong (inside a UTF-8 sequence, between a CR and its LF, at an event's start) and framed by each
rule of the WHATWG event stream the contract names (LF, CR, CRLF and mixed line ends, comments,
`data:` with or without its space, data split over lines, other fields, events without data, one
or two BOMs),
holding content (invalid UTF-8 too), reasoning and tool-call deltas (wire index 1 before 0
too), finish reasons (empty, mixed-case, not strings), usage with cache hits and details (a
detail of 0 too) and counts in odd forms (`10.0`, `true`, negative, fractional), a padded end
marker, and at most one payload of a wrong shape at one place of the chunk the contract gives a
type (`_odd_payload`: whole payloads, `choices`, a choice, `delta`, texts, `tool_calls`, a tool
call's fields, usage, `NaN` and the infinities); and error responses (statuses, bodies with and
without the quota and context wordings, odd JSON bodies, `Retry-After` in seconds, beyond a
double's integers and as the three HTTP date forms, under any name case, against a clock on a
whole second or within one, request ids, empty ones too). What their observations are compared on is
`dsh_conformance.fuzz.oracles.wire_expectation`: never a failure's message, and a request's body as
a JSON value, not bytes ("Bodies are compared across implementations as JSON values").
"""

from __future__ import annotations

import base64
import json
from typing import Final

from hypothesis import strategies as st

from .builder import Builder, Json

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
#: Texts of content deltas: ASCII, two- to four-byte UTF-8, an invalid byte (U+DCFF stands for the
#: byte 0xFF, which the decoder reads as U+FFFD).
TEXTS: Final = ("he", "\u00e9\U0001f600", "llo", "\U0001f600", "a\udcffb")
#: Finish reasons: the three the contract maps, then the "others" (an error finish whose code is
#: the reason uppercased, the empty one too), then values that are not strings (malformed).
FINISH_REASONS: Final = ("stop", "length", "tool_calls")
OTHER_REASONS: Final = ("", "Stop", "Content_Filter", 1, True, {"kind": "stop"})
#: Token counts other than a plain integer: one written with a fraction part (the same integer by
#: value), and ones that are not a count (a boolean, a negative, a fraction).
ODD_COUNTS: Final = ("float", "float", True, -1, 1.5)
#: The cache counts' other forms: the contract asks detail counts to be integers, not
#: non-negative ones, and reads `prompt_cache_hit_tokens` only without the detail (`AVOIDED`).
SOUND_COUNTS: Final = ("float",)
#: The constants Python's `json` reads but JSON has not.
CONSTANTS: Final = (float("nan"), float("inf"), float("-inf"))
#: Whole payloads that are not a chunk object: JSON of another type, bad JSON (blank ones are a
#: place of their own in `PLACES`).
ODD_TEXTS: Final = ("null", "42", '"text"', "true", "[1,2]", "{bad json")
#: Where `_odd_payload` puts a wrong shape (tool calls have the most rules, so twice).
PLACES: Final = (
    "texts",
    "blank",
    "choices",
    "choice",
    "delta",
    "text",
    "tool_calls",
    "tool_calls",
    "call",
    "call",
    "usage",
    "constant",
    "null-delta",
)
#: Values of the wrong type at each place of a chunk the contract gives a type (`_odd_payload`).
ODD_VALUES: Final = {
    "choices": ({"delta": {"content": "b"}}, {}, 0, "", False),
    "choice": (None, 5, "a"),
    "delta": (5, "b", []),
    "text": (5, {}),
    "tool_calls": (5, [None], [5]),
    "index": (None, "0", True, 0.5),
}
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
#: forms, one a second after the clock's whole second (`NOW_MS`).
SECONDS: Final = ("2", "0", "1.5", "\u0663", "9007199254741")
DATES: Final = (
    "Wed, 21 Oct 2015 07:28:00 GMT",
    "Fri, 31 Dec 2100 00:00:00 GMT",
    "Monday, 21-Sep-26 14:13:23 GMT",
    "Mon Sep 21 14:13:23 2026",
    "Tue, 14 Nov 2023 22:13:21 GMT",
)
#: The clock of an error response (2023-11-14T22:13:20Z), on a whole second or within one.
NOW_MS: Final = 1_700_000_000_000
CLOCKS: Final = (NOW_MS, NOW_MS + 400)


def wire_ops(draw: st.DrawFn, capabilities: frozenset[str]) -> list[Json]:
    """Independent wire ops, about a dozen: each is cheap to run, and a scenario of several
    tries several shapes at once. They are lists of ops each drawn as a whole (`_op`), so that
    shrinking deletes the ops that show nothing and keeps the one that does."""
    builder = Builder(draw, capabilities)
    ops = st.lists(_op(builder), min_size=1, max_size=8)
    for group in builder.draw(st.lists(ops, min_size=1, max_size=4)):
        builder.ops += group
    return builder.ops


@st.composite
def _op(draw: st.DrawFn, builder: Builder) -> Json:
    """One wire op, its draws made through ``draw`` (the op's own span for the shrinker)."""
    outer, builder.draw = builder.draw, draw
    try:
        kind = builder.pick(["request", "stream", "stream", "error"])
        if kind == "request":
            return {
                "op": "deepseek-request",
                "request": _request(builder),
                "apiKey": KEYS[0] if builder.chance(40) else builder.pick(KEYS),
                "baseUrl": BASE_URL,
            }
        if kind == "stream":
            return {"op": "deepseek-stream", "chunks": _chunks(builder)}
        return _error(builder)
    finally:
        builder.draw = outer


def _request(builder: Builder) -> Json:
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
    if chance(60):
        parameters = {"type": "object", "properties": {"b": {"type": "string"}}}
        tools = [{"name": name, "description": "d", "parameters": parameters} for name in "tu"]
        request["tools"] = pick([[], tools[:1], tools, tools[::-1]])
    if chance(30):
        request["sessionId"] = "s1"
    return request


def _message(builder: Builder) -> Json:
    """A history message of any role and block kind; sometimes with the fields a logged message
    carries (`id`, `source`), which the wire does not send."""
    message = _content(builder)
    if builder.chance(10):
        message.update(id=builder.fresh("m"), source=builder.pick(["user", "model"]))
    return message


def _content(builder: Builder) -> Json:
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
    for number in range(1, 1 + (builder.between(1, 2) if builder.chance(50) else 0)):
        content.append(
            {
                "type": "tool-call",
                "id": f"c{number}",
                "name": pick(["u", "t"]),
                "arguments": pick(["", "{}"]),
            }
        )
    return {"role": "assistant", "content": content}


def _text(text: str) -> Json:
    return {"type": "text", "text": text}


def _chunks(builder: Builder) -> list[str]:
    """A body of SSE events, cut into byte chunks at drawn positions (`_cuts`): a stream's
    payloads in their order (deltas, a finish, a usage, `[DONE]`, each sometimes left out), with
    odd events put anywhere among them, framed by one of the event stream's line-end rules."""
    pick, chance = builder.pick, builder.chance
    line_end = pick(["\n", "\n", "\r\n", "\r", "mixed"])
    data = "data:" if chance(10) else "data: "
    payloads = [_delta(builder) for _ in range(builder.between(0, 3))]
    payloads += [_finish(builder)] if chance(60) else []
    payloads += [_json({"choices": [], "usage": _usage(builder)})] if chance(40) else []
    # The end marker, sometimes padded with spaces (then it is no end marker but bad JSON).
    payloads += [" [DONE] " if chance(8) else "[DONE]"] if chance(85) else []
    events = [[data + payload] for payload in payloads]
    # At most one payload of a wrong shape: a second one would end the stream alike on an
    # implementation that skips the first, hiding that.
    odd = [[data + _odd_payload(builder)]] if chance(40) else []
    for event in odd + [_odd_event(builder, data) for _ in range(_some(builder))]:
        events.insert(builder.between(0, len(events)), event)
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


def _json(value: Json) -> str:
    """A payload's JSON text; `NaN` and the infinities as Python writes them (not JSON)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _chunk(delta: Json, **choice: Json) -> str:
    return _json({"choices": [{"delta": delta, **choice}]})


def _delta(builder: Builder) -> str:
    """A delta chunk: content, reasoning or tool calls; content sometimes beside an empty list of
    tool calls, which does not hide it."""
    pick = builder.pick
    kind = pick(["content", "content", "reasoning", "call", "call"])
    if kind == "reasoning":
        return _chunk({"reasoning_content": "th"})
    if kind == "call":
        return _chunk({"tool_calls": [_call(builder) for _ in range(builder.between(1, 2))]})
    delta: Json = {"content": pick(TEXTS)}
    if builder.chance(15):  # beside an empty list only: beside a call, the blocks' order is open
        delta["tool_calls"] = []
    return _chunk(delta)


def _call(builder: Builder) -> Json:
    """A tool-call delta of wire index 0 or 1 (either may come first): the call's start (id,
    name, arguments' start) or a continuation (arguments only)."""
    index = builder.pick([0, 1])
    if builder.chance(60):
        function = {"name": builder.pick(["t", "u"]), "arguments": '{"a"'}
        return {"index": index, "id": f"c{index + 1}", "function": function}
    return {"index": index, "function": {"arguments": ":1}"}}


def _finish(builder: Builder) -> str:
    """A finish chunk: a reason the contract maps, or another (`OTHER_REASONS`), sometimes with
    content, or with a null delta."""
    pick, chance = builder.pick, builder.chance
    reason = pick(FINISH_REASONS) if chance(75) else pick(OTHER_REASONS)
    delta = {} if chance(70) else pick([{"content": "a"}, None])
    return _chunk(delta, finish_reason=reason)


def _usage(builder: Builder) -> Json:
    """A usage object: counts, then cache reads as hit and miss counts, as the cached-tokens
    detail (0 too), or both; a count sometimes in an odd form (`ODD_COUNTS`)."""
    usage = {"prompt_tokens": _count(builder, 10), "completion_tokens": _count(builder, 2)}
    cache = builder.pick(["", "hits", "details", "both"])
    if cache in ("hits", "both"):
        usage["prompt_cache_hit_tokens"] = _count(builder, 8, SOUND_COUNTS)
        usage["prompt_cache_miss_tokens"] = 2
    if cache in ("details", "both"):
        cached = _count(builder, builder.pick([6, 0]), SOUND_COUNTS)
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    return usage


def _count(builder: Builder, count: int, odd_counts: tuple[Json, ...] = ODD_COUNTS) -> Json:
    """``count``, or one of ``odd_counts`` (`"float"`: the count written with a fraction part)."""
    if builder.chance(80):
        return count
    odd = builder.pick(odd_counts)
    return float(count) if odd == "float" else odd


def _odd_payload(builder: Builder) -> str:
    """A payload that is not a chunk of the expected shape: a whole text that is none
    (`ODD_TEXTS`), a value of the wrong type at one place (`ODD_VALUES`), a usage that is not
    an object or lacks its counts, a constant JSON has not in a field the adapter does not read,
    or a `null` delta (the one wrong-looking value that is allowed)."""
    pick = builder.pick
    where = pick(PLACES)
    if where == "texts":
        return str(pick(ODD_TEXTS))
    if where == "blank":
        return "   "
    if where == "choices":
        return _json({"choices": pick(ODD_VALUES["choices"])})
    if where == "choice":
        return _json({"choices": [pick(ODD_VALUES["choice"])]})
    if where == "delta":
        return _chunk(pick(ODD_VALUES["delta"]))
    if where == "text":
        return _chunk({pick(["content", "reasoning_content"]): pick(ODD_VALUES["text"])})
    if where == "tool_calls":
        return _chunk({"tool_calls": pick(ODD_VALUES["tool_calls"])})
    if where == "call":
        return _chunk({"tool_calls": [_odd_call(builder)]})
    if where == "usage":
        return _json({"choices": [], "usage": pick([{}, "none"])})
    if where == "constant":
        return _json({"created": pick(CONSTANTS), "choices": []})
    return _chunk(None, finish_reason="length")


def _odd_call(builder: Builder) -> Json:
    """A tool call with one field of the wrong type: its index (absent too), id, name or
    arguments; or a `function` that is not an object beside a wrong index or id (the contract
    gives `function` no shape of its own: `AVOIDED`)."""
    call = _call(builder)
    call["function"] = dict(call["function"])
    defect = builder.pick(["index", "index", "id", "name", "arguments"])  # four wrong indices
    if defect in ("index", "id") and builder.chance(50):
        call["function"] = builder.pick(["f", 3])
    if defect == "index":
        index = builder.pick(ODD_VALUES["index"])
        call.pop("index")
        call.update({} if index is None else {"index": index})
    elif defect == "id":
        call["id"] = 7
    else:
        call["function"][defect] = builder.pick(ODD_VALUES["text"])
    return call


def _odd_event(builder: Builder, data: str) -> list[str]:
    """An event (its lines) of a shape the contract reads otherwise than a lenient decoder:
    a comment (alone, or inside an event), data split over two lines, fields
    other than `data` (around data, or alone), a bare `data` line, a BOM at an event's start."""
    pick, chance = builder.pick, builder.chance
    shape = pick(["comment", "split", "fields", "bare", "bom"])
    if shape == "comment":
        return [": keep-alive"] if chance(50) else [data + _delta(builder), ": c"]
    if shape == "split":
        return [data + part for part in SPLIT_PAYLOAD]
    if shape == "fields":
        before, after = OTHER_FIELDS
        return list(before) if chance(40) else [*before, data + _delta(builder), *after]
    if shape == "bom":  # the BOM's bytes at an event's start: a BOM only at the stream's
        return ["\ufeff" + data + _chunk({"content": "he"})]
    return ["data"]


def _some(builder: Builder) -> int:
    """None half the time, else one or two."""
    return builder.between(1, 2) if builder.chance(50) else 0


def _cuts(builder: Builder, body: bytes, starts: list[int]) -> tuple[list[int], list[int]]:
    """Chunk bounds: cuts anywhere, or where a decoder can go wrong: inside a UTF-8 sequence,
    between a CR and what follows it, at an event's start."""
    inside = [i for i, byte in enumerate(body) if 0x80 <= byte < 0xC0]
    after_cr = [i + 1 for i, byte in enumerate(body[:-1]) if byte == 0x0D]
    cuts = set()
    for _ in range(builder.between(0, 3)):
        where = builder.pick(["any", "inside", "cr", "event"])
        candidates = {"inside": inside, "cr": after_cr, "event": starts}.get(where)
        if candidates:
            cuts.add(builder.pick(candidates))
        else:
            cuts.add(builder.between(0, len(body)))
    ordered = sorted(cuts)
    return [0, *ordered], [*ordered, len(body)]


def _error(builder: Builder) -> Json:
    pick, chance = builder.pick, builder.chance
    headers: Json = {}
    if chance(40):
        value = pick(SECONDS) if chance(50) else pick(DATES)
        headers[pick(["retry-after", "retry-after", "Retry-After"])] = value
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
        "nowMs": pick(CLOCKS),
    }
