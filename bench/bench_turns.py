"""Turn rules: events per second, and bytes per open turn, beside a baseline in the same run.

    .venv/bin/python bench/bench_turns.py [--events 1000000] [--open-turns 100000]

Throughput: one million typed events (turns of 10 events: start, a failed
attempt, a fallback, output chunks, an end; one turn in four fails, one in
ten never ends within the run) through `TurnMachine.feed`, against a
baseline of one dict update per event over the same events.
Memory: `tracemalloc` bytes held by the machine for 100,000 open turns
(each `turn.started` with an event id), against a baseline dict holding one
reference per turn. Events are built before measuring, so only what the
machine (or the dict) adds is counted.
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc

from roombot.events import (
    Event,
    StopReason,
    TurnAttempt,
    TurnEnded,
    TurnFailedAttempt,
    TurnOutput,
    TurnStarted,
)
from roombot.turns import TurnMachine

ROOM = "!team:example.org"


def turn_events(i: int, t: float) -> list[Event]:
    turn = f"turn-{i}"
    out: list[Event] = [
        TurnStarted(
            turn=turn,
            room=ROOM,
            harness="claude-code",
            provider="anthropic",
            model="claude-opus-4",
            node="n1",
            event_id=f"{turn}-s",
            at=t,
        ),
        TurnFailedAttempt(
            turn=turn,
            provider="anthropic",
            model="claude-opus-4",
            error={"status": 429, "body": "rate limited"},
            at=t + 0.1,
        ),
        TurnAttempt(turn=turn, provider="openai", model="gpt-5", at=t + 0.2),
    ]
    out += [TurnOutput(turn=turn, text=f"chunk {k} of the answer. ", at=t + 0.3) for k in range(6)]
    if i % 10 == 9:
        out.append(TurnOutput(turn=turn, text="still going", at=t + 0.4))  # never ends here
    elif i % 4 == 3:
        out.append(TurnEnded(turn=turn, stop_reason=StopReason.MAX_TOKENS, at=t + 0.5))
    else:
        out.append(TurnEnded(turn=turn, stop_reason=StopReason.END_TURN, at=t + 0.5))
    return out


def build_stream(count: int) -> list[Event]:
    """Ten events per turn, 50 turns interleaved at a time, time advancing 10 ms per event."""
    stream: list[Event] = []
    i = 0
    while len(stream) < count:
        batch = [turn_events(i + j, len(stream) * 0.01) for j in range(50)]
        i += 50
        for k in range(10):
            stream += [b[k] for b in batch]
    return stream[:count]


def throughput(count: int) -> None:
    stream = build_stream(count)
    clock = [e.at or 0.0 for e in stream]

    gc.collect()
    start = time.perf_counter()
    seen: dict[str, Event] = {}
    for event in stream:
        seen[event.turn] = event  # type: ignore[index]
    baseline = time.perf_counter() - start

    machine = TurnMachine()
    decisions = 0
    gc.collect()
    start = time.perf_counter()
    for event, now in zip(stream, clock, strict=True):
        decisions += len(machine.feed(event, now))
    machine_s = time.perf_counter() - start

    print(f"events:                   {count:,}")
    print(f"baseline (dict update):   {count / baseline:,.0f} events/s")
    print(f"TurnMachine.feed:         {count / machine_s:,.0f} events/s")
    print(
        f"ratio machine/baseline:   {baseline / machine_s:.3f} (x{machine_s / baseline:.1f} slower)"
    )
    print(f"decisions made:           {decisions:,}  open turns left: {machine.open_turns:,}")


def memory(turns: int) -> None:
    events = [
        TurnStarted(
            turn=f"open-{i}",
            room=ROOM,
            harness="claude-code",
            provider="anthropic",
            model="claude-opus-4",
            node="n1",
            event_id=f"open-{i}-s",
            at=1000.0 + i * 0.001,
        )
        for i in range(turns)
    ]

    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    baseline_dict: dict[str, Event] = {}
    for event in events:
        baseline_dict[event.turn] = event
    baseline = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()

    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    machine = TurnMachine()
    for event in events:
        machine.feed(event, event.at or 0.0)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert machine.open_turns == turns

    print(f"open turns:               {turns:,}")
    print(f"baseline (dict of refs):  {baseline / turns:,.0f} bytes per turn")
    print(f"TurnMachine:              {held / turns:,.0f} bytes per open turn")
    print(f"ratio machine/baseline:   {held / baseline:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--open-turns", type=int, default=100_000)
    args = parser.parse_args()
    throughput(args.events)
    print()
    memory(args.open_turns)


if __name__ == "__main__":
    main()
