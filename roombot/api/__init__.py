"""The report API: hubs, engines and in-harness reporters tell the bot about turns over HTTP.

`make_app(settings, sink)` builds the aiohttp application; the sink is a started
`roombot.pipeline.Pipeline`. `serve_api` is how `roombot run` serves it (HTTPS when
`[api] tls_cert_file` is set, the certificate reloaded on SIGHUP):

    pipeline = Pipeline(cfg.api.journal, machine, outbox, horizon=rules.horizon)
    await pipeline.start()                      # replays the journal
    runner = await serve_api(cfg.api, pipeline)
    ...
    await runner.cleanup()                      # stop taking posts first
    await pipeline.stop()                       # then close the journal

See docs/report-api.md for the endpoints and the decisions behind them.
"""

from roombot.api.app import ROUTES, make_app
from roombot.api.server import serve_api
from roombot.api.settings import ApiSettings, SourceSettings, parse_api_settings

__all__ = [
    "ROUTES",
    "ApiSettings",
    "SourceSettings",
    "make_app",
    "parse_api_settings",
    "serve_api",
]
