"""Delivery bench: notices/s and decision -> member-sync latency, beside a bare PUT /send.

Against a throwaway local Synapse (rate limits raised), in a plain and in an
encrypted room. For each room:

- throughput: a burst of N decisions enqueued at once; time until the member's
  sync has seen all N. Baseline: N bare `PUT /rooms/{id}/send/m.room.message/{txn}`
  of the same content, one after another on one connection (the outbox also sends
  one at a time per room), until the member has seen them all.
- latency: M decisions one at a time (the next after the member saw the last);
  time from `enqueue` to the member's sync returning it; p50 and p99. Baseline: the
  same for a bare PUT.

The bare PUT is plaintext in both rooms (it shows the cost of the outbox, nio and,
in the encrypted room, Megolm encryption together). Figures are printed as ratios
against the baseline measured in the same run.

    .venv/bin/python bench/bench_delivery.py [--burst 200] [--latency 100]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp

from cards.kinds import Kind
from cards.notice import build_notice
from cards.shape import Attempt, TurnError
from roombot.bot import Bot
from roombot.config import parse_config
from roombot.devserver import DevServer, User
from roombot.turns import Post
from roombot.viewer import Viewer

_TURN = re.compile(r"\((\S+)\)$")


def error(turn: str) -> TurnError:
    words = (
        "This request would exceed the rate limit for your organization of 50 requests "
        f"per minute. Please try again later. ({turn})"
    )
    return TurnError(
        kind=Kind.RATE_LIMIT,
        message=words,
        harness="claude-code",
        provider="anthropic",
        model="claude-sonnet-4-5",
        retry_after=23,
        attempts=(Attempt(Kind.RATE_LIMIT, words, "anthropic", "claude-sonnet-4-5", 429, 23),),
        turn=turn,
    )


class Watch:
    """The member's continuous sync; records when each notice (by turn) was first seen."""

    def __init__(self, member: Viewer, room_id: str) -> None:
        self.member = member
        self.room_id = room_id
        self.seen: dict[str, float] = {}
        self._task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    async def _loop(self) -> None:
        while True:
            await self.member.sync(10_000)
            for s in self.member.messages(self.room_id):
                key = s.content.get("bench_turn")
                card = s.content.get("dev.roombot.card")
                if key is None and isinstance(card, dict):
                    # The bot's notices: the turn is at the end of the provider's words.
                    m = _TURN.search(str(card.get("message", "")))
                    key = m.group(1) if m else None
                if isinstance(key, str) and key not in self.seen:
                    self.seen[key] = s.received
                    self._changed.set()

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def until(self, turns: list[str], timeout: float = 300) -> float:
        deadline = time.monotonic() + timeout
        while not all(t in self.seen for t in turns):
            self._changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                missing = sum(1 for t in turns if t not in self.seen)
                raise TimeoutError(f"{missing} of {len(turns)} not seen")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 1))
        return max(self.seen[t] for t in turns)


async def bare_put(
    session: aiohttp.ClientSession, hs: DevServer, user: User, room_id: str, content: dict[str, Any]
) -> None:
    url = f"{hs.url}/_matrix/client/v3/rooms/{room_id}/send/m.room.message/{uuid.uuid4().hex}"
    async with session.put(
        url, json=content, headers={"Authorization": f"Bearer {user.access_token}"}
    ) as r:
        r.raise_for_status()
        await r.read()


def pct(values: list[float], q: float) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[q - 1]
        if len(values) > 1
        else values[0]
    )


async def bench_room(
    label: str,
    bot: Bot,
    hs: DevServer,
    bot_user: User,
    watch: Watch,
    room_id: str,
    burst: int,
    latency_n: int,
) -> dict[str, float]:
    run = uuid.uuid4().hex[:6]
    async with aiohttp.ClientSession() as session:
        # Warm up both paths (Megolm session shared, connections open).
        w = f"{label}-{run}-warm"
        bot.outbox.enqueue(Post(room_id, w, error(w)))
        await watch.until([w])
        content = dict(build_notice(error("x")).content)
        await bare_put(session, hs, bot_user, room_id, {**content, "bench_turn": f"{w}-bare"})
        await watch.until([f"{w}-bare"])

        # Throughput, bot.
        turns = [f"{label}-{run}-b{i}" for i in range(burst)]
        t0 = time.monotonic()
        for t in turns:
            bot.outbox.enqueue(Post(room_id, t, error(t)))
        last = await watch.until(turns)
        bot_rate = burst / (last - t0)
        # Throughput, bare PUT of the same content.
        bare = [f"{label}-{run}-p{i}" for i in range(burst)]
        contents = {t: {**dict(build_notice(error(t)).content), "bench_turn": t} for t in bare}
        t0 = time.monotonic()
        for t in bare:
            await bare_put(session, hs, bot_user, room_id, contents[t])
        last = await watch.until(bare)
        bare_rate = burst / (last - t0)

        # Latency, one at a time.
        bot_lat: list[float] = []
        for i in range(latency_n):
            t = f"{label}-{run}-l{i}"
            t0 = time.monotonic()
            bot.outbox.enqueue(Post(room_id, t, error(t)))
            bot_lat.append(await watch.until([t]) - t0)
        bare_lat: list[float] = []
        for i in range(latency_n):
            t = f"{label}-{run}-m{i}"
            c = {**dict(build_notice(error(t)).content), "bench_turn": t}
            t0 = time.monotonic()
            await bare_put(session, hs, bot_user, room_id, c)
            bare_lat.append(await watch.until([t]) - t0)
    return {
        "rate": bot_rate,
        "bare_rate": bare_rate,
        "p50": pct(bot_lat, 50) * 1000,
        "p99": pct(bot_lat, 99) * 1000,
        "bare_p50": pct(bare_lat, 50) * 1000,
        "bare_p99": pct(bare_lat, 99) * 1000,
    }


async def main(burst: int, latency_n: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="roombot-bench-"))
    with DevServer(work / "synapse") as hs:
        bot_user = hs.register_user("bot")
        member_user = hs.register_user("member")
        member = Viewer(hs.url, member_user.user_id, member_user.password, work / "member")
        await member.login()
        plain = await member.create_room(encrypted=False, invite=(bot_user.user_id,))
        encrypted = await member.create_room(encrypted=True, invite=(bot_user.user_id,))
        (work / "bot").mkdir()
        (work / "bot" / "pw").write_text(bot_user.password)
        config = parse_config(
            {
                "matrix": {
                    "homeserver": hs.url,
                    "user_id": bot_user.user_id,
                    "password_file": "pw",
                },
                "rooms": [{"room": plain}, {"room": encrypted}],
                "outbox": {"poll_interval": 1.0},
                "log": {"level": "warning"},
            },
            base=work / "bot",
        )
        bot = Bot(config)
        task = asyncio.create_task(bot.run(handle_signals=False))
        await asyncio.wait_for(bot.started.wait(), 60)
        results = {}
        try:
            for label, room in (("plain", plain), ("encrypted", encrypted)):
                watch = Watch(member, room)
                watch.start()
                try:
                    results[label] = await bench_room(
                        label, bot, hs, bot_user, watch, room, burst, latency_n
                    )
                finally:
                    await watch.stop()
        finally:
            bot.stop()
            await asyncio.wait_for(task, 60)
            await member.close()
    print(f"delivery bench: burst {burst}, latency samples {latency_n}, local Synapse, 1 room each")
    print(f"{'room':<10} {'figure':<18} {'roombot':>10} {'bare PUT':>10} {'ratio':>8}")
    for label, r in results.items():
        rows = (
            ("notices/s", r["rate"], r["bare_rate"]),
            ("latency p50 (ms)", r["p50"], r["bare_p50"]),
            ("latency p99 (ms)", r["p99"], r["bare_p99"]),
        )
        for name, ours, base in rows:
            print(f"{label:<10} {name:<18} {ours:>10.1f} {base:>10.1f} {ours / base:>7.2f}x")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--burst", type=int, default=200)
    ap.add_argument("--latency", type=int, default=100)
    a = ap.parse_args()
    asyncio.run(main(a.burst, a.latency))
