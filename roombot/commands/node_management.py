"""`roombot node plugin-management enable|disable|status`: the node's opt-in to remote management.

Off by default: until a node's operator runs `enable` here, the node answers every plan or
apply asked from a room with a refusal saying it has not opted in. The opt-in is one file
in the node's state directory (0600, the directory 0700), read by roombot.reviewed.
Enabling lets a room's moderators ask for plans and apply them by digest; nothing is
applied without a plan made on this node, and nothing is restarted. docs/reporters.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from roombot import reviewed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="management", metavar="ACTION", required=True)
    for name, text in (
        ("enable", "let room moderators plan and apply reporter changes on this node"),
        ("disable", "refuse every plan and apply asked from a room (the default)"),
        ("status", "say whether this node is managed from rooms"),
    ):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument(
            "--state-dir",
            type=Path,
            help="the node's state directory (default: $ROOMBOT_NODE_STATE, else "
            "~/.local/state/roombot)",
        )


def run(args: argparse.Namespace) -> int:
    state = args.state_dir or reviewed.default_state_dir()
    if args.management in ("enable", "disable"):
        reviewed.set_management(state, args.management == "enable")
    if reviewed.management_enabled(state):
        print(
            "plugin management: enabled: room moderators may ask this node for reporter "
            "plans and apply one by its digest (nothing is restarted); "
            "`roombot node plugin-management disable` to stop"
        )
    else:
        print(
            "plugin management: disabled: plans and applies asked from a room are refused; "
            "`roombot reporters plan` and `apply` still work here"
        )
    return 0
