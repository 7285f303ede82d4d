"""`roombot node ...`: the agent for one node (a machine where harnesses run).

`roombot node run --url URL` sends a heartbeat every interval until SIGTERM (or
SIGINT); see docs/nodes.md for the service unit and what the bot does with it. The
token is read from `--token-file`, else the environment variable `--token-env` names
($ROOMBOT_API_TOKEN by default, the name every client of the report API reads).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from roombot import env_names, report_tls, reviewed
from roombot.commands import node_management
from roombot.node_name import node_name
from roombot.node_requests import reviewed_handler, serve_requests
from roombot.reporters import Settings

if TYPE_CHECKING:
    from roombot.node_agent import Agent


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="node_command", metavar="SUBCOMMAND", required=True)
    run = sub.add_parser(
        "run",
        help="send this node's heartbeats to the bot until stopped",
        description="Send this node's heartbeat to the bot's report API every interval, "
        "until SIGTERM. Survives the bot being down (retries, logged once per outage).",
    )
    run.add_argument(
        "--url", required=True, help="the report API base URL (https://, or loopback http://)"
    )
    token = run.add_mutually_exclusive_group()
    token.add_argument("--token-file", type=Path, help="file holding this node's source token")
    token.add_argument(
        "--token-env",
        default=env_names.API_TOKEN,
        help=f"environment variable holding the token (default: {env_names.API_TOKEN})",
    )
    run.add_argument(
        "--name",
        help="this node's name, as its turns carry it (default: the host name, as "
        "`roombot acp-proxy` gives it)",
    )
    run.add_argument(
        "--interval",
        type=float,
        help="seconds between heartbeats (default: the bot's [nodes] heartbeat_interval)",
    )
    run.add_argument(
        "--state-dir",
        type=Path,
        help="where this node keeps its opt-in and its plans (default: $ROOMBOT_NODE_STATE, "
        "else ~/.local/state/roombot)",
    )
    run.add_argument("--log-format", choices=("json", "text"), default="text")
    report_tls.add_arguments(run, "--url")
    management = sub.add_parser(
        "plugin-management",
        help="opt this node in to (or out of) reporter changes asked from the room",
        description="Whether room moderators may plan and apply reporter changes on this "
        "node (off by default). docs/room-commands.md, docs/reporters.md.",
    )
    node_management.add_arguments(management)


def _fail(message: str) -> int:
    print(f"roombot node: {message}", file=sys.stderr)
    return 2


def _warn(message: str) -> None:
    print(f"roombot node: warning: {message}", file=sys.stderr)


def _token(args: argparse.Namespace) -> str | None:
    if args.token_file is not None:
        try:
            return args.token_file.read_text().strip() or None
        except OSError as e:
            message = f"cannot read --token-file {args.token_file}: {e.strerror}"
            raise SystemExit(_fail(message)) from None
    return env_names.read_secret(args.token_env, os.environ, _warn)


def run(args: argparse.Namespace) -> int:
    if args.node_command == "plugin-management":
        return node_management.run(args)
    from roombot.node_agent import Agent, AgentSettings
    from roombot.observe import setup_logging
    from roombot.report_tls import CannotSend

    token = _token(args)
    if not token:
        where = f"--token-file {args.token_file}" if args.token_file else f"${args.token_env}"
        return _fail(f"no token: {where} is empty or unset")
    if args.interval is not None and not (math.isfinite(args.interval) and args.interval > 0):
        return _fail(f"--interval: expected a number of seconds > 0, got {args.interval:g}")
    name = args.name or node_name()
    setup_logging("info", args.log_format)
    settings = AgentSettings(
        url=args.url,
        token=token,
        node=name,
        interval=args.interval,
        ca_file=args.ca_file,
        insecure=args.insecure,
        state_dir=args.state_dir or reviewed.default_state_dir(),
    )
    try:
        agent = Agent(settings)
    except CannotSend as e:
        return _fail(f"--url: {e}")
    return asyncio.run(_serve(agent, _reporter_settings(args)))


def _reporter_settings(args: argparse.Namespace) -> Settings:
    """What a reporter enabled from the room sends with: this agent's URL and token source.

    The node's token is its source's, scoped to the rooms the node reports to, so a
    reporter on it can post only there too; the token itself is never written.
    """
    by_file = args.token_file is not None
    return Settings(
        url=args.url,
        token_file=str(args.token_file.resolve()) if by_file else None,
        token_env=None if by_file else args.token_env,
        ca_file=str(args.ca_file) if args.ca_file else None,
        insecure=args.insecure,
    )


async def _serve(agent: Agent, reporter: Settings) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    s = agent.settings
    # Room commands for this node ride their own loop, so a slow plan never delays a beat.
    requests = asyncio.create_task(
        serve_requests(
            s.url,
            s.token,
            s.node,
            s.state_dir,
            stop=stop,
            handle=reviewed_handler(s.state_dir, settings=reporter),
            ca_file=s.ca_file,
            insecure=s.insecure,
        )
    )
    try:
        return await agent.run(stop)
    finally:
        stop.set()
        await requests
