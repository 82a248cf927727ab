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

__all__ = [
    "CLEARED_MARKER",
    "ERROR_KINDS",
    "OWNER_PLUGIN",
    "UNLISTED_TOOLS",
    "AbortController",
    "AbortSignal",
    "AdapterDefaults",
    "AssembleContext",
    "Assembly",
    "CallConfig",
    "Change",
    "ContractError",
    "PromptConfig",
    "PromptRegistry",
    "PromptText",
    "Registration",
    "Replacement",
    "RequestHeader",
    "Retained",
    "RetainedState",
    "Retention",
    "RuntimeContextProjection",
    "Scope",
    "SessionEvent",
    "SessionLog",
    "SurfaceOp",
    "SurfaceReplace",
    "ToolContribution",
    "ToolSchema",
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
