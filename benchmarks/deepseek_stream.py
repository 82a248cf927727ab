"""How fast, and how linear, is the DeepSeek stream path? (PROMPT-DEEPSEEK-WIRE, issue 19)

`dsh_reference.deepseek.translate_stream` turns response bytes into stream chunks: SSE decoding
(with an incremental UTF-8 decoder and a line buffer that survives any split) and the delta
translation. For each read size (1 byte, 64 bytes, 4 KiB) it translates answers of n = 1000 and
10000 text deltas, beside the Python floor for the same bytes: the reads joined, decoded once, and
one ``json.loads`` per event (`floor`). It prints the figures, their ratio and the growth exponent
(`benchmarks/figures.py`): linear work gives 1; a translator that rebuilt its block text on every
delta would give far more for long answers. A script that prints figures, not a test.

    python benchmarks/deepseek_stream.py
"""

from __future__ import annotations

import json
from typing import Any

from figures import best_times, growth_exponent, table

from dsh_reference.deepseek import translate_stream

SIZES = (1000, 10000)
READ_SIZES = (1, 64, 4096)
#: The exponent above which the path is called not linear (measurement noise stays below it).
LINEAR_BOUND = 1.2


def body(deltas: int) -> bytes:
    """An SSE answer of ``deltas`` content deltas of a few words each, then usage and [DONE]."""
    events = [
        json.dumps({"choices": [{"delta": {"content": f"word {i} é€ "}}]}) for i in range(deltas)
    ]
    events.append('{"choices":[{"delta":{},"finish_reason":"stop"}],"usage":null}')
    events.append('{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5}}')
    events.append("[DONE]")
    return "".join(f"data: {event}\r\n\r\n" for event in events).encode()


def split(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def floor(parts: list[bytes]) -> list[Any]:
    """The least any Python SSE reader does with the same reads: join, decode, parse each event."""
    text = b"".join(parts).decode()
    return [json.loads(line[6:]) for line in text.split("\r\n") if line.startswith("data: {")]


def main() -> None:
    worst = 0.0
    for read_size in READ_SIZES:
        rows = []
        for n in SIZES:
            parts = split(body(n), read_size)
            assert translate_stream(parts)[-1] == {"type": "finish", "reason": {"kind": "stop"}}
            figure, anchor = best_times(
                [lambda parts=parts: translate_stream(parts), lambda parts=parts: floor(parts)],
                repeats=5,
            )
            rows.append((n, figure, anchor))
        title = (
            f"translate an answer read {read_size} byte(s) at a time (ms); "
            "anchor: join, decode, json.loads per event"
        )
        table(title, "deltas", rows, unit="ms")
        sizes, figures = [n for n, _, _ in rows], [figure for _, figure, _ in rows]
        worst = max(worst, growth_exponent(sizes, figures))
        print()
    verdict = "linear" if worst <= LINEAR_BOUND else "NOT linear"
    print(f"largest growth exponent {worst:.2f} (bound {LINEAR_BOUND}): {verdict}")


if __name__ == "__main__":
    main()
