"""Wrong implementations of the loop: build, steps, cancel, runtime context, errors, headers.

See the package's docstring for what a wrong implementation is and how the gallery runs it.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from dsh_reference import header, loop, model_adapter, render, runtime_context, session
from dsh_reference.abort import AbortController, AbortSignal
from dsh_reference.assembly import Assembly
from dsh_reference.blocks import BlockAssembler
from dsh_reference.harness import loop as loop_harness
from dsh_reference.harness import session as session_harness
from dsh_reference.header import headers_equal
from dsh_reference.jsonvalue import Json
from dsh_reference.loop import Agent, Enter, Reject, RequestError
from dsh_reference.model_adapter import AdapterFailure
from dsh_reference.registry import AssembleContext, PromptRegistry
from dsh_reference.runtime_context import Retained, RuntimeContextProjection

from .base import WrongLoop, patched, wrong


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/an-agent-with-a-provider-but-no-model-fails-the-build-before-resolution",
)
@patched(Agent, "__init__")
def HalfRouteResolved(init, self, **options):
    """A proposal with a provider but no model goes to model resolution before the route check
    (as if the route needed only one of the two): the provider's adapter is asked first."""
    init(self, **options)
    hook = self._request

    async def request(question, proposal):
        proposed = await hook(question, proposal)
        if proposed.get("provider") and not proposed.get("model"):
            await self.resolve(dict(proposed), question.signal)
        return proposed

    self._request = request


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/assembled-tools-are-in-the-header-and-the-request",
    "loop/tools-added-after-a-turn-write-one-change-header",
    "loop/resume-header-with-unchanged-tools-is-the-header-alone",
)
@patched(Agent, "build_request")
def ToolsLeftOutOfTheBuild(build, self, turn, step, assembly, *rest):
    """A request build ignores the step's assembled tools: neither the header nor the request
    has any."""
    return build(self, turn, step, dataclasses.replace(assembly, tools=[]), *rest)


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/new-instance-keeps-its-own-effort-over-the-logged-one",
    "loop/new-instance-keeps-its-own-effort-over-the-logged-one-under-an-effort-set",
)
@patched(Agent, "_seed")
def RestoredEffortWins(seed_of, self):
    """A new instance restores the logged effort (same route, not an adapter default) even over
    the agent's own `reasoningEffort`."""
    seed, persisted = seed_of(self), self.log.request_header()
    if self._header_logged or persisted is None or "reasoningEffort" not in persisted["config"]:
        return seed
    route = all(persisted["config"][key] == seed.get(key) for key in ("provider", "model"))
    if route and not persisted.get("adapterDefaults", {}).get("reasoningEffort"):
        seed["reasoningEffort"] = persisted["config"]["reasoningEffort"]
    return seed


@wrong(
    "PROMPT-STEP-BOUNDARY", "loop/a-message-injected-while-a-cancelled-turn-settles-wakes-nothing"
)
@patched(Agent, "cancel")
def CancelWakesForInjected(cancel, self, cause=loop.USER_CANCEL):
    """A cancel leaves the agent set to wake once the cancelled turn ends, so a message injected
    while it settles starts a turn of its own."""
    cancel(self, cause)
    self._wake = True


@wrong("PROMPT-STEP-BOUNDARY", "loop/a-message-injected-during-a-turn-that-fails-wakes-nothing")
@patched(Agent, "_start")
def EveryTurnWakesForInjected(start, self):
    """Every driver is set to wake when its turns stop, so a message injected into a turn that
    ends in error starts a turn of its own."""
    start(self)
    self._wake = True


@wrong(
    "LOOP-REQUEST-BUILD", "loop/a-request-hook-switching-only-the-provider-writes-request-context"
)
@patched(Agent, "_log_context")
def ProviderNotComparedForContext(log_context, self, config, window):
    """`request/context` is written again only when the model or the context window differs, so
    a switch of provider alone writes none."""
    last = self.log.request_context()
    if last is None or (last.get("model"), last.get("contextWindow")) != (config["model"], window):
        log_context(self, config, window)


@wrong("PROMPT-CANCEL-TEST", "loop/dispose-of-an-idle-agent-releases-its-scope-at-once")
@patched(Agent, "dispose")
def IdleDisposeKeepsTheScope(dispose, self):
    """`dispose` releases the agent's scope only after a running turn: an idle agent's scope
    keeps what it holds."""
    self.cancel(loop.DISPOSED)
    self.disposed = True


@wrong("PROMPT-STEP-BOUNDARY", "loop/a-later-step-cut-at-max-tokens-ends-the-turn-max-tokens")
@patched(Agent, "step")
async def FirstConcludedStepEndsTheTurn(step_of, self, turn, step, assembly, signal):
    """A turn ends with the outcome of its first concluded step, not its last one."""
    outcome = await step_of(self, turn, step, assembly, signal)
    first = self.__dict__.setdefault("first_outcomes", {})
    if outcome is not None:
        first.setdefault(turn, outcome)
    return first.get(turn, outcome)


@wrong(
    "PROMPT-STEP-BOUNDARY", "loop/a-turn-ended-by-an-empty-decision-goes-on-to-the-queued-followup"
)
class EmptyDecisionStopsTheDriver(WrongLoop):
    """A turn ended by an empty decision (on messages a later step claimed) stops the agent: a
    follow-up queued meanwhile waits for the next message instead of getting its turn."""

    class agent_class(Agent):
        stopping = False

        async def pre_step(self, target, turn, step, signal):  # type: ignore[no-untyped-def,override]
            claims = bool(self._inbox.next_step)
            decision, assembly = await super().pre_step(target, turn, step, signal)
            empty = isinstance(decision, Enter) and not decision.messages
            self.stopping = step > 1 and claims and empty
            return decision, assembly

        async def _turn(self, signal: AbortSignal) -> bool:
            return await super()._turn(signal) and not self.stopping


@wrong(
    "PROMPT-STEP-BOUNDARY",
    "loop/followups-sent-while-a-cancelled-turn-settles-get-a-turn-each",
    "loop/a-steer-sent-while-a-cancelled-turn-settles-gets-a-turn-of-its-own",
)
@patched(Agent, "_send")
def SentAfterCancelForTheNextStep(send, self, target, message):
    """A message sent while a cancelled turn settles is queued for the next step, follow-ups
    included: the next turn claims them all."""
    if not (self.busy and self._controller.signal.aborted):
        return send(self, target, message)
    self._inbox.add("next-step", message)
    self._wake = True


@wrong("LOOP-REQUEST-BUILD", "loop/a-resolution-that-throws-fails-the-build")
@patched(Agent, "resolve")
async def ResolutionThrowUsesTheProposal(resolve, self, proposed, signal):
    """A model resolution that throws something other than the model layer's failure is
    treated like a missing adapter: the proposed config is used unresolved."""
    try:
        return await resolve(self, proposed, signal)
    except AdapterFailure:
        raise
    except Exception:
        return loop.Resolution(dict(proposed), {}, None)


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/the-adapters-entry-resolves-defaults-and-context-window",
    "loop/a-route-switch-is-resolved-by-the-new-providers-adapter",
    "loop/an-adapter-registered-later-resolves-the-next-build",
    "loop/an-effort-outside-the-new-adapters-set-fails-the-build",
)
@patched(loop_harness.LoopOps, "_resolver")
def AdaptersEntryOnlyRoutes(resolver, self, adapters):
    """An `adapters` entry decides only whether the provider has an adapter: its defaults,
    context window and effort set are never applied."""
    keep = ("resolve",)
    entries = {p: {k: v for k, v in e.items() if k in keep} for p, e in adapters.items()}
    return resolver(self, entries)


@wrong("PROMPT-STEP-BOUNDARY", "loop/a-tool-result-marked-as-an-error-is-logged-as-one")
@patched(loop_harness, "_scripted_tools")
def ToolResultErrorFlagDropped(tools, results, wait):
    """TOOL_RESULT's `isError` is never passed on: every scripted result is an ordinary one."""
    return tools([{k: v for k, v in r.items() if k != "isError"} for r in results], wait)


@wrong("PROMPT-STEP-BOUNDARY", "loop/an-empty-decision-still-opens-a-continuation-step")
@patched(loop_harness, "_scripted_pre_step")
def EmptyDecisionWithoutAList(pre_step, decisions, wait, calls):
    """An `empty` DECISION hands the loop no message list at all (not an empty one), which a
    step the loop opens anyway (a continuation) cannot enter."""
    decide = pre_step(decisions, wait, calls)

    async def decision(question, default):
        decided = await decide(question, default)
        empty = isinstance(decided, Enter) and decided is not default
        return Enter(None) if empty else decided

    return decision


@wrong("PROMPT-STEP-BOUNDARY", "loop/a-decision-object-decides-by-its-decision")
@patched(loop_harness, "_scripted_pre_step")
def DecisionObjectReadAsDefault(pre_step, decisions, wait, calls):
    """A DECISION object `{"decision", "waitFor"?}` waits, then takes the default decision
    whatever it names."""
    read = [
        {**d, "decision": "default"} if isinstance(d, dict) and "decision" in d else d
        for d in decisions
    ]
    return pre_step(read, wait, calls)


@wrong("LOOP-REQUEST-BUILD", "loop/a-request-hook-that-only-waits-passes-the-proposal")
@patched(loop_harness, "_scripted_request")
def RequestHookWithoutSetThrows(request, hooks, wait, calls):
    """A REQUEST_HOOK object with neither `set` nor `throws` throws instead of returning the
    proposal as offered."""
    read = [
        {**h, "throws": "nothing to set"}
        if isinstance(h, dict) and not {"set", "throws"} & set(h)
        else h
        for h in hooks
    ]
    return request(read, wait, calls)


@wrong(
    "LOOP-REQUEST-ERROR-TEST",
    "loop/an-unscripted-request-error-decision-ends-the-turn",
    "loop/adapter-failure-with-code-aborted-ends-the-turn-with-error",
    "loop/a-request-beyond-the-script-fails-script-exhausted",
)
@patched(loop_harness, "_scripted_request_error")
def RequestErrorScriptOverrun(request_error, actions, wait, calls):
    """Past the end of the `requestError` script the decision throws, instead of `end`."""
    return request_error([*actions, *[{"throws": "no action"}] * 8], wait, calls)


@wrong("LOOP-RUNTIME-CONTEXT", "loop/hook-calls-record-the-snapshot-the-default-decision-proposes")
@patched(loop_harness, "_scripted_pre_step")
def HookCallsProposeNothing(pre_step, decisions, wait, calls):
    """`hook-calls` records every pre-step call's `proposed` as null, the runtime-context
    snapshot the default decision adds included."""
    decide = pre_step(decisions, wait, calls)

    async def decision(question, default):
        decided = await decide(question, default)
        calls[-1]["proposed"] = None
        return decided

    return decision


@wrong(
    "PROMPT-HEADER-CHANGE-TEST",
    "loop/header-initial-then-none-over-unchanged-steps",
    "loop/one-change-header-after-a-section-change",
    "loop/tools-added-after-a-turn-write-one-change-header",
    "loop/adapter-defaults-stay-marked-on-the-next-turn",
    "test_golden_header_events",
)
@patched(Agent, "log_header")
def HeaderEveryStep(log_header, self, header):
    """Every request build after the first logs a `change` header, changed or not."""
    if self._header_logged:
        self.append("request/header", {"header": header, "reason": "change"})
    log_header(self, header)


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/resume-header-for-a-new-loop-over-a-seeded-log",
    "loop/resume-header-with-unchanged-tools-is-the-header-alone",
    "loop/new-instance-with-another-context-window-writes-request-context",
    "loop/new-instance-restores-the-effort-for-the-same-route",
    "loop/new-instance-restores-the-effort-for-the-same-route-under-an-effort-set",
)
@patched(Agent, "log_header")
def ResumeSkipped(log_header, self, header):
    """A new loop instance over a log whose header is identical writes no `resume` header."""
    baseline = self.log.request_header()
    if not self._header_logged and baseline is not None and headers_equal(baseline, header):
        self._header_logged = True
    else:
        log_header(self, header)


@wrong("PROMPT-RETRY-BOUNDARY", "loop/retry-keeps-turn-and-step-and-the-rendered-system")
@patched(Agent, "build_request")
async def RenderInsideRetry(build, self, turn, step, assembly, system, messages, signal):
    """Each attempt assembles and renders the system again instead of reusing the step's."""
    context = AssembleContext(scope=self.scope, agent=self.scope, signal=signal)
    assembly = await self.registry.assemble(context)
    return await build(self, turn, step, assembly, self.render_system(assembly), messages, signal)


@wrong(
    "PROMPT-CANCEL-TEST",
    "loop/cancel-while-assembly-blocked-aborts-the-turn",
    "loop/dispose-while-assembly-blocked-aborts-the-turn",
    "loop/dispose-while-a-provider-blocks-aborts-the-turn",
    "loop/dispose-releases-the-agent-scope-once-the-turn-has-ended",
    "loop/followup-after-cancel-runs-once-the-aborted-turn-ends",
    "loop/cancel-drops-followups-queued-behind-the-turn",
    "loop/cancel-reaches-a-cooperative-listener-through-the-signal",
    "loop/cancel-while-the-pre-step-decision-waits-aborts-the-turn",
    "loop/cancel-while-the-turn-stopping-hook-waits-aborts-the-turn",
)
@patched(Agent, "cancel")
def CancelOnlyInsideSteps(cancel, self, cause=None):
    """A cancel while no step is open only clears the inbox, so the blocked turn goes on and
    sends its request."""
    opened = [e.type for e in self.log.events if e.type in ("step/start", "step/end")]
    if opened[-1:] != ["step/start"]:
        return self._inbox.clear()
    cancel(self, cause if cause is not None else {"kind": "user"})


@wrong(
    "LOOP-RUNTIME-CONTEXT",
    "loop/runtime-context-unchanged-over-steps-one-snapshot",
    "loop/runtime-context-removed-sends-the-cleared-marker-once",
    "loop/runtime-context-restored-from-a-seed-is-not-re-proposed",
    "loop/runtime-context-seeded-in-another-form-is-restored-by-its-owner",
    "loop/runtime-context-kept-by-a-replacement-that-spares-it",
)
@patched(Agent, "propose_context")
def SnapshotEveryStep(propose, self, assembly):
    """The runtime context is projected without a baseline, so it is re-proposed every step."""
    proposed = RuntimeContextProjection().project(render.render_context_sections(assembly))
    return None if proposed is None else {**proposed, "id": self.new_id()}


@wrong("LOOP-RUNTIME-CONTEXT", "loop/runtime-context-removed-sends-the-cleared-marker-once")
@patched(Agent, "propose_context")
def NoClearedMarker(propose, self, assembly):
    """An emptied runtime context proposes nothing: the cleared marker is never sent."""
    sections = render.render_context_sections(assembly)
    return propose(self, assembly) if any(s.text for s in sections) else None


@wrong("LOOP-REQUEST-ERROR-TEST", "loop/adapter-failure-with-code-aborted-ends-the-turn-with-error")
@patched(Agent, "_chunks")
async def AbortedFailureKindMisspelt(chunks, self, request, signal):
    """An adapter failure taken as an abort is logged with the finish kind `"ABORTED"` (the
    failure's code, not a reason kind), so the loop takes the attempt for a success: it writes an
    `assistant/message` and the turn ends `completed` (the mutants `Agent._chunks` 14 and 15)."""
    async for chunk in chunks(self, request, signal):
        reason = chunk.get("reason") if chunk.get("type") == "finish" else None
        if isinstance(reason, dict) and reason.get("kind") == "aborted":
            chunk = {**chunk, "reason": {**reason, "kind": "ABORTED"}}
        yield chunk


class _RetryAsNewStep(Exception):
    pass


@wrong(
    "LOOP-REQUEST-ERROR-TEST",
    "loop/retry-keeps-turn-and-step-and-the-rendered-system",
    "loop/retry-after-partial-stream-cites-only-its-own-chunks",
)
class RetryOpensNewStep(WrongLoop):
    """A retried request is sent from a new step (`step/end`, then `step/start` of step + 1)."""

    class agent_class(Agent):
        def __init__(self, **options: Any) -> None:
            decide = options["request_error"]

            async def request_error(question: RequestError) -> Any:
                if await decide(question) == "retry":
                    raise _RetryAsNewStep
                return None

            super().__init__(**{**options, "request_error": request_error})

        async def step(self, turn: int, step: int, assembly: Assembly, signal: AbortSignal) -> Json:
            try:
                return await super().step(turn, step, assembly, signal)
            except _RetryAsNewStep:
                return None


@wrong(
    "PROMPT-STEP-BOUNDARY",
    "loop/empty-first-decision-completes-without-step",
    "loop/a-turn-ended-by-an-empty-decision-goes-on-to-the-queued-followup",
)
@patched(Agent, "__init__")
def EmptyDecisionFallsBack(init, self, **options):
    """An empty `agent/pre-step` decision is taken as "no opinion": the default messages enter."""
    decide = options["pre_step"]

    async def pre_step(question, default):
        decision = await decide(question, default)
        return default if decision == Enter([]) else decision

    init(self, **{**options, "pre_step": pre_step})


@wrong("LOGGEDLOOP-REQUEST-INVARIANT")
@patched(Agent, "build_request")
def RebuiltMessages(build, self, turn, step, assembly, system, messages, signal):
    """Request messages are rebuilt from the logged ones (same values, other key order)."""
    rebuilt = [dict(sorted(message.items())) for message in messages]
    return build(self, turn, step, assembly, system, rebuilt, signal)


@wrong(
    "PROMPT-HEADER-CANONICAL",
    "header/equal-absent-stop-differs-from-empty-stop",
    "test_header_equality[stop]",
)
@patched(header, "header_differences")
def EmptyStopEqualsAbsent(differences, a, b):
    """Header equality treats ``stop: []`` like an absent ``stop`` (`?? []` on both sides)."""
    found = differences(a, b)
    if a["config"].get("stop", []) == [] and b["config"].get("stop", []) == []:
        found = [field for field in found if field != "config.stop"]
    return found


@wrong(
    "LOOP-RUNTIME-CONTEXT",
    "loop/runtime-context-unchanged-over-steps-one-snapshot",
    "loop/runtime-context-removed-sends-the-cleared-marker-once",
    "loop/runtime-context-restored-from-a-seed-is-not-re-proposed",
    "loop/runtime-context-seeded-in-another-form-is-restored-by-its-owner",
    "loop/runtime-context-kept-by-a-replacement-that-spares-it",
    "runtime-context/retained-cleared-marker-and-empty-proposes-nothing",
    "runtime-context/retained-snapshot-and-the-same-context-proposes-nothing",
    "runtime-context/restore-takes-the-newest-visible-owned-message",
    "runtime-context/restore-skips-a-shadowed-snapshot-for-an-older-visible-one",
    "runtime-context/restore-over-a-seeded-log",
    "runtime-context/an-entered-proposal-becomes-retained",
    "runtime-context/an-owned-replacement-becomes-retained",
    "runtime-context/an-append-citing-the-retained-seq-forgets-nothing",
    "runtime-context/live-forgetting-does-not-walk-back",
)
@patched(RuntimeContextProjection, "project")
def ReproposesUnchangedSnapshot(project, self, sections):
    """The projection never compares with the retained text: every step proposes a snapshot."""
    retained = self._retained
    if isinstance(retained, Retained):
        self._retained = Retained(retained.seq, None)
    try:
        return project(self, sections)
    finally:
        self._retained = retained


@wrong(
    "LOOP-RUNTIME-CONTEXT",
    "loop/runtime-context-replaced-live-is-forgotten-and-re-proposed",
    "runtime-context/a-replacement-shadowing-the-retained-snapshot-forgets-it",
    "runtime-context/a-replacement-only-citing-the-retained-seq-forgets-it",
)
@patched(RuntimeContextProjection, "observe")
def ReplaceKeepsRetainedSnapshot(observe, self, event):
    """A surface replacement citing the retained snapshot does not make it none-retained."""
    if event.type == "user/message" and runtime_context.is_owned(event.data):
        observe(self, event)


@wrong(
    "PROMPT-HEADER-CANONICAL",
    "header/canonical-drops-empty-system",
    "test_canonical_header_matches_the_golden[no-system-no-tools]",
)
@patched(header, "canonical_header")
def CanonicalKeepsEmptySystem(canonical, raw, **options):
    """The canonical header keeps ``system: ''`` instead of dropping it (tools still dropped)."""
    result = canonical(raw, **options)
    if raw.get("system") == "":
        result = {**result, "system": ""}
    return result


@wrong(
    "LOOP-RUNTIME-CONTEXT",
    "loop/runtime-context-removed-sends-the-cleared-marker-once",
    "runtime-context/none-retained-and-empty-proposes-the-cleared-marker",
    "runtime-context/retained-snapshot-and-empty-proposes-the-cleared-marker",
    "runtime-context/retained-unknown-text-always-proposes",
    "runtime-context/an-entered-proposal-becomes-retained",
    "runtime-context/a-replacement-shadowing-the-retained-snapshot-forgets-it",
)
@patched(RuntimeContextProjection, "project")
def NeverProposesTheClearedMarker(project, self, sections):
    """An empty runtime context proposes nothing, even when a snapshot is retained."""
    return project(self, sections) if any(entry.text for entry in sections) else None


@wrong(
    "LOGGEDLOOP-REQUEST-INVARIANT",
    "test_loop_invariant[loop/retry-keeps-turn-and-step-and-the-rendered-system]",
    "test_loop_invariant[loop/cancel-during-the-request-error-decision-aborts-the-turn]",
    "test_loop_invariant[loop/unretried-failure-ends-the-turn-with-error]",
    "test_loop_invariant[loop/a-request-beyond-the-script-fails-script-exhausted]",
    "test_loop_invariant[loop/a-throwing-request-error-decision-ends-the-turn-unknown]",
    "test_loop_invariant[loop/the-request-error-decision-is-asked-about-the-failed-attempt]",
    "test_loop_invariant[loop/a-provider-without-an-adapter-is-sent-unresolved]",
    "test_loop_invariant[loop/an-adapter-registered-later-resolves-the-next-build]",
    "test_loop_invariant[loop/cancel-while-the-request-error-decision-waits-aborts-the-turn]",
    "test_loop_invariant[loop/a-message-injected-during-a-turn-that-fails-wakes-nothing]",
    "test_loop_invariant[loop/an-unscripted-request-error-decision-ends-the-turn]",
)
@patched(Agent, "_chunks")
async def ResendsBeforeTheFirstChunk(chunks, self, request, signal):
    """A stream that fails before its first chunk is sent again in place, as a transport retry:
    the failed request leaves no event though its turn goes on (LOGGEDLOOP-REQUEST-INVARIANT: "A
    request cancelled before its first chunk leaves no event", no other request may)."""
    first = True
    async for chunk in chunks(self, request, signal):
        if first and chunk["type"] == "finish" and chunk["reason"]["kind"] == "error":
            async for again in chunks(self, request, signal):
                yield again
            return
        first = False
        yield chunk


@wrong("PROMPT-CANCEL-TEST", "loop/dispose-releases-the-agent-scope-once-the-turn-has-ended")
@patched(Agent, "dispose")
def DisposesTheScopeAtOnce(dispose, self):
    """Owner disposal releases the agent's scope at once, not after the blocked turn has ended
    (upstream section 9: "cancel; await whenIdle; scope.dispose")."""
    self.registry.dispose_scope(self.scope)
    dispose(self)


@wrong(
    "LOOP-RUNTIME-CONTEXT", "loop/runtime-context-seeded-in-another-form-is-restored-by-its-owner"
)
@patched(runtime_context, "_is_owned_user_message")
def RestoresOnlyWellFormedMessages(owned, event):
    """Restoring skips an owned message in a form no loop writes (a snapshot's text under the
    cleared marker's source), as if seeded events were held to the loop's own rules."""
    text = runtime_context.retained_text(event.data) if owned(event) else None
    return owned(event) and (
        "form" in event.data["source"] or text == runtime_context.CLEARED_MARKER
    )


@wrong("PROMPT-CANCEL-TEST", "loop/cancel-drops-followups-queued-behind-the-turn")
@patched(Agent, "cancel")
def CancelKeepsQueuedFollowups(cancel, self, cause=None):
    """A cancel drops the next-step messages but leaves the follow-ups queued behind the
    cancelled turn: the next follow-up's turn takes the oldest of them instead."""
    queued = list(self._inbox.next_turn)
    cancel(self, cause if cause is not None else {"kind": "user"})
    self._inbox.next_turn = queued


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/new-instance-with-another-context-window-writes-request-context",
    "loop/request-state-reads-the-folded-header-and-context",
    "loop/an-adapter-registered-later-resolves-the-next-build",
)
@patched(Agent, "_log_context")
def ContextWindowNotCompared(log_context, self, config, window):
    """`request/context` is written again only when the provider or model differs, so a new
    loop instance with another context window writes none."""
    last = self.log.request_context()
    if last is None or any(last[key] != config[key] for key in ("provider", "model")):
        log_context(self, config, window)


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/adapter-defaults-stay-marked-on-the-next-turn",
    "loop/a-route-switch-is-resolved-by-the-new-providers-adapter",
)
@patched(Agent, "_seed")
def DefaultsProposedAsValues(seed_of, self):
    """After the first header, the whole folded config is proposed again, values filled from
    adapter defaults included: they are no longer marked, and the header changes."""
    persisted = self.log.request_header()
    if self._header_logged and persisted is not None:
        return dict(persisted["config"])
    return seed_of(self)


@wrong("LOOP-REQUEST-BUILD", "loop/temperature-and-stop-carry-to-the-next-turn")
@patched(Agent, "_seed")
def TemperatureAndStopDropped(seed_of, self):
    """Later turns propose the folded config without `temperature` and `stop`."""
    seed = seed_of(self)
    dropped = ("temperature", "stop") if self._header_logged else ()
    return {key: value for key, value in seed.items() if key not in dropped}


@wrong(
    "PROMPT-RETRY-BOUNDARY",
    "loop/a-throwing-provider-ends-the-turn-unknown",
    "loop/a-throwing-listener-ends-the-turn-unknown",
    "loop/a-throwing-pre-step-hook-ends-the-turn-unknown",
    "loop/a-throwing-tool-runtime-ends-the-turn-unknown",
    "loop/a-throwing-request-error-decision-ends-the-turn-unknown",
    "loop/a-throwing-request-hook-fails-the-build",
    "loop/a-chunk-the-log-refuses-ends-the-turn-without-an-interrupted-message",
)
@patched(loop, "_failure_of")
def ThrowsReportedByClassName(failure_of, error: Exception):
    """A turn ended by a throw that is not the model layer's failure ends with the error's
    class name as its code, not `UNKNOWN`."""
    failure = failure_of(error)
    if failure["code"] == "UNKNOWN":
        return {**failure, "code": type(error).__name__}
    return failure


@wrong(
    "PROMPT-STEP-BOUNDARY",
    "loop/a-followup-during-a-multi-step-turn-waits-for-the-next-turn",
    "loop/a-turn-ended-by-an-empty-decision-goes-on-to-the-queued-followup",
)
@patched(Agent, "pre_step")
def ClaimsFollowupsAtEveryStep(pre_step, self, target, turn, step, signal):
    """Every step, not only a turn's first, claims a next-turn message besides the next-step
    ones."""
    return pre_step(self, "next-turn", turn, step, signal)


class _ContextEdited:
    """A registry whose assemblies get their context with some fields replaced: a loop that
    builds its assembly context wrongly."""

    def __init__(self, registry: PromptRegistry, **changes: Any) -> None:
        self._registry = registry
        self._changes = changes

    def __getattr__(self, name: str) -> Any:
        return getattr(self._registry, name)

    async def assemble(self, context: AssembleContext | None = None) -> Assembly:
        return await self._registry.assemble(
            dataclasses.replace(context or AssembleContext(), **self._changes)
        )


@wrong(
    "PROMPT-STEP-BOUNDARY",
    "loop/providers-get-the-agent-as-agent-and-scope",
    "loop/listeners-get-the-agent-as-agent-and-scope",
)
@patched(Agent, "__init__")
def AgentMissingFromTheAssemblyContext(init, self, **options):
    """The loop assembles with `{scope: agent, signal}`: no `agent` in the assembly context."""
    init(self, **options)
    self.registry = _ContextEdited(self.registry, agent=None)


@wrong("PROMPT-STEP-BOUNDARY", "loop/listeners-get-the-agent-as-agent-and-scope")
@patched(PromptRegistry, "_waterfall")
def ListenersGetNoAgent(waterfall, self, assembly, context, chain):
    """The `system-prompt/assemble` waterfall is given `{scope, signal}` only: providers see
    the agent of the assembly context, listeners never do."""
    return waterfall(self, assembly, dataclasses.replace(context, agent=None), chain)


@wrong("PROMPT-CANCEL-TEST", "loop/cancel-reaches-a-cooperative-listener-through-the-signal")
@patched(Agent, "__init__")
def ForgetsTheSignal(init, self, **options):
    """The loop assembles with ``{agent, scope}`` but no abort signal, so a cooperative listener
    cannot see the cancel (it throws "no abort signal" in the harness)."""
    init(self, **options)
    self.registry = _ContextEdited(self.registry, signal=None)


def _own_config(agent: Agent) -> dict[str, Any]:
    """The agent's config, a provider or model it has none of as ``""`` (LOOP-REQUEST-BUILD)."""
    return {"provider": "", "model": "", **agent.config}


def _restores_effort(agent: Agent, *, same_route: bool, unmarked: bool) -> dict[str, Any]:
    """A new instance's proposal: the agent's config, with the logged effort restored under the
    conditions asked for (LOOP-REQUEST-BUILD asks for both)."""
    seed = _own_config(agent)
    persisted = agent.log.request_header()
    if persisted is None or "reasoningEffort" in seed:
        return seed
    config = persisted["config"]
    route = all(config[key] == seed.get(key) for key in ("provider", "model"))
    marked = persisted.get("adapterDefaults", {}).get("reasoningEffort", False)
    if "reasoningEffort" in config and (route or not same_route) and (not marked or not unmarked):
        seed["reasoningEffort"] = config["reasoningEffort"]
    return seed


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/new-instance-restores-the-effort-for-the-same-route",
    "loop/new-instance-restores-the-effort-for-the-same-route-under-an-effort-set",
)
@patched(Agent, "_seed")
def EffortNeverRestored(seed_of, self):
    """A new loop instance proposes only its agent's config: no effort restored from the log."""
    return seed_of(self) if self._header_logged else _own_config(self)


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/new-instance-restores-no-effort-for-another-model",
    "loop/new-instance-restores-no-effort-for-another-model-under-an-effort-set",
)
@patched(Agent, "_seed")
def EffortRestoredForAnyRoute(seed_of, self):
    """A new loop instance restores the logged effort whatever the logged provider and model."""
    restored = _restores_effort(self, same_route=False, unmarked=True)
    return seed_of(self) if self._header_logged else restored


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/new-instance-restores-no-adapter-default-effort",
    "loop/new-instance-restores-no-adapter-default-effort-under-an-effort-set",
)
@patched(Agent, "_seed")
def AdapterDefaultEffortRestored(seed_of, self):
    """A new loop instance restores the logged effort even when it was an adapter default."""
    restored = _restores_effort(self, same_route=True, unmarked=False)
    return seed_of(self) if self._header_logged else restored


@wrong("LOOP-REQUEST-BUILD", "loop/new-instance-restores-no-temperature-stop-or-max-tokens")
@patched(Agent, "_seed")
def NewInstanceRestoresTheConfig(seed_of, self):
    """A new loop instance also restores the logged `temperature`, `stop` and `maxTokens` its
    agent leaves unset (those not marked as adapter defaults)."""
    seed, persisted = seed_of(self), self.log.request_header()
    if self._header_logged or persisted is None:
        return seed
    marked, config = persisted.get("adapterDefaults", {}), persisted["config"]
    for key in ("temperature", "stop", "maxTokens"):
        if key in config and key not in seed and not marked.get(key):
            seed[key] = config[key]
    return seed


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/a-throwing-request-hook-fails-the-build",
    "loop/a-route-less-agent-fails-the-build",
    "loop/a-resolution-failing-with-the-model-layer-failure-ends-the-turn-with-it",
    "loop/a-resolution-that-throws-fails-the-build",
)
@patched(Agent, "build_request")
async def BuildFailureAsksTheRequestErrorDecision(build, self, turn, step, *rest):
    """A request build that fails is handled as a request error: the `agent/request-error`
    decision is asked about it before the turn ends."""
    signal = rest[-1]
    try:
        return await build(self, turn, step, *rest)
    except Exception as error:
        if signal.aborted:
            raise
        failure = {"message": str(error), "code": "UNKNOWN"}
        provider = self.config.get("provider", "")
        await self._request_error(RequestError(turn, step, provider, failure, signal))
        raise


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/a-route-less-agent-fails-the-build",
    "loop/an-agent-with-a-provider-but-no-model-fails-the-build-before-resolution",
    "loop/a-route-less-agent-proposes-an-empty-route",
    "loop/an-empty-route-after-the-request-hook-counts-as-none",
)
class RouteCheckedWithTheContext(WrongLoop):
    """The route is checked only where `request/context` needs it, after the header is written:
    a route-less build fails with its header in the log (still no context or request).

    The reference's log refuses a header without a route on every append, which would hide the
    change; this loop's log, reading CONTRACTS.md's list of malformed headers as a seed rule only,
    lets the loop's own headers through unchecked.
    """

    def __init__(self) -> None:
        check_shape = session._check_shape

        def seeds_only(type: str, data: Json, where: str) -> None:
            if type != "request/header":
                check_shape(type, data, where)

        session._check_shape = seeds_only

    class agent_class(Agent):
        def check_route(self, proposed: dict[str, Any]) -> None:
            pass

        def _log_context(self, config: Any, window: int | None) -> None:
            super().check_route(config)
            super()._log_context(config, window)


@wrong(
    "LOOP-REQUEST-BUILD", "loop/an-agent-whose-max-tokens-is-not-a-positive-safe-integer-is-refused"
)
@patched(loop, "_check_max_tokens")
def MaxTokensUnchecked(check, config):
    """An agent is created whatever its `maxTokens`."""


@wrong("LOOP-REQUEST-BUILD", "loop/a-request-hook-switching-the-model-sticks-for-later-turns")
@patched(Agent, "_seed")
def ProposesTheAgentRouteEveryBuild(seed_of, self):
    """Every build proposes the agent's own provider and model, not the folded header's: a route
    the `agent/request` waterfall switched to lasts one request."""
    route = {key: self.config[key] for key in ("provider", "model") if key in self.config}
    return {**seed_of(self), **route}


@wrong("PROMPT-CANCEL-TEST", "loop/cancel-while-the-pre-step-decision-waits-aborts-the-turn")
@patched(Agent, "__init__")
def PreStepDecisionWithoutTheTurnSignal(init, self, **options):
    """The `agent/pre-step` decision is given a signal of its own, not the turn's: a decision
    waiting for the abort never hears of a cancel."""
    decide, own = options["pre_step"], AbortController().signal

    async def pre_step(question, default):
        return await decide(dataclasses.replace(question, signal=own), default)

    init(self, **{**options, "pre_step": pre_step})


@wrong("PROMPT-CANCEL-TEST", "loop/cancel-while-the-request-error-decision-waits-aborts-the-turn")
@patched(Agent, "__init__")
def RequestErrorDecisionWithoutTheTurnSignal(init, self, **options):
    """The `agent/request-error` decision is given a signal of its own, not the turn's: a
    decision waiting for the abort never hears of a cancel."""
    decide, own = options["request_error"], AbortController().signal

    async def request_error(question):
        return await decide(dataclasses.replace(question, signal=own))

    init(self, **{**options, "request_error": request_error})


@wrong(
    "LOOP-REQUEST-ERROR-TEST", "loop/the-request-error-decision-is-asked-about-the-failed-attempt"
)
@patched(Agent, "__init__")
def RequestErrorTurnMixedUp(init, self, **options):
    """The `agent/request-error` decision is told the step's number as the turn."""
    decide = options["request_error"]

    async def request_error(question):
        return await decide(dataclasses.replace(question, turn=question.step))

    init(self, **{**options, "request_error": request_error})


@wrong(
    "PROMPT-STEP-BOUNDARY",
    "loop/an-injected-message-waits-idle-for-the-next-turn",
    "loop/a-message-injected-while-a-cancelled-turn-settles-wakes-nothing",
)
@patched(Agent, "inject")
def InjectWakesTheAgent(inject, self, message):
    """An injected message wakes an idle agent, as a steer does."""
    self.steer(message)


@wrong(
    "PROMPT-STEP-BOUNDARY",
    "loop/an-injected-message-waits-idle-for-the-next-turn",
    "loop/a-message-injected-during-a-step-opens-the-next-step",
    "loop/a-message-injected-while-the-turn-stopping-hook-waits-opens-another-step",
)
@patched(Agent, "inject")
def InjectWaitsForTheNextTurn(inject, self, message):
    """An injected message is queued for the next turn instead of the next step."""
    self._inbox.add("next-turn", message)


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/a-resolution-failing-with-the-model-layer-failure-ends-the-turn-with-it",
    "loop/an-effort-outside-the-new-adapters-set-fails-the-build",
)
@patched(loop, "_failure_of")
def ResolutionFailureReportedAsUnknown(failure_of, error: Exception):
    """A turn ended by a thrown model-layer failure (one model resolution threw) ends
    `UNKNOWN` instead of with that failure."""
    if isinstance(error, AdapterFailure):
        return {"message": str(error), "code": "UNKNOWN"}
    return failure_of(error)


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/a-provider-without-an-adapter-is-sent-unresolved",
    "loop/an-adapter-registered-later-resolves-the-next-build",
)
@patched(Agent, "resolve")
def NoAdapterFailsTheBuild(resolve, self, proposed, signal):
    """A provider without an adapter fails the request build (no header, no request) instead
    of being sent unresolved."""
    return self._resolver(proposed, signal)


@wrong("LOOP-REQUEST-BUILD", "loop/an-adapter-registered-later-resolves-the-next-build")
@patched(Agent, "resolve")
async def NoAdapterRemembered(resolve, self, proposed, signal):
    """A provider once found without an adapter is remembered so: its later configs are sent
    unresolved without asking the model layer again, so an adapter registered since is unused."""
    adapterless = self.__dict__.setdefault("adapterless", set())
    if proposed["provider"] not in adapterless:
        try:
            return await self._resolver(proposed, signal)
        except AdapterFailure as error:
            if error.code != loop.NO_ADAPTER:
                raise
            adapterless.add(proposed["provider"])
    return loop.Resolution(dict(proposed), {}, None)


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/a-route-switch-is-resolved-by-the-new-providers-adapter",
    "loop/an-effort-outside-the-new-adapters-set-fails-the-build",
    "loop/a-route-less-agent-whose-request-hook-supplies-the-route-sends-it",
)
@patched(Agent, "resolve")
async def AdapterOfTheAgentsRoute(resolve, self, proposed, signal):
    """Every config is resolved by the adapter of the agent's own provider, looked up as if the
    route were the agent's: a route the `agent/request` waterfall switched to gets the first
    adapter's defaults, effort set and context window."""
    resolution = await resolve(self, {**proposed, "provider": self.config["provider"]}, signal)
    config = {**resolution.config, "provider": proposed["provider"]}
    return dataclasses.replace(resolution, config=config)


@wrong("LOOP-REQUEST-BUILD", "loop/an-effort-outside-the-new-adapters-set-fails-the-build")
@patched(loop, "_check_effort")
def EffortSetIgnored(check, config, efforts):
    """Model resolution fills in an adapter's defaults but never checks the effort against the
    adapter's effort set: an unsupported effort is sent, for the provider to refuse."""


@wrong("PROMPT-CANCEL-TEST", "loop/cancel-while-the-request-hook-waits-writes-no-header")
@patched(Agent, "__init__")
def RequestHookWithoutTheTurnSignal(init, self, **options):
    """The `agent/request` waterfall is given a signal of its own, not the turn's: a hook
    waiting for the abort never hears of a cancel."""
    propose, own = options["request"], AbortController().signal

    async def request(question, proposal):
        return await propose(dataclasses.replace(question, signal=own), proposal)

    init(self, **{**options, "request": request})


@wrong("PROMPT-CANCEL-TEST", "loop/cancel-while-model-resolution-waits-writes-no-header")
@patched(Agent, "resolve")
def ResolutionWithoutTheTurnSignal(resolve, self, proposed, signal):
    """Model resolution is given a signal of its own, not the turn's: a resolution waiting for
    the abort never hears of a cancel."""
    return resolve(self, proposed, AbortController().signal)


@wrong("PROMPT-CANCEL-TEST", "loop/cancel-while-a-tool-runs-keeps-its-result-and-aborts")
@patched(Agent, "__init__")
def ToolRunsWithoutTheTurnSignal(init, self, **options):
    """Tools are given a signal of their own, not the turn's: a tool waiting for the abort
    never hears of a cancel."""
    run, own = options["tools"], AbortController().signal

    async def tools(call, _signal):
        return await run(call, own)

    init(self, **{**options, "tools": tools})


@wrong(
    "PROMPT-STEP-BOUNDARY",
    "loop/the-turn-stopping-hook-waits-before-the-turn-ends",
    "loop/a-message-injected-while-the-turn-stopping-hook-waits-opens-another-step",
)
@patched(Agent, "continues")
async def TurnStoppingNeverAsked(continues, self, turn, signal):
    """No `agent/turn-stopping` hook: a turn whose step concluded ends at once (CONTRACTS.md
    names no such hook; the upstream awaits one)."""
    return bool(self._inbox.next_step)


@wrong("PROMPT-CANCEL-TEST", "loop/cancel-while-the-turn-stopping-hook-waits-aborts-the-turn")
@patched(Agent, "continues")
async def NoCancelCheckAfterTurnStopping(continues, self, turn, signal):
    """The turn-stopping hook is awaited, but the cancellation is not checked after it: a turn
    cancelled while the hook waits ends with its steps' outcome."""
    if not self._inbox.next_step:
        await self._turn_stopping(loop.TurnStopping(turn, signal))
    return bool(self._inbox.next_step)


@wrong(
    "PROMPT-STEP-BOUNDARY",
    "loop/a-message-injected-while-the-turn-stopping-hook-waits-opens-another-step",
)
@patched(Agent, "continues")
async def InboxReadBeforeTurnStopping(continues, self, turn, signal):
    """Whether the turn goes on is decided before the turn-stopping hook runs: a next-step
    message queued while it waits is left for the next turn."""
    waiting = bool(self._inbox.next_step)
    await continues(self, turn, signal)
    return waiting


@wrong("PROMPT-STEP-BOUNDARY", "loop/rejected-decision-consumes-the-message")
@patched(Agent, "pre_step")
async def RejectLogsTheMessage(pre_step, self, target, turn, step, signal):
    """A rejected decision still logs the messages it claimed (in no step), then ends blocked."""
    claimed: list[Json] = []
    claim = self._inbox.claim
    self._inbox.claim = lambda target: claimed.extend(claim(target)) or list(claimed)
    try:
        decision, assembly = await pre_step(self, target, turn, step, signal)
    finally:
        del self._inbox.claim
    for message in claimed if isinstance(decision, Reject) else ():
        self.append("user/message", message, surface_op="append")
    return decision, assembly


@wrong(
    "PROMPT-STEP-BOUNDARY",
    "loop/rejected-first-decision-blocks",
    "loop/rejected-decision-after-a-step-blocks",
    "loop/a-decision-object-decides-by-its-decision",
)
@patched(Agent, "pre_step")
async def RejectEndsCompleted(pre_step, self, target, turn, step, signal):
    """A rejected decision ends the turn ``completed``, as an empty one does."""
    decision, assembly = await pre_step(self, target, turn, step, signal)
    return (Enter([]) if isinstance(decision, Reject) else decision), assembly


@wrong(
    "LOGGEDLOOP-REQUEST-INVARIANT",
    "test_loop_invariant[loop/a-message-injected-during-a-step-opens-the-next-step]",
    "test_loop_invariant[loop/hook-calls-record-the-snapshot-the-default-decision-proposes]",
    "test_loop_invariant[loop/a-message-injected-while-the-turn-stopping-hook-waits-opens-another-step]",
    "test_loop_invariant[loop/an-injected-message-waits-idle-for-the-next-turn]",
    "test_loop_invariant[loop/runtime-context-kept-by-a-replacement-that-spares-it]",
    "test_loop_invariant[loop/runtime-context-removed-sends-the-cleared-marker-once]",
    "test_loop_invariant[loop/runtime-context-replaced-live-is-forgotten-and-re-proposed]",
    "test_loop_invariant[loop/runtime-context-replaced-on-the-surface-is-re-proposed]",
    "test_loop_invariant[loop/runtime-context-restored-from-a-seed-is-not-re-proposed]",
    "test_loop_invariant[loop/runtime-context-seeded-in-another-form-is-restored-by-its-owner]",
    "test_loop_invariant[loop/runtime-context-unchanged-over-steps-one-snapshot]",
)
@patched(Agent, "build_request")
def SnapshotLoggedNotSent(build, self, turn, step, assembly, system, messages, signal):
    """The runtime-context snapshot is logged, but kept out of the model's messages (taken for
    the plugin's bookkeeping): the log is right, the requests are not what it derives."""
    model_input = [m for m in messages if m.get("source", {}).get("kind") != "plugin"]
    return build(self, turn, step, assembly, system, model_input, signal)


@wrong("PROMPT-HEADER-CANONICAL", "header/equal-tool-schemas-compared-as-json-text")
@patched(header, "_same_tools")
def ToolsComparedAsPythonText(same, tools_a, tools_b):
    """Tool schemas compared by Python's ``json.dumps`` texts, not by the text ``JSON.stringify``
    writes: a schema holding ``1.0`` differs from one holding ``1``."""
    return json.dumps(tools_a) == json.dumps(tools_b)


async def _past_the_end(replies, index):  # type: ignore[no-untyped-def]
    yield replies[index]


@wrong("LOOP-REQUEST-ERROR-TEST", "loop/a-request-beyond-the-script-fails-script-exhausted")
@patched(model_adapter.ScriptedAdapter, "_play")
def ExhaustedScriptFailsUnknown(play, self, index, signal):
    """The scripted model reads the n-th reply without checking the script's length: a request
    beyond it fails with an index error (code `UNKNOWN`), not `SCRIPT_EXHAUSTED`."""
    if index >= len(self.replies):
        return _past_the_end(self.replies, index)
    return play(self, index, signal)


@wrong("PROMPT-RETRY-BOUNDARY", "loop/cancel-mid-reasoning-keeps-the-reasoning-block")
@patched(BlockAssembler, "interrupted_blocks")
def InterruptedMessageDropsReasoning(interrupted_blocks, self: BlockAssembler) -> list[Json]:
    """A cancelled stream's interrupted message keeps its text blocks but not its reasoning
    blocks (PROMPT-RETRY-BOUNDARY: "only those text and reasoning blocks")."""
    return [block for block in interrupted_blocks(self) if block.get("type") != "reasoning"]


@wrong("PROMPT-RETRY-BOUNDARY", "loop/cancel-after-blank-text-logs-no-message")
@patched(BlockAssembler, "interrupted_blocks")
def InterruptedMessageKeepsBlankText(interrupted_blocks, self: BlockAssembler) -> list[Json]:
    """A cancelled stream's text and reasoning blocks make an interrupted message even when
    they carried only whitespace (PROMPT-RETRY-BOUNDARY asks for non-blank text)."""
    return [
        dict(block) for block in self._blocks.values() if block["type"] in ("text", "reasoning")
    ]


@wrong("PROMPT-RETRY-BOUNDARY", "loop/cancel-after-two-deltas-keeps-their-joined-text")
@patched(BlockAssembler, "push")
def InterruptedTextKeepsTheLastDelta(push, self: BlockAssembler, chunk: Json) -> None:
    """A text delta replaces its block's text instead of extending it: an interrupted message
    holds only the last delta (a finished one is right, its `block-end` carries the block)."""
    push(self, chunk)
    if chunk.get("type") == "text-delta" and chunk.get("index") not in self._closed:
        self._blocks[chunk["index"]]["text"] = chunk["text"]


@wrong("PROMPT-RETRY-BOUNDARY", "loop/a-stream-that-yields-nothing-is-answered-by-an-empty-message")
@patched(BlockAssembler, "__init__")
def SilentStreamFails(init, self: BlockAssembler) -> None:
    """A stream that ends without a `finish` chunk counts as a failed attempt (`STREAM_CLOSED`)
    instead of one that finished normally, so a stream that yields no chunk ends the turn
    `error` instead of writing an empty `assistant/message`."""
    init(self)
    failure = {"message": "stream ended without a finish", "code": "STREAM_CLOSED"}
    self.finish = {"kind": "error", "failure": failure}


@wrong("PROMPT-RETRY-BOUNDARY", "loop/cancel-after-two-blocks-keeps-both")
@patched(BlockAssembler, "interrupted_blocks")
def InterruptedMessageKeepsOnlyTheFirstBlock(
    interrupted_blocks, self: BlockAssembler
) -> list[Json]:
    """A cancelled stream's interrupted message holds only its first non-blank text or
    reasoning block, not all of them (PROMPT-RETRY-BOUNDARY)."""
    return interrupted_blocks(self)[:1]


@wrong("LOOP-REQUEST-BUILD", "loop/a-route-less-agent-proposes-an-empty-route")
@patched(Agent, "_seed")
def RouteLessProposalOmitsTheRoute(seed_of, self):
    """An agent created without a provider or model proposes neither (no key), not the empty
    string, to the `agent/request` waterfall."""
    route = ("provider", "model")
    return {key: value for key, value in seed_of(self).items() if key not in route or value}


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/a-route-less-agent-proposes-an-empty-route",
    "loop/a-route-less-agent-whose-request-hook-supplies-the-route-sends-it",
)
@patched(Agent, "build_request")
async def RouteCheckedBeforeTheWaterfall(build, self, *args):
    """The agent's own route is checked before the `agent/request` waterfall runs: a route-less
    agent fails its build even when its hook would supply the route."""
    self.check_route(self._seed())
    return await build(self, *args)


@wrong("LOOP-REQUEST-BUILD", "loop/an-empty-route-after-the-request-hook-counts-as-none")
@patched(Agent, "check_route")
def EmptyRouteFallsBackToTheAgents(check_route, self, proposed):
    """After the `agent/request` waterfall an empty provider or model is read as unset and
    filled from the agent's own (a `||` default), instead of counting as none."""
    for key in ("provider", "model"):
        if proposed.get(key) == "" and self.config.get(key):
            proposed[key] = self.config[key]
    check_route(self, proposed)


@wrong(
    "LOOP-REQUEST-BUILD",
    "loop/dispose-while-the-request-hook-waits-writes-nothing-for-the-attempt",
    "loop/dispose-while-model-resolution-waits-writes-nothing-for-the-attempt",
)
@patched(Agent, "build_request")
async def AbortInTheBuildNoticedAtDispatch(build, self, turn, step, assembly, *rest):
    """A cancel or disposal while the `agent/request` waterfall or model resolution waits is
    noticed only once the build is done: the attempt's header and context are written, then
    the turn ends aborted before the request is sent."""
    check, loop._check = loop._check, lambda signal: None
    try:
        request = await build(self, turn, step, assembly, *rest)
    finally:
        loop._check = check
    check(rest[-1])
    return request


# -- issue 35 item 6: the mutants the audit found observable ----------------------------------


@wrong(
    "ROOT-MODEL",
    "loop/a-text-block-started-and-never-ended-holds-empty-text",
    "loop/a-reasoning-block-started-and-never-ended-holds-empty-text",
    "loop/a-tool-call-never-ended-runs-with-its-joined-arguments",
    "loop/deltas-without-a-block-start-open-blocks-of-their-kind",
)
@patched(BlockAssembler, "_open")
def StartedBlockTextInverted(open_block, self, index, block_type):
    """A started block gets its empty text the wrong way round (the mutant `_open` 7): a text or
    reasoning block starts without `text`, a tool call with `"text": ""`, so a text block
    started and never ended lacks its text and an unended tool call carries one."""
    new = index not in self._blocks
    block = open_block(self, index, block_type)
    if new and "text" in block:
        del block["text"]
    elif new:
        block["text"] = ""
    return block


@wrong("ROOT-MODEL", "loop/a-reasoning-block-started-and-never-ended-holds-empty-text")
@patched(BlockAssembler, "_open")
def StartedReasoningWithoutText(open_block, self, index, block_type):
    """Only a text block starts with its empty text (the mutants `_open` 8 and 9): a reasoning
    block started and never ended, given no delta, lacks its `text`."""
    new = index not in self._blocks
    block = open_block(self, index, block_type)
    if new and block_type == "reasoning":
        del block["text"]
    return block


@wrong("ROOT-MODEL", "loop/chunks-after-a-blocks-end-are-ignored")
@patched(BlockAssembler, "push")
def LateChunksNotIgnored(push, self, chunk):
    """A `block-end` does not close its block (the mutant `push` 109): a later delta extends
    the ended block and a second end replaces it, where the first close must win."""
    push(self, chunk)
    if chunk.get("type") == "block-end":
        self._closed.discard(chunk.get("index"))


@wrong("ROOT-MODEL", "loop/the-streams-usage-is-on-its-assistant-message")
@patched(BlockAssembler, "push")
def StreamUsageDropped(push, self, chunk):
    """The stream's `usage` chunks are logged but never kept (the mutant `push` 12): no
    `assistant/message` carries the usage its stream reported."""
    push(self, chunk)
    self.usage = None


@wrong("ROOT-MODEL", "loop/a-tool-call-never-ended-runs-with-its-joined-arguments")
@patched(BlockAssembler, "push")
def ToolCallArgumentsReplaced(push, self, chunk):
    """Each `tool-call-delta` replaces its block's arguments instead of extending them (the
    mutant `push` 97): a tool call never ended keeps only its last `argumentsDelta`."""
    push(self, chunk)
    if chunk.get("type") == "tool-call-delta" and chunk.get("index") not in self._closed:
        self._blocks[chunk["index"]]["arguments"] = chunk["argumentsDelta"]


@wrong(
    "PROMPT-RETRY-BOUNDARY",
    "loop/a-chunk-the-log-refuses-ends-the-turn-without-an-interrupted-message",
)
@patched(Agent, "_attempt")
async def RefusedChunkTakenForACancel(attempt, self, turn, step, request, signal):
    """Any throw while a stream runs writes the interrupted `assistant/message`, not only a
    cancel (the mutant `Agent._attempt` 26): a chunk the log refuses (-0 in its usage) leaves
    one of the text streamed so far, though nothing was cancelled."""
    try:
        return await attempt(self, turn, step, request, signal)
    except Exception:
        if not signal.aborted:
            _append_interrupted(self, turn, step, request)
        raise


def _append_interrupted(agent: Agent, turn: int, step: int, request: Json) -> None:
    """The interrupted message of `RefusedChunkTakenForACancel`'s attempt, made of its logged
    chunks (the log's last ones)."""
    seqs: list[int] = []
    for event in reversed(agent.log.events):
        if event.type != "assistant/chunk" or event.data["chunk"].get("type") == "finish":
            break
        seqs.insert(0, event.seq)
    assembler = BlockAssembler()
    for seq in seqs:
        assembler.push(agent.log[seq].data["chunk"])
    content = assembler.interrupted_blocks()
    if content:
        message = agent._assistant_message(content, request)
        data = {"turn": turn, "step": step, "message": message, "interrupted": True}
        agent.append("assistant/message", data, surface_op="append", source_event_seqs=seqs)


@wrong("ROOT-MODEL", "loop/an-adapter-failure-with-code-aborted-is-logged-as-an-aborted-finish")
@patched(Agent, "_chunks")
async def AbortedCodeLoggedAsError(chunks, self, request, signal):
    """An adapter failure with code `ABORTED` is logged as an `error` finish while the turn is
    not being cancelled (the mutant `Agent._chunks` 5), where PROTOCOL.md's REPLY follows the
    upstream: kind `aborted`."""
    async for chunk in chunks(self, request, signal):
        reason = chunk.get("reason") if chunk.get("type") == "finish" else None
        if isinstance(reason, dict) and reason.get("kind") == "aborted" and not signal.aborted:
            chunk = {**chunk, "reason": {**reason, "kind": "error"}}
        yield chunk


@wrong("ROOT-MODEL", "loop/deltas-without-a-block-start-open-blocks-of-their-kind")
@patched(BlockAssembler, "push")
def DeltaOpensATextBlock(push, self, chunk):
    """A delta for an index no chunk opened yet opens a text block whatever its kind (the
    mutants of `push` 40-51 change the type a delta gives the block it opens)."""
    opens = chunk.get("type", "").endswith("-delta") and chunk.get("index") not in self._blocks
    push(self, chunk)
    if opens:
        self._blocks[chunk["index"]]["type"] = "text"


@wrong("ROOT-MODEL", "loop/a-blocks-end-replaces-what-its-deltas-built")
@patched(BlockAssembler, "push")
def DeltasOverrideTheEnd(push, self, chunk):
    """A `block-end` closes its block but keeps what the deltas built instead of the block it
    carries (the mutants of `push` 102-104), where the end's block is authoritative."""
    built = self._blocks.get(chunk.get("index"))
    push(self, chunk)
    if chunk.get("type") == "block-end" and built is not None:
        self._blocks[chunk["index"]] = built


@wrong(
    "ROOT-MODEL",
    "loop/blocks-keep-the-order-they-were-started-in",
    "loop/a-text-block-started-and-never-ended-holds-empty-text",
    "loop/a-reasoning-block-started-and-never-ended-holds-empty-text",
)
@patched(BlockAssembler, "push")
def BlockStartIgnored(push, self, chunk):
    """A `block-start` opens nothing: a block opens at its first delta or end (the mutants of
    `push` 24 and 25), so blocks take the order of their first deltas, not of their starts."""
    if chunk.get("type") != "block-start":
        push(self, chunk)


@wrong(
    "PROMPT-STEP-BOUNDARY",
    "loop/a-steer-sent-while-a-cancelled-turn-settles-gets-a-turn-of-its-own",
)
@patched(Agent, "steer")
def SteerAfterCancelStaysNextStep(steer, self, message):
    """A steer sent while a cancelled turn settles stays a next-step message (the mutant
    `Agent._send` 10), so the next turn claims it together with a follow-up sent after it."""
    if self.busy and self._controller.signal.aborted and not self.disposed:
        self._inbox.add("next-step", message)
        self._wake = True
        return
    steer(self, message)


#: Every runtime-context case with a `project` op (issue 37 H6).
_PROJECT_CASES = tuple(
    f"runtime-context/{name}"
    for name in (
        "never-seen-and-empty-proposes-nothing",
        "never-seen-and-a-context-proposes-the-snapshot",
        "none-retained-and-empty-proposes-the-cleared-marker",
        "none-retained-and-a-context-proposes-it-even-if-seen-before",
        "retained-cleared-marker-and-empty-proposes-nothing",
        "retained-snapshot-and-empty-proposes-the-cleared-marker",
        "retained-snapshot-and-the-same-context-proposes-nothing",
        "retained-snapshot-and-a-changed-context-proposes-the-whole-snapshot",
        "retained-unknown-text-always-proposes",
        "restore-takes-the-newest-visible-owned-message",
        "restore-skips-a-shadowed-snapshot-for-an-older-visible-one",
        "restore-ignores-other-plugins-messages",
        "restore-over-a-seeded-log",
        "an-entered-proposal-becomes-retained",
        "an-owned-replacement-becomes-retained",
        "a-replacement-shadowing-the-retained-snapshot-forgets-it",
        "a-replacement-only-citing-the-retained-seq-forgets-it",
        "an-append-citing-the-retained-seq-forgets-nothing",
        "live-forgetting-does-not-walk-back",
    )
)


@wrong("LOOP-RUNTIME-CONTEXT", *_PROJECT_CASES)
@patched(session_harness.SessionOps, "apply")
async def ProjectAnswersOk(apply, self, op):
    """`project` answers `{"ok": true}`, without `message` (a proxy that rewrites those answers,
    issue 37 H6): no "nothing proposed", which `{"message": null}` or `{}` says (LOOP-RUNTIME-
    CONTEXT)."""
    answer = await apply(self, op)
    return {"ok": True} if op["op"] == "project" else answer


@wrong("PROMPT-HEADER-CHANGE-TEST", "loop/tools-added-after-a-turn-write-one-change-header")
@patched(header, "canonical_header", also=loop)
def ToolsReadFromAHeaderWithoutTools(canonical, draft, *, in_force=None):
    """A request build that may reuse the header in force's tools reads them before asking
    whether that header has any: tools that appear after a header without tools fail the build
    (a `KeyError`), and the turn ends in error (the mutants of `header.canonical_header` 9 and
    `header._same_text` 5)."""
    if in_force is not None and draft.get("tools") and "tools" not in in_force:
        raise KeyError("tools")  # what reading the tools of a header without them raises
    return canonical(draft, in_force=in_force)


@wrong("PROMPT-HEADER-CHANGE-TEST", "loop/tools-added-after-a-turn-write-one-change-header")
@patched(header, "canonical_header", also=loop)
def UnchangedToolsLeftOut(canonical, draft, *, in_force=None):
    """A request build whose tools equal the header in force's keeps no tools of its own (they
    are "unchanged"): that header differs from the one in force, so a `change` header without
    tools is written and the request goes without them (the mutant of `header.canonical_header`
    18, which writes them as `null`). A new instance's `resume` header loses them the same way
    (`loop/resume-header-with-unchanged-tools-is-the-header-alone`, under LOOP-REQUEST-BUILD)."""
    if in_force is not None and draft.get("tools") and draft["tools"] == in_force.get("tools"):
        draft = {key: value for key, value in draft.items() if key != "tools"}
    return canonical(draft, in_force=in_force)


@wrong("LOOP-REQUEST-BUILD", "loop/resume-header-with-unchanged-tools-is-the-header-alone")
@patched(header, "canonical_header", also=loop)
def ReusedToolsMarkedInTheHeader(canonical, draft, *, in_force=None):
    """A request build whose tools equal the header in force's keeps a note of the reuse in the
    header it writes: the tools again under a key of their own (`reusedTools`), beside `tools`
    (the mutants of `header.canonical_header` 19 and 20)."""
    built = canonical(draft, in_force=in_force)
    if in_force is not None and "tools" in built and built["tools"] is in_force.get("tools"):
        return {**built, "reusedTools": built["tools"]}
    return built
