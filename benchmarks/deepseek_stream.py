"""How fast, and how linear, is the DeepSeek stream path? (PROMPT-DEEPSEEK-WIRE)

`reference.deepseek.translate_stream` turns response bytes into stream chunks: SSE decoding (with
an incremental UTF-8 decoder and a line buffer that survives any split) and the delta translation.
For each shape this builds an answer of n text deltas and of 16n, times the translation (best of
several repeats, `time.perf_counter`), and prints MB/s and the ratio. Linear work gives a ratio near
16; a translator that rebuilt its block text on every delta would give far more for long answers.
A script that prints figures, not a test.

    python benchmarks/deepseek_stream.py
"""

from __future__ import annotations

import gc
import json
import time

from reference.deepseek import translate_stream

BASE_N = 2_000
SCALE = 16
REPEATS = 5
RATIO_BOUND = 32.0


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


def best_time(parts: list[bytes]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        gc.collect()
        start = time.perf_counter()
        chunks = translate_stream(parts)
        best = min(best, time.perf_counter() - start)
        assert chunks[-1] == {"type": "finish", "reason": {"kind": "stop"}}
    return best


def main() -> None:
    print(
        f"{'read size':>10} {'n deltas':>9} {'MB':>6} {'seconds':>9} {'MB/s':>7} {'ratio x16':>10}"
    )
    worst = 0.0
    for read_size in (1, 64, 4096):
        small, large = body(BASE_N), body(BASE_N * SCALE)
        t_small = best_time(split(small, read_size))
        t_large = best_time(split(large, read_size))
        ratio = t_large / t_small
        worst = max(worst, ratio)
        for n, data, seconds in ((BASE_N, small, t_small), (BASE_N * SCALE, large, t_large)):
            mb = len(data) / 1e6
            shown_ratio = f"{ratio:10.1f}" if n != BASE_N else ""
            print(
                f"{read_size:>10} {n:>9} {mb:6.2f} {seconds:9.4f} {mb / seconds:7.1f} {shown_ratio}"
            )
    verdict = "linear" if worst <= RATIO_BOUND else "NOT linear"
    print(f"worst ratio {worst:.1f} for {SCALE}x the input (bound {RATIO_BOUND:g}): {verdict}")


if __name__ == "__main__":
    main()
