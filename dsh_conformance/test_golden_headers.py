"""Golden canonical headers (PROMPT-HEADER-CANONICAL) for named scenarios, as syrupy JSON files.

Each scenario assembles a prompt through the `registry` capability, builds the request header
from it (the rendered system text, the assembled tools, a resolved call config), and has the
implementation canonicalize it (`header-canonical`) and fold it from a logged `request/header`
event (`session-header`). The canonical header must be the same for every implementation, byte
for byte: it is compared with ``golden/headers/<scenario>.json`` (`dsh_conformance.run.goldens`).

syrupy's JSON files sort object keys, so the parts whose order is the contract's are stored as
JSON text: each tool schema as the exact ``JSON.stringify`` output. The config's key order is not
fixed by the contract and is not part of the golden.

Update after an intended change (from a checkout): ``python -m pytest
dsh_conformance/test_golden_headers.py --snapshot-update``, then review the diff of ``golden/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from .harness.transport import Implementation
from .judge.case import Case
from .judge.jsontext import dumps
from .run.execute import ConformanceFailure, check
from .run.goldens import GoldenFiles, assert_golden
from .scenarios import scenario as s

CONTRACT: Final = "PROMPT-HEADER-CANONICAL"
WHY: Final = (
    "Header = {config, adapterDefaults?, system?, tools?}: the resolved call config, which config "
    "fields were filled from adapter defaults, the rendered system text and the ordered tool "
    "schemas. Canonical form: an empty system and an empty tool list become absent fields; "
    "`adapterDefaults` is kept only if one of its two markers is true. Offline replay folds the "
    "log's `request/header` events: the last full snapshot, canonicalized, is the header in force."
)


class GoldenHeaders(GoldenFiles):
    """``golden/headers/<scenario>.json`` (syrupy's JSON: keys sorted)."""

    golden_set = "headers"


READ: Final = s.schema(
    "read_file",
    "Read a file from the workspace.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
WRITE: Final = s.schema(
    "write_file",
    "Write a file.",
    {"required": ["path", "text"], "type": "object", "properties": {"text": {}, "path": {}}},
)
DEEPSEEK: Final = {"provider": "deepseek", "model": "deepseek-chat"}


@dataclass(frozen=True)
class Scenario:
    registry_ops: tuple[Any, ...]
    config: dict[str, Any]
    adapter_defaults: dict[str, bool] = field(default_factory=dict)


TOOLS: Final = s.tools("tools", s.provider(s.toolset(WRITE, READ)))
RULES: Final = s.section("rules", "project:rules", 10, "Answer in English.")

SCENARIOS: Final = {
    # The first request of a session: identity section, empty persona, two tools.
    "initial": Scenario((TOOLS,), DEEPSEEK),
    # A section registered afterwards: the system text changes, nothing else.
    "after-section-change": Scenario((TOOLS, RULES), DEEPSEEK),
    # maxTokens and reasoningEffort filled from adapter defaults (they come last in config).
    "adapter-defaults": Scenario(
        (TOOLS,),
        {**DEEPSEEK, "temperature": 0.7, "reasoningEffort": "medium", "maxTokens": 8192},
        {"reasoningEffort": True, "maxTokens": True},
    ),
    # No identity, no persona, no tools: system '' and tools [] are absent.
    "no-system-no-tools": Scenario(
        (s.configure({"includeHarnessIdentity": False}),), {**DEEPSEEK, "stop": []}
    ),
}


def golden_form(header: dict[str, Any]) -> dict[str, Any]:
    """The header with each tool schema as its JSON text (key order kept), the rest as is."""
    form = dict(header)
    if "tools" in form:
        form["tools"] = [dumps(t, separators=(",", ":")) for t in form["tools"]]
    return form


@pytest.mark.contract(CONTRACT)
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_canonical_header_matches_the_golden(
    impl: Implementation, name: str, snapshot: SnapshotAssertion
) -> None:
    """Each scenario's canonical header, assembled and folded, is golden/headers/<name>.json."""
    scenario = SCENARIOS[name]
    assembled = check(
        impl,
        Case(
            id=f"golden/{name}/assemble",
            contracts=(CONTRACT,),
            why=WHY,
            ops=(*scenario.registry_ops, s.assemble("a"), s.render("a")),
        ),
    )
    header: dict[str, Any] = {"config": scenario.config}
    if scenario.adapter_defaults:
        header["adapterDefaults"] = scenario.adapter_defaults
    header["system"] = assembled[-1]["text"]
    header["tools"] = assembled[-2]["assembly"]["tools"]
    canonical, _ok, folded = check(
        impl,
        Case(
            id=f"golden/{name}/canonical",
            contracts=(CONTRACT,),
            why=WHY,
            ops=(
                s.header_canonical(header),
                s.session_append("request/header", {"header": header, "reason": "initial"}),
                s.session_header(),
            ),
            requires=("session",),
        ),
    )
    if golden_form(folded["header"]) != golden_form(canonical["header"]):
        raise ConformanceFailure(
            f"golden/{name}: the folded header {folded['header']} is not the canonical one "
            f"{canonical['header']}"
        )
    assert_golden(snapshot, GoldenHeaders, name, golden_form(canonical["header"]))
