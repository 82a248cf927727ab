"""PROMPT-DEEPSEEK-WIRE over real HTTP, one rule per case: how the body is written, what is
refused before any I/O, what an error response carries, and what a broken body does.

Capability ``deepseek-http``, judged as the cases of `conformance.deepseek.deepseek_http` are
(the chunks observed, and what reached the loopback server). Each case was first seen failing on
a wrong adapter of ``tests/gallery/wrong_impls.py``; expectations are worked out by hand from
CONTRACTS.md, quoted in each ``why``.
"""

from __future__ import annotations

from typing import Final

from ..cases.deepseek import STOP, body, sse, stream, text, user, wire_request
from .deepseek_http import Exchange, HttpCase, sent, streamed

_HELLO: Final = sse('{"choices":[{"delta":{"content":"hello"},"finish_reason":"stop"}]}', "[DONE]")

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
]
