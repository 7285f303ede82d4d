"""`roombot replay`: JSON Lines in, one JSON line per decision out (run as a real process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOM = "!r:example.org"


def line(obj: dict[str, Any]) -> str:
    return json.dumps(obj)


def replay(stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "roombot", "replay", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


START = {
    "type": "turn.started",
    "room": ROOM,
    "harness": "codex",
    "provider": "openai",
    "model": "gpt-5",
}

STORY = "\n".join(
    [
        line({**START, "turn": "ok", "at": 100}),
        line({"type": "turn.output", "turn": "ok", "text": "Done.", "at": 101}),
        line({"type": "turn.ended", "turn": "ok", "stop_reason": "end_turn", "at": 102}),
        line({**START, "turn": "cut", "at": 103}),
        line({"type": "turn.output", "turn": "cut", "text": "Half an", "at": 104}),
        line({"type": "turn.ended", "turn": "cut", "stop_reason": "max_tokens", "at": 105}),
        line({**START, "turn": "back", "at": 106, "node": "n1"}),
        line({"type": "node.offline", "node": "n1", "at": 107}),
        line({"type": "turn.output", "turn": "back", "text": "Here.", "at": 108}),
        line({"type": "turn.ended", "turn": "back", "stop_reason": "end_turn", "at": 109}),
        line({**START, "turn": "silent", "at": 110}),
        line({"type": "turn.ended", "turn": "silent", "stop_reason": "end_turn", "at": 111}),
    ]
)


def test_replay_prints_one_line_per_decision_and_finishes_the_timers() -> None:
    done = replay(STORY + "\n", "--reporter", "codex=codex-notify")
    assert done.returncode == 0, done.stderr
    out = [json.loads(x) for x in done.stdout.splitlines()]
    assert [(o["turn"], "card" in o, o.get("retract")) for o in out] == [
        ("cut", True, None),
        ("back", True, None),
        ("back", False, True),
        ("silent", True, None),  # its grace period ran out at the end of input
    ]
    assert all(o["room"] == ROOM for o in out)
    cut, offline, _, silent = (o.get("card") for o in out)
    assert cut["type"] == "turn_error" and cut["v"] == 1
    assert (cut["kind"], cut["provider"], cut["model"]) == ("max_tokens", "openai", "gpt-5")
    assert offline["kind"] == "node_offline"
    assert silent["kind"] == "unknown" and "codex-notify" in silent["note"]
    assert silent["failed_at"] == 111000 and isinstance(silent["started_at"], int)


def test_replay_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(STORY, encoding="utf-8")
    done = replay("", str(path))
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 4


def test_a_bad_line_is_named_and_the_lines_before_it_still_count() -> None:
    stdin = "\n".join(
        [
            line({**START, "turn": "t", "at": 1}),
            line({"type": "turn.ended", "turn": "t", "error": {"text": "boom"}, "at": 2}),
            "",
            line({"type": "turn.ended", "turn": "u", "stop_reason": "finished"}),
            line({**START, "turn": "never", "at": 3}),
        ]
    )
    done = replay(stdin)
    assert done.returncode == 2
    assert "line 4: stop_reason: expected one of end_turn" in done.stderr
    out = [json.loads(x) for x in done.stdout.splitlines()]
    assert [o["turn"] for o in out] == ["t"]
    assert out[0]["card"]["message"] == "boom"


def test_not_json_is_named_with_its_line() -> None:
    done = replay(line({**START, "turn": "t", "at": 1}) + "\n{oops\n")
    assert done.returncode == 2
    assert "line 2: expected one JSON object" in done.stderr


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    done = replay("", str(tmp_path / "nope.jsonl"))
    assert done.returncode == 2 and "nope.jsonl" in done.stderr


def test_a_bad_reporter_option_is_a_clear_error() -> None:
    done = replay("", "--reporter", "codex")
    assert done.returncode == 2 and "HARNESS=REPORTER" in done.stderr
