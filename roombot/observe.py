"""Observability: structured logs, and `/healthz` + Prometheus `/metrics` over HTTP.

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
from dataclasses import dataclass
from typing import Any

from aiohttp import web

_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for k, v in record.__dict__.items():
            if k not in _STANDARD and not k.startswith("_"):
                out[k] = v if isinstance(v, str | int | float | bool | None) else str(v)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        extras = " ".join(
            f"{k}={v}"
            for k, v in record.__dict__.items()
            if k not in _STANDARD and not k.startswith("_")
        )
        base = f"{self.formatTime(record)} {record.levelname:<7} {record.name}: "
        line = base + record.getMessage() + (f"  {extras}" if extras else "")
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def setup_logging(level: str = "info", fmt: str = "json") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.captureWarnings(True)  # a Python warning is a log line too, in the same format
    # nio logs every 429 and timeout itself; the outbox logs them once, with context.
    logging.getLogger("nio").setLevel(max(logging.WARNING, root.level))
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    kind: str  # "counter" or "gauge"
    help: str
    value: float


def prometheus_text(metrics: list[Metric]) -> str:
    lines: list[str] = []
    for m in metrics:
        lines.append(f"# HELP {m.name} {m.help}")
        lines.append(f"# TYPE {m.name} {m.kind}")
        value = int(m.value) if float(m.value).is_integer() else m.value
        lines.append(f"{m.name} {value}")
    return "\n".join(lines) + "\n"


def make_observe_app(
    metrics: Callable[[], list[Metric]], health: Callable[[], tuple[bool, dict[str, Any]]]
) -> web.Application:
    async def healthz(_: web.Request) -> web.Response:
        ok, detail = health()
        return web.json_response({"ok": ok, **detail}, status=200 if ok else 503)

    async def metrics_handler(_: web.Request) -> web.Response:
        return web.Response(
            text=prometheus_text(metrics()), content_type="text/plain", charset="utf-8"
        )

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
