"""Starts the gallery's runs once collection is over, if `test_gallery.py` or
`test_right_impls.py` is to run (`gallery_runs`), and the fuzz gallery's lane, if
`test_fuzz_gallery.py` or `test_right_impls.py` is (`fuzz_runs`): they then run beside the rest
of the suite."""

from __future__ import annotations

import subprocess
from pathlib import Path

import fuzz_runs
import gallery_runs
import pytest

#: The tests the gallery's runs judge: the wrong implementations', the conforming variants'.
GALLERY_FILES = ("test_gallery.py", "test_right_impls.py")
RUNS = pytest.StashKey[tuple[Path, "subprocess.Popen[str]"]]()
LANE = pytest.StashKey[fuzz_runs.Lane]()
#: How many tests of the fuzz tier were deselected (by the test command's ``-m``, or by ``-k``).
UNFUZZED = pytest.StashKey[int]()


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        config = items[0].config
        left_out = sum(1 for item in items if item.get_closest_marker("fuzz"))
        config.stash[UNFUZZED] = config.stash.get(UNFUZZED, 0) + left_out


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say that the fuzz tier did not run, and how to run it: nothing is left out silently."""
    left_out = terminalreporter.config.stash.get(UNFUZZED, 0)
    if left_out:
        terminalreporter.write_line(
            f"{left_out} tests of the fuzz tier did not run (marker `fuzz`: `python -m pytest "
            "-m fuzz` runs them; CI runs the tier after the test command)"
        )


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.option.collectonly:
        return
    _start_gallery(session)
    _start_fuzz_lane(session)


def _start_gallery(session: pytest.Session) -> None:
    """The runs of the wrong implementations the selected tests of `test_gallery.py` judge (all
    of them, or those ``-k`` picks), the conforming variants' if `test_right_impls.py` is to run,
    and the control if either is."""
    gallery, variants = (Path(__file__).with_name(name) for name in GALLERY_FILES)
    # The wrong drivers whose runs a selected test judges (``-k Name`` runs that one alone).
    wrong = {
        item.callspec.params["driver"] if hasattr(item, "callspec") else gallery_runs.REBUILT
        for item in session.items
        if item.path == gallery
        and "reports" in _fixtures(item)
        and (hasattr(item, "callspec") or item.name.startswith("test_a_request_that_differs"))
    }
    # The variants whose runs a selected test judges, in the tests' order.
    right = {
        item.callspec.params["variant"]: None
        for item in session.items
        if item.path == variants and "reports" in _fixtures(item) and hasattr(item, "callspec")
    }
    if not (wrong or right or any(item.path == gallery for item in session.items)):
        return
    judged = [item.path in (gallery, variants) for item in session.items]
    # What the `tmp_path_factory` fixture returns, which no hook can request.
    factory: pytest.TempPathFactory = session.config._tmp_path_factory  # type: ignore[attr-defined]
    outdir = factory.mktemp("gallery")
    # Beside other tests, one run at a time: a core for them, a core for the gallery.
    parallel = 2 if all(judged) else 1
    process = gallery_runs.start(outdir, parallel, wrong=wrong, right=right)
    session.config.stash[RUNS] = (outdir, process)


def _fixtures(item: pytest.Item) -> tuple[str, ...]:
    return tuple(getattr(item, "fixturenames", ()))


def _start_fuzz_lane(session: pytest.Session) -> None:
    """The entries the selected tests fuzz, each with its family, in the tests' order: the
    fuzz gallery's wrong implementations, and the conforming variants (`right_impls`), each
    once per family it is fuzzed in (``right_impls:Name@family``)."""
    fuzz_gallery = Path(__file__).with_name("test_fuzz_gallery.py")
    variants = Path(__file__).with_name(GALLERY_FILES[1])
    drivers: dict[str, str] = {}
    for item in session.items:
        if not (isinstance(item, pytest.Function) and hasattr(item, "callspec")):
            continue
        params = item.callspec.params
        if item.path == fuzz_gallery:
            drivers[params["driver"]] = item.module.REACHED[params["driver"]]
        elif item.path == variants and "fuzz_lane" in item.fixturenames:
            drivers[f"right_impls:{params['variant']}@{params['family']}"] = params["family"]
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
    """The directory of every run's report: each wrong driver and conforming variant, then the
    unchanged reference."""
    outdir, process = pytestconfig.stash[RUNS]
    printed, _ = process.communicate(timeout=1800)
    assert process.returncode == 0, printed
    return outdir


@pytest.fixture(scope="module")
def fuzz_lane(pytestconfig: pytest.Config) -> fuzz_runs.Lane:
    """The fuzz gallery's verdicts, as the lane and the tests make them."""
    return pytestconfig.stash[LANE]
