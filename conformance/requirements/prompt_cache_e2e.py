"""PROMPT-CACHE-E2E, one rule per requirement (CONTRACTS.md, "PROMPT-CACHE-E2E").

OWNED BY THE DEEPSEEK ISSUE (16), which may split it further: this first split, written with the
catalog, covers what the two present tests check.
"""

from __future__ import annotations

from typing import Final

from .requirement import Requirement

CONTRACT: Final = "PROMPT-CACHE-E2E"
_SECTION: Final = "PROMPT-CACHE-E2E"
_LIVE: Final = ("test_every_request_after_the_first_reads_the_cache",)

REQUIREMENTS: Final = (
    Requirement(
        "PROMPT-CACHE-E2E.1",
        "Through the loop and the DeepSeek adapter, with a real key, every request after the "
        "first of a tool round trip and a follow-up turn reports cache-read tokens.",
        _SECTION,
        "every request after the first MUST report `cacheReadTokens > 0`",
        tests=_LIVE,
    ),
    Requirement(
        "PROMPT-CACHE-E2E.2",
        "Where a response reports both cache hits and misses, they add up to `prompt_tokens`.",
        _SECTION,
        "where both hit and miss counts are reported, hit + miss = `prompt_tokens`.",
        tests=_LIVE,
    ),
    Requirement(
        "PROMPT-CACHE-E2E.3",
        "Offline, each request body's serialized messages extend the previous request's byte "
        "for byte.",
        _SECTION,
        "Offline, the same property is checked as prefix stability: each request body's "
        "serialized messages extend the previous request's byte for byte.",
        tests=("test_each_request_extends_the_previous_one",),
    ),
)
