"""The summary as one self-contained HTML page (``dsh-conformance summary --format html``).

Contracts, their requirements and their tests run down the side; implementations across. Every
cell shows its verdict as a word as well as a colour. A failing cell opens (a ``<details>``
element, no script needed) the failure exactly as the terminal report shows it — the case, each
difference with its JSON pointer, expected and observed values, the ``why`` — and the ops the suite
sent. Two filters hide rows: "only where they disagree" and "only failures"; a contract's or a
requirement's row is hidden with the last of its tests.

The page loads nothing: its style and its few lines of script are inline, and it names no other
address, so it can be opened from a file, attached to a CI run, or published as it is.
"""

from __future__ import annotations

from html import escape
from itertools import groupby
from typing import Final

from ..judge.jsontext import dumps
from .merged import NO_REQUIREMENT, Row, Summary, counts_text
from .report import PROBLEMS, gist

_STYLE: Final = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1b1b1b; }
h1 { font-size: 1.4rem; margin: 0 0 .3rem; }
.meta, .made { color: #555; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; vertical-align: top; text-align: left; }
thead th { position: sticky; top: 0; background: #f4f4f4; }
tr.contract th, tr.contract td { background: #e9eef6; font-weight: 600; }
tr.requirement th { padding-left: 1.2rem; font-weight: normal; }
tr.case th { padding-left: 2.4rem; font-weight: normal; font-family: monospace; }
.o-passed { background: #dff3e2; }
.o-failed, .o-errored, .o-stale-baseline { background: #f8d7d7; }
.o-skipped, .o-not-applicable, .o-expected-failure { background: #f1f1f1; }
.o-deselected, .o-not-reached, .o-absent { background: #fff4d6; }
.v-conform { color: #17692a; } .v-fail { color: #a11; }
details > summary { cursor: pointer; font-weight: 600; }
pre { white-space: pre-wrap; max-width: 60rem; margin: .3rem 0; font-size: 12px; }
.filters { margin: 1rem 0; }
[hidden] { display: none !important; }
"""

_SCRIPT: Final = """
const disagree = document.getElementById("only-disagree");
const failures = document.getElementById("only-failures");
const shown = document.getElementById("shown");
function applyFilters() {
  const cases = document.querySelectorAll("tr.case");
  const open = new Set();
  for (const row of cases) {
    row.hidden = (disagree.checked && row.dataset.disagree !== "1")
      || (failures.checked && row.dataset.failing !== "1");
    if (!row.hidden) open.add(row.dataset.contract).add(row.dataset.group);
  }
  for (const head of document.querySelectorAll("tr.contract")) {
    head.hidden = !open.has(head.dataset.contract);
  }
  for (const head of document.querySelectorAll("tr.requirement")) {
    head.hidden = !open.has(head.dataset.group);
  }
  const visible = [...cases].filter((row) => !row.hidden).length;
  shown.textContent = `${visible} of ${cases.length} test rows shown`;
}
disagree.addEventListener("change", applyFilters);
failures.addEventListener("change", applyFilters);
applyFilters();
"""


def page(summary: Summary, command: list[str]) -> str:
    """The whole page; ``command`` is how it was made, which the page states."""
    labels = summary.labels
    rows = summary.rows()
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>DSH conformance: {escape(', '.join(labels))}</title>",
        f"<style>{_STYLE}</style></head><body>",
        _header(summary, command),
        '<div class="filters">',
        '<label><input type="checkbox" id="only-disagree"> only where they disagree</label> ',
        '<label><input type="checkbox" id="only-failures"> only failures</label> ',
        '<span id="shown" aria-live="polite"></span></div>',
        '<table id="matrix"><thead><tr><th scope="col">contract / requirement / test</th>',
        *(f'<th scope="col">{escape(label)}</th>' for label in labels),
        "</tr></thead><tbody>",
        *_body(summary, rows),
        "</tbody></table>",
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
        '<table class="implementations"><thead><tr><th scope="col">implementation</th>'
        '<th scope="col">status</th><th scope="col">handshake</th>'
        '<th scope="col">selection</th></tr></thead><tbody>',
    ]
    for impl in summary.implementations:
        selection = impl.get("selection", {})
        lines.append(
            f"<tr><th>{escape(impl['label'])}</th>"
            f'<td class="{_verdict_class(impl.get("status", ""))}">{escape(impl["status"])}</td>'
            f"<td>{escape(impl.get('description', ''))}</td>"
            f"<td>{escape(_selection(selection))}</td></tr>"
        )
    lines += [
        "</tbody></table>",
        f'<p class="made">Made by <code>{escape(" ".join(command))}</code>: one self-contained '
        "page, no network; each failing cell opens the failure as the terminal report shows "
        "it.</p></header>",
    ]
    return "\n".join(lines)


def _selection(selection: dict[str, int]) -> str:
    if "run" not in selection:
        return ""
    return f"ran {selection['run']} of {selection['collected']}"


def _body(summary: Summary, rows: list[Row]) -> list[str]:
    """A contract's row, then each of its requirements' rows followed by their tests' rows."""
    out: list[str] = []
    for contract, grouped_by_contract in groupby(rows, key=lambda row: row.contract):
        in_contract = list(grouped_by_contract)
        out.append(_contract_row(summary, contract, in_contract))
        for _, grouped in groupby(in_contract, key=lambda row: row.requirement):
            group = list(grouped)
            out.append(_requirement_row(summary, group))
            out.extend(_case_row(row, summary.labels) for row in group)
    return out


def _case_row(row: Row, labels: list[str]) -> str:
    return (
        f'<tr class="case" data-contract="{escape(row.contract)}" '
        f'data-group="{escape(_group(row))}" '
        f'data-disagree="{int(row.disagree(labels))}" data-failing="{int(row.failing())}">'
        f"<th>{escape(row.test)}</th>" + "".join(_cell(row, label) for label in labels) + "</tr>"
    )


def _contract_row(summary: Summary, contract: str, rows: list[Row]) -> str:
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
    return (
        f'<tr class="contract" data-contract="{escape(contract)}"><th>{escape(contract)}</th>'
        + "".join(cells)
        + "</tr>"
    )


def _requirement_row(summary: Summary, group: list[Row]) -> str:
    first = group[0]
    if first.requirement == NO_REQUIREMENT:
        title = "tests naming no requirement of this contract"
    else:
        text = summary.requirements.get(first.requirement, {}).get("text", "")
        title = f"{first.requirement}: {text}"
    cells = []
    for label in summary.labels:
        outcomes: dict[str, int] = {}
        for row in group:
            outcomes[row.outcome(label)] = outcomes.get(row.outcome(label), 0) + 1
        failing = any(outcome in PROBLEMS for outcome in outcomes)
        text = ", ".join(f"{count} {outcome}" for outcome, count in outcomes.items())
        cells.append(f'<td class="{"v-fail" if failing else "v-conform"}">{escape(text)}</td>')
    return (
        f'<tr class="requirement" data-contract="{escape(first.contract)}" '
        f'data-group="{escape(_group(first))}"><th>{escape(title)}</th>' + "".join(cells) + "</tr>"
    )


def _cell(row: Row, label: str) -> str:
    outcome = row.outcome(label)
    css = "o-" + outcome.replace(" ", "-")
    cell = row.cells.get(label)
    if cell is None or outcome not in PROBLEMS:
        return f'<td class="{css}">{escape(outcome)}</td>'
    detail = [f'<pre class="failure">{escape(chr(10).join(gist(cell.message)))}</pre>']
    if cell.ops is not None:
        detail.append(f'<p>ops sent:</p><pre class="ops">{escape(dumps(cell.ops, indent=2))}</pre>')
    return (
        f'<td class="{css}"><details><summary>{escape(outcome)}</summary>'
        + "".join(detail)
        + "</details></td>"
    )


def _group(row: Row) -> str:
    return f"{row.contract} {row.requirement}"


def _verdict_class(verdict: str) -> str:
    lowered = verdict.lower()
    if lowered.startswith(("does not", "stale")):
        return "v-fail"
    return "v-conform" if lowered.startswith("conforms") else ""
