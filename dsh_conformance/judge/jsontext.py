"""JSON text and messages the suite writes or prints: readable, and always valid UTF-8.

A value the suite handles may hold a lone surrogate: PROMPT-TOOL-ORDER's cases name tools
``"\\ud800"`` (JSON carries it as an escape, and so does JavaScript's ``JSON.stringify``), and an
implementation may answer with one. Python reads it into a `str` that cannot be encoded as UTF-8,
so ``json.dumps(..., ensure_ascii=False)`` would copy it raw into an exported case, the JSON
report, ``--list --json`` or a failure message, and writing or printing that text would fail.
Here every other character is kept as it is (readable), and a lone surrogate stays a ``\\udXXX``
escape: inside JSON text the escape JSON itself uses, in a message the same six characters.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

Json = Any

_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with each lone surrogate written as its ``\\udXXX`` escape."""
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def dumps(value: Json, **options: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **options)``, lone surrogates escaped."""
    # A lone surrogate can only stand inside a JSON string, where its escape means the same.
    return printable(json.dumps(value, ensure_ascii=False, **options))


def show(value: Json, limit: int) -> str:
    """``value`` as JSON text for a message, cut to ``limit`` characters (``…`` says so)."""
    shown = dumps(value)
    return shown if len(shown) <= limit else shown[:limit] + "…"
