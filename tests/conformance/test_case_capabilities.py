"""Every case requires the capabilities its ops need (PROTOCOL.md, "Versioning").

A minor version's additions are reachable only through a capability, so that a harness written for
an earlier minor version gets *not applicable*, never *errored*. This walks every example case and
checks it declares what it uses.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from dsh_conformance.cases import all_cases
from dsh_conformance.judge.case import Case

#: What each minor version's addition needs, found by a predicate over one object of a scenario.
NEEDS: dict[str, tuple[str, Any]] = {
    "a provider's waitFor": (
        "async-providers",
        lambda node: "waitFor" in node and any(k in node for k in ("returns", "sequence", "fails")),
    ),
    "ops added in 1.1": (
        "registry-1.1",
        lambda node: node.get("op") in ("dispose", "received", "change-observer"),
    ),
    "an aborted assemble": ("registry-1.1", lambda node: "aborted" in node),
    "before edits": ("registry-1.1", lambda node: "before" in node),
    "set-variable": ("registry-1.1", lambda node: "set-variable" in node),
    "the session-event-invalid kind": (
        "session-1.2",
        lambda node: node.get("kind") == "session-event-invalid",
    ),
    "an option injected as absent": (
        "session-1.2",
        lambda node: node.get("at") in (["surfaceOp"], ["sourceEventSeqs"]),
    ),
    "scope on register": (
        "registry-1.1",
        lambda node: node.get("op") == "register" and "scope" in node,
    ),
    "the op added to the loop in 1.3": (
        "loop-1.3",
        lambda node: node.get("op") == "register-adapter",
    ),
    "the turn-stopping hook": ("loop-1.3", lambda node: "turnStopping" in node),
    "an adapter's effort set": ("loop-1.3", lambda node: "efforts" in node),
    "a throwing listener": (
        "registry-1.4|loop-1.2",
        lambda node: node.get("op") == "listen" and "fails" in node.get("listener", {}),
    ),
}
CASES = all_cases()


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _objects(item)
    elif isinstance(value, list):
        for item in value:
            yield from _objects(item)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_the_case_requires_what_it_uses(case: Case) -> None:
    used = {
        (what, capability)
        for node in _objects(case.scenario()["ops"])
        for what, (capability, found) in NEEDS.items()
        if found(node)
    }
    # "a|b": either capability reaches it (LISTENER `fails`: registry-1.4, or loop-1.2 in a loop).
    missing = sorted(
        f"{capability} (for {what})"
        for what, capability in used
        if not set(capability.split("|")) & set(case.requires)
    )
    assert not missing, f"{case.id} uses, but does not require: {missing}"


def test_the_check_finds_something() -> None:
    # Not vacuous: some cases do use each capability.
    required = {capability for case in CASES for capability in case.requires}
    assert {"async-providers", "registry-1.1", "loop-1.3", "registry-1.4"} <= required
