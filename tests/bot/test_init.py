"""`roombot init` as a new operator runs it: a separate process against the suite's Synapse,
from nothing to a bot that delivers a card, and a second run that changes nothing."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import pty
import re
import stat
import sys
import tomllib
from pathlib import Path

import aiohttp

from cards.codec import CARD_KEY, read_payload
from cards.shape import TurnError
from roombot.config import load_config, parse_config
from roombot.devserver import DevServer, free_port
from roombot.initconfig import Answers, FoundRoom, SourceToken, fill_example
from tests.bot.helpers import bot_and_member, running
from tests.conftest import unique_name

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLE = (ROOT / "config.example.toml").read_text()


async def init(cwd: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """`roombot init ...` in `cwd`, importing this checkout, with no terminal on stdin."""
    inherited = {k: v for k, v in os.environ.items() if k != "ROOMBOT_PASSWORD"}
    full_env = {**inherited, "PYTHONPATH": str(ROOT), **(env or {})}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "roombot",
        "init",
        *args,
        cwd=cwd,
        env=full_env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def init_on_a_terminal(cwd: Path, *args: str, typed: str) -> tuple[int, str, str]:
    """`roombot init ...` with a terminal (a pty) on stdin: `typed` is entered at the prompt."""
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "ROOMBOT_PASSWORD"}
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "roombot",
            "init",
            *args,
            cwd=cwd,
            env={**env, "PYTHONPATH": str(ROOT)},
            stdin=slave,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        assert proc.stderr is not None
        # Typed only once asked: the prompt flushes what was typed before it.
        prompt = await asyncio.wait_for(proc.stderr.readuntil(b": "), 60)
        os.write(master, typed.encode() + b"\n")
        out, err = await asyncio.wait_for(proc.communicate(), 120)
    finally:
        os.close(master)
        os.close(slave)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), prompt.decode() + err.decode()


def snapshot(directory: Path) -> dict[str, tuple[str, int, int]]:
    """Every file under `directory`: its content's hash, its mode and when it was written."""
    return {
        str(p.relative_to(directory)): (
            hashlib.sha256(p.read_bytes()).hexdigest(),
            stat.S_IMODE(p.stat().st_mode),
            p.stat().st_mtime_ns,
        )
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def turn_events(room: str, turn: str) -> list[dict[str, object]]:
    error = {"status": 429, "body": '{"error":{"message":"You exceeded your current quota"}}'}
    return [
        {"type": "turn.started", "turn": turn, "room": room, "harness": "codex",
         "provider": "openai", "model": "gpt-5", "event_id": f"{turn}-s"},
        {"type": "turn.ended", "turn": turn, "error": error, "event_id": f"{turn}-e"},
    ]  # fmt: skip


async def test_init_from_nothing_to_a_delivered_card_and_again_changes_nothing(
    synapse: DevServer, tmp_path: Path
) -> None:
    bot, member_user, member = await bot_and_member(synapse, tmp_path / "member")
    try:
        room_id = await member.create_room(encrypted=True, invite=(bot.user_id,))
        home = tmp_path / "ops"
        home.mkdir()
        args = ("--homeserver", synapse.url, "--user", bot.user_id)

        code, out, err = await init(home, *args, env={"ROOMBOT_PASSWORD": bot.password})
        assert code == 0, out + err
        config_path = home / "roombot.toml"
        text = config_path.read_text()
        # The example's text with values filled in: every line of prose in it is still there
        # (a commented-out key may be the one set now).
        prose = [
            x for x in EXAMPLE.splitlines() if x.startswith("#") and not re.match(r"# \w+ =", x)
        ]
        assert [x for x in prose if x not in text.splitlines()] == []
        data = tomllib.loads(text)
        assert [r["room"] for r in data["rooms"]] == [room_id]
        assert "example.org" not in json.dumps(data)  # no placeholder left as a value
        assert "ROOMBOT_PASSWORD" not in text.replace('password_env = "ROOMBOT_PASSWORD"', "")
        assert bot.password not in text
        sources = data["api"]["sources"]
        assert [s["name"] for s in sources] == ["acp-proxy", "reporters", "scripts"]
        tokens = [(home / s["token_file"]) for s in sources]
        values = [t.read_text().strip() for t in tokens]
        assert all(stat.S_IMODE(t.stat().st_mode) == 0o600 for t in tokens)
        assert all(len(v) >= 43 for v in values) and len(set(values)) == 3  # 32 random bytes
        creds = json.loads((home / "roombot-state" / "credentials.json").read_text())
        assert creds["device_id"] in out and "new login" in out
        assert "cross-signing  ok" in out
        assert (home / "roombot-state" / "recovery-key.txt").exists()
        assert "roombot run -c roombot.toml --check" in out
        assert room_id in out and "in [[rooms]]" in out

        before = snapshot(home)
        code, again, err = await init(home, *args, env={})  # no password: the session is kept
        assert code == 0, again + err
        assert snapshot(home) == before  # every file byte for byte, not even rewritten
        assert f"{creds['device_id']} (stored session)" in again
        assert "kept as it is" in again and "(made)" not in again

        # The written config, as written, but for its two ports (free ones for this test).
        port, metrics = free_port(), free_port()
        text = text.replace("port = 8450", f"port = {port}").replace(
            "port = 9464", f"port = {metrics}"
        )
        config_path.write_text(text)
        check = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "roombot", "run", "-c", str(config_path), "--check",
            cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        checked = (await asyncio.wait_for(check.communicate(), 120))[0].decode()
        assert check.returncode == 0, checked  # what init wrote is what `run` needs
        config = load_config(config_path)
        async with running(config) as running_bot:
            assert running_bot.shell.client.device_id == creds["device_id"]
            headers = {"Authorization": f"Bearer {values[2]}"}
            async with aiohttp.ClientSession(headers=headers) as http:
                body = {"events": turn_events(room_id, "init-1")}
                async with http.post(f"http://127.0.0.1:{port}/v1/batch", json=body) as r:
                    assert r.status == 202, await r.text()
            seen = await member.wait_for(room_id, 1, sender=bot.user_id, timeout=60)
        # A room the bot is invited to later: init lists it and says how to add it,
        # and writes nothing.
        later = await member.create_room(encrypted=False, invite=(bot.user_id,), name="later")
        before = snapshot(home)
        code, third, err = await init(home, *args, env={})
        assert code == 0, third + err
        assert f'{later}  "later", invited by {member_user.user_id}  (NOT in the config)' in third
        assert f'room = "{later}"' in third
        assert f'{room_id}  "team", joined  (in [[rooms]])' in third
        assert snapshot(home) == before
        card = read_payload(seen[0].content.get(CARD_KEY))
        assert isinstance(card, TurnError) and card.harness == "codex"
        assert card.message == "You exceeded your current quota"
        assert seen[0].encrypted
    finally:
        await member.close()


async def test_init_refusals_name_the_way_out_a_terminal_is_asked_and_force_keeps_secrets(
    synapse: DevServer, tmp_path: Path
) -> None:
    bot = synapse.register_user(unique_name("bot"))
    args = ("--homeserver", synapse.url, "--user", bot.user_id)

    code, _, err = await init(tmp_path, *args, env={"ROOMBOT_PASSWORD": ""})
    assert code == 2 and "--password-file" in err and "ROOMBOT_PASSWORD" in err
    code, _, err = await init(tmp_path, *args, "--password-file", str(tmp_path / "absent"))
    assert code == 2 and "--password-file: cannot read" in err

    code, _, err = await init(tmp_path, "--homeserver", "matrix.example.org", "--user", bot.user_id)
    assert code == 2 and "--homeserver" in err

    dead = f"http://127.0.0.1:{free_port()}"
    code, _, err = await init(tmp_path, "--homeserver", dead, "--user", bot.user_id)
    assert code == 2 and "--homeserver: no answer" in err
    assert list(tmp_path.iterdir()) == []  # a run that cannot log in leaves nothing behind

    wrong = tmp_path / "wrong-password"
    wrong.write_text("not the password\n")
    code, _, err = await init(tmp_path, *args, "--password-file", str(wrong))
    assert code == 2 and "login" in err and bot.user_id in err
    assert not (tmp_path / "roombot.toml").exists()

    right = tmp_path / "password"
    right.write_text(bot.password + "\n")
    code, out, err = await init(tmp_path, *args, "--password-file", str(right), "--source", "ci")
    assert code == 0, out + err
    config = load_config(tmp_path / "roombot.toml")
    assert config.matrix.password.file == right and [s.name for s in config.api.sources] == ["ci"]
    assert "none yet" in out  # the bot is in no room: the output says how to add one
    token = (tmp_path / "roombot-state" / "api-tokens" / "ci").read_bytes()
    device = json.loads((tmp_path / "roombot-state" / "credentials.json").read_text())

    # --force writes the config anew; the token and the device stay what they were.
    (tmp_path / "roombot.toml").write_text("# edited by hand\n")
    code, out, err = await init(tmp_path, *args, "--source", "ci", "--force")
    assert code == 0, out + err
    assert load_config(tmp_path / "roombot.toml").api.sources[0].token == token.decode().strip()
    assert (tmp_path / "roombot-state" / "api-tokens" / "ci").read_bytes() == token
    assert f"{device['device_id']} (stored session)" in out and "(kept)" in out

    # No password anywhere, but a terminal: init asks, and the password reaches no file.
    prompted = synapse.register_user(unique_name("bot"))
    home = tmp_path / "prompted"
    home.mkdir()
    code, out, err = await init_on_a_terminal(
        home, "--homeserver", synapse.url, "--user", prompted.user_id, typed=prompted.password
    )
    assert code == 0 and f"password of {prompted.user_id}: " in err, out + err
    assert "new login" in out and "cross-signing  ok" in out
    assert all(
        prompted.password.encode() not in f.read_bytes() for f in home.rglob("*") if f.is_file()
    )

    other = synapse.register_user(unique_name("bot"))
    code, _, err = await init(tmp_path, "--homeserver", synapse.url, "--user", other.user_id)
    assert code == 2 and "--force" in err and "matrix.user_id" in err


def test_the_example_filled_in_is_a_valid_config_with_every_key_documented(
    tmp_path: Path,
) -> None:
    (tmp_path / "t").write_text("x" * 43)
    answers = Answers(
        homeserver="https://hs.test",
        user_id="@bot:hs.test",
        state_dir="state",
        sources=(SourceToken("a", "t"), SourceToken("b", "t2")),
        rooms=(FoundRoom("!r1", "join", 'Ops "\x1b[2J" room'), FoundRoom("!r2", "invite")),
    )
    (tmp_path / "t2").write_text("y" * 43)
    text = fill_example(EXAMPLE, answers)
    config = parse_config(tomllib.loads(text), base=tmp_path)
    assert [r.room for r in config.rooms] == ["!r1", "!r2"]
    assert [s.name for s in config.api.sources] == ["a", "b"]
    assert config.invites.users == () and config.invites.servers == ()
    assert "\x1b" not in text  # a room name is someone else's text
    # Every key the example sets is set or documented (commented) in the result.
    keys = {m.group(1) for m in re.finditer(r"^(\w+) =", EXAMPLE, re.M)}
    assert keys <= {m.group(1) for m in re.finditer(r"^(?:# )?(\w+) =", text, re.M)}
    # No room yet: the [[rooms]] example stays, commented, so the file is valid without one.
    empty = fill_example(EXAMPLE, Answers("https://hs.test", "@bot:hs.test", "s", answers.sources))
    assert parse_config(tomllib.loads(empty), base=tmp_path).rooms == ()
    assert "# [[rooms]]" in empty
