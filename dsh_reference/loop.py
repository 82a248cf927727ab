"""The logged loop: turns and steps over the session log (`upstream/loop-and-session.md` §5-§8).

An `Agent` owns one loop instance over a `SessionLog`. It is the only asyncio part of the model
(DESIGN.md: "only the loop, which drives them, is asyncio, because cancellation during a blocked
assembly is part of the contract"); the log, the header and the runtime-context projection it
drives are sans-IO. Cancellation is cooperative: every turn has an `AbortController`, its signal
travels in the assembly context and to the model adapter, and the loop checks it at the points the
upstream does (`_check`).

The contracts enforced here, each quoted beside its code below:

- ROOT-MODEL / LOGGEDLOOP-REQUEST-INVARIANT: a request is exactly ``{...config, messages, system?,
  tools?, sessionId}``, its messages derived from the log, its header logged inside the open step
  before it is dispatched (`build_request`);
- PROMPT-STEP-BOUNDARY: `pre_step` and when `_turn` opens a step; the upstream's
  `agent/turn-stopping` hook before a turn ends (`continues`);
- PROMPT-RETRY-BOUNDARY, LOOP-REQUEST-ERROR-TEST: `step` renders once before its retry loop;
- LOOP-RUNTIME-CONTEXT: the snapshot proposed in `pre_step`, every append observed;
- LOOP-REQUEST-BUILD, PROMPT-HEADER-CHANGE-TEST: `log_header`, `_log_context`;
- PROMPT-CANCEL-TEST: `cancel`, `dispose`, and the checks after a blocked assembly.

"Every `turn/start` is matched by a `turn/end`, whatever fails inside": `_turn` writes `turn/end`
in a ``finally``.

Why one module: a turn, its steps and their retries are one state machine over one log; split,
a reader would hold three files to follow one turn (h11 keeps its state machine in one module
for the same reason).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Collection
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from .abort import AbortController, AbortSignal
from .assembly import Assembly
from .blocks import FAILED_KINDS, BlockAssembler
from .errors import ContractError
from .header import MARKERS, CallConfig, RequestHeader, canonical_header, headers_equal
from .inbox import Inbox, Target
from .jsonvalue import Json, frozen, snapshot
from .model_adapter import (
    ABORTED,
    AdapterDefaultValues,
    AdapterFailure,
    ModelAdapter,
    Request,
    failure_json,
)
from .registry import AssembleContext, PromptRegistry, Scope
from .render import render_context_sections, render_prompt
from .runtime_context import RuntimeContextProjection
from .session import SessionEvent, SessionLog

COMPLETED: Final = {"kind": "completed"}
BLOCKED: Final = {"kind": "blocked"}
MAX_TOKENS: Final = {"kind": "max-tokens"}
USER_CANCEL: Final = {"kind": "user"}
DISPOSED: Final = {"kind": "disposed"}


class Aborted(Exception):
    """The turn's signal was aborted; ``reason`` is the cause (`{kind: "user"}`, ...)."""

    def __init__(self, reason: Json) -> None:
        super().__init__(f"aborted: {reason!r}")
        self.reason = reason


class TurnFailure(Exception):
    """A failed request the `agent/request-error` decision did not retry."""

    def __init__(self, failure: Json) -> None:
        super().__init__(f"request failed: {failure!r}")
        self.failure = failure


class NoRoute(Exception):
    """LOOP-REQUEST-BUILD: "no provider or model after the `agent/request` waterfall" — a failed
    request build, not a request error: the turn ends `UNKNOWN`."""


#: LOOP-REQUEST-BUILD: `maxTokens` must be "a positive integer of at most 2^53 - 1".
MAX_SAFE_INTEGER: Final = 2**53 - 1
#: The code of the model layer's failure when no adapter is registered for the provider.
NO_ADAPTER: Final = "NO_ADAPTER"
#: The code of the model layer's failure for an effort outside the adapter's effort set.
UNSUPPORTED_REASONING_EFFORT: Final = "UNSUPPORTED_REASONING_EFFORT"


@dataclass(frozen=True)
class Resolution:
    """What model resolution gives (the upstream's ``prepareCall``): the resolved config, the
    fields it filled from adapter defaults (``adapterDefaults``), the adapter's context window."""

    config: dict[str, Any]
    markers: dict[str, Any]
    context_window: int | None


#: Model resolution: may wait, and may throw — the model layer's failure (`AdapterFailure`, code
#: `NO_ADAPTER` when no adapter is registered for the provider) or anything else.
Resolver = Callable[[dict[str, Any], AbortSignal], Awaitable[Resolution]]


# -- the decisions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Enter:
    """An admitted `agent/pre-step` decision: the messages to enter (may be empty)."""

    messages: list[Json]


@dataclass(frozen=True)
class Reject:
    """A rejected `agent/pre-step` decision: the turn ends `{kind: "blocked"}`."""


PreStepDecision: TypeAlias = Enter | Reject


@dataclass(frozen=True)
class PreStep:
    """What the `agent/pre-step` decision is asked about: the claimed messages (no snapshot)."""

    turn: int
    step: int
    claimed: list[Json]
    signal: AbortSignal


@dataclass(frozen=True)
class RequestBuild:
    """What the `agent/request` waterfall is asked about: the attempt's turn and step."""

    turn: int
    step: int
    signal: AbortSignal


@dataclass(frozen=True)
class TurnStopping:
    """What the `agent/turn-stopping` hook is told: the turn is about to end (its last step
    concluded and no next-step message waits)."""

    turn: int
    signal: AbortSignal


@dataclass(frozen=True)
class RequestError:
    """What the `agent/request-error` decision is asked about: the failed attempt's failure."""

    turn: int
    step: int
    provider: str
    failure: Json
    signal: AbortSignal


#: Given the question and the default decision ("enter with claimed messages + snapshot if any").
PreStepHook = Callable[[PreStep, Enter], Awaitable[PreStepDecision]]
#: ``"retry"`` retries in the same turn and step; ``None`` (the default) ends the turn with error.
RequestErrorHook = Callable[[RequestError], Awaitable[Literal["retry"] | None]]
#: Given the question and the proposed call config, the config to resolve (the `agent/request`
#: waterfall; the default passes the proposal through).
RequestHook = Callable[[RequestBuild, dict[str, Any]], Awaitable[dict[str, Any]]]
#: Awaited before a turn ends; it may wait, and may queue next-step messages (``inject``), which
#: keep the turn going.
TurnStoppingHook = Callable[[TurnStopping], Awaitable[None]]


async def _default_pre_step(_question: PreStep, default: Enter) -> PreStepDecision:
    return default


async def _default_request_error(_question: RequestError) -> Literal["retry"] | None:
    return None


async def _default_request(_question: RequestBuild, proposal: dict[str, Any]) -> dict[str, Any]:
    return proposal


async def _default_turn_stopping(_question: TurnStopping) -> None:
    return None


# -- tools --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ToolOutcome:
    """A tool's result: its content blocks, whether it is an error, whether it ends the turn."""

    content: list[Json]
    is_error: bool = False
    concludes: bool = False


ToolRunner = Callable[[ToolCall, AbortSignal], Awaitable[ToolOutcome]]


async def _no_tools(call: ToolCall, _signal: AbortSignal) -> ToolOutcome:
    return ToolOutcome([{"type": "text", "text": f"Error: no tool named {call.name}"}], True)


# -- the agent ----------------------------------------------------------------------------------


def user_message(text: str, message_id: str) -> Json:
    """A user's message, in the upstream's key order (`createUserMessage`)."""
    return {
        "content": [{"type": "text", "text": text}],
        "source": {"kind": "user"},
        "role": "user",
        "id": message_id,
    }


class Agent:
    """One loop instance over ``log``, assembling its prompt in ``scope`` of ``registry``.

    ``config`` is the agent's call configuration (``provider``, ``model`` and any of
    ``reasoningEffort``, ``temperature``, ``maxTokens``, ``stop``); the adapter fills its defaults
    in. Create it inside a running event loop: `followup` and `steer` start a driver task.
    """

    def __init__(
        self,
        *,
        registry: PromptRegistry,
        scope: Scope,
        log: SessionLog,
        adapter: ModelAdapter,
        config: CallConfig,
        session_id: str,
        tools: ToolRunner = _no_tools,
        pre_step: PreStepHook = _default_pre_step,
        request_error: RequestErrorHook = _default_request_error,
        request: RequestHook = _default_request,
        turn_stopping: TurnStoppingHook = _default_turn_stopping,
        resolve: Resolver | None = None,
        new_id: Callable[[], str] = lambda: str(uuid.uuid4()),
        # Integer milliseconds: a seeded event's `time` must be an integer (so a log this loop
        # wrote can seed a later session).
        clock: Callable[[], float] = lambda: time.time_ns() // 1_000_000,
    ) -> None:
        _check_max_tokens(config)
        self.registry, self.scope, self.log, self.adapter = registry, scope, log, adapter
        self.config = snapshot(config)
        self.session_id = session_id
        self._tools, self._pre_step, self._request_error = tools, pre_step, request_error
        self._request, self._turn_stopping = request, turn_stopping
        self._resolver = resolve if resolve is not None else self._resolve_with_adapter
        self.new_id, self._clock = new_id, clock
        # LOOP-RUNTIME-CONTEXT: "It is constructed at the start of each loop instance".
        self._projection = RuntimeContextProjection.restore(log)
        # "turns continue from the last `turn/start` in the log".
        self._last_turn = next(
            (e.data["turn"] for e in reversed(log.events) if e.type == "turn/start"), 0
        )
        # LOOP-REQUEST-BUILD: per loop instance, in memory only.
        self._header_logged = False
        self._inbox = Inbox()
        self._controller = AbortController()
        self._driver: asyncio.Task[None] | None = None
        # A message sent while an aborted turn is still winding down wakes the driver again.
        self._wake = False
        self.disposed = False

    # -- entry points -------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """Whether a driver is running (possibly parked on a gate or the abort signal)."""
        return self._driver is not None and not self._driver.done()

    def followup(self, message: Json) -> None:
        """Queue ``message`` for a turn of its own, and wake the driver."""
        self._send("next-turn", message)

    def steer(self, message: Json) -> None:
        """Queue ``message`` for the next step of the running turn (or a new turn), and wake."""
        self._send("next-step", message)

    def cancel(self, cause: Json = USER_CANCEL) -> None:
        """Drop what is queued and abort the running turn with ``cause`` (the first cause wins)."""
        self._inbox.clear()
        self._wake = False
        if self.busy:
            self._controller.abort(cause)

    def dispose(self) -> None:
        """Owner disposal: cancel with `{kind: "disposed"}`; the agent takes no more messages.

        The turn then ends as soon as whatever blocks it settles (PROMPT-CANCEL-TEST: "once
        assembly settles the turn ends"); `when_idle` waits for that. Then, and only then, the
        agent's scope is disposed (upstream §9: "machine.cancel({kind:'disposed'}); await
        whenIdle; scope.dispose"): every registration and listener made in it is released, so a
        listener still blocking the turn's assembly runs to its end first.
        """
        self.cancel(DISPOSED)
        self.disposed = True
        if not self.busy:
            self.registry.dispose_scope(self.scope)

    async def when_idle(self) -> None:
        if self._driver is not None:
            await asyncio.wait([self._driver])

    def inject(self, message: Json) -> None:
        """Queue ``message`` for the next step without waking the driver (the upstream's
        ``inject``): a running turn claims it at its next step, an idle agent at the first step
        of the turn the next follow-up or steer starts."""
        if self.disposed:
            raise RuntimeError("the agent is disposed")
        self._inbox.add("next-step", message)

    def _send(self, target: Target, message: Json) -> None:
        """Queue ``message`` and wake the driver.

        A message sent while a cancelled turn is still running (its assembly has not settled
        yet) goes to the next turn and wakes the driver again once that turn has ended, as the
        upstream's ``wakingAfterAbort`` does (`upstream/loop-and-session.md` §5).
        """
        if self.disposed:
            raise RuntimeError("the agent is disposed")
        after_abort = self.busy and self._controller.signal.aborted
        self._inbox.add("next-turn" if after_abort else target, message)
        if not self.busy:
            self._start()
        elif after_abort:
            self._wake = True

    def _start(self) -> None:
        self._controller = AbortController()
        self._wake = False
        self._driver = asyncio.get_running_loop().create_task(self._drive())

    async def _drive(self) -> None:
        """Run turns while queued work remains after a turn that ended normally."""
        try:
            while await self._turn(self._controller.signal):
                self._controller = AbortController()
        except Exception:
            pass  # the turn has logged how it ended (its turn/end); the driver stops
        if self.disposed:
            self.registry.dispose_scope(self.scope)  # `dispose`, once the turn has ended
        elif self._wake and self._inbox.has_pending:
            self._start()

    # -- appending ------------------------------------------------------------------------------

    def append(self, type: str, data: Json, **surface: Any) -> SessionEvent:
        """Append one event and show it to the projection ("every owned `user/message` entering
        the log ... becomes retained")."""
        event = self.log.append(type, data, time=self._clock(), **surface)
        self._projection.observe(event)
        return event

    # -- turn -----------------------------------------------------------------------------------

    async def _turn(self, signal: AbortSignal) -> bool:
        _check(signal)
        turn = self._last_turn + 1
        self.append("turn/start", {"turn": turn})
        self._last_turn = turn
        ends: Json | None = None
        step = 0
        target: Target = "next-turn"
        try:
            while True:
                _check(signal)
                decision, assembly = await self.pre_step(target, turn, step + 1, signal)
                # PROMPT-STEP-BOUNDARY: "A rejected decision ends the turn `{kind: "blocked"}`
                # (even after earlier steps completed; a claimed message it consumed is not
                # logged as a `user/message`)".
                if isinstance(decision, Reject):
                    ends = BLOCKED
                    return False
                # "an empty decision after a step that concluded ends the turn with that step's
                # outcome"
                if ends is not None and not decision.messages:
                    break
                # "an empty decision on the turn's first step ends it `{kind: "completed"}` with
                # no step and no model call"
                if step == 0 and not decision.messages:
                    ends = COMPLETED
                    return False
                _check(signal)
                step += 1
                self.append("step/start", {"turn": turn, "step": step})
                try:
                    for message in decision.messages:
                        self.append("user/message", message, surface_op="append")
                    outcome = await self.step(turn, step, assembly, signal)
                    # "`max-tokens` is sticky over the turn"
                    if ends is None or ends != MAX_TOKENS:
                        ends = outcome
                finally:
                    self.append("step/end", {"turn": turn, "step": step})
                _check(signal)
                # A step that ran tools without concluding (``None``) is always followed by a
                # continuation step.
                if ends is not None and not await self.continues(turn, signal):
                    break
                target = "next-step"
        except Exception as error:
            if signal.aborted:
                ends = {"kind": "aborted", "reason": signal.reason}
            else:
                ends = {"kind": "error", "error": _failure_of(error)}
            raise
        finally:
            self.append("turn/end", {"turn": turn, "reason": ends})
        return self._inbox.has_pending

    async def continues(self, turn: int, signal: AbortSignal) -> bool:
        """Whether a concluded step is followed by another step of the same turn: when a
        next-step message waits, one queued while the `agent/turn-stopping` hook ran included.

        The hook is not named by CONTRACTS.md; upstream notes §6.2, steps 11-12: "If `turnEnds`
        is set and `inbox.nextStep` is empty: `await serial('agent/turn-stopping', {turn,
        signal})`, then `throwIfAborted`. If `turnEnds` is set and `nextStep` is still empty:
        break". A cancel while it waits ends the turn aborted, with no further step (§8.3, i).
        """
        if not self._inbox.next_step:
            await self._turn_stopping(TurnStopping(turn, signal))
            _check(signal)
        return bool(self._inbox.next_step)

    async def pre_step(
        self, target: Target, turn: int, step: int, signal: AbortSignal
    ) -> tuple[PreStepDecision, Assembly]:
        """PROMPT-STEP-BOUNDARY: "`preStep` does, in order: claim the inbox ...; assemble the
        scoped prompt with `{agent, scope: agent, signal}`; check cancellation; render the context
        sections and ask the runtime-context projection for a snapshot; run the `agent/pre-step`
        decision (default: enter with claimed messages + snapshot if any); check cancellation."
        """
        claimed = self._inbox.claim(target)
        context = AssembleContext(scope=self.scope, agent=self.scope, signal=signal)
        assembly = await self.registry.assemble(context)
        _check(signal)
        proposed = self.propose_context(assembly)
        default = Enter([*claimed, proposed] if proposed is not None else list(claimed))
        decision = await self._pre_step(PreStep(turn, step, list(claimed), signal), default)
        _check(signal)
        return decision, assembly

    def propose_context(self, assembly: Assembly) -> Json | None:
        """LOOP-RUNTIME-CONTEXT: the snapshot (or cleared marker) to propose, with an id."""
        proposed = self._projection.project(render_context_sections(assembly))
        return None if proposed is None else {**proposed, "id": self.new_id()}

    # -- step -----------------------------------------------------------------------------------

    async def step(
        self, turn: int, step: int, assembly: Assembly, signal: AbortSignal
    ) -> Json | None:
        """One step: render once, then attempts until one succeeds or the turn ends.

        PROMPT-RETRY-BOUNDARY: "`step()` renders the system string once, before its retry loop.
        Each attempt rebuilds the call config (seeded from the folded header), the header
        comparison (a `change` header only if different), and the messages derived from the log;
        it reuses the step's rendered system and assembled tools."

        Returns the step's outcome, or ``None`` when tools ran without concluding the turn.
        """
        _check(signal)
        system = self.render_system(assembly)
        while True:
            messages = self.log.messages()
            request = await self.build_request(turn, step, assembly, system, messages, signal)
            assembler, chunk_seqs = await self._attempt(turn, step, request, signal)
            finish = assembler.finish
            if finish.get("kind") in FAILED_KINDS:
                # "A failed attempt (error or aborted finish) writes its chunks but no
                # `assistant/message`; the `agent/request-error` decision either retries (same
                # turn and step numbers, no new `step/start`) or ends the turn
                # `{kind: "error", error: <failure>}`."
                question = RequestError(turn, step, request["provider"], finish["failure"], signal)
                action = await self._request_error(question)
                _check(signal)
                if action != "retry":
                    raise TurnFailure(finish["failure"])
                continue
            message = self._assistant_message(assembler.blocks(), request)
            data: Json = {"turn": turn, "step": step, "message": message}
            if assembler.usage is not None:
                data["usage"] = assembler.usage
            # "The successful attempt's `assistant/message` cites exactly its own attempt's chunk
            # seqs, in order (`[]` when the stream yielded none)."
            self.append(
                "assistant/message", data, surface_op="append", source_event_seqs=chunk_seqs
            )
            if finish.get("kind") == "max-tokens":
                return MAX_TOKENS
            calls = [block for block in message["content"] if block.get("type") == "tool-call"]
            if not calls:
                return COMPLETED
            concluded = await self._run_tools(turn, step, calls, signal)
            return COMPLETED if concluded else None

    def render_system(self, assembly: Assembly) -> str:
        return render_prompt(assembly)

    async def _attempt(
        self, turn: int, step: int, request: Request, signal: AbortSignal
    ) -> tuple[BlockAssembler, list[int]]:
        """Stream one request, logging every chunk; on a cancel, the interrupted message.

        "If the turn is cancelled while a stream runs, the chunks received so far stay logged, and
        if any of them carried non-blank text or reasoning, an `assistant/message {turn, step,
        message, interrupted: true}` holding only those text and reasoning blocks is appended
        (surface append, citing all of the attempt's chunks)".
        """
        assembler, chunk_seqs = BlockAssembler(), []
        try:
            async with aclosing(self._chunks(request, signal)) as chunks:
                async for chunk in chunks:
                    _check(signal)
                    event = self.append(
                        "assistant/chunk", {"turn": turn, "step": step, "chunk": chunk}
                    )
                    chunk_seqs.append(event.seq)
                    assembler.push(chunk)
            _check(signal)
        except Exception:
            content = assembler.interrupted_blocks() if signal.aborted else []
            if content:
                data: Json = {
                    "turn": turn,
                    "step": step,
                    "message": self._assistant_message(content, request),
                    "interrupted": True,
                }
                if assembler.usage is not None:
                    data["usage"] = assembler.usage
                self.append(
                    "assistant/message", data, surface_op="append", source_event_seqs=chunk_seqs
                )
            raise
        return assembler, chunk_seqs

    async def _chunks(self, request: Request, signal: AbortSignal) -> AsyncGenerator[Json]:
        """The adapter's stream, with a failure turned into one terminal ``finish`` chunk."""
        try:
            async for chunk in self.adapter.stream(request, signal):
                yield chunk
        except Exception as error:
            aborted = signal.aborted or (
                isinstance(error, AdapterFailure) and error.code == ABORTED
            )
            reason = {"kind": "aborted" if aborted else "error", "failure": failure_json(error)}
            yield {"type": "finish", "reason": reason}

    def _assistant_message(self, content: list[Json], request: Request) -> Json:
        source = {"kind": "model", "provider": request["provider"], "model": request["model"]}
        return {"role": "assistant", "content": content, "source": source, "id": self.new_id()}

    # -- the request ------------------------------------------------------------------------------

    async def build_request(
        self,
        turn: int,
        step: int,
        assembly: Assembly,
        system: str,
        messages: list[Json],
        signal: AbortSignal,
    ) -> Request:
        """Propose the config, pass it through the `agent/request` waterfall, check the route,
        fill adapter defaults, log the header and context, build the request.

        ROOT-MODEL: "A loop-built request is exactly `{...config, messages, system?, tools?,
        sessionId}`: every field of the header's `config` ..., then `messages`, then `system` and
        `tools` exactly when the canonical header has them (absent, never `null`, `''` or `[]`),
        then the session's id."

        A coroutine, as the upstream's is (its config waterfall and call preparation await); the
        step's ``assembly`` is passed for its tools.
        """
        proposed = await self._request(RequestBuild(turn, step, signal), snapshot(self._seed()))
        _check(signal)
        self.check_route(proposed)
        resolution = await self.resolve(proposed, signal)
        _check(signal)
        draft: dict[str, Any] = {"config": resolution.config, "system": system}
        if resolution.markers:
            draft["adapterDefaults"] = resolution.markers
        draft["tools"] = [schema.to_json() for schema in assembly.tools]
        # Read-only: the one copy of the draft, which the log and the request share as it is;
        # tools equal to the header in force's are that header's own, and copy nothing.
        header = canonical_header(draft, in_force=self.log.request_header())
        self.log_header(header)
        self._log_context(header["config"], resolution.context_window)
        _check(signal)
        request: Request = {**header["config"], "messages": messages}
        for field in ("system", "tools"):
            if field in header:
                request[field] = header[field]
        request["sessionId"] = self.session_id
        # Read-only, like the log's messages it holds: an adapter can change neither the log nor
        # the header through it, and copying it (a recording adapter) costs nothing.
        return frozen(request)

    def check_route(self, proposed: dict[str, Any]) -> None:
        """LOOP-REQUEST-BUILD: "A request build that fails — no provider or model after the
        `agent/request` waterfall, ... — is not a request error: ... no header or context is
        written for it, and the turn ends as for any other throw": checked before resolution
        ("after the waterfall an empty provider or model counts as none")."""
        if not proposed.get("provider") or not proposed.get("model"):
            raise NoRoute(f"no provider/model for the request: {proposed!r}")

    def _seed(self) -> dict[str, Any]:
        """The call config an attempt starts from.

        After this instance logged its header: the folded header's config minus the fields the
        adapter filled in (they are filled in again). Before: the agent's own config, with a
        ``reasoningEffort`` restored from the log for the same provider and model when the agent
        sets none and the log's was not an adapter default (`upstream/loop-and-session.md` §7.2),
        and ``""`` for a provider or model it has none of (LOOP-REQUEST-BUILD: "An agent created
        without a provider or model proposes it as the empty string").
        """
        persisted = self.log.request_header()
        if self._header_logged and persisted is not None:
            markers = persisted.get("adapterDefaults", {})
            return {
                key: value for key, value in persisted["config"].items() if not markers.get(key)
            }
        seed: dict[str, Any] = snapshot(self.config)
        # "An agent created without a provider or model proposes it as the empty string".
        for key in ("provider", "model"):
            seed.setdefault(key, "")
        if (
            "reasoningEffort" not in seed
            and persisted is not None
            and "reasoningEffort" in persisted["config"]
            and not persisted.get("adapterDefaults", {}).get("reasoningEffort")
            and all(persisted["config"][key] == seed.get(key) for key in ("provider", "model"))
        ):
            seed["reasoningEffort"] = persisted["config"]["reasoningEffort"]
        return seed

    async def resolve(self, proposed: dict[str, Any], signal: AbortSignal) -> Resolution:
        """Model resolution of the proposed config.

        LOOP-REQUEST-BUILD: "A provider for which no adapter is registered is not a build
        failure: the proposed config is used unresolved (no `adapterDefaults`), the header and
        context are written, and the request is dispatched". Any other throw fails the build.
        """
        try:
            return await self._resolver(proposed, signal)
        except AdapterFailure as error:
            if error.code != NO_ADAPTER:
                raise
            return Resolution(dict(proposed), {}, None)

    async def _resolve_with_adapter(
        self, proposed: dict[str, Any], _signal: AbortSignal
    ) -> Resolution:
        """The one adapter's resolution: its defaults filled in, its context window."""
        config, markers = fill_defaults(proposed, self.adapter.defaults)
        return Resolution(config, markers, self.adapter.context_window)

    def log_header(self, header: RequestHeader) -> None:
        """LOOP-REQUEST-BUILD: "A loop instance's first successful request build writes
        `request/header {header, reason}` with reason `initial` if the log had no header, else
        `resume` (even when identical). After that it writes `{reason: "change"}` only when the
        canonical header is not equal to the folded one."
        """
        baseline = self.log.request_header()
        if not self._header_logged:
            reason = "initial" if baseline is None else "resume"
            self.append("request/header", {"header": header, "reason": reason})
            self._header_logged = True
        elif baseline is None or not headers_equal(baseline, header):
            self.append("request/header", {"header": header, "reason": "change"})

    def _log_context(self, config: CallConfig, window: int | None) -> None:
        """ "the build writes `request/context {provider, model, contextWindow?}` when no request
        context was logged yet or one of those three differs from the last one"."""
        context: dict[str, Any] = {"provider": config["provider"], "model": config["model"]}
        if window is not None:
            context["contextWindow"] = window
        last = self.log.request_context()
        if last is None or any(
            last.get(key) != context.get(key) for key in ("provider", "model", "contextWindow")
        ):
            self.append("request/context", context)

    # -- tools ------------------------------------------------------------------------------------

    async def _run_tools(
        self, turn: int, step: int, calls: list[Json], signal: AbortSignal
    ) -> bool:
        """Run the calls one at a time: `tool/call`, then its `tool/result` citing it.

        A cancel stops before the next call starts (the upstream's synthetic results for calls
        that never started are not modelled: no contract reads them).
        """
        concluded = False
        for block in calls:
            _check(signal)
            call = ToolCall(block["id"], block["name"], block["arguments"])
            where = {"turn": turn, "step": step}
            logged = self.append(
                "tool/call",
                {**where, "callId": call.call_id, "name": call.name, "arguments": call.arguments},
            )
            outcome = await self._tools(call, signal)
            result = {
                "type": "tool-result",
                "toolCallId": call.call_id,
                "content": snapshot(outcome.content),
                "isError": outcome.is_error,
            }
            message = {
                "source": {"kind": "tool", "callId": call.call_id},
                "content": [result],
                "role": "user",
                "id": self.new_id(),
            }
            self.append(
                "tool/result",
                {**where, "message": message},
                surface_op="append",
                source_event_seqs=[logged.seq],
            )
            concluded = concluded or outcome.concludes
        return concluded


def fill_defaults(
    seed: dict[str, Any], defaults: AdapterDefaultValues
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fill what the config leaves out from an adapter's defaults, marking each one."""
    config, markers = dict(seed), dict[str, Any]()
    given: dict[str, Any] = dict(defaults)
    for field in MARKERS:
        if field not in config and field in given:
            config[field] = given[field]
            markers[field] = True
    return config, markers


def prepare_config(
    seed: dict[str, Any], defaults: AdapterDefaultValues, efforts: Collection[str] | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Model resolution by one adapter (the upstream's ``prepareCall``, notes §7.2 step 4): it
    "materializes the adapter `defaultMaxTokens` ... and the adapter `defaultEffort`" where the
    config leaves them out, then "validates the effort (`UNSUPPORTED_REASONING_EFFORT`)" against
    the adapter's effort set (``None``: the adapter names none, every effort passes)."""
    config, markers = fill_defaults(seed, defaults)
    _check_effort(config, efforts)
    return config, markers


def _check_effort(config: dict[str, Any], efforts: Collection[str] | None) -> None:
    """An effort outside the adapter's set is the model layer's own failure, so a turn it ends
    ends with it (LOOP-REQUEST-BUILD: "the resolution's failure when it is the model layer's
    failure error")."""
    effort = config.get("reasoningEffort")
    if efforts is not None and effort is not None and effort not in efforts:
        raise AdapterFailure(
            UNSUPPORTED_REASONING_EFFORT,
            f"reasoning effort {effort!r} is not one of {sorted(efforts)} for {config['provider']}",
        )


def _check_max_tokens(config: CallConfig) -> None:
    """LOOP-REQUEST-BUILD: "An agent whose `maxTokens` is not a positive integer of at most
    2^53 - 1 is refused when it is created (`agent-config-invalid`)". JSON does not tell ``4``
    from ``4.0``: an integral float is an integer."""
    if "maxTokens" not in config:
        return
    value: Any = config["maxTokens"]
    integral = (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and value.is_integer()
    )
    if not (integral and 1 <= value <= MAX_SAFE_INTEGER):
        raise ContractError(
            "agent-config-invalid",
            f"maxTokens must be a positive integer of at most 2^53 - 1, got {value!r}",
            where="maxTokens",
        )


def _check(signal: AbortSignal) -> None:
    """The upstream's ``signal.throwIfAborted()``."""
    if signal.aborted:
        raise Aborted(signal.reason)


def _failure_of(error: Exception) -> Json:
    if isinstance(error, TurnFailure):
        return snapshot(error.failure)
    return failure_json(error)
