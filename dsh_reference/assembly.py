"""The values an assembly is made of (PROMPT-ASSEMBLY-PIPELINE, PROMPT-ASSEMBLY-MUTATION-TEST).

These are plain mutable dataclasses on purpose: the waterfall's returned value is authoritative and
listeners edit it, and "every assembly returns fresh section, context and tool containers; tool
`parameters` are structural copies: mutating a returned assembly never changes a provider's data or
a later assembly". Freshness is the registry's job (it builds new objects every time), not
immutability's.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PromptText:
    """An evaluated, still uninterpolated section or context: its name and its text."""

    name: str
    text: str


@dataclass
class ToolSchema:
    """A tool schema as the registry keeps it: only ``name``, ``description`` and ``parameters``.

    PROMPT-ASSEMBLY-PIPELINE step 3: "only `name`, `description` and a structural copy of
    `parameters` are kept from each schema". ``parameters`` keeps its key order, because header
    equality compares schemas by their JSON serialization, key order included.
    """

    name: str
    description: str
    parameters: dict[str, Any]

    @classmethod
    def keep(cls, schema: ToolSchema | Mapping[str, Any]) -> ToolSchema:
        """Copy the three kept fields out of a provider's schema (any extra field is dropped)."""
        if isinstance(schema, ToolSchema):
            name, description, parameters = schema.name, schema.description, schema.parameters
        else:
            name = schema["name"]
            description = schema.get("description", "")
            parameters = schema.get("parameters", {})
        return cls(name=name, description=description, parameters=copy.deepcopy(parameters))

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


@dataclass
class ToolContribution:
    """What one tool-schema provider returns for one assembly.

    ``known_names`` is the set of tool names the provider could ever contribute, visible here or
    not (PROMPT-TOOL-ORDER: "a known name that is absent in this scope is simply skipped"). ``None``
    means "the names of ``schemas``".
    """

    schemas: Sequence[ToolSchema | Mapping[str, Any]]
    known_names: Sequence[str] | None = None


@dataclass
class Assembly:
    """The output of ``assemble()``: sections, contexts, ordered tools and evaluated variables.

    ``variables`` maps every registered variable name to its value, or to ``None`` when its
    provider returned no value ("the variable stays listed as registered", PROMPT-VARIABLE-TEST).
    """

    sections: list[PromptText] = field(default_factory=list)
    contexts: list[PromptText] = field(default_factory=list)
    tools: list[ToolSchema] = field(default_factory=list)
    variables: dict[str, str | None] = field(default_factory=dict)
