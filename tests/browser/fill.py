"""What the browser test puts in the room: one function per case, each returning the
event ids the test looks at. Cards a and b go through the real bot; c and d post
today, with the bot user's token, the content the bot will post once the room stage
places cards in threads and groups storms (swap in the bot by changing only these)."""

from __future__ import annotations

import uuid
from typing import Any

import aiohttp

from cards.html import escape
from cards.kinds import Kind
from cards.notice import build_edit, build_notice
from cards.shape import Attempt, TurnError
from roombot.bot import Bot
from tests.bot.helpers import Post, Team, wait_sent

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


Tried = tuple[tuple[str, str, int, str], ...]  # (provider, model, HTTP status, body) each


def turn_events(room: str, turn: str, attempts: Tried) -> list[dict[str, Any]]:
    provider, model = attempts[0][0], attempts[0][1]
    events: list[dict[str, Any]] = [
        {"type": "turn.started", "turn": turn, "room": room, "harness": "claude-code",
         "provider": provider, "model": model, "event_id": f"{turn}-s"},
    ]  # fmt: skip
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


def _card(turn: str) -> TurnError:
    """A card as the bot draws the chain (for the cases posted without the bot)."""
    kinds = (Kind.PROVIDER_UNAVAILABLE, Kind.RATE_LIMIT, Kind.QUOTA)
    said = ("Overloaded", "Rate limit reached for gpt-5.", "Your credit balance is too low.")
    attempts = tuple(
        Attempt(kind, words, p, m, code, None)
        for kind, words, (p, m, code, _) in zip(kinds, said, CHAIN, strict=True)
    )
    return TurnError(
        kind=Kind.QUOTA,
        message="Your credit balance is too low to access the Anthropic API.",
        harness="claude-code",
        provider="anthropic",
        model="claude-opus-4-1-20250805",
        retry_after=None,
        attempts=attempts,
        turn=turn,
    )


def _send(team: Team, content: dict[str, Any]) -> str:
    """One m.room.message as the bot user, through the client-server API."""
    path = f"/_matrix/client/v3/rooms/{team.room_id}/send/m.room.message/{uuid.uuid4().hex}"
    answer = team.hs.request("PUT", path, content, token=team.bot.access_token)
    event_id = answer["event_id"]
    assert isinstance(event_id, str)
    return event_id


async def thread_card(team: Team) -> tuple[str, str]:
    """c. A person's message starts a turn; its card goes in that message's thread,
    with the reply fallback for clients without threads. (trigger id, card id)"""
    trigger = await team.member.send_text(team.room_id, "@agent please fix the flaky build")
    # The lead swaps in the bot here: a turn.started naming `trigger` as its trigger.
    content = build_notice(_card("threaded")).content
    content["m.relates_to"] = {
        "rel_type": "m.thread",
        "event_id": trigger,
        "is_falling_back": True,
        "m.in_reply_to": {"event_id": trigger},
    }
    return trigger, _send(team, content)


def group_text(count: int) -> str:
    return f"{count} turns failed: Quota exhausted · claude-code · anthropic"


async def group_card(bot: Bot, team: Team, count: int = GROUP_COUNT) -> tuple[str, str]:
    """d. A card edited (m.replace) into a group card of `count` failed turns.
    (card id, edit id)"""
    before = bot.outbox.counts()["sent"]
    bot.outbox.enqueue(Post(team.room_id, "group", _card("group")))
    await wait_sent(bot, before + 1, timeout=60)
    posted = bot.outbox.get("group/post")
    assert posted is not None and posted.event_id, posted
    card = posted.event_id
    # The lead swaps in the bot here: cards has no group part yet, so the edit's
    # text says what the group card will say, first line first (the edit's fallback).
    edit = build_edit(card, _card("group"))
    new = edit["m.new_content"]
    new["body"] = f"{group_text(count)}\n{new['body']}"
    said = escape(group_text(count))
    new["formatted_body"] = f"<p><strong>{said}</strong></p>{new['formatted_body']}"
    edit["body"] = f"* {group_text(count)}"
    edit["formatted_body"] = f"* {said}"
    return card, _send(team, edit)
