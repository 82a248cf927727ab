"""Fixtures shared by the project's browser tests (marker `browser`).

`browser` is headless Debian Chromium driven by Playwright (the `test` extra; no browser is
downloaded). Without Chromium a browser test is skipped, unless `DSH_REQUIRE_BROWSER` is set, as
`.ci/run` does after installing it: there a missing browser fails instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

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


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session's browser tests."""
    executable = chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=executable, args=list(QUIET_CHROMIUM))
        yield launched
        launched.close()
