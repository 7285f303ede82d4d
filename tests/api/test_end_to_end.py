"""Events posted over HTTP become a notice that a second real client decrypts.

The whole path of `roombot run`: the report API (bearer token, schema, journal)
-> the turn rules -> the outbox -> the Matrix shell, on the real Synapse of the
tests, in an end-to-end encrypted room; the team member is a real nio client
with its own device that decrypts the notice and finds the card.
"""

from __future__ import annotations

import socket
from pathlib import Path

import aiohttp

from cards.codec import CARD_KEY, read_payload
from cards.shape import TurnError
from roombot.devserver import DevServer
from tests.bot.helpers import make_team, running, wait_sent

TOKEN = "e2e-hub-token-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_events_posted_over_http_reach_an_encrypted_room(
    synapse: DevServer, tmp_path: Path
) -> None:
    team = await make_team(synapse, tmp_path, encrypted=True)
    port = free_port()
    (tmp_path / "hub.token").write_text(TOKEN + "\n")
    team.config_path.write_text(
        team.config_path.read_text()
        + f"""
[api]
port = {port}

[[api.sources]]
name = "hub"
token_file = "{tmp_path / "hub.token"}"
rooms = ["{team.room_id}"]

[turns]
settle = 0.2
grace = 0.2
"""
    )
    overloaded = (
        '{"type":"error","error":{"type":"rate_limit_error",'
        '"message":"Number of request tokens has exceeded your per-minute rate limit"}}'
    )
    events = [
        {
            "type": "turn.started",
            "turn": "hub-turn-1",
            "room": team.room_id,
            "harness": "claude-code",
            "provider": "anthropic",
            "model": "claude-sonnet-4",
            "event_id": "hub-1",
        },
        {
            "type": "turn.ended",
            "turn": "hub-turn-1",
            "error": {"status": 429, "body": overloaded, "headers": {"retry-after": "30"}},
            "event_id": "hub-2",
        },
    ]
    url = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {TOKEN}"}
    try:
        async with running(team.config()) as bot, aiohttp.ClientSession() as http:
            async with http.post(f"{url}/v1/batch", json={"events": events}, headers=headers) as r:
                assert r.status == 202, await r.text()
            # a source without the token takes nothing
            async with http.post(f"{url}/v1/batch", json={"events": events}) as r:
                assert r.status == 401
            await wait_sent(bot, 1)
            async with http.get(f"{url}/v1/turns/hub-turn-1", headers=headers) as r:
                state = await r.json()
            assert state["state"] == "decided" and state["notice"] == "post"
            assert state["card"]["model"] == "claude-sonnet-4"

        seen = await team.member.wait_for(team.room_id, 1, sender=team.bot.user_id)
        assert not team.member.undecryptable
        assert len(seen) == 1
        notice = seen[0]
        assert notice.encrypted
        assert notice.content["msgtype"] == "m.notice"
        card = read_payload(notice.content.get(CARD_KEY))
        assert isinstance(card, TurnError), card
        assert card.provider == "anthropic" and card.model == "claude-sonnet-4"
        assert card.harness == "claude-code"
        assert "per-minute rate limit" in card.message
        assert "per-minute rate limit" in notice.content["body"]
    finally:
        await team.member.close()
