"""Stands in for pytest-xdist in `test_runner`: its ``--numprocesses``/``--dist`` options only."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--numprocesses", dest="numprocesses", default=None)
    parser.addoption("--dist", dest="dist", default="no")
