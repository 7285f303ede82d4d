"""`roombot render`: every form from a file, stdin or an event content; bad input exits 2."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cards.codec import CARD_KEY, read_payload, to_payload
from cards.kinds import Kind
from cards.notice import CONTENT_BUDGET, build_notice
from cards.render import render_matrix_html, render_plain
from cards.shape import Attempt, TurnError
from roombot.cli import main
from tests.cards.htmlcheck import check_matrix_html, check_page

ERR = TurnError(
    Kind.AUTH,
    "invalid x-api-key <script>",
    "claude-code",
    "anthropic",
    "claude-opus-4-1",
    attempts=(Attempt(Kind.AUTH, "invalid x-api-key <script>", "anthropic", status=401),),
)


def run(
    argv: list[str], capsys: pytest.CaptureFixture[str], stdin: bytes = b""
) -> tuple[int, str, str]:
    sys_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        code = main(["render", *argv])
    finally:
        sys.stdin = sys_stdin
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def card_file(tmp_path: Path) -> Path:
    path = tmp_path / "card.json"
    path.write_text(json.dumps(to_payload(ERR)), encoding="utf-8")
    return path


def test_plain_from_a_file(card_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([str(card_file)], capsys)
    assert (code, err) == (0, "")
    assert out == render_plain(ERR) + "\n"


def test_matrix_html_from_stdin(card_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--matrix-html", "-"], capsys, card_file.read_bytes())
    assert code == 0 and out == render_matrix_html(ERR) + "\n"
    check_matrix_html(out)


def test_page(card_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--html", str(card_file)], capsys)
    assert code == 0 and out.startswith("<!DOCTYPE html>")
    assert "invalid x-api-key <script>" in check_page(out).data


def test_content(card_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--content", str(card_file)], capsys)
    content = json.loads(out)
    assert code == 0 and content == build_notice(ERR).content
    assert read_payload(content[CARD_KEY]) == ERR
    assert len(json.dumps(content).encode()) <= CONTENT_BUDGET


def test_an_event_content_is_read_for_its_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(build_notice(ERR).content), encoding="utf-8")
    code, out, _ = run([str(path)], capsys)
    assert code == 0 and out == render_plain(ERR) + "\n"


def test_all_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "out" / "cards.html"
    code, out, _ = run(["--all-examples", "--out", str(page)], capsys)
    assert code == 0
    assert str(page) in out
    parsed = check_page(page.read_text(encoding="utf-8"))
    assert parsed.tags.count("article") >= len(Kind)
    for kind in Kind:
        assert kind.label in out


def _bad(tmp_path: Path, raw: bytes) -> Path:
    path = tmp_path / "bad.json"
    path.write_bytes(raw)
    return path


@pytest.mark.parametrize(
    ("raw", "names"),
    [
        (b"not json", "JSON"),
        (b"", "JSON"),
        (b"[" * 10_000 + b"]" * 10_000, "JSON"),
        (b'{"x": 1}', "type"),
        (json.dumps({**to_payload(ERR), "kind": 5}).encode(), "kind"),
        (json.dumps({**to_payload(ERR), "retry_after": 1.5}).encode(), "retry_after"),
        (json.dumps({"body": "hi", CARD_KEY: {"type": "turn_error"}}).encode(), CARD_KEY),
        (b"\xff\xfe", "JSON"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], raw: bytes, names: str
) -> None:
    code, out, err = run([str(_bad(tmp_path, raw))], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("roombot render: ")
    assert names in err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([str(tmp_path / "absent.json")], capsys)
    assert code == 2 and err.count("\n") == 1 and "absent.json" in err


def test_the_installed_command(card_file: Path, tmp_path: Path) -> None:
    """The real entry point, as a user runs it: stdout, stderr and the exit status."""
    exe = Path(sys.executable).with_name("roombot")
    ok = subprocess.run([exe, "render", str(card_file)], capture_output=True, timeout=60)
    assert ok.returncode == 0 and ok.stdout.decode() == render_plain(ERR) + "\n"
    hostile: dict[str, Any] = {**to_payload(ERR), "message": "\x1b]0;pwned\x07\x1b[2J"}
    bad = subprocess.run(
        [exe, "render", "-"], input=json.dumps(hostile).encode(), capture_output=True, timeout=60
    )
    assert bad.returncode == 0 and b"\x1b" not in bad.stdout  # no escape reaches the terminal
    worse = subprocess.run(
        [exe, "render", "-"], input=b'{"type": "turn_error"}', capture_output=True, timeout=60
    )
    assert worse.returncode == 2 and worse.stdout == b""
    assert worse.stderr.decode().count("\n") == 1


def test_content_of_a_card_with_a_bogus_file_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    payload = {**to_payload(ERR), "message_file": "x" * 100_000}
    code, out, err = run(["--content", str(_bad(tmp_path, json.dumps(payload).encode()))], capsys)
    assert code == 0 and err == ""
    content = json.loads(out)
    assert len(json.dumps(content).encode()) <= CONTENT_BUDGET
