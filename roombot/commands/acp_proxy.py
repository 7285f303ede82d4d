"""`roombot acp-proxy`: run a harness's ACP agent and report its failed turns.

    roombot acp-proxy [--room ROOM | --config FILE] [--harness NAME]
                      [--provider P] [--model M]
                      (--events FILE | --url URL [--token-file F] [--ca-file PEM]
                       [--insecure] [--spool DB])
                      -- CMD [ARGS...]

Every byte between the ACP client (our stdin/stdout) and CMD passes through
unchanged; CMD's stderr goes to ours. The exit status is CMD's (128+N when
a signal N ended it; 127 when it cannot be started; 2 for bad options).
The report API token comes from --token-file, else from $ROOMBOT_API_TOKEN (as
for `roombot report`; CMD inherits the environment, that variable included).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from roombot import env_names, report_tls
from roombot.acp.relay import Relay
from roombot.acp.rooms import RoomConfigError, RoomRules, rules_from_toml
from roombot.acp.settings import ObserverSettings, to_json
from roombot.acp.spool import Spool
from roombot.node_name import node_name


def _default_spool() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return Path(state) / "roombot" / "acp-spool.sqlite"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--room", help="the room every turn goes to (overrides --config)")
    parser.add_argument(
        "--config",
        type=Path,
        default=os.environ.get("ROOMBOT_ACP_CONFIG"),
        help="TOML file mapping sessions to rooms: room, [cwd], [harness] "
        "(default: $ROOMBOT_ACP_CONFIG); see docs/acp-proxy.md",
    )
    parser.add_argument(
        "--harness", help="harness name in events (default: the agent's own name, else CMD)"
    )
    parser.add_argument("--provider", help="the provider the harness is configured to ask")
    parser.add_argument(
        "--model", help="the model the harness is configured to ask (a switch on the wire wins)"
    )
    parser.add_argument(
        "--node",
        help="this machine's name in turn.started, as `roombot node run --name` gives it "
        "(default: the host name)",
    )
    out = parser.add_mutually_exclusive_group(required=True)
    out.add_argument("--events", type=Path, help="append events as JSON Lines to this file")
    out.add_argument("--url", help="the report API base URL (events go to URL/v1/batch)")
    parser.add_argument(
        "--token-file",
        type=Path,
        help=f"file holding the report API token (default: ${env_names.API_TOKEN})",
    )
    report_tls.add_arguments(parser, "--url")
    parser.add_argument(
        "--spool",
        type=Path,
        default=None,
        help="SQLite file keeping unsent events "
        "(default: $XDG_STATE_HOME/roombot/acp-spool.sqlite)",
    )
    parser.add_argument(
        "--drain-seconds",
        type=float,
        default=5.0,
        help="after the harness exits, how long to keep trying to send (default 5)",
    )
    parser.add_argument(
        "--run-id",
        default=None,
        help="id of this run, used in turn ids of loaded sessions (default: time and pid)",
    )
    parser.add_argument(
        "--observe-buffer",
        type=int,
        default=64 * 1024 * 1024,
        metavar="BYTES",
        help="copies held for a busy observer before it misses some (default 64 MiB)",
    )
    parser.add_argument(
        "cmd", nargs=argparse.REMAINDER, metavar="-- CMD [ARGS...]", help="the ACP agent command"
    )


def _warn(message: str) -> None:
    print(f"roombot acp-proxy: warning: {message}", file=sys.stderr)


def _fail(message: str) -> int:
    print(f"roombot acp-proxy: {message}", file=sys.stderr)
    return 2


def _rules(args: argparse.Namespace) -> RoomRules:
    doc: dict[str, object] = {}
    if args.config is not None:
        try:
            with open(args.config, "rb") as f:
                doc = tomllib.load(f)
        except OSError as exc:
            raise RoomConfigError(f"--config: cannot read {args.config}: {exc}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise RoomConfigError(f"--config: {args.config} is not TOML: {exc}") from exc
    rules = rules_from_toml(doc, room=args.room)
    if rules.room is None:
        raise RoomConfigError("room: no room to report to: pass --room or set room in --config")
    return rules


def run(args: argparse.Namespace) -> int:
    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        return _fail("no agent command: put it after --, e.g. -- claude-agent-acp")
    try:
        rules = _rules(args)
    except RoomConfigError as exc:
        return _fail(str(exc))
    sink: dict[str, Any]
    observer_env = dict(os.environ)
    if args.events is not None:
        try:  # fail now, with a clear word, rather than lose events later
            with open(args.events, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            return _fail(f"--events: cannot write {args.events}: {exc}")
        sink = {"events": str(args.events)}
    else:
        if args.token_file is None:
            token = env_names.read_secret(env_names.API_TOKEN, os.environ, _warn)
            if token is None:
                return _fail(
                    f"--url needs the report API token: --token-file F or ${env_names.API_TOKEN}"
                )
            # the observer reads it under its one name, whichever name it was found under
            observer_env[env_names.API_TOKEN] = token
        else:
            try:
                if not args.token_file.read_text(encoding="utf-8").strip():
                    return _fail(f"--token-file: {args.token_file} is empty")
            except OSError as exc:
                return _fail(f"--token-file: cannot read {args.token_file}: {exc}")
        try:  # refused before the harness starts, and before any packet leaves
            url = report_tls.check_url(args.url, insecure=args.insecure, warn=False)
            if url.scheme == "https":
                report_tls.client_context(args.ca_file)
        except report_tls.CannotSend as exc:
            return _fail(f"--url: {exc}")
        spool = args.spool or _default_spool()
        try:  # the spool must work before the harness starts: it is where events wait
            Spool(spool).close()
        except (OSError, sqlite3.Error) as exc:
            return _fail(f"--spool: cannot use {spool}: {exc}")
        sink = {
            "url": args.url,
            "token_file": None if args.token_file is None else str(args.token_file),
            "token_env": env_names.API_TOKEN,
            "spool": str(spool),
            "ca_file": None if args.ca_file is None else str(args.ca_file),
            "insecure": bool(args.insecure),
        }
    run_id = args.run_id or f"{int(time.time() * 1000)}-{os.getpid()}"
    settings = ObserverSettings(
        rules=rules,
        command_name=os.path.basename(cmd[0]),
        harness=args.harness,
        provider=args.provider,
        model=args.model,
        run=run_id,
        node=args.node or node_name(),
    )
    config = to_json(settings, sink, args.drain_seconds)
    observer = subprocess.Popen(
        [sys.executable, "-m", "roombot.acp.observe_main", json.dumps(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env=observer_env,
    )
    relay = Relay(cmd, observer, queue_limit=args.observe_buffer)
    status = relay.run()
    try:
        observer.wait(args.drain_seconds + 10.0)
    except subprocess.TimeoutExpired:
        observer.kill()
    lost = relay.stats.dropped
    if lost["c"] or lost["a"]:
        print(
            f"roombot acp-proxy: observer fell behind; copies dropped: "
            f"client->agent {lost['c']}, agent->client {lost['a']} (relay unaffected)",
            file=sys.stderr,
        )
    return status
