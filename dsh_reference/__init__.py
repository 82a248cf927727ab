"""The reference model of the DeepSeek Harness prompt-assembly contracts.

Small and synchronous where it can be; every module names the contract IDs it implements.
"""

from .abort import AbortController, AbortSignal
from .assembly import Assembly, PromptText, ToolContribution, ToolSchema
from .config import PromptConfig
from .errors import ERROR_KINDS, ContractError
from .header import (
    AdapterDefaults,
    CallConfig,
    RequestHeader,
    canonical_header,
    fold_request_header,
    header_differences,
    headers_equal,
)
from .loop import Agent, Enter, PreStep, Reject, RequestError, ToolCall, ToolOutcome
from .model_adapter import AdapterFailure, ModelAdapter, ScriptedAdapter, ScriptedReply
from .registry import AssembleContext, Change, PromptRegistry, Registration, Scope
from .render import (
    interpolate,
    join_context_sections,
    render_context_sections,
    render_prompt,
)
from .runtime_context import (
    CLEARED_MARKER,
    OWNER_PLUGIN,
    Retained,
    RetainedState,
    Retention,
    RuntimeContextProjection,
)
from .session import Replacement, SessionEvent, SessionLog, SurfaceOp, SurfaceReplace
from .tool_order import UNLISTED_TOOLS, code_unit_key, order_tools

#: The distribution's version, read by hatchling at build time (pyproject.toml,
#: ``[tool.hatch.version]``), so that a harness need not import `importlib.metadata` to say it.
__version__ = "0.1.0"

__all__ = [
    "CLEARED_MARKER",
    "ERROR_KINDS",
    "OWNER_PLUGIN",
    "UNLISTED_TOOLS",
    "AbortController",
    "AbortSignal",
    "AdapterDefaults",
    "AdapterFailure",
    "Agent",
    "AssembleContext",
    "Assembly",
    "CallConfig",
    "Change",
    "ContractError",
    "Enter",
    "ModelAdapter",
    "PreStep",
    "PromptConfig",
    "PromptRegistry",
    "PromptText",
    "Registration",
    "Reject",
    "Replacement",
    "RequestError",
    "RequestHeader",
    "Retained",
    "RetainedState",
    "Retention",
    "RuntimeContextProjection",
    "Scope",
    "ScriptedAdapter",
    "ScriptedReply",
    "SessionEvent",
    "SessionLog",
    "SurfaceOp",
    "SurfaceReplace",
    "ToolCall",
    "ToolContribution",
    "ToolOutcome",
    "ToolSchema",
    "__version__",
    "canonical_header",
    "code_unit_key",
    "fold_request_header",
    "header_differences",
    "headers_equal",
    "interpolate",
    "join_context_sections",
    "order_tools",
    "render_context_sections",
    "render_prompt",
]
