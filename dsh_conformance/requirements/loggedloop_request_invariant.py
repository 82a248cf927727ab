"""LOGGEDLOOP-REQUEST-INVARIANT, one rule per requirement (CONTRACTS.md, "ROOT-MODEL and
LOGGEDLOOP-REQUEST-INVARIANT"). The suite checks every request of every loop case itself, from the
reported log (`dsh_conformance.judge.invariant`): ``test_loop_invariant``, once per loop case."""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "LOGGEDLOOP-REQUEST-INVARIANT"
_SECTION: Final = "ROOT-MODEL and LOGGEDLOOP-REQUEST-INVARIANT"
_EVERY_LOOP_CASE: Final = ("test_loop_invariant",)

REQUIREMENTS: Final = (
    Requirement(
        "LOGGEDLOOP-REQUEST-INVARIANT.1",
        "A loop-built request holds exactly the header's config fields, `messages`, `system` "
        "and `tools` exactly when the canonical header has them (never null, '' or []), and the "
        "session's id.",
        _SECTION,
        "A loop-built request is exactly `{...config, messages, system?, tools?, sessionId}`",
        tests=_EVERY_LOOP_CASE,
    ),
    Requirement(
        "LOGGEDLOOP-REQUEST-INVARIANT.2",
        "A request's `messages` equal, as JSON text with key order, the messages derived from "
        "the log's surface at dispatch: the logged objects, passed through verbatim.",
        _SECTION,
        "`request.messages` equals, as JSON text (key order included), the messages derived from "
        "the log's surface at that moment — the logged message objects passed through verbatim, "
        "never rebuilt",
        tests=_EVERY_LOOP_CASE,
    ),
    Requirement(
        "LOGGEDLOOP-REQUEST-INVARIANT.3",
        "A request's provider, model, reasoning effort, temperature, max tokens, stop, system and "
        "tools equal the header folded from the log at dispatch, under PROMPT-HEADER-CANONICAL's "
        "equality.",
        _SECTION,
        "`provider`, `model`, `reasoningEffort`, `temperature`, `maxTokens`, `stop` (absent ≠ "
        "`[]`), `system` and `tools` equal the header folded from the log's `request/header` "
        "events (the last one wins)",
        tests=_EVERY_LOOP_CASE,
    ),
    Requirement(
        "LOGGEDLOOP-REQUEST-INVARIANT.4",
        "A request is dispatched inside an open step, after a header written by the current loop "
        "instance.",
        _SECTION,
        "the request's step is open (its `step/start` is logged and its `step/end` is not), and a "
        "header written by the current loop instance precedes it.",
        tests=_EVERY_LOOP_CASE,
    ),
    Requirement(
        "LOGGEDLOOP-REQUEST-INVARIANT.5",
        "The requests of a loop instance pair in order with its attempts, each dispatched right "
        "before its attempt's first event; only the last request of a turn that ends aborted may "
        "have no event.",
        _SECTION,
        "A request is dispatched immediately before its attempt's first event, and the requests "
        "of one loop instance pair with its attempts in order. A request cancelled before its "
        "first chunk leaves no event; it can only be the last request of its turn, and that turn "
        "then ends `aborted` (or has not ended yet).",
        tests=_EVERY_LOOP_CASE,
    ),
    Requirement(
        "LOGGEDLOOP-REQUEST-INVARIANT.6",
        "A request's `sessionId` is the id the implementation reports for the session.",
        _SECTION,
        "the suite compares it with the id the implementation reports for the session.",
        tests=_EVERY_LOOP_CASE,
    ),
)
