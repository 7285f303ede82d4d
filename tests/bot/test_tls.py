"""`roombot run` serving its report API over HTTPS: a report sent with `roombot report
--ca-file` reaches the room, SIGHUP serves a renewed certificate without a restart, and
the bot's log never holds the token."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from cards.codec import CARD_KEY, read_payload
from cards.shape import TurnError
from roombot.devserver import DevServer, free_port
from tests.api.pki import make_pki, served_sha256, sha256_of
from tests.bot.helpers import make_team
from tests.bot.test_end_to_end import wait_healthy

TOKEN = "tls-end-to-end-token-0123456789"


def report(url: str, ca_file: Path, room: str, turn: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "roombot", "report", "--url", url, "--ca-file", str(ca_file),
         "--turn", turn, "--room", room, "--harness", "nightly", "--provider", "anthropic",
         "--status", "529", "--body", '{"type":"error","error":{"type":"overloaded_error",'
         '"message":"Overloaded"}}'],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "ROOMBOT_API_TOKEN": TOKEN},
    )  # fmt: skip


async def test_the_bot_serves_https_and_reloads_its_certificate_on_sighup(
    synapse: DevServer, tmp_path: Path
) -> None:
    pki = make_pki(tmp_path / "pki")
    tls = tmp_path / "tls"
    tls.mkdir()
    first, first_key = pki.leaf("first", "127.0.0.1")
    renewed, renewed_key = pki.leaf("renewed", "127.0.0.1")
    shutil.copy(first, tls / "cert.pem")
    shutil.copy(first_key, tls / "key.pem")
    api_port, metrics_port = free_port(), free_port()
    extra = (
        f'[api]\nport = {api_port}\ntls_cert_file = "{tls / "cert.pem"}"\n'
        f'tls_key_file = "{tls / "key.pem"}"\n'
        f'[[api.sources]]\nname = "ci"\ntoken_env = "ROOMBOT_TLS_TOKEN"\nrooms = ["*"]\n'
        f"[metrics]\nport = {metrics_port}\n[turns]\nsettle = 0.2\n"
    )
    team = await make_team(synapse, tmp_path, encrypted=False, extra=extra)
    log = tmp_path / "bot.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "roombot", "run", "-c", str(team.config_path)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "ROOMBOT_TLS_TOKEN": TOKEN},
        )
    url = f"https://127.0.0.1:{api_port}"
    try:
        await wait_healthy(f"http://127.0.0.1:{metrics_port}", proc, log)
        assert served_sha256(api_port, pki.ca_file) == sha256_of(first)
        sent = await asyncio.to_thread(report, url, pki.ca_file, team.room_id, "tls-run-1")
        assert sent.returncode == 0, sent.stderr

        shutil.copy(renewed, tls / "cert.pem")
        shutil.copy(renewed_key, tls / "key.pem")
        proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 20
        while "report API certificate reloaded" not in log.read_text():
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            await asyncio.sleep(0.1)
        assert sha256_of(renewed) in log.read_text()
        assert served_sha256(api_port, pki.ca_file) == sha256_of(renewed)
        sent = await asyncio.to_thread(report, url, pki.ca_file, team.room_id, "tls-run-2")
        assert sent.returncode == 0, sent.stderr

        seen = await team.member.wait_for(team.room_id, 2, sender=team.bot.user_id, timeout=60)
        cards = [read_payload(s.content.get(CARD_KEY)) for s in seen]
        assert all(isinstance(c, TurnError) and c.harness == "nightly" for c in cards), cards
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        await team.member.close()
    text = log.read_text()
    assert "report API listening" in text and "scheme=https" in text
    assert TOKEN not in text
