"""The runner's start-up shared by the tests that run ``dsh-conformance`` many times."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from warm_runner import WarmRunner


@pytest.fixture(scope="session")
def warm_runner() -> Iterator[WarmRunner]:
    """One `warm_runner` server for the session: each run still a process of its own."""
    runner = WarmRunner()
    yield runner
    runner.close()
