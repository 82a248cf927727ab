"""MkDocs hook: files included from the repository's root, their links pointed at the site.

`docs/changelog.md` includes the repository's CHANGELOG.md, whose links are written from the
repository's root (`dsh_conformance/PROTOCOL.md`); on the site the same document is a page of its
own (`PROTOCOL.md`, which includes it). For such a page this hook does the include itself (the
snippets extension would do it after link rewriting is possible) and points each link at the page,
so that the file reads right in a checkout and `mkdocs build --strict` still checks every link.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

#: Repository files the site carries as pages (each page includes its file), by path from the root.
PAGES: Final = {
    "dsh_conformance/PROTOCOL.md": "PROTOCOL.md",
    "dsh_conformance/export/COMPARISON.md": "export/COMPARISON.md",
}
#: The pages that include a file written from the repository's root; they sit at docs/'s top.
FROM_ROOT: Final = ("changelog.md",)
_INCLUDE: Final = re.compile(r'^--8<-- "([^"]+)"$', re.MULTILINE)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri not in FROM_ROOT:
        return markdown
    root = Path(config.config_file_path).parent

    def included(match: re.Match[str]) -> str:
        text = (root / match.group(1)).read_text(encoding="utf-8")
        for path, target in PAGES.items():
            text = text.replace(f"]({path}", f"]({target}")
        return text

    return _INCLUDE.sub(included, markdown)
