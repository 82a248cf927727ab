"""A pytest plugin for the gallery's fast runs (`isolated_runs`, ``-p gallery_only``): only the
tests named in ``$DSH_GALLERY_ONLY`` (a JSON list of the report's test names, the implementation
left out) run; the suite's plugin reports every other test of the contract as deselected.

A wrong implementation's intended tests are the proof the fast tier needs (it fails them); the
rest of its contract is the proof that it fails *only* them, which the CI tier keeps
(`test_gallery.test_wrong_implementation_fails_only_its_intended_tests`). The suite's test
modules that define none of the named tests are not even collected: most of such a small run
was collecting the rest of the suite.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from dsh_conformance.run.plugin import _key


def _wanted() -> set[str]:
    return set(json.loads(os.environ["DSH_GALLERY_ONLY"]))


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    """Skip a test module of the suite that defines none of the wanted tests (by the function
    name before a test's parameters)."""
    module = sys.modules.get(f"dsh_conformance.{collection_path.stem}")
    if module is None or Path(str(module.__file__)) != collection_path:
        return None
    functions = {test.partition("[")[0] for test in _wanted()}
    return None if any(hasattr(module, name) for name in functions) else True


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = _wanted()
    kept = [item for item in items if _key(item) in wanted]
    left_out = [item for item in items if _key(item) not in wanted]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept
