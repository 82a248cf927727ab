"""A shrunk divergence as a case in the suite's own format (`dsh_conformance.judge.case.Case`).

The ops carry the expectations the differential oracle compared against (``against``'s
observations in the cases' view), so the case fails on the implementation for the reason fuzzing
found; the contract IDs are those of the rule it broke (`contracts_of`). The expectations come
from another implementation, so a case is a draft: the suite's rule is that expected values are
worked out by hand from CONTRACTS.md, and the documentation ('Generated scenarios',
docs/guide/fuzz.md) says how to make a draft permanent.

An ``http`` scenario runs inside loopback servers the suite starts (`dsh_conformance.fuzz.http`), so
its draft is written as the suite's own HTTP cases are (`http_case`: an `HttpCase` of
`dsh_conformance.deepseek.deepseek_http`, which ``test_deepseek_http`` runs against its loopback
server), and replayed that way too. The export format cannot express it (its runners have no
loopback server: the suite's HTTP tests are among those it does not export), and the written file
says so.
"""

from __future__ import annotations

import hashlib
import pprint
import re
import textwrap
from typing import Any, Final

from ..deepseek.deepseek_http import Exchange, HttpCase
from ..harness.protocol import Outcome
from ..harness.transport import Implementation
from ..judge.case import CONTRACT_IDS, Case, mismatches
from ..judge.jsontext import dumps
from ..judge.logview import LoopView, matches
from . import http
from .engine import Divergence, Explains, judge, run_scenario
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
        # As the suite's own request check files it (`dsh_conformance.run.execute.check_invariant`).
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
        return _assembly_contracts(divergence, index, problem)
    return ["ROOT-MODEL"]


#: The error kinds an assembly fails with under PROMPT-TOOL-ORDER; any other failure of an
#: assembly (a provider that throws, two complete sections, an abort) is the pipeline's.
_TOOL_ORDER_KINDS: Final = frozenset({"tool-order-unknown-name", "reserved-tool-name"})


def _assembly_contracts(divergence: Divergence, index: int, problem: str) -> list[str]:
    """An assembly's contracts: by the error kinds on either side when one failed, else by the
    field that differs; tools that differ only in order are the tool order's, tools that differ
    in which are there are also the pipeline's (step 3 reads the tool providers)."""
    expected = divergence.expected[index]
    observed = divergence.observed[index] if isinstance(divergence.observed, list) else None
    kinds = {_error_kind(expected), _error_kind(observed)} - {None}
    if kinds:
        return ["PROMPT-TOOL-ORDER" if kinds & _TOOL_ORDER_KINDS else "PROMPT-ASSEMBLY-PIPELINE"]
    field = re.match(r"(\w+):", problem.split(": ", 1)[-1])
    if not field or field.group(1) not in _ASSEMBLY_FIELDS:
        return ["PROMPT-ASSEMBLY-PIPELINE"]
    contracts = list(_ASSEMBLY_FIELDS[field.group(1)])
    if field.group(1) == "tools":
        if sorted(_tool_names(expected)) != sorted(_tool_names(observed)):
            contracts.append("PROMPT-ASSEMBLY-PIPELINE")
        if any(o["op"] == "mutate" for o in divergence.ops):
            contracts.append("PROMPT-ASSEMBLY-MUTATION-TEST")
    return contracts


def _error_kind(observation: Json) -> str | None:
    """The kind of the error an op's observation (or expectation) holds, if any."""
    error = observation.get("error") if isinstance(observation, dict) else None
    return str(error.get("kind")) if isinstance(error, dict) else None


def _tool_names(observation: Json) -> list[str]:
    """The names of the tools of an assembly RESULT, in its order (none when it holds none)."""
    assembly = observation.get("assembly") if isinstance(observation, dict) else None
    tools = assembly.get("tools") if isinstance(assembly, dict) else None
    if not isinstance(tools, list):
        return []
    return [str(tool.get("name")) if isinstance(tool, dict) else repr(tool) for tool in tools]


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


#: The families whose shrunk scenarios `reduced` deletes ops from. Not ``session``: an append
#: is drawn to break at most one rule given the appends before it, and without one of those it
#: may break two, whose order ROOT-MODEL leaves open (`dsh_conformance.fuzz.generate.AVOIDED`); not
#: ``wire`` or ``http``, whose shrunk cases are a request or an exchange or two already.
REDUCED: Final = ("registry", "loop")


def reduced(
    divergence: Divergence,
    impl: Implementation,
    against: Implementation,
    explains: Explains | None = None,
) -> Divergence:
    """A scenario Hypothesis has shrunk, without each op, from the last, that it still diverges
    without, filed under the same contracts: a pass of one-op deletions (C-Reduce's, after
    Hypothesis's shrinking). Hypothesis shrinks draws, and some ops are no draw of their own
    (`dsh_conformance.fuzz.draws.loop`): a held round's listener, its gate and its follow-up, which
    it can drop only with the whole round, and the assemblies, renders and counts that end every
    registry scenario, which it cannot drop at all. A scenario ``against`` cannot run is outside
    the protocol and kept out, as `dsh_conformance.fuzz.engine.fuzz` discards it; each candidate is
    judged once, so the pass costs at most one judged scenario per op and gives the same case on
    any machine. A deletion that leaves a divergence ``explains`` knows is not kept: the case
    stays one of a divergence nobody listed."""
    family = divergence.family
    if family not in REDUCED:
        return divergence
    contracts = contracts_of(divergence)
    for index in reversed(range(len(divergence.ops))):
        ops = divergence.ops[:index] + divergence.ops[index + 1 :]
        reference = run_scenario(against, family, ops)
        candidate = judge(impl, family, ops, reference, divergence.requires, explains)
        if isinstance(candidate, Divergence) and contracts_of(candidate) == contracts:
            divergence = candidate
    return divergence


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
        "out by hand from CONTRACTS.md before adding this case to the suite."
    )
    requires = tuple(dict.fromkeys(divergence.requires or REQUIRES[divergence.family]))
    return Case(
        id=f"fuzz/{divergence.family}-{digest}",
        contracts=contracts_of(divergence),
        why=why,
        ops=ops,
        requires=requires,
    )


#: A lone surrogate: a high one not followed by a low one, or a low one not after a high one.
_LONE_SURROGATE: Final = re.compile(
    "[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]"
)


def http_case(case: Case) -> HttpCase:
    """An ``http`` draft (`as_case`) as the suite's HTTP cases are written: each ``deepseek-http``
    op and the ``loopback-received`` op after it become an `Exchange`: the op's raw ``response``
    its `Scripted` response, the stream it expects its ``stream``, and what is expected to have
    reached that exchange's server its ``sent`` (``None``: nothing). What the fuzz self-check
    judges in the raw bytes becomes the exchange's own checks: each lone surrogate of the body
    expected as its lowercase escape (``sent_bytes``), and a request that grows the one before
    it extending that one's serialized messages (``extends_previous``). The case runs against one
    loopback server, whose responses go to the requests that reach it in order: the same
    responses, since an exchange whose request is refused consumes none (``responses``)."""
    ops = list(case.ops)
    exchanges: list[Exchange] = []
    for index, op in enumerate(ops):
        if op["op"] != "deepseek-http":
            continue
        following = ops[index + 1] if index + 1 < len(ops) else {}
        if following.get("op") != http.RECEIVED:
            raise ValueError(f"op #{index} of {case.id} is not followed by a {http.RECEIVED} op")
        arrived = following["expect"]
        if arrived.get("received", 1) == 0:
            sent = None
        elif "request" in arrived:
            sent = arrived["request"]
        else:
            raise ValueError(f"{case.id}: {arrived} cannot be an exchange's `sent`")
        before = exchanges[-1] if exchanges else None
        extends = (
            sent is not None
            and before is not None
            and before.sent is not None
            and http.grown(before.request, op["request"])
        )
        exchange = Exchange(
            request=op["request"],
            response=http.scripted(op["response"]),
            sent=sent,
            stream=op["expect"],
            api_key=op["apiKey"],
            sent_bytes=_lone_escapes(sent["body"]) if sent is not None else (),
            extends_previous=extends,
        )
        exchanges.append(exchange)
    return HttpCase(id=case.id, why=case.why, exchanges=tuple(exchanges), contracts=case.contracts)


def _lone_escapes(value: Json) -> tuple[bytes, ...]:
    """The escape of each lone surrogate in ``value``'s strings, as PROMPT-DEEPSEEK-WIRE has the
    body write it: "a lone surrogate in any string is written as the escape `\\udXXX`
    (lowercase hex)"."""
    found: dict[bytes, None] = {}
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            stack += item
        elif isinstance(item, str):
            found.update(
                (f"\\u{ord(match.group()):04x}".encode(), None)
                for match in _LONE_SURROGATE.finditer(item)
            )
    return tuple(sorted(found))


#: What a written case's header says of where it goes.
_DRAFT: Final = (
    "A draft case written by `dsh-conformance fuzz`: move it into {where} once every expectation "
    "is worked out by hand from CONTRACTS.md (see 'Generated scenarios', docs/guide/fuzz.md)."
)
#: Why an ``http`` case is written without its export.
NOT_EXPORTED: Final = (
    "The export format cannot express an HTTP case: a runner of the export has no loopback server "
    "to play the scripted responses back and record what reached it (the suite's HTTP tests are "
    "among those `export-cases` lists as not exported), so no .json is written."
)


def http_source(case: HttpCase) -> str:
    """An `HttpCase` as Python, in the form of dsh_conformance/deepseek/http_rules.py's cases."""
    where = "the `RULE_CASES` list of dsh_conformance/deepseek/http_rules.py"
    return (
        _header(where, NOT_EXPORTED)
        + "from dsh_conformance.deepseek.deepseek_http import Exchange, HttpCase\n"
        "from dsh_conformance.deepseek.loopback import Scripted\n\n"
        f"CASE = {pprint.pformat(case, width=100, sort_dicts=False)}\n"
    )


def _header(where: str, *more: str) -> str:
    """A written case's docstring: where it goes, then ``more`` paragraphs."""
    paragraphs = [_DRAFT.format(where=where), *more]
    text = "\n\n".join(textwrap.fill(paragraph, 96) for paragraph in paragraphs)
    return f'"""{text}"""\n\n'


def python_source(case: Case) -> str:
    """The case as Python, in the form of the modules of `dsh_conformance.cases`."""
    ops = pprint.pformat(list(case.ops), indent=1, width=100, sort_dicts=False)
    where = "the `CASES` list of the module of dsh_conformance/cases/ for its contract"
    return (
        _header(where) + "from dsh_conformance.judge.case import Case\n\n"
        "CASE = Case(\n"
        f"    id={case.id!r},\n"
        f"    contracts={case.contracts!r},\n"
        f"    why={case.why!r},\n"
        f"    requires={case.requires!r},\n"
        f"    ops=tuple({ops}),\n"
        ")\n"
    )


def replayed(impl: Implementation, case: Case, family: str) -> tuple[Outcome, list[str]]:
    """``impl``'s outcome on a written case, run as its family's scenarios run, and what the
    suite's comparison and self-check find wrong with it: nothing unless the outcome is
    ``observed``, which the caller reads as it must. An ``http`` case is run as it is written, an
    `HttpCase` against the suite's loopback server (`HttpCase.played`)."""
    if family == "http":
        return http_case(case).played(impl)
    ops = list(case.scenario()["ops"])
    outcome = run_scenario(impl, family, ops, case.id)
    if outcome.kind != "observed":
        return outcome, []
    found = mismatches(case, outcome.observations)
    return outcome, found + [text for *_, text in self_check(ops, outcome.observations)]
