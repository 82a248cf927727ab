"""The summary as Markdown (``dsh-conformance summary --format markdown``): a pull-request comment.

Per contract, each implementation's verdict and counts, then the requirements (the tests, in a
report without requirements) where the implementations disagree, with one status line per
implementation to quote as a badge.
"""

from __future__ import annotations

from .merged import Row, Summary, counts_text, suite_name
from .report import selection_line


def markdown(summary: Summary) -> str:
    """The summary for a pull-request comment: statuses, the contract matrix, disagreements."""
    labels = summary.labels
    lines = [
        "## DSH conformance",
        "",
        f"{suite_name(summary.suite)}; {len(summary.sources)} report(s); {summary.generated}",
        "",
    ]
    for impl in summary.implementations:
        lines.append(
            f"- **{_md(impl['label'])}**: {impl['status']} ({selection_line(impl['selection'])})"
        )
    lines += ["", "| contract ID | " + " | ".join(_md(label) for label in labels) + " |"]
    lines.append("|---" * (len(labels) + 1) + "|")
    tabulated = {c for impl in summary.implementations for c in impl["contracts"]}
    for contract in [c for c in summary.contracts() if c in tabulated]:
        cells = []
        for impl in summary.implementations:
            row = impl["contracts"].get(contract)
            cells.append("—" if row is None else f"{row['verdict']} ({counts_text(row)})")
        lines.append(f"| {contract} | " + " | ".join(_md(cell) for cell in cells) + " |")
    disagreeing = [row for row in summary.rows() if row.disagree(labels)]
    lines.append("")
    if len(labels) < 2:
        return "\n".join(lines) + "\n"
    if not disagreeing:
        lines.append("The implementations agree on every test.")
        return "\n".join(lines) + "\n"
    by_requirement: dict[tuple[str, str], list[Row]] = {}
    for row in disagreeing:
        by_requirement.setdefault((row.contract, row.requirement), []).append(row)
    lines += [
        f"### Where they disagree ({len(by_requirement)} requirement(s), "
        f"{len({row.test for row in disagreeing})} test(s))",
        "",
        "| requirement | test | " + " | ".join(_md(label) for label in labels) + " |",
        "|---|---" + "|---" * len(labels) + "|",
    ]
    for (contract, requirement), rows in by_requirement.items():
        name = requirement or f"{contract} (no requirement named)"
        for row in rows:
            outcomes = [row.outcome(label) for label in labels]
            lines.append(f"| {_md(name)} | `{_md(row.test)}` | " + " | ".join(outcomes) + " |")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")
