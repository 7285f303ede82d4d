"""Typed keys of what the report API keeps on its app and its requests."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from roombot.api.access import RateLimits, Tokens
    from roombot.api.desk import Desk
    from roombot.api.metrics import ApiMetrics
    from roombot.api.settings import ApiSettings, SourceSettings
    from roombot.api.sink import Sink
    from roombot.silence_store import SilenceStore

SETTINGS: web.AppKey[ApiSettings] = web.AppKey("settings")
SINK: web.AppKey[Sink] = web.AppKey("sink")
TOKENS: web.AppKey[Tokens] = web.AppKey("tokens")
LIMITS: web.AppKey[RateLimits] = web.AppKey("limits")
METRICS: web.AppKey[ApiMetrics] = web.AppKey("metrics")
DESK: web.AppKey[Desk | None] = web.AppKey("desk")  # room commands for nodes, when served
SILENCES: web.AppKey[SilenceStore | None] = web.AppKey("silences")  # when kept
SOURCE: web.RequestKey[SourceSettings] = web.RequestKey("source")  # who is posting
JSON: web.RequestKey[object] = web.RequestKey("json")  # the decoded body
