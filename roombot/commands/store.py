"""`roombot store migrate|status -c config.toml`: the bot's store, SQLite or PostgreSQL.

`migrate` applies the PostgreSQL migrations a database lacks (`roombot run` does
the same at start; run it ahead to migrate with another role, or to see what
changes). The SQLite files need none: each part creates its tables itself.
`status` says where the store is, its schema version, the backlog, the journal's
size and the silences kept. Exit status: 0, 1 when the store cannot be reached,
2 for a bad configuration.
"""

from __future__ import annotations

import argparse
import json
import sys

HELP = "the bot's store: apply PostgreSQL migrations, or show its status"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="store_command", metavar="ACTION", required=True)
    actions = {
        "migrate": (
            "apply the PostgreSQL migrations the database lacks",
            "Apply the numbered PostgreSQL migrations the database lacks, each once, in order "
            "(safe while other roombot processes start).",
        ),
        "status": (
            "where the store is, its schema, backlog, journal size and silences",
            "Where the store is, its schema version, the notices owed, the journal's size and "
            "the silences kept. Reads only; creates nothing.",
        ),
    }
    for name, (help_text, description) in actions.items():
        p = sub.add_parser(name, help=help_text, description=description)
        p.add_argument("-c", "--config", required=True, help="the TOML configuration file")
        if name == "status":
            p.add_argument("--json", action="store_true", help="one JSON object instead of text")


def _fail(message: str, code: int) -> int:
    print(f"roombot store: {message}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    from roombot.config import ConfigError, load_config
    from roombot.store.db import Where
    from roombot.store.migrations import prepare
    from roombot.store.status import read_status

    try:
        config = load_config(args.config)
        outbox_at, journal_at = config.outbox_at, config.journal_at
    except ConfigError as e:
        return _fail(f"configuration error in {args.config}: {e}", 2)
    try:
        if args.store_command == "migrate":
            if config.store is None:
                print("the SQLite files create their tables themselves: nothing to migrate")
                return 0
            done = prepare(outbox_at)
            if not done:
                print(f"{Where.of(outbox_at)}: up to date")
            for m in done:
                print(f"applied {m.version:04d}_{m.name}")
            return 0
        status = read_status(outbox_at, journal_at)
    except Exception as e:  # the driver's errors: an unreachable server, a refused role
        return _fail(f"cannot reach the store {Where.of(outbox_at)}: {type(e).__name__}: {e}", 1)
    if args.json:
        print(json.dumps(status.to_json()))
    else:
        print("\n".join(status.lines()))
    return 0
