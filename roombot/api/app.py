"""The report API as an aiohttp application: `make_app(settings, sink)`.

Routes are listed once, in ROUTES; docs/report-api.md and openapi.json describe
them and tests/api/test_openapi.py holds the three to the same list.
"""

from __future__ import annotations

from aiohttp import web
from prometheus_client import CollectorRegistry

from roombot.api import handlers, keys, middlewares
from roombot.api.access import RateLimits, Tokens
from roombot.api.desk import Desk
from roombot.api.metrics import ApiMetrics
from roombot.api.settings import ApiSettings
from roombot.api.sink import Sink
from roombot.metrics import bot_registry
from roombot.silence_store import SilenceStore

ROUTES: tuple[tuple[str, str, handlers.Handler], ...] = (
    ("POST", "/v1/events", handlers.post_event),
    ("POST", "/v1/batch", handlers.post_batch),
    ("POST", "/v1/reports", handlers.post_report),
    ("GET", "/v1/turns/{turn}", handlers.get_turn),
    ("POST", "/v1/nodes/heartbeat", handlers.post_heartbeat),
    ("GET", "/v1/nodes", handlers.get_nodes),
    ("GET", "/v1/nodes/{node}/requests", handlers.get_node_requests),
    ("POST", "/v1/nodes/{node}/results", handlers.post_node_results),
    ("GET", "/v1/silences", handlers.get_silences),
    ("GET", "/healthz", handlers.healthz),
    ("GET", "/metrics", handlers.metrics),
)


def make_app(
    settings: ApiSettings,
    sink: Sink,
    registry: CollectorRegistry | None = None,
    *,
    desk: Desk | None = None,
    silences: SilenceStore | None = None,
) -> web.Application:
    """The API app; its /metrics renders `registry` (the bot's, so both ports say the same)."""
    # client_max_size stops a body sent without a length (chunked) at the limit too.
    app = web.Application(
        client_max_size=settings.max_body,
        middlewares=[middlewares.errors, middlewares.auth, middlewares.limits, middlewares.body],
    )
    app[keys.SETTINGS] = settings
    app[keys.SINK] = sink
    app[keys.DESK] = desk
    app[keys.SILENCES] = silences
    app[keys.TOKENS] = Tokens(settings.sources)
    app[keys.LIMITS] = RateLimits(settings.sources)
    app[keys.METRICS] = ApiMetrics(bot_registry() if registry is None else registry, sink)
    for method, path, handler in ROUTES:
        app.router.add_route(method, path, handler)
    return app
