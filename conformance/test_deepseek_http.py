"""The ``deepseek-http`` cases: the implementation talks HTTP to the suite's loopback server."""

from __future__ import annotations

import pytest

from .cases.deepseek import WIRE
from .deepseek.deepseek_http import HttpCase
from .deepseek.http_rules import ALL_HTTP_CASES
from .deepseek.loopback import LoopbackServer
from .harness.transport import Implementation
from .run.execute import ConformanceFailure, check, require_capabilities


@pytest.fixture
def loopback_only() -> None:
    """The project's own run forbids sockets (pytest-socket); these cases may reach 127.0.0.1,
    and nothing else. Without pytest-socket (``dsh-conformance``) there is nothing to lift."""
    try:
        import pytest_socket
    except ImportError:
        return
    pytest_socket.enable_socket()
    pytest_socket.socket_allow_hosts(["127.0.0.1"], allow_unix_socket=True)


@pytest.mark.parametrize(
    "http_case",
    [pytest.param(case, id=case.id, marks=pytest.mark.contract(*WIRE)) for case in ALL_HTTP_CASES],
)
@pytest.mark.usefixtures("loopback_only")
def test_deepseek_http(impl: Implementation, http_case: HttpCase) -> None:
    """The adapter over real HTTP to the suite's loopback server yields the expected chunks."""
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
