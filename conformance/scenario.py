"""Builders for scenario ops and their expected observations (conformance/PROTOCOL.md).

Cases are data; these functions only spell that data briefly. Every op builder takes an optional
``expect``: the observation the op must produce. It travels with the op inside the suite and is
stripped before the scenario is sent. Ops that change state (``register``, ``release``, ``scope``,
``listen``, ``open``, ``abort``, ``mutate``, ``configure``) expect ``{"ok": true}`` unless told
otherwise; ops that observe (``assemble``, ``await``, ``render``, ``render-context``, ``counts``)
are checked only when given an ``expect``.

The spec's literal constants are written out here once, from CONTRACTS.md, never imported from the
reference model.
"""

from __future__ import annotations

from typing import Any, Final

Json = Any
_UNSET: Final = object()

#: What a case needs (`Case.requires`) when it uses the registry ops and fields protocol 1.1
#: added, or blocks in a provider (PROTOCOL.md, "Capabilities").
REGISTRY_1_1: Final = ("registry", "registry-1.1")
ASYNC_PROVIDERS: Final = ("registry", "async-providers")

#: CONTRACTS.md, "Literal constants".
IDENTITY_NAME: Final = "harness:identity"
IDENTITY_TEXT: Final = "You are an AI agent powered by DeepSeek Harness."
PERSONA_NAME: Final = "deployment:persona"
UNLISTED_TOOLS: Final = "<unlisted-tools>"
RUNTIME_CONTEXT_PREAMBLE: Final = (
    "Current runtime context. This snapshot supersedes earlier runtime-context snapshots."
)


def _op(op_name: str, expect: Json, /, **fields: Json) -> Json:
    op = {"op": op_name, **{key: value for key, value in fields.items() if value is not _UNSET}}
    if expect is not _UNSET:
        op["expect"] = expect
    return op


# -- ops ------------------------------------------------------------------------------------


def configure(config: Json, *, expect: Json = _UNSET) -> Json:
    return _op("configure", expect, config=config)


def scope(name: str, parent: str | None = None) -> Json:
    return _op("scope", _UNSET, scope=name, parent=parent)


def section(
    handle: str,
    name: str,
    order: float | str,
    text: Json,
    *,
    layer: str | None = None,
    complete: bool | object = _UNSET,
    expect: Json = _UNSET,
) -> Json:
    fields = {"name": name, "order": order, "text": text, "complete": complete}
    return _op("register", expect, handle=handle, layer=layer, kind="section", **fields)


def context(
    handle: str,
    name: str,
    order: float | str,
    text: Json,
    *,
    layer: str | None = None,
    expect: Json = _UNSET,
) -> Json:
    fields = {"name": name, "order": order, "text": text}
    return _op("register", expect, handle=handle, layer=layer, kind="context", **fields)


def variable(
    handle: str, name: str, provider: Json, *, layer: str | None = None, expect: Json = _UNSET
) -> Json:
    return _op(
        "register",
        expect,
        handle=handle,
        layer=layer,
        kind="variable",
        name=name,
        provider=provider,
    )


def tools(handle: str, provider: Json, *, layer: str | None = None, expect: Json = _UNSET) -> Json:
    return _op("register", expect, handle=handle, layer=layer, kind="tools", provider=provider)


def suppressor(handle: str, *, layer: str | None = None) -> Json:
    return _op("register", _UNSET, handle=handle, layer=layer, kind="suppressor")


def release(handle: str) -> Json:
    return _op("release", _UNSET, handle=handle)


def listen(handle: str, listener: Json, *, scope: str | None = None) -> Json:
    return _op("listen", _UNSET, handle=handle, scope=scope, listener=listener)


def assemble(
    name: str,
    scope: str | None = None,
    *,
    aborted: bool = False,
    reason: Json = _UNSET,
    expect: Json = _UNSET,
) -> Json:
    """``aborted``: start with a signal that is already aborted (``reason``, default user)."""
    fields: Json = {"aborted": True, "reason": reason} if aborted else {}
    return _op("assemble", expect, assembly=name, scope=scope, **fields)


def await_(name: str, *, expect: Json = _UNSET) -> Json:
    return _op("await", expect, assembly=name)


def open_gate(gate: str) -> Json:
    return _op("open", _UNSET, gate=gate)


def abort(name: str, reason: Json = _UNSET) -> Json:
    return _op("abort", _UNSET, assembly=name, reason=reason)


def render(name: str, *, expect: Json = _UNSET) -> Json:
    return _op("render", expect, assembly=name)


def render_context(name: str, *, expect: Json = _UNSET) -> Json:
    return _op("render-context", expect, assembly=name)


def mutate(name: str, path: list[str | int], *, set: Json = _UNSET, append: Json = _UNSET) -> Json:
    return _op("mutate", _UNSET, assembly=name, path=path, set=set, append=append)


def counts(*, expect: Json = _UNSET) -> Json:
    return _op("counts", expect)


def received(tracked_id: str, *, expect: Json = _UNSET) -> Json:
    """What the provider or listener with this id was given, call by call."""
    return _op("received", expect, id=tracked_id)


def dispose(scope_name: str) -> Json:
    return _op("dispose", _UNSET, scope=scope_name)


def change_observer(fails: str) -> Json:
    """Add a change observer that throws an error with this message on its first call only."""
    return _op("change-observer", _UNSET, fails=fails)


# -- provider and listener data -------------------------------------------------------------


def provider(
    returns: Json = _UNSET,
    *,
    id: str | None = None,
    sequence: list[Json] | None = None,
    fails: str | None = None,
    effects: list[Json] | None = None,
    wait_gate: str | None = None,
    wait_abort: bool = False,
) -> Json:
    """A scripted provider: one of ``returns`` (``None``: no value), ``sequence``, ``fails``."""
    outcomes = [returns is not _UNSET, sequence is not None, fails is not None]
    if sum(outcomes) != 1:
        raise ValueError("a provider needs exactly one of returns, sequence, fails")
    spec: Json = {}
    if id is not None:
        spec["id"] = id
    if effects:
        spec["effects"] = effects
    if wait_gate is not None:
        spec["waitFor"] = {"gate": wait_gate}
    elif wait_abort:
        spec["waitFor"] = {"abort": True}
    if returns is not _UNSET:
        spec["returns"] = returns
    elif sequence is not None:
        spec["sequence"] = sequence
    else:
        spec["fails"] = fails
    return spec


def listener(
    *edits: Json,
    id: str | None = None,
    before: list[Json] | None = None,
    call_next: bool = True,
    wait_gate: str | None = None,
    wait_abort: bool = False,
) -> Json:
    """``edits`` apply to what ``next`` returned; ``before`` to the payload, before ``next``."""
    spec: Json = {"edits": list(edits)} if edits else {}
    if before is not None:
        spec["before"] = before
    if id is not None:
        spec["id"] = id
    if not call_next:
        spec["callNext"] = False
    if wait_gate is not None:
        spec["waitFor"] = {"gate": wait_gate}
    elif wait_abort:
        spec["waitFor"] = {"abort": True}
    return spec


def schema(name: str, description: str = "", parameters: Json = None, **extra: Json) -> Json:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object"} if parameters is None else parameters,
        **extra,
    }


def toolset(*schemas: Json, known: list[str] | None = None) -> Json:
    value: Json = {"schemas": list(schemas)}
    if known is not None:
        value["knownNames"] = known
    return value


def append(list_name: str, item: Json) -> Json:
    """EDIT: add ``item`` at the end of ``sections``, ``contexts`` or ``tools``."""
    return {"append": list_name, "item": item}


def set_variable(name: str, value: str | None) -> Json:
    """EDIT: set (or add) a variable of the payload; ``None`` is "registered, no value"."""
    return {"set-variable": name, "value": value}


def entry(name: str, text: str) -> Json:
    """A section or context as it appears in an assembly: ``{"name", "text"}``."""
    return {"name": name, "text": text}


IDENTITY: Final = entry(IDENTITY_NAME, IDENTITY_TEXT)
EMPTY_PERSONA: Final = entry(PERSONA_NAME, "")


# -- expected observations ------------------------------------------------------------------

OK: Final = {"ok": True}
PENDING: Final = {"pending": True}


def error(kind: str, where: str | None = None) -> Json:
    body = {"kind": kind}
    if where is not None:
        body["where"] = where
    return {"error": body}


def assembly(**fields: Json) -> Json:
    """Expect an assembly; only the fields given (sections, contexts, tools, variables) count."""
    unknown = set(fields) - {"sections", "contexts", "tools", "variables"}
    if unknown:
        raise ValueError(f"unknown assembly fields {sorted(unknown)}")
    return {"assembly": fields}


def text(value: str) -> Json:
    return {"text": value}


def call(scope: str | None = None, *, reason: Json = _UNSET, payload: Json = _UNSET) -> Json:
    """One recorded call (``received``): the context given (``reason``: its signal was aborted,
    with this reason), and a listener's payload."""
    recorded: Json = {"scope": scope, "agent": scope, "aborted": reason is not _UNSET}
    if reason is not _UNSET:
        recorded["reason"] = reason
    if payload is not _UNSET:
        recorded["payload"] = payload
    return recorded


def calls(*recorded: Json) -> Json:
    return {"calls": list(recorded)}


def evaluations(changes: int | None = None, **by_id: int) -> Json:
    """Expect evaluation counts for the ids given (others not compared), and the change count."""
    expected: Json = {"evaluations": by_id}
    if changes is not None:
        expected["changes"] = changes
    return expected
