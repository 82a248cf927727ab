"""A shrunk divergence as a case in the suite's own format (`conformance.judge.case.Case`).

The ops carry the expectations the differential oracle compared against (``against``'s
observations in the cases' view), so the case fails on the implementation for the reason fuzzing
found; the contract IDs are those of the rule it broke (`contracts_of`). The expectations come
from another implementation, so a case is a draft: the suite's rule is that expected values are
worked out by hand from CONTRACTS.md, and the README says how to make a draft permanent.
"""

from __future__ import annotations

import hashlib
import pprint
import re
from typing import Any, Final

from ..harness.protocol import Outcome
from ..harness.transport import Implementation
from ..judge.case import CONTRACT_IDS, Case, mismatches
from ..judge.jsontext import dumps
from ..judge.logview import LoopView, matches
from .engine import Divergence, run_scenario
from .generate import REQUIRES
from .oracles import self_check

Json = Any

#: The contracts an op's observation is judged under, where the op alone decides.
_OP_CONTRACTS: Final[dict[str, tuple[str, ...]]] = {
    "register": ("PROMPT-REGISTRY-CONTRACT",),
    "release": ("PROMPT-REGISTRY-CONTRACT",),
    "change-observer": ("PROMPT-REGISTRY-CONTRACT",),
    "dispose": ("PROMPT-REGISTRY-CONTRACT", "DESIGN-SCOPED-LAYERS"),
    "received": ("DESIGN-SCOPED-LAYERS",),
    "render": ("PROMPT-STRICT-RENDER",),
    "render-context": ("PROMPT-STRICT-RENDER",),
    "mutate": ("PROMPT-ASSEMBLY-MUTATION-TEST",),
    "session-append": ("ROOT-MODEL",),
    "session-log": ("ROOT-MODEL",),
    "session-surface": ("ROOT-MODEL",),
    "session-messages": ("ROOT-MODEL",),
    "session-header": ("PROMPT-HEADER-CANONICAL",),
    "header-canonical": ("PROMPT-HEADER-CANONICAL",),
    "header-equal": ("PROMPT-HEADER-CANONICAL",),
    "projection-start": ("LOOP-RUNTIME-CONTEXT",),
    "session-seed": ("ROOT-MODEL",),
    "configure": ("PROMPT-REGISTRY-CONTRACT",),
    "deepseek-request": ("PROMPT-DEEPSEEK-WIRE",),
    "deepseek-stream": ("PROMPT-DEEPSEEK-WIRE",),
    "deepseek-http-error": ("PROMPT-DEEPSEEK-WIRE",),
    "deepseek-http": ("PROMPT-DEEPSEEK-WIRE",),
    "loopback-received": ("PROMPT-DEEPSEEK-WIRE",),
    # 1.2: a refused agent (`agent-config-invalid`), and the request state a build leaves.
    "agent": ("LOOP-REQUEST-BUILD",),
    "request-state": ("LOOP-REQUEST-BUILD",),
    "project": ("LOOP-RUNTIME-CONTEXT",),
}
#: The contracts of a difference in an assembly, by the field that differs.
_ASSEMBLY_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "variables": ("PROMPT-VARIABLE-TEST",),
    "tools": ("PROMPT-TOOL-ORDER",),
    # Which sections an assembly holds, and in which order, is decided by the registration
    # rules (rejected and rolled-back registrations, orders), the layers and the pipeline.
    "sections": ("PROMPT-REGISTRY-CONTRACT", "DESIGN-SCOPED-LAYERS", "PROMPT-ASSEMBLY-PIPELINE"),
    "contexts": ("PROMPT-REGISTRY-CONTRACT", "DESIGN-SCOPED-LAYERS", "PROMPT-ASSEMBLY-PIPELINE"),
}
#: The contracts of a difference in a loop's log, by the type of the first event that differs.
_EVENT_CONTRACTS: Final[dict[str, tuple[str, ...]]] = {
    "request/header": ("PROMPT-HEADER-CHANGE-TEST", "LOOP-REQUEST-BUILD"),
    "request/context": ("LOOP-REQUEST-BUILD",),
    "step/start": ("PROMPT-STEP-BOUNDARY", "LOOP-REQUEST-ERROR-TEST"),
    "step/end": ("PROMPT-STEP-BOUNDARY", "LOOP-REQUEST-ERROR-TEST"),
    "turn/end": ("PROMPT-STEP-BOUNDARY", "PROMPT-CANCEL-TEST"),
    "turn/start": ("PROMPT-STEP-BOUNDARY",),
    "user/message": ("PROMPT-STEP-BOUNDARY",),
    "assistant/chunk": ("ROOT-MODEL", "LOOP-REQUEST-ERROR-TEST"),
    "assistant/message": ("ROOT-MODEL",),
    "tool/call": ("ROOT-MODEL",),
    "tool/result": ("ROOT-MODEL",),
    "session/end-seed": ("ROOT-MODEL",),
}
#: A `turn/end`'s contracts, by how the turn ended: a throw (a hook, a tool runtime, a failed
#: request build: PROMPT-RETRY-BOUNDARY's "A turn ended by anything else that throws", and
#: LOOP-REQUEST-BUILD's "the turn ends as for any other throw") or a request error ends it
#: `error`; a cancel, `aborted`.
_TURN_END_CONTRACTS: Final[dict[str, tuple[str, ...]]] = {
    "error": ("PROMPT-RETRY-BOUNDARY", "LOOP-REQUEST-ERROR-TEST", "LOOP-REQUEST-BUILD"),
    "aborted": ("PROMPT-CANCEL-TEST", "PROMPT-STEP-BOUNDARY"),
}
_TURN_END_OTHER: Final = ("PROMPT-STEP-BOUNDARY", "PROMPT-CANCEL-TEST")
_RUNTIME_CONTEXT_PLUGIN: Final = "@deepseek-ai/dsh-system-prompt"


def contracts_of(divergence: Divergence) -> tuple[str, ...]:
    """The contract IDs of what the divergence broke: the self-check's rules, else what the
    first differing op's observation is judged under (for an assembly, by the field; for a log,
    by the first differing event)."""
    found: list[str] = [contract for _, contract, _ in divergence.violations]
    if "LOGGEDLOOP-REQUEST-INVARIANT" in found:
        # As the suite's own request check files it (`conformance.run.execute.check_invariant`).
        found.append("ROOT-MODEL")
    if divergence.differences:
        index, problem = divergence.differences[0]
        if index >= 0:
            found += _op_contracts(divergence, index, problem)
    if not found:
        found = list(REQUIRES_CONTRACTS[divergence.family])
    return tuple(contract for contract in CONTRACT_IDS if contract in found)


#: What a divergence that names no op (the implementation errored) is filed under.
REQUIRES_CONTRACTS: Final[dict[str, tuple[str, ...]]] = {
    "registry": ("PROMPT-REGISTRY-CONTRACT",),
    "session": ("ROOT-MODEL",),
    "loop": ("ROOT-MODEL",),
    "wire": ("PROMPT-DEEPSEEK-WIRE",),
    "http": ("PROMPT-DEEPSEEK-WIRE",),
}


def _op_contracts(divergence: Divergence, index: int, problem: str) -> list[str]:
    op = divergence.ops[index]
    name = op["op"]
    if name in _OP_CONTRACTS:
        return list(_OP_CONTRACTS[name])
    if name == "counts":
        if "notification" in problem:
            return ["PROMPT-REGISTRY-CONTRACT"]
        # A listener's calls are the waterfall's composition; a provider's, shadowing.
        counter = re.search(r"expected '(\w+)' evaluated", problem)
        listener = counter is not None and counter.group(1) in divergence_listeners(divergence)
        return ["DESIGN-SCOPED-LAYERS"] if listener else ["PROMPT-SCOPE-SHADOW"]
    if name == "observe":
        return _log_contracts(divergence, index)
    if name in ("assemble", "await", "open", "abort"):
        expected = divergence.expected[index]
        if "error" in expected or "error" in problem:
            return ["PROMPT-TOOL-ORDER" if "tool" in problem else "PROMPT-ASSEMBLY-PIPELINE"]
        field = re.match(r"(\w+):", problem.split(": ", 1)[-1])
        if field and field.group(1) in _ASSEMBLY_FIELDS:
            contracts = list(_ASSEMBLY_FIELDS[field.group(1)])
            if field.group(1) == "tools" and any(o["op"] == "mutate" for o in divergence.ops):
                contracts.append("PROMPT-ASSEMBLY-MUTATION-TEST")
            return contracts
        return ["PROMPT-ASSEMBLY-PIPELINE"]
    return ["ROOT-MODEL"]


def divergence_listeners(divergence: Divergence) -> set[str]:
    """The ids of the listeners the scenario adds."""
    return {op["listener"].get("id") for op in divergence.ops if op["op"] == "listen"}


def _log_contracts(divergence: Divergence, index: int) -> list[str]:
    expected = divergence.expected[index]
    observed = divergence.observed[index] if isinstance(divergence.observed, list) else None
    got = LoopView(observed).log if isinstance(observed, dict) and "log" in observed else []
    log = expected.get("log", [])
    for position, (want, have) in enumerate(zip(log, got, strict=False)):
        if not matches(want, have):
            # An event where another was expected (matched as the comparison matches them: a
            # failure message is any text): the rules of both decide (an extra `request/header`
            # in place of a chunk is a header rule's business).
            return _event_contracts(want) + _event_contracts(have) + _retried(log[:position])
    if len(log) != len(got):
        longer = log if len(log) > len(got) else got
        position = min(len(got), len(log))
        return _event_contracts(longer[position]) + _retried(log[:position])
    return ["LOGGEDLOOP-REQUEST-INVARIANT", "ROOT-MODEL"]


def _retried(before: list[Json]) -> list[str]:
    """The retry contracts, when the step the difference is in had a failed attempt."""
    for event in reversed(before):
        if event.get("type") == "step/start":
            return []
        chunk = (
            event.get("data", {}).get("chunk") if event.get("type") == "assistant/chunk" else None
        )
        if isinstance(chunk, dict) and chunk.get("reason", {}).get("kind") == "error":
            return ["PROMPT-RETRY-BOUNDARY", "LOOP-REQUEST-ERROR-TEST"]
    return []


def _event_contracts(event: Json) -> list[str]:
    data = event.get("data") if isinstance(event, dict) else None
    source = data.get("source") if isinstance(data, dict) else None
    if isinstance(source, dict) and source.get("plugin") == _RUNTIME_CONTEXT_PLUGIN:
        return ["LOOP-RUNTIME-CONTEXT"]
    kind = event.get("type") if isinstance(event, dict) else None
    if kind == "user/message" and isinstance(event.get("surfaceOp"), dict):
        # A replacement (a compaction's summary): what it shadows and cites is ROOT-MODEL's
        # append rules' business.
        return ["ROOT-MODEL"]
    if kind == "turn/end" and isinstance(data, dict) and isinstance(data.get("reason"), dict):
        return list(_TURN_END_CONTRACTS.get(data["reason"].get("kind"), _TURN_END_OTHER))
    return list(_EVENT_CONTRACTS.get(kind, ())) if isinstance(kind, str) else []


def as_case(divergence: Divergence, *, impl: str, against: str, seed: int) -> Case:
    """The shrunk divergence as a draft case: its ops with ``against``'s expectations."""
    ops = tuple(
        {**op, "expect": expected}
        for op, expected in zip(divergence.ops, divergence.expected, strict=True)
    )
    digest = hashlib.sha256(dumps(divergence.ops).encode()).hexdigest()[:10]
    problems = "; ".join(divergence.problems())
    why = (
        f"Found by `dsh-conformance fuzz --seed {seed}`: {impl} against {against}: "
        f"{problems[:600]}. DRAFT: the expectations are {against}'s observations; work each one "
        "out by hand from CONTRACTS.md before adding this case to conformance/cases/."
    )
    requires = tuple(dict.fromkeys(divergence.requires or REQUIRES[divergence.family]))
    return Case(
        id=f"fuzz/{divergence.family}-{digest}",
        contracts=contracts_of(divergence),
        why=why,
        ops=ops,
        requires=requires,
    )


#: An ``http`` case runs inside loopback servers: it becomes an `HttpCase`, not a `Case`.
_HTTP_NOTE: Final = (
    "\nOver HTTP (`deepseek-http`): each op's `response` and the `loopback-received` op after it\n"
    "become an `Exchange` of an `HttpCase` in conformance/deepseek/http_rules.py (the response a\n"
    "`Scripted`, the `loopback-received` expectation its `sent`)."
)


def python_source(case: Case) -> str:
    """The case as Python, in the form of the modules of `conformance.cases` (for an ``http``
    case, what to make of it as a `deepseek-http` case)."""
    http = "deepseek-http" in case.requires
    ops = pprint.pformat(list(case.ops), indent=1, width=100, sort_dicts=False)
    return (
        '"""A draft case written by `dsh-conformance fuzz`: move it into the `CASES` list of\n'
        "the module of conformance/cases/ for its contract once every expectation is worked out\n"
        'by hand from CONTRACTS.md (see the README, "Generated scenarios").'
        f'{_HTTP_NOTE if http else ""}"""\n\n'
        "from conformance.judge.case import Case\n\n"
        "CASE = Case(\n"
        f"    id={case.id!r},\n"
        f"    contracts={case.contracts!r},\n"
        f"    why={case.why!r},\n"
        f"    requires={case.requires!r},\n"
        f"    ops=tuple({ops}),\n"
        ")\n"
    )


def replayed(impl: Implementation, case: Case, family: str) -> tuple[Outcome, list[str]]:
    """``impl``'s outcome on a written case, run as its family's scenarios run (the http family's
    inside its loopback servers), and what the suite's comparison and self-check find wrong with
    it: nothing unless the outcome is ``observed``, which the caller reads as it must."""
    ops = list(case.scenario()["ops"])
    outcome = run_scenario(impl, family, ops, case.id)
    if outcome.kind != "observed":
        return outcome, []
    found = mismatches(case, outcome.observations)
    return outcome, found + [text for *_, text in self_check(ops, outcome.observations)]
