"""ROOT-MODEL, "The session log": append rules with their error kinds, seeding, the surface fold,
the derived messages, and atomic failed appends.

Every rejected append is followed by a look at the log, so that "a rejected append leaves the log,
the surface and every projection exactly as they were" is checked where it happens.

Why one module: it is a table ordered as CONTRACTS.md's session-log section is, each case read
alone; the events they share are defined at its top.
"""

from __future__ import annotations

from ..judge.case import Case
from ..scenarios import scenario as s
from ..scenarios.scenario import Json

ROOT = ("ROOT-MODEL",)
SESSION = ("session",)

ATOMIC = (
    "An append is validated in full before anything changes: a rejected append leaves the log, "
    "the surface and every projection exactly as they were."
)
SURFACE = (
    "The surface is the ordered list of visible seqs: `append` adds the event at the end; a "
    "replace removes the nodes from `start` to `end` inclusive and puts the new event in their "
    "place. Derived messages = the surface's events mapped to their messages (`user/message` → "
    "its data, `assistant/message` → `data.message` unless its content is empty, `tool/result` → "
    "`data.message`)."
)

SEED_INVALID = (
    "`session-event-invalid` (seeding): a seeded event whose envelope or core payload is malformed."
)

NULL_GIVEN = (
    "A `surfaceOp` or `sourceEventSeqs` given as `null` is given, and the surface rules judge it "
    "(`surface-op-forbidden` on a type that may not carry it, else `surface-replace-invalid` for "
    "a `surfaceOp`, `source-seqs-invalid` for `sourceEventSeqs`), not `session-event-invalid`."
)

U0, U1, U2 = (s.user_message(f"u{n}", f"message {n}") for n in range(3))
TURN = {"turn": 1}
STEP = {"turn": 1, "step": 1}
CALL = {"turn": 1, "step": 1, "callId": "c1", "name": "read", "arguments": '{"path":"a"}'}
RESULT = s.tool_result("t3", "c1", "contents of a", meta={"bytes": 13})
HEADER_ONE: Json = {"config": {"provider": "deepseek", "model": "deepseek-chat"}, "system": "One."}
HEADER_TWO = {
    "config": {"provider": "deepseek", "model": "deepseek-chat"},
    "system": "",
    "tools": [],
}


def _three_users() -> list[Json]:
    """Seqs 0, 1, 2: three user messages, all appended."""
    return [s.session_append("user/message", m, surface_op="append") for m in (U0, U1, U2)]


def _rejected(
    kind: str,
    *appends: Json,
    before: list[Json],
    surface: list[int],
    after: list[Json] | tuple[()] = (),
) -> list[Json]:
    """``before``; each append rejected with ``kind``, the surface unchanged after it; ``after``."""
    ops = list(before)
    for append in appends:
        ops += [
            {**append, "expect": s.error(kind)},
            s.session_surface(expect=s.surface(*surface)),
        ]
    return [*ops, *after]


def _replace(start: int, end: int) -> Json:
    return {"op": "replace", "start": start, "end": end}


def _seeded(seq: int, type: str, data: Json, **metadata: Json) -> Json:
    return {"type": type, "seq": seq, "time": 1_700_000_000_000 + seq, "data": data, **metadata}


#: Seeded in place of an event envelope.
_NOT_OBJECTS: tuple[Json, ...] = (1, "user/message", [], None)


def _with_source(data: Json, source: Json) -> Json:
    """An assistant/message's data with its message's ``source`` replaced."""
    return {**data, "message": {**data["message"], "source": source}}


def _flagged_error(data: Json) -> Json:
    data["message"]["content"][0]["isError"] = True
    return data


#: How deep `session/data-nested-deep-is-lossless-json` nests its data: deeper than any
#: shortcut an implementation may take for common shapes (the reference's walks 64 deep).
DEEP = 80


def _nested(depth: int) -> Json:
    """An object ``depth`` objects deep, a string, a boolean, null, a number and a list at its
    bottom: no zero or negative number, which `zero-and-negative-numbers-are-lossless-json`
    judges, so that this case fails on depth alone."""
    value: Json = {"s": "deep", "b": True, "n": None, "x": 2.5, "list": [1, "x"]}
    for _ in range(depth - 1):
        value = {"d": value}
    return value


def _case(case_id: str, why: str, ops: list[Json], requires: tuple[str, ...] = SESSION) -> Case:
    return Case(id=f"session/{case_id}", contracts=ROOT, why=why, ops=tuple(ops), requires=requires)


CASES: list[Case] = [
    _case(
        "append-builds-surface-and-messages",
        SURFACE + " Other events (turn and step boundaries, tool/call) are never on the surface.",
        [
            s.session_append("turn/start", TURN),
            s.session_append("step/start", STEP),
            s.session_append("user/message", U0, surface_op="append"),
            s.session_append(
                "assistant/message",
                s.assistant_message(
                    "a3", {"type": "tool-call", "id": "c1", "name": "read", "arguments": "{}"}
                ),
                surface_op="append",
                source_seqs=[],
            ),
            s.session_append("tool/call", CALL),
            s.session_append("tool/result", RESULT, surface_op="append", source_seqs=[4]),
            s.session_surface(expect=s.surface(2, 3, 5)),
            s.session_messages(
                expect=s.messages(
                    U0,
                    s.assistant_message(
                        "a3", {"type": "tool-call", "id": "c1", "name": "read", "arguments": "{}"}
                    )["message"],
                    RESULT["message"],
                )
            ),
        ],
    ),
    _case(
        "messages-are-the-logged-objects-verbatim",
        "Derived messages are the logged message objects passed through verbatim, never rebuilt "
        "(ROOT-MODEL: request.messages equals them as JSON text, key order included).",
        [
            s.session_append(
                "user/message",
                {
                    "source": {"kind": "user"},
                    "content": [{"text": "hi", "type": "text"}],
                    "role": "user",
                    "id": "u0",
                },
                surface_op="append",
            ),
            s.session_messages(
                expect=s.messages(
                    {
                        "source": {"kind": "user"},
                        "content": [{"text": "hi", "type": "text"}],
                        "role": "user",
                        "id": "u0",
                    }
                )
            ),
        ],
    ),
    _case(
        "assistant-message-without-content-derives-nothing",
        SURFACE + " An assistant message with empty content is on the surface but derives nothing.",
        [
            s.session_append("user/message", U0, surface_op="append"),
            s.session_append(
                "assistant/message", s.assistant_message("a1"), surface_op="append", source_seqs=[]
            ),
            s.session_surface(expect=s.surface(0, 1)),
            s.session_messages(expect=s.messages(U0)),
        ],
    ),
    _case(
        "replace-takes-the-place-of-its-range",
        SURFACE + " Replacing seqs 0..1 of [0, 1, 2] with seq 3 gives [3, 2].",
        [
            *_three_users(),
            s.session_append(
                "user/message",
                s.user_message("r3", "summary"),
                surface_op=_replace(0, 1),
                source_seqs=[0, 1],
            ),
            s.session_surface(expect=s.surface(3, 2)),
            s.session_messages(expect=s.messages(s.user_message("r3", "summary"), U2)),
            s.session_append(
                "user/message",
                s.user_message("r4", "one"),
                surface_op=_replace(2, 2),
                source_seqs=[2],
            ),
            s.session_surface(expect=s.surface(3, 4)),
        ],
    ),
    _case(
        "non-json-data-is-rejected",
        "`session-non-json`: `data` or the surface metadata is not lossless JSON (an absent value "
        "written in place of an absent key, NaN, ±Infinity, -0, non-plain objects, cycles). "
        + ATOMIC,
        _rejected(
            "session-non-json",
            *[
                s.session_append(
                    "turn/start", {"turn": 1, "x": 0}, inject=[s.inject(["data", "x"], value)]
                )
                for value in (
                    "undefined",
                    "NaN",
                    "Infinity",
                    "-Infinity",
                    "-0",
                    "non-plain",
                    "cycle",
                )
            ],
            s.session_append(
                "user/message",
                s.user_message("r", "x"),
                surface_op=_replace(0, 0),
                source_seqs=[0],
                inject=[s.inject(["surfaceOp", "end"], "NaN")],
            ),
            s.session_append(
                "user/message",
                s.user_message("r", "x"),
                surface_op="append",
                source_seqs=[0],
                inject=[s.inject(["sourceEventSeqs", 0], "-0")],
            ),
            before=[s.session_append("user/message", U0, surface_op="append")],
            surface=[0],
            after=[
                s.session_log(
                    expect=s.events(
                        {"type": "user/message", "seq": 0, "data": U0, "surfaceOp": "append"}
                    )
                )
            ],
        ),
    ),
    _case(
        "legacy-header-formats-are-refused",
        "`session-legacy-header`: a `request/header-delta` event, or a `request/header` with "
        "reason `fallback`. " + ATOMIC,
        [
            s.session_append(
                "request/header-delta", {"delta": {}}, expect=s.error("session-legacy-header")
            ),
            s.session_append(
                "request/header",
                {"header": HEADER_ONE, "reason": "fallback"},
                expect=s.error("session-legacy-header"),
            ),
            s.session_header(expect=s.header(None)),
            s.session_log(expect=s.events()),
        ],
    ),
    _case(
        "surface-eligible-events-need-a-surface-op",
        "`surface-op-required`: a `user/message`, `assistant/message` or `tool/result` without "
        "`surfaceOp`. " + ATOMIC,
        _rejected(
            "surface-op-required",
            s.session_append("user/message", U1),
            s.session_append(
                "assistant/message",
                s.assistant_message("a", {"type": "text", "text": "x"}),
                source_seqs=[],
            ),
            s.session_append("tool/result", RESULT, source_seqs=[0]),
            before=[s.session_append("user/message", U0, surface_op="append")],
            surface=[0],
        ),
    ),
    _case(
        "zero-and-negative-numbers-are-lossless-json",
        "`session-non-json` refuses NaN, ±Infinity and -0 among the numbers, nothing else: `0.0` "
        "and negative numbers are lossless JSON, appended and logged as they are.",
        [
            s.session_append(
                "x-plugin/note", {"zero": 0.0, "below": -1.5, "list": [-2, 0.0, -0.25]}
            ),
            s.session_log(
                expect=s.events(
                    {
                        "type": "x-plugin/note",
                        "seq": 0,
                        "data": {"zero": 0.0, "below": -1.5, "list": [-2, 0.0, -0.25]},
                    }
                )
            ),
        ],
    ),
    _case(
        "data-nested-deep-is-lossless-json",
        "Lossless JSON is a matter of the values, not of how deep they are nested: the rejected "
        "values are undefined, functions, symbols, BigInt, -0, NaN, ±Infinity, cycles, sparse "
        "arrays and non-plain objects (upstream notes §1, which decide where CONTRACTS.md is "
        "silent), none of them a depth. Data nested "
        f"{DEEP} objects deep, holding a string, a boolean, null, a number and a list at the "
        "bottom, is appended and logged as it is.",
        [
            s.session_append("x-plugin/note", _nested(DEEP)),
            s.session_log(
                expect=s.events({"type": "x-plugin/note", "seq": 0, "data": _nested(DEEP)})
            ),
        ],
    ),
    _case(
        "an-array-that-holds-itself-is-rejected",
        "`session-non-json` names cycles among what is not lossless JSON, and a cycle may run "
        "through arrays alone: an array that holds itself, directly or inside another array, is "
        "refused like an object that holds itself. " + ATOMIC,
        _rejected(
            "session-non-json",
            s.session_append(
                "x-plugin/note", {"x": [0]}, inject=[s.inject(["data", "x", 0], "cycle")]
            ),
            s.session_append(
                "x-plugin/note",
                {"x": [[1, 0], 2]},
                inject=[s.inject(["data", "x", 0, 1], "cycle")],
            ),
            before=[],
            surface=[],
        ),
    ),
    _case(
        "other-events-cannot-carry-surface-metadata",
        "`surface-op-forbidden`: any other type carrying `surfaceOp` or `sourceEventSeqs` — core "
        "types and types outside the core vocabulary alike. " + ATOMIC,
        _rejected(
            "surface-op-forbidden",
            s.session_append("turn/start", TURN, surface_op="append"),
            s.session_append("step/end", STEP, source_seqs=[0]),
            s.session_append("x-plugin/note", {}, surface_op="append"),
            before=[s.session_append("user/message", U0, surface_op="append")],
            surface=[0],
            after=[s.session_append("x-plugin/note", {"fraction": 0.25})],
        ),
    ),
    _case(
        "malformed-surface-ops-are-rejected",
        '`surfaceOp` is the string `"append"` or an object with exactly the keys `{op: '
        '"replace", start, end}` (non-negative integer seqs); anything else is '
        "`surface-replace-invalid`. " + ATOMIC,
        _rejected(
            "surface-replace-invalid",
            *[
                s.session_append(
                    "user/message", s.user_message("r", "x"), surface_op=op, source_seqs=[0, 1]
                )
                for op in (
                    "prepend",
                    {"op": "replace", "start": 0},
                    {"op": "replace", "start": 0, "end": 1, "extra": True},
                    {"op": "splice", "start": 0, "end": 1},
                    {"op": "replace", "start": -1, "end": 1},
                    {"op": "replace", "start": 0.5, "end": 1},
                    {"op": "replace", "start": "0", "end": 1},
                )
            ],
            before=_three_users(),
            surface=[0, 1, 2],
        ),
    ),
    _case(
        "replace-range-must-be-on-the-surface-in-order",
        "`surface-replace-invalid`: a replace whose `start`/`end` are not both on the surface in "
        "order. After [0, 1, 2] → replace 1..1 by 3 = [0, 3, 2], seq 1 is no longer on it. "
        + ATOMIC,
        _rejected(
            "surface-replace-invalid",
            *[
                s.session_append(
                    "user/message",
                    s.user_message("r", "x"),
                    surface_op=_replace(a, b),
                    source_seqs=[0, 1, 2, 3],
                )
                for a, b in ((2, 0), (0, 9), (1, 2), (0, 1))
            ],
            before=[
                *_three_users(),
                s.session_append(
                    "user/message",
                    s.user_message("r3", "x"),
                    surface_op=_replace(1, 1),
                    source_seqs=[1],
                ),
            ],
            surface=[0, 3, 2],
        ),
    ),
    _case(
        "source-seqs-rules",
        "`source-seqs-invalid`: `sourceEventSeqs` empty (allowed on `assistant/message` only), "
        "duplicated, not below the event's seq. The next append is seq 3. " + ATOMIC,
        _rejected(
            "source-seqs-invalid",
            s.session_append(
                "user/message", s.user_message("r", "x"), surface_op="append", source_seqs=[]
            ),
            s.session_append("tool/result", RESULT, surface_op="append", source_seqs=[]),
            s.session_append(
                "user/message", s.user_message("r", "x"), surface_op="append", source_seqs=[1, 1]
            ),
            s.session_append(
                "user/message", s.user_message("r", "x"), surface_op="append", source_seqs=[3]
            ),
            s.session_append(
                "user/message", s.user_message("r", "x"), surface_op="append", source_seqs=[0, 7]
            ),
            s.session_append(
                "user/message", s.user_message("r", "x"), surface_op="append", source_seqs=[-1]
            ),
            before=_three_users(),
            surface=[0, 1, 2],
            after=[
                s.session_append(
                    "assistant/message",
                    s.assistant_message("a3"),
                    surface_op="append",
                    source_seqs=[],
                ),
                s.session_append(
                    "user/message",
                    s.user_message("u4", "x"),
                    surface_op="append",
                    source_seqs=[3, 0],
                ),
                s.session_surface(expect=s.surface(0, 1, 2, 3, 4)),
            ],
        ),
    ),
    _case(
        "replace-must-cite-every-shadowed-node",
        "`source-seqs-invalid`: for a replace, `sourceEventSeqs` not covering every shadowed "
        "surface node (all of start..end, not only the ends; an absent list covers nothing); extra "
        "citations are allowed. " + ATOMIC,
        _rejected(
            "source-seqs-invalid",
            s.session_append(
                "user/message",
                s.user_message("r", "x"),
                surface_op=_replace(0, 2),
                source_seqs=[0, 2],
            ),
            s.session_append("user/message", s.user_message("r", "x"), surface_op=_replace(1, 1)),
            before=_three_users(),
            surface=[0, 1, 2],
            after=[
                s.session_append(
                    "user/message",
                    s.user_message("r3", "x"),
                    surface_op=_replace(1, 1),
                    source_seqs=[0, 1],
                ),
                s.session_surface(expect=s.surface(0, 3, 2)),
            ],
        ),
    ),
    _case(
        "tool-result-replacement-changes-only-the-block-content",
        "A `tool/result` replacement may change only `data.message.content[0].content` of exactly "
        "one shadowed `tool/result`; turn, step, error, meta, the message id, role, source, "
        "toolCallId and isError must deep-equal the shadowed event's "
        "(else `tool-result-replace-invalid`). " + ATOMIC,
        _rejected(
            "tool-result-replace-invalid",
            # Shadows the user message, not a tool/result.
            s.session_append(
                "tool/result",
                s.tool_result("t3", "c1", "cut", meta={"bytes": 13}),
                surface_op=_replace(0, 0),
                source_seqs=[0],
            ),
            # Shadows two nodes.
            s.session_append(
                "tool/result",
                s.tool_result("t3", "c1", "cut", meta={"bytes": 13}),
                surface_op=_replace(0, 3),
                source_seqs=[0, 3],
            ),
            # Changes meta, turn, the id, isError, or adds an error.
            s.session_append(
                "tool/result",
                s.tool_result("t3", "c1", "cut", meta={"bytes": 3}),
                surface_op=_replace(3, 3),
                source_seqs=[3],
            ),
            s.session_append(
                "tool/result",
                {**s.tool_result("t3", "c1", "cut", meta={"bytes": 13}), "turn": 2},
                surface_op=_replace(3, 3),
                source_seqs=[3],
            ),
            s.session_append(
                "tool/result",
                s.tool_result("t9", "c1", "cut", meta={"bytes": 13}),
                surface_op=_replace(3, 3),
                source_seqs=[3],
            ),
            s.session_append(
                "tool/result",
                s.tool_result(
                    "t3", "c1", "cut", meta={"bytes": 13}, error={"name": "E", "code": "X"}
                ),
                surface_op=_replace(3, 3),
                source_seqs=[3],
            ),
            before=[
                s.session_append("user/message", U0, surface_op="append"),
                s.session_append("step/start", STEP),
                s.session_append("tool/call", CALL),
                s.session_append("tool/result", RESULT, surface_op="append", source_seqs=[2]),
            ],
            surface=[0, 3],
            after=[
                s.session_append(
                    "tool/result",
                    s.tool_result("t3", "c1", "[cut]", meta={"bytes": 13}),
                    surface_op=_replace(3, 3),
                    source_seqs=[3],
                ),
                s.session_surface(expect=s.surface(0, 4)),
                s.session_messages(
                    expect=s.messages(U0, s.tool_result("t3", "c1", "[cut]")["message"])
                ),
                # A user message may replace a tool result (the restriction is on tool/result).
                s.session_append("user/message", U1, surface_op=_replace(4, 4), source_seqs=[4]),
                s.session_surface(expect=s.surface(0, 5)),
            ],
        ),
    ),
    _case(
        "tool-result-replacement-keeps-is-error",
        "`isError` of the tool-result block must deep-equal the shadowed event's "
        "(`tool-result-replace-invalid`). " + ATOMIC,
        [
            s.session_append("tool/call", CALL),
            s.session_append("tool/result", RESULT, surface_op="append", source_seqs=[0]),
            s.session_append(
                "tool/result",
                _flagged_error(s.tool_result("t3", "c1", "cut", meta={"bytes": 13})),
                surface_op=_replace(1, 1),
                source_seqs=[1],
                expect=s.error("tool-result-replace-invalid"),
            ),
            s.session_messages(expect=s.messages(RESULT["message"])),
        ],
    ),
    _case(
        "tool-result-replacement-tells-an-empty-object-from-an-empty-array",
        "Everything of a `tool/result` replacement but the block's content must deep-equal the "
        "shadowed event's (`tool-result-replace-invalid`), and an empty object is not an empty "
        "array: a meta `{tags: {}}` replaced by `{tags: []}` is refused. " + ATOMIC,
        [
            s.session_append("tool/call", CALL),
            s.session_append(
                "tool/result",
                s.tool_result("t3", "c1", "contents of a", meta={"tags": {}}),
                surface_op="append",
                source_seqs=[0],
            ),
            s.session_append(
                "tool/result",
                s.tool_result("t3", "c1", "cut", meta={"tags": []}),
                surface_op=_replace(1, 1),
                source_seqs=[1],
                expect=s.error("tool-result-replace-invalid"),
            ),
            s.session_surface(expect=s.surface(1)),
        ],
    ),
    _case(
        "failed-append-takes-no-seq",
        "`seq` equals the event's index (contiguous from 0). "
        + ATOMIC
        + " So the event after a rejected one is seq 1, and the log holds exactly two events.",
        [
            s.session_append("turn/start", TURN),
            s.session_append(
                "step/start", STEP, surface_op="append", expect=s.error("surface-op-forbidden")
            ),
            s.session_append("step/start", STEP),
            s.session_log(
                expect=s.events(
                    {"type": "turn/start", "seq": 0, "data": TURN},
                    {"type": "step/start", "seq": 1, "data": STEP},
                )
            ),
        ],
    ),
    _case(
        "seed-is-validated-then-end-seed-appended",
        "A session built over a seed (events written by earlier runs) validates them and appends "
        "`session/end-seed` after them (unless the seed already ends with one). Seeded events keep "
        "their surface: [0, 1] then the next append is seq 3.",
        [
            s.session_seed(
                [
                    _seeded(0, "user/message", U0, surfaceOp="append"),
                    _seeded(1, "user/message", U1, surfaceOp="append"),
                ]
            ),
            s.session_log(
                expect=s.events(
                    {"type": "user/message", "seq": 0, "data": U0, "surfaceOp": "append"},
                    {"type": "user/message", "seq": 1, "data": U1, "surfaceOp": "append"},
                    {"type": "session/end-seed", "seq": 2, "data": {}},
                )
            ),
            s.session_append("user/message", U2, surface_op=_replace(1, 1), source_seqs=[1]),
            s.session_surface(expect=s.surface(0, 3)),
            s.session_messages(expect=s.messages(U0, U2)),
        ],
    ),
    _case(
        "seed-ending-with-end-seed-gets-no-second-one",
        "`session/end-seed` is appended after the seed unless the seed already ends with one.",
        [
            s.session_seed([_seeded(0, "turn/start", TURN), _seeded(1, "session/end-seed", {})]),
            s.session_log(
                expect=s.events(
                    {"type": "turn/start", "seq": 0, "data": TURN},
                    {"type": "session/end-seed", "seq": 1, "data": {}},
                )
            ),
        ],
    ),
    _case(
        "seed-seq-must-be-its-index",
        "`seq-not-contiguous` (seeding): a seeded event whose `seq` is not its index.",
        [
            s.session_seed(
                [_seeded(0, "turn/start", TURN), _seeded(2, "step/start", STEP)],
                expect=s.error("seq-not-contiguous"),
            ),
            s.session_seed([_seeded(1, "turn/start", TURN)], expect=s.error("seq-not-contiguous")),
        ],
    ),
    _case(
        "seeded-user-message-needs-a-surface-op",
        "A seed is validated with the append rules: a seeded user/message without `surfaceOp` is "
        "`surface-op-required`.",
        [s.session_seed([_seeded(0, "user/message", U0)], expect=s.error("surface-op-required"))],
    ),
    _case(
        "seeded-header-delta-is-legacy",
        "A seed is validated with the append rules: a seeded `request/header-delta` is "
        "`session-legacy-header`.",
        [
            s.session_seed(
                [_seeded(0, "request/header-delta", {})], expect=s.error("session-legacy-header")
            )
        ],
    ),
    _case(
        "seeded-replace-must-cite-what-it-shadows",
        "A seed is validated with the append rules: a seeded replace whose `sourceEventSeqs` do "
        "not cover its range is `source-seqs-invalid`.",
        [
            s.session_seed(
                [
                    _seeded(0, "user/message", U0, surfaceOp="append"),
                    _seeded(1, "user/message", U1, surfaceOp="append"),
                    _seeded(2, "user/message", U2, surfaceOp=_replace(0, 1), sourceEventSeqs=[1]),
                ],
                expect=s.error("source-seqs-invalid"),
            )
        ],
    ),
    _case(
        "seed-malformed-envelope-is-session-event-invalid",
        SEED_INVALID + " The envelope: a key other than type, seq, time, data, surfaceOp, "
        "sourceEventSeqs, ignorable; a `type` that is not a string; a `seq` that is not an "
        "integer in 0..2^53 - 1; a `time` that is absent or not an integer of magnitude at most "
        "2^53 - 1; no `data`; `ignorable` other than absent or `true`.",
        [
            s.session_seed([event], expect=s.error("session-event-invalid"))
            for event in (
                {**_seeded(0, "x/note", {}), "extra": 1},
                {**_seeded(0, "x/note", {}), "type": 1},
                {**_seeded(0, "x/note", {}), "seq": "0"},
                {**_seeded(0, "x/note", {}), "seq": 0.5},
                {**_seeded(0, "x/note", {}), "seq": -1},
                {"type": "x/note", "seq": 0, "data": {}},
                {**_seeded(0, "x/note", {}), "time": 1.5},
                {**_seeded(0, "x/note", {}), "time": 2**53},
                {"type": "x/note", "seq": 0, "time": 0},
                {**_seeded(0, "x/note", {}), "ignorable": False},
            )
        ],
        s.SESSION_1_2,
    ),
    _case(
        "seed-malformed-message-is-session-event-invalid",
        SEED_INVALID + " A `user/message`, `assistant/message` or `tool/result` whose message is "
        "not an object with a non-empty string `id`, the role its type allows, a `source` object "
        "with a non-empty string `kind` (`model` with provider and model for an assistant "
        "message, `tool` with a callId for a tool result) and a list `content` (a tool result: "
        "exactly one tool-result block for the source's callId).",
        [
            s.session_seed(
                [_seeded(0, type, data, surfaceOp="append")],
                expect=s.error("session-event-invalid"),
            )
            for type, data in (
                ("user/message", {**U0, "id": ""}),
                ("user/message", {**U0, "role": "assistant"}),
                ("user/message", {**U0, "source": {"kind": ""}}),
                ("user/message", {**U0, "content": "message 0"}),
                ("assistant/message", {**STEP, "message": {**U0, "role": "assistant"}}),
                ("tool/result", {**STEP, "message": {**RESULT["message"], "content": []}}),
                (
                    "tool/result",
                    {**STEP, "message": {**RESULT["message"], "source": {"kind": "tool"}}},
                ),
            )
        ],
        s.SESSION_1_2,
    ),
    _case(
        "seed-malformed-header-is-session-event-invalid",
        SEED_INVALID + " A `request/header` whose `data.header.config` lacks a non-empty string "
        "provider or model, has a reasoningEffort that is not a non-empty string, or whose "
        "adapterDefaults marks a field `config` does not hold; a header or config that is not an "
        "object; `adapterDefaults` that is not `{reasoningEffort?: true, maxTokens?: true}` (a "
        "marker of another field, a list) (PROMPT-HEADER-CANONICAL).",
        [
            s.session_seed(
                [_seeded(0, "request/header", {"header": header, "reason": "initial"})],
                expect=s.error("session-event-invalid"),
            )
            for header in (
                {"config": {"model": "deepseek-chat"}},
                {"config": {"provider": "deepseek", "model": ""}},
                {"config": {**HEADER_ONE["config"], "reasoningEffort": ""}},
                {"config": HEADER_ONE["config"], "adapterDefaults": {"maxTokens": True}},
                "x",
                {"config": "x"},
                {
                    "config": {**HEADER_ONE["config"], "temperature": 0.5},
                    "adapterDefaults": {"temperature": True},
                },
                {"config": HEADER_ONE["config"], "adapterDefaults": []},
            )
        ],
        s.SESSION_1_2,
    ),
    _case(
        "seed-event-checks-come-before-seq-and-surface",
        "A seed is checked for `session-non-json` first, then for `session-event-invalid` (and "
        "`session-legacy-header`), then for `seq-not-contiguous`, then against the surface "
        "rules: a malformed envelope or message whose seq is not its index, or that breaks a "
        "surface rule, is `session-event-invalid`; a legacy header whose seq is not its index is "
        "`session-legacy-header`.",
        [
            s.session_seed(
                [{**_seeded(1, "x/note", {}), "extra": 1}], expect=s.error("session-event-invalid")
            ),
            s.session_seed(
                [{**_seeded(0, "user/message", U0), "extra": 1}],
                expect=s.error("session-event-invalid"),
            ),
            s.session_seed(
                [_seeded(1, "user/message", {**U0, "id": ""}, surfaceOp="append")],
                expect=s.error("session-event-invalid"),
            ),
            *(
                s.session_seed([event], expect=s.error("session-legacy-header"))
                for event in (
                    _seeded(1, "request/header-delta", {}),
                    _seeded(1, "request/header", {"header": HEADER_ONE, "reason": "fallback"}),
                )
            ),
        ],
        s.SESSION_1_2,
    ),
    _case(
        "seed-is-checked-event-by-event",
        "The seed is checked event by event, each event through all of these before the next: "
        "the first event that fails any check decides (an earlier event's wrong `seq` is "
        "reported before a later event's malformed payload, and the other way round).",
        [
            s.session_seed(
                [_seeded(5, "x/note", {}), _seeded(1, "user/message", {**U0, "id": ""})],
                expect=s.error("seq-not-contiguous"),
            ),
            s.session_seed(
                [_seeded(0, "user/message", {**U0, "id": ""}), _seeded(5, "x/note", {})],
                expect=s.error("session-event-invalid"),
            ),
        ],
        s.SESSION_1_2,
    ),
    _case(
        "seed-legacy-header-checks-within-one-event",
        "Within one event, a `request/header-delta` is `session-legacy-header` before its "
        "envelope is checked, and a `request/header` whose envelope or payload is malformed is "
        "`session-event-invalid` even when its reason is `fallback` (that is "
        "`session-legacy-header` only for a well-formed one).",
        [
            *(
                s.session_seed([event], expect=s.error("session-legacy-header"))
                for event in (
                    {**_seeded(0, "request/header-delta", {}), "extra": 1},
                    {
                        key: v
                        for key, v in _seeded(0, "request/header-delta", {}).items()
                        if key != "time"
                    },
                )
            ),
            *(
                s.session_seed([event], expect=s.error("session-event-invalid"))
                for event in (
                    {
                        **_seeded(
                            0, "request/header", {"header": HEADER_ONE, "reason": "fallback"}
                        ),
                        "extra": 1,
                    },
                    _seeded(
                        0,
                        "request/header",
                        {"header": {"config": {"model": "m"}}, "reason": "fallback"},
                    ),
                )
            ),
        ],
        s.SESSION_1_2,
    ),
    _case(
        "seed-negative-zero-is-checked-before-seq",
        "`-0.0` is legal JSON text, but the -0 it parses to is not lossless JSON "
        "(`session-non-json`, in `data` as in the surface metadata); a seed is checked for "
        "`session-non-json` first, before `seq-not-contiguous`: a seeded event holding -0 whose "
        "seq is not its index is `session-non-json`.",
        [
            s.session_seed([event], expect=s.error("session-non-json"))
            for event in (
                _seeded(1, "x/note", {"v": -0.0}),
                _seeded(1, "user/message", U0, surfaceOp={**_replace(0, 0), "start": -0.0}),
                _seeded(1, "user/message", U0, surfaceOp="append", sourceEventSeqs=[-0.0]),
            )
        ],
    ),
    _case(
        "seed-optional-field-written-as-null-is-judged-by-the-surface-rules",
        NULL_GIVEN + " A seeded event's `surfaceOp` or `sourceEventSeqs` written as `null` is "
        "neither the field left out nor a malformed envelope.",
        [
            s.session_seed(
                [{**_seeded(0, "x/note", {}), "surfaceOp": None}],
                expect=s.error("surface-op-forbidden"),
            ),
            s.session_seed(
                [{**_seeded(0, "user/message", U0), "surfaceOp": None}],
                expect=s.error("surface-replace-invalid"),
            ),
            s.session_seed(
                [{**_seeded(0, "user/message", U0, surfaceOp="append"), "sourceEventSeqs": None}],
                expect=s.error("source-seqs-invalid"),
            ),
        ],
        s.SESSION_1_2,
    ),
    _case(
        "seed-event-that-is-not-an-object-is-session-event-invalid",
        SEED_INVALID + " An event is an envelope object: a seeded number, string, list or null "
        "in its place is malformed.",
        [
            s.session_seed([event], expect=s.error("session-event-invalid"))
            for event in _NOT_OBJECTS
        ],
        s.SESSION_1_2,
    ),
    _case(
        "seed-message-source-needs-its-kind-and-its-fields",
        SEED_INVALID + ' An assistant message\'s source is `kind: "model"` *with* non-empty '
        'string `provider` and `model`; a tool result\'s is `kind: "tool"` *with* a non-empty '
        "string `callId`: the right fields under another kind, or the right kind without them, "
        "are malformed.",
        [
            s.session_seed(
                [_seeded(0, "assistant/message", data, surfaceOp="append", sourceEventSeqs=[])],
                expect=s.error("session-event-invalid"),
            )
            for data in (
                _with_source(s.assistant_message("a0"), {"kind": "model"}),
                _with_source(
                    s.assistant_message("a0"),
                    {"kind": "plugin", "provider": "deepseek", "model": "deepseek-chat"},
                ),
            )
        ]
        + [
            s.session_seed(
                [_seeded(0, "tool/result", {**STEP, "message": message}, surfaceOp="append")],
                expect=s.error("session-event-invalid"),
            )
            for message in (
                {**RESULT["message"], "source": {"kind": "plugin", "callId": "c1"}},
                {
                    **RESULT["message"],
                    "source": {"kind": "tool", "callId": ""},
                    "content": [{**RESULT["message"]["content"][0], "toolCallId": ""}],
                },
            )
        ],
        s.SESSION_1_2,
    ),
    _case(
        "seed-payload-that-is-not-an-object-is-session-event-invalid",
        SEED_INVALID + " A `request/header` whose `data` is not an object has no "
        "`data.header.config`; an `assistant/message` or `tool/result` whose `data` is not an "
        "object has no `data.message`.",
        [
            s.session_seed(
                [_seeded(0, type, "x", **surface)], expect=s.error("session-event-invalid")
            )
            for type, surface in (
                ("request/header", {}),
                ("assistant/message", {"surfaceOp": "append"}),
                ("tool/result", {"surfaceOp": "append"}),
            )
        ],
        s.SESSION_1_2,
    ),
    _case(
        "seed-seq-at-the-bound-is-well-formed",
        "A seeded `seq` is an integer in 0..2^53 - 1: 2^53 - 1 itself is well-formed, so a first "
        "event with that seq is `seq-not-contiguous` (a well-formed seq that is not its index), "
        "not `session-event-invalid`.",
        [
            s.session_seed(
                [_seeded(0, "x/note", {}) | {"seq": 2**53 - 1}],
                expect=s.error("seq-not-contiguous"),
            ),
        ],
        s.SESSION_1_2,
    ),
    _case(
        "seed-seq-and-time-written-with-a-zero-fraction-are-integers",
        "A seeded `seq` is an integer in 0..2^53 - 1 and `time` an integer of magnitude at most "
        "2^53 - 1, and JSON numbers are values (PROTOCOL.md compares them by value: `100` and "
        "`100.0` are one number): a `seq` written `0.0` or `1.0` and a `time` written "
        "`1700000000000.0` are those integers, so the seed is accepted.",
        [
            s.session_seed(
                [
                    _seeded(0, "x/note", {}) | {"seq": 0.0, "time": 1_700_000_000_000.0},
                    _seeded(1, "x/note", {}) | {"seq": 1.0},
                ]
            ),
            s.session_log(
                expect=s.events(
                    {"type": "x/note", "seq": 0, "data": {}},
                    {"type": "x/note", "seq": 1, "data": {}},
                    {"type": "session/end-seed", "seq": 2, "data": {}},
                )
            ),
        ],
    ),
    _case(
        "seed-time-at-the-bound-is-accepted",
        "A seeded `time` is an integer of magnitude at most 2^53 - 1: 2^53 - 1 and -(2^53 - 1) "
        "are accepted.",
        [
            s.session_seed(
                [
                    _seeded(0, "x/note", {}) | {"time": 2**53 - 1},
                    _seeded(1, "x/note", {}) | {"time": -(2**53 - 1)},
                ]
            ),
            s.session_log(
                expect=s.events(
                    {"type": "x/note", "seq": 0, "data": {}},
                    {"type": "x/note", "seq": 1, "data": {}},
                    {"type": "session/end-seed", "seq": 2, "data": {}},
                )
            ),
        ],
    ),
    _case(
        "empty-seed-gets-end-seed",
        "A session built over a seed appends `session/end-seed` after it unless the seed already "
        "ends with one: an empty seed does not, so the log is that one event.",
        [
            s.session_append("turn/start", TURN),
            s.session_seed([]),
            s.session_log(expect=s.events({"type": "session/end-seed", "seq": 0, "data": {}})),
        ],
    ),
    _case(
        "seed-keeps-an-ignorable-event",
        "`ignorable` is reserved: a seeded event may carry `ignorable: true` and is kept as it is "
        "(the loop never writes it).",
        [
            s.session_seed([{**_seeded(0, "x/note", {"a": 1}), "ignorable": True}]),
            s.session_log(
                expect=s.events(
                    {"type": "x/note", "seq": 0, "data": {"a": 1}, "ignorable": True},
                    {"type": "session/end-seed", "seq": 1, "data": {}},
                )
            ),
        ],
    ),
    _case(
        "seed-with-end-seed-inside-gets-one-at-the-end",
        "`session/end-seed` is appended after the seed unless the seed already *ends* with one: "
        "one earlier in the seed does not count, and the next append follows the new one.",
        [
            s.session_seed([_seeded(0, "session/end-seed", {}), _seeded(1, "turn/start", TURN)]),
            s.session_append("turn/end", {"turn": 1, "reason": {"kind": "completed"}}),
            s.session_log(
                expect=s.events(
                    {"type": "session/end-seed", "seq": 0, "data": {}},
                    {"type": "turn/start", "seq": 1, "data": TURN},
                    {"type": "session/end-seed", "seq": 2, "data": {}},
                    {
                        "type": "turn/end",
                        "seq": 3,
                        "data": {"turn": 1, "reason": {"kind": "completed"}},
                    },
                )
            ),
        ],
    ),
    _case(
        "an-option-given-as-absent-is-not-given",
        "A `surfaceOp` or `sourceEventSeqs` option given with an absent value (JavaScript's "
        "`undefined`) is the option not given: no `surface-op-forbidden` for a turn/start, "
        "`surface-op-required` for a user/message, and the logged events carry neither key.",
        [
            s.session_append("turn/start", TURN, inject=[s.inject(["surfaceOp"], "undefined")]),
            s.session_append(
                "user/message",
                U0,
                surface_op="append",
                inject=[s.inject(["sourceEventSeqs"], "undefined")],
            ),
            s.session_append(
                "user/message",
                U1,
                inject=[s.inject(["surfaceOp"], "undefined")],
                expect=s.error("surface-op-required"),
            ),
            s.session_log(
                expect=s.events(
                    {"type": "turn/start", "seq": 0, "data": TURN},
                    {"type": "user/message", "seq": 1, "data": U0, "surfaceOp": "append"},
                )
            ),
        ],
        s.SESSION_1_2,
    ),
    _case(
        "an-option-given-as-null-is-judged-by-the-surface-rules",
        NULL_GIVEN + " An appended event's `surfaceOp` or `sourceEventSeqs` given as `null` is "
        "not the option left out, and nothing is logged.",
        [
            s.session_append(
                "turn/start", TURN, surface_op=None, expect=s.error("surface-op-forbidden")
            ),
            s.session_append(
                "turn/start", TURN, source_seqs=None, expect=s.error("surface-op-forbidden")
            ),
            s.session_append(
                "user/message", U0, surface_op=None, expect=s.error("surface-replace-invalid")
            ),
            s.session_append(
                "user/message",
                U0,
                surface_op="append",
                source_seqs=None,
                expect=s.error("source-seqs-invalid"),
            ),
            s.session_log(expect=s.events()),
        ],
        s.SESSION_1_2,
    ),
    _case(
        "header-fold-last-snapshot-wins",
        "Offline replay folds the log's `request/header` events: the last full snapshot, "
        "canonicalized, is the header in force (PROMPT-HEADER-CANONICAL, the log ROOT-MODEL "
        "anchors to). No header logged: none in force.",
        [
            s.session_header(expect=s.header(None)),
            s.session_append("request/header", {"header": HEADER_ONE, "reason": "initial"}),
            s.session_append("turn/start", TURN),
            s.session_header(expect=s.header(HEADER_ONE)),
            s.session_append("request/header", {"header": HEADER_TWO, "reason": "change"}),
            s.session_header(expect=s.header({"config": HEADER_TWO["config"]})),
        ],
    ),
]
