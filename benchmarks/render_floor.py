"""Do render and assemble run at the Python floor? (issue 19, goal 4)

Render: `dsh_reference.render.interpolate` on normal text (n units of a literal run and a `{{name}}`
reference, n = 1000 and 10000) beside one ``re.sub`` pass over the same text that replaces each
group by a dict lookup, the floor for any Python renderer (goal: within 1.3x).

Assemble: `PromptRegistry.assemble` plus `render_prompt` over n registered sections (n = 10 and
100, each a unit of that text, three registered variables) beside `interpolate` of the joined text
once (goal: within 1.5x). Beside it, the floor of rendering section by section, as the contract
requires (each text is its own scan, its own `}}`-later test, its own error's ``where``; one
rendering to ``''`` is dropped): one bare ``re.sub`` per section and a join, no check at all. The
assembly is awaited as the agent's loop awaits it, from a coroutine
(`completed`), not through an event loop's ``run_until_complete``, whose own round trip costs
more than assembling ten sections. This is a script that prints figures, not a test.

    python benchmarks/render_floor.py
"""

from __future__ import annotations

import re
from collections.abc import Coroutine
from typing import Any, TypeVar

from figures import best_times, table

from dsh_reference import PromptRegistry
from dsh_reference.render import SECTION_JOINER, interpolate, render_prompt

T = TypeVar("T")
VARIABLES = {"name": "Ann", "model": "deepseek-chat", "tool_count": "3"}
GROUP = re.compile(r"\{\{([^{}]*)\}\}")


def unit(i: int) -> str:
    return f"Literal text {i} with {{{{{list(VARIABLES)[i % 3]}}}}}. "


def text(n: int) -> str:
    return "".join(unit(i) for i in range(n))


def one_sub(text: str) -> str:
    return GROUP.sub(lambda match: VARIABLES[match.group(1)], text)


def completed(coroutine: Coroutine[Any, Any, T]) -> T:
    """The result of a coroutine that never waits (every provider here answers at once)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    coroutine.close()
    raise RuntimeError("the assembly waited for something: run it in an event loop")


def registry(n: int) -> PromptRegistry:
    registry = PromptRegistry()
    for name, value in VARIABLES.items():
        registry.add_variable(name, lambda _context, value=value: value)
    for i in range(n):
        registry.add_section(f"s{i}", 10 + i, unit(i))
    return registry


def main() -> None:
    rows = []
    for n in (1000, 10000):
        body = text(n)
        assert interpolate(body, VARIABLES, where="benchmark") == one_sub(body)
        figure, anchor = best_times(
            [
                lambda body=body: interpolate(body, VARIABLES, where="benchmark"),
                lambda body=body: one_sub(body),
            ]
        )
        rows.append((n, figure, anchor))
    render = table("render n units of normal text (µs); anchor: one re.sub pass", "units", rows)
    print(f"goal 4, render (within 1.3x): {'met' if render <= 1.3 else 'missed'}")
    print()

    rows = []
    floors = []
    for n in (10, 100):
        sections = registry(n)
        rendered = render_prompt(completed(sections.assemble()))
        joined = SECTION_JOINER.join(unit(i) for i in range(n))
        figure, anchor = best_times(
            [
                lambda sections=sections: render_prompt(completed(sections.assemble())),
                lambda joined=joined: interpolate(joined, VARIABLES, where="benchmark"),
            ]
        )
        assert rendered.endswith(interpolate(joined, VARIABLES, where="benchmark"))
        rows.append((n, figure, anchor))
        units = [unit(i) for i in range(n)]
        per_section, anchor = best_times(
            [
                lambda units=units: SECTION_JOINER.join([one_sub(text) for text in units]),
                lambda joined=joined: interpolate(joined, VARIABLES, where="benchmark"),
            ]
        )
        floors.append((n, per_section, anchor))
    assemble = table(
        "assemble + render n sections (µs); anchor: render of the same text once", "sections", rows
    )
    print(f"goal 4, assemble (within 1.5x): {'met' if assemble <= 1.5 else 'missed'}")
    print()
    table(
        "the per-section floor: one re.sub per section and a join (µs); anchor: one render",
        "sections",
        floors,
    )


if __name__ == "__main__":
    main()
