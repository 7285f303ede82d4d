"""A report API process for the SIGHUP test: `python -m tests.api.serve_tls DIR`.

Serves the report API with `serve_api` (what `roombot run` uses), over HTTPS with
DIR/cert.pem and DIR/key.pem, logging JSON lines at debug level to stderr. Writes
its port to DIR/port once it listens.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from roombot.api.server import serve_api
from roombot.api.settings import ApiSettings
from roombot.observe import setup_logging
from roombot.outbox import Outbox
from roombot.pipeline import Pipeline
from roombot.turns import TurnMachine
from tests.api.conftest import RULES, sources


async def main(state: Path) -> None:
    setup_logging("debug", "json")
    pipeline = Pipeline(
        state / "journal.sqlite3", TurnMachine(RULES), Outbox(state / "outbox.sqlite3")
    )
    await pipeline.start()
    settings = ApiSettings(
        host="127.0.0.1",
        sources=sources(),
        tls_cert_file=state / "cert.pem",
        tls_key_file=state / "key.pem",
    )
    runner = await serve_api(settings, pipeline)
    port = runner.addresses[0][1]
    (state / "port.tmp").write_text(str(port))
    (state / "port.tmp").rename(state / "port")
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
