"""The conforming variants, each the reference with one open choice taken the other way, and what
`VARIANTS` says of each: the sentence that leaves it open, a witness, the families fuzzed."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import httpx
from wrong_impls.base import patched

from dsh_conformance.cases import deepseek as ds
from dsh_conformance.scenarios import loopscenario as lp
from dsh_conformance.scenarios import scenario as s
from dsh_reference import config, loop, session
from dsh_reference.assembly import ToolSchema
from dsh_reference.deepseek import translate, wire
from dsh_reference.errors import ContractError
from dsh_reference.harness import Driver
from dsh_reference.llm import LlmError

Json = Any

# -- messages -------------------------------------------------------------------------------------


@patched(ContractError, "__init__")
def _RewordedErrors(
    init: Callable[..., None], error: ContractError, kind: str, *_: Any, **kw: Any
) -> None:
    init(error, kind, f"this operation was refused ({kind})", **kw)


@patched(LlmError, "__init__")
def _RewordedFailures(
    init: Callable[..., None], error: LlmError, code: str, *_: Any, **kw: Any
) -> None:
    init(error, code, f"the model call did not succeed ({code})", **kw)


class RewordedMessages(Driver):
    """Every error the model answers an op with (a `ContractError`) and every model-call failure
    (an `LlmError`: the DeepSeek adapter's) carries a message of its own words, naming only its
    kind or code: "messages are free text"."""

    def __init__(self) -> None:
        for patch in (_RewordedErrors, _RewordedFailures):
            patch.__init__(self)  # type: ignore[misc]


# -- registry -------------------------------------------------------------------------------------


def _array_index(key: str) -> bool:
    """An integer-like key in JavaScript's sense (a canonical array index): it comes first."""
    return (
        key.isascii() and key.isdigit() and (key == "0" or key[0] != "0") and int(key) < 2**32 - 1
    )


def _javascript_order(value: Json) -> Json:
    """``value`` with every object's integer-like keys first, ascending, the others after them
    in their order, as a JavaScript object keeps them."""
    if isinstance(value, dict):
        first = sorted((key for key in value if _array_index(key)), key=int)
        rest = [key for key in value if not _array_index(key)]
        return {key: _javascript_order(value[key]) for key in (*first, *rest)}
    if isinstance(value, list):
        return [_javascript_order(item) for item in value]
    return value


@patched(ToolSchema, "keep")
def IntegerLikeKeysFirst(keep: Callable[..., ToolSchema], schema: Json) -> ToolSchema:
    """The structural copy of a tool schema's `parameters` keeps its objects' keys as a
    JavaScript object does: integer-like keys first, in ascending order."""
    kept = keep(schema)
    kept.parameters = _javascript_order(kept.parameters)
    return kept


@patched(config.PromptConfig, "load")
def UnknownConfigKeysIgnored(load: Callable[..., config.PromptConfig], raw: Json) -> Any:
    """A configuration key the loader does not know is ignored, as the upstream does, instead of
    refused (`config-invalid`)."""
    if isinstance(raw, Mapping):
        raw = {key: value for key, value in raw.items() if key in config._KEYS.values()}
    return load(raw)


# -- DeepSeek wire ---------------------------------------------------------------------------------

#: NEXT LINE: Unicode White_Space, which JavaScript's trim keeps.
NEL: Final = "\x85"


@patched(wire, "check_api_key")
def TrimsNextLine(check: Callable[[str | None], str], raw: str | None) -> str:
    """The API key is trimmed of Unicode White_Space, U+0085 included (JavaScript's trim keeps
    it). A key of only white space stays `INVALID_CREDENTIAL`, never `MISSING_CREDENTIAL`."""
    if raw:
        raw = raw.strip(wire.JS_WHITE_SPACE + NEL) or " "
    return check(raw)


def _content_apart(data: str, beside: str) -> tuple[str, str] | None:
    """A payload whose one delta has both non-empty `content` and a non-empty ``beside`` field,
    as two payloads: the chunk without the delta's `content`, and the `content` alone (``None``
    for any other payload, or one that would not read back as the same JSON value)."""
    try:
        chunk = json.loads(data, parse_constant=translate._reject_constant)
        (choice,) = chunk["choices"]
        delta = choice["delta"]
        content, other = delta["content"], delta[beside]
        if not (isinstance(content, str) and content and isinstance(other, list | str) and other):
            return None
        rest = {key: value for key, value in delta.items() if key != "content"}
        without = json.dumps({**chunk, "choices": [{**choice, "delta": rest}]}, allow_nan=False)
        return without, json.dumps({"choices": [{"delta": {"content": content}}]})
    except (ValueError, TypeError, KeyError):
        return None


def _apart(
    payload: Callable[..., list[Json]],
    translator: translate.StreamTranslator,
    data: str,
    beside: str,
    *,
    content_first: bool,
) -> list[Json]:
    """``payload`` translating a delta that holds `content` and ``beside`` as two payloads, the
    one with `content` first or last (`_content_apart`); any other payload as it is."""
    apart = _content_apart(data, beside)
    if apart is None:
        return payload(translator, data)
    without, content = apart
    parts = (content, without) if content_first else (without, content)
    return [event for part in parts for event in payload(translator, part)]


@patched(translate.StreamTranslator, "payload")
def ToolCallsBeforeContent(
    payload: Callable[..., list[Json]], translator: translate.StreamTranslator, data: str
) -> list[Json]:
    """A delta holding both `content` and `tool_calls` opens its tool-call blocks before its
    text block (the reference opens the text block first)."""
    return _apart(payload, translator, data, "tool_calls", content_first=False)


@patched(translate.StreamTranslator, "payload")
def TextBeforeReasoning(
    payload: Callable[..., list[Json]], translator: translate.StreamTranslator, data: str
) -> list[Json]:
    """A delta holding both `reasoning_content` and `content` opens its text block before its
    reasoning block (the reference opens the reasoning block first)."""
    return _apart(payload, translator, data, "reasoning_content", content_first=True)


@patched(httpx.Response, "aiter_bytes")
async def ClosedMidBodyIsStreamClosed(
    aiter_bytes: Callable[..., AsyncIterator[bytes]],
    response: httpx.Response,
    *args: Any,
    **kwargs: Any,
) -> AsyncIterator[bytes]:
    """Over HTTP, a connection that breaks while the body of a 200 response arrives (before
    `[DONE]`) fails `STREAM_CLOSED`, the stream having ended without `[DONE]` (the reference,
    as the upstream, says `TRANSPORT`)."""
    try:
        async for part in aiter_bytes(response, *args, **kwargs):
            yield part
    except httpx.TransportError:
        raise LlmError("STREAM_CLOSED", "the connection closed before [DONE]") from None


# -- session --------------------------------------------------------------------------------------


@patched(session, "_check_surface_metadata")
def SourceSeqsCheckedFirst(
    check: Callable[..., Any], type: str, surface_op: Json, seqs: Json, seq: int, where: str
) -> Any:
    """An event's `sourceEventSeqs` are checked before its `surfaceOp`: one that breaks both
    rules is refused `source-seqs-invalid` (the reference names `surface-replace-invalid`)."""
    if type in session.SURFACE_ELIGIBLE and surface_op is not None:
        session._parse_source_seqs(seqs, type, seq, where)
    return check(type, surface_op, seqs, seq, where)


# -- loop -----------------------------------------------------------------------------------------


@patched(loop.Agent, "_chunks")
async def InboxNoteBeforeTheFirstChunk(
    chunks: Callable[..., AsyncIterator[Json]], agent: loop.Agent, request: Json, signal: Any
) -> AsyncIterator[Json]:
    """Every attempt logs an event outside the core vocabulary (an upstream-style inbox splice
    that moves nothing) between its request's dispatch and its first chunk."""
    first = True
    async for chunk in chunks(agent, request, signal):
        if first:
            agent.append("agent/inbox/spliced", {"target": "next-step", "start": 0, "inserted": []})
            first = False
        yield chunk


@patched(loop.Agent, "__init__")
def CancelledToolGetsACancellationResult(
    init: Callable[..., None], agent: loop.Agent, **options: Any
) -> None:
    """A tool call running when its turn is cancelled commits a cancellation result
    (`isError: true`) instead of the tool's own result."""
    run = options["tools"]

    async def tools(call: loop.ToolCall, signal: Any) -> loop.ToolOutcome:
        outcome = await run(call, signal)
        cancelled = [{"type": "text", "text": "cancelled"}]
        return loop.ToolOutcome(cancelled, True) if signal.aborted else outcome

    init(agent, **{**options, "tools": tools})


# -- the table ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """One conforming variant: why its choice is allowed, where it shows, where fuzzing goes."""

    #: The CONTRACTS.md sentence (with its contract ID) that leaves the choice open.
    sentence: str
    #: The family whose runner runs the witness (`dsh_conformance.fuzz.engine.run_scenario`).
    family: str
    #: Ops (the protocol's ``ops``, without expectations) on which the variant's observations
    #: differ from the reference's.
    witness: tuple[Json, ...]
    #: The op families whose generated scenarios reach the choice: fuzzed against the reference.
    fuzzed: tuple[str, ...]


def _unexpected(op: Json, **fields: Json) -> Json:
    """A wire op without the expectation its case helper requires, ``fields`` replaced."""
    return {**{key: value for key, value in op.items() if key != "expect"}, **fields}


#: A tool whose `parameters` hold an integer-like key after another key.
_NUMBERED_TOOL: Final = s.schema(
    "t", parameters={"type": "object", "properties": {"b": {"type": "string"}, "1": {}}}
)
#: One delta holding text and a tool call, then the finish and `[DONE]`.
_TEXT_AND_CALL: Final = ds.sse(
    json.dumps(
        {
            "choices": [
                {
                    "delta": {
                        "content": "hi",
                        "tool_calls": [
                            {"index": 0, "id": "c1", "function": {"name": "t", "arguments": "{}"}}
                        ],
                    }
                }
            ]
        }
    ),
    json.dumps({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}),
    "[DONE]",
)

#: One delta holding reasoning and text, then the finish and `[DONE]`.
_REASONING_AND_TEXT: Final = ds.sse(
    json.dumps({"choices": [{"delta": {"reasoning_content": "hm", "content": "hi"}}]}),
    json.dumps({"choices": [{"delta": {}, "finish_reason": "stop"}]}),
    "[DONE]",
)
#: A 200 response whose connection closes mid-body: one delta of an announced longer body.
_CLOSED_MID_BODY: Final = {
    "status": 200,
    "headers": [["content-type", "text/event-stream"]],
    "parts": [base64.b64encode(ds.sse('{"choices":[{"delta":{"content":"a"}}]}')).decode()],
    "contentLength": 1000,
}

#: Every conforming variant by driver name.
VARIANTS: Final[dict[str, Variant]] = {
    "CancelledToolGetsACancellationResult": Variant(
        'PROMPT-RETRY-BOUNDARY: "that call still commits one `tool/result` citing it — the '
        "tool's own result or a cancellation result (`isError: true`); which one is the "
        "implementation's choice\".",
        "loop",
        (
            lp.agent(
                "a",
                model=[lp.tool_call("c1", "add", "{}"), lp.answer("4")],
                tools=[{**lp.tool_result("4"), "waitFor": {"abort": True}}],
            ),
            lp.followup("a", "2+2?"),
            lp.cancel("a"),
            lp.observe("a"),
        ),
        (),
    ),
    "InboxNoteBeforeTheFirstChunk": Variant(
        'LOGGEDLOOP-REQUEST-INVARIANT: "Events outside the core vocabulary, which an '
        "implementation may log at any time, may stand between a dispatch and its attempt's "
        'first event."',
        "loop",
        (lp.agent("a", model=[lp.answer("hello")]), lp.followup("a", "hi"), lp.observe("a")),
        (),
    ),
    "RewordedMessages": Variant(
        'Intro: ""Error kind" names are the stable codes the conformance suite compares '
        '(messages are free text)"; PROTOCOL.md, LLM_FAILURE: "Codes are compared; messages '
        'never are".',
        "registry",
        (s.section("a", "a", "NaN", "x"),),
        ("registry", "session", "wire"),
    ),
    "IntegerLikeKeysFirst": Variant(
        'PROMPT-ASSEMBLY-PIPELINE step 3: "the copy keeps key order, except that an '
        "implementation whose objects put integer-like keys first — JavaScript's do — may "
        'reorder those, so no check depends on the order of integer-like keys".',
        "registry",
        (s.tools("t", s.provider(s.toolset(_NUMBERED_TOOL))), s.assemble("x")),
        ("registry", "loop"),
    ),
    "UnknownConfigKeysIgnored": Variant(
        'PROMPT-REGISTRY-CONTRACT: "Unknown configuration keys are implementation-defined (the '
        'upstream ignores them); the suite does not test them."',
        "registry",
        (s.configure({"unknownKey": True}),),
        ("registry",),
    ),
    "TrimsNextLine": Variant(
        "PROMPT-DEEPSEEK-WIRE: the key \"is trimmed of white space as JavaScript's "
        "`String.prototype.trim` defines it (Unicode `White_Space`, line terminators and "
        "U+FEFF)\": U+0085 is Unicode White_Space, which JavaScript's trim keeps.",
        "wire",
        (
            _unexpected(
                ds.request_op(ds.wire_request(ds.user(ds.text("hi"))), expect=None),
                apiKey=NEL + ds.KEY,
            ),
        ),
        ("wire",),
    ),
    "ToolCallsBeforeContent": Variant(
        "PROMPT-DEEPSEEK-WIRE says nothing of the order in which one delta's fields open their "
        "blocks (its stream rules map payloads, finish reasons and usage; PROTOCOL.md's "
        "STREAM_CHUNK only ends blocks in opening order).",
        "wire",
        (_unexpected(ds.stream_op(_TEXT_AND_CALL, expect=None)),),
        ("wire",),
    ),
    "TextBeforeReasoning": Variant(
        "PROMPT-DEEPSEEK-WIRE says nothing of the order in which one delta's fields open their "
        "blocks, reasoning and text no more than text and tool calls (see ToolCallsBeforeContent).",
        "wire",
        (_unexpected(ds.stream_op(_REASONING_AND_TEXT, expect=None)),),
        ("wire",),
    ),
    "ClosedMidBodyIsStreamClosed": Variant(
        'PROMPT-DEEPSEEK-WIRE: "EOF without it → `STREAM_CLOSED`"; it names no code for a broken '
        'connection (the upstream says `TRANSPORT`); PROTOCOL.md: "for the latter CONTRACTS.md '
        'names no code, so either `STREAM_CLOSED` or `TRANSPORT` is accepted".',
        "http",
        (
            {
                "op": "deepseek-http",
                "request": ds.wire_request(ds.user(ds.text("hi"))),
                "apiKey": ds.KEY,
                "baseUrl": "http://127.0.0.1:0",
                "response": _CLOSED_MID_BODY,
            },
        ),
        ("http",),
    ),
    "SourceSeqsCheckedFirst": Variant(
        'ROOT-MODEL, "The session log": "A seed is checked for `session-non-json` first, then '
        "for these (and `session-legacy-header`), then for `seq-not-contiguous`, then against the "
        'surface rules": no order among the surface rules, and none at all for an append.',
        "session",
        (
            _unexpected(
                s.session_append(
                    "user/message", s.user_message("m1", "hi"), surface_op="x", source_seqs="y"
                )
            ),
        ),
        ("session",),
    ),
}
