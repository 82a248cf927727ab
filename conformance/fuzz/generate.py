"""Hypothesis strategies for whole scenarios: op sequences over the protocol's ops.

Five families, each a strategy of op lists (`scenarios`); the ops of protocols 1.2 and 1.3 are
drawn only when both implementations declare their capability (`EXTENDS`):

- ``registry``: scopes, the five kinds of registration in any layer, releases, scope disposal,
  change observers that throw, waterfall listeners (``before`` and after edits, short-circuits,
  blocking on gates), providers whose first evaluation registers or releases (edits in the middle
  of an assembly: registrations of every kind but suppressors, into any layer or into a scope
  below the provider's own that has no layer yet, and replacements of the provider's own
  registration or another one, released and registered again under its name in its layer),
  assemblies (aborted, awaited), renders, mutations, counts and calls received; variable values
  that hold references where the texts render;
- ``session``: appends (valid ones, and ones that break exactly one append rule; events
  outside the core vocabulary holding zeros and negative numbers), surface replaces (tool
  results replaced by their content alone, or with one more field changed), runtime-context
  snapshots, the projection (the same context again, an emptied one), header canonical form and
  equality (the same tool schemas with integers written `1.0`); with ``session-1.2``, seeds of
  every core event kind (well-formed ones, and ones with one malformed event, each defect
  ROOT-MODEL lists drawn as often as any other, -0 in each field `session-non-json` reads
  included, or one whose malformed event also breaks a rule checked after it) and options given
  as ``undefined``;
- ``loop``: up to two agents over the shared registry, with scripted replies (answers, tool calls,
  failures, streams cut off or waiting for the abort), tool results, pre-step and request-error
  decisions (some waiting on gates), follow-ups, steers, cancels and disposals at every point the
  protocol can hold a turn (a gated listener, a waiting stream, a waiting decision), edits of the
  agent's layer between turns (runtime context, sections, tools), compaction, and a second agent
  seeded with the first one's log (a new loop instance over it); with ``loop-1.2``, the
  ``agent/request`` waterfall (route and field changes, waits, throws), pre-step decisions and
  request-error actions that wait or throw, tools that wait or throw, listeners that fail, the
  ``adapters`` map (defaults, context windows, resolutions that wait, fail or throw, a provider
  with no adapter), refused agents (``maxTokens``), ``inject`` and ``request-state``; with
  ``loop-1.3``, the ``agent/turn-stopping`` hook (passing, or waiting while a cancel or a message
  arrives), adapters' effort sets (``efforts``) and adapters registered after the agent exists
  (``register-adapter``, for a provider its map does not have yet). About a third of the agents
  hold their first request somewhere (`_Builder.hold`: a stream, a decision, a tool, a hook, a
  resolution); held rounds send cancels, messages or a disposal while a turn waits at a listener
  the round registers in the agent's scope, then the next turn's follow-up (queued meanwhile, or
  sent after); with loop-1.2, route-less agents and ``hook-calls``; one scenario in ten runs
  beyond its scripts.
  A held round's disposal may be followed by ``counts`` (what it released while the turn
  waits); a listener in an agent's scope that does not wait is seen at once by an
  ``assemble`` op there, outside a turn; every gate something still waits for opens at the
  end, before the agents are observed; and with loop-1.2 one scenario in three ends with one
  agent's ``hook-calls``. About
  half of the loop scenarios are a swarm's (`_Builder.swarm`, Groce et al. 2012): each draws
  its steps, replies, pre-step decisions, holds, what its held rounds send, its call
  configurations, adapters and new instances' restarts from a part of each table, and switches
  each agent option (`AGENT_OPTIONS`: pre-step decisions, request hooks, ``adapters``,
  turn-stopping hooks, holds) and failing listeners on (for most agents) or off.

- ``wire``: the ``deepseek-wire`` ops, requests, streams and error responses
  (`conformance.fuzz.wire`).
- ``http``: ``deepseek-http`` exchanges with the suite's loopback server, the raw responses it
  plays back and what reaches it (`conformance.fuzz.http`).

Scenarios are drawn step by step by a builder that knows the names it created, so every op refers
to something that exists and a shrunk scenario stays well-formed: deleting a step deletes what
refers to it too. What the builder cannot know before running (whether a registration was
rejected, whether an assembly produced one) is settled by the engine, which discards a scenario
the differential implementation cannot run (`conformance.fuzz.engine`); the registry family
draws no render of an assembly that may produce none (`_Builder.doomed`), since a render of a
failed assembly makes the whole scenario one the reference cannot run. Generation stays inside
what CONTRACTS.md decides: `AVOIDED` lists what it leaves out and why.
"""

from __future__ import annotations

import copy
import functools
import itertools
from collections.abc import Callable
from typing import Any, Final, TypeVar

from hypothesis import strategies as st

from ..scenarios import loopscenario as lp
from ..scenarios import scenario as s
from .http import http_steps
from .wire import wire_steps

Json = Any
Entry = TypeVar("Entry")

#: What generation never produces, each with the CONTRACTS.md rule that leaves its outcome open.
AVOIDED: Final[tuple[tuple[str, str], ...]] = (
    (
        "configuration keys the loader does not know",
        'PROMPT-REGISTRY-CONTRACT: "Unknown configuration keys are implementation-defined (the '
        'upstream ignores them); the suite does not test them."',
    ),
    (
        "integer-like keys in a tool schema's `parameters`",
        "PROMPT-ASSEMBLY-PIPELINE step 3: an implementation whose objects put integer-like keys "
        'first "may reorder those, so no check depends on the order of integer-like keys".',
    ),
    (
        "providers that block (`waitFor` on a PROVIDER); blocking is done by listeners",
        'DESIGN-SCOPED-LAYERS: providers may be synchronous, an implementation "MAY also accept '
        'asynchronous ones"; "Anything that must happen while assembly is blocked ... is '
        'specified through a blocked listener."',
    ),
    (
        "a session append that breaks two append rules at once",
        'ROOT-MODEL, "The session log": the order the rules are checked in is fixed for a seed '
        '("A seed is checked for `session-non-json` first, then ...") but not for an append, so '
        "which kind such an append names is open.",
    ),
    (
        "invalid configurations (`configure` that fails) followed by more ops",
        "PROMPT-REGISTRY-CONTRACT and PROMPT-TOOL-ORDER fix the error kind of a bad `toolOrder`, "
        "not which registry the scenario goes on with afterwards.",
    ),
    (
        "a tool call without a scripted result",
        "ROOT-MODEL leaves the tool runner to the host: CONTRACTS.md says nothing of a tool call "
        "the host cannot answer. (A request beyond the scripted replies is drawn: PROTOCOL.md "
        "fixes its code, `SCRIPT_EXHAUSTED`, and the log comparison never compares the "
        "failure's message; `hook-calls`, which would, is then not drawn.)",
    ),
    (
        "follow-ups, steers, cancels and compaction addressed to a disposed agent",
        'PROMPT-CANCEL-TEST names owner disposal only as a cancel cause ({kind: "disposed"}); '
        "what a disposed agent does with later messages is not decided.",
    ),
    (
        "negative zero, NaN or infinities in a call configuration",
        'ROOT-MODEL, "The session log": "numbers are finite and never negative zero" in a log, '
        "and a header is logged from the configuration, so such a configuration cannot be logged "
        "and the contracts say nothing of what a loop does then.",
    ),
    (
        "a seed event with two defects checked at the same stage (two malformed fields, or a "
        "malformed field and a legacy header)",
        'ROOT-MODEL, "The session log": "A seed is checked for `session-non-json` first, then '
        "for these (and `session-legacy-header`), then for `seq-not-contiguous`, then against "
        'the surface rules": the order between stages is fixed, not within one.',
    ),
    (
        "U+0085 in a DeepSeek API key",
        "PROMPT-DEEPSEEK-WIRE: the key is trimmed \"as JavaScript's `String.prototype.trim` "
        'defines it (Unicode `White_Space`, line terminators and U+FEFF)": U+0085 is Unicode '
        "White_Space but JavaScript's trim keeps it, so the sentence decides it both ways.",
    ),
    (
        "an image block in a request to a model no case names as text-only",
        'PROMPT-DEEPSEEK-WIRE refuses "an image block for a text-only model" '
        "(`UNSUPPORTED_CONTENT`) but does not list which models are text-only: requests holding "
        "an image name `deepseek-v4-flash`, the model the refusal cases use.",
    ),
    (
        "a tool call whose `function` is not an object, unless the call breaks a stated rule too "
        "(an `index` that is not an integer, an `id` that is not a string)",
        'PROMPT-DEEPSEEK-WIRE: the expected chunk shape names tool-call "`id`, `name` and '
        '`arguments` strings or null" and "`tool_calls` a list of objects each with an integer '
        '`index`", and says nothing of `function` itself, so whether a string there is malformed '
        "or skipped is open (the case stream-shape-tool-call-function-not-an-object says so).",
    ),
    (
        "a negative or non-integral cache count (`prompt_cache_hit_tokens`, "
        "`prompt_tokens_details.cached_tokens`)",
        'PROMPT-DEEPSEEK-WIRE asks "non-negative integer `prompt_tokens` and `completion_tokens` '
        '(and integer detail counts when given)": a negative detail count is an integer, and '
        "whether `prompt_cache_hit_tokens` is a detail count, or is checked when the detail "
        "wins, is not said. Cache counts are drawn as integers, written `8` or `8.0`.",
    ),
    (
        "content and a tool call in one delta",
        "PROMPT-DEEPSEEK-WIRE does not say in which order one delta's fields open their blocks "
        "(PROTOCOL.md's STREAM_CHUNK only ends blocks in opening order), so whether its text "
        "block or its tool-call block comes first is open; content is drawn beside an empty "
        "`tool_calls` only.",
    ),
    (
        "failure messages in a log (compared as any text)",
        "PROMPT-DEEPSEEK-WIRE's LLM_FAILURE, as PROTOCOL.md restates it: \"Codes are compared; "
        "messages never are\" (a `NO_ADAPTER` failure's message is the implementation's own).",
    ),
    (
        "over HTTP (`http`), a Retry-After date in the future",
        'PROMPT-DEEPSEEK-WIRE keeps an HTTP-date "only when it lies in the future", measured '
        "against the adapter's own clock over HTTP: its `providerRetryAfterMs` depends on when "
        "each implementation reads its clock, so it is never the same number twice (past dates, "
        "from 1994, are decided: none).",
    ),
    (
        "over HTTP, a response that never ends (no idle timeout is waited out) and an abort signal",
        "PROMPT-DEEPSEEK-WIRE names no idle timeout and no abort: the upstream's 300 s idle "
        "timeout and the `deepseek-http` op's lack of a signal leave both outside what a "
        "generated exchange can decide.",
    ),
    (
        "over HTTP, statuses below 400 other than 200, and 200 responses that are not an SSE body",
        'PROMPT-DEEPSEEK-WIRE maps "HTTP errors" and reads a stream of SSE `data:` payloads; '
        "what a 1xx-3xx status or another content type means is not said.",
    ),
    (
        "over HTTP, an error body that is not UTF-8 and holds the quota or context wording",
        'PROMPT-DEEPSEEK-WIRE\'s wording rules read "the error body (code, type or message)" '
        "without saying how bytes that are not UTF-8 are read, so whether such wording is seen "
        "is open; the status rules hold whatever the body is.",
    ),
    (
        "over HTTP, a body cut inside the `[DONE]` event (its line arrived, its blank line not)",
        'PROMPT-DEEPSEEK-WIRE: "SSE `data:` payloads up to `[DONE]`" does not say whether '
        "`[DONE]` counts once its line or once its event has arrived; a connection closed "
        "before the `[DONE]` event or after it is decided.",
    ),
    (
        "over HTTP, the code of a connection closed mid-body before `[DONE]` (either "
        "`STREAM_CLOSED` or `TRANSPORT` is expected)",
        'PROMPT-DEEPSEEK-WIRE: "EOF without it → `STREAM_CLOSED`"; it names no code for a broken '
        "connection (the upstream says `TRANSPORT`), as `deepseek-http/closed-mid-body` accepts.",
    ),
    (
        "a model failure with code ABORTED while the turn is not cancelled",
        'ROOT-MODEL: an adapter failure is logged as a terminal finish whose reason is "`{kind: '
        '"error" | "aborted", failure}`", and nothing says which of the two a failure with code '
        "ABORTED gets while no cancel is under way (the turn ends in an error either way, but the "
        "log comparison would compare the finish chunk).",
    ),
    (
        "reasoning and content in one delta",
        "PROMPT-DEEPSEEK-WIRE says nothing of the order in which one delta's fields open their "
        "blocks, reasoning and text no more than text and tool calls (the conforming variant "
        "TextBeforeReasoning of tests/gallery/right_impls opens the text block first); each "
        "delta is drawn with one of them.",
    ),
)

SCOPES: Final = ("s1", "s2")
AGENTS: Final = ("a1", "a2")
SECTION_NAMES: Final = ("a", "b", s.IDENTITY_NAME)
CONTEXT_NAMES: Final = ("c", "d")
VARIABLE_NAMES: Final = ("x", "y", "1x")
#: Code-unit order differs from code-point order between the last two (U+FF5A, U+1D4B3).
TOOL_NAMES: Final = ("t", "u", "\uff5a", "\U0001d4b3")
ORDERS: Final = (0, 1, 2.5, -0.0, -1, "NaN", "Infinity")
LOOP_TEXTS: Final = ("now", "later", "", "x={{x}}")
TEXTS: Final = ("", "plain", "x={{x}}", "{{y}}", "{{x}", "{{{x}}}", "{{ x }}", "a {{ b", "{{1x}}")
#: Texts that are well-formed and refer only to ``x`` and ``y`` (a swarm of the registry family).
RENDERED_TEXTS: Final = ("plain", "x={{x}}", "{{y}}", "")
VALUES: Final = ("v", "", None, "{{x}}", "w")
#: Variable values of the registry family's swarm whose texts render: references to the other
#: variable and to itself, inserted verbatim and never re-scanned (PROMPT-STRICT-RENDER).
RENDERED_VALUES: Final = ("v", "{{y}}", "{{x}}", None, "x={{x}} {{y}}")
CONFIGS: Final = (
    {"toolOrder": ["t", "<unlisted-tools>"]},
    {"toolOrder": ["<unlisted-tools>", "\uff5a", "t"]},
    {"toolOrder": ["nope", "<unlisted-tools>"]},
    {"includeRuntimeContext": False},
    {"persona": "P {{x}}"},
    {"includeHarnessIdentity": False},
    {"toolOrder": None},
)
CALL_CONFIGS: Final = (
    lp.CONFIG,
    {**lp.CONFIG, "temperature": 0.5, "stop": []},
    {**lp.CONFIG, "stop": ["END"], "maxTokens": 64},
    {"provider": "scripted", "model": "m2", "reasoningEffort": "high"},
    {**lp.CONFIG, "reasoningEffort": "high"},
)
ADAPTERS: Final = (
    {"defaults": {"reasoningEffort": "low"}},
    {"defaults": {"maxTokens": 100}, "contextWindow": 1000},
    {"contextWindow": 2000},
)
CAUSES: Final = (lp.USER_CANCEL, {"kind": "hook", "reason": "policy"})
#: 1.2: ``maxTokens`` that refuse an agent (`agent-config-invalid`): not a positive integer.
BAD_MAX_TOKENS: Final = (0, 1.5, -1)
#: 1.2: what an `agent/request` hook may set (REQUEST_HOOK ``set``; ``None`` removes the field).
REQUEST_SETS: Final = (
    {"model": "m2"},
    {"provider": "other", "model": "m3"},
    {"reasoningEffort": "high"},
    {"temperature": 0.25, "stop": ["S"]},
    {"maxTokens": 32},
    {"temperature": None, "stop": None},
    {"model": None},
)
#: 1.2: the ``adapters`` map's resolution behaviours (ADAPTERS_ENTRY ``resolve``).
RESOLVES: Final = (
    {"fails": {"code": "AUTH", "message": "resolution failed"}},
    {"throws": "resolution threw"},
)
#: 1.2: the providers a call configuration may name; ``other`` has an adapter only sometimes.
PROVIDERS: Final = ("scripted", "other")
#: The seeded event types whose message is checked (`_Session._malform`).
MESSAGE_TYPES: Final = ("user/message", "assistant/message", "tool/result")
#: The defects of a seeded event (`_Session._malform`), one of each rule ROOT-MODEL checks a seed
#: against, and the kinds of seeded event (`_Session._seeded`) each applies to (``None``: any):
#: the envelope's, a message's (those whose `data` must be an object for the checks to reach
#: it), a header's (PROMPT-HEADER-CANONICAL's `adapterDefaults` included), -0 in each field
#: `session-non-json` reads, and the surface rules'. Only the first three without session-1.2.
_MESSAGES: Final = ("user", "assistant", "tool", "replace")
_HEADERS: Final = ("header",)
MESSAGE_DEFECTS: Final = ("id", "role", "no-kind", "content", "kind-only", "fields-only")
SEED_DEFECTS_1_1: Final = ("seq", "legacy", "required")
SEED_DEFECTS: Final[dict[str, tuple[str, ...] | None]] = {
    "seq": None,
    "legacy": None,
    "required": ("user",),
    **dict.fromkeys(("extra", "type", "bad-seq", "time", "no-time", "no-data", "ignorable")),
    "not-object": None,
    "null": None,
    **dict.fromkeys(MESSAGE_DEFECTS[:4], _MESSAGES),
    **dict.fromkeys(MESSAGE_DEFECTS[4:], ("assistant", "tool")),
    "payload": ("header", "assistant", "tool"),
    **dict.fromkeys(
        ("provider", "model", "effort", "defaults", "header-not-object", "config", "marker"),
        _HEADERS,
    ),
    "list": _HEADERS,
    **dict.fromkeys(("-0 in data", "-0 in surfaceOp", "-0 in sourceEventSeqs")),
    "cites": ("replace",),
}
#: A tool schema holding integers, which may be written `1.0` (`_Session.equal`).
NUMBERED_TOOL: Final = s.schema(
    "n", "", {"type": "object", "properties": {"a": {"type": "number", "minimum": 1}}, "enum": [2]}
)
#: 1.3: adapters' effort sets (ADAPTERS_ENTRY ``efforts``): the configs' efforts are ``high`` and
#: the defaults' ``low``, so each set passes some and refuses others.
EFFORTS: Final = (["low"], ["off", "max"], ["low", "high"])
#: The loop family's kinds of scripted reply (`_Builder.reply`), by weight.
REPLY_KINDS: Final = (
    (2, "answer"),
    (2, "call"),
    (1, "fails"),
    (1, "partial"),
    (1, "cut"),
    (1, "usage"),
    (1, "silent"),
)
#: The chance (percent) that an agent gets each of these (`_Builder.agent`): pre-step decisions
#: (25 without loop-1.2), `agent/request` hooks and the ``adapters`` map (loop-1.2),
#: `agent/turn-stopping` hooks (loop-1.3), a first request held (`_Builder.hold`).
AGENT_OPTIONS: Final = {
    "pre-step": 40,
    "request": 40,
    "adapters": 30,
    "turn-stopping": 30,
    "hold": 35,
}
#: How a new loop instance's configuration differs from the one whose log it takes over
#: (`_Builder.restarted`).
RESTARTS: Final = ("same", "no-effort", "effort")
#: A pre-step DECISION's names (`_Builder.decision`), by weight.
DECISIONS: Final = ((2, "default"), (1, "reject"), (1, "empty"))
#: Where a held agent's first request waits (`_Builder.hold`); the last four need loop-1.2.
HOLDS: Final = (
    (1, "stream"),
    (1, "decision"),
    (1, "tool"),
    (1, "hook"),
    (1, "pre-step"),
    (1, "resolution"),
)
#: What a held round sends or observes while its turn may wait (`_Builder.held_round`), by weight.
MEANWHILE: Final = (
    (2, "cancel"),
    (1, "followup"),
    (1, "steer"),
    (1, "inject"),
    (1, "counts"),
    (1, "dispose"),
)
#: Each family's capabilities of protocol 1.2 and 1.3, whose ops it draws when both sides declare
#: them.
EXTENDS: Final[dict[str, tuple[str, ...]]] = {
    "registry": ("registry-1.2",),
    "session": ("session-1.2",),
    "loop": ("loop-1.2", "registry-1.2", "loop-1.3"),
    "wire": (),
    "http": (),
}


@functools.cache
def _below(count: int) -> st.SearchStrategy[int]:
    """Strategies are built once: building one per draw was most of the generation time."""
    return st.integers(0, count - 1)


@functools.cache
def _range(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


def _names(table: tuple[tuple[int, str], ...]) -> list[str]:
    """The names of a table of ``(weight, name)``, each as many times as its weight."""
    return [name for weight, name in table for _ in range(weight)]


def _parameters(variant: int) -> Json:
    """A fresh ``parameters`` object (no integer-like keys: `AVOIDED`)."""
    if variant == 0:
        return {"type": "object"}
    return {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "number"}}}


class _Builder:
    """Draws steps and writes their ops, remembering what exists so that ops stay well-formed."""

    def __init__(self, draw: st.DrawFn, capabilities: frozenset[str] = frozenset()) -> None:
        self.draw = draw
        #: What both implementations declare: 1.2 ops are drawn only under their capability.
        self.capabilities = capabilities
        self.ops: list[Json] = []
        self.scopes: list[str] = []
        self.agents: list[str] = []
        #: Agents refused at creation (1.2, `agent-config-invalid`): they do not exist, so no
        #: later op names them, but their names are spent.
        self.refused: list[str] = []
        self.disposed: set[str] = set()
        #: (layer, table, name) of each registration that may hold a name, and its handle.
        self.names: dict[tuple[Json, str | None, Json], str] = {}
        self.releasable: list[str] = []
        self.assemblies: list[str] = []
        self.closed_gates: list[str] = []
        self.tracked: list[str] = []
        self.numbers = itertools.count(1)
        self.observer_pending = False
        self.has_tools = False
        #: Section and context texts: in a loop, mostly ones that render, so that turns run.
        self.texts: tuple[str, ...] = TEXTS
        #: Variable values.
        self.values: tuple[Json, ...] = VALUES
        #: The chance (percent) that a provider's first evaluation edits the registry.
        self.effects = 15
        #: The registry family's: what its providers' first evaluations edit (`registry_effect`
        #: rather than `effect`), and which renders it leaves out (`doomed`).
        self.registry_edits = False
        #: Each registration or listener that may be in place, by handle (its op): what an
        #: assembly will meet (`doomed`), and what an edit may replace (`registry_effect`).
        self.live: dict[str, Json] = {}
        #: Provider ids of registrations that were rejected: never declared, so never `received`.
        self.undeclared: set[str] = set()
        #: The configuration given by `configure`, if any.
        self.config: Json = {}
        #: 1.3: per agent created with ``adapters``, the providers that have one so far (a
        #: `register-adapter` is drawn only for a provider that has none).
        self.adapter_maps: dict[str, set[str]] = {}
        #: 1.3: agents whose first `agent/turn-stopping` hook waits.
        self.stopping_agents: list[str] = []
        #: Context registrations that may have been accepted: releasing one between turns is a
        #: runtime-context change (LOOP-RUNTIME-CONTEXT: the cleared marker, a new snapshot).
        self.contexts: list[str] = []
        #: Whether the loop family's scripts are padded to every request (`_pad_scripts`).
        self.padded = True
        #: Each agent's call configuration as created (a new instance may reuse one).
        self.configs: dict[str, Json] = {}
        #: The loop family's tables, all of them unless this scenario is a swarm's (`swarm`).
        self.loop_steps: tuple[tuple[int, str], ...] = self.LOOP_STEPS
        self.reply_kinds: tuple[tuple[int, str], ...] = REPLY_KINDS
        self.decisions: tuple[tuple[int, str], ...] = DECISIONS
        self.holds: tuple[tuple[int, str], ...] = HOLDS
        self.meanwhile: tuple[tuple[int, str], ...] = MEANWHILE
        self.call_configs: tuple[Json, ...] = CALL_CONFIGS
        self.adapter_options: tuple[Json, ...] = ADAPTERS
        self.restarts: tuple[str, ...] = RESTARTS
        self.agent_options: dict[str, int] = dict(AGENT_OPTIONS)
        #: The chance (percent) that a listener fails (loop-1.2).
        self.listener_failures = 8

    # -- helpers ------------------------------------------------------------------------------

    def pick(self, options: Any) -> Any:
        """One of ``options``; shrinks towards the first."""
        options = list(options)
        return options[self.draw(_below(len(options)))]

    def chance(self, percent: int) -> bool:
        """True with this probability; shrinks towards False."""
        return bool(self.draw(_below(100)) >= 100 - percent)

    def between(self, low: int, high: int) -> int:
        """An integer in ``low..high``; shrinks towards ``low``."""
        return int(self.draw(_range(low, high)))

    def has(self, capability: str) -> bool:
        return capability in self.capabilities

    def wait(self) -> Json:
        """A WAIT: the turn's abort signal, or a gate opened later (or never)."""
        return {"abort": True} if self.chance(50) else {"gate": self.gate()}

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.numbers)}"

    def scope(self, name: str | None) -> str | None:
        """``name``, creating it (and its parent) first if this scenario has not."""
        if name is not None and name not in self.scopes and name not in self.agents:
            if name == "s2":
                self.scope("s1")
            self.ops.append(s.scope(name, "s1" if name == "s2" else None))
            self.scopes.append(name)
        return name

    def layer(self) -> str | None:
        live = [agent for agent in self.agents if agent not in self.disposed]
        return self.scope(self.pick([None, *SCOPES, *live]))

    def gate(self) -> str:
        gate = self.fresh("g")
        self.closed_gates.append(gate)
        return gate

    def provider(self, values: tuple[Json, ...], own: Json | None = None) -> Json:
        """A PROVIDER: counted under an id; returns, a sequence, or fails; maybe with effects.
        ``own``: the registration it is drawn for (its handle, layer, kind and name)."""
        ident = self.fresh("p")
        self.tracked.append(ident)
        spec: Json = {"id": ident}
        shape = self.pick(["returns"] * 6 + ["sequence"] * 2 + ["fails"])
        if shape == "returns":
            spec["returns"] = self.pick(values)
        elif shape == "sequence":
            spec["sequence"] = [self.pick(values), self.pick(values)]
        else:
            spec["fails"] = "boom"
        if self.chance(self.effects):
            count = self.between(1, 2)
            if self.registry_edits:
                spec["effects"] = [op for _ in range(count) for op in self.registry_effect(own)]
            else:
                spec["effects"] = [self.effect() for _ in range(count)]
        return spec

    def effect(self) -> Json:
        """A registration or release made by a provider's first evaluation (mid-assembly)."""
        kind = self.pick(["variable", "section", "release", "tools"])
        if kind == "release" and self.releasable:
            return s.release(self.pick(self.releasable))
        return self.registration("variable" if kind == "release" else kind, self.layer())

    def registry_effect(self, own: Json | None) -> list[Json]:
        """The registry family's mid-assembly edits (`effect`'s, more of them): a release; a
        registration of any named kind or of a tool provider, into any layer or into a scope
        below the provider's own that has no layer yet (PROMPT-ASSEMBLY-PIPELINE: variables
        and tool providers are read from the layers that existed when the assembly started,
        the section and context maps from those on the chain at step 2); or a replacement: the
        provider's own registration, or another one, released and one of the same kind and
        name registered in its layer (PROMPT-VARIABLE-TEST: releasing a table's last variable
        starts a new generation, and the replacement is first evaluated by the next assembly;
        PROMPT-ASSEMBLY-MUTATION-TEST: a tool provider's from the next assembly on)."""
        kind = self.pick(["variable", "section", "context", "tools", "release", "replace"])
        if kind == "release" and self.releasable:
            return [s.release(self.pick(self.releasable))]
        if kind == "replace":
            others = [op for op in self.live.values() if op["op"] == "register"]
            replaced = own if own is not None and (not others or self.chance(60)) else None
            if replaced is None and others:
                replaced = self.pick(others)
            if replaced is not None and replaced["kind"] != "suppressor":
                again = self.registration(replaced["kind"], replaced.get("layer"))
                if "name" in replaced:
                    again["name"] = replaced["name"]
                return [s.release(replaced["handle"]), again]
            kind = "variable"
        if kind == "release":
            kind = "variable"
        own_layer = None if own is None else own.get("layer")
        # Scopes whose chain passes through the provider's layer, with no registration yet (a
        # listener makes no layer).
        below = [
            scope
            for scope in SCOPES
            if own_layer in _chain(scope)[:-1]
            and not any(op.get("layer") == scope for op in self.live.values())
        ]
        layer = self.scope(self.pick(below)) if below and self.chance(50) else self.layer()
        return [self.registration(kind, layer)]

    def registration(self, kind: str, layer: str | None) -> Json:
        """A registration an edit makes: its provider returns the same plain value each time."""
        handle = self.fresh("e")
        if kind == "section":
            return s.section(handle, "e", 3, "effect {{z}}", layer=layer)
        if kind == "context":
            return s.context(handle, "e", 3, "effect", layer=layer)
        if kind == "tools":
            return s.tools(handle, {"returns": s.toolset(s.schema("t"))}, layer=layer)
        return s.variable(handle, "z", {"returns": "zv"}, layer=layer)

    def text(self, own: Json | None = None) -> Json:
        return self.provider(self.texts, own) if self.chance(40) else self.pick(self.texts)

    def schema(self) -> Json:
        schema = s.schema(
            self.pick(TOOL_NAMES), self.pick(["", "d"]), _parameters(self.pick([0, 1]))
        )
        if self.chance(20):
            schema["extra"] = 1
        return schema

    def register(self, op: Json, table: str | None) -> None:
        """Append a ``register`` op; its handle is releasable when it cannot have been rejected."""
        key = (op.get("layer"), table, op.get("name"))
        refused = (
            (table is not None and key in self.names)
            or op.get("order") in ("NaN", "Infinity")
            or op.get("name") == "1x"
        )
        rejected = refused or self.observer_pending
        # A refused registration emits nothing (PROMPT-REGISTRY-CONTRACT): the observer still
        # throws at the next one.
        self.observer_pending = self.observer_pending and refused
        self.ops.append(op)
        if rejected:
            for spec in (op.get("provider"), op.get("text")):
                if isinstance(spec, dict) and "id" in spec:
                    self.undeclared.add(spec["id"])
        else:
            self.live[op["handle"]] = op
            if table is not None:
                self.names[key] = op["handle"]
            self.releasable.append(op["handle"])
            if table == "contexts":
                self.contexts.append(op["handle"])

    def release(self, handle: str) -> None:
        self.ops.append(s.release(handle))
        self.names = {key: held for key, held in self.names.items() if held != handle}
        self.live.pop(handle, None)

    # -- registry steps -----------------------------------------------------------------------

    def section(self) -> None:
        layer, name = self.layer(), self.pick(SECTION_NAMES)
        complete = self.chance(8)
        handle, order = self.fresh("h"), self.pick(ORDERS)
        own = {"handle": handle, "layer": layer, "kind": "section", "name": name}
        op = s.section(handle, name, order, self.text(own), layer=layer)
        if complete:
            op["complete"] = True
        self.register(op, "sections")

    def context(self) -> None:
        layer, name = self.layer(), self.pick(CONTEXT_NAMES)
        handle, order = self.fresh("h"), self.pick(ORDERS)
        own = {"handle": handle, "layer": layer, "kind": "context", "name": name}
        op = s.context(handle, name, order, self.text(own), layer=layer)
        self.register(op, "contexts")

    def variable(self) -> None:
        layer, name = self.layer(), self.pick(VARIABLE_NAMES)
        handle = self.fresh("h")
        own = {"handle": handle, "layer": layer, "kind": "variable", "name": name}
        op = s.variable(handle, name, self.provider(self.values, own), layer=layer)
        self.register(op, "variables")

    def tools(self) -> None:
        layer = self.layer()
        schemas = [self.schema() for _ in range(self.draw(_range(1, 3)))]
        toolset = s.toolset(*schemas)
        if self.chance(25):
            toolset["knownNames"] = [self.pick(TOOL_NAMES), "nope"]
        if self.chance(5):
            toolset["schemas"].append(s.schema("<unlisted-tools>"))
        # The registry family's handle comes first, so that an edit may replace its own.
        handle = self.fresh("h") if self.registry_edits else None
        own = {"handle": handle, "layer": layer, "kind": "tools"}
        provider = self.provider((toolset,), own if handle else None)
        self.has_tools = True
        self.register(s.tools(handle or self.fresh("h"), provider, layer=layer), None)

    def suppressor(self) -> None:
        self.register(s.suppressor(self.fresh("h"), layer=self.layer()), None)

    def release_context(self) -> None:
        if self.contexts:
            self.release(self.pick(self.contexts))

    def release_step(self) -> None:
        if self.releasable:
            self.release(self.pick(self.releasable))

    def dispose_scope(self) -> None:
        if self.scopes:
            name = self.pick(self.scopes)
            self.ops.append(s.dispose(name))
            self.names = {key: held for key, held in self.names.items() if key[0] != name}
            self.live = {handle: op for handle, op in self.live.items() if _placed(op) != name}

    def change_observer(self) -> None:
        """An observer that throws once: the next registration is rolled back."""
        self.ops.append(s.change_observer("observer failed"))
        self.observer_pending = True
        for _ in range(3):  # until a registration is not refused, and so rolled back
            self.section()
            if not self.observer_pending:
                break

    def edit(self) -> Json:
        kind = self.pick(["append", "remove", "reverse", "replace", "retext", "set-variable"])
        if kind == "append":
            target = self.pick(["sections", "contexts", "tools"])
            item = self.schema() if target == "tools" else s.entry("l", "listed {{x}}")
            return s.append(target, item)
        if kind == "remove":
            return {"remove": "sections", "name": self.pick(SECTION_NAMES)}
        if kind == "reverse":
            return {"reverse": self.pick(["sections", "contexts", "tools"])}
        if kind == "replace":
            return {"replace": "sections", "items": [s.entry("r", "replaced")]}
        if kind == "retext":
            return {"retext": "sections", "name": self.pick(SECTION_NAMES), "text": "retexted"}
        return s.set_variable(self.pick(VARIABLE_NAMES[:2]), self.pick(["lv", None]))

    def listen(self, scope: str | None = None, gated: bool | None = None) -> None:
        ident = self.fresh("l")
        self.tracked.append(ident)
        listener: Json = {"id": ident}
        if gated and self.has("loop-1.2") and self.chance(40):
            listener["waitFor"] = {"abort": True}  # a cooperative listener: the turn's signal
        elif self.chance(30) if gated is None else gated:
            listener["waitFor"] = {"gate": self.gate()}
        if self.has("loop-1.2") and self.chance(self.listener_failures):
            listener["fails"] = "listener failed"
        if self.chance(30):
            listener["before"] = [self.edit()]
        if self.chance(20):
            listener["callNext"] = False
        if self.chance(60):
            listener["edits"] = [self.edit() for _ in range(self.draw(_range(1, 2)))]
        handle = self.fresh("h")
        target = self.layer() if scope is None else scope
        self.ops.append(s.listen(handle, listener, scope=target))
        self.live[handle] = self.ops[-1]
        self.releasable.append(handle)

    def assemble(self) -> None:
        name = self.fresh("as")
        op = s.assemble(name, scope=self.scope(self.pick([None, *SCOPES, *self.agents])))
        if self.chance(10):
            op["aborted"] = True
        self.ops.append(op)
        self.assemblies.append(name)
        follows = self.draw(_FOLLOWS)
        if self.registry_edits and self.doomed(op.get("scope")):
            # It may produce no assembly: nothing to render (the reference could not run it).
            follows = [follow for follow in follows if follow == "received"]
        for follow in follows:
            if follow == "render":
                self.ops.append(s.render(name))
            elif follow == "context":
                self.ops.append(s.render_context(name))
            elif follow == "received":
                # What a provider or listener was given: its context names the agent only in
                # an agent's own scope (DESIGN-SCOPED-LAYERS, `registry-1.2`).
                self.received()
            elif self.has_tools and (not self.registry_edits or self.tooled(op.get("scope"))):
                path: list[str | int] = ["tools", 0, "parameters", "properties"]
                self.ops.append(s.mutate(name, path, set={"k": {"type": "string"}}))

    def open_gate(self) -> None:
        if self.closed_gates:
            gate = self.pick(self.closed_gates)
            self.closed_gates.remove(gate)
            self.ops.append(s.open_gate(gate))

    def await_or_abort(self) -> None:
        if self.assemblies:
            name = self.pick(self.assemblies)
            if self.chance(50):
                self.ops.append(s.await_(name))
            else:
                self.ops.append(s.abort(name, self.pick(CAUSES)))

    def counts(self) -> None:
        self.ops.append(s.counts())

    def received(self) -> None:
        tracked = self.tracked
        if self.registry_edits:
            tracked = [ident for ident in tracked if ident not in self.undeclared]
        if tracked:
            self.ops.append(s.received(self.pick(tracked)))

    def finish(self) -> None:
        """Open every gate, then assemble and render in the global scope and every scope
        created, and count: most of what a registry scenario did shows in these observations."""
        for gate in self.closed_gates:
            self.ops.append(s.open_gate(gate))
        self.closed_gates = []
        scopes = [None, *self.scopes]
        if self.chance(50):
            # Innermost first: a provider is first evaluated where a scope may have no layer yet
            # (PROMPT-ASSEMBLY-PIPELINE: layers created mid-assembly).
            scopes.reverse()
        for scope in scopes:
            name = self.fresh("as")
            self.ops.append(s.assemble(name, scope=scope))
            if not self.doomed(scope):
                self.ops += [s.render(name), s.render_context(name)]
        self.ops.append(s.counts())

    def doomed(self, scope: str | None) -> bool:
        """Whether an assembly in ``scope`` may produce none, from what may be in place on its
        chain: a provider that fails, a tool provider offering `<unlisted-tools>`
        (`reserved-tool-name`), two complete sections, a configured `toolOrder` naming a tool
        no provider knows, a failing listener or one waiting for a closed gate. Its render
        would be a scenario the reference cannot run (PROTOCOL.md: a render needs an
        assembly), discarded whole. Shadowed and suppressed providers count too: an
        implementation that evaluates them (PROMPT-SCOPE-SHADOW, PROMPT-ASSEMBLY-PIPELINE step
        6) would answer such a render `errored`, which the fuzz gallery cannot replay."""
        chain = _chain(scope)
        known: set[str] = set()
        complete = 0
        for op in self.live.values():
            if _placed(op) not in chain:
                continue
            if op["op"] == "listen":
                listener = op["listener"]
                if (
                    "fails" in listener
                    or listener.get("waitFor", {}).get("gate") in self.closed_gates
                ):
                    return True
                continue
            provider = op.get("provider", op.get("text"))
            if isinstance(provider, dict) and "fails" in provider:
                return True
            complete += bool(op.get("complete"))
            if op["kind"] == "tools":
                for toolset in provider.get("sequence", [provider.get("returns")]):
                    names = [schema["name"] for schema in toolset["schemas"]]
                    known.update(toolset.get("knownNames", names))
                    if "<unlisted-tools>" in names:
                        return True
        listed = self.config.get("toolOrder") or []
        unknown = any(name not in known for name in listed if name != "<unlisted-tools>")
        return unknown or complete > 1

    def tooled(self, scope: str | None) -> bool:
        """Whether an assembly in ``scope`` has a tool provider that may be in place (a path
        into its first tool exists)."""
        chain = _chain(scope)
        return any(
            op.get("kind") == "tools" and op.get("layer") in chain for op in self.live.values()
        )

    def configure(self) -> None:
        self.config = dict(self.pick(CONFIGS))
        self.ops.append(s.configure(self.config))

    REGISTRY_STEPS: Final[tuple[tuple[int, str], ...]] = (
        (6, "section"),
        (4, "context"),
        (5, "variable"),
        (4, "tools"),
        (2, "suppressor"),
        (3, "release_step"),
        (1, "dispose_scope"),
        (1, "change_observer"),
        (3, "listen"),
        (6, "assemble"),
        (2, "open_gate"),
        (2, "await_or_abort"),
        (1, "counts"),
        (1, "received"),
        (1, "assemble"),
    )

    # -- session steps ------------------------------------------------------------------------

    def session_steps(self) -> None:
        session = _Session(self)
        if self.chance(40):
            session.seed()
        if self.chance(30):
            session.start_projection()
        for _ in range(self.draw(_range(1, 12))):
            step: Callable[[], None] = getattr(session, self.pick(_Session.STEPS))
            step()
        self.ops.append(s.session_log())
        self.ops.append(s.session_surface())

    # -- loop steps ---------------------------------------------------------------------------

    def live_agents(self) -> list[str]:
        return [agent for agent in self.agents if agent not in self.disposed]

    def agent(self, *, seeded: bool = False) -> None:
        if len(self.agents) + len(self.refused) == len(AGENTS):
            return
        name = AGENTS[len(self.agents) + len(self.refused)]
        later = self.has("loop-1.2")
        replies = [self.reply() for _ in range(self.draw(_range(0, 4)))]
        calls = sum(1 for reply in replies if _is_call(reply))
        results = [self.tool_result() for _ in range(calls)]
        decisions = [self.decision() for _ in range(2)]
        actions: list[Json] = []
        for _ in range(self.draw(_range(0, 2))):
            action = self.pick(["retry", "end"])
            if later and self.chance(10):
                actions.append({"throws": "decision threw"})
            else:
                # The decision may wait for a gate or for the turn's abort (PROMPT-CANCEL-TEST).
                waits = self.chance(25)
                actions.append({"action": action, "waitFor": self.wait()} if waits else action)
        config = dict(self.pick(self.call_configs))
        if seeded and self.chance(50):
            config = self.restarted(self.configs[self.agents[0]])
        refused = later and self.agents and not seeded and self.chance(8)
        if refused:
            config["maxTokens"] = self.pick(BAD_MAX_TOKENS)
        elif later and self.chance(8):
            # A route-less agent (PROTOCOL.md 1.2): its builds fail unless a request hook sets
            # the route (LOOP-REQUEST-BUILD: "no provider or model after the waterfall").
            config.pop("provider", None)
            config.pop("model", None)
        options: Json = {
            "model": replies,
            "config": config,
            "tools": results,
            "pre_step": decisions if self.chance(self.option("pre-step")) else None,
            "request_error": actions,
        }
        if later and self.chance(self.option("request")):
            options["request"] = [self.request_hook() for _ in range(self.draw(_range(1, 2)))]
        if later and self.chance(self.option("adapters")):
            config["provider"] = self.pick(PROVIDERS)
            options["adapters"] = self.adapters()
            efforts = options["adapters"].get(config["provider"], {}).get("efforts")
            if efforts is not None and self.chance(50):  # an effort its own set refuses
                refused_efforts = [e for e in ("high", "low", "max") if e not in efforts]
                config["reasoningEffort"] = self.pick(refused_efforts)
            if not refused:
                self.adapter_maps[name] = set(options["adapters"])
        elif self.chance(25):
            options["adapter"] = self.pick(self.adapter_options)
        if self.has("loop-1.3") and self.chance(self.option("turn-stopping")):
            options["turn_stopping"] = [self.stopping() for _ in range(self.between(1, 2))]
            if not refused and isinstance(options["turn_stopping"][0], dict):
                self.stopping_agents.append(name)
        if self.agents and (seeded or self.chance(50)):
            options["seed"] = {"agent": self.agents[0]}
        elif self.chance(20):
            options["seed"] = self.seeded_log()
        if self.chance(20):
            options["parent"] = self.scope("s1")
        if self.chance(self.option("hold")):
            self.hold(options)
        self.ops.append(lp.agent(name, **options))
        (self.refused if refused else self.agents).append(name)
        self.configs[name] = config

    def option(self, name: str) -> int:
        """The chance (percent) that an agent gets option ``name`` (`AGENT_OPTIONS`)."""
        if name == "pre-step" and not self.has("loop-1.2"):
            return min(25, self.agent_options[name])
        return self.agent_options[name]

    def restarted(self, config: Json) -> Json:
        """A new instance's configuration over another agent's log: the same one, or the same
        route with its effort left out or another one (LOOP-REQUEST-BUILD: the effort restored
        for the same route unless the agent gives its own, the `resume` header)."""
        config = dict(config)
        change = self.pick(self.restarts)
        if change == "no-effort":
            config.pop("reasoningEffort", None)
        elif change == "effort":
            config["reasoningEffort"] = self.pick(["low", "max"])
        return config

    def hold(self, options: Json) -> None:
        """Make the agent's first request wait, for a gate or for the turn's abort: its stream,
        its request-error decision, its tool, its `agent/request` hook, its pre-step decision or
        its model resolution (the last four with loop-1.2), so that what a scenario sends
        meanwhile (a cancel, a message, a disposal) arrives while the turn is held: every
        await point PROMPT-CANCEL-TEST and PROMPT-STEP-BOUNDARY speak of."""
        later = self.has("loop-1.2")
        where = self.pick(
            [where for where in _names(self.holds) if later or where in ("stream", "decision")]
            or ["stream", "decision"]
        )
        if where == "stream":
            options["model"].insert(0, self.held_stream())
        elif where == "decision":
            options["model"].insert(0, lp.fails(self.pick(["SERVER", "RATE_LIMIT"])))
            action = {"action": self.pick(["retry", "end"]), "waitFor": self.wait()}
            options["request_error"].insert(0, action)
        elif where == "tool":
            options["model"].insert(0, lp.tool_call(self.fresh("c"), "t", '{"a":1}'))
            options["tools"].insert(0, {**lp.tool_result("r"), "waitFor": self.wait()})
        elif where == "hook":
            options["request"] = [{"waitFor": self.wait()}, *(options.get("request") or [])]
        elif where == "pre-step":
            decision = {"decision": "default", "waitFor": self.wait()}
            options["pre_step"] = [decision, *(options["pre_step"] or [])]
        else:
            provider = options["config"].get("provider")
            entry = options.get("adapters", {}).get(provider)
            if entry is not None:
                entry["resolve"] = {**entry.get("resolve", {}), "waitFor": self.wait()}

    def seeded_log(self) -> Json:
        """An earlier run's log (SEED as events): user messages and runtime-context messages,
        in the loop's own forms or in one no loop writes (a snapshot's text under the cleared
        marker's source: "a seed may hold ... runtime-context messages whose content no current
        loop would produce")."""
        events = []
        for _ in range(self.draw(_range(1, 3))):
            ident = self.fresh("m")
            kind = self.pick(["user", "snapshot", "cleared", "foreign"])
            if kind == "user":
                events.append(lp.user("earlier", ident))
            elif kind == "cleared":
                events.append(lp.cleared(ident))
            else:
                event = lp.snapshot(ident, ("c", self.pick(["now", "later"])))
                if kind == "foreign":
                    event["data"]["source"] = lp.cleared(ident)["data"]["source"]
                events.append(event)
        return lp.envelopes(*events)

    def tool_result(self) -> Json:
        """A TOOL_RESULT; with loop-1.2 it may wait first, or throw (the turn ends)."""
        if self.has("loop-1.2") and self.chance(10):
            return {"throws": "tool threw"}
        result = lp.tool_result("r", is_error=self.chance(20), concludes=self.chance(20))
        if self.has("loop-1.2") and self.chance(25):
            result["waitFor"] = self.wait()
        return result

    def decision(self) -> Json:
        """A pre-step DECISION; with loop-1.2 it may wait first, or throw."""
        decision = self.pick(_names(self.decisions))
        if not self.has("loop-1.2") or self.chance(60):
            return decision
        if self.chance(25):
            return {"throws": "decision threw"}
        return {"decision": decision, "waitFor": self.wait()}

    def request_hook(self) -> Json:
        """A REQUEST_HOOK of the `agent/request` waterfall (loop-1.2)."""
        kind = self.pick(["pass", "set", "set", "wait", "throws"])
        if kind == "pass":
            return "pass"
        if kind == "throws":
            return {"throws": "hook threw"}
        if kind == "wait" and self.chance(50):
            return {"waitFor": self.wait()}  # the proposal as offered, after the wait
        hook: Json = {"set": dict(self.pick(REQUEST_SETS))}
        if kind == "wait":
            hook["waitFor"] = self.wait()
        return hook

    def adapters(self) -> Json:
        """The ``adapters`` map (loop-1.2): ``scripted`` always has an adapter, ``other`` only
        sometimes (a provider without one is `NO_ADAPTER`); resolution may wait, fail, throw."""
        adapters: Json = {}
        for provider in PROVIDERS:
            if provider == "other" and self.chance(50):
                continue
            adapters[provider] = self.adapter_entry()
        return adapters

    def adapter_entry(self) -> Json:
        """An ADAPTERS_ENTRY: defaults, a context window, a resolution that may wait, fail or
        throw, and with loop-1.3 an effort set (`EFFORTS`)."""
        entry: Json = dict(self.pick(({}, *self.adapter_options)))
        if self.chance(25):
            resolve: Json = dict(self.pick(({}, *RESOLVES)))
            if self.chance(40):
                resolve["waitFor"] = self.wait()
            entry["resolve"] = resolve
        if self.has("loop-1.3") and self.chance(50):
            entry["efforts"] = list(self.pick(EFFORTS))
        return entry

    def stopping(self) -> Json:
        """A STOPPING of the `agent/turn-stopping` hook (loop-1.3): pass, or wait for a gate or
        the turn's abort, so that a cancel or a next-step message can arrive meanwhile."""
        return {"waitFor": self.wait()} if self.chance(70) else "pass"

    def register_adapter(self) -> None:
        """1.3: an adapter registered for a live agent created with ``adapters``, for a provider
        that has none yet (PROTOCOL.md: "A provider that has an adapter is not given one
        again"); the agent's later resolutions use it."""
        if not self.has("loop-1.3"):
            return
        open_ = [
            (agent, provider)
            for agent in self.live_agents()
            for provider in PROVIDERS
            if provider not in self.adapter_maps.get(agent, PROVIDERS)
        ]
        if open_:
            agent, provider = self.pick(open_)
            if self.chance(50):  # a turn that resolves without it first
                self.ops.append(lp.followup(agent, "before"))
            self.adapter_maps[agent].add(provider)
            self.ops.append(lp.register_adapter(agent, provider, self.adapter_entry()))
            if self.chance(70):  # and one that resolves with it
                self.ops.append(lp.followup(agent, "after"))

    def stopping_round(self) -> None:
        """1.3: a turn of an agent whose first turn-stopping hook waits, and while it waits a
        cancel or a next-step message (PROTOCOL.md: "checks cancellation ... then ends unless a
        next-step message now waits"), then the gates opened."""
        live = [agent for agent in self.stopping_agents if agent in self.live_agents()]
        if not live:
            return
        agent = self.pick(live)
        self.ops.append(lp.followup(agent, "go"))
        meanwhile = self.pick(["cancel", "steer", "inject", "none"])
        if meanwhile == "cancel":
            self.ops.append(lp.cancel(agent, self.pick(CAUSES)))
        elif meanwhile == "steer" or (meanwhile == "inject" and not self.has("loop-1.2")):
            self.ops.append(lp.steer(agent, "meanwhile"))
        elif meanwhile == "inject":
            self.ops.append(lp.inject(agent, "meanwhile"))
        for gate in list(self.closed_gates):
            if self.chance(80):
                self.closed_gates.remove(gate)
                self.ops.append(s.open_gate(gate))

    def reply(self) -> Json:
        kind = self.pick(_names(self.reply_kinds))
        if kind == "answer":
            return lp.answer(self.pick(["hi", "ok"]))
        if kind == "usage":
            return lp.answer("u", usage={"inputTokens": 3, "outputTokens": 1})
        if kind == "call":
            return lp.tool_call(self.fresh("c"), self.pick(TOOL_NAMES[:2]), '{"a":1}')
        if kind == "fails":
            return lp.fails(self.pick(["SERVER", "RATE_LIMIT"]))
        if kind == "partial":
            return self.held_stream()
        if kind == "silent":  # no chunk, no failure: an empty `assistant/message` (ROOT-MODEL)
            return {"chunks": []}
        answer = lp.answer("cut")
        answer["chunks"][-1] = {"type": "finish", "reason": {"kind": "max-tokens"}}
        return answer

    def held_stream(self) -> Json:
        """A REPLY that streams one or two text or reasoning blocks (each in one or two deltas,
        blank ones included, the first maybe ended, maybe a usage chunk) and then waits for the
        abort or a gate: what a cancel meanwhile interrupts (PROMPT-RETRY-BOUNDARY)."""
        chunks: list[Json] = []
        count = self.between(1, 2)
        for index in range(count):
            kind = self.pick(["text", "reasoning"])
            chunks.append({"type": "block-start", "index": index, "blockType": kind})
            texts = [self.pick(["par", " ", "lo"]) for _ in range(self.between(1, 2))]
            chunks += [{"type": f"{kind}-delta", "index": index, "text": t} for t in texts]
            if index < count - 1:
                block = {"type": kind, "text": "".join(texts)}
                chunks.append({"type": "block-end", "index": index, "block": block})
        if self.chance(25):
            chunks.append({"type": "usage", "usage": {"inputTokens": 3, "outputTokens": 1}})
        return {"chunks": chunks, "waitFor": self.wait()}

    def held_round(self) -> None:
        """A turn and, while it waits, one to three cancels, messages, counts or an owner
        disposal (after which only counts: `AVOIDED`); then gates opened, and a follow-up for
        the next turn, queued while the turn still waits or sent once it may have ended
        (PROMPT-CANCEL-TEST, PROMPT-STEP-BOUNDARY). The turn waits at a listener in the agent's
        scope that waits for a gate of its own, registered first and opened after the round's
        messages, so that what the round sends arrives while a turn runs, not after it has
        ended (and at whatever else may wait: a held first request, a stream, a decision, a
        tool, a hook). Neither the listener nor where the follow-up goes is a draw of its own:
        the round's draws are those of a round without them (and a shrunk case that does not
        need them loses them in `conformance.fuzz.found.reduced`)."""
        live = self.live_agents()
        if not live:
            return
        agent = self.pick(live)
        gate = self.fresh("g")
        holding = {"id": self.fresh("l"), "waitFor": {"gate": gate}}
        self.ops.append(s.listen(self.fresh("h"), holding, scope=agent))
        self.ops.append(lp.followup(agent, "go"))
        for _ in range(self.between(1, 3)):
            meanwhile = self.pick(_names(self.meanwhile))
            if agent in self.disposed and meanwhile != "counts":
                break
            if meanwhile == "cancel":
                self.ops.append(lp.cancel(agent, self.pick(CAUSES)))
            elif meanwhile in ("followup", "steer"):
                message = lp.followup if meanwhile == "followup" else lp.steer
                self.ops.append(message(agent, "meanwhile"))
            elif meanwhile == "inject" and self.has("loop-1.2"):
                self.ops.append(lp.inject(agent, "meanwhile"))
            elif meanwhile == "dispose":
                self.ops.append(lp.dispose(agent))
                self.disposed.add(agent)
                if self.chance(50):  # what the disposal released while the turn may wait
                    self.ops.append(s.counts())
            else:
                self.ops.append(s.counts())
        holding_opens = len(self.ops)
        self.ops.append(s.open_gate(gate))
        for closed in list(self.closed_gates):
            if self.chance(80):
                self.closed_gates.remove(closed)
                self.ops.append(s.open_gate(closed))
        if agent not in self.disposed:
            # The next turn: asked for once the round's gates are open, or else queued while
            # the listener still holds the turn (the driver goes on to it).
            after = self.chance(50)
            at = len(self.ops) if after else holding_opens
            self.ops.insert(at, lp.followup(agent, "next"))

    def hook_calls(self) -> None:
        """1.2: what the agent's hooks were asked, for an agent without an ``adapters`` map:
        every failure its request-error decisions see is then a scripted one, never a
        `NO_ADAPTER` failure, whose message is the implementation's own (`AVOIDED`); and only
        when no request goes beyond the script (the same for `SCRIPT_EXHAUSTED`)."""
        plain = [agent for agent in self.agents if agent not in self.adapter_maps]
        if plain and self.has("loop-1.2") and self.padded:
            self.ops.append({"op": "hook-calls", "agent": self.pick(plain)})

    def message(self) -> None:
        live = self.live_agents()
        if live:
            builder = lp.followup if self.chance(60) else lp.steer
            if self.has("loop-1.2") and self.chance(15):
                builder = lp.inject
            self.ops.append(builder(self.pick(live), self.pick(["hello", "more", "2+2?"])))

    def request_state(self) -> None:
        """1.2: the header in force and the last `request/context`."""
        if self.agents and self.has("loop-1.2"):
            self.ops.append({"op": "request-state", "agent": self.pick(self.agents)})

    def cancel(self) -> None:
        live = self.live_agents()
        if live:
            self.ops.append(lp.cancel(self.pick(live), self.pick(CAUSES)))

    def dispose_agent(self) -> None:
        live = self.live_agents()
        if live:
            name = self.pick(live)
            self.ops.append(lp.dispose(name))
            self.disposed.add(name)

    def compact(self) -> None:
        live = self.live_agents()
        if live:
            start = self.draw(_range(0, 4))
            end = start + self.draw(_range(0, 2))
            self.ops.append(lp.compact(self.pick(live), start, end))

    def agent_listener(self) -> None:
        live = self.live_agents()
        if live:
            # Mostly one that holds the turn; with loop-1.2 sometimes one that does not wait,
            # seen at once by an `assemble` op in the agent's scope outside a turn (a listener
            # that fails rejects it with the scripted failure, PROMPT-ASSEMBLY-PIPELINE; inside a
            # turn any throw ends the turn `UNKNOWN` alike). No render follows: the assembly may
            # be rejected, and a render of none is a scenario the reference cannot run.
            agent = self.pick(live)
            waits = not (self.has("loop-1.2") and self.chance(20))
            self.listen(scope=agent, gated=waits)
            if not waits:
                self.ops.append(s.assemble(self.fresh("as"), scope=agent))

    def new_instance(self) -> None:
        """A second agent seeded with the first one's log once that has run a turn, and a turn
        of its own: a new loop instance over an existing log (LOOP-REQUEST-BUILD's restores,
        `request/context`, the `resume` header)."""
        ran = any(op["op"] in ("followup", "steer") for op in self.ops)
        if self.agents and ran and len(self.agents) + len(self.refused) < len(AGENTS):
            self.agent(seeded=True)
            if self.agents[-1] != self.agents[0]:
                self.ops.append(lp.followup(self.agents[-1], "again"))

    def observe(self) -> None:
        if self.agents:
            self.ops.append(lp.observe(self.pick(self.agents)))

    LOOP_STEPS: Final[tuple[tuple[int, str], ...]] = (
        (3, "agent"),
        (6, "message"),
        (2, "cancel"),
        (1, "dispose_agent"),
        (1, "compact"),
        (2, "agent_listener"),
        (2, "new_instance"),
        (3, "open_gate"),
        (3, "context"),
        (2, "release_context"),
        (2, "section"),
        (1, "tools"),
        (2, "release_step"),
        (1, "variable"),
        (1, "observe"),
        (1, "request_state"),
        (1, "counts"),
        (1, "received"),
        (2, "assemble"),
        (1, "await_or_abort"),
        (2, "register_adapter"),
        (2, "stopping_round"),
        (3, "held_round"),
        (1, "hook_calls"),
    )

    def swarm(self) -> None:
        """Swarm testing (Groce et al., "Swarm Testing", ISSTA 2012) for the loop family: this
        scenario draws its steps, its replies, its pre-step decisions, where its agents are held,
        what its held rounds send, its agents' call configurations and adapters, and how a new
        instance's configuration differs, each from a part of its table only (every entry kept
        or left out with even odds), and switches each agent option (`AGENT_OPTIONS`) and failing
        listeners on (for most) or off (for none), so that a combination of kinds that are each
        rare comes up often in some scenarios instead of seldom in all of them."""
        self.loop_steps = self.part(self.LOOP_STEPS)
        self.reply_kinds = self.part(REPLY_KINDS)
        self.decisions = self.part(DECISIONS)
        self.holds = self.part(HOLDS)
        self.meanwhile = self.part(MEANWHILE)
        self.call_configs = self.part(CALL_CONFIGS)
        self.adapter_options = self.part(ADAPTERS)
        self.restarts = self.part(RESTARTS)
        # Each agent option on for most agents, or for none; listeners that fail, for many.
        for name in self.agent_options:
            self.agent_options[name] = 80 if self.chance(50) else 0
        self.listener_failures = 40 if self.chance(50) else 0

    def part(self, table: tuple[Entry, ...]) -> tuple[Entry, ...]:
        """The entries of ``table`` kept with even odds (the whole table if none is); shrinks
        towards the whole table."""
        return tuple(entry for entry in table if not self.chance(50)) or table

    def steps(self, table: tuple[tuple[int, str], ...], most: int, retries: int = 0) -> None:
        """Draw up to ``most`` steps from ``table`` (name by weight); a step that wrote no op
        (nothing for it to act on yet) is drawn again up to ``retries`` times, so that a
        scenario's steps are mostly ones that do something."""
        names = _names(table)
        for _ in range(self.draw(_range(1, most))):
            for _attempt in range(1 + retries):
                before = len(self.ops)
                step: Callable[[], None] = getattr(self, self.pick(names))
                step()
                if len(self.ops) > before:
                    break


def _chain(scope: str | None) -> list[str | None]:
    """A registry scope's chain, global first (`_Builder.scope`: ``s2``'s parent is ``s1``)."""
    if scope is None:
        return [None]
    return [None, *(["s1"] if scope == "s2" else []), scope]


def _placed(op: Json) -> str | None:
    """Where a live op of the builder sits: a registration's layer, a listener's scope."""
    placed: str | None = op.get("layer", op.get("scope"))
    return placed


def _is_call(reply: Json) -> bool:
    return any(chunk.get("blockType") == "tool-call" for chunk in reply["chunks"])


class _Session:
    """The session family: the builder tracks seqs and the surface, since every append it
    makes is either valid or breaks exactly one rule (`AVOIDED`)."""

    STEPS: Final = (
        "seed",
        "seed",
        "refused_seed",
        "refused_seed",
        "refused_seed",
        "refused_seed",
        "user",
        "user",
        "snapshot",
        "snapshot",
        "header",
        "replace",
        "note",
        "tool",
        "tool",
        "tool_replace",
        "invalid",
        "invalid",
        "start_projection",
        "project",
        "project",
        "project",
        "observe",
        "canonical",
        "equal",
        "equal",
    )

    def __init__(self, builder: _Builder) -> None:
        self.builder = builder
        self.seq = 0
        self.surface: list[int] = []
        #: The data of each `tool/result` by seq: what a replacement of it must keep.
        self.tools: dict[int, Json] = {}
        self.projecting = False
        #: The runtime context last snapshotted or projected: projecting it again is the
        #: unchanged context, which proposes nothing unless the retained snapshot was forgotten.
        self.context: list[Json] = []

    def append(self, op: Json, *, on_surface: bool = True) -> None:
        self.builder.ops.append(op)
        if on_surface:
            self.surface.append(self.seq)
        self.seq += 1

    def user(self) -> None:
        data = s.user_message(self.builder.fresh("m"), self.builder.pick(["hi", "yo"]))
        inject = None
        if self.builder.has("session-1.2") and self.builder.chance(15):
            inject = [s.inject(["sourceEventSeqs"], "undefined")]  # the option not given
        op = s.session_append("user/message", data, surface_op="append", inject=inject)
        self.append(op)

    def refused_seed(self) -> None:
        """A seed with one malformed event: nothing changes, so a scenario may try many."""
        self.seed(refused=True)

    def seed(self, *, refused: bool = False) -> None:
        """A `session-seed`: well-formed (the session is replaced, the projection dropped), or
        with one malformed event (nothing changes). The defect is drawn first (`SEED_DEFECTS`),
        then a seed with an event it applies to, so that each rule ROOT-MODEL checks a seed
        against comes up as often as any other. The defects of session-1.2 are drawn only under
        it, and only there may the malformed event also break a rule checked later (`AVOIDED`:
        never two defects checked at the same stage)."""
        pick, chance = self.builder.pick, self.builder.chance
        later = self.builder.has("session-1.2")
        kinds = ["user", "turn", "note", "end", "header", "user"]
        if later:
            kinds += ["assistant", "tool", "replace"]
        count = self.builder.draw(_range(1 if refused else 0, 4))
        defect, at, fits = None, -1, None
        if count and (refused or chance(40)):
            defect = pick(name for name in SEED_DEFECTS if later or name in SEED_DEFECTS_1_1)
            fits = SEED_DEFECTS[defect]
            if defect == "cites":
                # A replace of a user message, after another event it may wrongly cite.
                count = max(count, 3)
                at = self.builder.between(2, count - 1)
            else:
                at = pick(range(count))
        events: list[Json] = []
        surface: list[int] = []
        users: set[int] = set()
        for seq in range(count):
            if seq == at and fits:
                kind = pick(fits)
            else:
                kind = "user" if defect == "cites" and seq == at - 1 else pick(kinds)
            events.append(self._seeded(kind, seq, surface, users))
        malformed = defect is not None and self._malform(events, at, defect)
        self.builder.ops.append(s.session_seed(events))
        if malformed:
            return
        self.seq = len(events)
        if not events or events[-1]["type"] != "session/end-seed":
            self.seq += 1
        self.surface = surface
        self.tools = {seq: e["data"] for seq, e in enumerate(events) if e["type"] == "tool/result"}
        self.projecting = False

    def _seeded(self, kind: str, seq: int, surface: list[int], users: set[int]) -> Json:
        """A well-formed seeded event of ``kind`` at ``seq``, given the surface and the user
        messages of the events before it (both updated)."""
        pick, fresh = self.builder.pick, self.builder.fresh
        event: Json = {"seq": seq, "time": pick([1_700_000_000_000 + seq, 0, -1, 2**53 - 1])}
        if kind == "replace" and surface and surface[-1] in users:
            # A summary of the last surface node, a user message, citing it: well-formed.
            data = s.user_message(fresh("m"), "summary")
            event.update(type="user/message", data=data, sourceEventSeqs=[surface[-1]])
            event["surfaceOp"] = {"op": "replace", "start": surface[-1], "end": surface[-1]}
            surface[-1] = seq
        elif kind in ("user", "replace"):
            data = s.user_message(fresh("m"), "seeded")
            event.update(type="user/message", data=data, surfaceOp="append")
        elif kind == "assistant":
            data = s.assistant_message(fresh("m"), {"type": "text", "text": "a"})
            event.update(type="assistant/message", data=data, surfaceOp="append")
        elif kind == "tool":
            data = s.tool_result(fresh("m"), "c1", "out")
            event.update(type="tool/result", data=data, surfaceOp="append")
        elif kind == "turn":
            event.update(type="turn/start", data={"turn": 1})
        elif kind == "note":
            event.update(type="x/note", data={"a": 1})
            if self.builder.chance(50):
                event["ignorable"] = True
        elif kind == "end":
            event.update(type="session/end-seed", data={})
        else:
            header = {"config": dict(pick(CALL_CONFIGS[:2])), "system": "S"}
            event.update(type="request/header", data={"header": header, "reason": "initial"})
        if event.get("surfaceOp") == "append":
            surface.append(seq)
        if event["type"] == "user/message":
            users.add(seq)
        return event

    def _malform(self, events: list[Json], index: int, defect: str) -> bool:
        """Break ``events[index]`` by ``defect``; False if it does not apply to it."""
        pick, chance = self.builder.pick, self.builder.chance
        event = events[index]
        message = event["type"] in MESSAGE_TYPES
        if defect == "seq":
            # 2^53 - 1 is a well-formed seq (ROOT-MODEL: "an integer in 0..2^53 - 1"), not its
            # index: `seq-not-contiguous`.
            event["seq"] = pick([event["seq"] + 1, 2**53 - 1])
        elif defect == "legacy":
            # Well-formed: a malformed fallback header is `session-event-invalid` (ROOT-MODEL).
            header = {"config": dict(lp.CONFIG)}
            event.update(type="request/header", data={"header": header, "reason": "fallback"})
            event.pop("surfaceOp", None)
            event.pop("sourceEventSeqs", None)
            if chance(30):  # checked before the seq: still `session-legacy-header`
                event["seq"] += 1
        elif defect == "required":
            del event["surfaceOp"]
            event.pop("sourceEventSeqs", None)
        elif defect == "not-object":
            events[index] = pick([1, "user/message", [], None])
        elif defect == "cites":
            # A replace citing another earlier seq than the one it shadows, every other rule
            # kept: `source-seqs-invalid`, a surface rule.
            if len(event.get("sourceEventSeqs", ())) != 1:
                return False
            shadowed = event["sourceEventSeqs"][0]
            others = [seq for seq in range(event["seq"]) if seq != shadowed]
            if not others:
                return False
            event["sourceEventSeqs"] = [pick(others)]
        else:
            touched = self._malform_1_2(defect, event)
            # The order of the checks is fixed for a seed: this defect is named first. (Most
            # of all -0's: `session-non-json` is checked before anything else.)
            if chance(75 if defect.startswith("-0") else 50) and "seq" not in touched:
                if message and "surfaceOp" in event and "surfaceOp" not in touched and chance(50):
                    del event["surfaceOp"]
                    event.pop("sourceEventSeqs", None)
                else:
                    event["seq"] += 1
        return True

    def _malform_1_2(self, defect: str, event: Json) -> tuple[str, ...]:
        """A `session-event-invalid` or `session-non-json` defect (session-1.2); the envelope
        fields it is in."""
        pick = self.builder.pick
        if defect == "extra":
            event["extra"] = 1
        elif defect == "type":
            event["type"] = 1
        elif defect == "bad-seq":
            event["seq"] = pick(["0", 0.5, -1])
            return ("seq",)
        elif defect == "time":
            event["time"] = pick([1.5, 2**53, -(2**53)])
        elif defect == "no-time":
            del event["time"]
        elif defect == "no-data":
            del event["data"]
        elif defect == "ignorable":
            event["ignorable"] = pick([False, None, 1])
        elif defect == "null":
            # "an absent optional field is omitted, never `null`" (ROOT-MODEL)
            field = "sourceEventSeqs" if "surfaceOp" in event else "surfaceOp"
            event[field] = None
            return ("surfaceOp", "sourceEventSeqs")
        elif defect == "payload":
            event["data"] = pick(["x", 1, []])
        elif defect.startswith("-0 in "):
            # "numbers are ... never negative zero" (ROOT-MODEL): `session-non-json`, checked
            # first, whatever else the field breaks.
            field = defect.removeprefix("-0 in ")
            if field == "data":
                event["data"]["v"] = -0.0
                return ()
            zero = {"op": "replace", "start": -0.0, "end": -0.0} if field == "surfaceOp" else [-0.0]
            event[field] = zero
            return ("surfaceOp", "sourceEventSeqs")
        elif defect in MESSAGE_DEFECTS:
            self._malform_message(event, defect)
        else:
            self._malform_header(event, defect)
        return ()

    def _malform_message(self, event: Json, defect: str) -> None:
        """A message (the `data` of a `user/message`, else `data.message`) broken by one rule,
        its source included: the right kind without its fields, or its fields under another
        kind (ROOT-MODEL)."""
        user = event["type"] == "user/message"
        assistant = event["type"] == "assistant/message"
        message = dict(event["data"] if user else event["data"]["message"])
        if defect == "id":
            message["id"] = ""
        elif defect == "role":
            message["role"] = "user" if assistant else "assistant"
        elif defect == "no-kind":
            message["source"] = {"kind": ""}
        elif defect == "content":
            message["content"] = "x"
        elif defect == "kind-only" and assistant:
            message["source"] = {"kind": "model"}
        elif defect == "kind-only":  # the right kind, an empty callId, named by the block too
            message["source"] = {"kind": "tool", "callId": ""}
            message["content"] = [{**message["content"][0], "toolCallId": ""}]
        elif assistant:  # the fields under another kind
            message["source"] = {"kind": "plugin", "provider": "deepseek", "model": "deepseek-chat"}
        else:
            message["source"] = {"kind": "plugin", "callId": "c1"}
        event["data"] = message if user else {**event["data"], "message": message}

    def _malform_header(self, event: Json, defect: str) -> None:
        """A `request/header` broken by one rule of ROOT-MODEL's (PROMPT-HEADER-CANONICAL's
        `adapterDefaults` included)."""
        config = dict(event["data"]["header"]["config"])
        header: Json = {"config": config}
        if defect == "provider":
            del config["provider"]
        elif defect == "model":
            config["model"] = ""
        elif defect == "effort":
            config["reasoningEffort"] = ""
        elif defect == "defaults":
            header["adapterDefaults"] = {"maxTokens": True}
        elif defect == "header-not-object":
            header = "x"
        elif defect == "config":
            header["config"] = "x"
        elif defect == "marker":
            config["temperature"] = 0.5
            header["adapterDefaults"] = {"temperature": True}
        else:
            header["adapterDefaults"] = []
        event["data"] = {"header": header, "reason": "initial"}

    def sections(self) -> list[Json]:
        pool = [s.entry("c", "now"), s.entry("c", "later"), s.entry("d", "")]
        return [entry for entry in pool if self.builder.chance(50)]

    def snapshot(self) -> None:
        sections = self.context = [entry for entry in self.sections() if entry["text"]]
        if not sections:
            data = s.user_message(self.builder.fresh("m"), s.RUNTIME_CONTEXT_CLEARED)
            data["source"] = s.snapshot_source()
        else:
            text = s.snapshot_text(*(entry["text"] for entry in sections))
            data = s.user_message(self.builder.fresh("m"), text)
            data["source"] = s.snapshot_source(*sections)
        self.append(s.session_append("user/message", data, surface_op="append"))

    def header(self) -> None:
        data = {"header": self.header_value(), "reason": self.builder.pick(["initial", "change"])}
        inject = None
        if self.builder.has("session-1.2") and self.builder.chance(15):
            inject = [s.inject(["surfaceOp"], "undefined")]  # the option not given: allowed
        self.append(s.session_append("request/header", data, inject=inject), on_surface=False)

    def header_value(self) -> Json:
        pick, chance = self.builder.pick, self.builder.chance
        config = dict(pick(CALL_CONFIGS))
        if chance(30):
            config = dict(reversed(list(config.items())))
        value: Json = {"config": config}
        if chance(40):
            value["system"] = pick(["", "S"])
        if chance(40):
            tools = [[], [s.schema("t", "", _parameters(1))], [NUMBERED_TOOL], [NUMBERED_TOOL]]
            value["tools"] = pick(tools)
        if chance(20) and "reasoningEffort" in config:
            value["adapterDefaults"] = {"reasoningEffort": True}
        return value

    def replace(self) -> None:
        """A summary patched one to three consecutive surface nodes, citing each of them."""
        if not self.surface:
            return
        first = self.builder.draw(_range(0, len(self.surface) - 1))
        last = min(len(self.surface) - 1, first + self.builder.draw(_range(0, 2)))
        if self.builder.chance(30):  # everything from ``first`` on, as a compaction does
            last = len(self.surface) - 1
        shadowed = self.surface[first : last + 1]
        data = s.user_message(self.builder.fresh("m"), "summary")
        data["source"] = {"kind": "plugin", "plugin": "compactor"}
        surface_op = {"op": "replace", "start": shadowed[0], "end": shadowed[-1]}
        op = s.session_append("user/message", data, surface_op=surface_op, source_seqs=shadowed)
        self.builder.ops.append(op)
        self.surface[first : last + 1] = [self.seq]
        self.seq += 1
        if self.projecting and self.builder.chance(50):
            # The next step's projection, its context unchanged, as a loop projects after a
            # compaction (LOOP-RUNTIME-CONTEXT: a replace citing the retained seq forgets it).
            self.builder.ops.append(s.project(self.context))

    def invalid(self) -> None:
        """An append that breaks exactly one rule: nothing changes."""
        data = s.user_message(self.builder.fresh("m"), "bad")
        kinds = ["required", "forbidden", "legacy", "nonjson", "range", "cites"]
        kind = self.builder.pick(kinds + (["absent"] if self.builder.has("session-1.2") else []))
        if kind == "required":
            op = s.session_append("user/message", data)
        elif kind == "absent":  # an option given as `undefined` is not given: still required
            inject = [s.inject(["surfaceOp"], "undefined")]
            op = s.session_append("user/message", data, surface_op="append", inject=inject)
        elif kind == "forbidden":
            header = {"header": {"config": dict(lp.CONFIG)}, "reason": "initial"}
            op = s.session_append("request/header", header, surface_op="append")
        elif kind == "legacy":
            op = s.session_append("request/header", {"header": {}, "reason": "fallback"})
        elif kind == "nonjson":
            inject = [s.inject(["data", "extra"], self.builder.pick(["NaN", "-0", "undefined"]))]
            op = s.session_append("user/message", data, surface_op="append", inject=inject)
        elif kind == "range":
            surface_op = {"op": "replace", "start": self.seq + 5, "end": self.seq + 5}
            op = s.session_append("user/message", data, surface_op=surface_op, source_seqs=[0])
        else:
            if len(self.surface) < 2:
                return
            start, end = self.surface[-2], self.surface[-1]
            surface_op = {"op": "replace", "start": start, "end": end}
            op = s.session_append("user/message", data, surface_op=surface_op, source_seqs=[end])
        self.builder.ops.append(op)

    def start_projection(self) -> None:
        self.builder.ops.append(s.projection_start())
        self.projecting = True

    def project(self) -> None:
        if not self.projecting:
            self.start_projection()
        if self.builder.chance(20):
            self.context = []  # the context emptied: the cleared marker, unless retained
        elif not self.builder.chance(50):
            self.context = [e for e in self.sections() if e["text"]]
        self.builder.ops.append(s.project(self.context))

    def note(self) -> None:
        """An event outside the core vocabulary (passed through unchecked) whose data holds
        numbers: `0.0` and negative numbers, integral or not, are lossless JSON (ROOT-MODEL's
        `session-non-json` refuses only NaN, the infinities and -0)."""
        numbers = (0, 0.0, -1.5, -2, 0.25, -0.25)
        data = {"n": self.builder.pick(numbers), "list": [self.builder.pick(numbers)]}
        self.append(s.session_append("x-plugin/note", data), on_surface=False)

    def tool(self) -> None:
        """A `tool/result` on the surface, whose `meta` may hold an empty object or an empty
        list (a replacement must keep it: `tool-result-replace-invalid`)."""
        meta = self.builder.pick([None, {"tags": {}}, {}, {"tags": []}])
        extra = {} if meta is None else {"meta": meta}
        data = s.tool_result(self.builder.fresh("m"), "c1", "out", **extra)
        self.tools[self.seq] = data
        self.append(s.session_append("tool/result", data, surface_op="append"))

    def tool_replace(self) -> None:
        """A `tool/result` patched one on the surface with its block's content cut (allowed),
        or with one more field changed (ROOT-MODEL: `tool-result-replace-invalid`, nothing
        changes), an empty object and an empty array included."""
        shadowed = [seq for seq in self.surface if seq in self.tools]
        if not shadowed:
            return
        seq = self.builder.pick(shadowed)
        data = copy.deepcopy(self.tools[seq])
        block = data["message"]["content"][0]
        block["content"] = [{"type": "text", "text": "cut"}]
        change = self.builder.pick([None, "meta", "meta", "turn", "isError"])
        if change == "meta":
            data["meta"] = _swapped(data.get("meta", {}))
        elif change == "turn":
            data["turn"] += 1
        elif change == "isError":
            block["isError"] = True
        surface_op = {"op": "replace", "start": seq, "end": seq}
        op = s.session_append("tool/result", data, surface_op=surface_op, source_seqs=[seq])
        self.builder.ops.append(op)
        if change is None:
            self.surface[self.surface.index(seq)] = self.seq
            self.tools[self.seq] = data
            self.seq += 1

    def observe(self) -> None:
        self.builder.ops.append(self.builder.pick([s.session_messages(), s.session_header()]))

    def canonical(self) -> None:
        self.builder.ops.append(s.header_canonical(self.header_value()))

    def equal(self) -> None:
        a = self.header_value()
        b = dict(a) if self.builder.chance(50) else self.header_value()
        if self.builder.chance(50):
            b["config"] = {**b["config"], "stop": []}
        if "tools" in b and self.builder.chance(50):
            # The same numbers written `1.0`: PROMPT-HEADER-CANONICAL compares each pair of
            # schemas by the JSON it serializes to, where a number is written by its value.
            b["tools"] = _respelled(b["tools"])
        self.builder.ops.append(s.header_equal(a, b))


def _swapped(value: Json) -> Json:
    """``value`` with each empty object an empty array and each empty array an empty object:
    the same keys (none), another JSON value."""
    if value == {} or value == []:
        return [] if isinstance(value, dict) else {}
    if isinstance(value, dict):
        return {key: _swapped(item) for key, item in value.items()}
    return value


def _respelled(value: Json) -> Json:
    """``value`` with each integer written as a float (``1`` as ``1.0``): the same JSON value."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, dict):
        return {key: _respelled(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_respelled(item) for item in value]
    return value


_FOLLOWS: Final = st.lists(st.sampled_from(["render", "context", "mutate", "received"]), max_size=3)
FAMILIES: Final = ("registry", "session", "loop", "wire", "http")
#: The capabilities each family's ops need.
REQUIRES: Final[dict[str, tuple[str, ...]]] = {
    "registry": ("registry", "registry-1.1"),
    "session": ("session",),
    "loop": ("registry", "registry-1.1", "loop"),
    "wire": ("deepseek-wire",),
    "http": ("deepseek-http",),
}


@st.composite
def _family(draw: st.DrawFn, family: str, capabilities: frozenset[str]) -> list[Json]:
    builder = _Builder(draw, capabilities)
    builder.registry_edits = family == "registry"
    if family in ("registry", "loop") and builder.chance(20):
        builder.configure()
    if family == "registry":
        if builder.config.get("includeHarnessIdentity", True):
            # The configuration's identity section holds its name in the global layer
            # (PROMPT-REGISTRY-CONTRACT: an ordinary section): registering it there is refused.
            builder.names[None, "sections", s.IDENTITY_NAME] = ""
        if builder.chance(30):
            # Swarm: a scenario whose texts all render (well-formed references to the variables
            # it registers first), so that renders get past the malformed ones.
            builder.texts, builder.values = RENDERED_TEXTS, RENDERED_VALUES
            builder.variable()
            builder.variable()
        if builder.chance(25):
            # Swarm: most providers edit the registry (register or release) when an assembly
            # first evaluates them, so that a scenario holds several mid-assembly edits.
            builder.effects = 70
        builder.steps(_Builder.REGISTRY_STEPS, 14)
        builder.finish()
    elif family == "session":
        builder.session_steps()
    elif family == "wire":
        wire_steps(builder)
    elif family == "http":
        http_steps(builder)
    else:
        builder.texts = LOOP_TEXTS
        # Most scripts get a text answer for every request the scenario can make; the rest
        # may run beyond their replies (`SCRIPT_EXHAUSTED`, LOOP-REQUEST-ERROR-TEST).
        builder.padded = not builder.chance(10)
        if builder.chance(50):
            builder.swarm()
        builder.agent()
        builder.steps(builder.loop_steps, 12, retries=2)
        # Every gate still closed that something waits for opens before the agents are
        # observed: a turn held on one goes on as its scripts say (a later step's decision, a
        # queued follow-up's turn).
        waited = _waited_gates(builder.ops)
        builder.ops += [s.open_gate(gate) for gate in builder.closed_gates if gate in waited]
        builder.ops += [lp.observe(agent) for agent in builder.agents]
        if builder.chance(30):  # and what one agent's hooks were asked
            builder.hook_calls()
        if builder.padded:
            _pad_scripts(builder.ops)
    return [_without_expect(op) for op in builder.ops]


def _waited_gates(value: Json) -> set[str]:
    """The gates some WAIT in ``value`` names (``{"waitFor": {"gate": ...}}``, at any depth): a
    gate drawn for a script the scenario does not use (a shrunk one) is not opened."""
    if isinstance(value, list):
        return {gate for item in value for gate in _waited_gates(item)}
    if not isinstance(value, dict):
        return set()
    wait = value.get("waitFor")
    named = {wait["gate"]} if isinstance(wait, dict) and "gate" in wait else set()
    return named.union(*(_waited_gates(item) for item in value.values()))


def _pad_scripts(ops: list[Json]) -> None:
    """Give each agent a text answer for every request its scenario can make beyond its drawn
    replies (one per turn or step a message opens, tool-call step and retry), so that no
    request goes beyond the script: most scenarios' turns then answer instead of failing."""
    for op in ops:
        if op["op"] != "agent":
            continue
        name = op["agent"]
        turns = 1 + sum(
            1 for o in ops if o.get("agent") == name and o["op"] in ("followup", "steer", "inject")
        )
        calls = sum(1 for reply in op["model"] if _is_call(reply))
        most = turns + calls + len(op.get("requestError", []))
        op["model"] = op["model"] + [lp.answer("done")] * max(0, most - len(op["model"]))


def _without_expect(op: Json) -> Json:
    return {key: value for key, value in op.items() if key != "expect"}


def scenarios(
    families: tuple[str, ...] = FAMILIES, capabilities: frozenset[str] = frozenset()
) -> st.SearchStrategy[tuple[str, list[Json]]]:
    """``(family, ops)`` drawn from the given families; the ops of a 1.2 capability (`EXTENDS`)
    only if it is in ``capabilities`` (what both implementations declare)."""
    return st.one_of(
        *(
            _family(family, capabilities).map(functools.partial(_labelled, family))
            for family in families
        )
    )


def _labelled(family: str, ops: list[Json]) -> tuple[str, list[Json]]:
    return family, ops
