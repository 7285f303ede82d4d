"""`roombot replay [FILE|-]`: run events (JSON Lines) through the turn rules.

One JSON line per decision on stdout: `{"room", "turn", "card": <payload>}`
for a post, `{"room", "turn", "retract": true}` for a retract. The clock is
the events' `at` (a line without `at` keeps the previous time); at the end
of the input every pending timer runs. A bad line stops the input there:
the lines before it are processed and their timers run, the error names the
line on stderr, and the exit status is 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from cards.codec import to_payload
from roombot.events import EventError, parse_events_jsonl
from roombot.turns import Decision, Post, TurnMachine, TurnRules

_DEFAULTS = TurnRules()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", default="-", help="JSON Lines of events (- = stdin)")
    parser.add_argument("--grace", type=float, default=_DEFAULTS.grace, help="seconds")
    parser.add_argument("--timeout", type=float, default=_DEFAULTS.turn_timeout, help="seconds")
    parser.add_argument("--post-cancelled", action="store_true", help="post cancelled turns")
    parser.add_argument(
        "--reporter",
        action="append",
        default=[],
        metavar="HARNESS=REPORTER",
        help="a reporter that exists for a harness (for the no-reply note)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        rules = TurnRules(
            grace=args.grace, turn_timeout=args.timeout, post_cancelled=args.post_cancelled
        )
        reporters = dict(_pair(item) for item in args.reporter)
    except ValueError as exc:
        print(f"roombot replay: {exc}", file=sys.stderr)
        return 2
    if args.file == "-":
        return replay(sys.stdin, sys.stdout, sys.stderr, rules, reporters)
    try:
        with open(args.file, encoding="utf-8") as lines:
            return replay(lines, sys.stdout, sys.stderr, rules, reporters)
    except OSError as exc:
        print(f"roombot replay: {args.file}: {exc.strerror}", file=sys.stderr)
        return 2


def _pair(item: str) -> tuple[str, str]:
    harness, sep, reporter = item.partition("=")
    if not sep or not harness or not reporter:
        raise ValueError(f"--reporter: expected HARNESS=REPORTER, got {item!r}")
    return harness, reporter


def replay(
    lines: Iterable[str],
    out: TextIO,
    err: TextIO,
    rules: TurnRules | None = None,
    reporters: dict[str, str] | None = None,
) -> int:
    machine = TurnMachine(rules, reporters or {})
    now = 0.0
    status = 0
    try:
        for _, event in parse_events_jsonl(lines):
            now = event.at if event.at is not None else now
            _emit(machine.feed(event, now), out)
    except EventError as exc:
        print(f"roombot replay: {exc}", file=err)
        status = 2
    except UnicodeDecodeError as exc:
        print(f"roombot replay: the input is not UTF-8 ({exc.reason})", file=err)
        status = 2
    while (deadline := machine.next_deadline()) is not None:
        _emit(machine.tick(deadline), out)
    return status


def _emit(decisions: list[Decision], out: TextIO) -> None:
    for decision in decisions:
        line: dict[str, Any] = {"room": decision.room, "turn": decision.turn}
        if isinstance(decision, Post):
            line["card"] = _payload(decision)
        else:
            line["retract"] = True
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    out.flush()


def _payload(post: Post) -> dict[str, Any]:
    """The dev.roombot.card payload: cards.codec owns its shape."""
    return to_payload(post.error)
