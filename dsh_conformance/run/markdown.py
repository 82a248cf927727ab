"""The summary as Markdown (``dsh-conformance summary --format markdown``): a pull-request comment.

Per contract, each implementation's verdict and counts, then the failures a baseline expected
(with the reason its line gives) and the stale baseline entries, each apart from real failures,
then the requirements (the tests, in a report without requirements) where the implementations
disagree, with one status line per implementation to quote as a badge. `comparison` is the
comment for two runs of one implementation (``--compare``): what changed.
"""

from __future__ import annotations

from .compare import Change, Comparison
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
            + _baseline_note(summary, impl["label"])
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
    lines += _baseline_findings(summary)
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


def _baseline_note(summary: Summary, label: str) -> str:
    expected = sum(found == label for found, _ in summary.expected_failures())
    stale = sum(entry.label == label for entry in summary.stale_entries())
    if not (expected or stale):
        return ""
    return f"; baseline: {expected} expected failure(s), {stale} stale entr(ies)"


def _baseline_findings(summary: Summary) -> list[str]:
    """The failures a baseline expected, with its reasons, and its stale entries: two tables."""
    lines: list[str] = []
    expected = summary.expected_failures()
    if expected:
        lines += [
            "",
            f"### Expected failures ({len(expected)}), as the baseline lists them",
            "",
            "| implementation | test | reason |",
            "|---|---|---|",
        ]
        for label, result in expected:
            reason = result.get("baseline") or "(no reason given)"
            lines.append(f"| {_md(label)} | `{_md(result['test'])}` | {_md(reason)} |")
    stale = summary.stale_entries()
    if stale:
        lines += [
            "",
            f"### Stale baseline entries ({len(stale)})",
            "",
            "| implementation | entry | finding | reason |",
            "|---|---|---|---|",
        ]
        for entry in stale:
            lines.append(
                f"| {_md(entry.label)} | `{_md(entry.test)}` | {entry.finding} | "
                f"{_md(entry.reason or '(no reason given)')} |"
            )
    return lines


def comparison(summary: Summary, changes: Comparison) -> str:
    """What changed from OLD to NEW, for a pull-request comment: a status line, the contracts
    whose verdict changed, then each list of tests (an empty list is left out)."""
    gate = "newly failing tests" if changes.gate else "nothing newly fails"
    lines = [
        f"## DSH conformance: {_md(changes.old)} → {_md(changes.new)}",
        "",
        f"{suite_name(summary.suite)}; {summary.generated}",
        "",
        f"**{gate}**: status {changes.statuses[0]} → {changes.statuses[1]}; "
        f"{len(changes.newly_failing)} newly failing, {len(changes.newly_passing)} newly "
        f"passing, {len(changes.new_tests)} new, {len(changes.removed_tests)} removed, "
        f"{len(changes.other)} other change(s)",
    ]
    if changes.verdicts:
        lines += ["", "| contract ID | before | after |", "|---|---|---|"]
        lines += [f"| {c} | {_md(old)} | {_md(new)} |" for c, old, new in changes.verdicts]
    for title, found in (
        ("Newly failing", changes.newly_failing),
        ("Newly passing", changes.newly_passing),
        ("New tests", changes.new_tests),
        ("Removed tests", changes.removed_tests),
        ("Other changes", changes.other),
    ):
        if found:
            lines += ["", f"### {title} ({len(found)})", ""]
            lines += [f"- `{_md(change.test)}`: {change_text(change)}" for change in found]
    if not changes.changed():
        lines += ["", "No test changed its outcome, and no verdict changed."]
    return "\n".join(lines) + "\n"


def change_text(change: Change) -> str:
    """``passed → failed``, with the reason NEW's baseline gives an expected failure."""
    text = f"{change.old} → {change.new}"
    if change.new == "expected failure":
        text += f" (baseline: {change.reason or 'no reason given'})"
    return text


def _md(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")
