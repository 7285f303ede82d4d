"""Configuration: every bad file gives an error naming the key; `roombot run` exits 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from roombot.config import ConfigError, load_config
from roombot.room import Placement, RoomPolicy

GOOD = """
state_dir = "state"
[matrix]
homeserver = "https://matrix.example.org"
user_id = "@roombot:example.org"
password_env = "ROOMBOT_TEST_PASSWORD"
[[rooms]]
room = "#team:example.org"
loud = true
mention = ["@alice:example.org"]
[invites]
servers = ["example.org"]
[metrics]
port = 9464
"""

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.toml"


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "c.toml"
    p.write_text(text)
    return p


def test_good_config_loads(tmp_path: Path) -> None:
    c = load_config(write(tmp_path, GOOD))
    assert c.state_dir == tmp_path / "state"
    assert c.rooms[0].loud and c.rooms[0].mention == ("@alice:example.org",)
    assert c.matrix.trust == "cross_signed"
    assert c.outbox.path == tmp_path / "state" / "outbox.sqlite3"
    assert c.invites.allows("@bob:example.org") and not c.invites.allows("@eve:evil.org")


def test_example_config_is_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROOMBOT_API_TOKEN", "a-token-of-sufficient-length")
    c = load_config(EXAMPLE)
    assert c.rooms
    assert (c.nodes.heartbeat_interval, c.nodes.offline_after) == (10.0, 45.0)
    # The example spells out the room stage's defaults.
    assert c.rooms[0].view == RoomPolicy()


def test_room_view_settings_are_read(tmp_path: Path) -> None:
    text = GOOD.replace(
        "loud = true",
        'placement = "reply"\nreactions = true\ngroup_by = []\ngroup_interval = 5',
    )
    view = load_config(write(tmp_path, text)).rooms[0].view
    assert view == RoomPolicy(
        placement=Placement.REPLY, reactions=True, group_by=(), group_interval=5.0
    )


BAD = [
    (GOOD.replace('homeserver = "https://matrix.example.org"\n', ""), "matrix.homeserver"),
    (GOOD.replace("https://matrix.example.org", "matrix.example.org"), "matrix.homeserver"),
    (GOOD.replace('"@roombot:example.org"', '"roombot"'), "matrix.user_id"),
    (
        GOOD.replace('password_env = "ROOMBOT_TEST_PASSWORD"', 'password = "hunter2"'),
        "matrix.password",
    ),
    (GOOD.replace("loud = true", 'loud = "yes"'), "rooms[0].loud"),
    (GOOD.replace('"@alice:example.org"]', '"alice"]'), "rooms[0].mention[0]"),
    (GOOD.replace('room = "#team:example.org"', 'room = "team"'), "rooms[0].room"),
    (GOOD.replace("port = 9464", "port = 99999"), "metrics.port"),
    (GOOD.replace("port = 9464", "prot = 9464"), "metrics.prot"),
    (GOOD + "\n[matrix.extra]\n", "matrix.extra"),
    (GOOD.replace("[invites]", '[log]\nlevel = "loud"\n[invites]'), "log.level"),
    (GOOD.replace("[invites]", "[matrix2]\n[invites]"), "matrix2"),
    (GOOD + "\n[outbox]\nbackoff_initial = -1\n", "outbox.backoff_initial"),
    (GOOD.replace("[[rooms]]", "[matrix.trust]\n[[rooms]]"), "matrix"),
    (GOOD + "\n[turns]\ngrace = -1\n", "turns.grace"),
    (GOOD + "\n[outbox]\nkeep_days = 0.5\n", "outbox.keep_days"),
    (GOOD + "\n[turns]\ngrase = 1\n", "turns.grase"),
    (GOOD + '\n[api]\nport = "80"\n', "api.port"),
    (GOOD + "\n[nodes]\noffline_after = 10\n", "nodes.offline_after"),  # not above 10 s
    (GOOD + "\n[nodes]\nheartbeat_interval = 0\n", "nodes.heartbeat_interval"),
    (GOOD + "\n[nodes]\noffline = 10\n", "nodes.offline"),
    (GOOD.replace("loud = true", 'placement = "side"'), "rooms[0].placement"),
    (GOOD.replace("loud = true", "reactions = 1"), "rooms[0].reactions"),
    (GOOD.replace("loud = true", 'group_by = ["colour"]'), "rooms[0].group_by[0]"),
    (GOOD.replace("loud = true", 'group_by = ["kind", "kind"]'), "rooms[0].group_by"),
    (GOOD.replace("loud = true", "group_window = -1"), "rooms[0].group_window"),
    (GOOD.replace("loud = true", "group_thread_max = 1.5"), "rooms[0].group_thread_max"),
    ("this is = not toml [", "(syntax)"),
]


@pytest.mark.parametrize(("text", "key"), BAD, ids=[k for _, k in BAD])
def test_bad_config_names_the_key(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    assert str(info.value).startswith(key), str(info.value)


@pytest.mark.parametrize(
    ("text", "key"),
    [BAD[4], BAD[3], BAD[-1]],
    ids=["type", "secret-inline", "syntax"],
)
def test_run_exits_2_naming_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = write(tmp_path, text)
    proc = subprocess.run(
        [sys.executable, "-m", "roombot", "run", "-c", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert key in proc.stderr


def test_missing_password_at_first_login_exits_2(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("https://matrix.example.org", "http://127.0.0.1:9"))
    proc = subprocess.run(
        [sys.executable, "-m", "roombot", "run", "-c", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 2, proc.stderr
    assert "matrix.password" in proc.stderr


@pytest.mark.parametrize("policy", ["ignore_unverified", "verified_only", "cross_signed"])
def test_each_trust_policy_loads(tmp_path: Path, policy: str) -> None:
    text = GOOD.replace(
        "[matrix]\n",
        f'[matrix]\ntrust = "{policy}"\ntrusted_devices = ["@alice:example.org PHONE"]\n',
    )
    m = load_config(write(tmp_path, text)).matrix
    assert m.trust == policy and m.trusted_devices == (("@alice:example.org", "PHONE"),)


def test_a_misspelt_trust_policy_names_the_choices(tmp_path: Path) -> None:
    text = GOOD.replace("[matrix]\n", '[matrix]\ntrust = "crosssigned"\n')
    with pytest.raises(ConfigError) as e:
        load_config(write(tmp_path, text))
    assert e.value.key == "matrix.trust"
    assert "cross_signed" in e.value.problem and "'crosssigned'" in e.value.problem
