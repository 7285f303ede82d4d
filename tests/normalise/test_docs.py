"""The docs name every rule, form and ironflow variant the code has."""

from __future__ import annotations

from pathlib import Path

from roombot.normalise.answers import FORMS
from roombot.normalise.engine import all_chains
from roombot.normalise.ironflow import VARIANTS
from tests.normalise.docs_sections import SECTIONS, section_in_page

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_kinds_by_provider_names_every_rule_and_form() -> None:
    text = (DOCS / "kinds-by-provider.md").read_text()
    for rules in all_chains().values():
        for r in rules:
            assert f"`{r.example}`" in text, r.example
    for f in FORMS:
        assert f"`{f.example}`" in text, f.example


def test_error_forms_has_every_ironflow_variant_with_its_kind_and_reason() -> None:
    text = (DOCS / "error-forms.md").read_text()
    for name, (kind, reason) in VARIANTS.items():
        row = next((line for line in text.splitlines() if line.startswith(f"| `{name}` |")), None)
        assert row is not None, name
        if kind is not None:
            assert f"| {kind.value} |" in row, name
        assert reason in row, name


def test_generated_sections_are_current() -> None:
    """The cause phrases and the wild figures on the page are what the code gives now."""
    page = (DOCS / "kinds-by-provider.md").read_text()
    for name, make in SECTIONS.items():
        assert section_in_page(page, name) == make(), (
            f"docs/kinds-by-provider.md: the {name} section is stale; "
            "rerun .venv/bin/python -m tests.normalise.docs_sections"
        )
