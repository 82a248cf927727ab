"""LOOP-REQUEST-BUILD, one rule per requirement (CONTRACTS.md, "LOOP-REQUEST-BUILD and
PROMPT-HEADER-CHANGE-TEST")."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "LOOP-REQUEST-BUILD"
_SECTION: Final = "LOOP-REQUEST-BUILD and PROMPT-HEADER-CHANGE-TEST"

REQUIREMENTS: Final = (
    Requirement(
        "LOOP-REQUEST-BUILD.1",
        "A loop instance's first successful request build writes a header: reason `initial` if "
        "the log has none, else `resume`, even when identical.",
        _SECTION,
        "A loop instance's first successful request build writes `request/header {header, "
        "reason}` with reason `initial` if the log had no header, else `resume` (even when "
        "identical).",
        cases=(
            "loop/header-initial-then-none-over-unchanged-steps",
            "loop/resume-header-for-a-new-loop-over-a-seeded-log",
        ),
        tests=("test_golden_header_events",),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.2",
        "After its first header, a loop instance writes one with reason `change` only when the "
        "canonical header differs from the folded one.",
        _SECTION,
        'After that it writes `{reason: "change"}` only when the canonical header is not equal '
        "to the folded one.",
        cases=(
            "loop/header-initial-then-none-over-unchanged-steps",
            "loop/one-change-header-after-a-section-change",
        ),
        tests=("test_golden_header_events",),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.3",
        "Headers are written inside the open step, before the request is dispatched.",
        _SECTION,
        "Headers are written inside the open step, before the request is dispatched.",
        cases=("loop/one-change-header-after-a-section-change",),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.4",
        "After the header, the build writes `request/context {provider, model, contextWindow?}` "
        "when none is logged yet or one of the three differs from the last one.",
        _SECTION,
        "After the header, the build writes `request/context {provider, model, contextWindow?}` "
        "when no request context was logged yet or one of those three differs from the last one "
        "(a new loop instance over a log whose context is unchanged writes none).",
        cases=(
            "loop/adapter-defaults-are-marked-and-sent",
            "loop/resume-header-for-a-new-loop-over-a-seeded-log",
        ),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.5",
        "The model adapter fills an unset reasoning effort or max tokens from its defaults and "
        "marks them (`adapterDefaults`); the header's config and the request hold the resolved "
        "values.",
        _SECTION,
        "resolved by the model adapter, which fills unset `reasoningEffort`/`maxTokens` from its "
        "defaults and marks them (`adapterDefaults`).",
        cases=("loop/adapter-defaults-are-marked-and-sent",),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.6",
        "A loop-built request and its header carry `system` and `tools` exactly when they are "
        "not empty.",
        "ROOT-MODEL and LOGGEDLOOP-REQUEST-INVARIANT",
        "then `system` and `tools` exactly when the canonical header has them (absent, never "
        "`null`, `''` or `[]`)",
        cases=("loop/empty-system-and-tools-are-absent-from-header-and-request",),
    ),
)
