"""`roombot reporters list|enable|disable|plan|apply NAME`: the in-harness reporters.

`enable` and `disable` print the exact change (each file, as a unified diff) and write
nothing; with `--apply` they write it. Both are idempotent: run again, they find nothing
to do. `plan` prints the change, the harness versions found and the plan's digest, and
records the plan (roombot.reviewed); `apply NAME --plan-digest SHA` writes exactly that
plan if no file changed since. Nothing is restarted (what the harness does next is
printed). A configuration file that cannot be edited safely (JSON that is not plain
JSON, YAML whose edited form would not read back as planned), and every refusal of a
plan, is said with the reason (exit 2). docs/reporters.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path

from roombot import harness_versions, reviewed
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
            _settings_arguments(p)
    text = "print the change, the harness versions and the plan digest; record the plan"
    p = sub.add_parser("plan", help=text, description=text)
    p.add_argument("name", choices=names, metavar="NAME", help=" | ".join(names))
    p.add_argument(
        "change",
        nargs="?",
        choices=reviewed.ACTIONS,
        default="enable",
        metavar="enable|disable",
        help="what to plan (default: enable)",
    )
    p.add_argument("--config", type=Path, help="the harness's configuration file")
    _settings_arguments(p)
    p.add_argument(
        "--allow-untested",
        action="store_true",
        help="plan even for a harness version the lab did not test (or one not found)",
    )
    p.add_argument(
        "--replace-unmanaged",
        action="store_true",
        help="take out a copy of the reporter installed by hand, named in the configuration",
    )
    _state_argument(p)
    text = "apply a recorded plan by its digest, if no file changed since it was made"
    p = sub.add_parser("apply", help=text, description=text)
    p.add_argument("name", choices=names, metavar="NAME", help=" | ".join(names))
    p.add_argument("--plan-digest", required=True, metavar="SHA", help="from `reporters plan`")
    _state_argument(p)


def _settings_arguments(p: argparse.ArgumentParser) -> None:
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


def _state_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--state-dir",
        type=Path,
        help="where plans are recorded (default: $ROOMBOT_NODE_STATE, else ~/.local/state/roombot)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        if args.action == "list":
            return _list()
        if args.action == "plan":
            return _plan(args)
        if args.action == "apply":
            return _apply(args)
        return _change(args)
    except reviewed.PlanRefused as e:
        print(f"roombot reporters: refused: {e}", file=sys.stderr)
        return 2
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


def _settings(args: argparse.Namespace) -> Settings | None:
    """The reporter's settings from --url and a token reference (None: keep what is there)."""
    if args.token is not None:
        raise ValueError(
            "--token: a token is never written in clear; put it in a file (--token-file) "
            "or an environment variable of the harness (--token-env)"
        )
    if not (args.url or args.token_file or args.token_env):
        return None
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
    return settings


def _state_dir(args: argparse.Namespace) -> Path:
    return args.state_dir or reviewed.default_state_dir()


def _plan(args: argparse.Namespace) -> int:
    reporter = REPORTERS[args.name]
    settings = _settings(args) if args.change == "enable" else None
    plan = reviewed.make_plan(
        reporter.name,
        args.change,
        settings,
        state_dir=_state_dir(args),
        config=args.config,
        allow_untested=args.allow_untested,
        replace_unmanaged=args.replace_unmanaged,
    )
    if plan.diff:
        print(plan.diff, end="")
    else:
        print(f"{reporter.name}: already {args.change}d; nothing to change")
    print(f"# versions found: {_versions(plan.versions, reporter.harness)}")
    if plan.files:
        print(f"# {args.change} {reporter.name}: would write {', '.join(plan.files)}")
    print(f"# plan digest: {plan.digest}")
    print(f"# after review: roombot reporters apply {reporter.name} --plan-digest {plan.digest}")
    return 0


def _versions(versions: Mapping[str, str | None], harness: str) -> str:
    """The reporter's harness first (found or not), then every other harness found."""
    out = []
    for name in [harness, *sorted(v for v in versions if v != harness)]:
        version = versions.get(name)
        if version is None:
            if name == harness:
                out.append(f"{name} not found")
            continue
        mark = "tested" if harness_versions.is_tested(name, version) else "untested"
        out.append(f"{name} {version} ({mark})")
    return ", ".join(out)


def _apply(args: argparse.Namespace) -> int:
    reporter = REPORTERS[args.name]
    done = reviewed.apply_digest(reporter.name, args.plan_digest, state_dir=_state_dir(args))
    if not done.changed:
        print(f"{reporter.name}: plan {done.plan.digest[:12]} is in place; nothing changed")
        return 0
    for backup in done.backups:
        print(f"# backup: {backup}")
    for path in done.plan.files:
        print(f"# wrote {path}")
    print(f"# {reporter.after}")
    return 0


def _change(args: argparse.Namespace) -> int:
    reporter = REPORTERS[args.name]
    if args.action == "enable":
        changes = plan_enable(reporter, _settings(args), config=args.config)
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
