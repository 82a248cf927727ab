"""The suite installed beside another project changes nothing in that project's pytest runs.

The plugin has no ``pytest11`` entry point, so an unrelated project never loads it; and even a
project that loads it on purpose (``-p dsh_conformance.run.plugin``) keeps its own fixture named
``impl``, its own Hypothesis profile, and every test under ``--contract``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

#: Not in the fast subset (`-m "not slow"`):
#: pytest runs of another project, in processes of their own.
pytestmark = pytest.mark.slow

OTHER_PROJECT = {
    "pytest.ini": "[pytest]\naddopts = -q -p no:cacheprovider\n",
    "conftest.py": """
import pytest
from hypothesis import settings

# Neither the suite's 60 examples nor Hypothesis's default 100 (and few: each run runs them).
settings.register_profile("theirs", max_examples=7, deadline=1000)
settings.load_profile("theirs")


@pytest.fixture
def impl():
    return "their own implementation"
""",
    "test_theirs.py": """
from hypothesis import given, settings, strategies as st


def test_their_impl_fixture(impl):
    assert impl == "their own implementation"


@given(st.integers())
def test_their_hypothesis_profile(number):
    assert settings.default.max_examples == 7
    assert settings.default.deadline is not None
""",
}


def run_pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
        check=False,
    )


def make_project(tmp_path: Path) -> Path:
    for name, text in OTHER_PROJECT.items():
        (tmp_path / name).write_text(text.lstrip(), encoding="utf-8")
    return tmp_path


def test_an_unrelated_project_never_loads_the_plugin(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    completed = run_pytest(project)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "2 passed" in completed.stdout
    refused = run_pytest(project, "--impl", "reference")
    assert refused.returncode == 4 and "unrecognized arguments: --impl" in refused.stderr


def test_loaded_on_purpose_it_leaves_the_projects_own_tests_alone(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    completed = run_pytest(
        project, "-p", "dsh_conformance.run.plugin", "--contract", "PROMPT-REGISTRY-CONTRACT"
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "2 passed" in completed.stdout
    assert "deselected" not in completed.stdout
