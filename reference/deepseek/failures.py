"""An HTTP error response as an `LlmFailure` (PROMPT-DEEPSEEK-WIRE). Sans-IO.

CONTRACTS.md:

    HTTP errors: 401/403 → `AUTH`; an error body saying the balance/quota is exhausted → `QUOTA`
    (any status); other 429 → `RATE_LIMIT`; 400 naming the context length →
    `CONTEXT_WINDOW_EXCEEDED`; other 400 and 413 → `INVALID_REQUEST`; 5xx → `SERVER`; anything
    else → `HTTP_<status>`.

    Error wording: QUOTA when the error body (code, type or message) says the balance, quota or
    credits are insufficient, exhausted or exceeded (`Insufficient Balance`, `insufficient_quota`,
    `quota exceeded`), whatever the status; CONTEXT_WINDOW_EXCEEDED for a 400 whose message names
    the maximum context length or window, or says the input is too long for the model (`Please
    reduce the length of the messages` alone is INVALID_REQUEST). A `Retry-After` header in
    seconds or as an HTTP date becomes the failure's `providerRetryAfterMs`; anything else is
    ignored.

The rules are applied in the order the contract lists them, first match wins, so a 413 whose body
speaks of an exhausted quota is QUOTA ("whatever the status"; the upstream checks 413 first).
"""

from __future__ import annotations

import json
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
#: Retry-After in seconds: digits only. Kept as a JSON-safe integer of milliseconds, else ignored.
_SECONDS: Final = re.compile(r"\d+")
_MAX_SAFE_INTEGER: Final = 2**53 - 1


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
    request_id = lower.get("x-request-id") or lower.get("x-deepseek-request-id")
    if request_id:
        failure["requestId"] = request_id
    return failure


def error_code(status: int, detail: str) -> str:
    """The contract's status-and-wording table, in its order."""
    if status in (401, 403):
        return "AUTH"
    if _QUOTA.search(detail):
        return "QUOTA"
    if status == 429:
        return "RATE_LIMIT"
    if status == 400 and _CONTEXT.search(detail):
        return "CONTEXT_WINDOW_EXCEEDED"
    if status in (400, 413):
        return "INVALID_REQUEST"
    if 500 <= status <= 599:
        return "SERVER"
    return f"HTTP_{status}"


def retry_after_ms(value: str | None, *, now_ms: int) -> int | None:
    """Seconds (digits only) times 1000, or an HTTP date minus ``now_ms``; kept only when > 0."""
    if value is None:
        return None
    value = value.strip()
    if _SECONDS.fullmatch(value):
        delay = int(value) * 1000
    else:
        try:
            date = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if date.tzinfo is None:  # asctime dates carry no zone; HTTP dates are always GMT
            date = date.replace(tzinfo=UTC)
        delay = int(date.timestamp() * 1000) - now_ms
    return delay if 0 < delay <= _MAX_SAFE_INTEGER else None


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
