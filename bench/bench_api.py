"""Events per second the report API accepts, and its time to acknowledgement,
beside the same server answering a bare 202 with no work, in the same run.

The server runs in its own process (real make_app, real Pipeline: SQLite journal
with synchronous=FULL, the real turn rules, the real outbox); the clients are an
aiohttp pool in this process, over loopback. Three loads, each for --seconds:

  bare   POST /bare: the same server answers 202 at once (no auth, no parsing, no
         journal): the ceiling of aiohttp on this machine.
  event  POST /v1/events: one event per request (turn.started, turn.output,
         turn.ended per turn), bearer token, schema, rooms, rate limit, journal.
  batch  POST /v1/batch with --batch events per request.

Printed: requests/s, events/s, p50/p99 time to the answer, and each as a ratio
to bare.

    .venv/bin/python bench/bench_api.py [--clients 64] [--seconds 5] [--batch 50]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
ROOM = "!bench:example.org"
TOKEN = "bench-token-0123456789abcdef"


# -- the server process ------------------------------------------------------------


async def serve(state: Path) -> None:
    from aiohttp import web

    from roombot.api import make_app
    from roombot.api.settings import ApiSettings, SourceSettings
    from roombot.outbox import Outbox
    from roombot.pipeline import Pipeline
    from roombot.turns import TurnMachine

    pipeline = Pipeline(state / "journal.sqlite3", TurnMachine(), Outbox(state / "out.sqlite3"))
    await pipeline.start()
    source = SourceSettings("bench", TOKEN, frozenset({ROOM}), rate=1e9, burst=1e9)
    app = make_app(ApiSettings(sources=(source,)), pipeline)

    async def bare(request: web.Request) -> web.Response:
        return web.json_response({"accepted": 1, "duplicates": 0, "events": []}, status=202)

    app.router.add_post("/bare", bare)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0, backlog=1024).start()
    print(runner.addresses[0][1], flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until EOF
    await runner.cleanup()
    await pipeline.stop()


# -- the clients -----------------------------------------------------------------


def turn_events(n: int) -> list[dict[str, Any]]:
    t = f"bt{n}"
    return [
        {"type": "turn.started", "turn": t, "room": ROOM, "harness": "codex", "event_id": f"{t}s"},
        {"type": "turn.output", "turn": t, "text": "a chunk of the answer", "event_id": f"{t}o"},
        {"type": "turn.ended", "turn": t, "stop_reason": "end_turn", "event_id": f"{t}e"},
    ]


async def load(
    url: str, mode: str, clients: int, seconds: float, batch: int, counter: itertools.count[int]
) -> tuple[int, int, list[float]]:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    latencies: list[float] = []
    totals = {"requests": 0, "events": 0}
    conn = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(connector=conn) as http:
        end = time.perf_counter() + seconds

        async def worker() -> None:
            pending: list[dict[str, Any]] = []
            while time.perf_counter() < end:
                if mode == "bare":
                    path, body, n = "/bare", {"type": "x"}, 1
                elif mode == "event":
                    if not pending:
                        pending = turn_events(next(counter))
                    path, body, n = "/v1/events", pending.pop(0), 1
                else:
                    events: list[dict[str, Any]] = []
                    while len(events) < batch:
                        events += turn_events(next(counter))
                    path, body, n = "/v1/batch", {"events": events[:batch]}, batch
                t0 = time.perf_counter()
                async with http.post(url + path, json=body, headers=headers) as resp:
                    await resp.read()
                    if resp.status != 202:
                        raise RuntimeError(f"{path}: {resp.status} {await resp.text()}")
                latencies.append(time.perf_counter() - t0)
                totals["requests"] += 1
                totals["events"] += n

        await asyncio.gather(*(worker() for _ in range(clients)))
    return totals["requests"], totals["events"], latencies


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--batch", type=int, default=50)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", tmp],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        assert proc.stdout is not None and proc.stdin is not None
        url = f"http://127.0.0.1:{proc.stdout.readline().strip()}"
        counter = itertools.count()
        try:
            await load(url, "event", 8, 1.0, args.batch, counter)  # warm up
            results = {}
            for mode in ("bare", "event", "batch"):
                requests, events, lat = await load(
                    url, mode, args.clients, args.seconds, args.batch, counter
                )
                results[mode] = (requests / args.seconds, events / args.seconds, lat)
        finally:
            proc.stdin.close()
            proc.wait(30)

    base_rps, _, base_lat = results["bare"]
    b50, b99 = pct(base_lat, 50), pct(base_lat, 99)
    print(f"report API over loopback: {args.clients} concurrent clients, {args.seconds:g} s each")
    print(
        f"{'load':<7}{'req/s':>10}{'events/s':>11}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'events/s vs bare':>18}{'p50 vs bare':>13}{'p99 vs bare':>13}"
    )
    for mode, (rps, eps, lat) in results.items():
        p50, p99 = pct(lat, 50), pct(lat, 99)
        print(
            f"{mode:<7}{rps:>10.0f}{eps:>11.0f}{p50 * 1000:>9.2f}{p99 * 1000:>9.2f}"
            f"{eps / base_rps:>17.2f}x{p50 / b50:>12.2f}x{p99 / b99:>12.2f}x"
        )


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        asyncio.run(serve(Path(sys.argv[2])))
    else:
        asyncio.run(main())
