"""The shape of the tree: imports run one way, and no module grows past a reader's reach.

The packages of `dsh_conformance/` are layered (its ``__init__`` docstring draws the map): a package
imports only the packages `LAYERS` lets it, and no two modules import each other, directly or around
a circle. `dsh_reference/` has no package layers to speak of, but no circle either. A module of more
than `LONG` lines says in its docstring why it is one module (`LONG_REASON`). The import graph is
read from the source (``ast``), so the test sees imports inside functions too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: What each package of `dsh_conformance/` may import (besides itself). ``""`` is the package's own
#: ``__init__`` (it re-exports the protocol version and the case type); ``test`` stands for the
#: suite's test modules at its top (``dsh_conformance/test_*.py``), which may import anything.
LAYERS: dict[str, frozenset[str]] = {
    "test": frozenset(
        {"", "run", "cases", "deepseek", "fuzz", "harness", "requirements", "judge", "scenarios"}
    ),
    "run": frozenset(
        {"", "cases", "deepseek", "fuzz", "harness", "requirements", "judge", "scenarios"}
    ),
    "fuzz": frozenset({"deepseek", "harness", "judge", "scenarios"}),
    "deepseek": frozenset({"cases", "harness", "judge", "scenarios"}),
    "cases": frozenset({"judge", "scenarios"}),
    "harness": frozenset({"judge"}),
    "requirements": frozenset({"judge"}),
    "": frozenset({"harness", "judge"}),
    "judge": frozenset({"scenarios"}),
    "scenarios": frozenset(),
}

#: A module longer than this many lines must say why in its docstring.
LONG = 800
#: The words that open that reason, so that a reader (and this test) finds it.
LONG_REASON = "Why one module:"


def _modules(package: str) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """The modules of ``modules`` that ``name`` imports (``from x import y`` may name a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            # ``from package import module`` imports the module; anything else, the target itself.
            candidates = [
                f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target
                for alias in node.names
            ]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        yield from (c for c in candidates if c in modules and c != name)


def _graph(package: str) -> dict[str, set[str]]:
    modules = _modules(package)
    return {name: set(_imports(name, path, modules)) for name, path in modules.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        circles.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return circles


def _layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return ""
    return "test" if parts[1].startswith("test_") else parts[1]


@pytest.mark.parametrize("package", ["dsh_conformance", "dsh_reference"])
def test_no_module_imports_itself_around_a_circle(package: str) -> None:
    assert _circles(_graph(package)) == []


def test_conformance_packages_import_only_downwards() -> None:
    back_arrows = sorted(
        f"{module} -> {target}"
        for module, targets in _graph("dsh_conformance").items()
        for target in targets
        if _layer(target) != _layer(module) and _layer(target) not in LAYERS[_layer(module)]
    )
    assert back_arrows == []


def test_every_conformance_package_has_a_layer() -> None:
    assert {_layer(module) for module in _modules("dsh_conformance")} <= set(LAYERS)


@pytest.mark.parametrize("package", ["dsh_conformance", "dsh_reference"])
def test_a_long_module_says_why_it_is_one(package: str) -> None:
    unexplained = []
    for name, path in _modules(package).items():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > LONG and LONG_REASON not in (
            ast.get_docstring(ast.parse(text)) or ""
        ):
            unexplained.append(f"{name} ({text.count(chr(10))} lines)")
    assert unexplained == []


def test_the_circle_finder_finds_a_circle() -> None:
    """The checks above pass on an empty answer, so the finder is shown able to find one."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _circles(graph) == [["a", "b", "c"]]
