"""The recovery key goes to a 0600 file, never to the log; the state directory is owner-only.

A real first start (`roombot run` in its own process, `format = "json"`,
standard error a pipe as under systemd or a container) against the real
Synapse, then `roombot crypto status` and a restore from the file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pty
import signal
import stat
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from roombot.crosssign.assess import State
from roombot.crosssign.manage import Mode, RefusedError
from roombot.crosssign.recovery import key_from_file_text
from roombot.crosssign.startup import at_start
from roombot.crosssign.store import KeyStore
from roombot.devserver import DevServer
from tests.bot.helpers import write_config
from tests.conftest import unique_name
from tests.crosssigning.helpers import BotDevice, bot_device
from tests.crosssigning.test_cli import roombot


@contextlib.asynccontextmanager
async def bot_process(config: Path) -> AsyncIterator[list[bytes]]:
    """`roombot run` until the block ends (then SIGTERM); yields its stderr lines so far."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "roombot",
        "run",
        "-c",
        str(config),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stderr is not None
    lines: list[bytes] = []

    async def until_started() -> None:
        assert proc.stderr is not None
        while line := await proc.stderr.readline():
            lines.append(line)
            if b'"bot started"' in line:
                return
        raise AssertionError(b"".join(lines).decode(errors="replace")[-3000:])

    try:
        await asyncio.wait_for(until_started(), 90)
        yield lines
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        rest = await asyncio.wait_for(proc.stderr.read(), 60)
        lines.extend(rest.splitlines(keepends=True))
        assert await asyncio.wait_for(proc.wait(), 60) == 0, b"".join(lines)[-3000:]


def json_config(tmp: Path, hs: DevServer) -> Path:
    config = write_config(tmp, hs, hs.register_user(unique_name("bot")), [])
    config.write_text(config.read_text().replace('format = "text"', 'format = "json"'))
    return config


def log_lines(raw: list[bytes]) -> list[dict[str, Any]]:
    """Every stderr line as JSON; fails on the first one that is not one JSON object."""
    out = []
    for line in raw:
        obj = json.loads(line)
        assert isinstance(obj, dict), line
        out.append(obj)
    return out


def modes(state: Path) -> dict[str, int]:
    """Every file and directory under `state` (itself included) and its permission bits."""
    found = {".": stat.S_IMODE(state.stat().st_mode)}
    for root, dirs, files in os.walk(state):
        for name in dirs + files:
            p = Path(root, name)
            found[str(p.relative_to(state))] = stat.S_IMODE(p.lstat().st_mode)
    return found


def secrets_in(state: Path) -> list[bytes]:
    """What must never reach a log: the recovery key (as written and run together),
    the private seeds, the access token."""
    key = next(ln for ln in (state / "recovery-key.txt").read_text().splitlines() if ln[:1] != "#")
    keys = json.loads((state / "cross-signing" / "keys.json").read_text())
    token = json.loads((state / "credentials.json").read_text())["access_token"]
    seeds = [keys[u] for u in ("master", "self_signing", "user_signing")]
    return [s.encode() for s in (key, key.replace(" ", ""), *seeds, token)]


async def test_first_start_json_logs_recovery_file_and_modes(
    synapse: DevServer, tmp_path: Path
) -> None:
    config = json_config(tmp_path, synapse)
    state = tmp_path / "state"
    async with bot_process(config) as raw:
        pass
    logged = log_lines(raw)  # every line on stderr is one JSON object
    recovery = state / "recovery-key.txt"
    naming = [r for r in logged if r.get("recovery_key_file") == str(recovery)]
    assert len(naming) == 1, logged
    assert naming[0]["level"] == "warning" and naming[0]["shown_on_terminal"] is False
    assert "move it offline" in naming[0]["msg"]
    everything = b"".join(raw)
    for secret in secrets_in(state):
        assert secret not in everything

    # The file holds the key of the identity the server has, and is the owner's alone.
    store = KeyStore(state)
    user = json.loads((state / "credentials.json").read_text())["user_id"]
    stored = store.load(user)
    assert stored is not None
    assert key_from_file_text(recovery.read_text()) == stored.master.seed
    assert naming[0]["master_key"] == stored.master.public

    # Every file the bot wrote: the directories 0700, the files 0600.
    found = modes(state)
    db = next(n for n in found if n.startswith("crypto/") and n.endswith(".db"))
    expected = {
        ".",
        "credentials.json",
        "crypto",
        db,
        "cross-signing",
        "cross-signing/keys.json",
        "recovery-key.txt",
        "outbox.sqlite3",
        "journal.sqlite3",
    }
    assert expected <= set(found), found
    for name, mode in found.items():
        is_dir = (state / name).is_dir()
        assert mode == (0o700 if is_dir else 0o600), (name, oct(mode))

    # The operator asks: the file is still there, and what to do with it.
    code, out, err = await roombot("crypto", "status", "-c", str(config))
    assert code == 0, err
    assert f"recovery file {recovery}: still in the state directory" in out
    assert "holds the recovery key of this identity" in out and "Move it offline" in out
    assert "--recovery-key-file" in out
    code, out, _ = await roombot("crypto", "status", "-c", str(config), "--json")
    status = json.loads(out)
    assert status["recovery_file"] == {
        "path": str(recovery),
        "master_key": stored.master.public,
        "matches": True,
        "error": None,
    }

    # The state directory's keys are lost; the recovery file brings the same identity back.
    store.path.unlink()
    code, out, err = await roombot(
        "crypto", "bootstrap", "-c", str(config), "--recovery-key-file", str(recovery)
    )
    assert code == 0, err
    assert "restored the master key from the recovery key" in out
    restored = store.load(user)
    assert restored is not None and restored.master == stored.master
    status = json.loads((await roombot("crypto", "status", "-c", str(config), "--json"))[1])
    assert status["state"] == "ok" and status["server"]["master"] == stored.master.public

    # Moved offline: status says there is none.
    recovery.unlink()
    code, out, _ = await roombot("crypto", "status", "-c", str(config))
    assert code == 0 and "recovery file none in the state directory" in out
    status = json.loads((await roombot("crypto", "status", "-c", str(config), "--json"))[1])
    assert status["recovery_file"] is None


async def test_open_modes_are_tightened_at_start_one_line_each(
    synapse: DevServer, tmp_path: Path
) -> None:
    config = json_config(tmp_path, synapse)
    state = tmp_path / "state"
    async with bot_process(config):
        pass
    db = next((state / "crypto").glob("*.db"))
    loosened = [
        state / "credentials.json",
        db,
        state / "cross-signing" / "keys.json",
        state / "recovery-key.txt",
        state / "outbox.sqlite3",
        state / "journal.sqlite3",
    ]
    for f in loosened:
        f.chmod(0o644)
    for d in (state, state / "crypto", state / "cross-signing"):
        d.chmod(0o755)

    async with bot_process(config) as raw:
        pass
    logged = log_lines(raw)
    said = [r["path"] for r in logged if r.get("mode_was") or "readable by others" in r["msg"]]
    for p in [*loosened, state, state / "crypto", state / "cross-signing"]:
        assert said.count(str(p)) == 1, (p, said)
    assert all(m == (0o700 if (state / n).is_dir() else 0o600) for n, m in modes(state).items()), (
        modes(state)
    )
    # The second start made no identity: it reminds that the file is still there.
    reminder = [r for r in logged if "still in the state directory" in r["msg"]]
    assert [r["recovery_key_file"] for r in reminder] == [str(state / "recovery-key.txt")]
    for secret in secrets_in(state):
        assert secret not in b"".join(raw)


async def start(dev: BotDevice, out: Any = None) -> Any:
    return await at_start(
        homeserver=dev.client.homeserver,
        user_id=dev.user.user_id,
        device_id=dev.device_id,
        access_token=dev.client.access_token,
        state_dir=dev.state_dir,
        password=lambda: dev.user.password,
        out=out,
    )


async def test_the_key_is_shown_on_a_terminal(synapse: DevServer, tmp_path: Path) -> None:
    dev = await bot_device(synapse, synapse.register_user(unique_name("bot")), tmp_path / "s")
    reader, writer = pty.openpty()
    try:
        with open(writer, "w", closefd=False) as terminal:
            a = await start(dev, terminal)
        assert a.state is State.OK
        shown = os.read(reader, 65536).decode()
        store = KeyStore(dev.state_dir)
        key = next(ln for ln in store.recovery_path.read_text().splitlines() if ln[:1] != "#")
        assert key in shown and str(store.recovery_path) in shown
        assert "master key (what people verify)" in shown
    finally:
        os.close(reader)
        os.close(writer)
        await dev.client.close()


async def test_a_recovery_file_in_the_way_stops_a_new_identity(
    synapse: DevServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Neither side has an identity, but a recovery file is there: restore, never overwrite."""
    bot = synapse.register_user(unique_name("bot"))
    dev = await bot_device(synapse, bot, tmp_path / "state")
    store = KeyStore(dev.state_dir)
    left = "# an earlier identity's file\nnot checked here\n"
    store.recovery_path.write_text(left)
    try:
        a = await start(dev)
        assert a.state is State.NOT_SET_UP
        assert str(store.recovery_path) in caplog.text and "--recovery-key-file" in caplog.text
        assert store.recovery_path.read_text() == left and not store.exists()
        assert bot.user_id not in (await dev.query()).get("master_keys", {})
        async with dev.api() as api:
            with pytest.raises(RefusedError, match="nothing was changed"):
                await dev.bootstrapper(api).run(Mode.ON_DEMAND)
        assert store.recovery_path.read_text() == left
    finally:
        await dev.client.close()
