"""A pytest plugin for the gallery's fast runs (`isolated_runs`, ``-p gallery_only``): only the
tests named in ``$DSH_GALLERY_ONLY`` (a JSON list of the report's test names, the implementation
left out) run; the suite's plugin reports every other test of the contract as deselected.

A wrong implementation's intended tests are the proof the fast tier needs (it fails them); the
rest of its contract is the proof that it fails *only* them, which the CI tier keeps
(`test_gallery.test_wrong_implementation_fails_only_its_intended_tests`).
"""

from __future__ import annotations

import json
import os

import pytest

from dsh_conformance.run.plugin import _key


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = set(json.loads(os.environ["DSH_GALLERY_ONLY"]))
    kept = [item for item in items if _key(item) in wanted]
    left_out = [item for item in items if _key(item) not in wanted]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept
