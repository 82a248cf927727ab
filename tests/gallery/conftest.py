"""Starts the gallery's runs once collection is over, if `test_gallery.py` is to run
(`gallery_runs`): they then run beside the rest of the suite."""

from __future__ import annotations

import subprocess
from pathlib import Path

import gallery_runs
import pytest

RUNS = pytest.StashKey[tuple[Path, "subprocess.Popen[str]"]]()


def pytest_collection_finish(session: pytest.Session) -> None:
    gallery = Path(__file__).with_name("test_gallery.py")
    judged = [item.path == gallery for item in session.items]
    if session.config.option.collectonly or not any(judged):
        return
    # What the `tmp_path_factory` fixture returns, which no hook can request.
    factory: pytest.TempPathFactory = session.config._tmp_path_factory  # type: ignore[attr-defined]
    outdir = factory.mktemp("gallery")
    # Beside other tests, one run at a time: a core for them, a core for the gallery.
    parallel = 2 if all(judged) else 1
    session.config.stash[RUNS] = (outdir, gallery_runs.start(outdir, parallel))


def pytest_unconfigure(config: pytest.Config) -> None:
    """An interrupted session leaves no runs behind."""
    runs = config.stash.get(RUNS, None)
    if runs is not None:
        gallery_runs.stop(runs[1])


@pytest.fixture(scope="module")
def reports(pytestconfig: pytest.Config) -> Path:
    """The directory of every run's report: each wrong driver, then the unchanged reference."""
    outdir, process = pytestconfig.stash[RUNS]
    printed, _ = process.communicate(timeout=1800)
    assert process.returncode == 0, printed
    return outdir
