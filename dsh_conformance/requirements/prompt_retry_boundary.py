"""PROMPT-RETRY-BOUNDARY, one rule per requirement (CONTRACTS.md, "PROMPT-RETRY-BOUNDARY and
LOOP-REQUEST-ERROR-TEST"; what a retry does is LOOP-REQUEST-ERROR-TEST's)."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-RETRY-BOUNDARY"
_SECTION: Final = "PROMPT-RETRY-BOUNDARY and LOOP-REQUEST-ERROR-TEST"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-RETRY-BOUNDARY.1",
        "A step renders its system text once, before its retries: every attempt of the step "
        "sends that text and the step's assembled tools, even when the sections changed since.",
        _SECTION,
        "`step()` renders the system string once, before its retry loop. … it reuses the step's "
        "rendered system and assembled tools.",
        cases=("loop/retry-keeps-turn-and-step-and-the-rendered-system",),
    ),
    Requirement(
        "PROMPT-RETRY-BOUNDARY.2",
        "The successful attempt's `assistant/message` cites exactly its own attempt's chunk "
        "seqs, in order.",
        _SECTION,
        "The successful attempt's `assistant/message` cites exactly its own attempt's chunk "
        "seqs, in order (`[]` when the stream yielded none).",
        cases=(
            "loop/retry-after-partial-stream-cites-only-its-own-chunks",
            "loop/retry-keeps-turn-and-step-and-the-rendered-system",
            "loop/a-stream-that-yields-nothing-is-answered-by-an-empty-message",
        ),
    ),
    Requirement(
        "PROMPT-RETRY-BOUNDARY.3",
        "A turn cancelled while a stream runs keeps the chunks received so far; only if one "
        "carried non-blank text or reasoning is an interrupted `assistant/message` of those "
        "blocks appended, citing all the attempt's chunks.",
        _SECTION,
        "If the turn is cancelled while a stream runs, the chunks received so far stay logged, "
        "and if any of them carried non-blank text or reasoning, an `assistant/message {turn, "
        "step, message, interrupted: true}` holding only those text and reasoning blocks is "
        "appended",
        cases=(
            "loop/cancel-mid-stream-keeps-an-interrupted-message",
            "loop/cancel-mid-tool-call-logs-no-tool-call-and-no-message",
            "loop/cancel-mid-reasoning-keeps-the-reasoning-block",
            "loop/cancel-after-blank-text-logs-no-message",
            "loop/cancel-after-two-deltas-keeps-their-joined-text",
            "loop/cancel-after-two-blocks-keeps-both",
        ),
    ),
    Requirement(
        "PROMPT-RETRY-BOUNDARY.4",
        "A request cancelled before its first chunk leaves no event, and its turn ends "
        "`aborted`; the next turn's requests pair with their attempts as usual.",
        "ROOT-MODEL and LOGGEDLOOP-REQUEST-INVARIANT",
        "A request cancelled before its first chunk leaves no event; it can only be the last "
        "request of its turn, and that turn then ends `aborted`",
        cases=(
            "loop/cancel-before-the-first-chunk-logs-no-attempt",
            "loop/a-turn-after-a-request-cancelled-before-its-first-chunk-sends-again",
        ),
    ),
    Requirement(
        "PROMPT-RETRY-BOUNDARY.5",
        "Only a cancel writes an interrupted `assistant/message`: a stream chunk the log refuses "
        "(not lossless JSON) is a throw that ends the turn `error` with code `UNKNOWN`, the text "
        "streamed before it left in its chunks.",
        _SECTION,
        'A turn ended by anything else that throws … ends `{kind: "error", error: {message, '
        'code: "UNKNOWN"}}` … If the turn is cancelled while a stream runs, the chunks received '
        "so far stay logged",
        cases=("loop/a-chunk-the-log-refuses-ends-the-turn-without-an-interrupted-message",),
    ),
)
