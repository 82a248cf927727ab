"""The ``deepseek-wire`` ops of the reference harness: answers, refusals, and schema fit."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import dsh_conformance
from dsh_reference.harness import Driver

Json = Any
SCHEMA = json.loads(
    (Path(dsh_conformance.__file__).parent / "harness" / "protocol.schema.json").read_text()
)
VALIDATOR = Draft202012Validator(SCHEMA)
REQUEST = {
    "provider": "deepseek-official",
    "model": "m",
    "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
}


def run(*ops: Json) -> Json:
    message = {"type": "run", "case": "c", "scenario": {"ops": list(ops)}}
    assert VALIDATOR.is_valid(message)
    answer = Driver().handle(json.loads(json.dumps(message)))
    assert VALIDATOR.is_valid(answer), answer
    return answer


def request_op(**fields: Json) -> Json:
    return {
        "op": "deepseek-request",
        "request": REQUEST,
        "apiKey": "k",
        "baseUrl": "http://b",
        **fields,
    }


def test_the_three_ops_answer() -> None:
    answer = run(
        request_op(),
        {"op": "deepseek-stream", "chunks": [base64.b64encode(b"data: [DONE]\n\n").decode()]},
        {"op": "deepseek-http-error", "status": 401, "body": "", "nowMs": 0},
    )
    request, stream, failure = answer["observations"]
    assert request["request"]["url"] == "http://b/chat/completions"
    assert request["request"]["headers"]["authorization"] == "Bearer k"
    assert stream["chunks"][-1]["reason"]["failure"]["code"] == "EMPTY_RESPONSE"
    assert failure["failure"]["code"] == "AUTH"


def test_refusals_before_io_are_error_observations() -> None:
    (missing, effort) = run(
        request_op(apiKey=""), request_op(request={**REQUEST, "reasoningEffort": "medium"})
    )["observations"]
    assert missing["error"]["kind"] == "MISSING_CREDENTIAL"
    assert effort["error"]["kind"] == "UNSUPPORTED_REASONING_EFFORT"


@pytest.mark.parametrize(
    "op",
    [
        {"op": "deepseek-stream", "chunks": ["not base64!"]},
        {"op": "deepseek-stream"},
        {"op": "deepseek-http-error", "status": 500, "body": ""},
        request_op(request={**REQUEST, "messages": "hi"}),
    ],
    ids=["bad-base64", "no-chunks", "no-clock", "bad-request"],
)
def test_malformed_ops_are_errored_and_rejected_by_the_schema(op: Json) -> None:
    message = {"type": "run", "case": "c", "scenario": {"ops": [op]}}
    assert not VALIDATOR.is_valid(message)
    answer = Driver().handle(message)
    assert answer["type"] == "errored"
    assert "deepseek" in answer["context"]["error"]
