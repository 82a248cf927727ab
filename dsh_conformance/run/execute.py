"""Running one case against one implementation, and turning the outcome into a test result.

`check` is what every conformance test calls: it sends the case, and passes, fails (the
observations differ from the expectations), skips (the implementation said so; it lacks a
capability the case needs: "not applicable"; or it was stopped earlier: "not reached"), or raises
`ImplementationErrored`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

import pytest

from ..harness.protocol import Handshake, ProtocolError
from ..harness.transport import Implementation
from ..harness.validate import cut, shape_problems
from ..judge.case import Case, compared_part, describe_op, expected_observation, mismatches
from ..judge.diff import describe
from ..judge.invariant import INVARIANT_CONTRACTS, check_requests
from ..judge.jsontext import dumps
from ..judge.logfold import fold_log, seeded_length
from .progress import SLOW

Json = Any

#: Skip reasons starting with this are reported as "not applicable", apart from skips.
NOT_APPLICABLE: Final = "not applicable:"
#: Skip reasons starting with this are reported as "not reached": the implementation was stopped
#: (a failed handshake, ``--max-errors``) before this case was sent.
NOT_REACHED: Final = "not reached:"
#: Skip reasons starting with this are reported as "live not run": a live test (one that calls a
#: real provider API) that was not opted into with ``--live``.
LIVE_NOT_RUN: Final = "live not run:"
_SENTENCE_CHARS: Final = 300
#: An ``errored`` answer's context is any JSON: shown up to this size.
_CONTEXT_CHARS: Final = 8000
#: A harness's stderr tail is bounded already (`dsh_conformance.harness.process`: 40 lines of at
#: most 2,000 bytes): it is shown whole, and cut from the front beyond this, never from the end,
#: where the harness's last words (the crash) are.
_STDERR_CHARS: Final = 100_000


class ImplementationErrored(Exception):
    """The implementation could not produce observations: crash, hang, garbage, or ``errored``."""


class ConformanceFailure(AssertionError):
    """The observations differ from what the contracts require.

    ``ops``, when the failure is a case's, are the scenario ops the suite sent: the report keeps
    them beside the message, so a reader can replay the case (`dsh_conformance.run.merged`).
    """

    def __init__(self, message: str, ops: list[Json] | None = None) -> None:
        super().__init__(message)
        self.ops = ops


def check(impl: Implementation, case: Case) -> list[Json]:
    """Run ``case`` on ``impl`` and fail the current test unless every expectation holds.

    For a loop case, the log of every agent is also folded by the suite
    (`dsh_conformance.judge.logfold`), and a rule it breaks fails the case when the rule belongs to
    one of the case's contracts.
    """
    __tracebackhide__ = True
    observations, finals = _run(impl, case)
    _fail_on(case, observations, example_problems(case, observations, finals), case.contracts)
    return observations


def example_problems(case: Case, observations: list[Json], finals: dict[str, Json]) -> list[str]:
    """What `check` fails ``case`` for: the expectations, and the rules of the case's contracts
    that the suite's fold of each agent's final log breaks."""
    problems = case_problems(case, observations)
    for agent, final in finals.items():
        if _final_problem(final) is None:
            problems += [
                f"agent {agent!r}, the suite's fold of its log: {violation}"
                for violation in fold_log(final["log"], seeded_length(final["log"])).violations
                if violation.contract in case.contracts
            ]
    return problems


def check_invariant(impl: Implementation, case: Case) -> None:
    """LOGGEDLOOP-REQUEST-INVARIANT and ROOT-MODEL over every request of a loop case.

    Run on every implementation, from the log and the requests it reports after the case's last
    op, with the suite's own fold: never the implementation's own check. A final observation
    that is missing or not a log fails too: an unchecked case must not pass.
    """
    __tracebackhide__ = True
    observations, finals = _run(impl, case)
    _fail_on(case, observations, invariant_problems(case, finals), INVARIANT_CONTRACTS)


def invariant_problems(case: Case, finals: dict[str, Json]) -> list[str]:
    """What `check_invariant` fails a loop case for: every request against its agent's final log
    (`check_requests`), and the rules of the invariant's contracts the fold of that log breaks."""
    contracts = INVARIANT_CONTRACTS
    problems = []
    if len(finals) != len(case.agents()):
        problems.append(
            f"expected one observation per op and per agent, got {len(finals)} final observations"
        )
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
            for violation in fold_log(log, seeded_length(log)).violations
            if violation.contract in contracts
        ]
    return problems


def _run(impl: Implementation, case: Case) -> tuple[list[Json], dict[str, Json]]:
    """The case's observations, and for a loop case the final ``observe`` of every agent (none
    when the implementation answered with another number of observations)."""
    __tracebackhide__ = True
    if impl.latched_error is not None:
        # Within one test (a hypothesis property runs many cases), the first error decides:
        # retrying a crashing or hanging implementation only makes the run slower.
        raise impl.latched_error
    require_capabilities(impl, case.requires)
    scenario = case.sent_scenario()
    with _running(impl, case.id):
        outcome = impl.run(case.id, scenario)
    if outcome.kind == "skipped":
        pytest.skip(f"skipped by the implementation: {outcome.reason}")
    if outcome.kind == "errored":
        context = "" if outcome.context is None else "\n" + format_context(outcome.context)
        impl.latched_error = ImplementationErrored(
            f"{case.id} ({', '.join(case.contracts)}): {outcome.reason}{context}"
        )
        raise impl.latched_error
    return split_finals(case, outcome.observations)


def split_finals(case: Case, observations: Json) -> tuple[Json, dict[str, Json]]:
    """The observations of the case's own ops, and for a loop case the final ``observe`` of every
    agent (none when the implementation answered with another number of observations)."""
    agents = case.agents()
    if (
        not agents
        or not isinstance(observations, list)
        or len(observations) != len(case.ops) + len(agents)
    ):
        return observations, {}
    count = len(case.ops)
    return observations[:count], dict(zip(agents, observations[count:], strict=True))


def case_problems(case: Case, observations: list[Json]) -> list[str]:
    """`mismatches`, except that an observation without its op's shape says so instead of being
    compared: an answer of another op's shape is never read as the expected one (a
    ``{"ok": true}`` from `project` as "nothing proposed", issue 37)."""
    if not isinstance(observations, list) or len(observations) != len(case.ops):
        return mismatches(case, observations)
    shapes = shape_problems(list(case.ops), observations)
    problems = [
        f"op #{index} {describe_op(case.ops[index])}: {problem}"
        for index, problem in shapes.items()
    ]
    return problems + [
        problem
        for problem in mismatches(case, observations)
        if not any(problem.startswith(f"op #{index} (") for index in shapes)
    ]


def _final_problem(final: Json) -> str | None:
    """Why a final ``observe`` answer cannot be checked, or ``None``."""
    if (
        isinstance(final, dict)
        and isinstance(final.get("log"), list)
        and isinstance(final.get("requests"), list)
    ):
        return None
    return f"answered {cut(dumps(final), _SENTENCE_CHARS)}, not {{sessionId, log, requests}}"


def _fail_on(
    case: Case, observations: list[Json], problems: list[str], contracts: tuple[str, ...]
) -> None:
    __tracebackhide__ = True
    if problems:
        raise ConformanceFailure(
            failure_message(case, observations, problems, contracts),
            ops=case.sent_scenario()["ops"],
        )


def require_capabilities(impl: Implementation, required: tuple[str, ...]) -> None:
    """Skip unless ``impl`` is running and declares ``required``; its handshake, once.

    A failed handshake stops the implementation: every test is "not reached", the first one
    with the error and everything the implementation printed, without another start (a harness
    that cannot start costs one timeout, not one per case). It is a fact about the run, not a
    verdict on a contract (issue 37): the plugin fails the run with it (`start_failure`).
    """
    __tracebackhide__ = True
    if impl.stopped is not None:
        pytest.skip(f"{NOT_REACHED} {impl.label} was stopped: {impl.stopped}")
    handshake = _handshake(impl)
    missing = sorted(set(required) - handshake.capabilities)
    if missing:
        pytest.skip(f"{NOT_APPLICABLE} {impl.label} lacks capability {', '.join(missing)}")


def _handshake(impl: Implementation) -> Handshake:
    __tracebackhide__ = True
    try:
        with _running(impl, "(the start handshake)"):
            return impl.handshake()
    except ProtocolError as error:
        impl.stopped = "its handshake failed"
        context = getattr(error, "context", None)
        details = "\n" + format_context(context) if context else ""
        impl.start_failure = f"handshake failed: {error}{details}"
    pytest.skip(f"{NOT_REACHED} {impl.label}: {impl.start_failure}")


@contextmanager
def _running(impl: Implementation, what: str) -> Iterator[None]:
    """Mark ``what`` as running on ``impl`` for the progress reports; once it ends after at least
    `SLOW` seconds (a slow harness, or an answer that is slow to check), keep how long it took."""
    started = time.monotonic()
    impl.running = (what, started)
    try:
        yield
    finally:
        impl.running = None
        took = time.monotonic() - started
        if took >= SLOW:
            impl.slow_answers.append((what, took))


def failure_message(
    case: Case,
    observations: list[Json],
    problems: list[str],
    contracts: tuple[str, ...] | None = None,
) -> str:
    """Each mismatch as a sentence, and below it where exactly the values differ; then the
    problems that belong to no single op (the suite's fold of a log, the request invariant)."""
    lines = [f"{case.id} ({', '.join(contracts or case.contracts)}):"]
    placed: set[str] = set()
    if isinstance(observations, list) and len(observations) == len(case.ops):
        for index, (op, observed) in enumerate(zip(case.ops, observations, strict=True)):
            prefix = f"op #{index} {describe_op(op)}: "
            sentences = [p for p in problems if p.startswith(prefix)]
            if not sentences:
                continue
            placed.update(sentences)
            lines.append(f"  - {cut(sentences[0], _SENTENCE_CHARS)}")
            expected = expected_observation(op)
            compared = compared_part(expected, observed)
            lines += [f"      {line}" for line in describe(expected, compared)]
    lines += [f"  - {problem}" for problem in problems if problem not in placed]
    lines.append(f"why: {case.why}")
    return "\n".join(lines)


def format_context(context: Json) -> str:
    """What the implementation printed or sent as context, indented, one block per key."""
    if isinstance(context, dict):
        return "\n".join(
            f"{key}:\n{_indent(value, tail=key == 'stderr')}" for key, value in context.items()
        )
    return _indent(context)


def _indent(value: Json, tail: bool = False) -> str:
    text = value if isinstance(value, str) else dumps(value, indent=2)
    if tail and len(text) > _STDERR_CHARS:
        cut_off = len(text) - _STDERR_CHARS
        text = f"[… {cut_off} earlier characters cut]\n{text[cut_off:]}"
    elif not tail:
        text = cut(text, _CONTEXT_CHARS)
    return "\n".join(f"    {line}" for line in text.rstrip("\n").splitlines())
