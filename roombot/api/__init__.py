"""The report API: hubs, engines and in-harness reporters tell the bot about turns over HTTP.

`make_app(settings, sink)` builds the aiohttp application; the sink is a started
`roombot.pipeline.Pipeline`. How `roombot run` serves it:

    pipeline = Pipeline(cfg.api.journal, machine, outbox, horizon=rules.horizon)
    await pipeline.start()                      # replays the journal
    runner = web.AppRunner(make_app(cfg.api, pipeline))
    await runner.setup()
    await web.TCPSite(runner, cfg.api.host, cfg.api.port).start()
    ...
    await runner.cleanup()                      # stop taking posts first
    await pipeline.stop()                       # then close the journal

See docs/report-api.md for the endpoints and the decisions behind them.
"""

from roombot.api.app import ROUTES, make_app
from roombot.api.settings import ApiSettings, SourceSettings, parse_api_settings

__all__ = ["ROUTES", "ApiSettings", "SourceSettings", "make_app", "parse_api_settings"]
