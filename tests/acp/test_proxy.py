"""The real proxy, as a subprocess around a fake agent replaying recorded traffic.

The client side writes its whole transcript at once (a pipelining client), so
the observer also sees the two directions interleaved differently from the
recording; the events must come out the same.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from roombot.env_names import API_TOKEN, RETIRED
from roombot.events import parse_event
from roombot.node_name import node_name
from tests.acp.test_observer import observe
from tests.acp.transcript import (
    FAKE_AGENT,
    ROOT,
    TRANSCRIPTS,
    agent_bytes,
    client_bytes,
    load,
    run_proxy,
    without_at,
)

NAMES = [
    "end_turn",
    "prompt_rejected",
    "error_as_answer",
    "dies_mid_turn",
    "malformed",
    "models",
]


@pytest.mark.parametrize("name", NAMES)
def test_every_byte_passes_both_ways_and_the_events_match_the_recording(
    name: str, tmp_path: Path
) -> None:
    recorded = load(name)
    run = run_proxy(
        TRANSCRIPTS / f"{name}.acp", tmp_path, "--room", "!team:example.org", "--run-id", "r1"
    )
    assert run.received == client_bytes(recorded)
    assert run.stdout == agent_bytes(recorded)
    for ev in run.events:
        parse_event(ev)
    # the same traffic, fed in recorded order; the proxy names the node by its host name
    expected = observe(name, node=node_name())
    if name == "dies_mid_turn":
        # the real stderr tail, not the unit test's stand-in
        assert "Error: socket hang up" in run.events[-1]["error"]["exit"]["stderr"]
        run.events[-1]["error"]["exit"]["stderr"] = expected[-1]["error"]["exit"]["stderr"]
    assert without_at(run.events) == without_at(expected)


def test_the_room_message_rides_along_and_a_garbled_one_is_one_line_on_stderr(
    tmp_path: Path,
) -> None:
    run = run_proxy(TRANSCRIPTS / "room_message.acp", tmp_path)
    assert run.received == client_bytes(load("room_message"))  # _meta reaches the agent
    started = [ev for ev in run.events if ev["type"] == "turn.started"]
    assert [(ev.get("trigger"), ev.get("thread")) for ev in started] == [
        (
            "$Rqnc-F-dvnEYJTyHq_iKxU2bZ1CI92-kuZq3a5lr5Zg",
            "$Bt5kWq0yT2m9QfXn1cLr8sVdHa3eJzPuYo6iKlMgNbE",
        ),
        ("$Wm3xQ7pLc0aN5eRt9yUi2oKj4hGf6dSz8vBn1MqXwEr", None),
        (None, None),
    ]
    assert [ev.get("error", {}).get("acp", {}).get("code") for ev in run.events[-3:]] == [
        None,
        -32603,
        None,
    ]
    # The same as the observer fed in recorded order, but for the order across turns
    # (the pipelining client sends every prompt before the first answer).
    expected = observe("room_message", node=node_name())
    assert sorted(without_at(run.events), key=lambda ev: ev["event_id"]) == sorted(
        without_at(expected), key=lambda ev: ev["event_id"]
    )
    said = [line for line in run.stderr.decode().splitlines() if "dev.roombot" in line]
    assert said == [
        'roombot acp-proxy: session/prompt 3: _meta["dev.roombot"]: dropped '
        'thread (not a Matrix event id: "$Bt5k Wq0y")'
    ]


def test_harness_dying_mid_turn_forwards_its_status_and_stderr(tmp_path: Path) -> None:
    run = run_proxy(TRANSCRIPTS / "dies_mid_turn.acp", tmp_path)
    assert run.status == 3
    assert b"TLSSocket.socketOnEnd" in run.stderr  # stderr passed through
    exited = run.events[-1]
    assert exited["type"] == "harness.exited"
    assert exited["error"]["exit"]["code"] == 3
    assert exited["error"]["exit"]["stderr"].startswith("node:internal/process/promises:391\n")


def test_a_harness_killed_by_a_signal_exits_128_plus_n(tmp_path: Path) -> None:
    script = tmp_path / "killed.acp"
    lines = (TRANSCRIPTS / "dies_mid_turn.acp").read_text().replace("exit 3", "signal 9")
    script.write_text(lines)
    run = run_proxy(script, tmp_path)
    assert run.status == 128 + signal.SIGKILL
    assert run.events[-1]["error"]["exit"]["code"] == 128 + signal.SIGKILL


def test_huge_messages_pass_untouched_and_are_still_observed(tmp_path: Path) -> None:
    big = "x" * (24 * 1024 * 1024)
    prompt = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "session/prompt",
        "params": {"sessionId": "s", "prompt": [{"type": "text", "text": big}]},
    }
    chunk = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": big},
            },
        },
    }
    lines = [
        "> " + json.dumps({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {}}),
        "< " + json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s"}}),
        "> " + json.dumps(prompt),
        "< " + json.dumps(chunk),
        "< " + json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}),
    ]
    script = tmp_path / "huge.acp"
    script.write_text("\n".join(lines) + "\n")
    run = run_proxy(script, tmp_path, timeout=120)
    assert run.status == 0
    assert run.received == client_bytes(load_path(script))
    assert run.stdout == agent_bytes(load_path(script))
    types = [ev["type"] for ev in run.events]
    assert types == ["turn.started", "turn.output", "turn.ended"]
    assert len(run.events[1]["text"]) == 64 * 1024  # answer text capped per turn


def load_path(path: Path) -> list[tuple[str, bytes]]:
    from tests.acp.fake_agent import steps

    return steps(str(path))


def test_binary_garbage_without_newlines_passes_untouched(tmp_path: Path) -> None:
    garbage = bytes(range(256)).replace(b"\n", b"") * 4096  # ~1 MB, no line end at all
    b64 = base64.b64encode(garbage).decode()
    script = tmp_path / "garbage.acp"
    script.write_text(f">b {b64}\n<b {b64}\n")
    run = run_proxy(script, tmp_path)
    assert run.status == 0
    assert run.received == garbage
    assert run.stdout == garbage
    assert run.events == []


def test_client_closing_stdin_mid_turn_lets_the_agent_finish(tmp_path: Path) -> None:
    recorded = load("end_turn")
    # the client sends everything up to its prompt, then closes its end
    sent = client_bytes(recorded)
    upto = sent.index(b'"method":"session/prompt"')
    upto = sent.index(b"\n", upto) + 1
    run = run_proxy(TRANSCRIPTS / "end_turn.acp", tmp_path, stdin=sent[:upto] + b"")
    assert run.status == 0
    assert run.received == sent[:upto]
    assert run.events[0]["type"] == "turn.started"


def test_a_command_that_cannot_start_exits_127(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    cmd = [
        sys.executable,
        "-m",
        "roombot.cli",
        "acp-proxy",
        "--room",
        "!r:x",
        "--events",
        str(events),
        "--",
        str(tmp_path / "no-such-agent"),
    ]
    proc = subprocess.run(
        cmd, input=b"", capture_output=True, timeout=30, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    assert proc.returncode == 127
    assert b"cannot run" in proc.stderr and b"no-such-agent" in proc.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--events", "E"], b"no room"),
        (["--room", "!r:x", "--events", "/nonexistent/dir/e.jsonl"], b"--events: cannot write"),
        (
            ["--room", "!r:x", "--url", "http://127.0.0.1:9"],
            b"--token-file F or $ROOMBOT_API_TOKEN",
        ),
        (
            ["--room", "!r:x", "--url", "http://127.0.0.1:9", "--token-file", "/dev/null"],
            b"--token-file: /dev/null is empty",
        ),
        (
            [
                "--room",
                "!r:x",
                "--url",
                "http://127.0.0.1:9",
                "--token-file",
                "TOKEN",
                "--spool",
                "/proc/nope/spool.sqlite",
            ],
            b"--spool: cannot use",
        ),
        (["--room", "!r:x", "--events", "E", "--"], b"no agent command"),
    ],
)
def test_bad_options_exit_2_naming_what_is_wrong(
    args: list[str], says: bytes, tmp_path: Path
) -> None:
    (tmp_path / "token").write_text("a-token-of-some-length")
    names = {"E": str(tmp_path / "e.jsonl"), "TOKEN": str(tmp_path / "token")}
    args = [names.get(a, a) for a in args]
    if "--" not in args:
        args += ["--", sys.executable, str(FAKE_AGENT), "/dev/null", "/dev/null"]
    proc = subprocess.run(
        [sys.executable, "-m", "roombot.cli", "acp-proxy", *args],
        input=b"",
        capture_output=True,
        timeout=30,
        env={
            **{k: v for k, v in os.environ.items() if k not in (API_TOKEN, *RETIRED)},
            "PYTHONPATH": str(ROOT),
        },
    )
    assert proc.returncode == 2, proc.stderr
    assert says in proc.stderr


def test_an_observer_that_cannot_keep_up_never_slows_or_breaks_the_relay(tmp_path: Path) -> None:
    # A buffer too small for any copy: the observer sees nothing, the relay is whole.
    recorded = load("end_turn")
    run = run_proxy(
        TRANSCRIPTS / "end_turn.acp", tmp_path, "--room", "!r:x", "--observe-buffer", "8"
    )
    assert run.status == 0
    assert run.received == client_bytes(recorded)
    assert run.stdout == agent_bytes(recorded)
    assert run.events == []
    assert b"observer fell behind; copies dropped" in run.stderr


def test_an_observer_that_dies_never_breaks_the_relay(tmp_path: Path) -> None:
    recorded = load("end_turn")
    run = run_proxy(
        TRANSCRIPTS / "end_turn.acp", tmp_path, "--room", "!r:x", "--events", "/dev/full"
    )  # every write fails: the observer crashes
    assert run.status == 0
    assert run.received == client_bytes(recorded)
    assert run.stdout == agent_bytes(recorded)
    assert b"the observer stopped" in run.stderr


def test_an_observer_that_falls_behind_misses_only_what_was_dropped(tmp_path: Path) -> None:
    # A 1 MB chunk does not fit a 16 KiB buffer: its copies are dropped; the
    # answer that follows is seen again, and the turn still ends.
    big = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "y" * 2**20},
            },
        },
    }
    lines = [
        "> " + json.dumps({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {}}),
        "< " + json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s"}}),
        "> "
        + json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/prompt",
                "params": {"sessionId": "s", "prompt": []},
            }
        ),
        "sleep 0.3",
        "< " + json.dumps(big),
        "sleep 0.3",
        "< " + json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}),
    ]
    script = tmp_path / "behind.acp"
    script.write_text("\n".join(lines) + "\n")
    run = run_proxy(script, tmp_path, "--room", "!r:x", "--observe-buffer", "16384")
    assert run.status == 0
    assert run.stdout == agent_bytes(load_path(script))
    assert [(ev["type"], ev.get("stop_reason")) for ev in run.events] == [
        ("turn.started", None),
        ("turn.ended", "end_turn"),
    ]
    assert b"observer fell behind; copies dropped" in run.stderr


def test_roombot_replay_reads_what_the_proxy_wrote(tmp_path: Path) -> None:
    events = tmp_path / "all.jsonl"
    for name in ("prompt_rejected", "end_turn", "dies_mid_turn"):
        run = run_proxy(
            TRANSCRIPTS / f"{name}.acp", tmp_path, "--room", "!r:x", "--events", str(events)
        )
        assert run.stdout == agent_bytes(load(name))
    proc = subprocess.run(
        [sys.executable, "-m", "roombot.cli", "replay", str(events)],
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    posted = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    cards = {p["turn"]: p["card"] for p in posted}
    # one card per failed turn; the answered turn has none
    assert set(cards) == {"acp/sess-7d1/2", "acp/pi-1/2"}
    assert cards["acp/pi-1/2"]["kind"] == "harness_exited"
    assert "50 requests per minute" in cards["acp/sess-7d1/2"]["message"]
