"""The `roombot` command line: one subcommand per module in `roombot.commands`.

Each command module exposes `add_arguments(parser)` and `run(args) -> int`;
its one-line help lives in COMMANDS. Modules are imported only when their
command runs, so `roombot render` never pays for matrix-nio.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Protocol, cast

# name -> (module, one-line help). The only list of commands.
COMMANDS: dict[str, tuple[str, str]] = {
    "render": ("roombot.commands.render", "print a card or event content in one of its forms"),
    "classify": ("roombot.commands.classify", "normalise one raw error (or answer text)"),
    "replay": ("roombot.commands.replay", "run events (JSON Lines) through the turn rules"),
    "init": ("roombot.commands.init", "write a working config, API tokens and the bot's device"),
    "run": ("roombot.commands.run", "run the bot: join the team rooms and deliver every card"),
    "demo": ("roombot.commands.demo", "throwaway Synapse, encrypted room, cards read back"),
    "acp-proxy": ("roombot.commands.acp_proxy", "relay an ACP agent's stdio and report its turns"),
    "report": ("roombot.commands.report", "send an event or a failure report to the report API"),
    "crypto": ("roombot.commands.crypto", "the bot's cross-signing identity: bootstrap, status"),
    "store": ("roombot.commands.store", "the bot's store (SQLite or PostgreSQL): migrate, status"),
    "reporters": ("roombot.commands.reporters", "in-harness reporters: list, enable, disable"),
    "node": (
        "roombot.commands.node",
        "the agent for one node: heartbeats, plugin management",
    ),
}


class _Command(Protocol):
    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...
    def run(self, args: argparse.Namespace) -> int: ...


def _load(name: str) -> _Command:
    return cast(_Command, importlib.import_module(COMMANDS[name][0]))


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="roombot", description="Posts every failed AI-agent turn to its Matrix room."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = next((a for a in argv if a in COMMANDS), None)
    for name, (_, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            _load(name).add_arguments(p)
    args = parser.parse_args(argv)
    return _load(args.command).run(args)


if __name__ == "__main__":
    raise SystemExit(main())
