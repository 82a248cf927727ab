"""Every answer of an implementation, checked at run time against ``protocol.schema.json``.

The schema is the one source of the protocol's rules (PROTOCOL.md in machine-readable form): an
answer with an extra field, an ``errored`` without a ``case``, or an observation of the wrong type
is a protocol violation of that case, reported with the JSON pointer of what is wrong. The suite's
own tests check the same schema against every message the suite sends.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any, Final

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from ..judge.jsontext import dumps
from .protocol import ProtocolError

Json = Any

#: The answers each request may get, by the schema's ``$defs`` name of the answer.
ANSWERS: Final = {"start": ("started",), "run": ("observed", "skipped", "errored")}
_SHOWN: Final = 300


@functools.cache
def schema() -> Json:
    """``protocol.schema.json`` as shipped inside the package."""
    text = resources.files(__package__).joinpath("protocol.schema.json").read_text("utf-8")
    return json.loads(text)


@functools.cache
def _validator(definition: str) -> Draft202012Validator:
    root = {key: value for key, value in schema().items() if key != "oneOf"}
    return Draft202012Validator({**root, "$ref": f"#/$defs/{definition}"})


def check_answer(message: Json, request: str) -> None:
    """Raise `ProtocolError` unless ``message`` is a schema-valid answer to ``request``."""
    allowed = ANSWERS[request]
    kind = message.get("type") if isinstance(message, dict) else None
    if kind not in allowed:
        raise ProtocolError(
            f"expected {' or '.join(repr(a) for a in allowed)} in answer to '{request}', "
            f"got {cut(dumps(message))}"
        )
    error = best_match(_validator(kind).iter_errors(message))
    if error is not None:
        raise ProtocolError(
            f"the {kind!r} answer does not fit protocol.schema.json at {pointer(error)}: "
            f"{cut(error.message)}"
        )


def pointer(error: ValidationError) -> str:
    """The JSON pointer (RFC 6901) of the offending value, or "the top level"."""
    if not error.absolute_path:
        return "the top level"
    parts = (str(part).replace("~", "~0").replace("/", "~1") for part in error.absolute_path)
    return "/" + "/".join(parts)


def cut(text: str, limit: int = _SHOWN) -> str:
    """``text`` cut to ``limit`` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters cut]"
