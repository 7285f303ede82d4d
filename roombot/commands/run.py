"""`roombot run -c config.toml`: run the bot until SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import sys

HELP = "run the bot: join the team rooms and deliver every card"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-c", "--config", required=True, help="the TOML configuration file")
    parser.add_argument(
        "--check",
        action="store_true",
        help="check what `run` needs without starting or changing anything: the file, its "
        "secrets, the state directory, the ports, the homeserver and the rooms; prints every "
        "problem on a line naming its key, exits 2 if any, 0 when valid",
    )
    parser.add_argument(
        "--offline", action="store_true", help="with --check: do not ask the homeserver"
    )


def check_only(args: argparse.Namespace) -> int:
    """`--check`: every problem on its own line (standard error), exit 2 if any."""
    from roombot.check import check

    findings = check(args.config, offline=args.offline)
    for f in findings:
        print(f"roombot: {args.config}: {f.line()}", file=sys.stderr)
    if findings:
        print(f"roombot: {args.config}: {len(findings)} problem(s)", file=sys.stderr)
        return 2
    print(f"{args.config}: valid" + (" (offline: the homeserver was not asked)" * args.offline))
    return 0


def run(args: argparse.Namespace) -> int:
    from roombot.config import ConfigError, load_config
    from roombot.logs import HeldLogs

    if args.check:
        return check_only(args)
    if args.offline:
        print("roombot: --offline goes with --check", file=sys.stderr)
        return 2
    # What is logged while the configuration loads waits for its log format.
    held = HeldLogs.start()
    try:
        config = load_config(args.config)
    except ConfigError as e:
        held.release()
        print(f"roombot: configuration error in {args.config}: {e}", file=sys.stderr)
        return 2

    import logging

    from roombot.bot import Bot
    from roombot.matrix import StartupError
    from roombot.observe import setup_logging
    from roombot.store.db import StoreUnavailable
    from roombot.store.lease import LeaseLost

    # One redactor for the logs and the events, so /metrics counts both.
    redactor = config.redact.build()
    setup_logging(config.log.level, config.log.format, redactor)
    held.release()
    # From here on standard error is the log: every line in the configured format.
    log = logging.getLogger("roombot")

    async def main() -> None:
        await Bot(config, redactor=redactor).run()

    try:
        asyncio.run(main())
    except ConfigError as e:
        log.critical("configuration error in %s: %s", args.config, e)
        return 2
    except (StartupError, StoreUnavailable) as e:
        log.critical("cannot start: %s", e)
        return 1
    except LeaseLost as e:
        log.critical("stopped, so as not to deliver beside another roombot: %s", e)
        return 1
    except Exception:
        log.critical("stopped by an unexpected error", exc_info=True)
        return 1
    return 0
