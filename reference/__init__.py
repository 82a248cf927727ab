"""The reference model of the DeepSeek Harness prompt-assembly contracts.

Small and synchronous where it can be; every module names the contract IDs it implements.
"""

from .abort import AbortController, AbortSignal
from .assembly import Assembly, PromptText, ToolContribution, ToolSchema
from .config import PromptConfig
from .errors import ERROR_KINDS, ContractError
from .registry import AssembleContext, Change, PromptRegistry, Registration, Scope
from .render import (
    interpolate,
    join_context_sections,
    render_context_sections,
    render_prompt,
)
from .tool_order import UNLISTED_TOOLS, code_unit_key, order_tools

#: The distribution's version, read by hatchling at build time (pyproject.toml,
#: ``[tool.hatch.version]``), so that a harness need not import `importlib.metadata` to say it.
__version__ = "0.1.0"

__all__ = [
    "ERROR_KINDS",
    "UNLISTED_TOOLS",
    "AbortController",
    "AbortSignal",
    "AssembleContext",
    "Assembly",
    "Change",
    "ContractError",
    "PromptConfig",
    "PromptRegistry",
    "PromptText",
    "Registration",
    "Scope",
    "ToolContribution",
    "ToolSchema",
    "__version__",
    "code_unit_key",
    "interpolate",
    "join_context_sections",
    "order_tools",
    "render_context_sections",
    "render_prompt",
]
