"""`roombot demo`: a throwaway Synapse, an encrypted room, realistic failed turns, read back."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

HELP = "see it work: throwaway Synapse, encrypted room, failed turns, cards read back"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out", default="roombot-demo.html", help="where to write the HTML page of the cards"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary Synapse and bot directories"
    )


def run(args: argparse.Namespace) -> int:
    from roombot.demo import run_demo

    try:
        return asyncio.run(run_demo(Path(args.out), keep=args.keep))
    except KeyboardInterrupt:
        return 130
