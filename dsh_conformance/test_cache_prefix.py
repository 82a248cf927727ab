"""PROMPT-CACHE-E2E offline: each request body extends the previous one byte for byte.

Capability ``deepseek-http``: the implementation sends the three requests of
`dsh_conformance.deepseek.cache_conversation` through its own HTTP adapter to the suite's loopback
server, and the raw bodies that arrived are judged by `dsh_conformance.judge.prefix_stability`. No
key, no network beyond 127.0.0.1: this is the half of PROMPT-CACHE-E2E that runs everywhere.
"""

from __future__ import annotations

import pytest

from .deepseek.cache_conversation import CACHE, REQUIRES, RESPONSES, WHY, conversation_case
from .deepseek.cache_conversation import conversation_problems as problems_of
from .deepseek.loopback import LoopbackServer
from .harness.transport import Implementation
from .run.execute import ConformanceFailure, check, require_capabilities
from .test_deepseek_http import loopback_only  # noqa: F401  (the fixture, used by name)


@pytest.mark.contract(*CACHE)
@pytest.mark.usefixtures("loopback_only")
def test_each_request_extends_the_previous_one(impl: Implementation) -> None:
    """A tool round trip and a follow-up turn: every body's messages extend the previous body's."""
    __tracebackhide__ = True
    require_capabilities(impl, REQUIRES)
    with LoopbackServer(list(RESPONSES)) as server:
        case = conversation_case(server.base_url)
        check(impl, case)
        recorded = server.recorded
    problems = problems_of(recorded)
    if problems:
        lines = "\n".join(f"  - {problem}" for problem in problems)
        raise ConformanceFailure(
            f"{case.id} (the raw bodies that reached the server):\n{lines}\nwhy: {WHY}"
        )
