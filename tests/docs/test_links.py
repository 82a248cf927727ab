"""Links into the documentation: the README's, and the pages the suite's help and errors name.

The README's relative links must exist and their anchors must name a heading of their file.
`dsh-conformance --help`, the subcommands' help and the errors that point at documentation name a
page by its title and its file under docs/ (`dsh_conformance.run.options.see`): each file must
exist.

The site's own links are checked by `mkdocs build --strict` (tests/docs/test_site.py); the README
is read on its own (a checkout, a repository's web view), so its links are checked here, with the
heading anchors such a view makes: lower case, punctuation dropped, each space a dash.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dsh_conformance.run.runner import main

ROOT = Path(__file__).parents[2]
README = ROOT / "README.md"
#: An inline Markdown link or image: `[text](target)`, the target without spaces.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")
#: The subcommands whose --help names a page.
SUBCOMMANDS_WITH_HELP = (
    "info",
    "smoke",
    "export-cases",
    "summary",
    "check-log",
    "fuzz",
    "run-case",
)


def prose(text: str) -> str:
    """The text outside fenced code blocks (a link-like string in code is no link)."""
    kept, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return "\n".join(kept)


def anchors(markdown: str) -> set[str]:
    """The ids a repository's web view gives the headings of a Markdown file."""
    found = set()
    for line in prose(markdown).splitlines():
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            title = heading.group(1).strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_anchors_follow_the_web_views_rule() -> None:
    assert anchors("## The `start` → `started` message\n") == {"the-start--started-message"}
    assert anchors("```\n# not a heading\n```\n## Real one\n") == {"real-one"}


def test_every_relative_link_of_the_readme_resolves() -> None:
    links = LINK.findall(prose(README.read_text(encoding="utf-8")))
    relative = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert len(relative) > 10
    problems = []
    for link in relative:
        path, _, anchor = link.partition("#")
        target = (README.parent / path).resolve() if path else README
        if not target.exists():
            problems.append(f"{link}: no such file")
        elif anchor and anchor not in anchors(target.read_text(encoding="utf-8")):
            problems.append(f"{link}: no heading with this anchor in {target.name}")
    assert not problems, problems


#: A documentation page as the suite names it: `'Title' (docs/<page>.md)`, or a bare docs/ path.
PAGE = re.compile(r"\bdocs/[\w/.-]+\.md\b")


def test_the_help_of_every_command_points_at_pages_that_exist(
    capsys: pytest.CaptureFixture[str],
) -> None:
    named = []
    for command in (["--help"], *([sub, "--help"] for sub in SUBCOMMANDS_WITH_HELP)):
        try:
            main(command)
        except SystemExit as done:  # argparse's own --help
            assert done.code == 0
        named += PAGE.findall(capsys.readouterr().out)
    assert len(set(named)) >= 6
    assert [page for page in named if not (ROOT / page).is_file()] == []


def test_every_page_the_suite_names_exists() -> None:
    named = {
        (source.relative_to(ROOT), page)
        for source in (ROOT / "dsh_conformance").rglob("*.py")
        for page in PAGE.findall(source.read_text(encoding="utf-8"))
    }
    assert named
    assert [(str(s), page) for s, page in named if not (ROOT / page).is_file()] == []


#: A section of the protocol as the code names it: `PROTOCOL.md, "Heading"` (or 'Heading').
PROTOCOL_SECTION = re.compile(r"""PROTOCOL\.md, (["'])(.+?)\1""")


def test_every_protocol_section_the_code_names_exists() -> None:
    protocol = (ROOT / "dsh_conformance" / "PROTOCOL.md").read_text(encoding="utf-8")
    headings = {
        match.group(1).replace("`", "").lower()
        for match in re.finditer(r"^#{1,6}\s+(.*?)\s*$", protocol, re.MULTILINE)
    }
    named = {
        (str(source.relative_to(ROOT)), match.group(2))
        for folder in ("dsh_conformance", "dsh_reference")
        for source in (ROOT / folder).rglob("*.*")
        if source.suffix in (".py", ".json")
        for match in PROTOCOL_SECTION.finditer(source.read_text(encoding="utf-8"))
    }
    assert len(named) > 5
    missing = [(s, name) for s, name in named if name.replace("`", "").lower() not in headings]
    assert missing == []
