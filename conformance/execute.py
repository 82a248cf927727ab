"""Running one case against one implementation, and turning the outcome into a test result.

`check` is what every conformance test calls: it sends the case, and passes, fails (the
observations differ from the expectations), skips (the implementation said so, or lacks a
capability the case needs: "not applicable"), or raises `ImplementationErrored`.
"""

from __future__ import annotations

import json
from typing import Any, Final

import pytest

from .case import Case, mismatches
from .invariant import check_requests
from .logfold import fold_log
from .protocol import ProtocolError
from .transport import Implementation

Json = Any

#: Skip reasons starting with this are reported as "not applicable", apart from skips.
NOT_APPLICABLE: Final = "not applicable:"


class ImplementationErrored(Exception):
    """The implementation could not produce observations: crash, hang, garbage, or ``errored``."""


class ConformanceFailure(AssertionError):
    """The observations differ from what the contracts require."""


def check(impl: Implementation, case: Case) -> list[Json]:
    """Run ``case`` on ``impl`` and fail the current test unless every expectation holds.

    For a loop case, the log of every agent is also folded by the suite (`conformance.logfold`),
    and a rule it breaks fails the case when the rule belongs to one of the case's contracts.
    """
    __tracebackhide__ = True
    observations, finals = _run(impl, case)
    problems = mismatches(case, observations)
    for agent, final in finals.items():
        if _final_problem(final) is None:
            problems += [
                f"agent {agent!r}, the suite's fold of its log: {violation}"
                for violation in fold_log(final["log"]).violations
                if violation.contract in case.contracts
            ]
    _fail_on(case, problems, case.contracts)
    return observations


def check_invariant(impl: Implementation, case: Case) -> None:
    """LOGGEDLOOP-REQUEST-INVARIANT and ROOT-MODEL over every request of a loop case.

    Run on every implementation, from the log and the requests it reports after the case's last
    op, with the suite's own fold: never the implementation's own check. A final observation
    that is missing or not a log fails too: an unchecked case must not pass.
    """
    __tracebackhide__ = True
    observations, finals = _run(impl, case)
    contracts = ("ROOT-MODEL", "LOGGEDLOOP-REQUEST-INVARIANT")
    problems = []
    if len(finals) != len(case.agents()):
        problems.append(f"expected one observation per op and per agent, got {len(observations)}")
    for agent, final in finals.items():
        problem = _final_problem(final)
        if problem is not None:
            problems.append(f"agent {agent!r}: the final observe {problem}")
            continue
        log, requests = final["log"], final["requests"]
        problems += [
            f"agent {agent!r}: {v}" for v in check_requests(log, requests, final.get("sessionId"))
        ]
        problems += [
            f"agent {agent!r}, the suite's fold of its log: {violation}"
            for violation in fold_log(log).violations
            if violation.contract in contracts
        ]
    _fail_on(case, problems, contracts)


def _run(impl: Implementation, case: Case) -> tuple[list[Json], dict[str, Json]]:
    """The case's observations, and for a loop case the final ``observe`` of every agent (none
    when the implementation answered with another number of observations)."""
    __tracebackhide__ = True
    if impl.latched_error is not None:
        # Within one test (a hypothesis property runs many cases), the first error decides:
        # retrying a crashing or hanging implementation only makes the run slower.
        raise impl.latched_error
    require_capabilities(impl, case.requires)
    agents = case.agents()
    scenario = case.scenario()
    scenario["ops"] += [{"op": "observe", "agent": agent} for agent in agents]
    outcome = impl.run(case.id, scenario)
    if outcome.kind == "skipped":
        pytest.skip(f"skipped by the implementation: {outcome.reason}")
    if outcome.kind == "errored":
        context = "" if outcome.context is None else "\n" + _format_context(outcome.context)
        impl.latched_error = ImplementationErrored(f"{case.id}: {outcome.reason}{context}")
        raise impl.latched_error
    observations = outcome.observations
    if (
        not agents
        or not isinstance(observations, list)
        or len(observations) != len(scenario["ops"])
    ):
        return observations, {}
    count = len(case.ops)
    return observations[:count], dict(zip(agents, observations[count:], strict=True))


def _final_problem(final: Json) -> str | None:
    """Why a final ``observe`` answer cannot be checked, or ``None``."""
    if (
        isinstance(final, dict)
        and isinstance(final.get("log"), list)
        and isinstance(final.get("requests"), list)
    ):
        return None
    return f"answered {json.dumps(final)[:300]}, not {{sessionId, log, requests}}"


def _fail_on(case: Case, problems: list[str], contracts: tuple[str, ...]) -> None:
    __tracebackhide__ = True
    if problems:
        lines = "\n".join(f"  - {problem}" for problem in problems)
        raise ConformanceFailure(f"{case.id} ({', '.join(contracts)}):\n{lines}\nwhy: {case.why}")


def require_capabilities(impl: Implementation, required: tuple[str, ...]) -> None:
    __tracebackhide__ = True
    try:
        handshake = impl.handshake()
    except ProtocolError as error:
        impl.latched_error = ImplementationErrored(f"handshake failed: {error}")
        raise impl.latched_error from error
    missing = sorted(set(required) - handshake.capabilities)
    if missing:
        pytest.skip(f"{NOT_APPLICABLE} {impl.label} lacks capability {', '.join(missing)}")


def _format_context(context: Json) -> str:
    if isinstance(context, dict):
        return "\n".join(f"{key}:\n{_indent(value)}" for key, value in context.items())
    return _indent(context)


def _indent(value: Json) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    return "\n".join(f"    {line}" for line in text.rstrip("\n").splitlines())
