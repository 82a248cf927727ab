"""The summary as one self-contained HTML page (``dsh-conformance summary --format html``).

It opens with the verdict, for the people who gate releases (issue 33): one status line per
implementation, then the contract-by-implementation matrix (the verdict as a word and a colour,
with the counts), then only the tests that fail, error or on which the implementations disagree,
each failing cell opening (a ``<details>`` element) the failure exactly as the terminal report
shows it — the case, each difference with its JSON pointer, expected and observed values, the
``why`` — and the ops the suite sent. Failures a baseline expected are listed apart with the
reason the baseline line gives, and stale baseline entries as a finding of their own. With
``--compare``, what changed between the two runs comes first (`dsh_conformance.run.compare`).

Below, every test by contract and requirement: a requirement's passing rows are folded behind
their count and open on demand. Every contract, requirement and test row has an ``id``, and a
link to it (pasted into a review) opens its folded requirement and scrolls to it.

The page loads nothing: its style and its few lines of script are inline, and it names no other
address, so it can be opened from a file, attached to a CI run, or published as it is. It names
no path the command line did not (a baseline by its file name only).
"""

from __future__ import annotations

import re
from html import escape
from itertools import groupby
from pathlib import Path
from typing import Final

from ..judge.jsontext import dumps
from .compare import Change, Comparison
from .merged import NO_REQUIREMENT, Row, Summary, counts_text
from .report import PROBLEMS, gist, selection_line

_STYLE: Final = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1b1b1b; }
h1 { font-size: 1.4rem; margin: 0 0 .3rem; } h2 { font-size: 1.15rem; margin: 1.6rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1rem 0 .3rem; }
.meta, .made, .none { color: #555; }
ul.statuses { list-style: none; padding: 0; margin: .6rem 0; }
ul.statuses li { margin: .2rem 0; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; vertical-align: top; text-align: left; }
thead th { position: sticky; top: 0; background: #f4f4f4; }
tr.contract th, tr.contract td { background: #e9eef6; font-weight: 600; }
tr.requirement th, tr.group th { padding-left: 1.2rem; font-weight: normal; }
tr.case th { padding-left: 2.4rem; font-weight: normal; font-family: monospace; }
tr:target > th { outline: 3px solid #2a6bd1; }
a.anchor { color: #999; text-decoration: none; margin-right: .3rem; }
.o-passed { background: #dff3e2; }
.o-failed, .o-errored, .o-stale-baseline { background: #f8d7d7; }
.o-expected-failure { background: #fbe6c8; }
.o-skipped, .o-not-applicable { background: #f1f1f1; }
.o-deselected, .o-not-reached, .o-absent { background: #fff4d6; }
.v-conform { color: #17692a; background: #dff3e2; }
.v-fail { color: #a11; background: #f8d7d7; }
.v-baseline { color: #7a4a00; background: #fbe6c8; }
.v-partial { color: #6b5800; background: #fff4d6; }
.verdict { padding: 0 .3rem; font-weight: 600; }
.reason { font-style: italic; }
details > summary { cursor: pointer; font-weight: 600; }
button.unfold { font-size: 12px; margin-left: .5rem; }
pre { white-space: pre-wrap; max-width: 60rem; margin: .3rem 0; font-size: 12px; }
[hidden] { display: none !important; }
"""

_SCRIPT: Final = """
const folded = new Map();
for (const row of document.querySelectorAll("tr.folded")) {
  if (!folded.has(row.dataset.group)) folded.set(row.dataset.group, []);
  folded.get(row.dataset.group).push(row);
}
const buttons = new Map();
function unfold(button, open) {
  for (const row of folded.get(button.dataset.group) || []) row.hidden = !open;
  button.setAttribute("aria-expanded", String(open));
  button.textContent = `${open ? "hide" : "show"} ${button.dataset.count} passing`;
}
for (const button of document.querySelectorAll("button.unfold")) {
  buttons.set(button.dataset.group, button);
  button.addEventListener("click", () => {
    unfold(button, button.getAttribute("aria-expanded") !== "true");
  });
}
const all = document.getElementById("unfold-all");
all.addEventListener("change", () => { for (const b of buttons.values()) unfold(b, all.checked); });
function reveal() {
  const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (!target) return;
  const button = buttons.get(target.dataset.group);
  if (target.hidden && button) unfold(button, true);
  target.scrollIntoView({ block: "center" });
}
window.addEventListener("hashchange", reveal);
reveal();
"""


def page(summary: Summary, command: list[str], changes: Comparison | None = None) -> str:
    """The whole page; ``command`` is how it was made, which the page states; ``changes``, the
    comparison of two runs (``--compare``), comes first when given."""
    labels = summary.labels
    rows = summary.rows()
    anchors: dict[str, str] = {}
    for row in rows:
        anchors.setdefault(row.test, _id("t", row))
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>DSH conformance: {escape(', '.join(labels))}</title>",
        f"<style>{_STYLE}</style></head><body>",
        _header(summary, command),
        *([] if changes is None else _changes(changes, anchors)),
        *_matrix(summary, rows),
        *_problems(summary, rows),
        *_expected(summary, anchors),
        *_stale(summary, anchors),
        *_tree(summary, rows),
        f"<script>{_SCRIPT}</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _header(summary: Summary, command: list[str]) -> str:
    suite = summary.suite
    lines = [
        "<header><h1>DSH conformance</h1>",
        f'<p class="meta">{escape(str(suite.get("name")))} {escape(str(suite.get("version")))}, '
        f"protocol {escape(str(suite.get('protocol')))}; generated {escape(summary.generated)} "
        f"from {len(summary.sources)} report(s)</p>",
        '<ul class="statuses">',
    ]
    expected = summary.expected_failures()
    stale = summary.stale_entries()
    for impl in summary.implementations:
        label = impl["label"]
        note = [selection_line(impl["selection"])]
        if impl.get("description"):
            note.append(impl["description"])
        if "baseline" in impl:
            mine = sum(found == label for found, _ in expected)
            old = sum(entry.label == label for entry in stale)
            name = Path(impl["baseline"]["path"]).name
            note.append(f"baseline {name}: {mine} expected failure(s), {old} stale entr(ies)")
        lines.append(
            f"<li><strong>{escape(label)}</strong>: {_verdict(impl['status'])} "
            f"— {escape('; '.join(note))}</li>"
        )
    lines += [
        "</ul>",
        f'<p class="made">Made by <code>{escape(" ".join(command))}</code>: one self-contained '
        "page, no network; each failing cell opens the failure as the terminal report shows "
        "it.</p></header>",
    ]
    return "\n".join(lines)


def _changes(changes: Comparison, anchors: dict[str, str]) -> list[str]:
    """What changed from OLD to NEW: the gate, the verdicts that changed, each list of tests."""
    gate = "newly failing tests" if changes.gate else "nothing newly fails"
    out = [
        f'<section id="changes"><h2>What changed: {escape(changes.old)} → '
        f"{escape(changes.new)}</h2>",
        f'<p class="gate">{_verdict("does not conform" if changes.gate else "conforms", gate)} '
        f"status {escape(changes.statuses[0])} → {escape(changes.statuses[1])}</p>",
    ]
    if changes.verdicts:
        out.append(
            '<table id="verdict-changes"><thead><tr><th scope="col">contract ID</th>'
            '<th scope="col">before</th><th scope="col">after</th></tr></thead><tbody>'
        )
        out += [
            f'<tr><th><a href="#c-{escape(c)}">{escape(c)}</a></th><td>{_verdict(old)}</td>'
            f"<td>{_verdict(new)}</td></tr>"
            for c, old, new in changes.verdicts
        ]
        out.append("</tbody></table>")
    for key, title, found in (
        ("newly-failing", "Newly failing", changes.newly_failing),
        ("newly-passing", "Newly passing", changes.newly_passing),
        ("new-tests", "New tests", changes.new_tests),
        ("removed-tests", "Removed tests", changes.removed_tests),
        ("other-changes", "Other changes", changes.other),
    ):
        out.append(f'<h3 id="{key}">{title} ({len(found)})</h3>')
        if found:
            out.append(f'<ul class="{key}">')
            out += [f"<li>{_change(change, anchors)}</li>" for change in found]
            out.append("</ul>")
    out.append("</section>")
    return out


def _change(change: Change, anchors: dict[str, str]) -> str:
    text = f"{_linked(change.test, anchors)}: {escape(change.old)} → {escape(change.new)}"
    if change.new == "expected failure":
        text += f' <span class="reason">(baseline: {escape(change.reason or "no reason")})</span>'
    return text


def _matrix(summary: Summary, rows: list[Row]) -> list[str]:
    """The contract-by-implementation verdicts, each contract linking to its rows below."""
    by_contract = {c: list(g) for c, g in groupby(rows, key=lambda row: row.contract)}
    tabulated = {c for impl in summary.implementations for c in impl["contracts"]}
    out = _table("verdict", "Verdict by contract", "matrix", ["contract ID", *summary.labels])
    for contract in summary.contracts():
        if contract in tabulated or contract in by_contract:
            cells = _contract_cells(summary, contract, by_contract.get(contract, []))
            out.append(
                f'<tr><th><a href="#c-{escape(contract)}">{escape(contract)}</a></th>{cells}</tr>'
            )
    out.append("</tbody></table></section>")
    return out


def _problems(summary: Summary, rows: list[Row]) -> list[str]:
    """Only the tests that fail, error or make the implementations disagree, by requirement
    (a failure a baseline expected is listed apart, in `_expected`)."""
    labels = summary.labels
    shown = [row for row in rows if row.problem(labels)]
    title = f"Failing, errored and disagreeing tests ({len({row.test for row in shown})})"
    if not shown:
        return [
            f'<section id="problems"><h2>{title}</h2>',
            '<p class="none">None: no test failed or errored, and no two disagree.</p></section>',
        ]
    out = _table("problems", title, "problem-table", ["requirement / test", *labels])
    for _, grouped in groupby(shown, key=_group):
        group = list(grouped)
        out.append(
            f'<tr class="group"><th colspan="{len(labels) + 1}">'
            f'<a href="#{escape(_id("r", group[0]))}">{escape(_title(summary, group[0]))}</a>'
            "</th></tr>"
        )
        out += [_case_row(row, labels, "p", folded=False) for row in group]
    return [*out, "</tbody></table></section>"]


def _expected(summary: Summary, anchors: dict[str, str]) -> list[str]:
    """The failures a baseline expected, each with the reason its line gives."""
    found = summary.expected_failures()
    if not found:
        return []
    out = _table(
        "expected",
        f"Expected failures ({len(found)}): listed in a baseline, not counted against the run",
        "expected-table",
        ["test", "implementation", "reason (from the baseline)", "the failure"],
    )
    for number, (label, result) in enumerate(found, 1):
        out.append(
            f'<tr class="expected" id="x-{number}"><th><a class="anchor" href="#x-{number}">#</a>'
            f"{_linked(result['test'], anchors)}</th><td>{escape(label)}</td>"
            f'<td class="reason">{escape(result.get("baseline") or "no reason given")}</td>'
            f"<td><details><summary>expected failure</summary>"
            f'<pre class="failure">{escape(chr(10).join(gist(result.get("message", ""))))}</pre>'
            "</details></td></tr>"
        )
    return [*out, "</tbody></table></section>"]


def _stale(summary: Summary, anchors: dict[str, str]) -> list[str]:
    """The baseline entries that no longer say anything true."""
    found = summary.stale_entries()
    if not found:
        return []
    out = _table(
        "stale",
        f"Stale baseline entries ({len(found)}): remove them from the baseline",
        "stale-table",
        ["entry", "implementation", "finding", "reason (from the baseline)"],
    )
    for number, entry in enumerate(found, 1):
        out.append(
            f'<tr class="stale" id="s-{number}"><th><a class="anchor" href="#s-{number}">#</a>'
            f"{_linked(entry.test, anchors)}</th><td>{escape(entry.label)}</td>"
            f'<td class="v-fail">{escape(entry.finding)}</td>'
            f'<td class="reason">{escape(entry.reason or "no reason given")}</td></tr>'
        )
    return [*out, "</tbody></table></section>"]


def _tree(summary: Summary, rows: list[Row]) -> list[str]:
    """Every test under its contract and requirement; a requirement's quiet rows folded."""
    labels = summary.labels
    out = _table(
        "all",
        "Every test, by contract and requirement",
        "tests",
        ["contract / requirement / test", *labels],
    )
    out.insert(
        1, '<p><label><input type="checkbox" id="unfold-all"> show every passing test</label></p>'
    )
    for contract, grouped_by_contract in groupby(rows, key=lambda row: row.contract):
        in_contract = list(grouped_by_contract)
        out.append(
            f'<tr class="contract" id="c-{escape(contract)}"><th>'
            f'<a class="anchor" href="#c-{escape(contract)}">#</a>{escape(contract)}</th>'
            f"{_contract_cells(summary, contract, in_contract)}</tr>"
        )
        for _, grouped in groupby(in_contract, key=_group):
            group = list(grouped)
            out.append(_requirement_row(summary, group))
            out.extend(_case_row(row, labels, "t", row.quiet(labels)) for row in group)
    return [*out, "</tbody></table></section>"]


def _table(section: str, title: str, table: str, columns: list[str]) -> list[str]:
    """A section's heading and the head of its table (its rows and ``</tbody></table>
    </section>`` follow)."""
    head = "".join(f'<th scope="col">{escape(column)}</th>' for column in columns)
    return [
        f'<section id="{section}"><h2>{escape(title)}</h2>',
        f'<table id="{table}"><thead><tr>{head}</tr></thead><tbody>',
    ]


def _linked(test: str, anchors: dict[str, str]) -> str:
    """A test's name, linked to its first row in the tree when it has one."""
    name = f"<code>{escape(test)}</code>"
    return f'<a href="#{escape(anchors[test])}">{name}</a>' if test in anchors else name


def _contract_cells(summary: Summary, contract: str, rows: list[Row]) -> str:
    """The contract's verdict per implementation, from its report; a contract its run did not
    select (a test tagged with it ran under another) has none, only the counts of its rows."""
    cells = []
    for impl in summary.implementations:
        counts = impl["contracts"].get(contract)
        if counts is None:
            counts = {"verdict": "not selected"}
            for row in rows:
                outcome = row.outcome(impl["label"])
                counts[outcome] = counts.get(outcome, 0) + 1
        cells.append(
            f'<td class="{_verdict_class(counts["verdict"])}">{escape(counts["verdict"])}'
            f"<br><small>{escape(counts_text(counts))}</small></td>"
        )
    return "".join(cells)


def _requirement_row(summary: Summary, group: list[Row]) -> str:
    first = group[0]
    cells = []
    for label in summary.labels:
        outcomes: dict[str, int] = {}
        for row in group:
            outcomes[row.outcome(label)] = outcomes.get(row.outcome(label), 0) + 1
        failing = any(outcome in PROBLEMS for outcome in outcomes)
        text = ", ".join(f"{count} {outcome}" for outcome, count in outcomes.items())
        cells.append(f'<td class="{"v-fail" if failing else "v-conform"}">{escape(text)}</td>')
    quiet = sum(row.quiet(summary.labels) for row in group)
    unfold = ""
    if quiet:
        unfold = (
            f'<button class="unfold" type="button" aria-expanded="false" '
            f'data-group="{escape(_group(first))}" data-count="{quiet}">show {quiet} passing'
            "</button>"
        )
    identifier = escape(_id("r", first))
    return (
        f'<tr class="requirement" id="{identifier}" data-contract="{escape(first.contract)}">'
        f'<th><a class="anchor" href="#{identifier}">#</a>{escape(_title(summary, first))}'
        f"{unfold}</th>" + "".join(cells) + "</tr>"
    )


def _case_row(row: Row, labels: list[str], prefix: str, folded: bool) -> str:
    identifier = escape(_id(prefix, row))
    fold = ' folded" hidden' if folded else '"'
    return (
        f'<tr class="case{fold} id="{identifier}" data-group="{escape(_group(row))}" '
        f'data-disagree="{int(row.disagree(labels))}" data-failing="{int(row.failing())}">'
        f'<th><a class="anchor" href="#{identifier}">#</a>{escape(row.test)}</th>'
        + "".join(_cell(row, label) for label in labels)
        + "</tr>"
    )


def _cell(row: Row, label: str) -> str:
    outcome = row.outcome(label)
    css = "o-" + outcome.replace(" ", "-")
    cell = row.cells.get(label)
    if cell is None or (outcome not in PROBLEMS and outcome != "expected failure"):
        return f'<td class="{css}">{escape(outcome)}</td>'
    detail = []
    if cell.baseline is not None:
        reason = cell.baseline or "no reason given"
        detail.append(f'<p class="reason">baseline: {escape(reason)}</p>')
    detail.append(f'<pre class="failure">{escape(chr(10).join(gist(cell.message)))}</pre>')
    if cell.ops is not None:
        detail.append(f'<p>ops sent:</p><pre class="ops">{escape(dumps(cell.ops, indent=2))}</pre>')
    return (
        f'<td class="{css}"><details><summary>{escape(outcome)}</summary>'
        + "".join(detail)
        + "</details></td>"
    )


def _title(summary: Summary, row: Row) -> str:
    if row.requirement == NO_REQUIREMENT:
        return f"{row.contract}: tests naming no requirement of this contract"
    text = summary.requirements.get(row.requirement, {}).get("text", "")
    return f"{row.requirement}: {text}"


def _group(row: Row) -> str:
    """A requirement's key on the page: its ID, or ``CONTRACT.none`` for the tests of a contract
    that name none of its requirements."""
    return row.requirement or f"{row.contract}.none"


def _id(prefix: str, row: Row) -> str:
    """The anchor of a row: ``r-`` for a requirement, ``t-``/``p-`` for a test in the tree or
    among the problems; whitespace (which an id may not hold) becomes ``_``."""
    name = _group(row) if prefix == "r" else f"{_group(row)}-{row.test}"
    return f"{prefix}-" + re.sub(r"\s", "_", name)


def _verdict(status: str, text: str | None = None) -> str:
    return f'<span class="verdict {_verdict_class(status)}">{escape(text or status)}</span>'


def _verdict_class(verdict: str) -> str:
    lowered = verdict.lower()
    if lowered.startswith(("does not", "stale")):
        return "v-fail"
    if lowered.startswith("baseline"):
        return "v-baseline"
    if lowered.startswith(("incomplete", "not ", "live")):
        return "v-partial"
    return "v-conform" if lowered.startswith("conforms") else ""
