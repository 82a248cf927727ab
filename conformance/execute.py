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
    """Run ``case`` on ``impl`` and fail the current test unless every expectation holds."""
    __tracebackhide__ = True
    if impl.latched_error is not None:
        # Within one test (a hypothesis property runs many cases), the first error decides:
        # retrying a crashing or hanging implementation only makes the run slower.
        raise impl.latched_error
    require_capabilities(impl, case.requires)
    outcome = impl.run(case.id, case.scenario())
    if outcome.kind == "skipped":
        pytest.skip(f"skipped by the implementation: {outcome.reason}")
    if outcome.kind == "errored":
        context = "" if outcome.context is None else "\n" + _format_context(outcome.context)
        impl.latched_error = ImplementationErrored(f"{case.id}: {outcome.reason}{context}")
        raise impl.latched_error
    problems = mismatches(case, outcome.observations)
    if problems:
        lines = "\n".join(f"  - {problem}" for problem in problems)
        raise ConformanceFailure(
            f"{case.id} ({', '.join(case.contracts)}):\n{lines}\nwhy: {case.why}"
        )
    return outcome.observations


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
