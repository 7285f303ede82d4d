"""Cross-cutting concerns of the report API, outermost first.

errors: every refusal is a JSON body naming what is wrong (schemas/error.v1.json);
  an unexpected exception is logged and answered 500 without details.
auth: `/v1/...` needs `Authorization: Bearer <token>` of a configured source (401).
limits: a source over its rate gets 429 with Retry-After, before its body is read.
body: a POST must be `application/json` (415) and at most `max_body` bytes (413);
  the decoded JSON lands in request["json"] (400 when it is not JSON).
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from roombot.api import keys
from roombot.api.validation import BodyError, decode

log = logging.getLogger("roombot.api")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

_REASONS = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    503: "unavailable",
}


_CLASSES: dict[int, type[web.HTTPException]] = {
    c.status_code: c
    for c in (
        web.HTTPBadRequest,
        web.HTTPUnauthorized,
        web.HTTPForbidden,
        web.HTTPNotFound,
        web.HTTPConflict,
        web.HTTPRequestEntityTooLarge,
        web.HTTPUnsupportedMediaType,
        web.HTTPTooManyRequests,
        web.HTTPServiceUnavailable,
    )
}


def _json_text(status: int, message: str, extra: dict[str, Any]) -> str:
    return json.dumps({"error": _REASONS.get(status, "internal"), "message": message, **extra})


def refuse(status: int, message: str, **extra: Any) -> web.HTTPException:
    """An HTTP error whose body is the API's JSON error object."""
    headers = {}
    if status == 429:
        headers["Retry-After"] = str(max(1, math.ceil(extra["retry_after"])))
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="roombot"'
    text = _json_text(status, message, extra)
    if status == 413:  # the one class that wants the sizes (only for a text we replace)
        return web.HTTPRequestEntityTooLarge(
            0, text=text, content_type="application/json", headers=headers
        )
    return _CLASSES[status](text=text, content_type="application/json", headers=headers)


def _route_name(request: web.Request) -> str:
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else "(none)"


def _count_refusal(request: web.Request, status: int) -> None:
    source = request.get(keys.SOURCE)
    request.app[keys.METRICS].refused.labels(
        source.name if source else "-", _REASONS.get(status, "?")
    ).inc()


@web.middleware
async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    metrics = request.app[keys.METRICS]
    started = time.perf_counter()
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        if exc.content_type != "application/json" and exc.status >= 400:
            # aiohttp's own refusals: no route, wrong method, body over client_max_size
            exc = _as_json(request, exc)
        metrics.responses.labels(_route_name(request), exc.status).inc()
        if exc.status >= 400:
            _count_refusal(request, exc.status)
        raise exc from None
    except Exception:
        log.exception("report API handler failed", extra={"path": request.path})
        metrics.responses.labels(_route_name(request), 500).inc()
        return web.json_response(
            {"error": "internal", "message": "the bot failed on this request; nothing was taken"},
            status=500,
        )
    metrics.responses.labels(_route_name(request), response.status).inc()
    if response.status == 202:  # from the request's arrival: reading, checks, journal commit
        metrics.ack_seconds.observe(time.perf_counter() - started)
    return response


def _as_json(request: web.Request, exc: web.HTTPException) -> web.HTTPException:
    message = exc.reason
    if exc.status == 413:
        message = f"the body is larger than {request.app[keys.SETTINGS].max_body} bytes"
    if isinstance(exc, web.HTTPMethodNotAllowed):
        return web.HTTPMethodNotAllowed(
            exc.method,
            exc.allowed_methods,
            text=_json_text(405, f"{exc.method} is not allowed here", {}),
            content_type="application/json",
        )
    if exc.status in _CLASSES:
        return refuse(exc.status, message)
    return exc


def _routed(request: web.Request) -> bool:
    """False when the router found no handler (404, 405): no body is read for those."""
    return request.match_info.http_exception is None


@web.middleware
async def auth(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.path.startswith("/v1/"):
        source = request.app[keys.TOKENS].source_for(request.headers.get("Authorization"))
        if source is None:
            given = "Authorization" in request.headers
            raise refuse(
                401,
                "the bearer token is not one of the bot's sources"
                if given
                else "an Authorization: Bearer <token> header is required",
            )
        request[keys.SOURCE] = source
    return await handler(request)


@web.middleware
async def limits(request: web.Request, handler: Handler) -> web.StreamResponse:
    source = request.get(keys.SOURCE)
    if source is not None and request.method == "POST" and _routed(request):
        now = time.monotonic()
        wait = request.app[keys.LIMITS].admit(source, now)
        if wait > 0:
            raise refuse(
                429,
                f"source {source.name!r} is over its rate of {source.rate:g} events/s",
                retry_after=round(wait, 3),
            )
        # Every post costs one token, refused or not, so a source sending bad posts in a
        # loop is slowed down too; the handler charges the rest of a batch's events.
        request.app[keys.LIMITS].charge(source, 1, now)
    return await handler(request)


@web.middleware
async def body(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.method == "POST" and request.path.startswith("/v1/") and _routed(request):
        if request.content_type != "application/json":
            raise refuse(
                415,
                f"expected Content-Type application/json, got {request.content_type or 'none'}",
            )
        charset = request.charset
        if charset is not None and charset.lower().replace("-", "") != "utf8":
            raise refuse(415, f"expected the UTF-8 charset, got {charset}")
        limit = request.app[keys.SETTINGS].max_body
        if request.content_length is not None and request.content_length > limit:
            raise refuse(413, f"the body is {request.content_length} bytes; the limit is {limit}")
        raw = await request.read()  # aiohttp enforces client_max_size while reading
        try:
            request[keys.JSON] = decode(raw)
        except BodyError as e:
            raise refuse(400, str(e), field=e.field, expected=e.expected) from None
    return await handler(request)
