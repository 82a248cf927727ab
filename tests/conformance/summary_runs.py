"""Real runs for the summary page's three views, and screenshots of them (not a test).

The browser test (`test_summary_page`) and the figures of issue 33 need the same runs, each a
run of its own over one contract's examples (``--contract DESIGN-SCOPED-LAYERS -k test_example``):

- *default*: the reference and two wrong implementations of the gallery side by side;
- *baseline*: the reference and ``FarthestLayerWins`` run with a baseline listing two of its
  failures (each with a ``# reason``) and one entry that names no test (a stale entry);
- *comparison*: two runs of ``FarthestLayerWins`` — a "last release" that skipped the
  ``scopes/nearest-*`` cases and a "branch" that ran them all — compared with ``--compare``.

Each run writes its report under a name saying what it is (the page tells runs with the same
handshake apart by it), in the directory given, with paths relative to it, as a user would. Each
run, and each ``summary``, is a process of its own forked from a `warm_runner` server (the
runner's ``main`` as ``python -m dsh_conformance.run.runner`` runs it, without importing pytest
and the suite again: a fresh interpreter spent about 1 of each run's 1.7 CPU seconds starting).

    python tests/conformance/summary_runs.py OUTDIR     # runs, three pages, three screenshots

writes ``OUTDIR/summary-{default,baseline,comparison}.{html,png}`` (Debian's Chromium, through
Playwright; the page is shown as it opens, then with a failing cell and a folded requirement
opened for the default view).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from warm_runner import WarmRunner

GALLERY = Path(__file__).parents[1] / "gallery"
CONTRACT = "DESIGN-SCOPED-LAYERS"
ENTRY = "wrong_impls:FarthestLayerWins"
OTHER = "wrong_impls:LastListenerOutermost"
#: The reasons the baseline gives for the two failures it lists (what the browser test looks for).
REASONS = (
    "layers resolve farthest-first until the scope rewrite lands",
    "same cause: farthest-first resolution",
)
STALE_ENTRY = "test_example[scopes/a-case-since-renamed]"
#: The cases the "last release" run skipped, which the "branch" run then fails.
SKIPPED_BEFORE = "scopes/nearest-*"


def run(runner: WarmRunner, directory: Path, impl: str, report: str, *extra: str) -> Path:
    """One run of the suite over `CONTRACT`'s examples, writing ``directory/report`` (its
    output: ``directory/REPORT.out``)."""
    env = {"PYTHONPATH": os.pathsep.join([str(GALLERY), os.environ.get("PYTHONPATH", "")])}
    argv = ["--impl", impl, "--contract", CONTRACT, "-k", "test_example"]
    argv += ["--conformance-json", report, *extra]
    output = directory / Path(report).with_suffix(".out").name
    runner.run(argv, output, output, 600, cwd=directory, env=env)
    path = directory / report
    assert path.is_file(), f"the run of {impl} wrote no {report}:\n{output.read_text()[-4000:]}"
    return path


def make_runs(runner: WarmRunner, directory: Path) -> dict[str, list[str]]:
    """Every run of the three views; the report names (relative to ``directory``) per view."""
    run(runner, directory, "reference", "reference.json")
    entry = run(runner, directory, ENTRY, "FarthestLayerWins.json")
    run(runner, directory, OTHER, "LastListenerOutermost.json")
    results = json.loads(entry.read_text(encoding="utf-8"))["implementations"][0]["results"]
    failing = [r["test"] for r in results if r["outcome"] == "failed"]
    lines = [f"{test}  # {reason}" for test, reason in zip(failing, REASONS, strict=False)]
    (directory / "baseline.txt").write_text(
        "# FarthestLayerWins: known departures\n" + "\n".join([*lines, STALE_ENTRY]) + "\n",
        encoding="utf-8",
    )
    gated = ("--expected-failures", "baseline.txt")
    run(runner, directory, ENTRY, "FarthestLayerWins-gated.json", *gated)
    skipped = ("--skip-case", SKIPPED_BEFORE)
    run(runner, directory, ENTRY, "FarthestLayerWins-last-release.json", *skipped)
    return {
        "default": ["reference.json", "FarthestLayerWins.json", "LastListenerOutermost.json"],
        "baseline": ["reference.json", "FarthestLayerWins-gated.json"],
        "comparison": [
            "--compare",
            "FarthestLayerWins-last-release.json",
            "FarthestLayerWins.json",
        ],
    }


def make_page(runner: WarmRunner, directory: Path, arguments: list[str]) -> str:
    """The page ``dsh-conformance summary ARGUMENTS --format html`` writes, run in ``directory``."""
    output = directory / "summary.out"
    argv = ["summary", *arguments, "--format", "html", "-o", "page.html"]
    status, _ = runner.run(argv, output, output, 120, cwd=directory)
    assert status in (0, 1), output.read_text()
    return (directory / "page.html").read_text(encoding="utf-8")


def screenshots(outdir: Path) -> list[Path]:
    """The three views in Chromium, as PNGs in ``outdir`` (the runs are made there too)."""
    from playwright.sync_api import sync_playwright

    outdir.mkdir(parents=True, exist_ok=True)
    runner = WarmRunner()
    try:
        views = make_runs(runner, outdir)
        pages = {name: make_page(runner, outdir, arguments) for name, arguments in views.items()}
    finally:
        runner.close()
    written = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--disable-background-networking", "--disable-component-update", "--no-sandbox"],
        )
        for name, page in pages.items():
            html = outdir / f"summary-{name}.html"
            html.write_text(page, encoding="utf-8")
            view = browser.new_page(viewport={"width": 1400, "height": 900})
            view.goto(html.as_uri())
            if name == "default":
                view.locator("#problem-table td.o-failed summary").first.click()
                view.locator("#tests button.unfold").first.click()
                view.evaluate("window.scrollTo(0, 0)")  # sticky headers back on their tables
            png = outdir / f"summary-{name}.png"
            view.screenshot(path=str(png), full_page=True)
            written.append(png)
            view.close()
        browser.close()
    return written


if __name__ == "__main__":
    for path in screenshots(Path(sys.argv[1]).resolve()):
        print(path)
