"""PROMPT-DEEPSEEK-WIRE over real HTTP, one rule per case: how the body is written, what is
refused before any I/O, what an error response carries, and what a broken body does.

Capability ``deepseek-http``, judged as the cases of `dsh_conformance.deepseek.deepseek_http` are
(the chunks observed, and what reached the loopback server). Each case was first seen failing on
a wrong adapter of ``tests/gallery/wrong_impls/``; expectations are worked out by hand from
CONTRACTS.md, quoted in each ``why``.
"""

from __future__ import annotations

from typing import Final

from ..cases.deepseek import STOP, body, failed, sse, stream, text, user, wire_request
from ..scenarios.scenario import Json
from .deepseek_http import HTTP_CASES, Exchange, HttpCase, http_failed, sent, streamed
from .loopback import Scripted, day_ahead

_HELLO: Final = sse('{"choices":[{"delta":{"content":"hello"},"finish_reason":"stop"}]}', "[DONE]")
_ASK: Final = user(text("hi"))
_ASK_WIRE: Final = {"role": "user", "content": "hi"}
_PLAIN: Final = (("content-type", "text/plain"),)
_JSON: Final = (("content-type", "application/json"),)
#: A tool whose parameters hold numbers of every JSON shape.
_NUMBERS: Final = {
    "name": "pick",
    "description": "Pick a number.",
    "parameters": {
        "type": "object",
        "properties": {
            "n": {
                "type": "number",
                "minimum": 1e-7,
                "maximum": 1.5e300,
                "multipleOf": 0.1,
                "default": 100,
                "examples": [-0.0, 4294967296, 1e21, 2.5e-8, 123456.789],
            }
        },
    },
}
_PARTIAL: Final = sse('{"choices":[{"delta":{"content":"a"}}]}')


def refusal(case_id: str, why: str, request: Json, code: str, api_key: str = "sk-ok") -> HttpCase:
    """A request refused before any I/O: one error finish, and nothing reaches the server."""
    refused = Exchange(request, Scripted(), None, stream([], failed(code)), api_key=api_key)
    return HttpCase(f"deepseek-http/{case_id}", why, (refused,))


def _status(status: int, code: str) -> Exchange:
    return Exchange(
        wire_request(_ASK),
        Scripted(status, _PLAIN, (b"odd",)),
        sent(body(_ASK_WIRE)),
        stream([], http_failed(code, status)),
    )


#: Control characters, the two JavaScript line terminators JSON.stringify leaves raw, a lone
#: surrogate between them, and a character outside the BMP.
_ODD_TEXT: Final = "a\x00\x01\x1f\x7f\t\n\r\u2028\u2029\ud800z\U0001f600"

RULE_CASES: list[HttpCase] = [
    HttpCase(
        "deepseek-http/lone-surrogate-and-control-characters",
        "The body is JSON as `JSON.stringify` writes it — in particular a lone surrogate in any "
        "string is written as the escape `\\udXXX` (lowercase hex), never as raw bytes and never "
        "as an encoding error; control characters, U+2028/U+2029 and a character outside the BMP "
        "arrive as the same string.",
        (
            Exchange(
                wire_request(user(text(_ODD_TEXT))),
                streamed(_HELLO),
                sent(body({"role": "user", "content": _ODD_TEXT})),
                stream([text("hello")], STOP),
                sent_bytes=(b"\\ud800",),
            ),
        ),
    ),
    HttpCase(
        "deepseek-http/surrogate-halves-joined-into-one-character",
        "User text blocks joined into one string, written as `JSON.stringify` writes it: only a "
        "*lone* surrogate becomes an escape. A block ending in a high surrogate (each block alone "
        "holds a lone one) followed by a block starting with a low one joins into a pair, one "
        "character, which arrives as that character: D83D DE00 is U+1F600, DBFF DFFF is "
        "U+10FFFF.",
        (
            Exchange(
                wire_request(user(text("a\ud83d"), text("\ude00b\udbff"), text("\udfff"))),
                streamed(_HELLO),
                sent(body({"role": "user", "content": "a\U0001f600b\U0010ffff"})),
                stream([text("hello")], STOP),
            ),
        ),
    ),
    refusal(
        "refuse-missing-key",
        "No key or the empty string → `MISSING_CREDENTIAL`, refused before any I/O (nothing "
        "reaches the server).",
        wire_request(_ASK),
        "MISSING_CREDENTIAL",
        api_key="",
    ),
    refusal(
        "refuse-invalid-key",
        "A key that, trimmed, is not one or more characters U+0021-U+007E → "
        "`INVALID_CREDENTIAL`, refused before any I/O: a newline inside.",
        wire_request(_ASK),
        "INVALID_CREDENTIAL",
        api_key="sk-a\nb",
    ),
    refusal(
        "refuse-unsupported-effort",
        "A reasoning effort outside `off`/`low`/`high`/`max` → `UNSUPPORTED_REASONING_EFFORT`, "
        "refused before any I/O.",
        wire_request(_ASK, reasoningEffort="medium"),
        "UNSUPPORTED_REASONING_EFFORT",
    ),
    refusal(
        "refuse-image-block",
        "An image block for a text-only model → `UNSUPPORTED_CONTENT`, refused before any I/O.",
        wire_request(
            user(text("look"), {"type": "image", "mimeType": "image/png", "data": "AA=="})
        ),
        "UNSUPPORTED_CONTENT",
    ),
    HttpCase(
        "deepseek-http/5xx-boundary",
        "`5xx → SERVER`; anything else → `HTTP_<status>`: 599 is `SERVER`, 600 is `HTTP_600`; "
        "either carries its `status`.",
        (_status(599, "SERVER"), _status(600, "HTTP_600")),
    ),
    HttpCase(
        "deepseek-http/request-id-headers",
        "Every HTTP failure carries `status` and `requestId`: `x-request-id`, else "
        "`x-deepseek-request-id`; an empty `x-request-id` does not fall back.",
        (
            Exchange(
                wire_request(_ASK),
                Scripted(503, (*_PLAIN, ("x-deepseek-request-id", "d-1"))),
                sent(body(_ASK_WIRE)),
                stream([], http_failed("SERVER", 503, requestId="d-1")),
            ),
            Exchange(
                wire_request(_ASK),
                Scripted(500, (*_PLAIN, ("x-request-id", ""), ("x-deepseek-request-id", "d-2"))),
                sent(body(_ASK_WIRE)),
                stream([], http_failed("SERVER", 500)),
            ),
        ),
    ),
    HttpCase(
        "deepseek-http/retry-after-on-any-status",
        "A `Retry-After` counts on any HTTP failure: a 503 with `Retry-After: 5` carries 5000.",
        (
            Exchange(
                wire_request(_ASK),
                Scripted(503, (*_PLAIN, ("retry-after", "5"))),
                sent(body(_ASK_WIRE)),
                stream([], http_failed("SERVER", 503, providerRetryAfterMs=5000)),
            ),
        ),
    ),
    HttpCase(
        "deepseek-http/closed-mid-body",
        "The connection closes mid-body, before the announced `content-length`, with no "
        "`[DONE]`: the stream ends in an error (EOF without `[DONE]` → `STREAM_CLOSED`; the "
        "contract names no code for a broken connection, the upstream says `TRANSPORT`: either "
        "is accepted), never in a finished answer.",
        (
            Exchange(
                wire_request(_ASK),
                Scripted(parts=(_PARTIAL,), content_length=len(_PARTIAL) + 100),
                sent(body(_ASK_WIRE)),
                stream([], {"kind": "error", "failure": {"code": ["STREAM_CLOSED", "TRANSPORT"]}}),
            ),
        ),
    ),
    HttpCase(
        "deepseek-http/closed-after-done",
        "Stream: SSE `data:` payloads up to `[DONE]`: once `[DONE]` has come the answer is "
        "complete, so a connection that closes after it, short of the announced "
        "`content-length`, changes nothing: `hello`, then `stop`.",
        (
            Exchange(
                wire_request(_ASK),
                Scripted(parts=(_HELLO,), content_length=len(_HELLO) + 100),
                sent(body(_ASK_WIRE)),
                stream([text("hello")], STOP),
            ),
        ),
    ),
    HttpCase(
        "deepseek-http/eof-mid-event-after-deltas",
        "EOF without `[DONE]` → `STREAM_CLOSED`, also after deltas, with the body ending inside "
        "an event.",
        (
            Exchange(
                wire_request(_ASK),
                streamed(_PARTIAL + b'data: {"choices":[{"delta":{"content":"b"}}]}\n'),
                sent(body(_ASK_WIRE)),
                stream([], failed("STREAM_CLOSED")),
            ),
        ),
    ),
    HttpCase(
        "deepseek-http/numbers-compared-as-values",
        "Bodies are compared as JSON values with key order, numbers by value: a tool's "
        "parameters with integers, fractions and exponents, and a fractional temperature, "
        "arrive as the same numbers.",
        (
            Exchange(
                wire_request(_ASK, tools=[_NUMBERS], temperature=0.7),
                streamed(_HELLO),
                sent(
                    body(
                        _ASK_WIRE,
                        tools=[{"type": "function", "function": _NUMBERS}],
                        temperature=0.7,
                    )
                ),
                stream([text("hello")], STOP),
            ),
        ),
    ),
    HttpCase(
        "deepseek-http/error-body-not-utf8",
        "The status rules hold whatever the error body is: a 503 whose body is not UTF-8 (bytes "
        "FF FE in the message) is `5xx → SERVER`, carrying its `status`.",
        (
            Exchange(
                wire_request(_ASK),
                Scripted(503, _JSON, (b'{"error":{"message":"\xff\xfe"}}',)),
                sent(body(_ASK_WIRE)),
                stream([], http_failed("SERVER", 503)),
            ),
        ),
    ),
    HttpCase(
        "deepseek-http/retry-after-past-date-on-the-clock",
        "An HTTP-date `Retry-After` is kept only when it lies in the future, measured against the "
        "adapter's own clock over HTTP: 1 January 2001 has passed, so a 503 carrying it has no "
        "`providerRetryAfterMs`.",
        (
            Exchange(
                wire_request(_ASK),
                Scripted(503, (*_PLAIN, ("retry-after", "Mon, 01 Jan 2001 00:00:00 GMT"))),
                sent(body(_ASK_WIRE)),
                stream([], http_failed("SERVER", 503)),
            ),
        ),
    ),
    HttpCase(
        "deepseek-http/retry-after-date-a-day-ahead-on-the-clock",
        "An HTTP-date `Retry-After` in the future gives `providerRetryAfterMs` = the date minus "
        "the adapter's own clock (upstream notes, deepseek-adapter §4.3: `date - now` in ms, kept "
        "only if greater than 0). A 429 (the status it is most often sent with) carries a date one "
        "day after the next whole second of the server's clock, on the same machine as the "
        "adapter, so the value lies between one day "
        "less a minute for the exchange (86,340,000) and one day and one second (86,401,000).",
        (
            Exchange(
                wire_request(_ASK),
                Scripted(429, (*_PLAIN, ("retry-after", day_ahead))),
                sent(body(_ASK_WIRE)),
                stream(
                    [],
                    http_failed(
                        "RATE_LIMIT",
                        429,
                        providerRetryAfterMs={"between": [86_340_000, 86_401_000]},
                    ),
                ),
            ),
        ),
    ),
]

#: Every ``deepseek-http`` case, in the order `test_deepseek_http` runs them.
ALL_HTTP_CASES: Final[tuple[HttpCase, ...]] = (*HTTP_CASES, *RULE_CASES)
