"""Builders for scenario ops and their expected observations (dsh_conformance/PROTOCOL.md).

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
#: added, or blocks in a provider (PROTOCOL.md, "`start` → `started`").
REGISTRY_1_1: Final = ("registry", "registry-1.1")
REGISTRY_1_2: Final = ("registry", "registry-1.1", "registry-1.2")
SESSION_1_2: Final = ("session", "session-1.2")
ASYNC_PROVIDERS: Final = ("registry", "async-providers")

#: CONTRACTS.md, "Literal constants".
IDENTITY_NAME: Final = "harness:identity"
IDENTITY_TEXT: Final = "You are an AI agent powered by DeepSeek Harness."
PERSONA_NAME: Final = "deployment:persona"
UNLISTED_TOOLS: Final = "<unlisted-tools>"
RUNTIME_CONTEXT_PREAMBLE: Final = (
    "Current runtime context. This snapshot supersedes earlier runtime-context snapshots."
)
RUNTIME_CONTEXT_CLEARED: Final = (
    "Current runtime context: none. Earlier runtime-context snapshots no longer apply."
)
#: The source of runtime-context messages (a snapshot adds `form` and `sections`).
RUNTIME_CONTEXT_OWNER: Final = {"kind": "plugin", "plugin": "@deepseek-ai/dsh-system-prompt"}


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


# -- session ops (the `session` capability) -------------------------------------------------


def session_seed(events: list[Json], *, expect: Json = _UNSET) -> Json:
    return _op("session-seed", {"ok": True} if expect is _UNSET else expect, events=events)


def session_append(
    type: str,
    data: Json,
    *,
    surface_op: Json = _UNSET,
    source_seqs: Json = _UNSET,
    inject: list[Json] | None = None,
    expect: Json = _UNSET,
) -> Json:
    """Append ``{type, data, surfaceOp?, sourceEventSeqs?}``; expects ok unless told otherwise."""
    event = {"type": type, "data": data}
    if surface_op is not _UNSET:
        event["surfaceOp"] = surface_op
    if source_seqs is not _UNSET:
        event["sourceEventSeqs"] = source_seqs
    fields: Json = {"event": event}
    if inject:
        fields["inject"] = inject
    return _op("session-append", {"ok": True} if expect is _UNSET else expect, **fields)


def inject(at: list[str | int], value: str) -> Json:
    """Put a value JSON cannot carry at ``at`` (``undefined``, ``NaN``, ``-0``, ``cycle``...)."""
    return {"at": at, "value": value}


def session_log(*, expect: Json = _UNSET) -> Json:
    return _op("session-log", expect)


def session_surface(*, expect: Json = _UNSET) -> Json:
    return _op("session-surface", expect)


def session_messages(*, expect: Json = _UNSET) -> Json:
    return _op("session-messages", expect)


def session_header(*, expect: Json = _UNSET) -> Json:
    return _op("session-header", expect)


def header_canonical(header: Json, *, expect: Json = _UNSET) -> Json:
    return _op("header-canonical", expect, header=header)


def header_equal(a: Json, b: Json, *, expect: Json = _UNSET) -> Json:
    return _op("header-equal", expect, a=a, b=b)


def projection_start() -> Json:
    return _op("projection-start", {"ok": True})


def project(sections: list[Json], *, expect: Json = _UNSET) -> Json:
    return _op("project", expect, sections=sections)


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


# -- session data: messages and headers as the log holds them ------------------------------


def user_message(id: str, text: str, *, source: Json = None) -> Json:
    """A `user/message`'s data: ``{id, role: "user", content: [one text block], source}``."""
    return {
        "id": id,
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "source": {"kind": "user"} if source is None else source,
    }


def assistant_message(id: str, *content: Json, turn: int = 1, step: int = 1) -> Json:
    """An `assistant/message`'s data ``{turn, step, message}``; ``content`` may be empty."""
    message = {
        "id": id,
        "role": "assistant",
        "content": list(content),
        "source": {"kind": "model", "provider": "deepseek", "model": "deepseek-chat"},
    }
    return {"turn": turn, "step": step, "message": message}


def tool_result(id: str, call_id: str, output: str, **extra: Json) -> Json:
    """A `tool/result`'s data: one tool-result block for ``call_id``, plus ``extra`` fields."""
    block = {
        "type": "tool-result",
        "toolCallId": call_id,
        "content": [{"type": "text", "text": output}],
        "isError": False,
    }
    message = {
        "id": id,
        "role": "user",
        "content": [block],
        "source": {"kind": "tool", "callId": call_id},
    }
    return {"turn": 1, "step": 1, "message": message, **extra}


def snapshot_source(*sections: Json) -> Json:
    """The source of a runtime-context message: with sections, a snapshot; without, cleared."""
    if not sections:
        return dict(RUNTIME_CONTEXT_OWNER)
    return {**RUNTIME_CONTEXT_OWNER, "form": "snapshot", "sections": list(sections)}


def snapshot_text(*texts: str) -> str:
    """The preamble, a blank line, then the context texts joined by blank lines."""
    return RUNTIME_CONTEXT_PREAMBLE + "\n\n" + "\n\n".join(texts)


def proposal(text: str, *sections: Json) -> Json:
    """A proposed runtime-context message (no ``id``: the loop gives it one)."""
    return {
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "source": snapshot_source(*sections),
    }


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


#: A CALL's `agent` left uncompared: 1.1 harnesses pass the scope as `agent` for every
#: `assemble` op; since 1.2 only an agent's own scope is passed as `agent`.
NOT_COMPARED: Final = object()


def call(
    scope: str | None = None,
    *,
    agent: Json = _UNSET,
    reason: Json = _UNSET,
    payload: Json = _UNSET,
) -> Json:
    """One recorded call (``received``): the context given (``agent``: default the scope;
    ``reason``: its signal was aborted, with this reason), and a listener's payload."""
    recorded: Json = {"scope": scope, "agent": scope if agent is _UNSET else agent}
    if agent is NOT_COMPARED:
        del recorded["agent"]
    recorded["aborted"] = reason is not _UNSET
    if reason is not _UNSET:
        recorded["reason"] = reason
    if payload is not _UNSET:
        recorded["payload"] = payload
    return recorded


def calls(*recorded: Json) -> Json:
    return {"calls": list(recorded)}


def events(*items: Json) -> Json:
    """Expect the session log: these events (``time`` is never compared)."""
    return {"events": list(items)}


def surface(*seqs: int) -> Json:
    return {"surface": list(seqs)}


def messages(*items: Json) -> Json:
    return {"messages": list(items)}


def header(value: Json) -> Json:
    """Expect a header (``None``: no header in force)."""
    return {"header": value}


def equal(value: bool) -> Json:
    return {"equal": value}


def proposed(message: Json) -> Json:
    """Expect ``project`` to propose ``message`` (``None``: nothing)."""
    return {"message": message}


def evaluations(changes: int | None = None, **by_id: int) -> Json:
    """Expect evaluation counts for the ids given (others not compared), and the change count."""
    expected: Json = {"evaluations": by_id}
    if changes is not None:
        expected["changes"] = changes
    return expected
