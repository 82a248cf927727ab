"""The suite's own log fold (`dsh_conformance.judge.logfold`): messages, header, and one test per
rule.

Every broken log is the hand-written valid log of `sample_logs` with one change, and the test
names the (seq, rule) pairs CONTRACTS.md says that change breaks.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import pytest
from sample_logs import (
    CLEARED,
    CONFIG,
    HEADER,
    OWNER,
    cleared,
    event,
    expected_messages,
    snapshot,
    tool_result,
    user,
    valid_log,
)

from dsh_conformance.judge.logfold import RULES, LogFold, fold_log, seeded_length

Log = list[dict[str, Any]]


def found(events: Log) -> list[tuple[int, str]]:
    return [(violation.seq, violation.rule) for violation in fold_log(events).violations]


def appended(events: Log, type: str, data: Any, **metadata: Any) -> Log:
    return [*events, event(len(events), type, data, **metadata)]


class TestValidLog:
    def test_has_no_violation(self) -> None:
        assert fold_log(valid_log()).violations == []

    def test_derived_messages_are_the_surface_messages_verbatim(self) -> None:
        fold = fold_log(valid_log())
        assert fold.surface == [2, 3, 8, 10, 15, 21, 22, 25]
        assert fold.messages() == expected_messages()
        assert [list(m) for m in fold.messages()][3] == ["source", "content", "role", "id"]

    def test_a_fold_that_keeps_no_events_derives_no_messages(self) -> None:
        fold = LogFold(keep_events=False)
        for each in valid_log():
            fold.add(each)
        assert (fold.violations, fold.surface) == ([], [2, 3, 8, 10, 15, 21, 22, 25])
        with pytest.raises(ValueError, match="derives no messages"):
            fold.messages()

    def test_folded_header_is_the_last_snapshot_canonicalized(self) -> None:
        header = fold_log(valid_log()).header
        assert header is not None
        assert header["config"] == {
            "model": "deepseek-chat",
            "provider": "deepseek",
            "maxTokens": 4096,
        }
        assert header["system"] == HEADER["system"]

    def test_loop_instances_start_at_zero_and_after_end_seed(self) -> None:
        assert fold_log(valid_log()).instance_starts == [0, 19]

    def test_replacement_takes_the_place_of_its_range(self) -> None:
        events = appended(
            valid_log(),
            "user/message",
            user("r", "summary"),
            surfaceOp={"op": "replace", "start": 2, "end": 10},
            sourceEventSeqs=[2, 3, 8, 10],
        )
        fold = fold_log(events)
        assert (fold.violations, fold.surface) == ([], [28, 15, 21, 22, 25])

    def test_every_rule_names_a_contract(self) -> None:
        assert set(RULES.values()) <= {
            "ROOT-MODEL",
            "LOGGEDLOOP-REQUEST-INVARIANT",
            "PROMPT-HEADER-CANONICAL",
            "LOOP-REQUEST-BUILD",
            "PROMPT-HEADER-CHANGE-TEST",
            "LOOP-RUNTIME-CONTEXT",
        }


class TestEnvelope:
    @pytest.mark.parametrize(
        "change",
        [
            lambda e: e.update(extra=1),
            lambda e: e.update(surfaceOp=None),
            lambda e: e.update(time="noon"),
            lambda e: e.pop("data"),
            lambda e: e.update(ignorable=False),
            lambda e: e.update(type=""),
        ],
    )
    def test_bad_envelopes(self, change: Any) -> None:
        events = valid_log()
        change(events[0])
        assert found(events) == [(0, "envelope")]

    def test_not_an_object(self) -> None:
        events = valid_log()
        events[17] = ["turn/end"]  # type: ignore[call-overload]
        assert found(events) == [(17, "envelope")]

    def test_seq_not_its_index(self) -> None:
        events = valid_log()
        events[5]["seq"] = 6
        assert found(events) == [(5, "seq-not-contiguous")]

    @pytest.mark.parametrize("value", [math.nan, math.inf, -0.0])
    def test_non_json_numbers(self, value: float) -> None:
        events = valid_log()
        events[13]["data"]["delayMs"] = value
        assert found(events) == [(13, "session-non-json")]


class TestLegacyHeader:
    def test_fallback_reason(self) -> None:
        events = valid_log()
        events[23]["data"]["reason"] = "fallback"
        # A refused header is not folded: the model output after it has no header.
        assert found(events) == [
            (23, "session-legacy-header"),
            (24, "request-header-missing"),
            (25, "request-header-missing"),
        ]

    def test_header_delta(self) -> None:
        assert found(appended(valid_log(), "request/header-delta", {})) == [
            (28, "session-legacy-header")
        ]


class TestSurfaceRules:
    def test_surface_op_required(self) -> None:
        events = valid_log()
        del events[2]["surfaceOp"]
        assert found(events) == [(2, "surface-op-required")]

    def test_surface_op_forbidden(self) -> None:
        events = valid_log()
        events[9]["surfaceOp"] = "append"
        events[11]["sourceEventSeqs"] = [9]
        assert found(events) == [(9, "surface-op-forbidden"), (11, "surface-op-forbidden")]

    @pytest.mark.parametrize(
        "op",
        [
            "prepend",
            {"op": "replace", "start": 2},
            {"op": "replace", "start": 2, "end": 3, "x": 0},
            {"op": "replace", "start": 3, "end": 2},
            {"op": "replace", "start": 2, "end": 9},
        ],
    )
    def test_surface_replace_invalid(self, op: Any) -> None:
        events = appended(
            valid_log(), "user/message", user("r", "x"), surfaceOp=op, sourceEventSeqs=[2, 3]
        )
        assert found(events) == [(28, "surface-replace-invalid")]

    @pytest.mark.parametrize("seqs", [[], [10], [9, 9], [-1], [1.5]])
    def test_source_seqs_invalid(self, seqs: list[Any]) -> None:
        events = valid_log()
        events[10]["sourceEventSeqs"] = seqs
        assert found(events) == [(10, "source-seqs-invalid")]

    def test_a_replace_must_cite_every_shadowed_node(self) -> None:
        op = {"op": "replace", "start": 2, "end": 8}
        events = appended(
            valid_log(), "user/message", user("r", "x"), surfaceOp=op, sourceEventSeqs=[2, 8]
        )
        assert found(events) == [(28, "source-seqs-invalid")]

    def test_a_rejected_event_stays_off_the_surface(self) -> None:
        op = {"op": "replace", "start": 2, "end": 8}
        events = appended(
            valid_log(), "user/message", user("r", "x"), surfaceOp=op, sourceEventSeqs=[2, 8]
        )
        assert fold_log(events).surface == [2, 3, 8, 10, 15, 21, 22, 25]

    def test_tool_result_replacing_its_content(self) -> None:
        op = {"op": "replace", "start": 10, "end": 10}
        events = appended(
            valid_log(),
            "tool/result",
            tool_result("t10", "c1", "[trimmed]"),
            surfaceOp=op,
            sourceEventSeqs=[10],
        )
        assert found(events) == []

    @pytest.mark.parametrize(
        ("change", "op"),
        [
            (
                lambda d: d["message"]["content"][0].update(isError=True),
                {"op": "replace", "start": 10, "end": 10},
            ),
            (lambda d: d.update(meta={"cut": True}), {"op": "replace", "start": 10, "end": 10}),
            (lambda d: None, {"op": "replace", "start": 8, "end": 10}),
            (lambda d: None, {"op": "replace", "start": 15, "end": 15}),
        ],
    )
    def test_tool_result_replace_invalid(self, change: Any, op: Any) -> None:
        data = tool_result("t10", "c1", "[trimmed]")
        change(data)
        events = appended(
            valid_log(), "tool/result", data, surfaceOp=op, sourceEventSeqs=[8, 10, 15]
        )
        assert found(events) == [(28, "tool-result-replace-invalid")]

    def test_payload_shape(self) -> None:
        events = valid_log()
        del events[21]["data"]["id"]
        assert found(events) == [(21, "payload-shape")]

    def test_plugin_event_types_pass_unchecked(self) -> None:
        events = appended(valid_log(), "x-plugin/anything", [1, "two", {"three": 3.5}])
        assert found(events) == []


class TestHeaders:
    @pytest.mark.parametrize(
        "header",
        [
            {"config": {"provider": "deepseek"}},
            {"config": CONFIG, "adapterDefaults": {"maxTokens": False}},
            {"config": {"provider": "p", "model": "m"}, "adapterDefaults": {"maxTokens": True}},
            {"config": CONFIG, "system": 1},
            {"config": CONFIG, "stop": []},
        ],
    )
    def test_header_snapshot(self, header: Any) -> None:
        events = appended(valid_log(), "request/header", {"header": header, "reason": "change"})
        assert found(events) == [(28, "header-snapshot")]

    def test_first_header_of_a_log_is_initial(self) -> None:
        events = valid_log()
        events[4]["data"]["reason"] = "resume"
        assert found(events) == [(4, "header-reason")]

    def test_first_header_of_a_later_instance_is_resume(self) -> None:
        events = valid_log()
        events[23]["data"]["reason"] = "initial"
        assert found(events) == [(23, "header-reason")]

    def test_a_change_header_equal_to_the_folded_one_is_a_violation(self) -> None:
        # Config key order differs; canonical-equal (empty system/tools would be too).
        reordered = {
            **HEADER,
            "config": {"maxTokens": 4096, "model": "deepseek-chat", "provider": "deepseek"},
        }
        events = appended(valid_log(), "request/header", {"header": reordered, "reason": "change"})
        assert found(events) == [(28, "header-unchanged")]

    def test_a_real_change_is_fine(self) -> None:
        changed = {**HEADER, "config": {**CONFIG, "stop": []}}
        events = appended(valid_log(), "request/header", {"header": changed, "reason": "change"})
        assert found(events) == []

    def test_a_later_header_of_an_instance_is_a_change(self) -> None:
        changed = {**HEADER, "system": "Other."}
        events = appended(valid_log(), "request/header", {"header": changed, "reason": "resume"})
        assert found(events) == [(28, "header-reason")]

    def test_context_unchanged(self) -> None:
        context = {"model": "deepseek-chat", "provider": "deepseek", "contextWindow": 65536}
        assert found(appended(valid_log(), "request/context", context)) == [
            (28, "context-unchanged")
        ]

    def test_model_output_without_a_header_in_its_loop_instance(self) -> None:
        events = valid_log()
        events[23] = event(23, "x-plugin/note", {})
        assert found(events) == [(24, "request-header-missing"), (25, "request-header-missing")]

    def test_model_output_outside_an_open_step(self) -> None:
        events = valid_log()
        events[14]["data"]["step"] = 3
        assert found(events) == [(14, "step-not-open")]


class TestRuntimeContext:
    def test_a_snapshot_whose_text_is_not_its_sections(self) -> None:
        events = valid_log()
        events[3]["data"]["content"][0]["text"] += " "
        assert found(events) == [(3, "runtime-context-message")]

    def test_a_snapshot_without_form(self) -> None:
        events = valid_log()
        del events[3]["data"]["source"]["form"]
        assert found(events) == [(3, "runtime-context-message")]

    def test_an_owned_message_without_form_is_the_cleared_marker(self) -> None:
        events = valid_log()
        events[22]["data"]["content"][0]["text"] = CLEARED + "."
        assert found(events) == [(22, "runtime-context-message")]

    def test_re_proposing_the_retained_snapshot(self) -> None:
        events = valid_log()[:11]
        events = appended(
            events, "user/message", snapshot("again", ("cwd", "cwd: /tmp")), surfaceOp="append"
        )
        assert found(events) == [(11, "runtime-context-unchanged")]

    def test_a_new_instance_restores_the_visible_snapshot(self) -> None:
        events = valid_log()
        events[22] = event(
            22, "user/message", snapshot("again", ("cwd", "cwd: /tmp")), surfaceOp="append"
        )
        assert found(events) == [(22, "runtime-context-unchanged")]

    def test_the_cleared_marker_when_never_seen(self) -> None:
        events = [event(0, "user/message", cleared("c"), surfaceOp="append")]
        assert found(events) == [(0, "runtime-context-unchanged")]

    def test_the_cleared_marker_twice(self) -> None:
        events = appended(valid_log(), "user/message", cleared("c"), surfaceOp="append")
        assert found(events) == [(28, "runtime-context-unchanged")]

    def test_after_the_snapshot_is_forgotten_the_same_text_is_proposed_again(self) -> None:
        events = valid_log()[:11]
        events = appended(
            events,
            "user/message",
            user("r", "summary"),
            surfaceOp={"op": "replace", "start": 2, "end": 8},
            sourceEventSeqs=[2, 3, 8],
        )
        events = appended(
            events, "user/message", snapshot("again", ("cwd", "cwd: /tmp")), surfaceOp="append"
        )
        assert found(events) == []

    def test_a_message_of_another_plugin_is_not_owned(self) -> None:
        other = {**user("p", "x"), "source": {**OWNER, "plugin": "other"}}
        assert found(appended(valid_log(), "user/message", other, surfaceOp="append")) == []


class TestSeededEvents:
    """Seeded events are judged by the append rules only; loop rules judge what a loop wrote."""

    #: What no loop writes: a chunk outside any step with no header before it, an owned message
    #: that is no snapshot, a step/start without its turn, a header whose reason is no reason.
    LOOP_BREAKING: ClassVar[Log] = [
        event(0, "assistant/chunk", {"turn": 1, "step": 1, "chunk": {"type": "finish"}}),
        event(
            1,
            "user/message",
            {**user("o", "an older wording"), "source": OWNER},
            surfaceOp="append",
        ),
        event(2, "step/start", {}),
        event(3, "request/header", {"header": HEADER, "reason": "whatever"}),
        event(4, "session/end-seed", {}),
    ]

    def test_loop_rules_judge_only_what_a_loop_instance_wrote(self) -> None:
        assert sorted({seq for seq, _rule in found(self.LOOP_BREAKING)}) == [0, 1, 2, 3]
        assert fold_log(self.LOOP_BREAKING, seeded=5).violations == []

    def test_seeded_events_still_give_the_state_a_loop_starts_from(self) -> None:
        fold = fold_log(self.LOOP_BREAKING, seeded=5)
        assert fold.surface == [1] and fold.header is not None
        resumed = appended(
            self.LOOP_BREAKING, "request/header", {"header": HEADER, "reason": "initial"}
        )
        assert fold_log(resumed, seeded=5).violations[0].rule == "header-reason"

    def test_the_append_rules_still_judge_seeded_events(self) -> None:
        broken = [
            event(0, "user/message", {**user("u", "x"), "role": "assistant"}, surfaceOp="append")
        ]
        assert [(v.seq, v.rule) for v in fold_log(broken, seeded=1).violations] == [
            (0, "payload-shape")
        ]

    def test_the_seeded_part_ends_at_the_last_end_seed(self) -> None:
        assert seeded_length(self.LOOP_BREAKING + self.LOOP_BREAKING[4:]) == 6
        assert seeded_length(self.LOOP_BREAKING[:4]) == 0
