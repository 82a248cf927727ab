"""Is comparing two request headers as cheap as writing their tools as JSON? (issue 19, goal 3)

Every request build compares the header it would send with the one in force
(PROMPT-HEADER-CANONICAL); the tool schemas dominate. This times `reference.headers_equal` on two
equal headers (separate objects) of n tool schemas, n = 8 and 80, beside the Python floor for the
same question: two ``json.dumps`` of the tool lists and ``==``. Goal: within 1.5x at 80 tools.
This is a script that prints figures, not a test.

    python benchmarks/headers.py
"""

from __future__ import annotations

import copy
import json
from typing import Any

from figures import best_times, table

from reference import headers_equal

SIZES = (8, 80)


def tool(i: int) -> dict[str, Any]:
    """A tool schema of a usual size: a description and an object of a few typed parameters."""
    return {
        "name": f"tool_{i}",
        "description": f"Tool number {i}: reads or changes something in the workspace.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "A path relative to the workspace."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000},
                "mode": {"type": "string", "enum": ["read", "write", "append"]},
            },
            "required": ["path"],
            "additionalProperties": False,
        },
    }


def header(n: int) -> dict[str, Any]:
    return {
        "config": {"provider": "deepseek", "model": "deepseek-chat", "maxTokens": 4096},
        "adapterDefaults": {"maxTokens": True},
        "system": "You are an AI agent powered by DeepSeek Harness.",
        "tools": [tool(i) for i in range(n)],
    }


def main() -> None:
    rows = []
    for n in SIZES:
        a, b = header(n), copy.deepcopy(header(n))
        assert headers_equal(a, b)
        figure, anchor = best_times(
            [
                lambda a=a, b=b: headers_equal(a, b),
                lambda a=a, b=b: json.dumps(a["tools"]) == json.dumps(b["tools"]),
            ]
        )
        rows.append((n, figure, anchor))
    table(
        "headers_equal on two equal headers of n tools (µs); anchor: two json.dumps and ==",
        "tools",
        rows,
    )
    _, figure, anchor = rows[-1]
    print(f"goal 3 (within 1.5x at 80 tools): {'met' if figure / anchor <= 1.5 else 'missed'}")


if __name__ == "__main__":
    main()
