"""An HTTP error response as an `LlmFailure` (PROMPT-DEEPSEEK-WIRE). Sans-IO.

CONTRACTS.md:

    HTTP errors, the first rule that matches wins, in this order: 401/403 → `AUTH`; 413 →
    `INVALID_REQUEST`; an error body saying the balance/quota is exhausted → `QUOTA` (any other
    status); 429 → `RATE_LIMIT`; 400 naming the context length → `CONTEXT_WINDOW_EXCEEDED`; other
    400 → `INVALID_REQUEST`; 5xx → `SERVER`; anything else → `HTTP_<status>`. Every HTTP failure
    carries `status` (the HTTP status) and `requestId`: the `x-request-id` header's value when the
    response has that header, else `x-deepseek-request-id`'s; an empty value is none (an empty
    `x-request-id` does not fall back).

    A `Retry-After` header in seconds or as an HTTP date becomes the failure's
    `providerRetryAfterMs` when it is positive: ASCII digits only are seconds (x 1000, ignored when
    0 or when the milliseconds overflow a double, e.g. 400 nines; 300 nines are kept); anything
    else is read as an HTTP-date (RFC 9110: IMF-fixdate, RFC 850 or asctime, all GMT) and kept
    only when it lies in the future. The header counts on any HTTP failure.

The error body is ``{"error": {"message", "type", "code"}}``; any other body (not JSON, JSON
``null``, an array, ``error`` as a string, a top-level ``message``) has no wording and no message,
and the message falls back to the status.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Any, Final

from ..llm import LlmFailure

Json = Any

_WORD_GAP: Final = r"[\s_-]*"
_QUOTA: Final = re.compile(
    rf"insufficient{_WORD_GAP}(?:quota|balance|credits?)"
    rf"|(?:quota|balance|credits?|usage{_WORD_GAP}limit){_WORD_GAP}"
    r"(?:(?:is|are|has been|have been)\s+)?(?:insufficient|exhausted|exceeded|depleted|reached)"
    rf"|exceed(?:ed|s)?\s+(?:your\s+|the\s+)?(?:current\s+)?quota"
    rf"|out{_WORD_GAP}of{_WORD_GAP}(?:credits?|budget)",
    re.IGNORECASE,
)
_CONTEXT: Final = re.compile(
    rf"context{_WORD_GAP}(?:length|window){_WORD_GAP}exceed"
    rf"|maximum{_WORD_GAP}context{_WORD_GAP}(?:length|window)"
    rf"|(?:exceeds?|beyond){_WORD_GAP}(?:the\s+)?(?:model'?s?\s+)?context{_WORD_GAP}(?:length|window)"
    r"|too\s+(?:long|large)\s+for\s+(?:the\s+)?model",
    re.IGNORECASE,
)
#: Retry-After in seconds: ASCII digits only (``str.isdigit`` also takes other scripts' digits).
_SECONDS: Final = re.compile(r"[0-9]+")


def http_failure(status: int, body: str, headers: Mapping[str, str], *, now_ms: int) -> LlmFailure:
    """The failure for a non-2xx response; ``headers`` are matched case-insensitively, and
    ``now_ms`` is the clock an HTTP-date ``Retry-After`` is measured against."""
    error = _error_object(body)
    message = error.get("message")
    detail = " ".join(str(error[key]) for key in ("code", "type", "message") if error.get(key))
    failure: LlmFailure = {
        "message": message if isinstance(message, str) and message else _fallback(status),
        "code": error_code(status, detail),
        "status": status,
    }
    lower = {name.lower(): value for name, value in headers.items()}
    retry_after = retry_after_ms(lower.get("retry-after"), now_ms=now_ms)
    if retry_after is not None:
        failure["providerRetryAfterMs"] = retry_after
    request_id = lower.get("x-request-id", lower.get("x-deepseek-request-id"))
    if request_id:
        failure["requestId"] = request_id
    return failure


def error_code(status: int, detail: str) -> str:
    """The contract's status-and-wording table, in its order."""
    if status in (401, 403):
        return "AUTH"
    if status == 413:
        return "INVALID_REQUEST"
    if _QUOTA.search(detail):
        return "QUOTA"
    if status == 429:
        return "RATE_LIMIT"
    if status == 400:
        return "CONTEXT_WINDOW_EXCEEDED" if _CONTEXT.search(detail) else "INVALID_REQUEST"
    if 500 <= status <= 599:
        return "SERVER"
    return f"HTTP_{status}"


def retry_after_ms(value: str | None, *, now_ms: int) -> float | None:
    """Seconds (digits only) times 1000, or an HTTP date minus ``now_ms``; kept only when > 0.

    The seconds are a double, as JavaScript reads them: 300 nines are about ``1e303`` ms and kept,
    400 nines overflow to infinity and are ignored. A whole number of milliseconds is an `int`.
    """
    if value is None:
        return None
    value = value.strip()
    if _SECONDS.fullmatch(value):
        delay = float(value) * 1000
        if not math.isfinite(delay):
            return None
    else:
        try:
            date = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if date.tzinfo is None:  # asctime dates carry no zone; HTTP dates are always GMT
            date = date.replace(tzinfo=UTC)
        delay = date.timestamp() * 1000 - now_ms
    if delay <= 0:
        return None
    return int(delay) if delay.is_integer() else delay


def _error_object(body: str) -> dict[str, Json]:
    """``{"error": {"message", "type", "code"}}`` if the body is that, else nothing."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return {}
    error = parsed.get("error") if isinstance(parsed, dict) else None
    return error if isinstance(error, dict) else {}


def _fallback(status: int) -> str:
    return f"DeepSeek API error (HTTP {status})"
