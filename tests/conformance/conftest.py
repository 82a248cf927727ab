"""The runner's start-up shared by the tests that run ``dsh-conformance`` many times, and the
bytecode of `broken_harness.py`'s starts."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from warm_runner import WarmRunner


@pytest.fixture(scope="session")
def warm_runner() -> Iterator[WarmRunner]:
    """One `warm_runner` server for the session: each run still a process of its own."""
    runner = WarmRunner()
    yield runner
    runner.close()


@pytest.fixture(scope="session", autouse=True)
def broken_harness_bytecode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """`broken_harness.py` keeps the reference's bytecode in a directory of the session
    (``BROKEN_HARNESS_PYCACHE``, read by it alone), not compiling it again at each start."""
    os.environ["BROKEN_HARNESS_PYCACHE"] = str(tmp_path_factory.mktemp("broken-harness-pycache"))
    yield
    os.environ.pop("BROKEN_HARNESS_PYCACHE", None)
