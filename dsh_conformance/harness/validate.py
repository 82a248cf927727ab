"""Every answer of an implementation, checked at run time against ``protocol.schema.json``.

The schema is the one source of the protocol's rules (PROTOCOL.md in machine-readable form): an
answer with an extra field, an ``errored`` without a ``case``, or an observation of the wrong type
is a protocol violation of that case, reported with the JSON pointer of what is wrong. The suite's
own tests check the same schema against every message the suite sends.

Checking costs little whatever a harness sends (issue 22: an 8 MiB answer must not stall the run).
Whether an answer fits is decided by a compiled validator (``jsonschema-rs``: on this project's
2-core machine about 200 times faster than ``jsonschema``'s, ``benchmarks/answer_bounds.py``).
Only an answer that does not fit is looked at again, by ``jsonschema``'s ``best_match`` (which
names the branch of a ``oneOf`` that came closest), and only the part that broke the schema: the
first offending observation, or the answer without its observations, when that part is small;
a larger one keeps the compiled validator's own message.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from importlib import resources
from typing import Any, Final

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from ..judge.jsontext import dumps
from .protocol import ProtocolError

Json = Any

#: The answers each request may get, by the schema's ``$defs`` name of the answer.
ANSWERS: Final = {"start": ("started",), "run": ("observed", "skipped", "errored")}
_SHOWN: Final = 300
#: The largest part of an answer (as JSON text) diagnosed with ``best_match``: ``jsonschema`` takes
#: about 3 µs a byte, so this bounds a diagnosis to a fraction of a second.
_DIAGNOSED_CHARS: Final = 64 * 1024


@functools.cache
def schema() -> Json:
    """``protocol.schema.json`` as shipped inside the package."""
    text = resources.files(__package__).joinpath("protocol.schema.json").read_text("utf-8")
    return json.loads(text)


def _rooted(definition: str) -> Json:
    """The schema with ``definition`` (a ``$defs`` name) as what it validates."""
    root = {key: value for key, value in schema().items() if key != "oneOf"}
    return {**root, "$ref": f"#/$defs/{definition}"}


@functools.cache
def compiled(definition: str) -> jsonschema_rs.Draft202012Validator:
    """The compiled validator of an answer (a ``$defs`` name), built once per process."""
    return jsonschema_rs.Draft202012Validator(_rooted(definition))


@functools.cache
def _validator(definition: str) -> Draft202012Validator:
    return Draft202012Validator(_rooted(definition))


def check_answer(message: Json, request: str) -> None:
    """Raise `ProtocolError` unless ``message`` is a schema-valid answer to ``request``."""
    allowed = ANSWERS[request]
    kind = message.get("type") if isinstance(message, dict) else None
    if kind not in allowed:
        raise ProtocolError(
            f"expected {' or '.join(repr(a) for a in allowed)} in answer to '{request}', "
            f"got {cut(dumps(message))}"
        )
    if compiled(kind).is_valid(message):
        return
    where, what = _diagnosis(message, kind)
    raise ProtocolError(
        f"the {kind!r} answer does not fit protocol.schema.json at {where}: {cut(what)}"
    )


def shape_problems(ops: list[Json], observations: list[Json]) -> dict[int, str]:
    """Each observation that lacks its op's shape (``observationOf`` in the schema), by index:
    ``{"ok": true}`` where a `project` answers ``{"message": …}`` is no "nothing proposed"
    (issue 37, LOOP-RUNTIME-CONTEXT). ``observations`` already fit the schema as a whole (one
    observation shape or another), so the keys alone tell which shape an observation has."""
    found = {}
    for index, (op, observed) in enumerate(zip(ops, observations, strict=False)):
        shapes = observation_shapes(op.get("op"))
        if shapes and not any(_has_shape(observed, keys) for keys in shapes):
            wanted = " or ".join(_shown_shape(keys) for keys in shapes)
            found[index] = (
                f"a {op['op']!r} answers {wanted} (protocol.schema.json, observationOf), "
                f"got {cut(dumps(observed), _SHOWN // 3)}"
            )
    return found


@functools.cache
def observation_shapes(op: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """The shapes ``op``'s observation may take, each as (required keys, allowed keys); none for
    an op the schema does not name."""
    entry = schema()["$defs"]["observationOf"]["properties"].get(op)
    if entry is None:
        return ()
    shapes = []
    for reference in entry["oneOf"]:
        variant: Json = schema()
        for part in reference["$ref"].removeprefix("#/").split("/"):
            variant = variant[int(part) if isinstance(variant, list) else part]
        shapes.append(
            (
                frozenset(variant.get("required", ())),
                frozenset(variant.get("properties", ())),
            )
        )
    return tuple(shapes)


def _has_shape(observed: Json, shape: tuple[frozenset[str], frozenset[str]]) -> bool:
    required, allowed = shape
    return isinstance(observed, dict) and required <= observed.keys() <= allowed


def _shown_shape(shape: tuple[frozenset[str], frozenset[str]]) -> str:
    return "{" + ", ".join(f'"{key}": …' for key in sorted(shape[1])) + "}"


def _diagnosis(message: dict[str, Json], kind: str) -> tuple[str, str]:
    """Where ``message`` breaks the schema and why, as a JSON pointer and a sentence."""
    first = next(iter(compiled(kind).iter_errors(message)))
    path: list[str | int] = list(first.instance_path)
    observations = message.get("observations")
    if path[:1] == ["observations"] and len(path) > 1 and isinstance(observations, list):
        prefix, part, definition = path[:2], observations[int(path[1])], "observation"
    elif isinstance(observations, list):
        prefix, part, definition = [], {**message, "observations": []}, kind
    else:
        prefix, part, definition = [], message, kind
    try:
        small = len(dumps(part)) <= _DIAGNOSED_CHARS
        error = best_match(_validator(definition).iter_errors(part)) if small else None
    except RecursionError:  # deeper than the transport lets through; kept as a safeguard
        error = None
    if error is None:
        # Its message starts with the offending value, which may be large: keep both ends.
        text, keep = first.message, _SHOWN // 3
        if len(text) > 2 * keep:
            text = f"{text[:keep]}… [{len(text) - 2 * keep} characters cut] …{text[-keep:]}"
        return pointer(path), text
    return pointer([*prefix, *error.absolute_path]), error.message


def pointer(path: Iterable[str | int]) -> str:
    """The JSON pointer (RFC 6901) of ``path``, or "the top level" for the empty path."""
    parts = [str(part).replace("~", "~0").replace("/", "~1") for part in path]
    return "/" + "/".join(parts) if parts else "the top level"


def cut(text: str, limit: int = _SHOWN) -> str:
    """``text`` cut to ``limit`` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters cut]"
