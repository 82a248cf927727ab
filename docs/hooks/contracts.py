"""MkDocs hook: the contract pages, generated from the requirement catalog at build time.

One page per contract ID (`contracts/<ID>.md`): each requirement of `dsh_conformance.requirements`
with its text, its source sentence in CONTRACTS.md, and the cases and tests that check it, or the
reason nothing can. Each case id links to its definition on a page per area (`cases/<area>.md`):
why it exists, what it checks, and the exact `run` message with the expectation of each op, as
`dsh-conformance export-cases` writes it. Each test links to `contracts/tests.md`, the suite's
tests that are not example cases. Nothing is copied into `docs/`: the pages are made from the same
data the suite runs, so they cannot drift from it.

A hook rather than the mkdocs-gen-files plugin: MkDocs runs hooks itself (`hooks:` in mkdocs.yml,
since 1.4), so the pages need no dependency beyond MkDocs, and `File.generated` (1.6) adds them to
the build without writing into the source tree.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from dsh_conformance.cases import all_cases
from dsh_conformance.deepseek.deepseek_http import HttpCase
from dsh_conformance.deepseek.http_rules import ALL_HTTP_CASES
from dsh_conformance.judge.case import CONTRACT_IDS, Case
from dsh_conformance.judge.jsontext import dumps
from dsh_conformance.requirements import catalog, data_file
from dsh_conformance.requirements.requirement import split_test_key
from dsh_conformance.run.catalog import checked_contracts, exported_case, other_tests, properties

#: The suite's loopback server's address as the HTTP cases' pages show it (a run picks a port).
LOOPBACK = "http://127.0.0.1:PORT"


def every_case() -> list[Case | HttpCase]:
    """The example cases, then the HTTP cases (`test_deepseek_http` runs those)."""
    return [*all_cases(), *ALL_HTTP_CASES]


def anchor(prefix: str, name: str) -> str:
    """An HTML id for a case or test name: lower case, `/` a double dash, every other run of
    characters outside [a-z0-9] one dash (`pages` checks that no two ids meet)."""
    parts = (re.sub(r"[^a-z0-9]+", "-", part).strip("-") for part in name.lower().split("/"))
    return f"{prefix}-" + "--".join(parts)


def area(case_id: str) -> str:
    return case_id.split("/", 1)[0]


def case_link(case_id: str, base: str) -> str:
    return f"[`{case_id}`]({base}cases/{area(case_id)}.md#{anchor('case', case_id)})"


def test_link(key: str, base: str) -> str:
    name, _ = split_test_key(key)
    return f"[`{key}`]({base}contracts/tests.md#{anchor('test', name)})"


def contract_link(contract: str, base: str) -> str:
    return f"[{contract}]({base}contracts/{contract}.md)"


def requirement_link(requirement: str, base: str) -> str:
    contract, number = requirement.rsplit(".", 1)
    return f"[{requirement}]({base}contracts/{contract}.md#req-{number})"


def text(value: str) -> str:
    """Catalog prose as Markdown: code spans kept, everything else taken literally."""
    parts = value.split("`")
    if len(parts) % 2 == 0:  # an unbalanced backtick: no code span at all
        parts = [value.replace("`", "\\`")]
    for index in range(0, len(parts), 2):
        parts[index] = re.sub(r"([\\*_\[\]])", r"\\\1", parts[index])
        parts[index] = parts[index].replace("&", "&amp;").replace("<", "&lt;")
    return "`".join(parts)


def _requirements_by_case() -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    for requirement in catalog().values():
        for case_id in requirement.cases:
            found[case_id].append(requirement.id)
    return found


def contract_page(contract: str) -> str:
    base = "../"
    requirements = [r for r in catalog().values() if r.contract == contract]
    sections = list(dict.fromkeys(r.section for r in requirements))
    unchecked = sum(not r.checked for r in requirements)
    gaps = f", {unchecked} of them unchecked, each with its reason" if unchecked else ""
    lines = [
        f"# {contract}",
        "",
        f"The contract as this suite enforces it: {len(requirements)} requirements{gaps}, one "
        f"checkable rule each, from CONTRACTS.md's section{'s' if len(sections) > 1 else ''} "
        + ", ".join(f"“{s}”" for s in sections)
        + f". Generated from `{data_file(contract)}`; run its tests with "
        f"`dsh-conformance --contract {contract}`.",
        "",
    ]
    for requirement in requirements:
        lines += [
            f"## {requirement.id} {{#req-{requirement.number}}}",
            "",
            text(requirement.text),
            "",
            f"**Source**: CONTRACTS.md, “{requirement.section}”: “{text(requirement.quote)}”",
            "",
        ]
        if requirement.checked:
            checks = [case_link(c, base) for c in requirement.cases]
            checks += [test_link(t, base) for t in requirement.tests]
            lines += ["**Checked by**: " + ", ".join(checks), ""]
        else:
            lines += [f"**Unchecked**: {text(requirement.unchecked)}", ""]
    return "\n".join(lines)


def contracts_index() -> str:
    base = "../"
    by_contract: dict[str, list[Any]] = defaultdict(list)
    for requirement in catalog().values():
        by_contract[requirement.contract].append(requirement)
    cases: dict[str, int] = defaultdict(int)
    for case in every_case():
        # As `--list` counts them: a loop case also counts for the request check run on it.
        tagged = checked_contracts(case) if isinstance(case, Case) else case.contracts
        for contract in tagged:
            cases[contract] += 1
    lines = [
        "# The contracts",
        "",
        "The 20 contracts, each split into numbered requirements: one checkable rule each, in the "
        "project's words, with the sentence of CONTRACTS.md it restates and what checks it. A "
        "report's failing test names its requirements; their pages link back to the cases.",
        "",
        "| contract ID | requirements | unchecked | cases |",
        "|---|---|---|---|",
    ]
    for contract in CONTRACT_IDS:
        found = by_contract[contract]
        unchecked = sum(not r.checked for r in found)
        lines.append(
            f"| {contract_link(contract, base)} | {len(found)} | {unchecked} | {cases[contract]} |"
        )
    lines += [
        "",
        "*cases* counts the example cases and the HTTP cases (`deepseek-http/…`) that check the "
        "contract, a loop case also under the contracts of the request check run on it, as "
        "`dsh-conformance --list` does. The suite's other tests (property tests, goldens, timing, "
        "the live cache check) are on each contract's page and in [Tests](tests.md).",
        "",
    ]
    return "\n".join(lines)


def _exchange_lines(sent: Iterable[Any], expected: Iterable[Any]) -> list[str]:
    lines = []
    for op, expectation in zip(sent, expected, strict=True):
        lines.append(f"→ {dumps(op)}")
        if expectation is None:
            lines.append("← (not checked)")
        else:
            lines.append(f"← {expectation['rule']}: {dumps(expectation['value'])}")
    return lines


def cases_page(name: str, cases: list[Any], requirements: dict[str, list[str]]) -> str:
    base = "../"
    lines = [
        f"# Cases: {name}",
        "",
        "Each case as the suite sends it: the ops of its `run` message (→) and, under each, the "
        "comparison rule and the expected observation (←; rules in "
        "[COMPARISON.md](../export/COMPARISON.md)).",
        "",
    ]
    for given in cases:
        # An HTTP case becomes a protocol case once its server's address is known.
        case = given.case(LOOPBACK) if area(given.id) == "deepseek-http" else given
        lines += [f"## {text(case.id)} {{#{anchor('case', case.id)}}}", "", text(case.why), ""]
        lines.append("**Contracts**: " + ", ".join(contract_link(c, base) for c in case.contracts))
        checked = requirements.get(case.id, [])
        if checked:
            lines.append(
                "<br>**Requirements**: " + ", ".join(requirement_link(r, base) for r in checked)
            )
        lines += [f"<br>**Needs**: {', '.join(case.requires) or 'nothing'}", ""]
        exported = exported_case(case)
        sent = exported["run"]["scenario"]["ops"]
        expected = exported["expected"][: len(sent)]
        lines += ["```text", *_exchange_lines(sent, expected), "```", ""]
    return "\n".join(lines)


def tests_page() -> str:
    base = "../"
    lines = [
        "# Tests",
        "",
        "The suite's tests that are not example cases: property tests (Hypothesis generates "
        "their cases while they run) and the others (goldens, HTTP to the suite's own server, "
        "timing, the request check of every loop case, the live cache check). "
        "`dsh-conformance` runs them; the export does not carry them.",
        "",
    ]
    for test in [*properties(), *other_tests()]:
        name = test["test"]
        lines += [
            f"## {name} {{#{anchor('test', name)}}}",
            "",
            text(test["why"]) or "(no docstring)",
            "",
            f"**Module**: `dsh_conformance/{test['module']}.py`"
            "<br>**Contracts**: " + ", ".join(contract_link(c, base) for c in test["contracts"]),
        ]
        if test["requirements"]:
            lines.append(
                "<br>**Requirements**: "
                + ", ".join(requirement_link(r, base) for r in test["requirements"])
            )
        if test["parameters"]:
            lines.append("<br>**Parameters**: " + ", ".join(f"`{p}`" for p in test["parameters"]))
        lines.append("")
    return "\n".join(lines)


def pages() -> dict[str, str]:
    """Every generated page by its path under docs/."""
    generated = {"contracts/index.md": contracts_index(), "contracts/tests.md": tests_page()}
    for contract in CONTRACT_IDS:
        generated[f"contracts/{contract}.md"] = contract_page(contract)
    by_area: dict[str, list[Any]] = defaultdict(list)
    seen: dict[str, str] = {}
    for case in every_case():
        if seen.setdefault(anchor("case", case.id), case.id) != case.id:
            raise ValueError(f"case ids {seen[anchor('case', case.id)]!r} and {case.id!r} clash")
        by_area[area(case.id)].append(case)
    requirements = _requirements_by_case()
    for name, cases in by_area.items():
        generated[f"cases/{name}.md"] = cases_page(name, cases, requirements)
    return generated


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path, content in pages().items():
        files.append(File.generated(config, path, content=content))
    return files


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Put the generated pages into the nav's "The contracts" section, after its index."""
    areas = list(dict.fromkeys(area(case.id) for case in every_case()))
    for item in config.nav or []:
        if isinstance(item, dict) and "The contracts" in item:
            item["The contracts"] = [
                *item["The contracts"],
                *({contract: f"contracts/{contract}.md"} for contract in CONTRACT_IDS),
                {"Tests": "contracts/tests.md"},
                {"Cases by area": [{name: f"cases/{name}.md"} for name in areas]},
            ]
    return config
