"""The export's Node runner folds a log and checks the request invariant as the suite does.

COMPARISON.md defines the log fold and the request invariant step by step for a runner in another
language (the `final-observe` rule); `runner.mjs --final` applies them to observations and prints
the violations as data. Here both are given the final observations of every loop case as the
reference reports them, and many damaged copies of them (events dropped, swapped, duplicated or
changed; requests moved, dropped or changed), and must find the same violations, rule by rule and
seq by seq (`dsh_conformance.judge.logfold`, `dsh_conformance.judge.invariant`).

The damage reaches seeded events too: both fold the events before the last `session/end-seed`
by the append rules only, as "The session log" says and COMPARISON.md defines.
"""

from __future__ import annotations

import copy
import json
import random
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dsh_conformance.cases import all_cases
from dsh_conformance.harness.protocol import run_message
from dsh_conformance.judge.invariant import check_requests
from dsh_conformance.judge.logfold import fold_log, seeded_length
from dsh_conformance.run.catalog import export
from dsh_reference.harness import Driver

Json = Any
NODE = shutil.which("node")
#: Damaged copies of each final observation.
COPIES = 6


def _finals() -> list[Json]:
    """The final ``observe`` answer of every agent of every loop case, from the reference."""
    found = []
    for case in all_cases():
        agents = case.agents()
        if not agents:
            continue
        scenario = case.sent_scenario()
        answer = json.loads(json.dumps(Driver().handle(run_message(case.id, scenario))))
        found += answer["observations"][len(case.ops) :]
    return found


def _renumbered(observed: Json) -> Json:
    for seq, event in enumerate(observed["log"]):
        if isinstance(event, dict):
            event["seq"] = seq
    return observed


def _live(observed: Json, rng: random.Random) -> int | None:
    """A seq of the log to damage, seeded or written."""
    return rng.randrange(len(observed["log"])) if observed["log"] else None


def _drop_event(observed: Json, rng: random.Random) -> None:
    at = _live(observed, rng)
    if at is not None:
        del observed["log"][at]
        if rng.random() < 0.5:
            _renumbered(observed)
            for entry in observed["requests"]:
                entry["dispatchSeq"] -= entry["dispatchSeq"] > at


def _swap_events(observed: Json, rng: random.Random) -> None:
    at = _live(observed, rng)
    log = observed["log"]
    if at is not None and at + 1 < len(log):
        log[at], log[at + 1] = log[at + 1], log[at]
        _renumbered(observed)


def _duplicate_event(observed: Json, rng: random.Random) -> None:
    at = _live(observed, rng)
    if at is not None:
        observed["log"].insert(at + 1, copy.deepcopy(observed["log"][at]))
        _renumbered(observed)


def _change_event(observed: Json, rng: random.Random) -> None:
    at = _live(observed, rng)
    if at is None:
        return
    event = observed["log"][at]
    data = event.get("data")
    changes: list[Callable[[], None]] = [
        lambda: event.update(type={"step/end": "step/start"}.get(event["type"], "step/end")),
        lambda: event.update(surfaceOp={"op": "replace", "start": 0, "end": at - 1}),
        lambda: event.update(sourceEventSeqs=[at]),
        lambda: event.pop("surfaceOp", None),
        lambda: event.update(seq=at + 1),
        lambda: event.update(extra=1),
        lambda: event.update(ignorable=False),
        lambda: event.update(time="now"),
    ]
    # Outside the core vocabulary: where a request was dispatched, ROOT-MODEL lets it stand
    # before the attempt's first event.
    changes.append(lambda: event.update(type="request/header-delta"))
    if isinstance(data, dict):
        changes += [
            lambda: data.update(usage=None),
            lambda: data.update(reason="change" if data.get("reason") != "change" else "initial"),
            lambda: data.update(step=99),
            lambda: data.pop("turn", None),
            lambda: data.update(note=-0.0),
        ]
        if isinstance(data.get("header"), dict):
            changes.append(lambda: data["header"].update(system=""))
            changes.append(lambda: data["header"]["config"].update(model="other"))
            changes.append(lambda: data["header"]["config"].update(provider=""))
            changes.append(lambda: data["header"].update(adapterDefaults={"maxTokens": 1}))
        if isinstance(data.get("source"), dict):
            changes.append(lambda: data["content"].append({"type": "text", "text": "more"}))
    rng.choice(changes)()


def _change_request(observed: Json, rng: random.Random) -> None:
    requests = observed["requests"]
    if not requests:
        return
    at = rng.randrange(len(requests))
    entry = requests[at]
    request = entry["request"]
    if not isinstance(request, dict):
        return
    messages = request.get("messages") or [{}]
    changes: list[Callable[[], None]] = [
        lambda: entry.update(dispatchSeq=entry["dispatchSeq"] + rng.choice((-1, 1))),
        lambda: requests.pop(at),
        lambda: requests.insert(at, copy.deepcopy(entry)),
        lambda: messages.pop(),
        lambda: messages.__setitem__(0, dict(reversed(list(messages[0].items())))),
        lambda: request.update(extra=1),
        lambda: request.update(sessionId="another"),
        lambda: request.update(model="other"),
        lambda: request.update(system=""),
        lambda: request.pop("provider"),
        lambda: entry.update(request=[]),
    ]
    rng.choice(changes)()


DAMAGE = (_drop_event, _swap_events, _duplicate_event, _change_event, _change_request)


def _damaged(finals: list[Json]) -> list[Json]:
    rng = random.Random(35)
    found = []
    for final in finals:
        found.append(final)
        for _ in range(COPIES):
            damaged = copy.deepcopy(final)
            for _ in range(rng.randint(1, 3)):
                rng.choice(DAMAGE)(damaged, rng)
            found.append(damaged)
    # As parsed from JSON text, like both runners read them.
    return [json.loads(json.dumps(observed)) for observed in found]


def _final(export_dir: Path, observations: list[Json]) -> list[Json]:
    """What ``runner.mjs --final`` finds in each observation: its fold's and invariant's
    violations."""
    assert NODE is not None
    run = subprocess.run(
        [NODE, str(export_dir / "runner.mjs"), "--final", str(export_dir)],
        input="".join(json.dumps(observed) + "\n" for observed in observations),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return [json.loads(line) for line in run.stdout.splitlines()]


def _suite(observed: Json) -> Json:
    log = observed["log"]
    fold = [[v.seq, v.rule] for v in fold_log(log, seeded_length(log)).violations]
    invariant = [
        [v.index, v.seq, v.field, v.contract]
        for v in check_requests(log, observed["requests"], observed.get("sessionId"))
    ]
    return {"fold": fold, "invariant": invariant}


@pytest.mark.slow  # node and every loop case: not in the fast subset
@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_node_runner_finds_the_suites_fold_and_invariant_violations(tmp_path: Path) -> None:
    export(tmp_path, frozenset({"LOGGEDLOOP-REQUEST-INVARIANT"}))
    observations = _damaged(_finals())
    answers = _final(tmp_path, observations)
    assert len(answers) == len(observations)
    differing = [
        (observed, node, suite)
        for observed, node in zip(observations, answers, strict=True)
        if node != (suite := _suite(observed))
    ]
    assert not differing, differing[0]
    # The damage is seen: most damaged copies break some rule, by both judges.
    broken = sum(bool(answer["fold"] or answer["invariant"]) for answer in answers)
    assert broken > len(observations) // 2, broken


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_node_runners_invariant_folds_a_seed_by_the_append_rules(tmp_path: Path) -> None:
    """A seeded `assistant/message` without `turn` and `step` passes the append rules ("Seeded
    events are checked only against these append rules"), so it is on the surface and a request
    of the live loop carries it. The suite's `check_requests` finds the same."""
    export(tmp_path, frozenset({"LOGGEDLOOP-REQUEST-INVARIANT"}))
    model = {"kind": "model", "provider": "p", "model": "m"}
    seeded = {
        "id": "a1",
        "role": "assistant",
        "content": [{"type": "text", "text": "hi"}],
        "source": model,
    }
    question = {
        "id": "u1",
        "role": "user",
        "content": [{"type": "text", "text": "q"}],
        "source": {"kind": "user"},
    }
    answer = {**seeded, "id": "a2"}
    step = {"turn": 1, "step": 1}
    events = [
        ("assistant/message", {"message": seeded}, {"surfaceOp": "append"}),
        ("session/end-seed", {}, {}),
        ("turn/start", {"turn": 1}, {}),
        ("user/message", question, {"surfaceOp": "append"}),
        ("step/start", step, {}),
        (
            "request/header",
            {"header": {"config": {"provider": "p", "model": "m"}}, "reason": "initial"},
            {},
        ),
        (
            "assistant/message",
            {**step, "message": answer},
            {"surfaceOp": "append", "sourceEventSeqs": []},
        ),
        ("step/end", step, {}),
        ("turn/end", {"turn": 1, "reason": {"kind": "completed"}}, {}),
    ]
    log = [
        {"type": type_, "seq": seq, "time": 0, "data": data, **extra}
        for seq, (type_, data, extra) in enumerate(events)
    ]
    request = {"provider": "p", "model": "m", "messages": [seeded, question], "sessionId": "s"}
    observed = {"sessionId": "s", "log": log, "requests": [{"dispatchSeq": 6, "request": request}]}
    assert _final(tmp_path, [observed]) == [{"fold": [], "invariant": []}] == [_suite(observed)]
    # Without the seed's message the request would differ from the log.
    request["messages"] = [question]
    (found,) = _final(tmp_path, [observed])
    assert found["invariant"] == [[0, 6, "messages", "LOGGEDLOOP-REQUEST-INVARIANT"]]
    assert found == _suite(observed)
