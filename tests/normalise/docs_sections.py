"""The generated sections of docs/kinds-by-provider.md: the cause phrases and the figures.

    .venv/bin/python -m tests.normalise.docs_sections     rewrite both sections

tests/normalise/test_docs.py checks the page holds exactly what this writes, so the
page cannot drift from the tables (roombot/normalise/causes.py) or the corpus.
"""

from __future__ import annotations

import re
from pathlib import Path

from roombot.normalise.causes import CAUSES, EXCEPTIONS, WEAK, WORDS
from roombot.normalise.patterns import alternatives
from roombot.normalise.rules import Rule
from tests.normalise import accuracy

DOCS = Path(__file__).resolve().parents[2] / "docs" / "kinds-by-provider.md"


def _when(r: Rule) -> str:
    parts = []
    if r.min_retry is not None:
        parts.append(f"retry-after >= {r.min_retry} s")
    if r.max_retry is not None:
        parts.append(f"retry-after <= {r.max_retry} s")
    return f" (only with {' and '.join(parts)})" if parts else ""


def _phrase_table(rules: tuple[Rule, ...]) -> list[str]:
    out = [
        "| # | kind | phrases (each a regular expression; any one holds) | example |",
        "|---|---|---|---|",
    ]
    for n, r in enumerate(rules, 1):
        assert r.message is not None
        phrases = " · ".join(
            "`" + a.replace("|", "\\|") + "`" for a in alternatives(r.message.pattern)
        )
        out.append(f"| {n} | {r.kind.value} | {phrases}{_when(r)} | `{r.example}` |")
    return out


def causes_section() -> str:
    out = [
        "Searched in the provider's sentence, then in the whole text (URLs reduced to their",
        "host, stack frames dropped), case-insensitive; the first rule that holds decides.",
        "",
        *_phrase_table(CAUSES),
        "",
        "Request words (after the status), searched the same way:",
        "",
        *_phrase_table(WEAK),
        "",
        "Cause words (the last tier, where nothing else decided): each kind counts the",
        "different words of its own in the whole text; the one kind with the most decides,",
        "of two tied the one higher in this table, and three or more tied stay unknown.",
        "",
        *_phrase_table(WORDS),
    ]
    out += [
        "",
        "Exception classes (the fifth tier), tried in this order:",
        "",
        "| kind | classes | example |",
        "|---|---|---|",
    ]
    for r in EXCEPTIONS:
        names = ", ".join(f"`{c}`" for c in sorted(r.code))
        out.append(f"| {r.kind.value} | {names} | `{r.example}` |")
    return "\n".join(out)


SECTIONS = {
    "causes": causes_section,
    "accuracy": lambda: accuracy.figures_text(),
}


def _markers(name: str) -> tuple[str, str]:
    return (
        f"<!-- {name}: written by tests/normalise/docs_sections.py -->",
        f"<!-- end of {name} -->",
    )


def section_in_page(page: str, name: str) -> str | None:
    begin, end = _markers(name)
    m = re.search(re.escape(begin) + r"\n\n(.*?)\n\n" + re.escape(end), page, flags=re.S)
    return m.group(1) if m else None


def write() -> None:
    page = DOCS.read_text()
    for name, make in SECTIONS.items():
        begin, end = _markers(name)
        block = f"{begin}\n\n{make()}\n\n{end}"
        if begin in page:
            head, rest = page.split(begin, 1)
            page = head + block + rest.split(end, 1)[1]
        else:
            page = page.rstrip("\n") + "\n\n" + block + "\n"
    DOCS.write_text(page)


if __name__ == "__main__":
    write()
