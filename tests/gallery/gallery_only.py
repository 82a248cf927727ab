"""A pytest plugin for the gallery's fast runs (`isolated_runs`, ``-p gallery_only``): only the
tests named in ``$DSH_GALLERY_ONLY`` (a JSON list of the report's test names, the implementation
left out) are collected and run.

A wrong implementation's intended tests are the proof the fast tier needs (it fails them); the
rest of its contract is the proof that it fails *only* them, which the CI tier keeps
(`test_gallery.test_wrong_implementation_fails_only_its_intended_tests`). Most of such a small run
was collecting what it would not run: the suite's other test modules, and in a module it needs,
the other test functions and the hundreds of other example cases of ``test_example``, each a test
item pytest builds before anything can deselect it. So the suite's modules that define none of the
named tests are not collected, nor their other test functions, and a named function is
parametrized with the named parameters only; the report lists what was collected.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import sys
from collections.abc import Generator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import dsh_conformance
from dsh_conformance.run.plugin import _key, key_of

#: The suite's package, whose top-level ``test_*.py`` modules are its tests.
_PACKAGE = Path(dsh_conformance.__file__).parent


@functools.cache
def _wanted() -> frozenset[str]:
    return frozenset(json.loads(os.environ["DSH_GALLERY_ONLY"]))


@functools.cache
def _functions() -> frozenset[str]:
    """The wanted tests' function names (a test's name before its parameters)."""
    return frozenset(test.partition("[")[0] for test in _wanted())


def _suite_module(path: Path) -> ModuleType | None:
    """The suite's test module at ``path`` (imported as ``dsh_conformance.*``), if it is one."""
    module = sys.modules.get(f"dsh_conformance.{path.stem}")
    return module if module is not None and Path(str(module.__file__)) == path else None


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    """Within the suite's package, skip all but the test modules that define a wanted test (the
    subpackages hold no tests: pytest would walk every file of them for nothing)."""
    if _PACKAGE not in collection_path.parents or collection_path.name == "__init__.py":
        return None
    module = _suite_module(collection_path)
    if module is None:
        return True
    return None if any(hasattr(module, name) for name in _functions()) else True


def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: Any) -> Any:
    """No test item for a test function of the suite that none of the wanted tests runs."""
    if (
        name.startswith("test_")
        and inspect.isfunction(obj)
        and name not in _functions()
        and _suite_module(collector.path) is not None
    ):
        return []
    return None


@pytest.hookimpl(wrapper=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> Generator[None, None, None]:
    """A wanted function of the suite runs with the wanted parameters only: the calls the other
    plugins made (the cases, the implementation) are kept where their test is wanted."""
    yield
    if _suite_module(metafunc.definition.path) is not None:
        name = metafunc.definition.name
        # `_calls`: the parametrized calls pytest makes an item of each (pytest 9's `Metafunc`).
        metafunc._calls = [call for call in metafunc._calls if key_of(name, call) in _wanted()]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Whatever else was collected (a test outside the suite's modules) is deselected."""
    wanted = _wanted()
    kept = [item for item in items if _key(item) in wanted]
    left_out = [item for item in items if _key(item) not in wanted]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept
