"""The documentation site: `mkdocs build --strict` passes, and the pages it generates hold what
the requirement catalog holds; in Chromium, a reader goes from a contract to a case and back.

The build is the one CI runs (a broken link, a missing anchor or a missing page fails it). It runs
the suite on a small selection for the summary page's example and takes its screenshot in
Chromium, so it takes about ten seconds of CPU: marked `slow`. The browser test is marked
`browser` too, and drives Debian's Chromium as the summary page's test does; its screenshots go
to `$DSH_TEST_ARTIFACTS` (or pytest's base temporary directory).
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh_conformance.judge.case import CONTRACT_IDS
from dsh_conformance.requirements import catalog

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[2]
CONTRACT = "PROMPT-STRICT-RENDER"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = tmp_path_factory.mktemp("site") / "site"
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(built)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    return built


def test_every_contract_has_a_page_with_each_requirement(site: Path) -> None:
    for contract in CONTRACT_IDS:
        page = (site / "contracts" / f"{contract}.html").read_text()
        # The page's text as a reader sees it: no markup, entities read, spaces collapsed.
        shown = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
        for requirement in catalog().values():
            if requirement.contract == contract:
                assert f'id="req-{requirement.number}"' in page, requirement.id
                assert requirement.id in shown
                # The rule's words, or why nothing checks it.
                words = requirement.text if requirement.checked else requirement.unchecked
                assert " ".join(words.replace("`", "").split())[:60] in shown, requirement.id


def test_every_case_link_of_a_contract_page_reaches_its_case(site: Path) -> None:
    page = (site / "contracts" / f"{CONTRACT}.html").read_text()
    links = set(re.findall(r'href="\.\./cases/([a-z-]+\.html)#(case-[a-z0-9-]+)"', page))
    assert links
    for file, anchor in links:
        assert f'id="{anchor}"' in (site / "cases" / file).read_text(), (file, anchor)


def test_the_guide_includes_the_example_harness_as_it_is(site: Path) -> None:
    page = html.unescape(re.sub(r"<[^>]+>", "", (site / "harness" / "example.html").read_text()))
    source = (ROOT / "examples" / "node-harness" / "render.mjs").read_text()
    assert all(line.strip() in page for line in source.splitlines() if line.strip())


def test_the_summary_page_example_comes_from_a_real_run(site: Path) -> None:
    example = (site / "guide" / "summary-example.html").read_text()
    assert "wrong_impls:CodePointToolOrder" in example and "DOES NOT CONFORM" in example
    shown = (site / "guide" / "summary.html").read_text()
    if shutil.which("chromium"):
        assert (site / "guide" / "summary-example.png").stat().st_size > 10_000
        assert 'src="summary-example.png"' in shown
    else:
        assert "No screenshot" in shown


@pytest.mark.browser
def test_a_reader_goes_from_a_contract_to_a_case_and_back(
    site: Path, browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    artifacts = Path(os.environ.get("DSH_TEST_ARTIFACTS") or tmp_path_factory.getbasetemp())
    artifacts.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto((site / "index.html").as_uri())
        assert page.locator("h1").first.inner_text().startswith("dsh-prompt-conformance")
        page.screenshot(path=str(artifacts / "docs-home.png"))

        page.goto((site / "contracts" / f"{CONTRACT}.html").as_uri())
        first = catalog()[f"{CONTRACT}.1"]
        page.get_by_text(first.text).first.wait_for(state="visible")
        page.screenshot(path=str(artifacts / "docs-contract.png"))
        case = first.cases[0]
        page.locator(f"#req-1 ~ p a:has-text('{case}')").first.click()
        page.wait_for_url(f"**/cases/render.html#case-render--{case.split('/')[1]}")
        page.locator(f"h2:has-text('{case}')").wait_for(state="visible")
        page.screenshot(path=str(artifacts / "docs-case.png"))
        page.get_by_role("link", name=f"{CONTRACT}.1", exact=True).first.click()
        page.wait_for_url(f"**/contracts/{CONTRACT}.html#req-1")

        page.goto((site / "harness" / "index.html").as_uri())
        assert page.locator("h1").first.inner_text().startswith("Writing a harness")
        assert page.locator("pre code:has-text('capabilities: [\"registry\"]')").count() == 1
        page.screenshot(path=str(artifacts / "docs-harness.png"))
        page.locator("a[href$='#case-registry--builtin-sections-by-default']").first.click()
        page.wait_for_url("**/cases/registry.html#case-registry--builtin-sections-by-default")
        page.locator("h2:has-text('registry/builtin-sections-by-default')").wait_for(
            state="visible"
        )
    finally:
        page.close()
