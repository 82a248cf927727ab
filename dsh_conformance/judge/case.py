"""A conformance case, and the comparison of its expected observations with what was observed.

A case is data: a stable ``id``, the contract IDs it checks, the capabilities it needs, a ``why``
quoting the rule its expectations were worked out from, and its ops (each may carry an ``expect``,
see `dsh_conformance.scenarios.scenario`). `mismatches` turns a difference into sentences a person
can act on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from .jsontext import show
from .jsonvalues import same_json_text, strict_equal
from .logview import ABSENT, compare_loop, compared_view
from .wire_compare import WIRE_COMPARISONS

Json = Any

#: Every contract ID of CONTRACTS.md; a case naming anything else is a bug in the suite.
CONTRACT_IDS: Final = (
    "ROOT-MODEL",
    "LOGGEDLOOP-REQUEST-INVARIANT",
    "PROMPT-REGISTRY-CONTRACT",
    "DESIGN-SCOPED-LAYERS",
    "PROMPT-SCOPE-SHADOW",
    "PROMPT-ASSEMBLY-PIPELINE",
    "PROMPT-ASSEMBLY-MUTATION-TEST",
    "PROMPT-VARIABLE-TEST",
    "PROMPT-STRICT-RENDER",
    "PROMPT-CANCEL-TEST",
    "PROMPT-TOOL-ORDER",
    "PROMPT-STEP-BOUNDARY",
    "PROMPT-RETRY-BOUNDARY",
    "LOOP-REQUEST-ERROR-TEST",
    "LOOP-RUNTIME-CONTEXT",
    "PROMPT-HEADER-CANONICAL",
    "LOOP-REQUEST-BUILD",
    "PROMPT-HEADER-CHANGE-TEST",
    "PROMPT-DEEPSEEK-WIRE",
    "PROMPT-CACHE-E2E",
)


def known_contracts(given: Iterable[str]) -> tuple[str, ...]:
    """``given`` as contract IDs of CONTRACT_IDS, letter case ignored (``--contract root-model``).

    Raises `ValueError` naming the unknown ones and listing the valid IDs: a misspelt ID must not
    select nothing in silence.
    """
    by_upper = {contract.upper(): contract for contract in CONTRACT_IDS}
    unknown = [value for value in given if value.upper() not in by_upper]
    if unknown:
        raise ValueError(
            f"unknown contract ID(s) {', '.join(unknown)}; the contract IDs are "
            f"{', '.join(CONTRACT_IDS)}"
        )
    return tuple(dict.fromkeys(by_upper[value.upper()] for value in given))


#: What `_compare_fields` sees for a key the observation does not have.
_ABSENT: Final = ABSENT

#: Ops whose observation is ``{"ok": true}`` unless the case says otherwise.
_STATE_OPS: Final = frozenset(
    {
        "configure",
        "scope",
        "register",
        "release",
        "listen",
        "open",
        "abort",
        "mutate",
        "dispose",
        "change-observer",
    }
    | {"agent", "followup", "steer", "cancel", "dispose-agent", "compact"}
)


@dataclass(frozen=True)
class Case:
    id: str
    contracts: tuple[str, ...]
    why: str
    ops: tuple[Json, ...]
    requires: tuple[str, ...] = ("registry",)
    tags: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        unknown = [contract for contract in self.contracts if contract not in CONTRACT_IDS]
        if unknown or not self.contracts:
            raise ValueError(f"case {self.id!r}: unknown or missing contract IDs {unknown}")

    def agents(self) -> list[str]:
        """The agents the case creates (loop cases), in order; not those it expects refused."""
        return [
            op["agent"]
            for op in self.ops
            if op.get("op") == "agent" and "error" not in op.get("expect", {})
        ]

    def scenario(self) -> Json:
        """The scenario as sent to the implementation: the ops without their expectations."""
        return {"ops": [{k: v for k, v in op.items() if k != "expect"} for op in self.ops]}

    def sent_scenario(self) -> Json:
        """What the suite sends: `scenario`, then for a loop case one ``observe`` per agent, whose
        log and requests the suite folds and checks itself (LOGGEDLOOP-REQUEST-INVARIANT)."""
        scenario = self.scenario()
        scenario["ops"] += [{"op": "observe", "agent": agent} for agent in self.agents()]
        return scenario


def expected_observation(op: Json) -> Json | None:
    """What ``op`` must produce, or ``None`` when the case does not check it."""
    if "expect" in op:
        return op["expect"]
    return {"ok": True} if op["op"] in _STATE_OPS else None


def mismatches(case: Case, observations: list[Json]) -> list[str]:
    """Every difference between the case's expectations and ``observations``, as sentences."""
    if not isinstance(observations, list) or len(observations) != len(case.ops):
        count = len(observations) if isinstance(observations, list) else "no list of"
        return [f"expected {len(case.ops)} observations (one per op), got {count}"]
    problems = []
    for index, (op, observed) in enumerate(zip(case.ops, observations, strict=True)):
        expected = expected_observation(op)
        if expected is None:
            continue
        problem = compare(expected, observed)
        if problem:
            problems.append(f"op #{index} {describe_op(op)}: {problem}")
    return problems


def compared_part(expected: Json, observed: Json) -> Json:
    """What `compare` compares ``expected`` with: the loop-log view for a loop expectation (an
    ``observe`` op), else the observation itself."""
    if isinstance(expected, dict) and {"log", "tail", "types", "requests"} & set(expected):
        return compared_view(expected, observed)
    return observed


def rule_of(expected: Json) -> str:
    """The name of the comparison rule that judges ``expected`` (`RULES`; dsh_conformance/export/
    COMPARISON.md defines each one, and ``export-cases`` names it beside every expectation)."""
    for key in WIRE_COMPARISONS:
        if key in expected:
            return f"wire-{key}"
    if {"log", "tail", "types", "requests"} & set(expected):
        return "log-view"
    for key in ("assembly", "error", "evaluations"):
        if key in expected:
            return key
    return "fields"


def compare(expected: Json, observed: Json) -> str | None:
    """``None`` if ``observed`` satisfies ``expected``, else what differs."""
    if not isinstance(observed, dict):
        return f"expected {_show(expected)}, got {_show(observed)}"
    if "error" in observed and "error" not in expected:
        got = observed["error"]
        return (
            f"expected {_show(expected)}, got error {got.get('kind')!r}: "
            f"{got.get('message', '')}".rstrip(": ")
        )
    return RULES[rule_of(expected)](expected, observed)


def _compare_assembly(expected: Json, observed: Json) -> str | None:
    if "assembly" not in observed:
        return f"expected an assembly, got {_show(observed)}"
    return _compare_fields(expected["assembly"], observed["assembly"], "")


def _compare_error(expected: Json, observed: Json) -> str | None:
    want, got = expected["error"], observed.get("error")
    if not isinstance(got, dict):
        return f"expected error {want['kind']!r}, got {_show(observed)}"
    if got.get("kind") != want["kind"]:
        return f"expected error {want['kind']!r}, got error {got.get('kind')!r}: {_show(got)}"
    if "where" in want and got.get("where") != want["where"]:
        return (
            f"error {want['kind']!r} must name {want['where']!r} as where it happened, "
            f"got {got.get('where')!r}"
        )
    return None


def _compare_evaluations(expected: Json, observed: Json) -> str | None:
    got_counts = observed.get("evaluations", {})
    for counter, count in expected["evaluations"].items():
        if got_counts.get(counter) != count:
            got = got_counts.get(counter)
            return f"expected {counter!r} evaluated {count} time(s), got {got!r}"
    if "changes" in expected and observed.get("changes") != expected["changes"]:
        return (
            f"expected {expected['changes']} change notification(s), "
            f"got {observed.get('changes')!r}"
        )
    return None


def _compare_fields(expected: Json, observed: Json, prefix: str) -> str | None:
    if not isinstance(observed, dict):
        return f"expected {_show(expected)}, got {_show(observed)}"
    for key, want in expected.items():
        rule = FIELD_RULES.get(key, "json-value")
        # `{}` is the JSON of `{message: undefined}` in JavaScript: the op's one key, "none",
        # dropped. A key missing beside others (`{"ok": true}`) is no "none" (issue 37).
        undefined = not observed and rule in _UNDEFINED_IS_NULL
        got = observed.get(key, None if undefined else _ABSENT)
        same = _SAME[rule](want, got)
        if not same:
            if want == got and key == "tools":
                return (
                    f"{prefix}{key}: the schemas are equal, but a `parameters` object lost the "
                    f"provider's key order: expected {_show(want)}, got {_show(got)}"
                )
            if want == got:
                return (
                    f"{prefix}{key}: equal values, but not the same JSON (key order, or a "
                    f"boolean for a number): expected {_show(want)}, got {_show(got)}"
                )
            return f"{prefix}{key}: expected {_show(want)}, got {_show(got)}"
    return None


#: The field rules whose key, the only one of its op's observation, a harness in a language that
#: drops ``undefined`` from JSON may leave out for ``null`` (PROTOCOL.md, "The session capability").
_UNDEFINED_IS_NULL: Final = frozenset({"header", "null-or-absent"})


def _same_tools(expected: Json, observed: Json) -> bool:
    """Equal schemas, with each ``parameters`` also in the same key order.

    PROMPT-HEADER-CANONICAL compares tool schemas by their JSON serialization, so an implementation
    must keep the key order of ``parameters`` as the provider gave it (PROTOCOL.md promises it).
    The order of ``name``/``description``/``parameters`` themselves is the harness's business,
    and so is the order of integer-like keys (PROMPT-ASSEMBLY-PIPELINE step 3: "an
    implementation whose objects put integer-like keys first — JavaScript's do — may reorder
    those, so no check depends on the order of integer-like keys").
    """
    return (
        expected == observed
        and isinstance(observed, list)
        and all(
            key_order(want.get("parameters")) == key_order(got.get("parameters"))
            for want, got in zip(expected, observed, strict=True)
        )
    )


def _same_header(expected: Json, observed: Json) -> bool:
    """A header observation (PROMPT-HEADER-CANONICAL): every field but ``tools`` equal as a JSON
    value, key order not compared (config's is not fixed); the tool list as JSON text, every key
    order of each schema counted (integer-like keys aside, which JavaScript lists first). So says
    PROTOCOL.md's HEADER ("each tool schema as JSON text (its key order counts)"), as the header
    equality compares tools ("each pair serializing to the same JSON (key order included)"). "No
    header" is ``null``, or the key left out of an otherwise empty observation
    (`_compare_fields`)."""
    if expected is None or observed is None:
        return expected is observed
    if not isinstance(observed, dict):
        return False
    rest = ({k: v for k, v in header.items() if k != "tools"} for header in (expected, observed))
    return strict_equal(*rest) and same_json_text(expected.get("tools"), observed.get("tools"))


def _same_events(expected: Json, observed: Json) -> bool:
    """A session log: each event equal as a JSON value, its informational ``time`` ignored."""
    if not isinstance(observed, list) or len(observed) != len(expected):
        return False
    return all(
        isinstance(got, dict) and strict_equal(want, _without_time(got))
        for want, got in zip(expected, observed, strict=True)
    )


def _same_variables(expected: Json, observed: Json) -> bool:
    """Only the variables the case names: each with its value (`null`, "registered, no value",
    explicitly), or `ABSENT` for one that must not be there. An implementation's loop machinery
    may register variables of its own (PROTOCOL.md, Observations), which no case names."""
    return isinstance(observed, dict) and all(
        name not in observed
        if want == ABSENT
        else name in observed and strict_equal(want, observed[name])
        for name, want in expected.items()
    )


def _same_calls(expected: Json, observed: Json) -> bool:
    """Every CALL, on the keys the case gives (a case may leave `agent` or `payload` out)."""
    return (
        isinstance(observed, list)
        and len(expected) == len(observed)
        and all(
            isinstance(got, dict)
            and all(key in got and strict_equal(value, got[key]) for key, value in want.items())
            for want, got in zip(expected, observed, strict=True)
        )
    )


def _without_time(event: Json) -> Json:
    return {key: value for key, value in event.items() if key != "time"}


def _equal(expected: Json, observed: Json) -> bool:
    return strict_equal(expected, observed)


def _same_proposal(expected: Json, observed: Json) -> bool:
    """A `project` observation: the message, or ``null`` for nothing (also the key left out of an
    otherwise empty observation: `_compare_fields`)."""
    return _equal(expected, observed)


#: The field rule of each observation field not compared as a JSON value (``json-value``).
#: Derived messages are the logged objects "passed through verbatim", so their JSON text (key
#: order included) must match.
FIELD_RULES: Final = {
    "tools": "tools",
    "header": "header",
    "messages": "json-text",
    "events": "events-without-time",
    "message": "null-or-absent",
    "variables": "named-variables",
    "calls": "calls-on-given-keys",
}
_SAME: Final = {
    "json-value": _equal,
    "tools": _same_tools,
    "header": _same_header,
    "json-text": same_json_text,
    "events-without-time": _same_events,
    "null-or-absent": _same_proposal,
    "named-variables": _same_variables,
    "calls-on-given-keys": _same_calls,
}


def key_order(value: Json) -> Json:
    """The key order a check may depend on: every object's keys but the integer-like ones."""
    if isinstance(value, dict):
        return [(key, key_order(item)) for key, item in value.items() if not _integer_like(key)], {
            key: key_order(item) for key, item in value.items() if _integer_like(key)
        }
    if isinstance(value, list):
        return [key_order(item) for item in value]
    return None


def _integer_like(key: str) -> bool:
    """A key JavaScript objects list first, in numeric order: an array index ("0", "17")."""
    return _ARRAY_INDEX.fullmatch(key) is not None and int(key) < 2**32 - 1


_ARRAY_INDEX: Final = re.compile(r"0|[1-9][0-9]*", re.ASCII)


def _show(value: Json) -> str:
    return show(value, 600)


def describe_op(op: Json) -> str:
    """A short label such as ``assemble a1`` or ``register section 'x'``."""
    name = op.get("op", "?")
    if name == "register":
        label = op.get("name") or op.get("handle")
        return f"(register {op.get('kind')} {label!r})"
    for key in ("assembly", "handle", "scope", "gate"):
        if key in op and op[key] is not None:
            return f"({name} {op[key]})"
    return f"({name})"


def _under(
    key: str, comparison: Callable[[Json, Json], str | None]
) -> Callable[[Json, Json], str | None]:
    """A wire comparison, given the expectation's ``key`` entry and the whole observation."""
    return lambda expected, observed: comparison(expected[key], observed)


#: Version of `RULES`, `FIELD_RULES` and the log view (dsh_conformance/export/COMPARISON.md): bumped
#: whenever a rule's meaning changes, so that a runner in another language refuses an export it
#: does not know instead of judging it wrongly.
#: 2: `wire-failure` compares an HTTP failure's `status` and `requestId` (protocol 1.2), the
#: `header` field rule a header's tools as JSON text, `wire-request` an expected header sent once;
#: an op's observation must have that op's shape, and `null-or-absent`/`header` read a missing key
#: as `null` only in an otherwise empty observation.
COMPARISON_VERSION: Final = 2

#: Comparison rule name → comparison of a whole expectation with a whole observation.
RULES: Final[dict[str, Callable[[Json, Json], str | None]]] = {
    **{f"wire-{key}": _under(key, compare_wire) for key, compare_wire in WIRE_COMPARISONS.items()},
    "log-view": compare_loop,
    "assembly": _compare_assembly,
    "error": _compare_error,
    "evaluations": _compare_evaluations,
    "fields": lambda expected, observed: _compare_fields(expected, observed, ""),
}
