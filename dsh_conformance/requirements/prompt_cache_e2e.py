"""PROMPT-CACHE-E2E, one rule per requirement (CONTRACTS.md, "PROMPT-CACHE-E2E").

Split by the DeepSeek issue (16): the live half (a real key) and the offline half (raw request
bodies that extend each other byte for byte, judged through the loopback server).
"""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-CACHE-E2E"
_SECTION: Final = "PROMPT-CACHE-E2E"

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-CACHE-E2E.1",
        (
            "The live test runs only when asked for and DEEPSEEK_API_KEY is set, never in CI: "
            "through the loop and the DeepSeek adapter, a turn with a tool round trip (at "
            "least 2 requests) and a follow-up turn (at least 1)."
        ),
        _SECTION,
        (
            "Key-gated and opt-in (run only when the user asks for the live test and "
            "`DEEPSEEK_API_KEY` is set; never run in CI): through the loop and the DeepSeek "
            "adapter, a turn with a tool round trip (≥ 2 requests) and a follow-up turn (≥ 1 "
            "request);"
        ),
        tests=("test_every_request_after_the_first_reads_the_cache",),
    ),
    Requirement(
        "PROMPT-CACHE-E2E.2",
        "Every request after the first reports cacheReadTokens greater than 0.",
        _SECTION,
        "every request after the first MUST report `cacheReadTokens > 0`,",
        tests=("test_every_request_after_the_first_reads_the_cache",),
    ),
    Requirement(
        "PROMPT-CACHE-E2E.3",
        "Where both hit and miss counts are reported, they add up to prompt_tokens.",
        _SECTION,
        "and where both hit and miss counts are reported, hit + miss = `prompt_tokens`.",
        tests=("test_every_request_after_the_first_reads_the_cache",),
    ),
    Requirement(
        "PROMPT-CACHE-E2E.4",
        "The system prompt spans a provider cache block from the first request.",
        _SECTION,
        (
            "The system prompt must be long enough to span a provider cache block from the "
            "first request."
        ),
        tests=("test_every_request_after_the_first_reads_the_cache",),
    ),
    Requirement(
        "PROMPT-CACHE-E2E.5",
        (
            "Offline: each request body's serialized messages extend the previous request's "
            "byte for byte (and the tools are the same bytes), so consecutive requests of one "
            "implementation are byte-identical where they overlap."
        ),
        _SECTION,
        (
            "Offline, the same property is checked as prefix stability: each request body's "
            "serialized messages extend the previous request's byte for byte."
        ),
        tests=("test_each_request_extends_the_previous_one",),
    ),
)
