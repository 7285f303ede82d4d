"""The room as a person sees it in a real web client: Hydrogen (Element's light
client, from npm) in Debian's Chromium at 400 px, logged in as a member, against
the suite's Synapse. Screenshots go to artefacts/browser/ (the test prints it)."""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from cards.notice import CONTENT_BUDGET
from roombot.devserver import DevServer, free_port
from tests.bot.helpers import make_team, running
from tests.browser import fill

ROOT = Path(__file__).resolve().parents[2]
BROWSER = ROOT / "browser"
ARTEFACTS = ROOT / "artefacts" / "browser"
CHROMIUM = Path("/usr/bin/chromium")
WIDTH = 400
HOW = "run `make browser` (Debian's chromium via apt-get, then npm ci in browser/)"


def ready() -> None:
    """Fail, never skip, when the browser or the client is not installed."""
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: {HOW}")
    if not (BROWSER / "node_modules" / "hydrogen-view-sdk").is_dir():
        pytest.fail(f"browser/node_modules is missing: {HOW}")
    if shutil.which("node") is None:
        pytest.fail(f"node is missing: {HOW}")


def media(hs: DevServer, mxc: str, token: str) -> bytes:
    """The file as Synapse serves it to a logged-in member (authenticated media)."""
    server, media_id = mxc.removeprefix("mxc://").split("/", 1)
    req = urllib.request.Request(f"{hs.url}/_matrix/client/v1/media/download/{server}/{media_id}")
    req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=30) as r:
        data = r.read()
    assert isinstance(data, bytes)
    return data


def drive(spec: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        ["node", str(BROWSER / "drive.mjs")],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=BROWSER,
    )
    assert done.returncode == 0, f"drive.mjs failed:\n{done.stderr[-4000:]}"
    report = json.loads(done.stdout)
    assert isinstance(report, dict)
    return report


async def test_the_room_in_hydrogen_at_400_px(
    synapse: DevServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ready()
    started = time.monotonic()
    shutil.rmtree(ARTEFACTS, ignore_errors=True)
    print(f"\nbrowser screenshots: {ARTEFACTS}")
    port, token = free_port(), secrets.token_urlsafe(24)
    monkeypatch.setenv(fill.TOKEN_ENV, token)
    api = f"http://127.0.0.1:{port}"
    team = await make_team(
        synapse, tmp_path, encrypted=False, extra=fill.api_config(port), room_extra=fill.ROOM_CONFIG
    )
    try:
        async with running(team.config()) as bot:
            # The group's storm first: its thread and edits are many events, and the
            # client draws the newest part of the room at first.
            group_card, group_edit = await fill.group_card(bot, team, api, token)
            chain = await fill.chain_card(bot, team, api, token)
            long_card, file_event = await fill.long_message(bot, team, api, token)
            trigger, thread_card = await fill.thread_card(bot, team, api, token)
    finally:
        await team.member.close()
    file_content = synapse.request(
        "GET",
        f"/_matrix/client/v3/rooms/{team.room_id}/event/{file_event}",
        token=team.member_user.access_token,
    )["content"]
    uploaded = media(synapse, file_content["url"], team.member_user.access_token)
    filled = time.monotonic()
    report = drive(
        {
            "chromium": str(CHROMIUM),
            "out": str(ARTEFACTS),
            "width": WIDTH,
            "height": 800,
            "homeserver": synapse.url,
            "user": team.member_user.localpart,
            "password": team.member_user.password,
            "room": team.room_id,
            "chain": chain,
            "file": file_event,
            "file_card": long_card,
            "trigger": trigger,
            "thread_card": thread_card,
            "group_card": group_card,
            "group_edit": group_edit,
        }
    )
    seen = f"(screenshots and report.json in {ARTEFACTS})"
    assert report["user"] == team.member_user.user_id
    assert report["width"] == WIDTH, seen

    # a. The chain is a list of three, and no word of it breaks across two lines.
    a = report["chain"]
    assert a["items"] == 3, (a, seen)
    assert a["count"] > 40, (a, seen)  # the words were there to measure
    assert a["split"] == [], (a["split"], seen)
    assert a["overflowing"] == [], (a["overflowing"], seen)

    # b. The whole text is a file to click, and clicking it gives the whole text.
    b = report["file"]
    assert b["button"] and "roombot-long.txt" in b["button"] and b["enabled"], (b, seen)
    assert "roombot-long.txt" in b["card_text"], (b["card_text"], seen)
    assert b.get("downloaded"), (b, seen)
    whole = Path(b["downloaded"]["path"]).read_bytes()
    assert whole == uploaded, (len(whole), len(uploaded), seen)
    assert len(whole) == file_content["info"]["size"] > CONTENT_BUDGET, seen
    assert whole.decode().startswith(fill.LONG_LINE), seen

    # c. The card shows as a reply to the message that started its turn, below it.
    c = report["thread"]
    assert c["preview"] and "please fix the flaky build" in c["preview"], (c, seen)
    assert trigger in urllib.parse.unquote(c["preview_link"] or ""), (c, seen)
    assert 0 <= c["trigger_index"] < c["card_index"], (c, seen)

    # d. After the edit the reader sees the group's count. Hydrogen does not apply
    # m.replace: it shows the edit's fallback line as a message after the card.
    d = report["group"]
    count = fill.group_text(fill.GROUP_COUNT)
    shown = d["card_text"] if count in d["card_text"] else d["edit_text"] or ""
    assert count in shown, (d, seen)
    assert d["card_index"] < d["edit_index"] or count in d["card_text"], (d, seen)

    print(
        f"browser test: room filled in {filled - started:.1f} s, "
        f"browser {report['seconds']:.1f} s, in all {time.monotonic() - started:.1f} s"
    )
