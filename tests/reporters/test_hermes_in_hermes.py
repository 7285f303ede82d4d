"""The Hermes reporter inside the real Hermes (lab/.harnesses/hermes, hermes-agent 0.19.0).

Switched on as an operator does (`roombot reporters enable hermes --apply` on a config.yaml
Hermes wrote itself), then Hermes's own interpreter discovers and loads its plugins with its
own PluginManager, and its hooks are fired through Hermes's `invoke_hook`, inside a gateway
session bound with Hermes's own `set_session_vars` (a Matrix room, its triggering event):
what reaches a report API on 127.0.0.1 is read back. The provider failures of a real run
are the lab's (tests/lab/test_reporters.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lab import setups
from tests.reporters.conftest import Scripted
from tests.reporters.test_hermes_reporter import TOKEN

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = Path(__file__).parent / "configs"
PYTHON = setups.HERMES_BIN / "python"

DRIVER = r"""
import json, sys
from hermes_cli.plugins import discover_plugins, get_plugin_manager, invoke_hook
from gateway.session_context import set_session_vars

discover_plugins()
mine = [p for p in get_plugin_manager().list_plugins() if p["name"] == "roombot-reporter"]
print(json.dumps(mine, default=str))
if not mine or not mine[0]["enabled"]:
    sys.exit(0)
set_session_vars(platform="matrix", chat_id="!gw:example.org", message_id="$trigger",
                 thread_id="$root", session_id="s1")
turn = "s1:task:0001"
common = dict(session_id="s1", turn_id=turn, task_id="task", model="lab-large",
              platform="matrix")
invoke_hook("pre_llm_call", user_message="hi", conversation_history=[], is_first_turn=True,
            sender_id="@alice:example.org", **common)
invoke_hook("pre_api_request", provider="custom", api_call_count=1, **common)
invoke_hook("api_request_error", provider="custom", status_code=401, retryable=False,
            reason="auth", error={"type": "AuthenticationError", "message": (
                "Error code: 401 - {'error': {'message': 'Incorrect API key provided: "
                "sk-lab-***0000.', 'type': 'invalid_request_error', 'param': None, "
                "'code': 'invalid_api_key'}}")}, **common)
# a failed turn of Hermes 0.19.0 ends without on_session_end: the exit ends it (atexit)
"""


@pytest.fixture
def hermes_home(tmp_path: Path) -> Path:
    if not PYTHON.exists():
        pytest.fail("Hermes not installed: run `make harnesses` (lab/install.sh)")
    home = tmp_path / ".hermes"
    home.mkdir()
    shutil.copyfile(CONFIGS / "hermes-cli.yaml", home / "config.yaml")
    return home


def roombot(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "roombot", "reporters", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "HERMES_HOME": str(home)},
        timeout=60,
    )


def hermes(home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        "HOME": str(home.parent),
        "HERMES_HOME": str(home),
        "PATH": f"{setups.HERMES_BIN}:/usr/bin:/bin",
        "LANG": "C.UTF-8",
    }
    return subprocess.run(
        [str(PYTHON), "-c", DRIVER],
        capture_output=True,
        text=True,
        cwd=home.parent,
        env=env,
        timeout=120,
    )


@pytest.mark.timeout(240)
def test_hermes_loads_the_reporter_and_its_hooks_reach_roombot(
    hermes_home: Path, scripted: tuple[str, type[Scripted]], tmp_path: Path
) -> None:
    url, handler = scripted
    token = tmp_path / "token"
    token.write_text(TOKEN)
    enabled = roombot(hermes_home, "enable", "hermes", "--url", url, "--token-file", str(token),
                      "--apply")  # fmt: skip
    assert enabled.returncode == 0, enabled.stderr

    run = hermes(hermes_home)
    assert run.returncode == 0, run.stderr[-3000:]
    [plugin] = json.loads(run.stdout.strip().splitlines()[-1])
    assert plugin["enabled"] is True and plugin["source"] == "user", plugin
    assert plugin["hooks"] == 7  # reporters/hermes/reporter.py HOOKS

    bodies = handler.bodies
    assert [b["type"] for b in bodies] == [
        "turn.started", "turn.attempt", "turn.failed_attempt", "turn.ended",
    ], bodies  # fmt: skip
    started, failed = bodies[0], bodies[2]
    assert started["room"] == "!gw:example.org"
    assert started["trigger"] == "$trigger" and started["thread"] == "$root"
    assert started["turn"] == "hermes/s1:task:0001" and started["harness"] == "hermes"
    report = failed["error"]["report"]
    assert report["status"] == 401 and report["name"] == "AuthenticationError"
    assert json.loads(report["body"])["error"]["code"] == "invalid_api_key"
    assert all(b["event_id"].startswith("roombot-hermes-reporter/") for b in bodies)

    # switched off again: Hermes no longer loads it (and the file is as Hermes wrote it)
    disabled = roombot(hermes_home, "disable", "hermes", "--apply")
    assert disabled.returncode == 0, disabled.stderr
    assert (hermes_home / "config.yaml").read_bytes() == (CONFIGS / "hermes-cli.yaml").read_bytes()
    handler.bodies.clear()
    again = hermes(hermes_home)
    assert again.returncode == 0, again.stderr[-3000:]
    [plugin] = json.loads(again.stdout.strip().splitlines()[-1])
    assert plugin["enabled"] is False
    assert handler.bodies == []
