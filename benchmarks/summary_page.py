"""The summary page's size and load time in Chromium (issue 20: under 2 MB, loaded in under 1 s).

Usage: ``python benchmarks/summary_page.py REPORT.json…`` (reports of real runs, e.g. the whole
suite against the reference and two gallery implementations). It builds the page as
``dsh-conformance summary --format html`` does, opens it in Debian's Chromium through Playwright,
and prints the best and worst of five loads (navigation to the load event) and the time "show
every passing test" takes to unfold every requirement, beside the floor: the same number of bytes
as one static ``<pre>`` page, no rows and no script.
"""

from __future__ import annotations

import sys
import tempfile
import time
from html import escape
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from dsh_conformance.run.merged import load
from dsh_conformance.run.page import page

LOADS = 5
QUIET = ["--disable-background-networking", "--disable-component-update", "--disable-sync"]


def load_times(view: Page, path: Path) -> list[float]:
    times = []
    for _ in range(LOADS):
        start = time.perf_counter()
        view.goto(path.as_uri(), wait_until="load")
        times.append(time.perf_counter() - start)
    return times


def main(reports: list[str]) -> None:
    html = page(load(reports), command=["dsh-conformance", "summary", *reports])
    floor = f"<!doctype html><pre>{escape('x' * len(html.encode()))}</pre>"
    with tempfile.TemporaryDirectory() as directory, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path="/usr/bin/chromium", args=QUIET)
        view = browser.new_page()
        paths = {"page": Path(directory, "page.html"), "floor": Path(directory, "floor.html")}
        paths["page"].write_text(html, encoding="utf-8")
        paths["floor"].write_text(floor, encoding="utf-8")
        floor_times = load_times(view, paths["floor"])
        page_times = load_times(view, paths["page"])
        start = time.perf_counter()
        view.check("#unfold-all")
        unfolding = time.perf_counter() - start
        rows = view.locator("#tests tr.case").count()
        browser.close()
    size = len(html.encode())
    print(f"page: {size / 1e6:.2f} MB, {rows} test rows, {len(reports)} report(s)")
    print(
        f"load: best {min(page_times) * 1e3:.0f} ms, worst {max(page_times) * 1e3:.0f} ms "
        f"(floor, a static page of the same size: best {min(floor_times) * 1e3:.0f} ms; ratio "
        f"{min(page_times) / min(floor_times):.1f})"
    )
    print(f"'show every passing test': {unfolding * 1e3:.0f} ms")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
