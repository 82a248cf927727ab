"""What every test of the project shares, in a conftest of the tests' root so that the controller
of a pytest-xdist run loads it too (it collects nothing, so it loads no conftest further down).

- The end of the test command says which tests of the CI tier it left out, and how to run them:
  nothing is left out silently.
- `browser` is headless Debian Chromium driven by Playwright (the `test` extra; no browser is
  downloaded) for the browser tests (marker `browser`). Without Chromium a browser test is
  skipped, unless `DSH_REQUIRE_BROWSER` is set, as `.ci/run` does after installing it: there a
  missing browser fails instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

#: The CI tier: the markers the test command leaves out (pyproject.toml's ``-m``).
CI_TIER = ("fuzz", "exhaustive")
#: How many tests of the CI tier were deselected (by the test command's ``-m``, or by ``-k``).
UNFUZZED = pytest.StashKey[int]()


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        config = items[0].config
        left_out = sum(
            1 for item in items if any(item.get_closest_marker(name) for name in CI_TIER)
        )
        config.stash[UNFUZZED] = config.stash.get(UNFUZZED, 0) + left_out


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under pytest-xdist, a worker's count goes to the controller, which says it."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["dsh-gallery-unfuzzed"] = session.config.stash.get(UNFUZZED, 0)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any) -> None:
    """The count of a worker (each collected and deselected the same tests)."""
    count = getattr(node, "workeroutput", {}).get("dsh-gallery-unfuzzed", 0)
    config = node.config
    config.stash[UNFUZZED] = max(config.stash.get(UNFUZZED, 0), count)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say that the CI tier did not run, and how to run it: nothing is left out silently."""
    left_out = terminalreporter.config.stash.get(UNFUZZED, 0)
    if left_out:
        terminalreporter.write_line(
            f"{left_out} tests of the CI tier did not run (markers `fuzz` and `exhaustive`: "
            "`python -m pytest -m 'fuzz or exhaustive'` runs them; CI runs the tier after the "
            "test command)"
        )


#: Flags that keep a headless Chromium off the network on a closed machine.
QUIET_CHROMIUM = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-sandbox",
)


def chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        message = "Debian's chromium is not installed (apt-get install chromium)"
        if os.environ.get("DSH_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for a module's browser tests. Not for the session: Playwright's
    synchronous API runs an event loop in this thread while the browser is open, and every later
    test calling `asyncio.run` (the in-process reference does) would fail beside it."""
    executable = chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=executable, args=list(QUIET_CHROMIUM))
        yield launched
        launched.close()
