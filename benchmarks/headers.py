"""Does a request build compare headers as cheaply as writing them as JSON? (issues 19 and 36)

Every request build canonicalizes the header it would send and compares it with the one in force,
the log's (PROMPT-HEADER-CANONICAL); the tool schemas dominate. Two figures, for n = 5, 20 and 80
tool schemas, each beside the Python floor for the same question, two ``json.dumps`` of the two
headers and ``==``, timed interleaved in CPU time (`figures.best_times`):

- canonicalize + compare (issue 36, goal: within 1.2x): `dsh_reference.canonical_header` of an equal
  header built separately and frozen (a header as the log holds it: `canonical_header` reuses
  frozen values, "a frozen value is its own snapshot"), then `dsh_reference.headers_equal` with the
  log's header;
- the same from a plain draft, as the loop builds one from the step's assembly, with the header
  in force given (`canonical_header(draft, in_force=...)`): tools written alike are the header
  in force's own, so nothing is copied and `headers_equal` compares them by identity (before
  issue 36, a deep copy, then a second and third copy when logging and freezing the request).
  Same goal. Beside it, for the record, a draft whose tools changed (one description): its one
  read-only copy, which the log and the request then share, is in that figure.

This is a script that prints figures, not a test.

    python benchmarks/headers.py
"""

from __future__ import annotations

import json
from typing import Any

from figures import best_times, table

from dsh_reference import canonical_header, headers_equal
from dsh_reference.jsonvalue import frozen

SIZES = (5, 20, 80)


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
    frozen_rows, draft_rows, changed_rows = [], [], []
    for n in SIZES:
        baseline, other, draft = canonical_header(header(n)), frozen(header(n)), header(n)
        changed = header(n)
        changed["tools"][0]["description"] = "Changed."
        assert headers_equal(baseline, canonical_header(other))
        assert not headers_equal(baseline, canonical_header(changed, in_force=baseline))
        timed = best_times(
            [
                lambda a=baseline, b=other: headers_equal(a, canonical_header(b)),
                lambda a=baseline, b=other: json.dumps(a) == json.dumps(b),
                lambda a=baseline, b=draft: headers_equal(a, canonical_header(b, in_force=a)),
                lambda a=baseline, b=draft: json.dumps(a) == json.dumps(b),
                lambda a=baseline, b=changed: headers_equal(a, canonical_header(b, in_force=a)),
                lambda a=baseline, b=changed: json.dumps(a) == json.dumps(b),
            ]
        )
        frozen_rows.append((n, timed[0], timed[1]))
        draft_rows.append((n, timed[2], timed[3]))
        changed_rows.append((n, timed[4], timed[5]))
    worst = table(
        "canonical_header + headers_equal, frozen headers of n tools (µs); "
        "anchor: two json.dumps and ==",
        "tools",
        frozen_rows,
    )
    print()
    worst = max(
        worst,
        table(
            "the same from a plain draft with the header in force given, as the loop builds it "
            "(µs); same anchor",
            "tools",
            draft_rows,
        ),
    )
    print(f"issue 36 goal 1 (within 1.2x at 5-80 tools): {'met' if worst <= 1.2 else 'missed'}")
    print()
    table(
        "a draft whose tools changed, its one read-only copy included (µs); same anchor",
        "tools",
        changed_rows,
    )


if __name__ == "__main__":
    main()
