"""Room commands bench: from a moderator's command to the bot's answer in their client.

Against a throwaway local Synapse, in a plain and an encrypted room:

- `help`: the moderator's client sends `!roombot help`; time until its own sync
  returns the bot's answer (the command reaches the bot's sync, is claimed in
  SQLite, answered through the outbox, and reaches the moderator's sync again).
- `plan`: `!roombot reporters plan NODE pi enable`, with a node loop
  (serve_requests, polling every `--interval` s) answering from a handler that
  plans nothing; the poll interval is most of it.
- baseline, measured in the same run: the moderator sends a plain message and a
  second member's sync returns it: one hop through the homeserver, where an
  answer takes two and the bot's work between.

    .venv/bin/python bench/bench_room_commands.py [--samples 30] [--interval 2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from roombot.bot import Bot
from roombot.config import parse_config
from roombot.devserver import DevServer, free_port
from roombot.node_requests import Request, Result, serve_requests
from roombot.viewer import Viewer

TOKEN = "bench-room-commands-token-0123456789"


async def seen_after(viewer: Viewer, room: str, sender: str, count: int) -> float:
    while len(viewer.messages(room, sender)) < count:
        await viewer.sync(5000)
    return time.monotonic()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


async def main(samples: int, interval: float) -> None:
    work = Path(tempfile.mkdtemp(prefix="roombot-bench-cmd-"))
    os.environ["ROOMBOT_BENCH_NODE_TOKEN"] = TOKEN
    with DevServer(work / "synapse") as hs:
        bot_user, mod_user, peer_user = (hs.register_user(n) for n in ("bot", "mod", "peer"))
        mod = Viewer(hs.url, mod_user.user_id, mod_user.password, work / "mod")
        peer = Viewer(hs.url, peer_user.user_id, peer_user.password, work / "peer")
        await mod.login()
        await peer.login()
        rooms = {}
        for label, enc in (("plain", False), ("encrypted", True)):
            rooms[label] = await mod.create_room(
                encrypted=enc, invite=(bot_user.user_id, peer_user.user_id)
            )
            await peer.join(rooms[label])
        (work / "bot").mkdir()
        (work / "bot" / "pw").write_text(bot_user.password)
        port = free_port()
        config = parse_config(
            {
                "matrix": {
                    "homeserver": hs.url,
                    "user_id": bot_user.user_id,
                    "password_file": "pw",
                },
                "rooms": [{"room": r} for r in rooms.values()],
                "api": {
                    "port": port,
                    "sources": [
                        {
                            "name": "nodes",
                            "token_env": "ROOMBOT_BENCH_NODE_TOKEN",
                            "rooms": ["*"],
                        }
                    ],
                },
                "outbox": {"poll_interval": 1.0},
                "log": {"level": "warning"},
            },
            base=work / "bot",
        )
        bot = Bot(config)
        task = asyncio.create_task(bot.run(handle_signals=False))
        await asyncio.wait_for(bot.started.wait(), 60)
        stop = asyncio.Event()

        def handle(r: Request) -> Result:
            return Result(r.id, True, "", "ab" * 32, "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")

        node = asyncio.create_task(
            serve_requests(
                f"http://127.0.0.1:{port}", TOKEN, "bench", work / "node",
                stop=stop, interval=interval, handle=handle, enabled=lambda: True,
            )
        )  # fmt: skip
        results: dict[str, dict[str, list[float]]] = {}
        try:
            for label, room in rooms.items():
                await mod.wait_member(room, bot_user.user_id)
                await peer.wait_member(room, bot_user.user_id)
                times: dict[str, list[float]] = {"baseline": [], "help": [], "plan": []}
                for i in range(samples):
                    await mod.sync(0)
                    await peer.sync(0)
                    n = len(peer.messages(room, mod_user.user_id))
                    t0 = time.monotonic()
                    await mod.send_text(room, f"hello {i}")
                    times["baseline"].append(
                        await seen_after(peer, room, mod_user.user_id, n + 1) - t0
                    )
                    for what, body in (
                        ("help", "!roombot help"),
                        ("plan", "!roombot reporters plan bench pi enable"),
                    ):
                        await mod.sync(0)
                        n = len(mod.messages(room, bot_user.user_id))
                        t0 = time.monotonic()
                        await mod.send_text(room, body)
                        times[what].append(
                            await seen_after(mod, room, bot_user.user_id, n + 1) - t0
                        )
                results[label] = times
        finally:
            stop.set()
            await node
            bot.stop()
            await asyncio.wait_for(task, 60)
            await mod.close()
            await peer.close()
    print(
        f"room commands bench: {samples} samples per figure, local Synapse, "
        f"node poll interval {interval:g} s"
    )
    print(f"{'room':<10} {'figure':<22} {'p50 ms':>9} {'p99 ms':>9} {'p50 vs baseline':>16}")
    for label, times in results.items():
        base = pct(times["baseline"], 0.5)
        for what in ("baseline", "help", "plan"):
            p50, p99 = pct(times[what], 0.5), pct(times[what], 0.99)
            print(f"{label:<10} {what:<22} {p50:>9.1f} {p99:>9.1f} {p50 / base:>15.2f}x")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--interval", type=float, default=2.0)
    a = ap.parse_args()
    asyncio.run(main(a.samples, a.interval))
