"""The example cases (`dsh_conformance.cases`), each run once per implementation under test."""

from __future__ import annotations

import pytest

from .cases import all_cases
from .harness.transport import Implementation
from .judge.case import Case
from .judge.invariant import INVARIANT_CONTRACTS
from .run.execute import check, check_invariant


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(case, id=case.id, marks=pytest.mark.contract(*case.contracts))
        for case in all_cases()
    ],
)
def test_example(impl: Implementation, case: Case) -> None:
    __tracebackhide__ = True
    check(impl, case)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            case,
            id=case.id,
            marks=pytest.mark.contract(*INVARIANT_CONTRACTS),
        )
        for case in all_cases()
        if case.agents()
    ],
)
def test_loop_invariant(impl: Implementation, case: Case) -> None:
    """Every request of every loop case, rebuilt from the reported log by the suite's own fold."""
    __tracebackhide__ = True
    check_invariant(impl, case)
