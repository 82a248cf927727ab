"""The ``deepseek-http`` cases: the implementation talks HTTP to the suite's loopback server."""

from __future__ import annotations

import pytest

from .deepseek.deepseek_http import HttpCase
from .deepseek.http_rules import ALL_HTTP_CASES
from .deepseek.loopback import LoopbackServer, allow_loopback_sockets
from .harness.transport import Implementation
from .run.execute import ConformanceFailure, check, require_capabilities


@pytest.fixture
def loopback_only() -> None:
    """These cases may reach 127.0.0.1, and nothing else (`allow_loopback_sockets`)."""
    allow_loopback_sockets()


@pytest.mark.parametrize(
    "http_case",
    [
        pytest.param(case, id=case.id, marks=pytest.mark.contract(*case.contracts))
        for case in ALL_HTTP_CASES
    ],
)
@pytest.mark.usefixtures("loopback_only")
def test_deepseek_http(impl: Implementation, http_case: HttpCase) -> None:
    """The adapter over real HTTP to the suite's loopback server yields the expected chunks."""
    __tracebackhide__ = True
    check_http(impl, http_case)


def check_http(impl: Implementation, http_case: HttpCase) -> None:
    """Run ``http_case`` on ``impl`` against one loopback server and fail the current test
    unless the chunks observed and what reached the server are as expected (`check`, then
    `HttpCase.sent_problems`)."""
    __tracebackhide__ = True
    require_capabilities(impl, ("deepseek-http",))
    with LoopbackServer(http_case.responses()) as server:
        check(impl, http_case.case(server.base_url))
        recorded = server.recorded
    problems = http_case.sent_problems(recorded)
    if problems:
        lines = "\n".join(f"  - {problem}" for problem in problems)
        raise ConformanceFailure(
            f"{http_case.id} (what reached the server):\n{lines}\nwhy: {http_case.why}"
        )
