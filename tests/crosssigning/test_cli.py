"""`roombot crypto` as an operator runs it: a separate process against the real Synapse."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from roombot.crosssign.store import KeyStore
from roombot.devserver import DevServer
from tests.bot.helpers import write_config
from tests.conftest import unique_name
from tests.crosssigning.helpers import bot_device


async def roombot(*args: str, stdin: str = "") -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "roombot",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(stdin.encode()), 120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_bootstrap_status_loss_and_recovery(synapse: DevServer, tmp_path: Path) -> None:
    user = synapse.register_user(unique_name("bot"))
    config = write_config(tmp_path, synapse, user, [])
    c = str(config)

    code, _, err = await roombot("crypto", "status", "-c", c)
    assert code == 2 and "credentials.json does not exist" in err and "roombot run" in err

    dev = await bot_device(synapse, user, tmp_path / "state")
    dev.save_credentials()
    try:
        code, out, err = await roombot("crypto", "bootstrap", "-c", c)
        assert code == 0, err
        recovery = KeyStore(tmp_path / "state").recovery_path
        # Not a terminal: the key stays in its file, the output names the file.
        assert f"wrote the recovery key to {recovery} (mode 0600)" in out
        key = [ln for ln in recovery.read_text().splitlines() if not ln.startswith("#")]
        assert len(key) == 1 and key[0] not in out and key[0].replace(" ", "") not in out
        code, again, _ = await roombot("crypto", "bootstrap", "-c", c)
        assert code == 0 and "nothing to do" in again and "recovery key" not in again

        code, out, _ = await roombot("crypto", "status", "-c", c)
        assert code == 0
        master = json.loads((await roombot("crypto", "status", "-c", c, "--json"))[1])["server"][
            "master"
        ]
        assert f"{dev.device_id}  ed25519" in out
        assert "signed by the self-signing key" in out and "valid" in out
        grouped = " ".join(master[i : i + 4] for i in range(0, len(master), 4))
        assert f"master        {grouped}  [stored here]" in out
        assert "state         ok" in out

        # The state directory's keys are lost: said plainly, with both ways out.
        KeyStore(tmp_path / "state").path.unlink()
        code, out, _ = await roombot("crypto", "status", "-c", c)
        assert code == 1 and "keys_missing" in out
        assert "--recovery-key-file" in out and "--replace-identity" in out
        code, _, err = await roombot("crypto", "bootstrap", "-c", c)
        assert code == 1 and "no keys" in err and "--recovery-key-file" in err

        code, _, err = await roombot(
            "crypto", "bootstrap", "-c", c, "--recovery-key-file", "-", stdin="EsTx nope"
        )
        assert code == 2 and "not a valid recovery key" in err

        code, out, err = await roombot(
            "crypto", "bootstrap", "-c", c, "--recovery-key-file", "-", stdin=key[0] + "\n"
        )
        assert code == 0, err
        assert "restored the master key from the recovery key" in out
        status = json.loads((await roombot("crypto", "status", "-c", c, "--json"))[1])
        assert status["state"] == "ok" and status["server"]["master"] == master
    finally:
        await dev.client.close()
