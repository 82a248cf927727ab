"""PROMPT-STEP-BOUNDARY, one rule per requirement (CONTRACTS.md, "PROMPT-STEP-BOUNDARY")."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-STEP-BOUNDARY"
_SECTION: Final = "PROMPT-STEP-BOUNDARY"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-STEP-BOUNDARY.1",
        "A step claims every next-step message, then, on a turn's first step only, at most one "
        "next-turn message: queued follow-ups make one turn each.",
        _SECTION,
        "claim the inbox (all next-step messages, then — on a turn's first step only — at most "
        "one next-turn message)",
        cases=(
            "loop/burst-of-followups-one-turn-each",
            "loop/followups-sent-while-a-cancelled-turn-settles-get-a-turn-each",
            "loop/steer-during-a-step-opens-the-next-step",
            "loop/a-followup-during-a-multi-step-turn-waits-for-the-next-turn",
            "loop/a-message-injected-during-a-step-opens-the-next-step",
            "loop/an-injected-message-waits-idle-for-the-next-turn",
            "loop/a-message-injected-while-a-cancelled-turn-settles-wakes-nothing",
            "loop/a-message-injected-during-a-turn-that-fails-wakes-nothing",
            "loop/a-steer-sent-while-a-cancelled-turn-settles-gets-a-turn-of-its-own",
        ),
    ),
    Requirement(
        "PROMPT-STEP-BOUNDARY.2",
        "A step claims the inbox before it assembles: a message sent while its assembly is "
        "blocked waits for the next step.",
        _SECTION,
        "`preStep` does, in order: claim the inbox",
        cases=("loop/steer-during-a-step-opens-the-next-step",),
    ),
    Requirement(
        "PROMPT-STEP-BOUNDARY.3",
        "An admitted decision opens a step when it has a message, or after a step that ran tool "
        "calls without concluding the turn (a continuation step, possibly with no user message); "
        "its messages are logged as `user/message` events.",
        _SECTION,
        "An admitted (`enter`) decision opens `step/start` when it has at least one message, or "
        "when the previous step of the turn ran tool calls without concluding the turn",
        cases=(
            "loop/tool-round-trip-continuation-step",
            "loop/concluding-tool-ends-the-turn-after-its-step",
            "loop/a-followup-during-a-multi-step-turn-waits-for-the-next-turn",
            "loop/a-message-injected-during-a-step-opens-the-next-step",
            "loop/an-empty-decision-still-opens-a-continuation-step",
            "loop/a-tool-result-marked-as-an-error-is-logged-as-one",
        ),
        tests=("test_golden_tool_round_trip_messages",),
    ),
    Requirement(
        "PROMPT-STEP-BOUNDARY.4",
        "A rejected decision ends the turn `blocked`, also after earlier steps; a message it "
        "consumed is not logged.",
        _SECTION,
        'A rejected decision ends the turn `{kind: "blocked"}` (even after earlier steps '
        "completed; a claimed message it consumed is not logged as a `user/message`)",
        cases=(
            "loop/rejected-first-decision-blocks",
            "loop/rejected-decision-consumes-the-message",
            "loop/rejected-decision-after-a-step-blocks",
            "loop/a-decision-object-decides-by-its-decision",
        ),
    ),
    Requirement(
        "PROMPT-STEP-BOUNDARY.5",
        "An empty decision on a turn's first step ends it `completed` with no step and no model "
        "call.",
        _SECTION,
        'an empty decision on the turn\'s first step ends it `{kind: "completed"}` with no step '
        "and no model call",
        cases=("loop/empty-first-decision-completes-without-step",),
    ),
    Requirement(
        "PROMPT-STEP-BOUNDARY.6",
        "After a step that concluded, an empty decision ends the turn with that step's outcome; "
        "`max-tokens` is sticky over the turn.",
        _SECTION,
        "an empty decision after a step that concluded ends the turn with that step's outcome "
        "(`max-tokens` is sticky over the turn)",
        cases=(
            "loop/a-turn-ended-by-an-empty-decision-goes-on-to-the-queued-followup",
            "loop/a-later-step-cut-at-max-tokens-ends-the-turn-max-tokens",
            "loop/concluding-tool-ends-the-turn-after-its-step",
            "loop/max-tokens-drops-tool-calls-and-ends-the-turn",
            "loop/max-tokens-is-sticky-over-the-turn",
        ),
    ),
    Requirement(
        "PROMPT-STEP-BOUNDARY.7",
        "Steps are numbered from 1 in each turn; turn numbers continue from the last "
        "`turn/start` in the log.",
        _SECTION,
        "Steps are numbered from 1 in each turn; turns continue from the last `turn/start` in "
        "the log.",
        cases=("loop/burst-of-followups-one-turn-each", "loop/max-tokens-is-sticky-over-the-turn"),
    ),
    Requirement(
        "PROMPT-STEP-BOUNDARY.8",
        "A step assembles the agent's scoped prompt with the context `{agent, scope: agent, "
        "signal}`: the agent as both `agent` and `scope`, and the turn's abort signal.",
        _SECTION,
        "assemble the scoped prompt with `{agent, scope: agent, signal}`",
        cases=(
            "loop/providers-get-the-agent-as-agent-and-scope",
            "loop/listeners-get-the-agent-as-agent-and-scope",
        ),
    ),
    Requirement(
        "PROMPT-STEP-BOUNDARY.9",
        "A turn whose last step concluded awaits the `agent/turn-stopping` hook before it ends, "
        "once no next-step message waits; a next-step message queued while the hook runs opens "
        "another step of the same turn. (CONTRACTS.md names no such hook; the upstream notes "
        "do, 6.2 steps 11-12.)",
        _SECTION,
        "an empty decision after a step that concluded ends the turn with that step's outcome",
        cases=(
            "loop/the-turn-stopping-hook-waits-before-the-turn-ends",
            "loop/a-message-injected-while-the-turn-stopping-hook-waits-opens-another-step",
        ),
    ),
)
