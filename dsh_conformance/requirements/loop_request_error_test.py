"""LOOP-REQUEST-ERROR-TEST, one rule per requirement (CONTRACTS.md, "PROMPT-RETRY-BOUNDARY and
LOOP-REQUEST-ERROR-TEST")."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "LOOP-REQUEST-ERROR-TEST"
_SECTION: Final = "PROMPT-RETRY-BOUNDARY and LOOP-REQUEST-ERROR-TEST"

REQUIREMENTS: Final = (
    Requirement(
        "LOOP-REQUEST-ERROR-TEST.1",
        "A failed attempt (error or aborted finish) logs its chunks, an adapter failure as one "
        "terminal `finish` chunk, but no `assistant/message`.",
        _SECTION,
        "A failed attempt (error or aborted finish) writes its chunks but no `assistant/message`",
        cases=(
            "loop/retry-after-partial-stream-cites-only-its-own-chunks",
            "loop/adapter-failure-with-code-aborted-ends-the-turn-with-error",
            "loop/unretried-failure-ends-the-turn-with-error",
        ),
    ),
    Requirement(
        "LOOP-REQUEST-ERROR-TEST.2",
        "A retried request stays in the same turn and step, with no new `step/start`, and is "
        "rebuilt from the log: config from the folded header, messages from the surface.",
        _SECTION,
        "Each attempt rebuilds the call config (seeded from the folded header), the header "
        "comparison (a `change` header only if different), and the messages derived from the "
        "log … either retries (same turn and step numbers, no new `step/start`)",
        cases=(
            "loop/retry-keeps-turn-and-step-and-the-rendered-system",
            "loop/the-request-error-decision-is-asked-about-the-failed-attempt",
        ),
    ),
    Requirement(
        "LOOP-REQUEST-ERROR-TEST.3",
        "A failure the `agent/request-error` decision does not retry ends the turn "
        '`{kind: "error", error: <failure>}`.',
        _SECTION,
        'or ends the turn `{kind: "error", error: <failure>}`',
        cases=(
            "loop/unretried-failure-ends-the-turn-with-error",
            "loop/adapter-failure-with-code-aborted-ends-the-turn-with-error",
            "loop/an-unscripted-request-error-decision-ends-the-turn",
            "loop/a-request-beyond-the-script-fails-script-exhausted",
        ),
    ),
    Requirement(
        "LOOP-REQUEST-ERROR-TEST.4",
        "A turn ended by a throw that is not a request error (a provider, a listener, a hook, a "
        "tool runtime, a failed request build) ends `error` with code `UNKNOWN`, unless the "
        "thrown value is the model layer's own failure error.",
        _SECTION,
        "A turn ended by anything else that throws (a provider, a listener, a hook, a tool "
        'runtime, a failed request build) ends `{kind: "error", error: {message, code: '
        '"UNKNOWN"}}`',
        cases=(
            "loop/a-throwing-provider-ends-the-turn-unknown",
            "loop/a-throwing-listener-ends-the-turn-unknown",
            "loop/a-throwing-pre-step-hook-ends-the-turn-unknown",
            "loop/a-throwing-request-error-decision-ends-the-turn-unknown",
            "loop/a-throwing-tool-runtime-ends-the-turn-unknown",
            "loop/a-throwing-request-hook-fails-the-build",
        ),
    ),
)
