"""`roombot render`: a card payload or an event content (JSON) in one of its forms."""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources
from pathlib import Path

from cards.codec import CARD_KEY, CardError, loads_payload
from cards.event import render_event
from cards.notice import build_notice
from cards.render import render_html_page, render_matrix_html, render_plain
from cards.shape import TurnError
from cards.text import json_shown


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", default="-", help="JSON file, or - for stdin")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--html", action="store_true", help="the standalone HTML page")
    form.add_argument("--matrix-html", action="store_true", help="the formatted_body")
    form.add_argument("--content", action="store_true", help="the notice content the bot sends")
    parser.add_argument(
        "--all-examples",
        action="store_true",
        help="render every bundled example card, and write their HTML page to --out",
    )
    parser.add_argument("--out", default="demo-out/cards.html", help="page for --all-examples")


def _fail(message: str) -> int:
    print(f"roombot render: {message}", file=sys.stderr)
    return 2


def _read(path: str) -> TurnError | str:
    """The card in a payload or an event content; a one-line reason otherwise."""
    try:
        raw = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror}"
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        return f"not valid JSON: {str(exc).splitlines()[0][:200]}"
    if isinstance(obj, dict) and CARD_KEY in obj:
        rendered = render_event(obj)
        if rendered.card is not None:
            return rendered.card
        return f"{CARD_KEY}: {rendered.card_error}" if rendered.card_error else "no card"
    card = loads_payload(raw)
    if isinstance(card, CardError):
        return f"not a card or an event content with one: {card}"
    return card


def _examples(out: str) -> int:
    folder = resources.files("cards") / "examples"
    errors = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            card = loads_payload(entry.read_bytes())
            if isinstance(card, CardError):
                return _fail(f"bundled example {entry.name}: {card}")
            errors.append(card)
            print(f"--- {entry.name}\n{render_plain(card)}\n")
    page = Path(out)
    try:
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(render_html_page(errors, title="roombot example cards"), encoding="utf-8")
    except OSError as exc:
        return _fail(f"cannot write {out}: {exc.strerror}")
    print(f"{len(errors)} cards; HTML page written to {page}")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.all_examples:
        return _examples(args.out)
    card = _read(args.file)
    if isinstance(card, str):
        return _fail(card)
    if args.html:
        out = render_html_page([card])
    elif args.matrix_html:
        out = render_matrix_html(card)
    elif args.content:
        try:
            notice = build_notice(card)
        except ValueError as exc:  # the card cannot fit in one event at all
            return _fail(f"cannot build the notice: {exc}")
        # The card holds the exact text; the terminal gets its hidden characters as escapes.
        out = json_shown(json.dumps(notice.content, indent=2, ensure_ascii=False))
    else:
        out = render_plain(card)
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0
