"""Hypothesis strategies for whole scenarios: op sequences over the protocol's ops.

Five families, each a strategy of op lists (`scenarios`); the ops of protocols 1.2 and 1.3 are
drawn only when both implementations declare their capability (`EXTENDS`). Each family's draws
are a module of `dsh_conformance.fuzz.draws` (``registry``, ``session``, ``loop``, ``wire``,
``http``), whose docstring says what it draws.

Scenarios are drawn step by step by a builder that knows the names it created
(`dsh_conformance.fuzz.draws.builder`), so every op refers to something that exists and a shrunk
scenario stays well-formed: deleting a step deletes what refers to it too. What the builder
cannot know before running (whether a registration was rejected, whether an assembly produced
one) is settled by the engine, which discards a scenario the differential implementation cannot
run (`dsh_conformance.fuzz.engine`). Generation stays inside what CONTRACTS.md decides: `AVOIDED`
lists what it leaves out and why.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Final

from hypothesis import strategies as st

from .draws.builder import Json
from .draws.http import http_ops
from .draws.loop import loop_ops
from .draws.registry import registry_ops
from .draws.session import session_ops
from .draws.wire import wire_ops

#: What generation never produces, each with the CONTRACTS.md rule that leaves its outcome open
#: (or, for one entry the documents have since settled, why it is not drawn yet).
AVOIDED: Final[tuple[tuple[str, str], ...]] = (
    (
        "configuration keys the loader does not know",
        'PROMPT-REGISTRY-CONTRACT: "Unknown configuration keys are implementation-defined (the '
        'upstream ignores them); the suite does not test them."',
    ),
    (
        "integer-like keys in a tool schema's `parameters`",
        "PROMPT-ASSEMBLY-PIPELINE step 3: an implementation whose objects put integer-like keys "
        'first "may reorder those, so no check depends on the order of integer-like keys".',
    ),
    (
        "providers that block (`waitFor` on a PROVIDER); blocking is done by listeners",
        'DESIGN-SCOPED-LAYERS: providers may be synchronous, an implementation "MAY also accept '
        'asynchronous ones"; "Anything that must happen while assembly is blocked ... is '
        'specified through a blocked listener."',
    ),
    (
        "a session append that breaks two append rules at once",
        'ROOT-MODEL, "The session log": the order the rules are checked in is fixed for a seed '
        '("A seed is checked for `session-non-json` first, then ...") but not for an append, so '
        "which kind such an append names is open.",
    ),
    (
        "invalid configurations (`configure` that fails) followed by more ops",
        "PROMPT-REGISTRY-CONTRACT and PROMPT-TOOL-ORDER fix the error kind of a bad `toolOrder`, "
        "not which registry the scenario goes on with afterwards.",
    ),
    (
        "a tool call without a scripted result",
        "ROOT-MODEL leaves the tool runner to the host: CONTRACTS.md says nothing of a tool call "
        "the host cannot answer. (A request beyond the scripted replies is drawn: PROTOCOL.md "
        "fixes its code, `SCRIPT_EXHAUSTED`, and the log comparison never compares the "
        "failure's message; `hook-calls`, which would, is then not drawn.)",
    ),
    (
        "follow-ups, steers, cancels and compaction addressed to a disposed agent",
        'PROMPT-CANCEL-TEST names owner disposal only as a cancel cause ({kind: "disposed"}); '
        "what a disposed agent does with later messages is not decided.",
    ),
    (
        "negative zero, NaN or infinities in a call configuration",
        'ROOT-MODEL, "The session log": "numbers are finite and never negative zero" in a log, '
        "and a header is logged from the configuration, so such a configuration cannot be logged "
        "and the contracts say nothing of what a loop does then.",
    ),
    (
        "a seed event with two defects checked at the same stage (two malformed fields, or a "
        "malformed field and a legacy header)",
        'ROOT-MODEL, "The session log": "A seed is checked for `session-non-json` first, then '
        "for these (and `session-legacy-header`), then for `seq-not-contiguous`, then against "
        'the surface rules": the order between stages is fixed, not within one.',
    ),
    (
        "U+0085 in a DeepSeek API key",
        "PROMPT-DEEPSEEK-WIRE: the key is trimmed \"as JavaScript's `String.prototype.trim` "
        'defines it (Unicode `White_Space`, line terminators and U+FEFF)": U+0085 is Unicode '
        "White_Space but JavaScript's trim keeps it, so the sentence decides it both ways.",
    ),
    (
        "an image block in a request to a model no case names as text-only",
        'PROMPT-DEEPSEEK-WIRE refuses "an image block for a text-only model" '
        "(`UNSUPPORTED_CONTENT`) but does not list which models are text-only: requests holding "
        "an image name `deepseek-v4-flash`, the model the refusal cases use.",
    ),
    (
        "a tool call whose `function` is not an object, unless the call breaks a stated rule too "
        "(an `index` that is not an integer, an `id` that is not a string)",
        'PROMPT-DEEPSEEK-WIRE: the expected chunk shape names tool-call "`id`, `name` and '
        '`arguments` strings or null" and "`tool_calls` a list of objects each with an integer '
        '`index`", and says nothing of `function` itself, so whether a string there is malformed '
        "or skipped is open (the case stream-shape-tool-call-function-not-an-object says so).",
    ),
    (
        "a negative or non-integral cache count (`prompt_cache_hit_tokens`, "
        "`prompt_tokens_details.cached_tokens`)",
        'PROMPT-DEEPSEEK-WIRE asks "non-negative integer `prompt_tokens` and `completion_tokens` '
        '(and integer detail counts when given)": a negative detail count is an integer, and '
        "whether `prompt_cache_hit_tokens` is a detail count, or is checked when the detail "
        "wins, is not said. Cache counts are drawn as integers, written `8` or `8.0`.",
    ),
    (
        "content and a tool call in one delta",
        "PROMPT-DEEPSEEK-WIRE does not say in which order one delta's fields open their blocks "
        "(PROTOCOL.md's STREAM_CHUNK only ends blocks in opening order), so whether its text "
        "block or its tool-call block comes first is open; content is drawn beside an empty "
        "`tool_calls` only.",
    ),
    (
        "failure messages in a log (compared as any text)",
        "PROMPT-DEEPSEEK-WIRE's LLM_FAILURE, as PROTOCOL.md restates it: \"Codes are compared; "
        "messages never are\" (a `NO_ADAPTER` failure's message is the implementation's own).",
    ),
    (
        "over HTTP (`http`), a Retry-After date in the future",
        'PROMPT-DEEPSEEK-WIRE keeps an HTTP-date "only when it lies in the future", measured '
        "against the adapter's own clock over HTTP: its `providerRetryAfterMs` depends on when "
        "each implementation reads its clock, so it is never the same number twice (past dates, "
        "from 1994, are decided: none).",
    ),
    (
        "over HTTP, a response that never ends (no idle timeout is waited out) and an abort signal",
        "PROMPT-DEEPSEEK-WIRE names no idle timeout and no abort: the upstream's 300 s idle "
        "timeout and the `deepseek-http` op's lack of a signal leave both outside what a "
        "generated exchange can decide.",
    ),
    (
        "over HTTP, statuses below 400 other than 200, and 200 responses that are not an SSE body",
        'PROMPT-DEEPSEEK-WIRE maps "HTTP errors" and reads a stream of SSE `data:` payloads; '
        "what a 1xx-3xx status or another content type means is not said.",
    ),
    (
        "over HTTP, an error body that is not UTF-8 and holds the quota or context wording",
        'PROMPT-DEEPSEEK-WIRE\'s wording rules read "the error body (code, type or message)" '
        "without saying how bytes that are not UTF-8 are read, so whether such wording is seen "
        "is open; the status rules hold whatever the body is.",
    ),
    (
        "over HTTP, a body cut inside the `[DONE]` event (its line arrived, its blank line not)",
        'PROMPT-DEEPSEEK-WIRE: "SSE `data:` payloads up to `[DONE]`" does not say whether '
        "`[DONE]` counts once its line or once its event has arrived; a connection closed "
        "before the `[DONE]` event or after it is decided.",
    ),
    (
        "over HTTP, the code of a connection closed mid-body before `[DONE]` (either "
        "`STREAM_CLOSED` or `TRANSPORT` is expected)",
        'PROMPT-DEEPSEEK-WIRE: "EOF without it → `STREAM_CLOSED`"; it names no code for a broken '
        "connection (the upstream says `TRANSPORT`), as `deepseek-http/closed-mid-body` accepts.",
    ),
    (
        "a model failure with code ABORTED while the turn is not cancelled",
        "Settled, no longer open: PROTOCOL.md's REPLY logs a failure with code ABORTED as a "
        'finish of kind "aborted" (the upstream\'s error normalization, '
        "upstream/loop-and-session.md §0.4), and the example case "
        "`loop/an-adapter-failure-with-code-aborted-is-logged-as-an-aborted-finish` compares it. "
        "It is not drawn yet because a third failure code changes every loop scenario drawn after "
        "the first failing reply, and the loop family's counts in tests/gallery/fuzz_runs.py "
        "(which scenario finds which gallery entry) were measured on the present draws.",
    ),
    (
        "reasoning and content in one delta",
        "PROMPT-DEEPSEEK-WIRE says nothing of the order in which one delta's fields open their "
        "blocks, reasoning and text no more than text and tool calls (the conforming variant "
        "TextBeforeReasoning of tests/gallery/right_impls opens the text block first); each "
        "delta is drawn with one of them.",
    ),
)

#: Each family's capabilities of protocol 1.2 and 1.3, whose ops it draws when both sides declare
#: them.
EXTENDS: Final[dict[str, tuple[str, ...]]] = {
    "registry": ("registry-1.2",),
    "session": ("session-1.2",),
    "loop": ("loop-1.2", "registry-1.2", "loop-1.3"),
    "wire": (),
    "http": (),
}
FAMILIES: Final = ("registry", "session", "loop", "wire", "http")
#: The capabilities each family's ops need.
REQUIRES: Final[dict[str, tuple[str, ...]]] = {
    "registry": ("registry", "registry-1.1"),
    "session": ("session",),
    "loop": ("registry", "registry-1.1", "loop"),
    "wire": ("deepseek-wire",),
    "http": ("deepseek-http",),
}

#: Each family's draws: the ops of one scenario, from Hypothesis's draw and the capabilities
#: both implementations declare.
DRAWS: Final[dict[str, Callable[[st.DrawFn, frozenset[str]], list[Json]]]] = {
    "registry": registry_ops,
    "session": session_ops,
    "loop": loop_ops,
    "wire": wire_ops,
    "http": http_ops,
}


@st.composite
def _family(draw: st.DrawFn, family: str, capabilities: frozenset[str]) -> list[Json]:
    return [_without_expect(op) for op in DRAWS[family](draw, capabilities)]


def _without_expect(op: Json) -> Json:
    return {key: value for key, value in op.items() if key != "expect"}


def scenarios(
    families: tuple[str, ...] = FAMILIES, capabilities: frozenset[str] = frozenset()
) -> st.SearchStrategy[tuple[str, list[Json]]]:
    """``(family, ops)`` drawn from the given families; the ops of a 1.2 capability (`EXTENDS`)
    only if it is in ``capabilities`` (what both implementations declare)."""
    return st.one_of(
        *(
            _family(family, capabilities).map(functools.partial(_labelled, family))
            for family in families
        )
    )


def _labelled(family: str, ops: list[Json]) -> tuple[str, list[Json]]:
    return family, ops
