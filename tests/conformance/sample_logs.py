"""A valid session log, written by hand from CONTRACTS.md, for the log fold and `check-log` tests.

Two loop instances: the first runs a turn with a tool round trip, the second (after
`session/end-seed`) resumes with a header whose config lists its keys in another order.
"""

from __future__ import annotations

import copy
from typing import Any

PREAMBLE = "Current runtime context. This snapshot supersedes earlier runtime-context snapshots."
CLEARED = "Current runtime context: none. Earlier runtime-context snapshots no longer apply."
OWNER = {"kind": "plugin", "plugin": "@deepseek-ai/dsh-system-prompt"}
CONFIG = {"provider": "deepseek", "model": "deepseek-chat", "maxTokens": 4096}
HEADER = {
    "config": CONFIG,
    "adapterDefaults": {"maxTokens": True},
    "system": "You are an AI agent powered by DeepSeek Harness.",
    "tools": [{"name": "read", "description": "Read", "parameters": {"type": "object"}}],
}


def event(seq: int, type: str, data: Any, **metadata: Any) -> dict[str, Any]:
    return {"type": type, "seq": seq, "time": 1_700_000_000_000 + seq, "data": data, **metadata}


def user(id: str, text: str) -> dict[str, Any]:
    return {
        "id": id,
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "source": {"kind": "user"},
    }


def snapshot(id: str, *sections: tuple[str, str]) -> dict[str, Any]:
    text = PREAMBLE + "\n\n" + "\n\n".join(body for _, body in sections)
    source = {
        **OWNER,
        "form": "snapshot",
        "sections": [{"name": n, "text": t} for n, t in sections],
    }
    return {"id": id, "role": "user", "content": [{"type": "text", "text": text}], "source": source}


def cleared(id: str) -> dict[str, Any]:
    return {
        "id": id,
        "role": "user",
        "content": [{"type": "text", "text": CLEARED}],
        "source": dict(OWNER),
    }


def assistant(id: str, turn: int, step: int, *content: Any) -> dict[str, Any]:
    message = {
        "role": "assistant",
        "content": list(content),
        "source": {"kind": "model", "provider": "deepseek", "model": "deepseek-chat"},
        "id": id,
    }
    return {"turn": turn, "step": step, "message": message}


def tool_result(id: str, call: str, output: str) -> dict[str, Any]:
    block = {
        "type": "tool-result",
        "toolCallId": call,
        "content": [{"type": "text", "text": output}],
    }
    message = {
        "source": {"kind": "tool", "callId": call},
        "content": [block],
        "role": "user",
        "id": id,
    }
    return {"turn": 1, "step": 1, "message": message}


def chunk(turn: int, step: int, body: Any) -> dict[str, Any]:
    return {"turn": turn, "step": step, "chunk": body}


FINISH_STOP = {"type": "finish", "reason": {"kind": "stop"}}
FINISH_TOOLS = {"type": "finish", "reason": {"kind": "tool-calls"}}
TEXT = {"type": "text", "text": "Done."}
CALL = {"type": "tool-call", "id": "c1", "name": "read", "arguments": '{"path":"a"}'}


def valid_log() -> list[dict[str, Any]]:
    """A fresh copy of the valid log (seq: what it is)."""
    events = [
        event(0, "turn/start", {"turn": 1}),
        event(1, "step/start", {"turn": 1, "step": 1}),
        event(2, "user/message", user("u2", "Read a."), surfaceOp="append"),
        event(3, "user/message", snapshot("s3", ("cwd", "cwd: /tmp")), surfaceOp="append"),
        event(4, "request/header", {"header": HEADER, "reason": "initial"}),
        event(
            5,
            "request/context",
            {"provider": "deepseek", "model": "deepseek-chat", "contextWindow": 65536},
        ),
        event(
            6,
            "assistant/chunk",
            chunk(1, 1, {"type": "block-start", "index": 0, "blockType": "tool-call"}),
        ),
        event(7, "assistant/chunk", chunk(1, 1, FINISH_TOOLS)),
        event(
            8,
            "assistant/message",
            assistant("a8", 1, 1, CALL),
            surfaceOp="append",
            sourceEventSeqs=[6, 7],
        ),
        event(
            9,
            "tool/call",
            {"turn": 1, "step": 1, "callId": "c1", "name": "read", "arguments": '{"path":"a"}'},
        ),
        event(
            10,
            "tool/result",
            tool_result("t10", "c1", "contents of a"),
            surfaceOp="append",
            sourceEventSeqs=[9],
        ),
        event(11, "step/end", {"turn": 1, "step": 1}),
        event(12, "step/start", {"turn": 1, "step": 2}),
        event(
            13, "llm/retry", {"retryId": "r", "turn": 1, "step": 2, "delayMs": 312.5, "retry": 1}
        ),
        event(14, "assistant/chunk", chunk(1, 2, FINISH_STOP)),
        event(
            15,
            "assistant/message",
            assistant("a15", 1, 2, TEXT),
            surfaceOp="append",
            sourceEventSeqs=[14],
        ),
        event(16, "step/end", {"turn": 1, "step": 2}),
        event(17, "turn/end", {"turn": 1, "reason": {"kind": "completed"}}),
        event(18, "session/end-seed", {}),
        event(19, "turn/start", {"turn": 2}),
        event(20, "step/start", {"turn": 2, "step": 1}),
        event(21, "user/message", user("u21", "Thanks."), surfaceOp="append"),
        event(22, "user/message", cleared("s22"), surfaceOp="append"),
        # Same header; adapter-default fields last in config, as real logs write them.
        event(
            23,
            "request/header",
            {
                "header": {
                    **HEADER,
                    "config": {"model": "deepseek-chat", "provider": "deepseek", "maxTokens": 4096},
                },
                "reason": "resume",
            },
        ),
        event(24, "assistant/chunk", chunk(2, 1, FINISH_STOP)),
        event(
            25,
            "assistant/message",
            assistant("a25", 2, 1),
            surfaceOp="append",
            sourceEventSeqs=[24],
        ),
        event(26, "step/end", {"turn": 2, "step": 1}),
        event(27, "turn/end", {"turn": 2, "reason": {"kind": "completed"}}),
    ]
    return copy.deepcopy(events)


#: The derived messages of `valid_log`: seqs 2, 3, 8, 10, 15, 21, 22 (25 has no content).
VALID_MESSAGE_SEQS = (2, 3, 8, 10, 15, 21, 22)


def expected_messages() -> list[Any]:
    events = valid_log()
    return [
        events[seq]["data"]
        if events[seq]["type"] == "user/message"
        else events[seq]["data"]["message"]
        for seq in VALID_MESSAGE_SEQS
    ]
