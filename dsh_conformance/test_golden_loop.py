"""Golden loop logs: syrupy JSON snapshots under ``golden/loop/`` of what named scenarios log.

Each golden runs an example case (its expectations are checked first, by `check`) and snapshots one
part of what the implementation reported, in the view of `dsh_conformance.judge.logview` (positions,
``#n`` ids, no ``time``): the `request/header` events of a scenario whose section changes between
turns, and the derived messages of a tool round trip (the last request's ``messages``). The
snapshots hold what the hand-worked expectations of those cases say; syrupy's JSON extension sorts
object keys, so they fix values, not key order (LOGGEDLOOP-REQUEST-INVARIANT checks that). Update
after an intended change (from a checkout): ``dsh-conformance -k golden --snapshot-update``, then
review the diff of ``golden/``.
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from .cases import all_cases
from .harness.transport import Implementation
from .judge.logview import LoopView
from .run.execute import check
from .run.goldens import GoldenFiles, assert_golden

CASES: Final = {case.id: case for case in all_cases()}


class GoldenLoop(GoldenFiles):
    """``golden/loop/<scenario>.json`` (syrupy's JSON: keys sorted)."""

    golden_set = "loop"


def _final_view(impl: Implementation, case_id: str) -> LoopView:
    observations = check(impl, CASES[case_id])
    return LoopView(observations[-1])


@pytest.mark.contract("LOOP-REQUEST-BUILD", "PROMPT-HEADER-CHANGE-TEST")
def test_golden_header_events(impl: Implementation, snapshot: SnapshotAssertion) -> None:
    view = _final_view(impl, "loop/one-change-header-after-a-section-change")
    headers: list[Any] = [event["data"] for event in view.log if event["type"] == "request/header"]
    assert_golden(snapshot, GoldenLoop, "header-initial-then-change", headers)


@pytest.mark.contract("ROOT-MODEL", "PROMPT-STEP-BOUNDARY")
def test_golden_tool_round_trip_messages(impl: Implementation, snapshot: SnapshotAssertion) -> None:
    view = _final_view(impl, "loop/tool-round-trip-continuation-step")
    assert_golden(snapshot, GoldenLoop, "tool-round-trip-messages", view.requests[-1]["messages"])
