"""Builders for the ``loop`` ops, the scripted model replies, and the expected log view.

Terse replies (`answer`, `tool_call`, `fails`, `partial`) are expanded to stream chunks here, in
the suite, so every implementation receives identical chunks (§0.4 vocabulary); `attempt` expands
the same reply into the `assistant/chunk` events a conforming loop logs for it. Expected events
are written in the view of `dsh_conformance.judge.logview`: positions instead of seqs, ``#n``
message ids in order of first appearance, no ``time``.
"""

from __future__ import annotations

from typing import Any, Final

from .scenario import (
    IDENTITY_TEXT,
    RUNTIME_CONTEXT_CLEARED,
    RUNTIME_CONTEXT_OWNER,
    RUNTIME_CONTEXT_PREAMBLE,
)

Json = Any
_UNSET: Final = object()
#: What an expected value says where any string will do: a message, which is free text
#: (PROTOCOL.md, "Observations": "Messages are free text and never compared").
ANY_TEXT: Final = "<any text>"

#: The call configuration of most cases.
CONFIG: Final = {"provider": "scripted", "model": "m1"}
#: The system text of a default configuration: the identity section (the persona is empty).
SYSTEM: Final = IDENTITY_TEXT
USER_CANCEL: Final = {"kind": "user"}
DISPOSED: Final = {"kind": "disposed"}
COMPLETED: Final = {"kind": "completed"}
BLOCKED: Final = {"kind": "blocked"}


def _op(name: str, expect: Json, /, **fields: Json) -> Json:
    op = {"op": name, **{key: value for key, value in fields.items() if value is not _UNSET}}
    if expect is not _UNSET:
        op["expect"] = expect
    return op


# -- ops ----------------------------------------------------------------------------------------


def agent(
    name: str,
    *,
    model: list[Json],
    config: Json = CONFIG,
    tools: list[Json] | None = None,
    pre_step: list[Json] | None = None,
    request_error: list[Json] | None = None,
    request: list[Json] | None = None,
    turn_stopping: list[Json] | None = None,
    seed: Json = _UNSET,
    adapter: Json = _UNSET,
    adapters: Json = _UNSET,
    parent: str | object = _UNSET,
    expect: Json = _UNSET,
) -> Json:
    """Create an agent whose scope is named ``name``, scripted per request, tool call, decision
    (``request``: the `agent/request` hooks, ``turn_stopping``: the `agent/turn-stopping` ones,
    1.2); ``expect`` an error when it must be refused."""
    fields: Json = {"agent": name, "config": config, "model": model}
    scripted = (
        ("tools", tools),
        ("preStep", pre_step),
        ("requestError", request_error),
        ("request", request),
        ("turnStopping", turn_stopping),
    )
    for key, value in scripted:
        if value:
            fields[key] = value
    return _op(
        "agent", expect, **fields, seed=seed, adapter=adapter, adapters=adapters, parent=parent
    )


def after_gate(gate: str, action: str) -> Json:
    """An `agent/request-error` ACTION that waits for ``gate`` before deciding ``action``."""
    return {"action": action, "waitFor": {"gate": gate}}


def followup(name: str, text: str) -> Json:
    return _op("followup", _UNSET, agent=name, text=text)


def steer(name: str, text: str) -> Json:
    return _op("steer", _UNSET, agent=name, text=text)


def inject(name: str, text: str) -> Json:
    """1.2: a plugin's message for the next step, placed in the inbox without waking the agent."""
    return _op("inject", _UNSET, agent=name, text=text)


def hook_calls(name: str, *, expect: Json) -> Json:
    """1.2: what the agent's `agent/pre-step`, `agent/request` and `agent/request-error` hooks
    were asked, call by call."""
    return _op("hook-calls", expect, agent=name)


def request_state(name: str, *, header: Json, context: Json) -> Json:
    """1.2: the folded `request/header` and the last `request/context` of the agent's log."""
    return _op("request-state", {"header": header, "context": context}, agent=name)


def register_adapter(name: str, provider: str, adapter: Json) -> Json:
    """1.2: register ``provider``'s adapter (an ADAPTERS_ENTRY) for an agent created with
    ``adapters``; its later resolutions and requests use it."""
    return _op("register-adapter", _UNSET, agent=name, provider=provider, adapter=adapter)


def cancel(name: str, reason: Json = _UNSET) -> Json:
    return _op("cancel", _UNSET, agent=name, reason=reason)


def dispose(name: str) -> Json:
    return _op("dispose-agent", _UNSET, agent=name)


def compact(
    name: str, start: int, end: int, text: str = "summary", *, expect: Json = _UNSET
) -> Json:
    """Replace surface positions ``start``..``end`` of an idle agent with a summary message."""
    return _op("compact", expect, agent=name, start=start, end=end, text=text)


def summary(id: str, text: str = "summary") -> Json:
    """The message a ``compact`` op writes (a plugin's, not runtime context), appended."""
    message = {
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "source": {"kind": "plugin", "plugin": "compactor"},
        "id": id,
    }
    return {"type": "user/message", "data": message, "surfaceOp": "append"}


def observe(
    name: str,
    *,
    log: Json = _UNSET,
    tail: Json = _UNSET,
    types: Json = _UNSET,
    requests: Json = _UNSET,
) -> Json:
    """Read the agent's log and requests; expect the view's ``log`` (or its ``tail``),
    ``types``, ``requests``."""
    given = (("log", log), ("tail", tail), ("types", types), ("requests", requests))
    expected = {key: value for key, value in given if value is not _UNSET}
    return _op("observe", expected if expected else _UNSET, agent=name)


# -- replies ------------------------------------------------------------------------------------


def answer(text: str, *, usage: Json = None) -> Json:
    """A text answer: block-start, text-delta, block-end, [usage], finish stop."""
    block = {"type": "text", "text": text}
    chunks = [
        {"type": "block-start", "index": 0, "blockType": "text"},
        {"type": "text-delta", "index": 0, "text": text},
        {"type": "block-end", "index": 0, "block": block},
    ]
    if usage is not None:
        chunks.append({"type": "usage", "usage": usage})
    chunks.append({"type": "finish", "reason": {"kind": "stop"}})
    return {"chunks": chunks}


def tool_call(call_id: str, name: str, arguments: str = "{}") -> Json:
    """One tool call: block-start, tool-call-delta, block-end, finish tool-calls."""
    block = {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}
    delta = {"type": "tool-call-delta", "index": 0, "id": call_id, "name": name}
    return {
        "chunks": [
            {"type": "block-start", "index": 0, "blockType": "tool-call"},
            {**delta, "argumentsDelta": arguments},
            {"type": "block-end", "index": 0, "block": block},
            {"type": "finish", "reason": {"kind": "tool-calls"}},
        ]
    }


def fails(code: str, message: str = "scripted failure") -> Json:
    """The adapter fails before any chunk: the loop logs one terminal error ``finish``."""
    return {"chunks": [], "fail": {"code": code, "message": message}}


def partial(text: str, *, wait_gate: str | None = None) -> Json:
    """Start a text block, stream ``text``, then wait for the abort (or a gate)."""
    wait = {"gate": wait_gate} if wait_gate else {"abort": True}
    return {
        "chunks": [
            {"type": "block-start", "index": 0, "blockType": "text"},
            {"type": "text-delta", "index": 0, "text": text},
        ],
        "waitFor": wait,
    }


def tool_result(text: str, *, is_error: bool = False, concludes: bool = False) -> Json:
    result: Json = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["isError"] = True
    if concludes:
        result["concludes"] = True
    return result


# -- expected events (the view of dsh_conformance.judge.logview)
# ------------------------------------


def turn_start(turn: int) -> Json:
    return {"type": "turn/start", "data": {"turn": turn}}


def turn_end(turn: int, reason: Json = COMPLETED) -> Json:
    return {"type": "turn/end", "data": {"turn": turn, "reason": reason}}


def aborted(cause: Json) -> Json:
    return {"kind": "aborted", "reason": cause}


#: PROMPT-RETRY-BOUNDARY: how a turn ended by a throw that is not the model layer's failure ends
#: (its message is free text).
UNKNOWN: Final = {"kind": "error", "error": {"message": ANY_TEXT, "code": "UNKNOWN"}}


def step_start(turn: int, step: int) -> Json:
    return {"type": "step/start", "data": {"turn": turn, "step": step}}


def step_end(turn: int, step: int) -> Json:
    return {"type": "step/end", "data": {"turn": turn, "step": step}}


def user(text: str, id: str) -> Json:
    message = {
        "content": [{"type": "text", "text": text}],
        "source": {"kind": "user"},
        "role": "user",
        "id": id,
    }
    return {"type": "user/message", "data": message, "surfaceOp": "append"}


def injected(text: str, id: str) -> Json:
    """The message an ``inject`` op places in the inbox (1.2), as it is logged once claimed."""
    message = {
        "content": [{"type": "text", "text": text}],
        "source": {"kind": "plugin", "plugin": "injector"},
        "role": "user",
        "id": id,
    }
    return {"type": "user/message", "data": message, "surfaceOp": "append"}


def snapshot(id: str, *sections: tuple[str, str]) -> Json:
    """An owned runtime-context snapshot of ``(name, text)`` sections (LOOP-RUNTIME-CONTEXT)."""
    body = "\n\n".join(text for _name, text in sections)
    source = {
        **RUNTIME_CONTEXT_OWNER,
        "form": "snapshot",
        "sections": [{"name": name, "text": text} for name, text in sections],
    }
    text = f"{RUNTIME_CONTEXT_PREAMBLE}\n\n{body}"
    message = {"role": "user", "content": [{"type": "text", "text": text}], "source": source}
    return {"type": "user/message", "data": {**message, "id": id}, "surfaceOp": "append"}


def cleared(id: str) -> Json:
    message = {
        "role": "user",
        "content": [{"type": "text", "text": RUNTIME_CONTEXT_CLEARED}],
        "source": dict(RUNTIME_CONTEXT_OWNER),
        "id": id,
    }
    return {"type": "user/message", "data": message, "surfaceOp": "append"}


def header(
    reason: str,
    *,
    system: str | None = SYSTEM,
    config: Json = CONFIG,
    tools: list[Json] | None = None,
    adapter_defaults: Json = None,
) -> Json:
    """A `request/header` event; ``header`` canonical (no empty system or tool list)."""
    snapshot_: Json = {"config": config}
    if adapter_defaults:
        snapshot_["adapterDefaults"] = adapter_defaults
    if system:
        snapshot_["system"] = system
    if tools:
        snapshot_["tools"] = tools
    return {"type": "request/header", "data": {"header": snapshot_, "reason": reason}}


def context(config: Json = CONFIG, window: int | None = None) -> Json:
    data: Json = {"provider": config["provider"], "model": config["model"]}
    if window is not None:
        data["contextWindow"] = window
    return {"type": "request/context", "data": data}


def attempt(turn: int, step: int, reply: Json) -> list[Json]:
    """The `assistant/chunk` events of a reply that runs to its end (failure included: kind
    `aborted` for code `ABORTED`, else `error`, PROTOCOL.md's REPLY)."""
    chunks = list(reply["chunks"])
    if "fail" in reply:
        failure = {"message": reply["fail"]["message"], "code": reply["fail"]["code"]}
        kind = "aborted" if failure["code"] == "ABORTED" else "error"
        chunks.append({"type": "finish", "reason": {"kind": kind, "failure": failure}})
    return [
        {"type": "assistant/chunk", "data": {"turn": turn, "step": step, "chunk": chunk}}
        for chunk in chunks
    ]


def assistant(
    turn: int,
    step: int,
    content: list[Json],
    id: str,
    cites: range | list[int],
    *,
    config: Json = CONFIG,
    usage: Json = None,
    interrupted: bool = False,
) -> Json:
    source = {"kind": "model", "provider": config["provider"], "model": config["model"]}
    message = {"role": "assistant", "content": content, "source": source, "id": id}
    data: Json = {"turn": turn, "step": step, "message": message}
    if usage is not None:
        data["usage"] = usage
    if interrupted:
        data["interrupted"] = True
    return {
        "type": "assistant/message",
        "data": data,
        "surfaceOp": "append",
        "sourceEventSeqs": list(cites),
    }


def text_block(text: str) -> Json:
    return {"type": "text", "text": text}


def call_block(call_id: str, name: str, arguments: str = "{}") -> Json:
    return {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}


def tool_call_event(turn: int, step: int, call_id: str, name: str, arguments: str = "{}") -> Json:
    data = {"turn": turn, "step": step, "callId": call_id, "name": name, "arguments": arguments}
    return {"type": "tool/call", "data": data}


def tool_result_event(
    turn: int, step: int, call_id: str, text: str, id: str, call_position: int
) -> Json:
    block = {
        "type": "tool-result",
        "toolCallId": call_id,
        "content": [text_block(text)],
        "isError": False,
    }
    message = {
        "source": {"kind": "tool", "callId": call_id},
        "content": [block],
        "role": "user",
        "id": id,
    }
    return {
        "type": "tool/result",
        "data": {"turn": turn, "step": step, "message": message},
        "surfaceOp": "append",
        "sourceEventSeqs": [call_position],
    }


def end_seed() -> Json:
    return {"type": "session/end-seed", "data": {}}


def envelopes(*events: Json) -> list[Json]:
    """Expected-view events as a seed: each gets its ``seq`` (its index) and a ``time``."""
    return [{**event, "seq": seq, "time": 0} for seq, event in enumerate(events)]


def replacing(event: Json, start: int, end: int, cites: list[int] | None = None) -> Json:
    """``event`` as a surface replacement of ``start``..``end``, citing ``cites`` (default:
    every seq between them)."""
    return {
        **event,
        "surfaceOp": {"op": "replace", "start": start, "end": end},
        "sourceEventSeqs": list(range(start, end + 1)) if cites is None else cites,
    }
