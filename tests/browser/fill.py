"""What the browser test puts in the room: one function per case, each returning the
event ids the test looks at. Every card goes through the real bot: turn events POSTed
to its report API, the rules, the room stage (threads, group cards), the outbox and
the Matrix shell."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp

from roombot.bot import Bot
from tests.bot.helpers import Team, wait_sent

TOKEN_ENV = "ROOMBOT_BROWSER_TOKEN"
GROUP_COUNT = 5
LONG_LINE = 'provider trace: <frame id="7"> & ünïcødé ✓ 漢字 — retrying upstream call\n'
# A turn that fell back twice before failing for good, as a harness reports it
# (the provider's own error bodies): the normaliser makes its three attempts.
CHAIN = (
    ("anthropic", "claude-sonnet-4-5-20250929", 529,
     '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
    ("openai", "gpt-5-2025-08-07", 429,
     '{"error":{"message":"Rate limit reached for gpt-5 in organization org-4FpqWx2 on tokens '
     'per min (TPM): Limit 30000, Used 29771, Requested 1204. Please try again in 1.95s.",'
     '"type":"tokens","code":"rate_limit_exceeded"}}'),
    ("anthropic", "claude-opus-4-1-20250805", 400,
     '{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance '
     'is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or '
     'purchase credits."}}'),
)  # fmt: skip


def api_config(port: int) -> str:
    """The bot's config lines for its report API on `port` (token in TOKEN_ENV)."""
    return (
        f'[api]\nport = {port}\n[[api.sources]]\nname = "browser"\n'
        f'token_env = "{TOKEN_ENV}"\nrooms = ["*"]\n[turns]\nsettle = 0.2\n'
    )


# The room edits a group card at most once a second, so the test need not wait 30 s.
ROOM_CONFIG = "group_interval = 1\n"


Tried = tuple[tuple[str, str, int, str], ...]  # (provider, model, HTTP status, body) each


def turn_events(
    room: str, turn: str, attempts: Tried, trigger: str | None = None
) -> list[dict[str, Any]]:
    provider, model = attempts[0][0], attempts[0][1]
    events: list[dict[str, Any]] = [
        {"type": "turn.started", "turn": turn, "room": room, "harness": "claude-code",
         "provider": provider, "model": model, "event_id": f"{turn}-s"},
    ]  # fmt: skip
    if trigger is not None:
        events[0]["trigger"] = trigger
    for i, (provider, model, status, body) in enumerate(attempts):
        events.append(
            {"type": "turn.failed_attempt", "turn": turn, "provider": provider, "model": model,
             "error": {"status": status, "body": body}, "event_id": f"{turn}-f{i}"}
        )  # fmt: skip
    last = attempts[-1]
    error = {"status": last[2], "body": last[3]}
    events.append({"type": "turn.ended", "turn": turn, "error": error, "event_id": f"{turn}-e"})
    return events


async def _reported(
    bot: Bot, team: Team, api: str, token: str, turn: str, events: list[dict[str, Any]]
) -> tuple[str, str | None]:
    """POST the turn's events to the bot's report API; the card's event id and its
    file event's, once the bot has sent them."""
    before = bot.outbox.counts()["sent"]
    auth = {"Authorization": f"Bearer {token}"}
    async with (
        aiohttp.ClientSession(headers=auth) as http,
        http.post(f"{api}/v1/batch", json={"events": events}) as r,
    ):
        assert r.status == 202, await r.text()
    await wait_sent(bot, before + 1, timeout=60)
    notice = bot.outbox.get(f"{turn}/post")
    assert notice is not None and notice.event_id, notice
    return notice.event_id, notice.file_event_id


async def chain_card(bot: Bot, team: Team, api: str, token: str) -> str:
    """a. A card whose attempts are a chain of three, through the whole bot."""
    events = turn_events(team.room_id, "chain", CHAIN)
    card, _ = await _reported(bot, team, api, token, "chain", events)
    return card


async def long_message(bot: Bot, team: Team, api: str, token: str) -> tuple[str, str]:
    """b. A provider's answer too long for the card: the bot sends it whole as an
    m.file reply to the card. (card event id, file event id)"""
    body = LONG_LINE * (80_000 // len(LONG_LINE.encode()))
    events = turn_events(team.room_id, "long", (("openai", "gpt-5", 500, body),))
    card, file = await _reported(bot, team, api, token, "long", events)
    assert file is not None, "the bot sent no file event for a long message"
    return card, file


CREDIT = CHAIN[2]
QUOTA = (
    "openai",
    "gpt-5",
    429,
    '{"error":{"message":"You exceeded your current quota, please check your plan and '
    'billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}',
)


async def thread_card(bot: Bot, team: Team, api: str, token: str) -> tuple[str, str]:
    """c. A person's message starts a turn; its card goes in that message's thread,
    with the reply fallback for clients without threads. (trigger id, card id)"""
    trigger = await team.member.send_text(team.room_id, "@agent please fix the flaky build")
    events = turn_events(team.room_id, "threaded", (CREDIT,), trigger=trigger)
    card, _ = await _reported(bot, team, api, token, "threaded", events)
    return trigger, card


def group_text(count: int) -> str:
    """The group card's first line, as cards draws it (also its edit's fallback)."""
    return f"{count} turns failed: quota, openai, claude-code"


async def group_card(
    bot: Bot, team: Team, api: str, token: str, count: int = GROUP_COUNT
) -> tuple[str, str]:
    """d. A storm of `count` failed turns of one key: the first card becomes the group
    card, edited (m.replace) with the count. (card id, last edit id)"""
    turns = [f"group{i}" for i in range(count)]
    card, _ = await _reported(
        bot, team, api, token, turns[0], turn_events(team.room_id, turns[0], (QUOTA,))
    )
    events = [e for t in turns[1:] for e in turn_events(team.room_id, t, (QUOTA,))]
    auth = {"Authorization": f"Bearer {token}"}
    async with (
        aiohttp.ClientSession(headers=auth) as http,
        http.post(f"{api}/v1/batch", json={"events": events}) as r,
    ):
        assert r.status == 202, await r.text()
    edit = f"group:{turns[0]}/edit/{count}.0"  # the edit that shows every turn
    deadline = asyncio.get_running_loop().time() + 60
    while (n := bot.outbox.get(edit)) is None or n.event_id is None:
        assert asyncio.get_running_loop().time() < deadline, bot.outbox.counts()
        await asyncio.sleep(0.1)
    return card, n.event_id
