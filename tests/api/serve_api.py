"""A report API process for the kill test: `python -m tests.api.serve_api DIR [URL]`.

Serves make_app over a real Pipeline (journal DIR/journal.sqlite3, outbox
DIR/outbox.sqlite3, or both in the PostgreSQL database at URL) on 127.0.0.1
and writes its port to DIR/port. The turn rules get a long settle window so that
nothing is decided before the test kills the process.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from aiohttp import web

from roombot.api import make_app
from roombot.api.settings import ApiSettings
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline
from roombot.turns import TurnMachine, TurnRules
from tests.api.conftest import sources

KILL_RULES = TurnRules(settle=3.0, grace=3.0)


async def main(state: Path, url: str | None = None) -> None:
    journal, outbox = (url, url) if url else (state / "journal.sqlite3", state / "outbox.sqlite3")
    pipeline = Pipeline(journal, TurnMachine(KILL_RULES), Outbox(outbox))
    await pipeline.start()
    runner = web.AppRunner(make_app(ApiSettings(sources=sources()), pipeline))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    (state / "port.tmp").write_text(str(port))
    (state / "port.tmp").rename(state / "port")
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), *sys.argv[2:3]))
