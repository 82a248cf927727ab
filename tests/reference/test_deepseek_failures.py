"""PROMPT-DEEPSEEK-WIRE: HTTP status and error body to a failure code; Retry-After.

Expected codes are the contract's table and wording rules ("first match" in the order listed),
with the upstream's sample bodies (`upstream/deepseek-adapter.md` §4.2, §7.2 F).
"""

from __future__ import annotations

import json

import pytest

from dsh_reference.deepseek import http_failure, retry_after_ms

NOW = 1_790_000_000_000  # a fixed clock for HTTP-date Retry-After values


def body(message: str = "", code: str | None = None, type_: str | None = None) -> str:
    error: dict[str, str] = {"message": message}
    if type_ is not None:
        error["type"] = type_
    if code is not None:
        error["code"] = code
    return json.dumps({"error": error})


@pytest.mark.parametrize(
    ("status", "text", "code"),
    [
        (401, body("bad key"), "AUTH"),
        (403, body("Insufficient Balance"), "AUTH"),
        (402, body("Insufficient Balance"), "QUOTA"),
        (429, body("", code="insufficient_quota"), "QUOTA"),
        (400, body("quota exceeded"), "QUOTA"),
        (503, body("your credits are exhausted"), "QUOTA"),
        (413, body("You exceeded your current quota"), "INVALID_REQUEST"),
        (599, "", "SERVER"),
        (600, "", "HTTP_600"),
        (429, body("failed with 429", type_="t", code="c"), "RATE_LIMIT"),
        (429, "", "RATE_LIMIT"),
        (
            400,
            body(
                "This model maximum context length is 128000 tokens; "
                "your input exceeds that limit.",
                type_="invalid_request_error",
                code="context_length_exceeded",
            ),
            "CONTEXT_WINDOW_EXCEEDED",
        ),
        (400, body("The input is too long for the model"), "CONTEXT_WINDOW_EXCEEDED"),
        (400, body("Please reduce the length of the messages"), "INVALID_REQUEST"),
        (400, body("bad field"), "INVALID_REQUEST"),
        (413, body("maximum context length exceeded"), "INVALID_REQUEST"),
        (422, body("maximum context length"), "HTTP_422"),
        (500, "", "SERVER"),
        (502, "Bad Gateway", "SERVER"),
        (503, body("busy"), "SERVER"),
        (418, body("teapot"), "HTTP_418"),
        (404, "not json", "HTTP_404"),
    ],
)
def test_status_and_body_to_code(status: int, text: str, code: str) -> None:
    assert http_failure(status, text, {}, now_ms=NOW)["code"] == code


def test_message_status_and_request_id() -> None:
    failure = http_failure(
        429, body("slow down"), {"Retry-After": "2", "X-Request-Id": "req-429"}, now_ms=NOW
    )
    assert failure == {
        "message": "slow down",
        "code": "RATE_LIMIT",
        "status": 429,
        "providerRetryAfterMs": 2000,
        "requestId": "req-429",
    }
    fallback = http_failure(502, "Bad Gateway", {"x-deepseek-request-id": "r2"}, now_ms=NOW)
    assert "HTTP 502" in fallback["message"]
    assert fallback["requestId"] == "r2"
    empty = {"x-request-id": "", "x-deepseek-request-id": "r3"}
    assert "requestId" not in http_failure(500, "", empty, now_ms=NOW)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2", 2000),
        (" 7 ", 7000),
        ("0", None),
        ("9" * 400, None),
        ("9" * 300, 1e303),
        ("-1", None),
        ("1.5", None),
        ("not-a-date", None),
        ("", None),
        ("Mon, 21 Sep 2026 14:13:23 GMT", 3000),
        ("Mon, 21 Sep 2026 14:13:20 GMT", None),
        ("Mon, 21 Sep 2026 14:13:10 GMT", None),
        ("Mon Sep 21 14:13:25 2026", 5000),
        (None, None),
    ],
)
def test_retry_after(value: str | None, expected: int | None) -> None:
    # NOW is 2026-09-21T14:13:20Z.
    assert retry_after_ms(value, now_ms=NOW) == expected
