"""A sans-IO decoder from SSE bytes to ``data`` payloads (WHATWG event-stream rules).

CONTRACTS.md (PROMPT-DEEPSEEK-WIRE, clarifications):

    SSE framing follows the WHATWG event-stream format: lines end in LF, CR or CRLF (a stream
    ending in a bare CR still ends that line), `:` lines are comments, multiple `data:` lines of
    one event join with `\\n`, a leading BOM is dropped.

Bytes may be split anywhere — inside a UTF-8 sequence, between the CR and LF of one line end,
inside the BOM — so the decoder keeps an incremental UTF-8 decoder, the unfinished line, and
whether the last character seen was a CR (whose LF, if it comes next, belongs to the same line
end). A CR ends its line at once, so a stream ending in a bare CR needs nothing special.

Why not httpx-sse (0.4.3, the library the issue suggests): its public API needs an
``httpx.Response`` (the protocol's ``deepseek-wire`` op translates bytes given as data), it rejects
a response whose content type is not ``text/event-stream`` (the upstream never checks it), it keeps
a leading BOM as part of the first field name, and it dispatches an event for a block holding only
``event:``/``id:``/``retry:`` lines, as a blank payload the contract would make
``MALFORMED_RESPONSE`` although WHATWG dispatches nothing there. Its line and event decoders are
private (``httpx_sse._decoders``). What remains is the fifty lines below.
"""

from __future__ import annotations

import codecs
import re
from typing import Final

_LINE_END: Final = re.compile(r"[\r\n]")
_BOM: Final = "\ufeff"


class SSEDecoder:
    """Feed bytes, get the ``data`` payload of every event they complete.

    Only ``data`` matters to the adapter: ``event``, ``id``, ``retry`` and unknown fields are
    ignored, comments are dropped, and an event without a ``data`` line dispatches nothing.
    """

    def __init__(self) -> None:
        # WHATWG decodes with UTF-8 decode: malformed sequences become U+FFFD, never an error.
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._at_start = True
        self._after_cr = False
        self._line: list[str] = []
        self._data: list[str] | None = None

    def feed(self, data: bytes) -> list[str]:
        return self._text(self._utf8.decode(data))

    def close(self) -> list[str]:
        """End of stream: flush the UTF-8 decoder; an unfinished line or event is discarded."""
        payloads = self._text(self._utf8.decode(b"", final=True))
        self._line, self._data = [], None
        return payloads

    def _text(self, text: str) -> list[str]:
        if not text:
            return []
        if self._at_start:
            self._at_start = False
            text = text.removeprefix(_BOM)
        position = 1 if self._after_cr and text.startswith("\n") else 0
        self._after_cr = False
        payloads = []
        for end in _LINE_END.finditer(text, position):
            if end.start() < position:  # the LF of a CRLF already consumed
                continue
            self._line.append(text[position : end.start()])
            line, self._line = "".join(self._line), []
            position = end.end()
            if end.group() == "\r":
                if position == len(text):
                    self._after_cr = True
                elif text[position] == "\n":
                    position += 1
            payload = self._field(line)
            if payload is not None:
                payloads.append(payload)
        self._line.append(text[position:])
        return payloads

    def _field(self, line: str) -> str | None:
        if not line:
            data, self._data = self._data, None
            return None if data is None else "\n".join(data)
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if name == "data":
            if colon and value.startswith(" "):
                value = value[1:]
            if self._data is None:
                self._data = []
            self._data.append(value)
        return None
