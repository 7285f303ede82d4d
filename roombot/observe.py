"""Observability: structured logs, and `/healthz` + Prometheus `/metrics` over HTTP.

What `/metrics` holds is the bot's registry (roombot.metrics).

Logs are one JSON object per line by default (`log.format = "json"`): time,
level, logger, message, and every `extra=` field the code passes. The HTTP
endpoint listens on a local port (`[metrics] port`, 0 = off).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web
from prometheus_client import CollectorRegistry

from roombot.logs import quiet_expected, route_uncaught
from roombot.metrics import CONTENT_TYPE, render
from roombot.redact import Redactor

_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object a line; every text passes the redactor first (a provider's words
    quoted in an error, an exception's repr of a request with its headers)."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        super().__init__()
        self.redactor = Redactor() if redactor is None else redactor

    def format(self, record: logging.LogRecord) -> str:
        text = self.redactor.text
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": text(message_of(record)),
        }
        for k, v in record.__dict__.items():
            if k not in _STANDARD and not k.startswith("_"):
                out[k] = text(v if isinstance(v, str) else str(v)) if not _plain(v) else v
        if record.exc_info:
            out["exc"] = text(self.formatException(record.exc_info))
        return json.dumps(out, ensure_ascii=False)


def message_of(record: logging.LogRecord) -> str:
    """The record's message; a library's malformed one (arguments its text has no
    place for) is shown as it came instead of as logging's own traceback on stderr."""
    try:
        return record.getMessage()
    except (TypeError, ValueError):
        return f"{record.msg} {record.args!r}"


def _plain(value: object) -> bool:
    """A value a JSON line carries as it is: numbers, booleans, null."""
    return isinstance(value, int | float | bool) or value is None


class TextFormatter(logging.Formatter):
    def __init__(self, redactor: Redactor | None = None) -> None:
        super().__init__()
        self.redactor = Redactor() if redactor is None else redactor

    def format(self, record: logging.LogRecord) -> str:
        extras = " ".join(
            f"{k}={v}"
            for k, v in record.__dict__.items()
            if k not in _STANDARD and not k.startswith("_")
        )
        base = f"{self.formatTime(record)} {record.levelname:<7} {record.name}: "
        line = base + message_of(record) + (f"  {extras}" if extras else "")
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return self.redactor.text(line)


def setup_logging(level: str = "info", fmt: str = "json", redactor: Redactor | None = None) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(redactor) if fmt == "json" else TextFormatter(redactor))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.captureWarnings(True)  # a Python warning is a log line too, in the same format
    route_uncaught()  # and so is an exception nobody caught
    quiet_expected()  # nio's warnings about normal operation: one debug line of ours each
    # nio logs every 429 and timeout itself; the outbox logs them once, with context.
    logging.getLogger("nio").setLevel(max(logging.WARNING, root.level))
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)


def metrics_response(registry: CollectorRegistry) -> web.Response:
    """`/metrics`, on the metrics port and on the report API's: one registry, one renderer."""
    return web.Response(body=render(registry), headers={"Content-Type": CONTENT_TYPE})


def make_observe_app(
    registry: CollectorRegistry, health: Callable[[], tuple[bool, dict[str, Any]]]
) -> web.Application:
    async def healthz(_: web.Request) -> web.Response:
        ok, detail = health()
        return web.json_response({"ok": ok, **detail}, status=200 if ok else 503)

    async def metrics_handler(_: web.Request) -> web.Response:
        return metrics_response(registry)

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_handler)
    return app


async def serve(app: web.Application, host: str, port: int) -> web.AppRunner:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner


def now() -> float:
    return time.time()
