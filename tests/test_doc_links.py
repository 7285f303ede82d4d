"""The docs stand alone: every file README.md and docs/*.md point to is in the repository.

Three kinds of reference are checked, because the docs use all three:
- a Markdown link `[text](target)` (outside code), resolved from the page's own folder,
  as a Markdown viewer resolves it; a URL with a scheme and a bare #anchor are not files;
- a page named in prose or in code, `something.md`, resolved from the repository root
  (the docs' convention: "docs/delivery.md") or from the page's folder;
- a repository path in prose or in code, `roombot/...`, `docs/...` and the other
  top-level folders, resolved from the repository root.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^```.*?^```", re.M | re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
_PAGE = re.compile(r"(?<![\w/.-])((?:\.\./|[\w.-]+/)*[\w-]+\.md)\b")
_PATH = re.compile(r"(?<![\w/.-])((?:cards|roombot|docs|tests|reporters|lab|bench)/[\w./-]*[\w/])")
# Paths the docs name that are made, not shipped: `make harnesses` creates the first; the
# second stands for any benchmark (NAME is the placeholder).
_MADE = {"lab/.harnesses/", "bench/bench_NAME.py"}


def _in_repo(path: Path, root: Path) -> bool:
    # a path that leaves the checkout (../shared/...) is not there for a reader of the repo
    return path.resolve().is_relative_to(root.resolve()) and path.exists()


def _links(text: str) -> list[str]:
    prose = _CODE_SPAN.sub("", _FENCE.sub("", text))
    return [t for t in _LINK.findall(prose) if not re.match(r"[a-z][a-z+.-]*:|#", t)]


def _missing(page: Path, root: Path = ROOT) -> list[str]:
    text = page.read_text(encoding="utf-8")
    here = page.parent
    out = [f"link {t}" for t in _links(text) if not _in_repo(here / t.split("#")[0], root)]
    named = _LINK.sub("", text)  # a link's text is its target's name, checked above
    for ref in _PAGE.findall(named):
        if not any(_in_repo(base / ref, root) for base in (root, here)):
            out.append(f"page {ref}")
    for ref in _PATH.findall(named):
        if ref not in _MADE and not _in_repo(root / ref, root):
            out.append(f"path {ref}")
    return out


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_reference_of_the_page_is_in_the_repository(page: Path) -> None:
    assert _missing(page) == []


def test_the_checks_find_what_is_missing(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    page = root / "docs" / "page.md"
    page.parent.mkdir(parents=True)
    (root / "docs" / "design.md").write_text("")
    (tmp_path / "outside.md").write_text("")
    page.write_text(
        "Found: [the design](design.md), docs/design.md, `docs/design.md`, design.md.\n"
        "Not: [gone](gone.md#part), DESIGN.md, `docs/nowhere.md`, roombot/nothing.py.\n"
        "Outside the repository: `../../outside.md`, [up](../../outside.md).\n"
        "Not files: [a site](https://example.org), [here](#top), `x[i](j)` in code.\n"
    )
    assert _missing(page, root) == [
        "link gone.md#part",
        "link ../../outside.md",
        "page DESIGN.md",
        "page docs/nowhere.md",
        "page ../../outside.md",
        "path docs/nowhere.md",
        "path roombot/nothing.py",
    ]
