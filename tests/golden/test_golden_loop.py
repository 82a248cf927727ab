"""Golden loop logs: syrupy JSON snapshots under ``golden/loop/`` of what named scenarios log.

Each golden runs an example case (its expectations are checked first, by `check`) and snapshots
one part of what the implementation reported, in the view of `conformance.logview` (positions,
``#n`` ids, no ``time``): the `request/header` events of a scenario whose section changes between
turns, and the derived messages of a tool round trip (the last request's ``messages``). The
snapshots hold what the hand-worked expectations of those cases say; syrupy's JSON extension sorts
object keys, so they fix values, not key order (LOGGEDLOOP-REQUEST-INVARIANT checks that).
Update after an intended change: ``python -m pytest tests/golden --snapshot-update``, then review
the diff of ``golden/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.json import JSONSnapshotExtension
from syrupy.location import PyTestLocation
from syrupy.types import SnapshotIndex

from conformance.cases import all_cases
from conformance.execute import check
from conformance.logview import LoopView
from conformance.transport import Implementation

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "loop"
CASES = {case.id: case for case in all_cases()}


class Golden(JSONSnapshotExtension):
    """One JSON file per named snapshot in ``golden/loop/``, the same for every implementation."""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(GOLDEN)

    @classmethod
    def discovery_dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(GOLDEN)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        return str(index)


def _final_view(impl: Implementation, case_id: str) -> LoopView:
    observations = check(impl, CASES[case_id])
    return LoopView(observations[-1])


@pytest.mark.contract("LOOP-REQUEST-BUILD", "PROMPT-HEADER-CHANGE-TEST")
def test_golden_header_events(impl: Implementation, snapshot: SnapshotAssertion) -> None:
    view = _final_view(impl, "loop/one-change-header-after-a-section-change")
    headers: list[Any] = [event["data"] for event in view.log if event["type"] == "request/header"]
    assert headers == snapshot(extension_class=Golden, name="header-initial-then-change")


@pytest.mark.contract("ROOT-MODEL", "PROMPT-STEP-BOUNDARY")
def test_golden_tool_round_trip_messages(impl: Implementation, snapshot: SnapshotAssertion) -> None:
    view = _final_view(impl, "loop/tool-round-trip-continuation-step")
    messages = view.requests[-1]["messages"]
    assert messages == snapshot(extension_class=Golden, name="tool-round-trip-messages")
