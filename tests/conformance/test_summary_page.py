"""The summary page in a real browser: its views, its folds, its anchors, and no network.

Real runs (`summary_runs`: the reference and gallery implementations, each a run of its own; one
with a baseline; two runs of one gallery entry) are made into the three views of the page the way
a user makes them (``dsh-conformance summary … --format html``, in the runs' directory); headless
Chromium (Debian's ``chromium``) opens them through Playwright, and the checks act as a reader
would: look at what the page opens with, open a folded requirement, follow a link to a row, read
an expected failure's reason, read what newly fails. Each check is first shown failing on a page
broken on purpose. A screenshot of the default view is kept in pytest's base temporary directory
(or ``$DSH_TEST_ARTIFACTS``); `summary_runs` makes the figures of all three.

Marked ``browser``: the development fast subset leaves it out; CI runs it (``.ci/run`` installs
Chromium and sets ``DSH_REQUIRE_BROWSER``, so a missing browser fails there instead of skipping).
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from summary_runs import REASONS, STALE_ENTRY, make_page, make_runs
from warm_runner import WarmRunner

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: A case ``FarthestLayerWins`` fails (the nearest layer must win; it lets the farthest win),
#: which the "last release" run skipped: the comparison must list it as newly failing.
NEWLY_FAILING = "test_example[scopes/nearest-section-wins-on-a-chain-of-three]"


@pytest.fixture(scope="module")
def runs(
    warm_runner: WarmRunner, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, list[str]]]:
    directory = tmp_path_factory.mktemp("summary-runs")
    return directory, make_runs(warm_runner, directory)


@pytest.fixture(scope="module")
def pages(warm_runner: WarmRunner, runs: tuple[Path, dict[str, list[str]]]) -> dict[str, str]:
    """Each view's page, as ``dsh-conformance summary`` writes it."""
    directory, views = runs
    return {name: make_page(warm_runner, directory, arguments) for name, arguments in views.items()}


@pytest.fixture(scope="module")
def tab(browser: Any) -> Iterator[Any]:
    """One tab for the module's checks. Each check loads its page into it from a file of its own,
    a new document: nothing of an earlier check's page is left (its script's state, its open
    folds, its scrolling; the page keeps nothing in storage). A new tab per check started a
    renderer process each time, about 0.3 s of Chromium's CPU for each of the 13 pages opened."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    yield page
    page.close()


class Opened:
    """A page opened from a file in the tab, with every request the browser made for it."""

    opened = itertools.count()

    def __init__(self, tab: Any, html: str, directory: Path) -> None:
        path = directory / f"summary-{next(self.opened)}.html"
        path.write_text(html, encoding="utf-8")
        self.page = tab
        self.requests: list[str] = []
        self.page.on("request", self._requested)
        self.url = path.as_uri()
        self.page.goto(self.url)

    def _requested(self, request: Any) -> None:
        self.requests.append(request.url)

    def close(self) -> None:
        """Stop listening: the tab opens the next check's page."""
        self.page.remove_listener("request", self._requested)

    def visible(self, selector: str) -> int:
        return int(self.page.locator(selector).filter(visible=True).count())


@pytest.fixture
def view(tab: Any, pages: dict[str, str], tmp_path: Path) -> Iterator[Callable[[str], Opened]]:
    opened: list[Opened] = []

    def open_view(name: str) -> Opened:
        opened.append(Opened(tab, pages[name], tmp_path))
        return opened[-1]

    yield open_view
    for each in opened:
        each.close()


def check_default_view(view: Opened) -> None:
    """The page opens with the matrix, then only the failing and disagreeing test rows."""
    assert view.page.locator("#matrix").is_visible(), "the matrix is not shown"
    assert view.visible("#matrix tbody tr") >= 1, "the matrix has no contract row"
    first = view.page.locator("section").first.get_attribute("id")
    assert first == "verdict", f"the page opens with {first}, not the verdict"
    quiet = 'tr.case[data-failing="0"][data-disagree="0"]'
    assert view.page.locator(quiet).count() > 0, "the runs must have passing rows to fold"
    assert view.visible(quiet) == 0, "passing rows are shown before anyone asked for them"
    assert view.visible('tr.case[data-failing="1"]') > 0, "no failing row is shown"


def check_fold_opens(view: Opened) -> None:
    """A folded requirement's button shows exactly its passing rows, and hides them again."""
    button = view.page.locator("#tests button.unfold").first
    group, count = button.get_attribute("data-group"), int(button.get_attribute("data-count"))
    mine = f'tr.folded[data-group="{group}"]'
    assert view.page.locator(mine).count() == count > 0
    assert view.visible(mine) == 0
    button.click()
    assert view.visible(mine) == count, "opening the requirement did not show its rows"
    assert view.visible("tr.folded") == count, "another requirement opened too"
    button.click()
    assert view.visible(mine) == 0, "closing it again left rows shown"


def check_anchor_scrolls(view: Opened) -> None:
    """A link to a folded row (pasted into a review) opens its requirement and scrolls to it."""
    row = view.page.locator("tr.folded").last
    identifier = row.get_attribute("id")
    assert identifier and not row.is_visible()
    view.page.goto(f"{view.url}#{identifier}")
    assert row.is_visible(), "the linked row stayed folded"
    in_view = row.evaluate(
        "r => { const b = r.getBoundingClientRect(); "
        "return b.top >= 0 && b.bottom <= window.innerHeight; }"
    )
    assert in_view, "the linked row is not scrolled into view"


def check_expected_failure_reason(view: Opened) -> None:
    """An expected failure is listed apart, with the reason its baseline line gives; a stale
    entry is a finding of its own."""
    assert view.visible("#expected-table tr.expected") == len(REASONS)
    for reason in REASONS:
        cell = view.page.locator("#expected-table td.reason", has_text=reason)
        assert cell.count() == 1 and cell.is_visible(), f"the reason {reason!r} is not shown"
    failures = view.page.locator("#problem-table tr.case", has_text="expected failure")
    assert failures.count() == 0, "an expected failure is listed among the real ones"
    stale = view.page.locator("#stale-table tr.stale", has_text=STALE_ENTRY)
    assert stale.is_visible() and "names no test of this run" in stale.inner_text()


def check_newly_failing(view: Opened) -> None:
    """The comparison lists the test the second run newly fails, with both outcomes."""
    item = view.page.locator("ul.newly-failing li", has_text=NEWLY_FAILING)
    assert item.count() == 1 and item.is_visible(), "the newly failing test is not listed"
    assert "deselected → failed" in item.inner_text()


def check_failing_cell_opens(view: Opened) -> None:
    """Opening a failing cell shows the difference as the terminal does: pointer, expected, got."""
    cell = view.page.locator("#problem-table td.o-failed").first
    failure = cell.locator("pre.failure")
    assert not failure.is_visible(), "the difference shows before the cell is opened"
    cell.locator("summary").click()
    text = failure.inner_text() if failure.count() else ""
    assert failure.count() and failure.is_visible(), "opening the cell shows no difference"
    assert " at /" in text and "expected" in text and "why:" in text, text
    assert cell.locator("pre.ops").is_visible(), "the ops sent are not shown"


CHECKS: dict[str, tuple[str, Callable[[Opened], None], tuple[str, str]]] = {
    # name: (view, check, a break of the page that the check must catch)
    "default-view": ("default", check_default_view, (' folded" hidden', ' folded"')),
    "fold-opens": (
        "default",
        check_fold_opens,
        ('unfold(button, button.getAttribute("aria-expanded") !== "true");', ""),
    ),
    "anchor-scrolls": (
        "default",
        check_anchor_scrolls,
        ('window.addEventListener("hashchange", reveal);', ""),
    ),
    "expected-reason": (
        "baseline",
        check_expected_failure_reason,
        ('<td class="reason">', '<td class="reason" hidden>'),
    ),
    "newly-failing": (
        "comparison",
        check_newly_failing,
        ('<ul class="newly-failing">', '<ul class="newly-failing" hidden>'),
    ),
    "failing-cell": (
        "default",
        check_failing_cell_opens,
        ('<pre class="failure">', '<pre class="diff">'),
    ),
}


@pytest.mark.parametrize("name", list(CHECKS))
def test_the_page_passes_the_check(view: Callable[[str], Opened], name: str) -> None:
    which, check, _ = CHECKS[name]
    check(view(which))


@pytest.mark.parametrize("name", list(CHECKS))
def test_the_check_fails_on_a_page_broken_for_it(
    tab: Any, pages: dict[str, str], tmp_path: Path, name: str
) -> None:
    which, check, (old, new) = CHECKS[name]
    assert old in pages[which], f"the break of {name} no longer applies to the page"
    opened = Opened(tab, pages[which].replace(old, new), tmp_path)
    try:
        with pytest.raises(AssertionError):
            check(opened)
    finally:
        opened.close()


def test_no_path_shows_that_the_command_line_did_not_give(
    pages: dict[str, str], runs: tuple[Path, dict[str, list[str]]]
) -> None:
    directory = runs[0]
    for html in pages.values():
        for path in (directory, Path.cwd(), Path(__file__).parents[2], Path.home()):
            assert str(path) not in html, f"{path} is on the page"
        assert not re.search(r"[\s>(\"]/(home|tmp|work|usr|root)/", html)


def test_the_page_asks_for_nothing_but_itself(
    view: Callable[[str], Opened], tmp_path_factory: pytest.TempPathFactory
) -> None:
    opened = view("default")
    opened.page.locator("#problem-table td.o-failed summary").first.click()
    opened.page.locator("#tests button.unfold").first.click()
    artifacts = Path(os.environ.get("DSH_TEST_ARTIFACTS") or tmp_path_factory.getbasetemp())
    artifacts.mkdir(parents=True, exist_ok=True)
    opened.page.screenshot(path=str(artifacts / "summary-page.png"), full_page=True)
    assert opened.requests == [opened.url]
