"""Strict ``{{name}}`` rendering of sections and runtime contexts (PROMPT-STRICT-RENDER).

The whole grammar, from CONTRACTS.md:

    Interpolation scans left to right for `{{`; at each one:
    - if the text there matches `{{` + (no `{` or `}` characters) + `}}`, that is a group: its inner
      name must match the grammar (else `render-malformed-reference`), must be a registered
      variable (else `render-unknown-variable`), and must have a value (else
      `render-undefined-variable`); the value is inserted verbatim and never re-scanned;
    - otherwise, if a `}}` occurs anywhere later in the text, fail `render-malformed-reference`;
      if not, the `{{` is literal text and scanning continues after it.

"A conforming renderer MUST be linear in the text length." `interpolate` finds the *last* `}}`
once: after it no `}}` occurs, so every `{{` there is literal and that tail is kept as it is,
without a scan (however many lone `{{` it holds). The text up to it is one regular expression
pass: `_OPENING` matches each `{{` the scan stops at, with the group when one follows (its name
split by the grammar). Its group part is brace-free, so no character is read twice; a `{{` there
that opens no group has that last `}}` after it, so it fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

from .assembly import Assembly, PromptText
from .errors import ContractError

#: Variable names: `^[a-z][a-z0-9_]*$` (ASCII only; matched with fullmatch, so no trailing newline).
VARIABLE_NAME: Final = re.compile(r"[a-z][a-z0-9_]*")

#: Joiner between rendered sections, and between context sections in the runtime-context body.
SECTION_JOINER: Final = "\n\n"

#: LOOP-RUNTIME-CONTEXT: the snapshot text is this preamble, the joiner, then the body.
RUNTIME_CONTEXT_PREAMBLE: Final = (
    "Current runtime context. This snapshot supersedes earlier runtime-context snapshots."
)


#: A `{{`, and the rest of its group when "the text there matches `{{` + (no `{` or `}`
#: characters) + `}}`": group ``name`` when the inner text matches the name grammar, ``other``
#: when it does not. Matches never overlap, so the scan resumes after each group, as specified.
_OPENING: Final = re.compile(
    r"\{\{(?:(?P<name>" + VARIABLE_NAME.pattern + r")\}\}|(?P<other>[^{}]*)\}\})?"
)


def is_variable_name(name: str) -> bool:
    return VARIABLE_NAME.fullmatch(name) is not None


def interpolate(text: str, variables: Mapping[str, str | None], *, where: str) -> str:
    """Replace every ``{{name}}`` group in ``text``; ``where`` names the section or context.

    Raises `ContractError` for the first failing reference, left to right, with no partial
    output. For one reference the checks run malformed -> name grammar -> registered -> value.
    """
    # "if not [a `}}` occurs anywhere later in the text], the `{{` is literal text": after the
    # last `}}`, every `{{` is, and no group ends there (a group ends with `}}`).
    last_close = text.rfind("}}")
    tail_start = last_close + 2 if last_close >= 0 else 0
    scanned, literal_tail = text[:tail_start], text[tail_start:]

    def replace(opening: re.Match[str]) -> str:
        name = opening["name"]
        if name is not None:
            return value_of(name, variables, where=where)
        other = opening["other"]
        if other is not None:
            raise ContractError(
                "render-malformed-reference",
                f"{where}: {{{{{other}}}}} is not a reference; names match [a-z][a-z0-9_]*",
                where=where,
            )
        # "otherwise, if a `}}` occurs anywhere later in the text, fail": a `{{` before the last
        # `}}` that opens no group always has it later (its own two characters are not `}`).
        raise ContractError(
            "render-malformed-reference",
            f"{where}: '{{{{' at offset {opening.start()} does not open a '{{{{name}}}}' "
            f"reference, but a '}}}}' follows at offset {last_close}",
            where=where,
        )

    return _OPENING.sub(replace, scanned) + literal_tail


def value_of(name: str, variables: Mapping[str, str | None], *, where: str) -> str:
    """The value of the reference ``{{name}}`` (``name`` already matches the grammar): the
    registered -> value checks of PROMPT-STRICT-RENDER."""
    # `in` on a plain mapping of registered names only: `constructor` or `__class__` are unknown
    # unless registered.
    if name not in variables:
        raise ContractError(
            "render-unknown-variable",
            f"{where}: {{{{{name}}}}} is not a registered variable",
            where=where,
        )
    value = variables[name]
    if value is None:
        raise ContractError(
            "render-undefined-variable", f"{where}: variable {name!r} has no value", where=where
        )
    return value


def render_texts(
    texts: Iterable[PromptText], variables: Mapping[str, str | None]
) -> list[PromptText]:
    """Interpolate each text and drop those that render to ``''``."""
    rendered = (
        PromptText(entry.name, interpolate(entry.text, variables, where=entry.name))
        for entry in texts
    )
    return [entry for entry in rendered if entry.text]


def render_prompt(assembly: Assembly) -> str:
    """The system string: the interpolated non-empty sections, joined (all empty: ``''``)."""
    rendered = (
        interpolate(entry.text, assembly.variables, where=entry.name) for entry in assembly.sections
    )
    return SECTION_JOINER.join(text for text in rendered if text)


def render_context_sections(assembly: Assembly) -> list[PromptText]:
    """The runtime-context sections, interpolated like the prompt, empty ones dropped."""
    return render_texts(assembly.contexts, assembly.variables)


def join_context_sections(sections: Iterable[PromptText]) -> str:
    """The runtime-context snapshot text: preamble, joiner, body; ``''`` when the body is empty."""
    body = SECTION_JOINER.join(entry.text for entry in sections)
    return f"{RUNTIME_CONTEXT_PREAMBLE}{SECTION_JOINER}{body}" if body else ""
