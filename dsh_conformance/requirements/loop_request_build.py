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
            "loop/resume-header-with-unchanged-tools-is-the-header-alone",
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
            "loop/tools-added-after-a-turn-write-one-change-header",
            "loop/adapter-defaults-stay-marked-on-the-next-turn",
            "loop/temperature-and-stop-carry-to-the-next-turn",
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
            "loop/new-instance-with-another-context-window-writes-request-context",
            "loop/a-request-hook-switching-only-the-provider-writes-request-context",
            "loop/request-state-reads-the-folded-header-and-context",
            "loop/new-instance-restores-no-effort-for-another-model",
            "loop/new-instance-restores-no-effort-for-another-model-under-an-effort-set",
            "loop/a-request-hook-switching-the-model-sticks-for-later-turns",
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
        cases=(
            "loop/adapter-defaults-are-marked-and-sent",
            "loop/the-adapters-entry-resolves-defaults-and-context-window",
        ),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.6",
        "A loop-built request and its header carry `system` and `tools` exactly when they are "
        "not empty.",
        "ROOT-MODEL and LOGGEDLOOP-REQUEST-INVARIANT",
        "then `system` and `tools` exactly when the canonical header has them (absent, never "
        "`null`, `''` or `[]`)",
        cases=(
            "loop/empty-system-and-tools-are-absent-from-header-and-request",
            "loop/assembled-tools-are-in-the-header-and-the-request",
        ),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.7",
        "Each attempt's call config is proposed, then may be replaced by the `agent/request` "
        "waterfall, and what the waterfall returns is what the model adapter resolves.",
        _SECTION,
        "Each attempt's call config is proposed, may be replaced by the `agent/request` "
        "waterfall, and is then resolved by the model adapter",
        cases=(
            "loop/a-request-hook-switching-the-model-sticks-for-later-turns",
            "loop/a-request-hook-that-only-waits-passes-the-proposal",
        ),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.8",
        "Until it has written a header, a loop instance proposes the agent's route and the "
        "agent's own `maxTokens` when set: a new instance restores no `temperature`, `stop` or "
        "`maxTokens` from the log.",
        _SECTION,
        "The proposal: before the loop instance has written a header, the agent's route "
        "`{provider, model}`, its `maxTokens` when set … (`temperature` and `stop` are never "
        "restored by a new instance)",
        cases=("loop/new-instance-restores-no-temperature-stop-or-max-tokens",),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.9",
        "Until it has written a header, a loop instance also proposes the folded header's "
        "reasoning effort, but only when that header's provider and model are the agent's route "
        "and the effort was not marked as an adapter default.",
        _SECTION,
        "and the folded header's `reasoningEffort` only when that header's provider and model "
        "equal the route and its effort was not marked as an adapter default",
        cases=(
            "loop/new-instance-restores-the-effort-for-the-same-route",
            "loop/new-instance-restores-the-effort-for-the-same-route-under-an-effort-set",
            "loop/new-instance-restores-no-effort-for-another-model",
            "loop/new-instance-restores-no-effort-for-another-model-under-an-effort-set",
            "loop/new-instance-restores-no-adapter-default-effort",
            "loop/new-instance-restores-no-adapter-default-effort-under-an-effort-set",
            "loop/new-instance-keeps-its-own-effort-over-the-logged-one",
            "loop/new-instance-keeps-its-own-effort-over-the-logged-one-under-an-effort-set",
        ),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.10",
        "Once a loop instance has written a header, it proposes the folded header's config "
        "without the fields marked as adapter defaults: `temperature`, `stop` and a model a "
        "hook chose carry over to later turns, and marked defaults are resolved (and marked) "
        "again.",
        _SECTION,
        "once the instance has written a header, the folded header's config without the fields "
        "it marks as adapter defaults (so `temperature` and `stop` carry over from turn to turn, "
        "and marked defaults are re-resolved).",
        cases=(
            "loop/temperature-and-stop-carry-to-the-next-turn",
            "loop/adapter-defaults-stay-marked-on-the-next-turn",
            "loop/a-request-hook-switching-the-model-sticks-for-later-turns",
        ),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.11",
        "An agent whose `maxTokens` is not a positive integer of at most 2^53 - 1 is refused "
        "when it is created (agent-config-invalid): nothing is logged and no turn runs.",
        _SECTION,
        "An agent whose `maxTokens` is not a positive integer of at most 2^53 \u2212 1 is "
        "refused when it is created (`agent-config-invalid`): nothing is logged and no turn runs.",
        cases=("loop/an-agent-whose-max-tokens-is-not-a-positive-safe-integer-is-refused",),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.12",
        "A request build that fails (no provider or model after the `agent/request` waterfall, "
        "or the model resolution throwing; the suite counts the waterfall itself throwing as a "
        "failed build too) is not a request error: no `agent/request-error` decision is asked, "
        "no header or context is written for it, and the turn ends as for any other throw.",
        _SECTION,
        "A request build that fails — no provider or model after the `agent/request` waterfall, "
        "or the model resolution throwing — is not a request error: no `agent/request-error` "
        "decision is asked, no header or context is written for it, and the turn ends as for "
        "any other throw",
        cases=(
            "loop/a-route-less-agent-fails-the-build",
            "loop/a-route-less-agent-whose-request-hook-supplies-the-route-sends-it",
            "loop/an-agent-with-a-provider-but-no-model-fails-the-build-before-resolution",
            "loop/a-throwing-request-hook-fails-the-build",
            "loop/a-resolution-failing-with-the-model-layer-failure-ends-the-turn-with-it",
            "loop/a-resolution-that-throws-fails-the-build",
        ),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.13",
        "A turn whose request build fails by a model resolution throwing the model layer's own "
        "failure error ends with that failure, not `UNKNOWN`.",
        _SECTION,
        "the turn ends as for any other throw (the resolution's failure when it is the model "
        "layer's failure error, else `UNKNOWN`)",
        cases=(
            "loop/a-resolution-failing-with-the-model-layer-failure-ends-the-turn-with-it",
            "loop/an-effort-outside-the-new-adapters-set-fails-the-build",
        ),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.14",
        "A provider with no registered adapter is no build failure: the proposed config goes "
        "unresolved (no `adapterDefaults`), the header and context are written, the request is "
        "dispatched, and its stream ends with the error finish `NO_ADAPTER`, a request error "
        "like any other.",
        _SECTION,
        "A provider for which no adapter is registered is not a build failure: the proposed "
        "config is used unresolved (no `adapterDefaults`), the header and context are written, "
        "and the request is dispatched; its stream ends with an error finish `NO_ADAPTER`, which "
        "is a request error like any other.",
        cases=("loop/a-provider-without-an-adapter-is-sent-unresolved",),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.15",
        "Every attempt's config is resolved anew by the adapter registered for its provider at "
        "that time: once an adapter is registered for a provider that had none, the next build "
        "is resolved by it (its defaults marked, so a `change` header; its context window, so a "
        "new `request/context`). CONTRACTS.md does not say when a registration takes effect; "
        "the upstream notes (7.3) prepare the call anew on every attempt.",
        _SECTION,
        "Each attempt's call config is proposed, may be replaced by the `agent/request` "
        "waterfall, and is then resolved by the model adapter",
        cases=("loop/an-adapter-registered-later-resolves-the-next-build",),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.16",
        "A config is resolved by the adapter of its own provider: a route the waterfall "
        "switched to takes that adapter's defaults (marked; a `change` header) and context "
        "window (a new `request/context`), and an effort outside that adapter's effort set "
        "fails the resolution with `UNSUPPORTED_REASONING_EFFORT` (the upstream notes, 7.2 "
        "step 4; CONTRACTS.md names no effort set).",
        _SECTION,
        "resolved by the model adapter, which fills unset `reasoningEffort`/`maxTokens` from its "
        "defaults and marks them (`adapterDefaults`)",
        cases=(
            "loop/a-route-switch-is-resolved-by-the-new-providers-adapter",
            "loop/an-effort-outside-the-new-adapters-set-fails-the-build",
        ),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.17",
        "An agent without a provider or model proposes each it lacks as the empty string to the "
        "`agent/request` waterfall, and after the waterfall an empty provider or model counts "
        "as none (the build fails).",
        _SECTION,
        "An agent created without a provider or model proposes it as the empty string "
        '(`{provider: "", model: ""}` before any waterfall listener runs), and after the '
        "waterfall an empty provider or model counts as none.",
        cases=(
            "loop/a-route-less-agent-proposes-an-empty-route",
            "loop/an-empty-route-after-the-request-hook-counts-as-none",
        ),
    ),
    Requirement(
        "LOOP-REQUEST-BUILD.18",
        "A cancel or a disposal while the `agent/request` waterfall or the model resolution "
        "waits ends the turn aborted with its cause once it settles, with no header, context or "
        "request for that attempt (a cancel: PROMPT-CANCEL-TEST's cases).",
        _SECTION,
        "A cancel or disposal while the `agent/request` waterfall or the model resolution waits "
        "ends the turn `aborted` with the cause once it settles: no header, context or request "
        "is written for that attempt.",
        cases=(
            "loop/dispose-while-the-request-hook-waits-writes-nothing-for-the-attempt",
            "loop/dispose-while-model-resolution-waits-writes-nothing-for-the-attempt",
        ),
    ),
)
