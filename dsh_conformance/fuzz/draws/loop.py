"""The ``loop`` family's draws: agents over the shared registry, and what they are sent.

Up to two agents over the shared registry, with scripted replies (answers, tool calls, failures,
streams cut off or waiting for the abort), tool results, pre-step and request-error decisions (some
waiting on gates), follow-ups, steers, cancels and disposals at every point the protocol can hold a
turn (a gated listener, a waiting stream, a waiting decision), edits of the agent's layer between
turns (runtime context, sections, tools: the registry steps of
`dsh_conformance.fuzz.draws.registry`), compaction, and a second agent seeded with the first one's
log (a new loop instance over it); with
``loop-1.2``, the ``agent/request`` waterfall (route and field changes, waits, throws), pre-step
decisions and request-error actions that wait or throw, tools that wait or throw, listeners that
fail, the ``adapters`` map (defaults, context windows, resolutions that wait, fail or throw, a
provider with no adapter), refused agents (``maxTokens``), ``inject`` and ``request-state``; with
``loop-1.3``, the ``agent/turn-stopping`` hook (passing, or waiting while a cancel or a message
arrives), adapters' effort sets (``efforts``) and adapters registered after the agent exists
(``register-adapter``, for a provider its map does not have yet). A new instance over the first
agent's log keeps its configuration, leaves its effort out, gives another one, or takes another
route with no effort (`LoopBuilder.restarted`: what a route change carries over). About a third of
the agents hold their first request somewhere (`LoopBuilder.hold`: a stream, a decision, a tool, a
hook, a resolution); held rounds send cancels, messages or a disposal while a turn waits at a
listener the round registers in the agent's scope, then the next turn's follow-up (queued meanwhile,
or sent after); with loop-1.2, route-less agents and ``hook-calls``; one scenario in ten runs beyond
its scripts.

A held round's disposal may be followed by ``counts`` (what it released while the turn waits); a
listener in an agent's scope that does not wait is seen at once by an ``assemble`` op there, outside
a turn; every gate something still waits for opens at the end, before the agents are observed; and
with loop-1.2 one scenario in three ends with one agent's ``hook-calls``. About half of the loop
scenarios are a swarm's (`LoopBuilder.swarm`, Groce et al. 2012): each draws its steps, replies,
pre-step decisions, holds, what its held rounds send, its call configurations, adapters and new
instances' restarts from a part of each table, and switches each agent option (`AGENT_OPTIONS`: pre-
step decisions, request hooks, ``adapters``, turn-stopping hooks, holds) and failing listeners on
(for most agents) or off.
"""

from __future__ import annotations

from typing import Final, TypeVar

from hypothesis import strategies as st

from ...scenarios import loopscenario as lp
from ...scenarios import scenario as s
from .builder import Json, span, weighted
from .registry import CAUSES, TOOL_NAMES, RegistryBuilder

Entry = TypeVar("Entry")

AGENTS: Final = ("a1", "a2")
LOOP_TEXTS: Final = ("now", "later", "", "x={{x}}")
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
#: 1.3: adapters' effort sets (ADAPTERS_ENTRY ``efforts``): the configs' efforts are ``high`` and
#: the defaults' ``low``, so each set passes some and refuses others.
EFFORTS: Final = (["low"], ["off", "max"], ["low", "high"])
#: The loop family's kinds of scripted reply (`LoopBuilder.reply`), by weight.
REPLY_KINDS: Final = (
    (2, "answer"),
    (2, "call"),
    (1, "fails"),
    (1, "partial"),
    (1, "cut"),
    (1, "usage"),
    (1, "silent"),
)
#: The chance (percent) that an agent gets each of these (`LoopBuilder.agent`): pre-step decisions
#: (25 without loop-1.2), `agent/request` hooks and the ``adapters`` map (loop-1.2),
#: `agent/turn-stopping` hooks (loop-1.3), a first request held (`LoopBuilder.hold`).
AGENT_OPTIONS: Final = {
    "pre-step": 40,
    "request": 40,
    "adapters": 30,
    "turn-stopping": 30,
    "hold": 35,
}
#: How a new loop instance's configuration differs from the one whose log it takes over
#: (`LoopBuilder.restarted`): not at all, its effort left out or another one, or another route.
RESTARTS: Final = ("same", "no-effort", "effort", "route")
#: A pre-step DECISION's names (`LoopBuilder.decision`), by weight.
DECISIONS: Final = ((2, "default"), (1, "reject"), (1, "empty"))
#: Where a held agent's first request waits (`LoopBuilder.hold`); the last four need loop-1.2.
HOLDS: Final = (
    (1, "stream"),
    (1, "decision"),
    (1, "tool"),
    (1, "hook"),
    (1, "pre-step"),
    (1, "resolution"),
)
#: What a held round sends or observes while its turn may wait (`LoopBuilder.held_round`), by
#: weight.
MEANWHILE: Final = (
    (2, "cancel"),
    (1, "followup"),
    (1, "steer"),
    (1, "inject"),
    (1, "counts"),
    (1, "dispose"),
)


class LoopBuilder(RegistryBuilder):
    """A registry builder that also knows the agents it created and what each was given."""

    def __init__(self, draw: st.DrawFn, capabilities: frozenset[str] = frozenset()) -> None:
        super().__init__(draw, capabilities)
        #: Agents refused at creation (1.2, `agent-config-invalid`): they do not exist, so no
        #: later op names them, but their names are spent.
        self.refused: list[str] = []
        #: 1.3: per agent created with ``adapters``, the providers that have one so far (a
        #: `register-adapter` is drawn only for a provider that has none).
        self.adapter_maps: dict[str, set[str]] = {}
        #: 1.3: agents whose first `agent/turn-stopping` hook waits.
        self.stopping_agents: list[str] = []
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

    # -- loop steps ---------------------------------------------------------------------------

    def live_agents(self) -> list[str]:
        return [agent for agent in self.agents if agent not in self.disposed]

    def agent(self, *, seeded: bool = False) -> None:
        if len(self.agents) + len(self.refused) == len(AGENTS):
            return
        name = AGENTS[len(self.agents) + len(self.refused)]
        later = self.has("loop-1.2")
        replies = [self.reply() for _ in range(self.draw(span(0, 4)))]
        calls = sum(1 for reply in replies if _is_call(reply))
        results = [self.tool_result() for _ in range(calls)]
        decisions = [self.decision() for _ in range(2)]
        actions: list[Json] = []
        for _ in range(self.draw(span(0, 2))):
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
            options["request"] = [self.request_hook() for _ in range(self.draw(span(1, 2)))]
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
        """A new instance's configuration over another agent's log: the same one, the same route
        with its effort left out or another one, or another route (the other model) with no
        effort of its own (LOOP-REQUEST-BUILD: the folded header's effort is restored "only when
        that header's provider and model equal the route", `temperature` and `stop` never; a
        `request/context` when the route differs; the `resume` header)."""
        config = dict(config)
        change = self.pick(self.restarts)
        if change in ("no-effort", "route"):
            config.pop("reasoningEffort", None)
        if change == "route":
            config["model"] = "m1" if config.get("model") == "m2" else "m2"
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
            [where for where in weighted(self.holds) if later or where in ("stream", "decision")]
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
        for _ in range(self.draw(span(1, 3))):
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
        decision = self.pick(weighted(self.decisions))
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
        kind = self.pick(weighted(self.reply_kinds))
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
        need them loses them in `dsh_conformance.fuzz.found.reduced`)."""
        live = self.live_agents()
        if not live:
            return
        agent = self.pick(live)
        gate = self.fresh("g")
        holding = {"id": self.fresh("l"), "waitFor": {"gate": gate}}
        self.ops.append(s.listen(self.fresh("h"), holding, scope=agent))
        self.ops.append(lp.followup(agent, "go"))
        for _ in range(self.between(1, 3)):
            meanwhile = self.pick(weighted(self.meanwhile))
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
            start = self.draw(span(0, 4))
            end = start + self.draw(span(0, 2))
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


def _is_call(reply: Json) -> bool:
    return any(chunk.get("blockType") == "tool-call" for chunk in reply["chunks"])


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


def loop_ops(draw: st.DrawFn, capabilities: frozenset[str]) -> list[Json]:
    """A loop scenario's ops: a first agent and its steps, the gates still waited for opened,
    every agent observed."""
    builder = LoopBuilder(draw, capabilities)
    if builder.chance(20):
        builder.configure()
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
    return builder.ops
