"""Starts the gallery's runs once collection is over, if `test_gallery.py` is to run
(`gallery_runs`), and the fuzz gallery's lane, if `test_fuzz_gallery.py` is (`fuzz_runs`): they
then run beside the rest of the suite."""

from __future__ import annotations

import subprocess
from pathlib import Path

import fuzz_runs
import gallery_runs
import pytest

RUNS = pytest.StashKey[tuple[Path, "subprocess.Popen[str]"]]()
LANE = pytest.StashKey[fuzz_runs.Lane]()


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.option.collectonly:
        return
    _start_gallery(session)
    _start_fuzz_lane(session)


def _start_gallery(session: pytest.Session) -> None:
    gallery = Path(__file__).with_name("test_gallery.py")
    judged = [item.path == gallery for item in session.items]
    if not any(judged):
        return
    # What the `tmp_path_factory` fixture returns, which no hook can request.
    factory: pytest.TempPathFactory = session.config._tmp_path_factory  # type: ignore[attr-defined]
    outdir = factory.mktemp("gallery")
    # Beside other tests, one run at a time: a core for them, a core for the gallery.
    parallel = 2 if all(judged) else 1
    session.config.stash[RUNS] = (outdir, gallery_runs.start(outdir, parallel))


def _start_fuzz_lane(session: pytest.Session) -> None:
    """The entries the selected tests fuzz, each with its family, in the tests' order."""
    fuzz_gallery = Path(__file__).with_name("test_fuzz_gallery.py")
    drivers = {
        item.callspec.params["driver"]: item.module.REACHED[item.callspec.params["driver"]]
        for item in session.items
        if item.path == fuzz_gallery
        and isinstance(item, pytest.Function)
        and hasattr(item, "callspec")
    }
    if drivers:
        factory: pytest.TempPathFactory = session.config._tmp_path_factory  # type: ignore[attr-defined]
        session.config.stash[LANE] = fuzz_runs.Lane.start(factory.mktemp("fuzz"), drivers)


def pytest_unconfigure(config: pytest.Config) -> None:
    """An interrupted session leaves no runs behind."""
    runs = config.stash.get(RUNS, None)
    if runs is not None:
        gallery_runs.stop(runs[1])
    lane = config.stash.get(LANE, None)
    if lane is not None:
        lane.stop()


@pytest.fixture(scope="module")
def reports(pytestconfig: pytest.Config) -> Path:
    """The directory of every run's report: each wrong driver, then the unchanged reference."""
    outdir, process = pytestconfig.stash[RUNS]
    printed, _ = process.communicate(timeout=1800)
    assert process.returncode == 0, printed
    return outdir


@pytest.fixture(scope="module")
def fuzz_lane(pytestconfig: pytest.Config) -> fuzz_runs.Lane:
    """The fuzz gallery's verdicts, as the lane and the tests make them."""
    return pytestconfig.stash[LANE]
