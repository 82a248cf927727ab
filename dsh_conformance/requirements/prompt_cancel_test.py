"""PROMPT-CANCEL-TEST, one rule per requirement (CONTRACTS.md, "PROMPT-CANCEL-TEST")."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-CANCEL-TEST"
_SECTION: Final = "PROMPT-CANCEL-TEST"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-CANCEL-TEST.1",
        "A turn cancelled (cause `user`) or whose owner is disposed (cause `disposed`) while the "
        "step's assembly is blocked, on a listener or a provider, ends `aborted` with that cause "
        "once the assembly settles.",
        _SECTION,
        'then once assembly settles the turn ends `turn/end {reason: {kind: "aborted", reason: '
        "<cause>}}`",
        cases=(
            "loop/cancel-while-assembly-blocked-aborts-the-turn",
            "loop/dispose-while-assembly-blocked-aborts-the-turn",
            "loop/dispose-while-a-provider-blocks-aborts-the-turn",
            "loop/dispose-releases-the-agent-scope-once-the-turn-has-ended",
            "loop/dispose-of-an-idle-agent-releases-its-scope-at-once",
            "loop/cancel-drops-followups-queued-behind-the-turn",
        ),
    ),
    Requirement(
        "PROMPT-CANCEL-TEST.2",
        "Such a turn logs nothing of its step (no step events, user message, header, request "
        "context, chunk or assistant message) and the adapter receives no request; a follow-up "
        "sent meanwhile gets the next turn.",
        _SECTION,
        "the log has no `step/start`, `step/end`, `user/message` of that step, `request/header`, "
        "`request/context`, `assistant/chunk` or `assistant/message` for it, and the model "
        "adapter received no request.",
        cases=(
            "loop/cancel-while-assembly-blocked-aborts-the-turn",
            "loop/dispose-while-assembly-blocked-aborts-the-turn",
            "loop/dispose-while-a-provider-blocks-aborts-the-turn",
            "loop/followup-after-cancel-runs-once-the-aborted-turn-ends",
        ),
    ),
    Requirement(
        "PROMPT-CANCEL-TEST.3",
        "The assembly context carries the turn's abort signal: a listener waiting for it "
        "settles as soon as the turn is cancelled.",
        _SECTION,
        "The assembly context carries the turn's abort signal so a cooperative listener can stop "
        "early.",
        cases=("loop/cancel-reaches-a-cooperative-listener-through-the-signal",),
    ),
    Requirement(
        "PROMPT-CANCEL-TEST.4",
        "A turn cancelled while its `agent/request-error` decision is pending ends `aborted` "
        "with the cause, with no assistant message for the failed stream (CONTRACTS.md does not "
        "say it; the upstream notes do, 8.3 row g).",
        "PROMPT-RETRY-BOUNDARY and LOOP-REQUEST-ERROR-TEST",
        "A throw while the turn is being cancelled ends it `aborted` with the cause instead.",
        cases=(
            "loop/cancel-during-the-request-error-decision-aborts-the-turn",
            "loop/cancel-while-the-request-error-decision-waits-aborts-the-turn",
        ),
    ),
    Requirement(
        "PROMPT-CANCEL-TEST.5",
        "Cancelling a turn also drops the messages queued in the inbox behind it: the next "
        "follow-up after the aborted turn is the only message of the next turn (CONTRACTS.md "
        "does not say it; PROTOCOL.md's `cancel` and the upstream notes, section 5, do).",
        _SECTION,
        'If a turn is cancelled (cause `{kind: "user"}`)',
        cases=("loop/cancel-drops-followups-queued-behind-the-turn",),
    ),
    Requirement(
        "PROMPT-CANCEL-TEST.6",
        "A turn cancelled while its `agent/pre-step` decision is pending ends `aborted` once "
        "the decision settles, with no step opened and no request, even when the decision "
        "admits the claimed message.",
        "PROMPT-STEP-BOUNDARY",
        "run the `agent/pre-step` decision (default: enter with claimed messages + snapshot if "
        "any); check cancellation.",
        cases=("loop/cancel-while-the-pre-step-decision-waits-aborts-the-turn",),
    ),
    Requirement(
        "PROMPT-CANCEL-TEST.7",
        "A turn cancelled while its `agent/request` waterfall or its model resolution is "
        "pending ends `aborted` with the cause, and the build stops there: no `request/header`, "
        "no `request/context` and no request for that step (CONTRACTS.md does not say it; the "
        "upstream notes do, 8.3 row d).",
        "PROMPT-RETRY-BOUNDARY and LOOP-REQUEST-ERROR-TEST",
        "A throw while the turn is being cancelled ends it `aborted` with the cause instead.",
        cases=(
            "loop/cancel-while-the-request-hook-waits-writes-no-header",
            "loop/cancel-while-model-resolution-waits-writes-no-header",
        ),
    ),
    Requirement(
        "PROMPT-CANCEL-TEST.8",
        "A turn cancelled while a tool call runs keeps that call's result (the call already "
        "started runs to completion and is committed), then ends `aborted` with no further "
        "request (CONTRACTS.md does not say it; the upstream notes do, 7.4).",
        "PROMPT-RETRY-BOUNDARY and LOOP-REQUEST-ERROR-TEST",
        "A throw while the turn is being cancelled ends it `aborted` with the cause instead.",
        cases=("loop/cancel-while-a-tool-runs-keeps-its-result-and-aborts",),
    ),
    Requirement(
        "PROMPT-CANCEL-TEST.9",
        "A turn cancelled while the `agent/turn-stopping` hook waits ends `aborted` with the "
        "cause once the hook settles, though its steps had completed, with no further step "
        "(CONTRACTS.md names no such hook; the upstream notes do, 6.2 step 11 and 8.3 row i).",
        "PROMPT-RETRY-BOUNDARY and LOOP-REQUEST-ERROR-TEST",
        "A throw while the turn is being cancelled ends it `aborted` with the cause instead.",
        cases=("loop/cancel-while-the-turn-stopping-hook-waits-aborts-the-turn",),
    ),
)
