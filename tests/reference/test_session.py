"""ROOT-MODEL, "The session log": envelope, append rules, seeding, atomicity, surface, messages.

Expected values are worked out by hand from CONTRACTS.md, "The session log (what ROOT-MODEL
anchors to)".
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from dsh_reference import ContractError, SessionLog, SurfaceReplace
from dsh_reference.session import loop_instance_starts


def user(id: str, text: str = "hi") -> dict[str, Any]:
    return {
        "id": id,
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "source": {"kind": "user"},
    }


def assistant(id: str, content: list[Any] | None = None) -> dict[str, Any]:
    return {
        "turn": 1,
        "step": 1,
        "message": {
            "id": id,
            "role": "assistant",
            "content": [{"type": "text", "text": "ok"}] if content is None else content,
            "source": {"kind": "model", "provider": "p", "model": "m"},
        },
    }


def tool_result(id: str, call: str, output: str = "out", **extra: Any) -> dict[str, Any]:
    return {
        "turn": 1,
        "step": 1,
        "message": {
            "id": id,
            "role": "user",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": call,
                    "content": [{"type": "text", "text": output}],
                    "isError": False,
                }
            ],
            "source": {"kind": "tool", "callId": call},
        },
        **extra,
    }


HEADER = {"header": {"config": {"provider": "p", "model": "m"}}, "reason": "initial"}


def rejected(log: SessionLog, *args: Any, **kwargs: Any) -> str:
    """Append, expecting a rejection that changes nothing observable; return its error kind."""
    before = ([event.to_json() for event in log.events], log.surface, log.messages())
    header = log.request_header()
    with pytest.raises(ContractError) as info:
        log.append(*args, **kwargs)
    assert ([event.to_json() for event in log.events], log.surface, log.messages()) == before
    assert log.request_header() == header
    return info.value.kind


def three_messages() -> SessionLog:
    """seq 0, 1, 2: a user message, an assistant message, a user message; all appended."""
    log = SessionLog()
    log.append("user/message", user("u0"), surface_op="append")
    log.append("assistant/message", assistant("a1"), surface_op="append", source_event_seqs=[])
    log.append("user/message", user("u2"), surface_op="append")
    return log


class TestEnvelope:
    """ROOT-MODEL: `{type, seq, time, data, surfaceOp?, sourceEventSeqs?}`, seq = index."""

    def test_seqs_are_contiguous_from_zero(self) -> None:
        log = SessionLog()
        first = log.append("turn/start", {"turn": 1}, time=5)
        second = log.append("step/start", {"turn": 1, "step": 1})
        assert (first.seq, second.seq, log.next_seq) == (0, 1, 2)

    def test_absent_optional_fields_are_omitted(self) -> None:
        event = SessionLog().append("turn/start", {"turn": 1}, time=7)
        assert event.to_json() == {"type": "turn/start", "seq": 0, "time": 7, "data": {"turn": 1}}

    def test_surface_metadata_is_serialized(self) -> None:
        log = three_messages()
        event = log.append(
            "user/message",
            user("r"),
            surface_op=SurfaceReplace(1, 2),
            source_event_seqs=[1, 2],
        )
        assert event.to_json()["surfaceOp"] == {"op": "replace", "start": 1, "end": 2}
        assert event.to_json()["sourceEventSeqs"] == [1, 2]

    def test_the_log_keeps_its_own_copy_of_data(self) -> None:
        log = SessionLog()
        message = user("u0")
        log.append("user/message", message, surface_op="append")
        message["content"][0]["text"] = "edited"
        assert log.messages()[0]["content"][0]["text"] == "hi"


class TestLosslessJson:
    """`session-non-json`: NaN, ±Infinity, -0, non-plain objects, cycles, in data or metadata."""

    @pytest.mark.parametrize(
        "value", [math.nan, math.inf, -math.inf, -0.0, object(), (1, 2), {1: "int key"}]
    )
    def test_non_json_data_is_rejected(self, value: object) -> None:
        assert rejected(SessionLog(), "turn/start", {"turn": value}) == "session-non-json"

    def test_a_cycle_is_rejected(self) -> None:
        data: dict[str, Any] = {"turn": 1}
        data["self"] = data
        assert rejected(SessionLog(), "turn/start", data) == "session-non-json"

    def test_the_same_object_twice_is_not_a_cycle(self) -> None:
        shared = {"a": 1}
        event = SessionLog().append("x/plugin", {"left": shared, "right": shared})
        assert event.data == {"left": {"a": 1}, "right": {"a": 1}}

    def test_non_json_surface_metadata_is_rejected(self) -> None:
        log = three_messages()
        op = {"op": "replace", "start": math.nan, "end": 1}
        assert rejected(log, "user/message", user("r"), surface_op=op) == "session-non-json"

    def test_positive_zero_and_fractions_are_fine(self) -> None:
        event = SessionLog().append("llm/retry", {"delayMs": 0.0, "factor": 1.5})
        assert event.data == {"delayMs": 0.0, "factor": 1.5}


class TestLegacyHeader:
    """`session-legacy-header`: `request/header-delta`, or a `request/header` reason `fallback`."""

    def test_header_delta_is_refused(self) -> None:
        assert rejected(SessionLog(), "request/header-delta", {}) == "session-legacy-header"

    def test_fallback_reason_is_refused(self) -> None:
        data = {**HEADER, "reason": "fallback"}
        assert rejected(SessionLog(), "request/header", data) == "session-legacy-header"

    def test_legacy_formats_are_refused_in_a_seed(self) -> None:
        seed = [{"type": "request/header-delta", "seq": 0, "time": 0, "data": {}}]
        with pytest.raises(ContractError) as info:
            SessionLog.from_seed(seed)
        assert info.value.kind == "session-legacy-header"


class TestSurfaceEligibility:
    """`surface-op-required` and `surface-op-forbidden`."""

    @pytest.mark.parametrize(
        ("type", "data"),
        [
            ("user/message", user("u")),
            ("assistant/message", assistant("a")),
            ("tool/result", tool_result("t", "c")),
        ],
    )
    def test_eligible_types_need_a_surface_op(self, type: str, data: Any) -> None:
        assert rejected(SessionLog(), type, data) == "surface-op-required"

    def test_other_types_cannot_carry_a_surface_op(self) -> None:
        log = SessionLog()
        assert (
            rejected(log, "turn/start", {"turn": 1}, surface_op="append") == "surface-op-forbidden"
        )

    def test_other_types_cannot_carry_source_seqs(self) -> None:
        log = three_messages()
        kind = rejected(log, "step/end", {"turn": 1, "step": 1}, source_event_seqs=[0])
        assert kind == "surface-op-forbidden"

    def test_plugin_types_pass_without_metadata(self) -> None:
        event = SessionLog().append("agent/inbox/spliced", {"target": "next-step", "start": 0})
        assert event.surface_op is None


class TestSurfaceOp:
    """`surface-replace-invalid`: a malformed surfaceOp, or start/end not both on it in order."""

    @pytest.mark.parametrize(
        "op",
        [
            "prepend",
            {"op": "replace", "start": 0},
            {"op": "replace", "start": 0, "end": 1, "extra": 1},
            {"op": "splice", "start": 0, "end": 1},
            {"op": "replace", "start": -1, "end": 1},
            {"op": "replace", "start": 0.5, "end": 1},
            {"op": "replace", "start": True, "end": 1},
        ],
    )
    def test_malformed_ops_are_rejected(self, op: Any) -> None:
        log = three_messages()
        kind = rejected(log, "user/message", user("r"), surface_op=op, source_event_seqs=[0, 1])
        assert kind == "surface-replace-invalid"

    @pytest.mark.parametrize(("start", "end"), [(2, 1), (0, 7), (9, 2)])
    def test_replace_needs_both_ends_on_the_surface_in_order(self, start: int, end: int) -> None:
        log = three_messages()
        op = {"op": "replace", "start": start, "end": end}
        kind = rejected(log, "user/message", user("r"), surface_op=op, source_event_seqs=[0, 1, 2])
        assert kind == "surface-replace-invalid"

    def test_a_shadowed_seq_is_no_longer_on_the_surface(self) -> None:
        log = three_messages()
        log.append(
            "user/message", user("r"), surface_op=SurfaceReplace(1, 1), source_event_seqs=[1]
        )
        kind = rejected(
            log,
            "user/message",
            user("s"),
            surface_op=SurfaceReplace(1, 2),
            source_event_seqs=[1, 2],
        )
        assert kind == "surface-replace-invalid"

    def test_integral_floats_are_seqs(self) -> None:
        log = three_messages()
        op = {"op": "replace", "start": 1.0, "end": 1.0}
        log.append("user/message", user("r"), surface_op=op, source_event_seqs=[1.0])
        assert log.surface == (0, 3, 2)


class TestSourceSeqs:
    """`source-seqs-invalid`: empty (bar assistant/message), repeated, not below, not covering."""

    def test_empty_is_allowed_on_assistant_message(self) -> None:
        event = SessionLog().append(
            "assistant/message", assistant("a"), surface_op="append", source_event_seqs=[]
        )
        assert event.source_event_seqs == ()

    @pytest.mark.parametrize("type", ["user/message", "tool/result"])
    def test_empty_is_rejected_elsewhere(self, type: str) -> None:
        data = user("u") if type == "user/message" else tool_result("t", "c")
        log = three_messages()
        assert (
            rejected(log, type, data, surface_op="append", source_event_seqs=[])
            == "source-seqs-invalid"
        )

    @pytest.mark.parametrize("seqs", [[0, 0], [3], [5], [-1], [0.5], ["0"], {"0": 0}])
    def test_duplicates_and_seqs_not_below_are_rejected(self, seqs: Any) -> None:
        log = three_messages()
        kind = rejected(log, "user/message", user("u"), surface_op="append", source_event_seqs=seqs)
        assert kind == "source-seqs-invalid"

    def test_a_replace_must_cite_every_shadowed_node(self) -> None:
        log = three_messages()
        op = SurfaceReplace(0, 2)
        assert rejected(
            log, "user/message", user("r"), surface_op=op, source_event_seqs=[0, 2]
        ) == ("source-seqs-invalid")

    def test_a_replace_without_citations_covers_nothing(self) -> None:
        log = three_messages()
        assert rejected(log, "user/message", user("r"), surface_op=SurfaceReplace(1, 1)) == (
            "source-seqs-invalid"
        )

    def test_extra_citations_are_allowed(self) -> None:
        log = three_messages()
        log.append(
            "user/message", user("r"), surface_op=SurfaceReplace(1, 1), source_event_seqs=[0, 1]
        )
        assert log.surface == (0, 3, 2)


class TestToolResultReplacement:
    """`tool-result-replace-invalid`: one tool/result shadowed, only the block's content changed."""

    def log_with_result(self) -> SessionLog:
        log = SessionLog()
        log.append("user/message", user("u0"), surface_op="append")
        log.append(
            "tool/call", {"turn": 1, "step": 1, "callId": "c", "name": "t", "arguments": "{}"}
        )
        log.append(
            "tool/result",
            tool_result("t2", "c", meta={"k": 1}),
            surface_op="append",
            source_event_seqs=[1],
        )
        return log

    def test_replacing_the_content_is_allowed(self) -> None:
        log = self.log_with_result()
        new = tool_result("t2", "c", "shorter", meta={"k": 1})
        log.append("tool/result", new, surface_op=SurfaceReplace(2, 2), source_event_seqs=[2])
        assert log.surface == (0, 3)
        assert log.messages()[1]["content"][0]["content"] == [{"type": "text", "text": "shorter"}]

    def test_shadowing_something_else_is_rejected(self) -> None:
        log = self.log_with_result()
        new = tool_result("t2", "c", "x", meta={"k": 1})
        kind = rejected(
            log, "tool/result", new, surface_op=SurfaceReplace(0, 0), source_event_seqs=[0]
        )
        assert kind == "tool-result-replace-invalid"

    def test_shadowing_two_nodes_is_rejected(self) -> None:
        log = self.log_with_result()
        new = tool_result("t2", "c", "x", meta={"k": 1})
        kind = rejected(
            log, "tool/result", new, surface_op=SurfaceReplace(0, 2), source_event_seqs=[0, 2]
        )
        assert kind == "tool-result-replace-invalid"

    @pytest.mark.parametrize(
        "change",
        [
            lambda d: d.update(turn=2),
            lambda d: d.update(meta={"k": 2}),
            lambda d: d.update(error={"name": "E", "code": "X"}),
            lambda d: d["message"].update(id="other"),
            lambda d: d["message"]["content"][0].update(isError=True),
        ],
    )
    def test_changing_anything_else_is_rejected(self, change: Any) -> None:
        log = self.log_with_result()
        new = tool_result("t2", "c", "x", meta={"k": 1})
        change(new)
        kind = rejected(
            log, "tool/result", new, surface_op=SurfaceReplace(2, 2), source_event_seqs=[2]
        )
        assert kind == "tool-result-replace-invalid"

    def test_a_user_message_may_replace_a_tool_result(self) -> None:
        log = self.log_with_result()
        log.append(
            "user/message", user("r"), surface_op=SurfaceReplace(2, 2), source_event_seqs=[2]
        )
        assert log.surface == (0, 3)


class TestSeeding:
    """A seed is validated, seq = index (`seq-not-contiguous`), then `session/end-seed` follows."""

    def seed(self) -> list[dict[str, Any]]:
        return three_messages().to_json()

    def test_end_seed_is_appended(self) -> None:
        log = SessionLog.from_seed(self.seed())
        assert [event.type for event in log.events][-1] == "session/end-seed"
        assert (len(log), log.seed_length, log.surface) == (4, 4, (0, 1, 2))

    def test_a_seed_ending_with_end_seed_gets_no_second_one(self) -> None:
        seed = [*self.seed(), {"type": "session/end-seed", "seq": 3, "time": 0, "data": {}}]
        assert len(SessionLog.from_seed(seed)) == 4

    def test_an_empty_seed_gets_an_end_seed(self) -> None:
        assert [event.type for event in SessionLog.from_seed([]).events] == ["session/end-seed"]

    def test_a_seq_that_is_not_its_index_is_rejected(self) -> None:
        seed = self.seed()
        seed[1]["seq"] = 2
        with pytest.raises(ContractError) as info:
            SessionLog.from_seed(seed)
        assert info.value.kind == "seq-not-contiguous"

    def test_seeded_events_pass_every_append_rule(self) -> None:
        seed = self.seed()
        del seed[2]["surfaceOp"]
        with pytest.raises(ContractError) as info:
            SessionLog.from_seed(seed)
        assert info.value.kind == "surface-op-required"

    def test_time_and_ignorable_are_kept(self) -> None:
        seed = [{"type": "x/note", "seq": 0, "time": 123, "data": {}, "ignorable": True}]
        event = SessionLog.from_seed(seed)[0]
        assert (event.time, event.ignorable, event.to_json()["ignorable"]) == (123, True, True)

    @pytest.mark.parametrize(
        "event",
        [
            {"type": "x", "seq": 0, "time": 0, "data": {}, "extra": 1},
            {"type": "x", "seq": 0, "data": {}},
            {"type": "x", "seq": 0, "time": "now", "data": {}},
            {"type": "x", "seq": 0, "time": 123.5, "data": {}},
            {"type": "x", "seq": 0, "time": 2**53, "data": {}},
            {"type": "x", "seq": "0", "time": 0, "data": {}},
            {"type": 1, "seq": 0, "time": 0},
            {"type": "x", "seq": 0, "time": 0, "data": {}, "ignorable": False},
            ["not", "an", "object"],
        ],
    )
    def test_a_malformed_envelope_is_rejected(self, event: Any) -> None:
        with pytest.raises(ContractError) as info:
            SessionLog.from_seed([event])
        assert info.value.kind == "session-event-invalid"

    def test_a_surface_field_written_as_null_is_judged_by_the_surface_rules(self) -> None:
        with pytest.raises(ContractError) as info:
            SessionLog.from_seed(
                [{"type": "x", "seq": 0, "time": 0, "data": {}, "surfaceOp": None}]
            )
        assert info.value.kind == "surface-op-forbidden"


class TestSurfaceAndMessages:
    """The surface fold and the derived model messages."""

    def test_appends_go_to_the_end(self) -> None:
        log = three_messages()
        assert log.surface == (0, 1, 2)
        assert [m["id"] for m in log.messages()] == ["u0", "a1", "u2"]

    def test_a_replacement_takes_the_place_of_its_range(self) -> None:
        log = three_messages()
        log.append(
            "user/message", user("r3"), surface_op=SurfaceReplace(0, 1), source_event_seqs=[0, 1]
        )
        assert log.surface == (3, 2)
        assert [m["id"] for m in log.messages()] == ["r3", "u2"]
        assert log.replacements[0].shadowed == (0, 1)

    def test_an_assistant_message_without_content_derives_nothing(self) -> None:
        log = SessionLog()
        log.append(
            "assistant/message", assistant("a0", []), surface_op="append", source_event_seqs=[]
        )
        assert (log.surface, log.messages()) == ((0,), [])

    def test_other_events_are_never_messages(self) -> None:
        log = SessionLog()
        log.append("turn/start", {"turn": 1})
        log.append("request/header", HEADER)
        log.append(
            "assistant/chunk",
            {"turn": 1, "step": 1, "chunk": {"type": "finish", "reason": {"kind": "stop"}}},
        )
        assert (log.surface, log.messages()) == ((), [])

    def test_messages_are_the_logged_objects_verbatim(self) -> None:
        log = SessionLog()
        data = {"source": {"kind": "user"}, "content": [], "id": "u0", "role": "user"}
        log.append("user/message", data, surface_op="append")
        assert list(log.messages()[0]) == ["source", "content", "id", "role"]

    def test_logged_messages_are_read_only(self) -> None:
        """The log hands out its own message objects, frozen: nobody edits the log through them."""
        log = three_messages()
        message = log.messages()[0]
        with pytest.raises(TypeError, match="read-only"):
            message["id"] = "changed"
        with pytest.raises(TypeError, match="read-only"):
            message["content"].append({"type": "text", "text": "more"})
        with pytest.raises(TypeError, match="read-only"):
            log.messages().pop()
        assert [m["id"] for m in log.messages()] == ["u0", "a1", "u2"]
        assert log.messages()[0]["content"] == [{"type": "text", "text": "hi"}]

    def test_a_logged_message_can_be_logged_again_and_read_back_as_plain_json(self) -> None:
        log = three_messages()
        again = {**log.messages()[0], "id": "u3"}
        log.append("user/message", again, surface_op="append")
        envelope = log.to_json()[3]
        envelope["data"]["content"].append({"type": "text", "text": "a copy: editable"})
        assert [m["id"] for m in log.messages()] == ["u0", "a1", "u2", "u3"]
        assert log.messages()[3]["content"] == [{"type": "text", "text": "hi"}]

    def test_the_header_and_context_folds(self) -> None:
        log = SessionLog()
        assert (log.request_header(), log.request_context()) == (None, None)
        log.append("request/header", HEADER)
        log.append("request/context", {"provider": "p", "model": "m", "contextWindow": 10})
        changed = {
            "header": {"config": {"provider": "p", "model": "n"}, "system": ""},
            "reason": "change",
        }
        log.append("request/header", changed)
        assert log.request_header() == {"config": {"provider": "p", "model": "n"}}
        assert log.request_context() == {"provider": "p", "model": "m", "contextWindow": 10}


class TestEventShape:
    """`session-event-invalid` (reference only): the fields the folds read must be there."""

    @pytest.mark.parametrize(
        ("type", "data"),
        [
            ("user/message", {"role": "user", "content": [], "source": {"kind": "user"}}),
            ("assistant/message", {"turn": 1, "step": 1}),
            ("tool/result", tool_result("t", "c") | {"message": user("t")}),
            ("request/header", {"header": {"config": {"provider": "p"}}, "reason": "initial"}),
            ("request/header", {**HEADER, "reason": "later"}),
        ],
    )
    def test_unreadable_events_are_rejected(self, type: str, data: Any) -> None:
        kwargs: dict[str, Any] = {}
        if type != "request/header":
            kwargs = {"surface_op": "append"}
        assert rejected(SessionLog(), type, data, **kwargs) == "session-event-invalid"


def test_loop_instances_start_at_zero_and_after_each_end_seed() -> None:
    log = SessionLog.from_seed([{"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}}])
    log.append("turn/start", {"turn": 2})
    assert loop_instance_starts(log.events) == [0, 2]
