"""Room stage bench: what a storm puts in the timeline, and what the stage costs.

A storm of `--failures` failed turns (default 10,000) across 5 group keys (5 kinds
of one provider and harness) in one room, one failure every `--gap` seconds of the
stage's clock, fed to the room stage with the default room settings. Printed:

- timeline events per failed turn: events a client shows in the room's main
  timeline (cards not in a thread, group cards) and the group cards' edits
  (`m.replace` events, folded into their card by clients but still events);
- the target: at most 5 group cards, plus one edit per group per `group_interval`
  of storm, plus one at the end of each burst;
- the stage's own cost per decision, beside the turn machine's cost per failed
  turn measured in the same run (start, failed end, settle tick), as a ratio.

    .venv/bin/python bench/bench_room.py [--failures 10000] [--gap 0.1]
"""

from __future__ import annotations

import argparse
import math
import time

from cards import Kind, TurnError
from roombot.events import TurnEnded, TurnStarted
from roombot.room import Card, GroupEdit, RoomAction, RoomPolicy, RoomStage
from roombot.turns import Post, TurnMachine

ROOM = "!storm:bench"
KINDS = (Kind.QUOTA, Kind.RATE_LIMIT, Kind.PROVIDER_UNAVAILABLE, Kind.AUTH, Kind.TIMEOUT)


def posts(n: int) -> list[Post]:
    return [
        Post(
            ROOM,
            f"t{i}",
            TurnError(
                kind=KINDS[i % len(KINDS)],
                message=f"{KINDS[i % len(KINDS)]}: the provider said no (#{i})",
                harness="codex",
                provider="openai",
                model="gpt-5",
                turn=f"t{i}",
            ),
        )
        for i in range(n)
    ]


def storm(n: int, gap: float) -> tuple[list[RoomAction], float]:
    stage = RoomStage()
    out: list[RoomAction] = []
    decisions = posts(n)
    t0 = time.perf_counter()
    for i, p in enumerate(decisions):
        now = i * gap
        out += stage.decided(p, now)
        due = stage.next_deadline()
        if due is not None and due <= now:
            out += stage.tick(now)
    out += stage.tick(n * gap + 3600)
    return out, (time.perf_counter() - t0) / n


def machine_cost(n: int) -> float:
    machine = TurnMachine()
    t0 = time.perf_counter()
    for i in range(n):
        now = float(i)
        machine.feed(TurnStarted(f"t{i}", ROOM, "codex", "openai", "gpt-5"), now)
        machine.feed(TurnEnded(f"t{i}", error={"status": 429, "body": "quota"}), now)
        machine.tick(now + 2)
    return (time.perf_counter() - t0) / n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--failures", type=int, default=10_000)
    ap.add_argument("--gap", type=float, default=0.1)
    args = ap.parse_args()
    out, per_decision = storm(args.failures, args.gap)
    per_turn = machine_cost(args.failures)
    cards = [a for a in out if isinstance(a, Card)]
    timeline = [c for c in cards if c.place.thread is None]
    threaded = [c for c in cards if c.place.thread is not None]
    edits = [a for a in out if isinstance(a, GroupEdit)]
    policy = RoomPolicy()
    seconds = args.failures * args.gap
    # One edit per group per interval of storm, and one more at the end of the burst.
    allowed = len(KINDS) * (math.ceil(seconds / policy.group_interval) + 1)
    print(f"storm: {args.failures:,} failures, 5 group keys, {seconds:,.0f} s of storm")
    print(f"timeline cards (group cards): {len(timeline)}   (target: at most {len(KINDS)})")
    print(f"group card edits: {len(edits)}   (target: at most {allowed})")
    print(f"own cards in the group cards' threads: {len(threaded)}")
    print(f"timeline events per failed turn: {(len(timeline) + len(edits)) / args.failures:.4f}")
    print(f"room stage per decision: {per_decision * 1e6:.1f} us")
    print(f"turn machine per failed turn: {per_turn * 1e6:.1f} us")
    print(f"stage / machine: {per_decision / per_turn:.2f}x")


if __name__ == "__main__":
    main()
