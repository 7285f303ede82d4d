"""Events per second the report API accepts, and its time to acknowledgement,
beside the same server answering a bare 202 with no work, in the same run, on
each store: SQLite files and PostgreSQL (docs/scaling.md).

The server runs in its own process (real make_app, real Pipeline: the journal
committed before each 202, the real turn rules, the real outbox), once on SQLite
(synchronous=FULL) and once on a throwaway PostgreSQL cluster on a Unix socket
(synchronous_commit on); the clients are an aiohttp pool in this process, over
loopback. Three loads, each for --seconds, on each store:

  bare   POST /bare: the same server answers 202 at once (no auth, no parsing, no
         journal): the ceiling of aiohttp on this machine.
  event  POST /v1/events: one event per request (turn.started, turn.output,
         turn.ended per turn), bearer token, schema, rooms, rate limit, journal.
  batch  POST /v1/batch with --batch events per request.

Printed: requests/s, events/s, p50/p99 time to the answer, each as a ratio to
bare, and PostgreSQL's events/s as a ratio to SQLite's.

    .venv/bin/python bench/bench_api.py [--clients 64] [--seconds 5] [--batch 50]
                                        [--stores sqlite,postgresql]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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


async def serve(state: Path, url: str | None) -> None:
    from aiohttp import web

    from roombot.api import make_app
    from roombot.api.settings import ApiSettings, SourceSettings
    from roombot.outbox import Outbox
    from roombot.pipeline import Pipeline
    from roombot.turns import TurnMachine

    journal, outbox = (url, url) if url else (state / "journal.sqlite3", state / "out.sqlite3")
    pipeline = Pipeline(journal, TurnMachine(), Outbox(outbox))
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


def fresh_store(cluster: Any) -> str:
    from roombot.store.db import PostgresDatabase
    from roombot.store.migrations import migrate

    url: str = cluster.create_database(f"bench{os.getpid()}")
    db = PostgresDatabase(url)
    migrate(db)
    db.close()
    return url


async def run_store(
    args: argparse.Namespace, tmp: str, url: str | None
) -> dict[str, tuple[float, float, list[float]]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", tmp, *([url] if url else [])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert proc.stdout is not None and proc.stdin is not None
    base = f"http://127.0.0.1:{proc.stdout.readline().strip()}"
    counter = itertools.count()
    results = {}
    try:
        await load(base, "event", 8, 1.0, args.batch, counter)  # warm up
        for mode in ("bare", "event", "batch"):
            requests, events, lat = await load(
                base, mode, args.clients, args.seconds, args.batch, counter
            )
            results[mode] = (requests / args.seconds, events / args.seconds, lat)
    finally:
        proc.stdin.close()
        proc.wait(30)
    return results


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--batch", type=int, default=50)
    ap.add_argument("--stores", default="sqlite,postgresql")
    args = ap.parse_args()

    from roombot.store.pgcluster import PgCluster

    by_store: dict[str, dict[str, tuple[float, float, list[float]]]] = {}
    for store in args.stores.split(","):
        with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
            url = None
            if store == "postgresql":
                url = fresh_store(stack.enter_context(PgCluster.started()))
            by_store[store] = await run_store(args, tmp, url)

    print(f"report API over loopback: {args.clients} concurrent clients, {args.seconds:g} s each")
    print(
        f"{'store':<11}{'load':<7}{'req/s':>10}{'events/s':>11}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'events/s vs bare':>18}{'p50 vs bare':>13}{'p99 vs bare':>13}{'vs sqlite':>11}"
    )
    sqlite = by_store.get("sqlite")
    for store, results in by_store.items():
        base_rps, _, base_lat = results["bare"]
        b50, b99 = pct(base_lat, 50), pct(base_lat, 99)
        for mode, (rps, eps, lat) in results.items():
            p50, p99 = pct(lat, 50), pct(lat, 99)
            versus = f"{eps / sqlite[mode][1]:>10.2f}x" if sqlite and mode != "bare" else ""
            print(
                f"{store:<11}{mode:<7}{rps:>10.0f}{eps:>11.0f}{p50 * 1000:>9.2f}"
                f"{p99 * 1000:>9.2f}{eps / base_rps:>17.2f}x{p50 / b50:>12.2f}x"
                f"{p99 / b99:>12.2f}x{versus:>11}"
            )


if __name__ == "__main__":
    if len(sys.argv) in (3, 4) and sys.argv[1] == "--serve":
        asyncio.run(serve(Path(sys.argv[2]), sys.argv[3] if len(sys.argv) == 4 else None))
    else:
        asyncio.run(main())
