"""Property tests of PROMPT-TOOL-ORDER: tool schemas spread over providers in scoped layers.

Tool names are drawn from characters on both sides of U+FFFF (``\\ud7ff``, ``\\ue000``, ``\\uffff``,
``\\U00010000``, ``\\U0010ffff``...), where UTF-16 code-unit order and code-point order disagree,
and from lone surrogates (``\\ud800``, ``\\udfff``), which JSON can carry. Several schemas may share
a name: they are all kept, in collection order. The expected order is known by construction from
the rule itself: CONTRACTS.md defines code-unit order, in Python, as sorting with the key
``name.encode("utf-16-be", "surrogatepass")``, and a configured
``toolOrder`` is generated together with the walk that the rule describes (listed names in place,
the unlisted visible names at the marker, known-but-absent names skipped). Nothing is asked of the
reference model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from .harness.transport import Implementation
from .judge.case import Case
from .run.execute import check
from .scenarios import scenario as s

CONTRACT: Final = "PROMPT-TOOL-ORDER"

RULE: Final = (
    "Without `toolOrder`: schemas sort by name in UTF-16 code-unit order, locale-independent (in "
    'Python, `name.encode("utf-16-be", "surrogatepass")` as the key). Schemas sharing a name are '
    "all kept and the sort is stable: they keep their collection order (providers global first, "
    "then farthest→nearest, each provider's list in its own order)."
)
CONFIGURED_RULE: Final = (
    "With `toolOrder`: every listed name other than the marker must be in the union of all "
    "providers' `knownNames`; a known name that is absent in this scope is simply skipped; listed "
    "tools appear at their listed positions and every unlisted visible tool appears at the "
    "marker, in code-unit order. Schemas sharing a name keep their collection order, also at a "
    "listed position."
)
UNKNOWN_RULE: Final = (
    "With `toolOrder`: every listed name other than the marker must be in the union of all "
    "providers' `knownNames` (else `tool-order-unknown-name`, at assembly)."
)

#: A high surrogate followed by a low one is a pair, one astral character once in JSON.
_PAIRED: Final = re.compile("[\ud800-\udbff][\udc00-\udfff]")
#: Around the surrogate range, on both sides of U+FFFF, and lone surrogates of both halves.
NAME_CHARS: Final = (
    "\ud800",
    "\udbff",
    "\udc00",
    "\udfff",
    "a",
    "Z",
    "~",
    "\u00e9",
    "\ud7ff",
    "\ue000",
    "\uff5e",
    "\uffff",
    "\U00010000",
    "\U0001f600",
    "\U0010ffff",
)
_TOOL_NAMES: Final = st.text(st.sampled_from(NAME_CHARS), min_size=1, max_size=3).filter(
    lambda name: name != s.UNLISTED_TOOLS and not _PAIRED.search(name)
)
#: The scope chain global -> parent -> child; the assembly is for the child, so every layer counts.
_LAYERS: Final = (None, "parent", "child")
_PARAMETER_NAMES: Final = ("zeta", "query", "limit", "beta", "alpha")


def code_unit_key(name: str) -> bytes:
    """CONTRACTS.md's own definition of UTF-16 code-unit order in Python."""
    return name.encode("utf-16-be", "surrogatepass")


@dataclass(frozen=True)
class Provider:
    """One tool provider: its layer, the schemas it returns, the ``knownNames`` it declares."""

    layer: str | None
    schemas: tuple[s.Json, ...]
    known_names: tuple[str, ...] | None  # ``None``: no ``knownNames`` (the schema names)


@dataclass(frozen=True)
class ToolWorld:
    """Visible schemas spread over providers, plus known names no provider returns."""

    providers: tuple[Provider, ...]
    absent: tuple[str, ...]

    @property
    def collected(self) -> list[s.Json]:
        """The schemas in collection order: global first, then farthest→nearest layer."""
        return [
            schema
            for layer in _LAYERS
            for provider in self.providers
            if provider.layer == layer
            for schema in provider.schemas
        ]

    @property
    def known(self) -> list[str]:
        """Every known name once: the visible names, then the absent ones."""
        return list(dict.fromkeys(schema["name"] for schema in self.collected)) + list(self.absent)

    def by_code_units(self, names: list[str] | None = None) -> list[s.Json]:
        """A stable sort of the collected schemas (of ``names`` only, if given)."""
        chosen = [s for s in self.collected if names is None or s["name"] in names]
        return sorted(chosen, key=lambda schema: code_unit_key(schema["name"]))

    def ops(self) -> list[s.Json]:
        ops = [s.scope("parent"), s.scope("child", "parent")]
        for index, provider in enumerate(self.providers):
            known = None if provider.known_names is None else list(provider.known_names)
            toolset = s.toolset(*provider.schemas, known=known)
            ops.append(s.tools(f"tools-{index}", s.provider(toolset), layer=provider.layer))
        return ops


@st.composite
def _schemas(draw: st.DrawFn, name: str) -> s.Json:
    """A schema whose ``parameters`` keys are not in alphabetical order (order must be kept)."""
    properties = draw(st.lists(st.sampled_from(_PARAMETER_NAMES), unique=True, max_size=3))
    parameters = {
        "type": "object",
        "properties": {key: {"type": "string"} for key in sorted(properties, reverse=True)},
        "required": sorted(properties, reverse=True)[:1],
    }
    description = draw(st.text(st.sampled_from(("a", " ", "\u00e9", "\U0001f600")), max_size=4))
    return s.schema(name, description, parameters)


@st.composite
def _worlds(draw: st.DrawFn) -> ToolWorld:
    """Names, some returned as schemas (a name possibly more than once), the rest only declared
    in ``knownNames``."""
    names = draw(st.lists(_TOOL_NAMES, unique=True, max_size=7))
    visible_count = draw(st.integers(0, len(names)))
    shared = (
        draw(st.lists(st.sampled_from(names[:visible_count]), max_size=3)) if visible_count else []
    )
    visible = [
        draw(_schemas(name)) for name in draw(st.permutations(names[:visible_count] + shared))
    ]
    absent = tuple(names[visible_count:])
    provider_count = draw(st.integers(1, 3))
    layers = draw(
        st.lists(st.sampled_from(_LAYERS), min_size=provider_count, max_size=provider_count)
    )
    owner_of = st.integers(0, provider_count - 1)
    schema_owners = [draw(owner_of) for _ in visible]
    absent_owners = [draw(owner_of) for _ in absent]
    providers = []
    for index in range(provider_count):
        schemas = tuple(
            schema for schema, o in zip(visible, schema_owners, strict=True) if o == index
        )
        extra = [name for name, o in zip(absent, absent_owners, strict=True) if o == index]
        known: tuple[str, ...] | None = None
        # A provider that declares knownNames lists its own schema names too, so that the
        # union of known names is the visible names plus the absent ones whatever the default.
        if extra or draw(st.booleans()):
            own = list(dict.fromkeys(schema["name"] for schema in schemas))
            known = tuple(draw(st.permutations(own + extra)))
        providers.append(Provider(layers[index], schemas, known))
    return ToolWorld(tuple(providers), absent)


@st.composite
def _configured_worlds(draw: st.DrawFn) -> tuple[ToolWorld, list[str]]:
    """A world and a valid ``toolOrder``: some known names in any order, one marker anywhere."""
    world = draw(_worlds())
    known = world.known
    shuffled = draw(st.permutations(known))
    listed = shuffled[: draw(st.integers(0, len(shuffled)))]
    listed.insert(draw(st.integers(0, len(listed))), s.UNLISTED_TOOLS)
    return world, listed


def _walk(world: ToolWorld, tool_order: list[str]) -> list[s.Json]:
    """The configured order as the rule states it, over the generated visible schemas."""
    by_name: dict[str, list[s.Json]] = {}
    for schema in world.collected:
        by_name.setdefault(schema["name"], []).append(schema)
    ordered: list[s.Json] = []
    for name in tool_order:
        if name == s.UNLISTED_TOOLS:
            unlisted = [known for known in by_name if known not in tool_order]
            ordered.extend(world.by_code_units(unlisted))
        elif name in by_name:
            ordered.extend(by_name[name])  # listed and visible: at its listed position
        # else: known but absent in this scope: skipped
    return ordered


# -- the properties -------------------------------------------------------------------------


@pytest.mark.contract(CONTRACT)
@given(_worlds())
def test_tools_sort_by_utf16_code_units(impl: Implementation, world: ToolWorld) -> None:
    """PROMPT-TOOL-ORDER without ``toolOrder``: UTF-16 code-unit order, whatever the provider.

    The expected list is the generated schemas sorted with the spec's key
    ``name.encode("utf-16-be")``; known-but-absent names contribute nothing.
    """
    expected = world.by_code_units()
    names = [schema["name"] for schema in expected]
    if names != sorted(names):
        event("code-unit order differs from code-point order")
    if len({provider.layer for provider in world.providers}) > 1:
        event("providers in several layers")
    if len(names) > len(set(names)):
        event("schemas sharing a name")
    if any("\ud800" <= char <= "\udfff" for name in names for char in name):
        event("a name with a lone surrogate")
    case = Case(
        id="property/tool-order-default",
        contracts=(CONTRACT,),
        why=RULE,
        ops=(*world.ops(), s.assemble("a", "child", expect=s.assembly(tools=expected))),
    )
    check(impl, case)


@pytest.mark.contract(CONTRACT)
@given(_configured_worlds())
def test_configured_tool_order(
    impl: Implementation, generated: tuple[ToolWorld, list[str]]
) -> None:
    """PROMPT-TOOL-ORDER with a valid ``toolOrder`` (one marker, known names only).

    The expected list is the walk of the generated ``toolOrder``: a listed visible tool at its
    position, the unlisted visible tools at the marker in code-unit order, listed names that are
    known but absent skipped.
    """
    world, tool_order = generated
    if any(name in tool_order for name in world.absent):
        event("toolOrder lists a known but absent name")
    if len(world.by_code_units([n for n in world.known if n not in tool_order])) > 1:
        event("several unlisted tools at the marker")
    case = Case(
        id="property/tool-order-configured",
        contracts=(CONTRACT,),
        why=CONFIGURED_RULE,
        ops=(
            s.configure({"toolOrder": tool_order}),
            *world.ops(),
            s.assemble("a", "child", expect=s.assembly(tools=_walk(world, tool_order))),
        ),
    )
    check(impl, case)


@st.composite
def _unknown_name_worlds(draw: st.DrawFn) -> tuple[ToolWorld, list[str], list[str]]:
    """A valid ``toolOrder`` with one to two names that no provider knows, inserted anywhere;
    and those names."""
    world, tool_order = draw(_configured_worlds())
    known = set(world.known)
    unknown = draw(
        st.lists(
            _TOOL_NAMES.filter(lambda name: name not in known), unique=True, min_size=1, max_size=2
        )
    )
    for name in unknown:
        tool_order.insert(draw(st.integers(0, len(tool_order))), name)
    return world, tool_order, unknown


@pytest.mark.contract(CONTRACT)
@given(_unknown_name_worlds())
def test_tool_order_naming_an_unknown_tool_fails(
    impl: Implementation, generated: tuple[ToolWorld, list[str], list[str]]
) -> None:
    """PROMPT-TOOL-ORDER: a listed name outside every provider's knownNames fails the assembly.

    The configuration itself is valid (no duplicate, one marker), so it loads; the unknown name
    was drawn outside the generated known names, so the assembly fails
    ``tool-order-unknown-name``.
    """
    world, tool_order, unknown = generated
    # PROTOCOL.md's error table: `where` is the listed name; with two unknown names CONTRACTS.md
    # does not say which one an implementation names, so only the kind is compared then.
    where = unknown[0] if len(unknown) == 1 else None
    case = Case(
        id="property/tool-order-unknown-name",
        contracts=(CONTRACT,),
        why=UNKNOWN_RULE,
        ops=(
            s.configure({"toolOrder": tool_order}),
            *world.ops(),
            s.assemble("a", "child", expect=s.error("tool-order-unknown-name", where)),
        ),
    )
    check(impl, case)
