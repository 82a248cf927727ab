"""The SSE decoder gives the same payloads however the bytes are split (hypothesis).

Bodies are generated as events (data lines of arbitrary text without line breaks, comments, other
fields) with a random line end for every line and an optional BOM; the expected payloads are worked
out from the generated structure, not by the decoder. Any set of cut points must give them.
"""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from dsh_reference.deepseek import SSEDecoder

LINE_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=12
)
LINE_END = st.sampled_from(["\n", "\r", "\r\n"])


@st.composite
def bodies(draw: st.DrawFn) -> tuple[bytes, list[str]]:
    text = "\ufeff" if draw(st.booleans()) else ""

    def line(content: str) -> None:
        nonlocal text
        end = draw(LINE_END)
        if not content and text.endswith("\r") and end.startswith("\n"):
            end = "\r"  # a LF right after a CR would join it into one CRLF line end
        text += content + end

    payloads = []
    for _ in range(draw(st.integers(0, 5))):
        data = []
        for kind in draw(st.lists(st.sampled_from(["data", "comment", "event"]), max_size=4)):
            value = draw(LINE_TEXT)
            if kind == "data":
                data.append(value)
                # One optional space after the colon is dropped, so a value starting with a
                # space needs it written.
                spaced = value.startswith(" ") or draw(st.booleans())
                line(f"data: {value}" if spaced else f"data:{value}")
            elif kind == "comment":
                line(f":{value}")
            else:
                line(f"event: {value}")
        line("")  # the blank line that dispatches the event
        if data:
            payloads.append("\n".join(data))
    return text.encode(), payloads


@given(bodies(), st.lists(st.integers(0, 400), max_size=8))
def test_any_split_gives_the_payloads(body: tuple[bytes, list[str]], cuts: list[int]) -> None:
    data, payloads = body
    points = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    decoder = SSEDecoder()
    got = [p for a, b in itertools.pairwise(points) for p in decoder.feed(data[a:b])]
    assert got + decoder.close() == payloads
