"""MkDocs hook: the summary page's example, made from a real run when the site is built.

The suite runs on a small selection (the example cases of PROMPT-STRICT-RENDER and
PROMPT-TOOL-ORDER) against three implementations: the reference, the JavaScript example harness of
`examples/node-harness/` and a wrong implementation of the gallery that sorts tool names by code
point. `dsh-conformance summary --format html` renders the report, which the site carries as
`guide/summary-example.html`; with Debian's Chromium present, Playwright opens it (the page opens
with the verdict and the failing tests), opens a failing cell and takes the screenshot the guide
shows (`guide/summary-example.png`). Without Chromium (or Node) the guide says so instead of showing
a picture, and the build still passes; CI has both (`DSH_REQUIRE_BROWSER=1` makes their absence an
error). Nothing is drawn by hand, and nothing is written into the source tree. The run is made once
per process: `mkdocs serve` rebuilds a page without running the suite again.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[2]
PAGE = "guide/summary.md"
MARKER = "<!-- summary-screenshot -->"
HTML = "guide/summary-example.html"
PNG = "guide/summary-example.png"
#: The three implementations: a gallery entry is loaded from tests/gallery (a checkout's).
WRONG = "wrong_impls:CodePointToolOrder"
NODE_HARNESS = "examples/node-harness/harness.mjs"  # run from the checkout's root
#: The example cases of two contracts: the hand-worked cases, each with the rule it checks, which is
#: what a failing cell shows. Their property tests are left out: against the wrong implementation
#: they fail only after dozens of generated examples and their shrinking (20 s of the build), and
#: with fewer examples they would pass it, which the page would then show.
SELECTION = (
    *("--contract", "PROMPT-STRICT-RENDER", "--contract", "PROMPT-TOOL-ORDER"),
    *("-k", "test_example"),
)

_made: dict[str, bytes] = {}
_missing: list[str] = []


def _run(
    arguments: list[str], env: dict[str, str], cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dsh_conformance.run.runner", *arguments],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _page(directory: Path) -> Path:
    """Run the selection and render its summary page; the page's path."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "gallery")]),
    }
    impls = ["--impl", "reference", "--impl", WRONG]
    if shutil.which("node") is not None:
        impls += ["--impl", f"node {NODE_HARNESS}"]
    else:
        _missing.append("Node (the example harness's column)")
    report = directory / "report.json"
    run = _run([*impls, *SELECTION, "--conformance-json", str(report)], env)
    if not report.is_file():
        raise RuntimeError(f"the summary example's run wrote no report:\n{run.stdout}{run.stderr}")
    page = directory / "summary.html"
    # Run where the files are, so that the page's "made by" line names them without a path.
    made = _run(["summary", report.name, "--format", "html", "-o", page.name], env, directory)
    if made.returncode != 0:
        raise RuntimeError(f"summary failed:\n{made.stdout}{made.stderr}")
    return page


def _screenshot(page: Path, target: Path) -> bool:
    """The page in headless Chromium, as it opens, with a failing cell open."""
    chromium = shutil.which("chromium")
    if chromium is None:
        return False
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # the `docs` extra alone: no Playwright (the `test` extra has it)
        return False

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            view = browser.new_page(viewport={"width": 1280, "height": 900})
            view.goto(page.as_uri())
            view.locator("#problems td.o-failed summary").first.click()
            view.screenshot(path=str(target))
        finally:
            browser.close()
    return True


def on_files(files: Files, config: MkDocsConfig) -> Files:
    if not _made:  # once per process: `mkdocs serve` rebuilds without running the suite again
        _make()
    for path, content in _made.items():
        files.append(File.generated(config, path, content=content))
    return files


def _make() -> None:
    with tempfile.TemporaryDirectory(prefix="dsh-docs-summary-") as name:
        directory = Path(name)
        page = _page(directory)
        _made[HTML] = page.read_bytes()
        if _screenshot(page, directory / "shot.png"):
            _made[PNG] = (directory / "shot.png").read_bytes()
        else:
            _missing.append("Chromium or Playwright (the screenshot)")
    if _missing and os.environ.get("DSH_REQUIRE_BROWSER"):
        raise RuntimeError(f"DSH_REQUIRE_BROWSER is set, and missing: {', '.join(_missing)}")


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    if PNG in _made:
        shown = f"[![The summary page of the example run]({PNG.rsplit('/', 1)[1]})]"
        shown += f"({HTML.rsplit('/', 1)[1]})"
    else:
        shown = f"*(No screenshot: {', '.join(_missing)} missing when this site was built.)*"
    return markdown.replace(MARKER, shown)
