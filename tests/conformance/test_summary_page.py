"""The summary page in a real browser: its filters, its failing cells, and no network.

Three real runs (the reference and two wrong implementations of the gallery, each a run of its
own) are merged into the page; headless Chromium (Debian's ``chromium``) opens it through
Playwright, and the checks act as a reader would: tick a filter, open a cell. The checks are
themselves shown able to fail, on pages broken on purpose. A screenshot of the page is kept in
pytest's base temporary directory (or ``$DSH_TEST_ARTIFACTS``).

Marked ``browser``: the development fast subset leaves it out; CI runs it (``.ci/run`` installs
Chromium and sets ``DSH_REQUIRE_BROWSER``, so a missing browser fails there instead of skipping;
the ``browser`` fixture is in ``tests/conftest.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.run.page import page as render_page
from conformance.run.summary import load

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GALLERY = Path(__file__).parents[1] / "gallery"
CONTRACT = "DESIGN-SCOPED-LAYERS"
IMPLEMENTATIONS = (
    "reference",
    "wrong_impls:FarthestLayerWins",
    "wrong_impls:LastListenerOutermost",
)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """One JSON report per implementation, each from a run of its own."""
    outdir = tmp_path_factory.mktemp("summary-runs")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(GALLERY), os.environ.get("PYTHONPATH", "")]),
    }
    paths = []
    for number, impl in enumerate(IMPLEMENTATIONS):
        path = outdir / f"run{number}.json"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "conformance.run.runner",
                "--impl",
                impl,
                "--contract",
                CONTRACT,
                "-k",
                "test_example",
                "--conformance-json",
                str(path),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert path.is_file(), f"the run of {impl} wrote no report"
        paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def html(reports: list[str]) -> str:
    return render_page(load(reports), command=["dsh-conformance", "summary", *reports])


class Opened:
    """A page opened from a file, with every request the browser made for it."""

    def __init__(self, browser: Any, html: str, directory: Path) -> None:
        path = directory / "summary.html"
        path.write_text(html, encoding="utf-8")
        self.page = browser.new_page()
        self.requests: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.goto(path.as_uri())
        self.url = path.as_uri()

    def visible(self, selector: str) -> int:
        return int(self.page.locator(selector).filter(visible=True).count())


@pytest.fixture
def opened(browser: Any, html: str, tmp_path: Path) -> Iterator[Opened]:
    view = Opened(browser, html, tmp_path)
    yield view
    view.page.close()


def check_disagreement_filter(view: Opened) -> None:
    """Ticking "only where they disagree" hides every agreeing test row and keeps the others."""
    agreeing = 'tr.case[data-disagree="0"]'
    disagreeing = 'tr.case[data-disagree="1"]'
    total_disagreeing = view.page.locator(disagreeing).count()
    assert view.visible(agreeing) > 0 and total_disagreeing > 0, "the runs must agree and differ"
    view.page.check("#only-disagree")
    assert view.visible(agreeing) == 0, "agreeing rows still shown with the filter on"
    assert view.visible(disagreeing) == total_disagreeing, "the filter hid a disagreeing row"
    view.page.uncheck("#only-disagree")
    assert view.visible(agreeing) > 0, "agreeing rows stay hidden after the filter is off"


def check_failing_cell_opens(view: Opened) -> None:
    """Opening a failing cell shows the difference as the terminal does: pointer, expected, got."""
    cell = view.page.locator("td.o-failed").first
    failure = cell.locator("pre.failure")
    assert not failure.is_visible(), "the difference shows before the cell is opened"
    cell.locator("summary").click()
    text = failure.inner_text() if failure.count() else ""
    assert failure.count() and failure.is_visible(), "opening the cell shows no difference"
    assert " at /" in text and "expected" in text and "why:" in text, text
    assert cell.locator("pre.ops").is_visible(), "the ops sent are not shown"


def test_the_disagreement_filter_hides_agreeing_rows(opened: Opened) -> None:
    check_disagreement_filter(opened)


def test_only_failures_leaves_failing_rows(opened: Opened) -> None:
    opened.page.check("#only-failures")
    assert opened.visible('tr.case[data-failing="0"]') == 0
    assert opened.visible('tr.case[data-failing="1"]') > 0


def test_a_failing_cell_opens_its_difference(opened: Opened) -> None:
    check_failing_cell_opens(opened)


def test_the_page_asks_for_nothing_but_itself(
    opened: Opened, tmp_path_factory: pytest.TempPathFactory
) -> None:
    opened.page.check("#only-disagree")
    opened.page.locator("td.o-failed summary").first.click()
    artifacts = Path(os.environ.get("DSH_TEST_ARTIFACTS") or tmp_path_factory.getbasetemp())
    artifacts.mkdir(parents=True, exist_ok=True)
    opened.page.screenshot(path=str(artifacts / "summary-page.png"), full_page=True)
    assert opened.requests == [opened.url]


@pytest.mark.parametrize(
    ("broken", "check"),
    [
        (('disagree.addEventListener("change", applyFilters);', ""), check_disagreement_filter),
        (('<pre class="failure">', '<pre class="diff">'), check_failing_cell_opens),
    ],
    ids=["filter-never-applied", "cell-without-difference"],
)
def test_the_checks_fail_on_a_broken_page(
    browser: Any,
    html: str,
    tmp_path: Path,
    broken: tuple[str, str],
    check: Callable[[Opened], None],
) -> None:
    old, new = broken
    assert old in html
    view = Opened(browser, html.replace(old, new), tmp_path)
    try:
        with pytest.raises(AssertionError):
            check(view)
    finally:
        view.page.close()
