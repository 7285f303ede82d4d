"""The table writer keeps what others appended after the lab's own sections."""

from __future__ import annotations

from pathlib import Path

from lab import report
from lab.run import Row


def test_write_keeps_appended_sections(tmp_path: Path) -> None:
    path = tmp_path / "harnesses.md"
    row = Row("codex", "npm x", "quota", wire="rejected", wire_text="exceeded | retry <limit>")
    first = report.markdown([row], 1.0)
    assert "exceeded \\| retry &lt;limit>" in first  # a cell never breaks the table or the page
    path.write_text(first + "\n## After the reporters\n\ntheir table\n", encoding="utf-8")
    row.wire = "dropped"
    report.write(path, report.markdown([row], 2.0))
    text = path.read_text(encoding="utf-8")
    assert "dropped (turn ended, no answer, no error)" in text
    assert "| prompt rejected with text |" not in text
    assert text.endswith("## After the reporters\n\ntheir table\n")
    assert text.count("## Versions not used") == 1


def test_write_fresh_file(tmp_path: Path) -> None:
    path = tmp_path / "new.md"
    report.write(path, "# t\n")
    assert path.read_text(encoding="utf-8") == "# t\n"
