"""Serving the report API: `serve_api(settings, sink)` listens and returns the runner.

With a certificate configured the listener speaks HTTPS only, and SIGHUP loads the
certificate and key again (see `roombot.api.tls`): a renewed certificate needs no
restart, and connections already open keep the one they started with.
"""

from __future__ import annotations

import asyncio
import signal

from aiohttp import web
from prometheus_client import CollectorRegistry

from roombot.api.app import make_app
from roombot.api.desk import Desk
from roombot.api.settings import ApiSettings
from roombot.api.sink import Sink
from roombot.api.tls import ServerCert
from roombot.silence_store import SilenceStore


async def serve_api(
    settings: ApiSettings,
    sink: Sink,
    *,
    reload_on_sighup: bool = True,
    registry: CollectorRegistry | None = None,
    desk: Desk | None = None,
    silences: SilenceStore | None = None,
) -> web.AppRunner:
    """Listen on settings.host:port; `runner.cleanup()` stops it (and the SIGHUP handler)."""
    app = make_app(settings, sink, registry, desk=desk, silences=silences)
    cert = None
    if settings.tls_cert_file is not None and settings.tls_key_file is not None:
        cert = ServerCert(settings.tls_cert_file, settings.tls_key_file)
        if reload_on_sighup:
            loop = asyncio.get_running_loop()
            loop.add_signal_handler(signal.SIGHUP, cert.reload)

            async def forget(_: web.Application) -> None:
                loop.remove_signal_handler(signal.SIGHUP)

            app.on_cleanup.append(forget)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    context = cert.context if cert is not None else None
    await web.TCPSite(runner, settings.host, settings.port, ssl_context=context).start()
    return runner
