"""PROMPT-HEADER-CHANGE-TEST, one rule per requirement (CONTRACTS.md, "LOOP-REQUEST-BUILD and
PROMPT-HEADER-CHANGE-TEST")."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-HEADER-CHANGE-TEST"
_SECTION: Final = "LOOP-REQUEST-BUILD and PROMPT-HEADER-CHANGE-TEST"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-HEADER-CHANGE-TEST.1",
        "Re-assembling every step with unchanged values adds no header.",
        _SECTION,
        "Re-assembling every step with unchanged values adds no header",
        cases=(
            "loop/header-initial-then-none-over-unchanged-steps",
            "loop/one-change-header-after-a-section-change",
            "loop/tools-added-after-a-turn-write-one-change-header",
            "loop/adapter-defaults-stay-marked-on-the-next-turn",
        ),
        tests=("test_golden_header_events",),
    ),
    Requirement(
        "PROMPT-HEADER-CHANGE-TEST.2",
        "A real section change writes exactly one more header, reason `change`.",
        _SECTION,
        "a real section change writes exactly one more.",
        cases=("loop/one-change-header-after-a-section-change",),
        tests=("test_golden_header_events",),
    ),
)
