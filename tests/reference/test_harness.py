"""The reference harness program: protocol messages in, observations out
(dsh_conformance/PROTOCOL.md).

The example cases exercise most ops; these tests pin what they do not: abort signals reaching
providers and listeners, scenarios the harness must refuse as ``errored``, and the JSON-lines
server loop behind ``dsh-reference-harness``.
"""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

import pytest

from dsh_conformance.scenarios import scenario as s
from dsh_reference.harness import CAPABILITY_OPS, PROTOCOL_VERSION, Driver, serve
from dsh_reference.harness.scenario import Scenario, ScriptedFailure


def run(*ops: Any) -> dict[str, Any]:
    return Driver().handle({"type": "run", "case": "t", "scenario": {"ops": list(ops)}})


def observations(*ops: Any) -> list[Any]:
    answer = run(*ops)
    assert answer["type"] == "observed", answer
    return answer["observations"]


class TestAbortSignal:
    """PROMPT-CANCEL-TEST: "The assembly context carries the turn's abort signal"."""

    def test_a_listener_waiting_for_abort_stays_pending_until_the_assembly_is_aborted(self) -> None:
        seen = observations(
            s.listen(
                "l",
                s.listener({"append": "sections", "item": s.entry("late", "L")}, wait_abort=True),
            ),
            s.assemble("a"),
            s.await_("a"),
            s.abort("a", {"kind": "user"}),
            s.await_("a"),
        )
        assert seen[1] == s.PENDING
        assert seen[2] == s.PENDING
        assert seen[4]["assembly"]["sections"][-1] == s.entry("late", "L")

    def test_aborting_one_assembly_leaves_another_blocked(self) -> None:
        seen = observations(
            s.section("p", "p", 1, s.provider("P", wait_abort=True)),
            s.assemble("a"),
            s.assemble("b"),
            s.abort("a"),
            s.await_("a"),
            s.await_("b"),
        )
        assert "assembly" in seen[4]
        assert seen[5] == s.PENDING


class TestGates:
    def test_a_provider_blocked_on_a_gate_settles_once_the_gate_opens(self) -> None:
        seen = observations(
            s.variable("v", "x", s.provider("X", id="px", wait_gate="g")),
            s.assemble("a"),
            s.counts(),
            s.open_gate("g"),
            s.await_("a"),
        )
        assert seen[1] == s.PENDING
        assert seen[2]["evaluations"] == {"px": 1}
        assert seen[4]["assembly"]["variables"] == {"x": "X"}

    def test_an_open_gate_does_not_block_later_waiters(self) -> None:
        seen = observations(
            s.open_gate("g"),
            s.variable("v", "x", s.provider("X", wait_gate="g")),
            s.assemble("a"),
        )
        assert seen[2]["assembly"]["variables"] == {"x": "X"}


class TestCounts:
    def test_lists_only_providers_and_listeners_whose_registration_was_accepted(self) -> None:
        seen = observations(
            s.variable("ok", "x", s.provider("X", id="accepted")),
            s.variable(
                "bad",
                "Bad",
                s.provider("Y", id="rejected-name"),
                expect=s.error("invalid-variable-name"),
            ),
            s.section("nan", "n", "NaN", s.provider("Z", id="rejected-order")),
            s.listen("l", s.listener(id="listener")),
            s.counts(),
        )
        assert seen[4] == {"evaluations": {"accepted": 0, "listener": 0}, "changes": 1}


class TestRefusedScenarios:
    @pytest.mark.parametrize(
        ("ops", "complaint"),
        [
            ([{"op": "explode"}], "unknown op 'explode'"),
            ([s.scope("a"), s.configure({})], "configure is allowed only as the first op"),
            ([s.release("nope")], "unknown handle 'nope'"),
            ([s.suppressor("h"), s.suppressor("h")], "handle 'h' is already used"),
            ([s.assemble("a", "missing")], "unknown scope 'missing'"),
            ([s.render("never-started")], "unknown assembly 'never-started'"),
            ([s.section("h", "a", "nan", "A")], "neither a number nor NaN"),
            (
                [s.section("h", "a", 1, s.provider(fails="boom")), s.assemble("a"), s.render("a")],
                "has not produced an assembly",
            ),
        ],
        ids=[
            "unknown-op",
            "late-configure",
            "unknown-handle",
            "reused-handle",
            "unknown-scope",
            "unknown-assembly",
            "bad-order-spelling",
            "render-of-failed-assembly",
        ],
    )
    def test_is_answered_errored_with_the_reason(self, ops: list[Any], complaint: str) -> None:
        answer = run(*ops)
        assert answer["type"] == "errored"
        assert complaint in answer["context"]["error"]


class TestServe:
    def test_answers_each_line_and_stops_at_stop(self) -> None:
        requests = [
            {"type": "start", "protocol": PROTOCOL_VERSION},
            {"type": "run", "case": "c", "scenario": {"ops": [s.scope("x")]}},
            {"type": "stop"},
            {"type": "run", "case": "after-stop", "scenario": {"ops": []}},
        ]
        stdin = io.StringIO("".join(json.dumps(r) + "\n" for r in requests))
        stdout = io.StringIO()
        serve(Driver(), stdin, stdout)
        answers = [json.loads(line) for line in stdout.getvalue().splitlines()]
        assert [a["type"] for a in answers] == ["started", "observed"]
        assert answers[1]["observations"] == [s.OK]

    def test_a_line_that_is_not_json_is_answered_errored(self) -> None:
        stdout = io.StringIO()
        serve(Driver(), io.StringIO("{not json\n\n"), stdout)
        (answer,) = [json.loads(line) for line in stdout.getvalue().splitlines()]
        assert answer["type"] == "errored"
        assert "bad JSON" in answer["context"]


class TestProtocol11Ops:
    """The registry ops and fields of protocol 1.1 (capability ``registry-1.1``)."""

    def test_the_reference_declares_the_1_1_capabilities(self) -> None:
        started = Driver().handle({"type": "start", "protocol": PROTOCOL_VERSION})
        assert {"registry", "registry-1.1", "async-providers"} <= set(started["capabilities"])

    def test_received_records_context_and_listener_payload(self) -> None:
        seen = observations(
            s.configure({"includeHarnessIdentity": False}),
            s.scope("s"),
            s.section("p", "p", 1, s.provider("P", id="p")),
            s.listen("l", s.listener(id="l")),
            s.assemble("a", "s", aborted=True, reason={"kind": "disposed"}),
            s.received("p"),
            s.received("l"),
        )
        assert seen[5] == s.calls(s.call("s", agent=None, reason={"kind": "disposed"}))
        payload = seen[6]["calls"][0]["payload"]
        assert payload["sections"] == [s.EMPTY_PERSONA, s.entry("p", "P")]

    def test_an_aborted_assemble_lets_a_listener_waiting_for_abort_go_on(self) -> None:
        seen = observations(
            s.listen("l", s.listener(wait_abort=True)), s.assemble("a", aborted=True)
        )
        assert "assembly" in seen[1]

    def test_register_takes_scope_as_the_word_for_layer(self) -> None:
        op = s.section("h", "x", 1, "scoped")
        del op["layer"]
        seen = observations(
            s.scope("s"), {**op, "scope": "s"}, s.assemble("g"), s.assemble("in", "s")
        )
        assert s.entry("x", "scoped") not in seen[2]["assembly"]["sections"]
        assert s.entry("x", "scoped") in seen[3]["assembly"]["sections"]

    def test_register_with_both_scope_and_layer_is_refused(self) -> None:
        assert run(s.scope("s"), {**s.section("h", "x", 1, "X"), "scope": "s"})["type"] == "errored"

    def test_dispose_releases_what_the_scope_holds(self) -> None:
        seen = observations(
            s.scope("s"),
            s.section("sec", "x", 1, "X", layer="s"),
            s.suppressor("sup", layer="s"),
            s.listen("l", s.listener(id="l"), scope="s"),
            s.dispose("s"),
            s.counts(),
            s.assemble("a", "s"),
            s.counts(),
        )
        assert seen[5]["changes"] == 4
        assert s.entry("x", "X") not in seen[6]["assembly"]["sections"]
        assert seen[7]["evaluations"]["l"] == 0

    def test_dispose_of_an_unknown_scope_is_refused(self) -> None:
        assert run(s.dispose("nowhere"))["type"] == "errored"

    def test_set_variable_with_a_non_string_value_is_refused(self) -> None:
        bad = s.listener(before=[{"set-variable": "x", "value": 5}])
        assert run(s.listen("l", bad), s.assemble("a"))["type"] == "errored"

    def test_received_for_an_unknown_id_is_refused(self) -> None:
        assert run(s.received("nobody"))["type"] == "errored"


def test_waiting_for_an_abort_without_a_signal_is_a_scripted_failure() -> None:
    """PROTOCOL.md (1.2): a loop that forgets the turn's signal fails its case (the listener
    throws `scripted-failure`), it does not error the harness."""
    scenario = Scenario(Driver(), CAPABILITY_OPS)
    with pytest.raises(ScriptedFailure, match="no abort signal"):
        asyncio.run(scenario.wait({"abort": True}, None))
