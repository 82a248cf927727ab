"""Starts the gallery's runs once collection is over, if `test_gallery.py` or
`test_right_impls.py` is to run (`gallery_runs`), and the fuzz gallery's lane, if
`test_fuzz_gallery.py` or `test_right_impls.py` is (`fuzz_runs`): they then run beside the rest
of the suite, whose tests come first (the tests that wait for the runs are moved last).

Under pytest-xdist every worker collects every test: each starts its share of the gallery's runs
and a lane of its own, all in one directory beside the workers' own temporary directories, so
that each run happens once (`gallery_runs.share`; the lanes claim entries as the tests do)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import fuzz_runs
import gallery_runs
import pytest

#: The tests the gallery's runs judge: the wrong implementations', the conforming variants'.
GALLERY_FILES = ("test_gallery.py", "test_right_impls.py")
RUNS = pytest.StashKey[tuple[Path, "subprocess.Popen[str]", int]]()
LANE = pytest.StashKey[fuzz_runs.Lane]()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that wait for the gallery's runs or the lane last: everything else runs while
    the runs go on (and under pytest-xdist no worker waits while tests are left)."""
    waiting = {"reports", "fuzz_lane"}
    items.sort(key=lambda item: bool(waiting & set(_fixtures(item))))


def _share(config: pytest.Config) -> tuple[int, int]:
    """This process's share of the runs: (index, count); (0, 1) outside pytest-xdist."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return 0, 1
    return int(workerinput["workerid"].removeprefix("gw")), int(workerinput["workercount"])


def _directory(session: pytest.Session, name: str) -> Path:
    """A directory for runs shared by every worker of this session (one's own outside xdist):
    a worker's temporary directory is one of the controller's, so theirs is beside it."""
    # What the `tmp_path_factory` fixture returns, which no hook can request.
    factory: pytest.TempPathFactory = session.config._tmp_path_factory  # type: ignore[attr-defined]
    if not hasattr(session.config, "workerinput"):
        return factory.mktemp(name)
    directory = factory.getbasetemp().parent / name
    directory.mkdir(exist_ok=True)
    return directory


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.option.collectonly:
        return
    _start_gallery(session)
    _start_fuzz_lane(session)


def _start_gallery(session: pytest.Session) -> None:
    """The runs of the wrong implementations the selected tests of `test_gallery.py` judge (all
    of them, or those ``-k`` picks), the conforming variants' and their witnesses if
    `test_right_impls.py` is to run, and the control if `test_gallery.py` is."""
    gallery, variants = (Path(__file__).with_name(name) for name in GALLERY_FILES)
    # The wrong drivers whose runs a selected test judges (``-k Name`` runs that one alone).
    wrong = {
        item.callspec.params["driver"] if hasattr(item, "callspec") else gallery_runs.REBUILT
        for item in session.items
        if item.path == gallery
        and "reports" in _fixtures(item)
        and (hasattr(item, "callspec") or item.name.startswith("test_a_request_that_differs"))
    }
    # The variants whose runs a selected test judges, and those whose witness one compares, in
    # the tests' order.
    right, witnesses = (
        {
            item.callspec.params["variant"]: None
            for item in session.items
            if item.path == variants
            and "reports" in _fixtures(item)
            and getattr(item, "originalname", "") == test
        }
        for test in (
            "test_the_variant_passes_every_contract",
            "test_the_witness_tells_the_variant_from_the_reference",
        )
    )
    # The control run is judged by `test_gallery.py` alone.
    control = any(item.path == gallery for item in session.items)
    if not (control or wrong or right or witnesses):
        return
    exhaustive = any(
        item.path in (gallery, variants) and item.get_closest_marker("exhaustive")
        for item in session.items
    )
    judged = [item.path in (gallery, variants) for item in session.items]
    outdir = _directory(session, "gallery")
    index, count = _share(session.config)
    # Beside other tests (or other workers), one run at a time: a core for them, one for these.
    parallel = 2 if all(judged) and count == 1 else 1
    todo = gallery_runs.jobs(wrong, right, exhaustive, witnesses, control)
    process = gallery_runs.start(outdir, parallel, gallery_runs.share(todo, index, count))
    session.config.stash[RUNS] = (outdir, process, count)


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
        lane = fuzz_runs.Lane.start(_directory(session, "fuzz"), drivers)
        lane.helps = _share(session.config)[1] == 1
        session.config.stash[LANE] = lane


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
    outdir, process, shares = pytestconfig.stash[RUNS]
    printed, _ = process.communicate(timeout=1800)
    assert process.returncode == 0, printed
    gallery_runs.wait_for_shares(outdir, shares)
    return outdir


@pytest.fixture(scope="module")
def fuzz_lane(pytestconfig: pytest.Config) -> fuzz_runs.Lane:
    """The fuzz gallery's verdicts, as the lane and the tests make them."""
    return pytestconfig.stash[LANE]
