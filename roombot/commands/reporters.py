"""`roombot reporters list|enable NAME|disable NAME`: the in-harness reporters.

`enable` and `disable` print the exact change (each file, as a unified diff) and write
nothing; with `--apply` they write it. Both are idempotent: run again, they find nothing
to do. Nothing is restarted (what the harness does next is printed). A configuration file
that is not plain JSON is refused with the reason (exit 2). docs/reporters.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from roombot.reporters import (
    REPORTERS,
    ConfigFileError,
    Settings,
    apply_plan,
    plan_disable,
    plan_enable,
    render_plan,
    status,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    sub.add_parser("list", help="each reporter: installed? enabled for the local harness?")
    names = sorted(REPORTERS)
    for action, text in (
        ("enable", "print (or --apply) the change that makes the harness load the reporter"),
        ("disable", "print (or --apply) the change that removes it"),
    ):
        p = sub.add_parser(action, help=text, description=text)
        p.add_argument("name", choices=names, metavar="NAME", help=" | ".join(names))
        p.add_argument("--apply", action="store_true", help="write the change (default: show it)")
        p.add_argument("--config", type=Path, help="the harness's configuration file")
        if action == "enable":
            p.add_argument(
                "--url",
                help="roombot's report API: https://host:port, or http:// to loopback only",
            )
            token = p.add_mutually_exclusive_group()
            token.add_argument("--token-file", help="a file holding the reporter's API token")
            token.add_argument("--token-env", help="an environment variable holding the token")
            token.add_argument("--token", help=argparse.SUPPRESS)  # refused, with the reason
            p.add_argument("--ca-file", help="a PEM file of the CA(s) to trust for https://")
            p.add_argument(
                "--insecure",
                action="store_true",
                help="allow plain http:// to a host other than loopback (token in the clear)",
            )


def run(args: argparse.Namespace) -> int:
    try:
        if args.action == "list":
            return _list()
        return _change(args)
    except ConfigFileError as e:
        print(f"roombot reporters: {e}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"roombot reporters: {e}", file=sys.stderr)
        return 2


def _list() -> int:
    rows = [("reporter", "harness", "installed", "enabled", "sends to", "configuration")]
    problems = []
    for reporter in REPORTERS.values():
        st = status(reporter)
        rows.append(
            (
                st.name,
                st.harness,
                "yes" if st.installed else "no",
                "yes" if st.enabled else ("?" if st.problem else "no"),
                st.url or "-",
                str(st.config),
            )
        )
        if st.problem:
            problems.append(st.problem)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    for problem in problems:
        print(f"roombot reporters: {problem}", file=sys.stderr)
    return 2 if problems else 0


def _change(args: argparse.Namespace) -> int:
    reporter = REPORTERS[args.name]
    if args.action == "enable":
        if args.token is not None:
            raise ValueError(
                "--token: a token is never written in clear; put it in a file (--token-file) "
                "or an environment variable of the harness (--token-env)"
            )
        settings = None
        if args.url or args.token_file or args.token_env:
            if not args.url:
                raise ValueError("--url: needed with a token reference")
            token_file = str(Path(args.token_file).resolve()) if args.token_file else None
            ca_file = str(Path(args.ca_file).resolve()) if args.ca_file else None
            settings = Settings(args.url, token_file, args.token_env, ca_file, args.insecure)
            for path in (token_file, ca_file):
                if path is not None and not Path(path).is_file():
                    print(f"roombot reporters: warning: {path} does not exist yet", file=sys.stderr)
            if args.insecure and args.url.startswith("http://"):
                print(
                    "roombot reporters: warning: --insecure: the token and the reports will "
                    "cross the network unencrypted",
                    file=sys.stderr,
                )
        changes = plan_enable(reporter, settings, config=args.config)
    else:
        changes = plan_disable(reporter, config=args.config)
    if not changes:
        print(f"{reporter.name}: already {args.action}d; nothing to change")
        return 0
    print(render_plan(changes), end="")
    if not args.apply:
        files = ", ".join(str(c.path) for c in changes)
        print(f"# {args.action} {reporter.name}: would write {files}; run again with --apply")
        return 0
    for path in apply_plan(changes):
        print(f"# wrote {path}")
    print(f"# {reporter.after}")
    return 0
