"""Cards built and rendered per second, beside `json.dumps` of the same payloads in the same run.

    .venv/bin/python bench/bench_cards.py [--seconds 1.0] [--rounds 5]

Over the bundled example cards (one per kind and the fallback chain), one
"card" is the whole path a card takes: the value read from its payload
(`read_payload`), the payload built again (`to_payload`), the three renderings
(`render_plain`, `render_matrix_html`, `render_html_fragment`) and the notice
content the bot sends (`build_notice`, which renders plain and Matrix HTML
again and measures the content against the budget). The baseline is
`json.dumps` of the same payloads: the least any sender of a card must do.
Each figure is the best of several timed rounds (the machine is shared), and
every figure is also printed as a ratio: the time it takes per card over the
time `json.dumps` takes per payload. A line per stage says where the time goes.
Not a test: nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any, TypeVar

from cards.codec import read_payload, to_payload
from cards.notice import build_notice
from cards.render import render_html_fragment, render_matrix_html, render_plain
from cards.shape import TurnError

T = TypeVar("T")


def example_payloads() -> list[dict[str, Any]]:
    folder = resources.files("cards") / "examples"
    return [
        json.loads(entry.read_text(encoding="utf-8"))
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".json")
    ]


def _value(payload: dict[str, Any]) -> TurnError:
    err = read_payload(payload)
    if not isinstance(err, TurnError):
        raise SystemExit(f"a bundled example is not a card: {err}")
    return err


def whole_card(payload: dict[str, Any]) -> None:
    err = _value(payload)
    to_payload(err)
    render_plain(err)
    render_matrix_html(err)
    render_html_fragment(err)
    build_notice(err)


def rate(work: Callable[[], None], items: int, seconds: float, rounds: int) -> float:
    """Items per second: the best round, each round running `work` for about `seconds`."""
    best = 0.0
    for _ in range(rounds):
        done = 0
        start = time.perf_counter()
        while True:
            work()
            done += items
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        best = max(best, done / elapsed)
    return best


def over(items: Sequence[T], step: Callable[[T], object]) -> Callable[[], None]:
    def work() -> None:
        for item in items:
            step(item)

    return work


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per figure (best kept)")
    args = parser.parse_args()

    payloads = example_payloads()
    values = [_value(p) for p in payloads]
    n = len(payloads)
    measure: list[tuple[str, Callable[[], None], Sequence[Any]]] = [
        ("json.dumps of the payload (baseline)", over(payloads, json.dumps), payloads),
        ("whole card: read, build, 3 renderings, notice", over(payloads, whole_card), payloads),
        ("  read_payload", over(payloads, read_payload), payloads),
        ("  to_payload", over(values, to_payload), values),
        ("  render_plain", over(values, render_plain), values),
        ("  render_matrix_html", over(values, render_matrix_html), values),
        ("  render_html_fragment", over(values, render_html_fragment), values),
        ("  build_notice", over(values, build_notice), values),
    ]
    print(f"{n} example cards; best of {args.rounds} rounds of {args.seconds:g} s each")
    baseline = 0.0
    for label, work, items in measure:
        per_second = rate(work, len(items), args.seconds, args.rounds)
        if not baseline:
            baseline = per_second
            print(f"{label:<48} {per_second:>12,.0f} /s")
            continue
        print(
            f"{label:<48} {per_second:>12,.0f} /s"
            f"   {baseline / per_second:>6,.1f}x the time of json.dumps"
        )


if __name__ == "__main__":
    main()
