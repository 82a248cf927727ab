"""Real runs for the summary page's three views, and screenshots of them (not a test).

The browser test (`test_summary_page`) and the figures of issue 33 need the same runs, each a
run of its own over one contract's examples (``--contract DESIGN-SCOPED-LAYERS -k test_example``):

- *default*: the reference and two wrong implementations of the gallery side by side;
- *baseline*: the reference and ``FarthestLayerWins`` run with a baseline listing two of its
  failures (each with a ``# reason``) and one entry that names no test (a stale entry);
- *comparison*: two runs of ``FarthestLayerWins`` — a "last release" that skipped the
  ``scopes/nearest-*`` cases and a "branch" that ran them all — compared with ``--compare``.

Each run writes its report under a name saying what it is (the page tells runs with the same
handshake apart by it), in the directory given, with paths relative to it, as a user would.

    python tests/conformance/summary_runs.py OUTDIR     # runs, three pages, three screenshots

writes ``OUTDIR/summary-{default,baseline,comparison}.{html,png}`` (Debian's Chromium, through
Playwright; the page is shown as it opens, then with a failing cell and a folded requirement
opened for the default view).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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


def run(directory: Path, impl: str, report: str, *extra: str) -> Path:
    """One run of the suite over `CONTRACT`'s examples, writing ``directory/report``."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(GALLERY), os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, "-m", "dsh_conformance.run.runner", "--impl", impl]
    command += ["--contract", CONTRACT, "-k", "test_example", "--conformance-json", report]
    subprocess.run(
        [*command, *extra],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    path = directory / report
    assert path.is_file(), f"the run of {impl} wrote no {report}"
    return path


def make_runs(directory: Path) -> dict[str, list[str]]:
    """Every run of the three views; the report names (relative to ``directory``) per view."""
    run(directory, "reference", "reference.json")
    entry = run(directory, ENTRY, "FarthestLayerWins.json")
    run(directory, OTHER, "LastListenerOutermost.json")
    results = json.loads(entry.read_text(encoding="utf-8"))["implementations"][0]["results"]
    failing = [r["test"] for r in results if r["outcome"] == "failed"]
    lines = [f"{test}  # {reason}" for test, reason in zip(failing, REASONS, strict=False)]
    (directory / "baseline.txt").write_text(
        "# FarthestLayerWins: known departures\n" + "\n".join([*lines, STALE_ENTRY]) + "\n",
        encoding="utf-8",
    )
    run(directory, ENTRY, "FarthestLayerWins-gated.json", "--expected-failures", "baseline.txt")
    run(directory, ENTRY, "FarthestLayerWins-last-release.json", "--skip-case", SKIPPED_BEFORE)
    return {
        "default": ["reference.json", "FarthestLayerWins.json", "LastListenerOutermost.json"],
        "baseline": ["reference.json", "FarthestLayerWins-gated.json"],
        "comparison": [
            "--compare",
            "FarthestLayerWins-last-release.json",
            "FarthestLayerWins.json",
        ],
    }


def make_page(directory: Path, arguments: list[str]) -> str:
    """The page ``dsh-conformance summary ARGUMENTS --format html`` writes, run in ``directory``."""
    command = [sys.executable, "-m", "dsh_conformance.run.runner", "summary", *arguments]
    completed = subprocess.run(
        [*command, "--format", "html", "-o", "page.html"],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode in (0, 1), completed.stderr
    return (directory / "page.html").read_text(encoding="utf-8")


def screenshots(outdir: Path) -> list[Path]:
    """The three views in Chromium, as PNGs in ``outdir`` (the runs are made there too)."""
    from playwright.sync_api import sync_playwright

    outdir.mkdir(parents=True, exist_ok=True)
    views = make_runs(outdir)
    written = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--disable-background-networking", "--disable-component-update", "--no-sandbox"],
        )
        for name, arguments in views.items():
            html = outdir / f"summary-{name}.html"
            html.write_text(make_page(outdir, arguments), encoding="utf-8")
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
