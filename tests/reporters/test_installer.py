"""`roombot reporters`: plans as diffs, apply, idempotence, disable, refusal of bad files.

The configuration files are copies of real ones (tests/reporters/configs/): openclaw-cli.json
as OpenClaw's own `openclaw config set` wrote it, openclaw-lab.json and pi-lab.json as the
harness lab's setups write them and the harnesses ran with them. The commands run as a user
runs them: `python -m roombot reporters ...` in a subprocess.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lab import setups
from roombot.reporters import REPORTERS, Settings, plan_enable, render_plan

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = Path(__file__).parent / "configs"
TOKEN = "tok-reporter-secret-0123456789"


def roombot(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "roombot", "reporters", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=60,
    )


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "reporter.token"
    path.write_text(TOKEN + "\n")
    return path


def copy(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copyfile(CONFIGS / name, target)
    return target


def test_enable_prints_the_diff_and_writes_nothing(tmp_path: Path, token_file: Path) -> None:
    config = copy("pi-lab.json", tmp_path)
    before = config.read_bytes()
    out = roombot(
        "enable", "pi", "--config", str(config), "--url", "http://127.0.0.1:8450",
        "--token-file", str(token_file),
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert config.read_bytes() == before
    code = ROOT / "reporters" / "pi"
    assert out.stdout.startswith(f"--- a{config}\n+++ b{config}\n@@ ")
    added = [line[1:] for line in out.stdout.splitlines() if line[:1] == "+" and line[:3] != "+++"]
    assert added == [
        '  },',
        '  "extensions": [',
        f'    "{code}"',
        '  ],',
        '  "roombotReporter": {',
        '    "url": "http://127.0.0.1:8450",',
        f'    "tokenFile": "{token_file}"',
    ]  # fmt: skip
    assert "would write" in out.stdout and "--apply" in out.stdout


def test_the_printed_diff_is_the_change_apply_makes(tmp_path: Path, token_file: Path) -> None:
    config = copy("openclaw-lab.json", tmp_path)
    settings = Settings("http://127.0.0.1:8450", token_file=str(token_file))
    diff = render_plan(plan_enable(REPORTERS["openclaw"], settings, config=config))
    patched = tmp_path / "patched.json"
    shutil.copyfile(config, patched)
    local = diff.replace(f"a{config}", "a/patched.json").replace(f"b{config}", "b/patched.json")
    res = subprocess.run(
        ["patch", "-p1", "-s"], input=local, text=True, cwd=tmp_path, capture_output=True
    )
    assert res.returncode == 0, res.stdout + res.stderr
    out = roombot(
        "enable", "openclaw", "--config", str(config), "--url", "http://127.0.0.1:8450",
        "--token-file", str(token_file), "--apply",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert config.read_bytes() == patched.read_bytes()


@pytest.mark.parametrize("name", ["openclaw-cli.json", "openclaw-lab.json"])
def test_openclaw_apply_idempotence_disable(name: str, tmp_path: Path, token_file: Path) -> None:
    config = copy(name, tmp_path)
    original = config.read_bytes()
    args = ["--config", str(config)]
    url = ["--url", "http://127.0.0.1:8450", "--token-file", str(token_file)]
    out = roombot("enable", "openclaw", *args, *url, "--apply")
    assert out.returncode == 0, out.stderr
    assert "openclaw gateway restart" in out.stdout  # printed, not run
    tree = json.loads(config.read_text())
    code = str(ROOT / "reporters" / "openclaw")
    assert code in tree["plugins"]["load"]["paths"]
    entry = tree["plugins"]["entries"]["roombot-reporter"]
    assert entry == {
        "enabled": True,
        "hooks": {"allowConversationAccess": True},
        "config": {"url": "http://127.0.0.1:8450", "tokenFile": str(token_file)},
    }
    assert TOKEN not in config.read_text()  # a reference to the token, never the token
    # everything that was there is still there
    assert _without_reporter(tree) == json.loads(original)
    enabled = config.read_bytes()
    again = roombot("enable", "openclaw", *args, *url, "--apply")
    assert again.returncode == 0 and "already enabled" in again.stdout
    assert config.read_bytes() == enabled
    # without settings: keeps the ones already written
    assert "already enabled" in roombot("enable", "openclaw", *args).stdout
    off = roombot("disable", "openclaw", *args, "--apply")
    assert off.returncode == 0, off.stderr
    assert config.read_bytes() == original
    assert "already disabled" in roombot("disable", "openclaw", *args, "--apply").stdout


def _without_reporter(tree: dict[str, Any]) -> dict[str, Any]:
    tree = json.loads(json.dumps(tree))
    plugins = tree["plugins"]
    del plugins["entries"]["roombot-reporter"]
    if not plugins["entries"]:
        del plugins["entries"]
    del plugins["load"]
    if not plugins:
        del tree["plugins"]
    return tree


def test_pi_apply_idempotence_disable_and_a_missing_file(tmp_path: Path) -> None:
    config = copy("pi-lab.json", tmp_path)
    original = config.read_bytes()
    args = ["--config", str(config)]
    url = ["--url", "http://127.0.0.1:8450", "--token-env", "ROOMBOT_API_TOKEN"]
    out = roombot("enable", "pi", *args, *url, "--apply")
    assert out.returncode == 0, out.stderr
    assert "each new Pi session" in out.stdout
    tree = json.loads(config.read_text())
    assert tree["extensions"] == [str(ROOT / "reporters" / "pi")]
    assert tree["roombotReporter"] == {
        "url": "http://127.0.0.1:8450",
        "tokenEnv": "ROOMBOT_API_TOKEN",
    }
    assert tree["retry"] == json.loads(original)["retry"]
    assert "already enabled" in roombot("enable", "pi", *args, *url, "--apply").stdout
    assert roombot("disable", "pi", *args, "--apply").returncode == 0
    assert config.read_bytes() == original
    # No settings.json yet (a fresh Pi): enable creates it, found through PI_CODING_AGENT_DIR.
    agent = tmp_path / "agent"
    env = {"PI_CODING_AGENT_DIR": str(agent)}
    plan = roombot("enable", "pi", *url, env=env)
    assert plan.stdout.startswith(f"--- /dev/null\n+++ b{agent / 'settings.json'}\n")
    assert not (agent / "settings.json").exists()
    assert roombot("enable", "pi", *url, "--apply", env=env).returncode == 0
    assert json.loads((agent / "settings.json").read_text())["roombotReporter"]["tokenEnv"]
    listed = roombot("list", env={**env, "OPENCLAW_CONFIG_PATH": str(tmp_path / "none.json")})
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line.split() for line in listed.stdout.splitlines()[1:]}
    assert rows["pi"][:5] == ["pi", "pi", "yes", "yes", "http://127.0.0.1:8450"]
    assert rows["openclaw"][:5] == ["openclaw", "openclaw", "yes", "no", "-"]


BAD = {
    "truncated": ('{"plugins": {"entries": {', "not valid JSON at line 1 column 26"),
    "json5": (
        '{\n  // my gateway\n  "gateway": {"mode": "local"},\n}\n',
        "not valid JSON at line 2 column 3",
    ),
    "a list": ("[1, 2]\n", "expected a JSON object at the top, found a list"),
    "plugins a string": ('{"plugins": "all"}\n', "plugins: expected an object, found a string"),
    "paths an object": (
        '{"plugins": {"load": {"paths": {"a": 1}}}}\n',
        "plugins.load.paths: expected a list, found an object",
    ),
    "not utf-8": (b'{"a": "\xff"}', "not UTF-8 text"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_malformed_openclaw_config_is_refused_untouched(case: str, tmp_path: Path) -> None:
    text, reason = BAD[case]
    config = tmp_path / "openclaw.json"
    if isinstance(text, bytes):
        config.write_bytes(text)
    else:
        config.write_text(text)
    before = config.read_bytes()
    out = roombot(
        "enable", "openclaw", "--config", str(config), "--url", "http://localhost:1",
        "--token-env", "T", "--apply",
    )  # fmt: skip
    assert out.returncode == 2
    assert out.stdout == ""
    assert str(config) in out.stderr and reason in out.stderr, out.stderr
    assert config.read_bytes() == before
    listed = roombot(
        "list", env={"OPENCLAW_CONFIG_PATH": str(config), "PI_CODING_AGENT_DIR": str(tmp_path)}
    )
    if case in ("plugins a string", "paths an object"):
        assert listed.returncode == 0 and " no " in listed.stdout  # readable: not enabled
    else:
        assert listed.returncode == 2 and reason in listed.stderr  # unreadable: said so


def test_a_malformed_pi_settings_file_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "settings.json"
    config.write_text('{"extensions": "/somewhere"}')
    out = roombot("disable", "pi", "--config", str(config), "--apply")
    # disable never needs to touch a wrong type it did not write: nothing to do
    assert out.returncode == 0 and "already disabled" in out.stdout
    out = roombot(
        "enable", "pi", "--config", str(config), "--url", "http://localhost:1", "--token-env", "T"
    )
    assert out.returncode == 2
    assert "extensions: expected a list, found a string" in out.stderr


def test_no_token_in_clear_and_settings_needed_the_first_time(tmp_path: Path) -> None:
    config = copy("pi-lab.json", tmp_path)
    out = roombot("enable", "pi", "--config", str(config), "--token", TOKEN)
    assert out.returncode == 2 and "never written in clear" in out.stderr
    assert config.read_bytes() == (CONFIGS / "pi-lab.json").read_bytes()
    out = roombot("enable", "pi", "--config", str(config))
    assert out.returncode == 2 and "no settings yet" in out.stderr
    out = roombot("enable", "pi", "--config", str(config), "--url", "http://x:1")
    assert out.returncode == 2 and "exactly one of --token-file and --token-env" in out.stderr
    out = roombot("enable", "pi", "--config", str(config), "--url", "ftp://x", "--token-env", "T")
    assert out.returncode == 2 and "http(s) URL" in out.stderr


@pytest.mark.timeout(120)
def test_openclaw_itself_accepts_the_enabled_config(tmp_path: Path, token_file: Path) -> None:
    """The real `openclaw config validate` reads the file enable wrote, plugin included."""
    if not setups.installed():
        pytest.fail("harnesses not installed: run `make harnesses` (lab/install.sh)")
    state = tmp_path / "state"
    state.mkdir()
    config = state / "openclaw.json"
    shutil.copyfile(CONFIGS / "openclaw-cli.json", config)
    enabled = roombot(
        "enable", "openclaw", "--config", str(config), "--url", "http://127.0.0.1:8450",
        "--token-file", str(token_file), "--apply",
    )  # fmt: skip
    assert enabled.returncode == 0, enabled.stderr
    env = setups.base_env(tmp_path)
    env.update({"OPENCLAW_STATE_DIR": str(state), "OPENCLAW_CONFIG_PATH": str(config)})
    res = subprocess.run(
        ["unshare", "-n", "--", str(setups.NPM_BIN / "openclaw"), "config", "validate", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=100,
    )
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    verdict = json.loads(res.stdout[res.stdout.index("{") :])
    assert verdict.get("valid") is True and verdict.get("warnings") == [], verdict
    # and a wrong key in the plugin's config is caught by its manifest's schema
    tree = json.loads(config.read_text())
    tree["plugins"]["entries"]["roombot-reporter"]["config"]["token"] = "in clear"
    config.write_text(json.dumps(tree))
    res = subprocess.run(
        ["unshare", "-n", "--", str(setups.NPM_BIN / "openclaw"), "config", "validate", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=100,
    )
    assert res.returncode != 0
    issues = json.loads(res.stdout[res.stdout.index("{") :])["issues"]
    assert issues[0]["path"] == "plugins.entries.roombot-reporter.config"
    assert '"token"' in issues[0]["message"]


def test_enable_writes_the_ca_file_and_keeps_the_url_rule(tmp_path: Path, token_file: Path) -> None:
    config = copy("pi-lab.json", tmp_path)
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    base = ["enable", "pi", "--config", str(config), "--token-file", str(token_file), "--apply"]
    far = "http://roombot.example.org:8450"
    out = roombot(*base, "--url", far)
    assert out.returncode == 2, out.stdout
    assert "--url: plain http:// to a non-loopback host (roombot.example.org)" in out.stderr
    assert config.read_bytes() == (CONFIGS / "pi-lab.json").read_bytes()
    out = roombot(*base, "--url", "https://roombot.example.org:8450", "--ca-file", str(ca))
    assert out.returncode == 0, out.stderr
    assert json.loads(config.read_text())["roombotReporter"] == {
        "url": "https://roombot.example.org:8450",
        "tokenFile": str(token_file),
        "caFile": str(ca),
    }
    assert roombot("disable", "pi", "--config", str(config), "--apply").returncode == 0
    out = roombot(*base, "--url", far, "--insecure")
    assert out.returncode == 0 and "--insecure: the token and the reports" in out.stderr
    assert json.loads(config.read_text())["roombotReporter"]["insecure"] is True
