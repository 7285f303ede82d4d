"""The README is a newcomer's first page: its kinds table must be the code's kinds."""

from __future__ import annotations

from pathlib import Path

from cards.kinds import Kind
from roombot.cli import COMMANDS

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def _kind_rows() -> dict[str, tuple[str, str]]:
    rows = {}
    for line in README.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`") and cells[0].strip("`") in set(Kind):
            rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows


def test_every_kind_is_in_the_readme_table_with_its_label_and_meaning() -> None:
    rows = _kind_rows()
    assert set(rows) == {k.value for k in Kind}
    for kind in Kind:
        assert rows[kind.value] == (kind.label, kind.meaning)


def test_every_command_is_in_the_readme() -> None:
    for name in COMMANDS:
        assert f"`roombot {name}" in README, name
