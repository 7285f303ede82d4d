"""`roombot report`: tell the bot about a turn from a shell script.

    # one event, a batch (JSON Lines), from a file or stdin
    roombot report --url https://roombot.example.org:8450 --ca-file ca.pem event.json
    some-engine --events | roombot report -
    # a one-shot failure report: an engine that only knows its run failed
    roombot report --turn run-42 --room '!abc:example.org' --harness ironflow \\
        --provider anthropic --model claude-sonnet-4 --message "529 overloaded" \\
        --trigger '$msg-event-id' --thread '$thread-root-event-id'

The token comes from --token-file or $ROOMBOT_API_TOKEN (the name the example
config's token_env uses; $ROOMBOT_TOKEN, its old name, is still read in this
release, with a warning); the URL from --url or $ROOMBOT_URL; the CA to trust
from --ca-file or $ROOMBOT_CA_FILE (default: the system's). An https:// URL is
always verified; plain http:// goes to loopback only, unless --insecure (which
warns). The bot's answer is printed as JSON on stdout. Exit status: 0 taken (or
a duplicate), 1 refused (the bot's error on stderr), 2 bad usage or input (a
refused URL included: nothing was sent), 3 the bot could not be reached or its
certificate was refused.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from roombot import env_names, report_tls

HELP = "send an event, a batch or a one-shot failure report to the bot's report API"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", help="a JSON event, or JSON Lines of events (- = stdin)")
    parser.add_argument("--url", default=os.environ.get("ROOMBOT_URL"), help="$ROOMBOT_URL")
    parser.add_argument("--token-file", type=Path, help=f"default: ${env_names.API_TOKEN}")
    report_tls.add_arguments(parser, "--url")
    one = parser.add_argument_group("a one-shot failure report (instead of a file)")
    one.add_argument("--turn", help="the run's id")
    one.add_argument("--room", help="the room id the card goes to")
    one.add_argument("--harness", help="what ran the turn")
    one.add_argument("--provider")
    one.add_argument("--model")
    one.add_argument("--message", help="the failure in words (error form {'text': ...})")
    one.add_argument("--status", type=int, help="an HTTP status seen (with --body)")
    one.add_argument("--body", help="the HTTP answer's body (with --status)")
    one.add_argument("--error-json", help="the raw error object, in any documented form")
    one.add_argument("--event-id", help="idempotency key (default: the turn id)")
    one.add_argument(
        "--trigger", metavar="EVENT_ID", help="the Matrix event id of the message that started it"
    )
    one.add_argument(
        "--thread", metavar="EVENT_ID", help="that message's thread root (needs --trigger)"
    )
    parser.add_argument("--tries", type=int, default=4, help="tries before giving up")


def _usage(message: str) -> int:
    print(f"roombot report: {message}", file=sys.stderr)
    return 2


def _warn(message: str) -> None:
    print(f"roombot report: warning: {message}", file=sys.stderr)


def _events(text: str) -> list[dict[str, Any]]:
    text = text.strip()
    try:
        one = json.loads(text)
    except ValueError:
        one = None
    if isinstance(one, dict):
        return [one]
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise ValueError(f"line {n}: not JSON ({e})") from None
        if not isinstance(obj, dict):
            raise ValueError(f"line {n}: expected a JSON object")
        out.append(obj)
    return out


def _error(args: argparse.Namespace) -> dict[str, Any] | str:
    if args.error_json:
        try:
            err = json.loads(args.error_json)
        except ValueError as e:
            return f"--error-json is not JSON ({e})"
        return err if isinstance(err, dict) else "--error-json must be a JSON object"
    if args.status is not None:
        return {"status": args.status, "body": args.body or ""}
    if args.message:
        return {"text": args.message}
    return "a report needs --message, --status/--body or --error-json"


def _wrong_ids(args: argparse.Namespace) -> str | None:
    """What is wrong with --trigger/--thread, in the event format's words; None: nothing."""
    from roombot.events import EventError, parse_event

    started = {"type": "turn.started", "turn": args.turn, "room": args.room}
    started |= {"harness": args.harness, "trigger": args.trigger, "thread": args.thread}
    try:
        parse_event(started)
    except EventError as e:
        return f"--{e.field}: expected {e.expected}"
    return None


def run(args: argparse.Namespace) -> int:
    from roombot.report_client import CannotSend, Refused, ReportClient, Unreachable, Untrusted

    if not args.url:
        return _usage("--url (or $ROOMBOT_URL) is required")
    if args.token_file is not None:
        try:
            token = args.token_file.read_text().strip()
        except OSError as e:
            return _usage(f"cannot read --token-file: {e}")
    else:
        token = env_names.read_secret(env_names.API_TOKEN, os.environ, _warn) or ""
    if not token:
        return _usage(f"no token: set ${env_names.API_TOKEN} or --token-file")
    try:
        client = ReportClient(
            args.url, token, ca_file=args.ca_file, insecure=args.insecure, tries=args.tries
        )
    except CannotSend as e:
        return _usage(str(e))
    try:
        if args.file is not None:
            if args.turn or args.trigger or args.thread:
                return _usage("give a file of events or --turn ..., not both")
            text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
            events = _events(text)
            if not events:
                return _usage("no events in the input")
            answer = client.send_event(events[0]) if len(events) == 1 else client.send_batch(events)
        else:
            missing = [f"--{k}" for k in ("turn", "room", "harness") if not getattr(args, k)]
            if missing:
                return _usage(f"a report needs {', '.join(missing)} (or give a file of events)")
            err = _error(args)
            if isinstance(err, str):
                return _usage(err)
            wrong = _wrong_ids(args)
            if wrong:
                return _usage(wrong)
            answer = client.send_report(
                turn=args.turn,
                room=args.room,
                harness=args.harness,
                error=err,
                provider=args.provider,
                model=args.model,
                event_id=args.event_id,
                trigger=args.trigger,
                thread=args.thread,
            )
    except (OSError, ValueError) as e:
        return _usage(str(e))
    except Refused as e:
        print(f"roombot report: refused: {e}", file=sys.stderr)
        return 1
    except Untrusted as e:
        print(f"roombot report: TLS refused: {e}", file=sys.stderr)
        return 3
    except Unreachable as e:
        print(f"roombot report: {e}", file=sys.stderr)
        return 3
    print(json.dumps(answer))
    return 0
