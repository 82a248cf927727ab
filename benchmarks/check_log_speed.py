"""``check-log`` against the speed of parsing, on real-shaped logs of growing size (issue 19).

Writes a real-shaped session log (one loop instance: a header, then turns of a user message,
streamed text chunks, a tool call and its result of about 1 KB, and a final answer) of each size
into a temporary directory, then times, each in a fresh process:

- ``check-log`` on it (every rule of `dsh_conformance.judge.logfold` checked),
- the Python floor: one ``json.loads`` per line of the same file,
- and, to show where the rest goes, check-log's reading alone: its lines parsed as it parses
  them (noting repeated keys and non-integer numbers), no rule checked,

and prints MB/s for the three, the ratios to the floor, the growth exponent of check-log and the
floor over the 10x range of sizes, and the peak resident memory of both processes (streaming: it
should not grow with the file). Times are CPU seconds (`benchmarks/figures.py`), the best of
`ROUNDS` runs of each, the three interleaved.

    python benchmarks/check_log_speed.py [MB ...]     # default: 10 100
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HEADER = {
    "config": {"provider": "deepseek", "model": "deepseek-chat", "maxTokens": 4096},
    "system": "You are an AI agent powered by DeepSeek Harness.",
    "tools": [
        {
            "name": "read",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        }
    ],
}
#: Runs of each process per size, interleaved; the best counts.
ROUNDS = 3
SOURCE = {"kind": "model", "provider": "deepseek", "model": "deepseek-chat"}
WORDS = "the quick brown fox jumps over the lazy dog while the agent reads a file "

#: Run in a fresh process: ``check-log`` or the floor on a file; prints seconds and peak KiB.
CHILD = """
import json, resource, sys, time
from dsh_conformance.run.check_log import check_file
import io
path, what = sys.argv[1], sys.argv[2]
start = time.process_time()
if what == "check-log":
    sink = io.StringIO()
    status = check_file(path, sink, sink)
    assert status == 0, sink.getvalue()[:2000]
elif what == "read":
    from dsh_conformance.run.check_log import _read
    with open(path, "rb") as file:
        for entry in _read(path, file):
            assert entry.unreadable is None
else:
    with open(path, "rb") as file:
        for line in file:
            json.loads(line)
took = time.process_time() - start
print(took, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def events() -> Iterator[dict[str, Any]]:
    """An endless real-shaped log of one loop instance."""
    seq = 0

    def event(type: str, data: Any, **metadata: Any) -> dict[str, Any]:
        nonlocal seq
        seq += 1
        return {"type": type, "seq": seq - 1, "time": 1_700_000_000_000 + seq, "data": data} | (
            metadata
        )

    turn = 1
    yield event("turn/start", {"turn": turn})
    yield event("step/start", {"turn": turn, "step": 1})
    yield event("request/header", {"header": HEADER, "reason": "initial"})
    yield event(
        "request/context", {"provider": "deepseek", "model": "deepseek-chat", "contextWindow": 1}
    )
    while True:
        if turn > 1:
            yield event("turn/start", {"turn": turn})
            yield event("step/start", {"turn": turn, "step": 1})
        user = {
            "id": f"u{seq}",
            "role": "user",
            "content": [{"type": "text", "text": f"Please read file {turn}."}],
            "source": {"kind": "user"},
        }
        yield event("user/message", user, surfaceOp="append")
        for step in (1, 2):
            if step == 2:
                yield event("step/start", {"turn": turn, "step": 2})
            chunks = []
            for index in range(20):
                delta = {"type": "text-delta", "index": 0, "delta": WORDS[index : index + 40]}
                chunks.append(seq)
                yield event("assistant/chunk", {"turn": turn, "step": step, "chunk": delta})
            content: list[Any] = [{"type": "text", "text": WORDS * 8}]
            if step == 1:
                content.append(
                    {"type": "tool-call", "id": f"c{turn}", "name": "read", "arguments": "{}"}
                )
            message = {"id": f"a{seq}", "role": "assistant", "content": content, "source": SOURCE}
            yield event(
                "assistant/message",
                {"turn": turn, "step": step, "message": message},
                surfaceOp="append",
                sourceEventSeqs=chunks,
            )
            if step == 1:
                block = {
                    "type": "tool-result",
                    "toolCallId": f"c{turn}",
                    "content": [{"type": "text", "text": WORDS * 14}],
                }
                result = {
                    "id": f"t{seq}",
                    "role": "user",
                    "content": [block],
                    "source": {"kind": "tool", "callId": f"c{turn}"},
                }
                yield event(
                    "tool/result",
                    {"turn": turn, "step": 1, "message": result},
                    surfaceOp="append",
                )
            yield event("step/end", {"turn": turn, "step": step})
        yield event("turn/end", {"turn": turn, "reason": "stop"})
        turn += 1


def write_log(path: Path, size: int) -> None:
    with path.open("w", encoding="utf-8") as file:
        written = 0
        for event in events():
            line = json.dumps(event) + "\n"
            file.write(line)
            written += len(line)
            if written >= size:
                return


def measure(path: Path, what: str) -> tuple[float, int]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), what],
        capture_output=True,
        text=True,
        check=True,
    )
    took, peak = done.stdout.split()
    return float(took), int(peak)


def main() -> None:
    sizes = [int(arg) for arg in sys.argv[1:]] or [10, 100]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        print(
            f"{'MB':>5} {'check-log MB/s':>15} {'floor MB/s':>11} {'ratio':>6} "
            f"{'check-log MiB':>14} {'floor MiB':>10} {'reading MB/s':>13} {'ratio':>6}"
        )
        for megabytes in sizes:
            path = Path(folder) / f"log-{megabytes}.jsonl"
            write_log(path, megabytes * 1_000_000)
            size = path.stat().st_size / 1e6
            runs = [
                (measure(path, "check-log"), measure(path, "floor"), measure(path, "read"))
                for _ in range(ROUNDS)
            ]
            check, check_peak = min(checked for checked, _, _ in runs)  # the fastest, its memory
            floor, floor_peak = min(parsed for _, parsed, _ in runs)
            read = min(took for _, _, (took, _) in runs)
            path.unlink()
            rows.append((size, check, floor))
            print(
                f"{size:>5.0f} {size / check:>15.1f} {size / floor:>11.1f} {check / floor:>6.2f} "
                f"{check_peak / 1024:>14.0f} {floor_peak / 1024:>10.0f} {size / read:>13.1f} "
                f"{read / floor:>6.2f}"
            )
    if len(rows) > 1:
        (small, check_small, floor_small), (large, check_large, floor_large) = rows[0], rows[-1]
        scale = math.log(large / small)
        print(
            f"growth exponent over {large / small:.0f}x: check-log "
            f"{math.log(check_large / check_small) / scale:.2f}, floor "
            f"{math.log(floor_large / floor_small) / scale:.2f}"
        )


if __name__ == "__main__":
    main()
