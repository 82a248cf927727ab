"""How deeply a JSON text nests, measured before parsing: one limit for all JSON the suite reads.

An implementation's answers (`dsh_conformance.harness.transport`) and the lines of a recorded
session log (``check-log``) are JSON written by someone else. Python's parser gives up near 1,000
levels with a ``RecursionError``, and the suite's own walkers (the log fold, diffs, the schema
diagnosis) recurse once or more per level, so a deeply nested text would end in a traceback, or in a
message that names no limit and no place. Every such text is measured first: deeper than
`MAX_NESTING` is one clear error, said the same way everywhere (`nesting_problem`).

The limit is generous: the deepest real data (a header's tool schemas inside a session event)
nests a few dozen levels.

The measure is linear and mostly C: a text with at most `MAX_NESTING` brackets cannot be deeper
(two ``str.count`` calls); otherwise the strings are cut out, only the brackets kept, and the depth
is the running maximum of +1/-1 per bracket. A text that is not JSON gets some depth; the parser
then says what is wrong with it.
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Final

#: The deepest nesting of arrays and objects accepted in any JSON the suite reads (an answer line,
#: a log line): ``[[1]]`` nests 2 levels.
MAX_NESTING: Final = 100

_STRING: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET: Final = re.compile(r"[^\[\]{}]+")
_STEP: Final = {"[": 1, "{": 1, "]": -1, "}": -1}


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in the JSON ``text`` (0 for a scalar)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def nesting_problem(text: str, limit: int = MAX_NESTING) -> str | None:
    """Why ``text`` is refused (nested deeper than ``limit``), or ``None``."""
    if text.count("[") + text.count("{") <= limit:
        return None
    found = depth(text)
    if found <= limit:
        return None
    return f"nested {found} levels deep; the suite reads JSON nested at most {limit} levels"
