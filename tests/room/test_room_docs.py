"""docs/room.md prints the room stage's three tables: held to the code, row by row."""

from __future__ import annotations

from pathlib import Path

from roombot.room import INHIBITIONS, REACTIONS, ROUTES

DOC = Path(__file__).resolve().parents[2] / "docs" / "room.md"


def _rows(header: str) -> list[list[str]]:
    lines = DOC.read_text().splitlines()
    start = lines.index(header)
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def test_the_routes_table_is_the_code() -> None:
    rows = _rows("| situation | where the turn's own card goes | the group |")
    assert rows == [[f"`{s}`", r.where.value, r.group.value] for s, r in ROUTES.items()]


def test_the_reactions_table_is_the_code() -> None:
    rows = _rows("| moment | reaction put on the trigger | 👀 taken back |")
    assert rows == [
        [m.value, emoji or "—", "yes" if back else "no"] for m, (emoji, back) in REACTIONS.items()
    ]


def test_the_inhibition_table_is_the_code() -> None:
    rows = _rows("| open card | folds | when equal |")
    assert rows == [
        [f"`{i.source}`", ", ".join(f"`{k}`" for k in sorted(i.targets)), ", ".join(i.equal)]
        for i in INHIBITIONS
    ]
