"""PROMPT-CACHE-E2E offline: the conversation whose requests must extend each other.

The live test (`test_cache_e2e`) holds the upstream's cache conversation with the real API
(upstream notes, deepseek-adapter.md §6.1); this is the same conversation with scripted answers,
sent through the ``deepseek-http`` capability to the suite's loopback server, so that any
implementation can be judged offline. Three requests, as the loop builds them from its log: turn 1
asks for a stored value (a long system prompt, two tools); the model calls ``lookup`` (reasoning,
no text, so ``content: ""``), the tool answers, and the model answers; turn 2 asks again. The
messages are the upstream's message model as the loop derives it (loop-and-session.md §0.4: ``id``
and ``source`` beside ``role`` and ``content``, each tool result a user message of its own, keys in
the order the upstream's constructors write them). The answers are scripted so that each request's
history holds exactly what the previous answer streamed. The system prompt and both user turns hold
non-ASCII text, so that a serializer escaping some messages and not others shows in the bytes.

What is judged is `dsh_conformance.judge.prefix_stability` on the raw bodies; the chunks observed
are not (the stream is PROMPT-DEEPSEEK-WIRE's, judged by the ``deepseek-http`` cases).
"""

from __future__ import annotations

from typing import Final

from ..cases.deepseek import FIRST, KEY, MODEL, sse, text, tool_call
from ..judge.case import Case
from ..judge.prefix_stability import prefix_problems
from ..scenarios.scenario import Json
from .loopback import Recorded, Scripted

CACHE: Final = ("PROMPT-CACHE-E2E",)
REQUIRES: Final = ("deepseek-http",)
CASE_ID: Final = "cache/requests-extend-each-other"
WHY: Final = (
    "PROMPT-CACHE-E2E: 'Offline, the same property is checked as prefix stability: each request "
    "body's serialized messages extend the previous request's byte for byte.' Each body, up to "
    "the end of its last message, must be the start of the next body (system message included), "
    "and the `tools` bytes must not change while the tools do not (upstream §6.1: 'same system "
    "string, same tools in the same order, and previous messages serialized identically')."
)

#: The identity section, then a persona that spans a 64-token cache block on its own (upstream
#: §6.1); non-ASCII on purpose, so that byte offsets and character indexes differ.
SYSTEM: Final = (
    "You are an AI agent powered by DeepSeek Harness.\n\n"
    "You are a careful operations assistant for a small platform team — deployment settings, "
    "feature flags and stored configuration values. When a question names a stored key, you "
    "never guess its value: you call the lookup tool with exactly that key and report the value "
    "it returns, verbatim, in one short sentence. You list keys only when asked which exist. You "
    "add no speculation, alternatives or advice unless asked, and keep every answer under forty "
    "words, in plain text."
)
#: The upstream cache test's one tool (deepseek-adapter.md §6.1), shared by every cache test.
LOOKUP: Final = {
    "name": "lookup",
    "description": "Look up the stored value for a key.",
    "parameters": {
        "type": "object",
        "properties": {"key": {"type": "string", "description": "The key to look up."}},
        "required": ["key"],
    },
}
#: In code-unit order, as the loop sends them without a configured order (PROMPT-TOOL-ORDER).
TOOLS: Final = [
    {
        "name": "list_keys",
        "description": "List the stored keys that start with a prefix.",
        "parameters": {
            "type": "object",
            "properties": {"prefix": {"type": "string", "description": "The key prefix."}},
            "required": ["prefix"],
        },
    },
    LOOKUP,
]
ARGUMENTS: Final = '{"key": "deploy-color"}'
REASONING: Final = "The user names a stored key, so I call lookup with it."
VALUE: Final = "value(deploy-color) = azure-falcon-42"
ANSWER: Final = "The value of deploy-color is azure-falcon-42."
AGAIN: Final = "azure-falcon-42 — unchanged."


def _user(message_id: str, *blocks: Json) -> Json:
    """``createUserMessage``: ``{content, source, role, id}``."""
    return {"content": list(blocks), "source": {"kind": "user"}, "role": "user", "id": message_id}


def _assistant(message_id: str, *blocks: Json) -> Json:
    """``createAssistantMessage``: ``{role, content, source: {kind: "model", …}, id}``."""
    source = {"kind": "model", "provider": "deepseek-official", "model": MODEL}
    return {"role": "assistant", "content": list(blocks), "source": source, "id": message_id}


def _tool_result(message_id: str, call_id: str, result: str) -> Json:
    """``createToolResultMessage``: one tool-result block in a user message of its own."""
    block = {
        "type": "tool-result",
        "toolCallId": call_id,
        "content": [text(result)],
        "isError": False,
    }
    return {
        "source": {"kind": "tool", "callId": call_id},
        "content": [block],
        "role": "user",
        "id": message_id,
    }


TURN_1: Final = _user(
    "0b7c6a52-3c1e-4f0e-9a6d-1f2e3d4c5b01",
    text('Look up the key "deploy-color" with the lookup tool and tell me the value — verbatim.'),
)
CALLED: Final = _assistant(
    "0b7c6a52-3c1e-4f0e-9a6d-1f2e3d4c5b02",
    {"type": "reasoning", "text": REASONING},
    tool_call("call_0", "lookup", ARGUMENTS),
)
RESULT: Final = _tool_result("0b7c6a52-3c1e-4f0e-9a6d-1f2e3d4c5b03", "call_0", VALUE)
ANSWERED: Final = _assistant(
    "0b7c6a52-3c1e-4f0e-9a6d-1f2e3d4c5b04",
    {"type": "reasoning", "text": "The tool returned it."},
    text(ANSWER),
)
TURN_2: Final = _user(
    "0b7c6a52-3c1e-4f0e-9a6d-1f2e3d4c5b05", text("Thanks. Repeat that value one more time.")
)
#: Each request's messages: the previous request's, the answer it got, and what came next.
HISTORIES: Final = ((TURN_1,), (TURN_1, CALLED, RESULT), (TURN_1, CALLED, RESULT, ANSWERED, TURN_2))


def _usage(prompt: int, cached: int) -> str:
    counts = f'"prompt_tokens":{prompt},"completion_tokens":20,"prompt_cache_hit_tokens":{cached}'
    return f'"usage":{{{counts}}}'


#: What the model streams for each request (the next history holds exactly this).
RESPONSES: Final = (
    Scripted(
        parts=(
            sse(
                FIRST,
                '{"choices":[{"delta":{"reasoning_content":"' + REASONING + '"}}]}',
                '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_0","type":"function",'
                '"function":{"name":"lookup","arguments":"{\\"key\\": \\"deploy-color\\"}"}}]}}]}',
                '{"choices":[{"delta":{},"finish_reason":"tool_calls"}],' + _usage(310, 0) + "}",
                "[DONE]",
            ),
        )
    ),
    Scripted(
        parts=(
            sse(
                FIRST,
                '{"choices":[{"delta":{"reasoning_content":"The tool returned it."}}]}',
                '{"choices":[{"delta":{"content":"'
                + ANSWER
                + '"},"finish_reason":"stop"}],'
                + _usage(360, 256)
                + "}",
                "[DONE]",
            ),
        )
    ),
    Scripted(
        parts=(
            sse(
                FIRST,
                '{"choices":[{"delta":{"content":"'
                + AGAIN
                + '"},"finish_reason":"stop"}],'
                + _usage(400, 320)
                + "}",
                "[DONE]",
            ),
        )
    ),
)


def _request(history: tuple[Json, ...]) -> Json:
    """The loop's request: the runtime defaults of upstream §6.1 (thinking, effort ``high``,
    ``maxTokens`` 256000) and the session id."""
    return {
        "provider": "deepseek-official",
        "model": MODEL,
        "reasoningEffort": "high",
        "messages": list(history),
        "system": SYSTEM,
        "tools": TOOLS,
        "maxTokens": 256000,
        "sessionId": "cache-e2e",
    }


def conversation_case(base_url: str) -> Case:
    """The protocol case, once the server's URL is known: one ``deepseek-http`` op per request,
    with no expectation on the chunks."""
    ops = tuple(
        {"op": "deepseek-http", "request": _request(history), "apiKey": KEY, "baseUrl": base_url}
        for history in HISTORIES
    )
    return Case(id=CASE_ID, contracts=CACHE, why=WHY, ops=ops, requires=REQUIRES)


def conversation_problems(recorded: list[Recorded]) -> list[str]:
    """What is wrong with the bodies that reached the server, judged as raw bytes."""
    if len(recorded) != len(HISTORIES):
        return [f"expected {len(HISTORIES)} requests to reach the server, got {len(recorded)}"]
    return prefix_problems([request.body for request in recorded])
