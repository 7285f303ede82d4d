"""The node's side of room commands: fetch the requests for this node, carry them out, answer.

`serve_requests(url, token, node, state_dir, stop=...)` polls the bot's report API
(`GET /v1/nodes/{node}/requests`, every `interval` seconds), and for each request:

- refuses it (`ok: false`, saying how to opt in) unless this node opted in to being
  managed from the room (`roombot node plugin-management enable`; off by default);
- else hands it to `handle`, in a thread (it reads and writes files), and posts the
  result (`POST /v1/nodes/{node}/results`).

`handle` defaults to `reviewed_handler(state_dir)`, which makes the plan with
`roombot.reviewed.make_plan` and applies it with `roombot.reviewed.apply_digest`
(the digest rule, backups and idempotence are that module's). The bot hands a
request again until its result arrives, so a result is kept and posted again, never
made twice. What the node sends is bounded to what the API takes (texts, the diff,
versions); a diff cut here says so. Nothing is ever restarted.

The URL rule is every client's (roombot.report_tls): https verified, plain http only
to loopback unless `insecure`. The token is never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp

from roombot import reviewed
from roombot.redact import Redactor
from roombot.report_tls import check_url, client_context, explain
from roombot.reporters import Settings

log = logging.getLogger("roombot.node")

TEXT_LIMIT = 2000  # results.v1.json's bounds
DIFF_LIMIT = 12000
VERSIONS_LIMIT = 16
_REMEMBERED = 256  # results kept to post again (the bot hands a request until answered)


@dataclass(frozen=True, slots=True)
class Request:
    id: str
    op: str  # "plan" | "apply"
    reporter: str
    action: str  # "enable" | "disable"
    digest: str | None = None  # apply only


@dataclass(frozen=True, slots=True)
class Result:
    id: str
    ok: bool
    text: str = ""
    digest: str | None = None  # plan only, when ok
    diff: str = ""
    versions: Mapping[str, str | None] = field(default_factory=dict)

    def wire(self) -> dict[str, Any]:
        """The result within the API's bounds; a cut diff is said in the text."""
        text = self.text
        out: dict[str, Any] = {"id": self.id, "ok": self.ok}
        if self.ok and self.digest is not None:
            diff = self.diff
            if len(diff) > DIFF_LIMIT:
                cut = diff[:DIFF_LIMIT].rsplit("\n", 1)[0] + "\n"
                text = (
                    f"The diff is cut at {len(cut):,} of {len(diff):,} characters; "
                    "`roombot reporters plan NAME` on the node shows it whole. " + text
                )
                diff = cut
            versions = dict(sorted(self.versions.items())[:VERSIONS_LIMIT])
            out["plan"] = {
                "digest": self.digest,
                "diff": diff,
                "versions": {k[:64]: v[:128] if v else None for k, v in versions.items()},
            }
        if len(text) > TEXT_LIMIT:
            text = text[: TEXT_LIMIT - 1] + "…"
        out["text"] = text
        return out


Handler = Callable[[Request], Result]


def _parse(item: object) -> Request | None:
    if not isinstance(item, dict):
        return None
    rid, op = item.get("id"), item.get("op")
    reporter, action, digest = item.get("reporter"), item.get("action"), item.get("digest")
    if not (isinstance(rid, str) and isinstance(reporter, str) and isinstance(action, str)):
        return None
    if op not in ("plan", "apply") or action not in ("enable", "disable"):
        return None
    if op == "apply" and not isinstance(digest, str):
        return None
    return Request(rid, op, reporter, action, digest if op == "apply" else None)


def reviewed_handler(
    state_dir: Path, *, settings: Settings | None = None, env: Mapping[str, str] | None = None
) -> Handler:
    """The handler that plans and applies with roombot.reviewed.

    `settings`: the reporter's roombot.reporters.Settings for an enable (None: keep
    the settings the harness's configuration already holds).
    """

    redactor = Redactor()

    def handle(request: Request) -> Result:
        try:
            if request.op == "plan":
                plan = reviewed.make_plan(
                    request.reporter,
                    request.action,
                    settings,
                    state_dir=state_dir,
                    env=os.environ if env is None else env,
                )
                said = (
                    f"{len(plan.files)} file(s) would change: {', '.join(plan.files)}"
                    if plan.diff
                    else ""
                )
                # the diff's context lines may hold a key: hidden before it leaves the node
                diff = redactor.text(plan.diff)
                return Result(request.id, True, said, plan.digest, diff, dict(plan.versions))
            assert request.digest is not None
            applied = reviewed.apply_digest(request.reporter, request.digest, state_dir=state_dir)
            if not applied.changed:
                return Result(request.id, True, "Nothing changed: the plan was applied already.")
            backups = ", ".join(applied.backups)
            files = ", ".join(applied.plan.files)
            return Result(
                request.id,
                True,
                f"Wrote {files} (backed up first: {backups}). Nothing was restarted.",
            )
        except reviewed.PlanRefused as e:
            return Result(request.id, False, str(e))

    return handle


def not_opted_in(node: str) -> str:
    return (
        f"node {node} has not opted in to being managed from the room; on the node run: "
        "roombot node plugin-management enable"
    )


async def serve_requests(
    url: str,
    token: str,
    node: str,
    state_dir: Path,
    *,
    stop: asyncio.Event,
    interval: float = 2.0,
    handle: Handler | None = None,
    enabled: Callable[[], bool] | None = None,
    ca_file: str | Path | None = None,
    insecure: bool = False,
    timeout: float = 10.0,
) -> None:
    """Until `stop` is set: poll, carry out, answer. Network failures are logged and
    retried at the next poll; they never end the loop."""
    parts = check_url(url, insecure=insecure)
    base = url.rstrip("/") + f"/v1/nodes/{quote(node, safe='')}"
    handle = handle or reviewed_handler(state_dir)
    enabled = enabled or (lambda: reviewed.management_enabled(state_dir))
    done: OrderedDict[str, Result] = OrderedDict()
    ssl = client_context(ca_file) if parts.scheme == "https" else None
    headers = {"Authorization": f"Bearer {token}"}
    failing: str | None = None
    async with aiohttp.ClientSession(
        headers=headers, timeout=aiohttp.ClientTimeout(total=timeout)
    ) as http:
        while not stop.is_set():
            try:
                await _once(http, base, node, ssl, handle, enabled, done)
                if failing is not None:
                    log.info("the bot answers node requests again", extra={"node": node})
                failing = None
            except (aiohttp.ClientError, TimeoutError, OSError, ValueError) as e:
                why = explain(e, parts.hostname or "") or f"{type(e).__name__}: {e}"
                if why != failing:
                    log.warning(
                        "cannot fetch or answer room requests; retrying",
                        extra={"node": node, "error": why},
                    )
                failing = why
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)


async def _once(
    http: aiohttp.ClientSession,
    base: str,
    node: str,
    ssl: Any,
    handle: Handler,
    enabled: Callable[[], bool],
    done: OrderedDict[str, Result],
) -> None:
    async with http.get(base + "/requests", ssl=ssl) as r:
        body = await r.json(content_type=None)
        if r.status != 200:
            raise ValueError(f"GET requests answered {r.status}: {body.get('message', '')}")
    items = body.get("requests") if isinstance(body, dict) else None
    results: list[Result] = []
    for item in items if isinstance(items, list) else []:
        request = _parse(item)
        if request is None:
            log.warning("a request the node does not understand, skipped", extra={"node": node})
            continue
        if request.id not in done:
            done[request.id] = await _carry_out(request, node, handle, enabled)
            while len(done) > _REMEMBERED:
                done.popitem(last=False)
        results.append(done[request.id])
    for start in range(0, len(results), 8):  # results.v1.json: at most 8 a post
        chunk = results[start : start + 8]
        async with http.post(
            base + "/results", json={"results": [x.wire() for x in chunk]}, ssl=ssl
        ) as r:
            answer = await r.json(content_type=None)
            if r.status != 200:
                raise ValueError(f"POST results answered {r.status}: {answer.get('message', '')}")


async def _carry_out(
    request: Request, node: str, handle: Handler, enabled: Callable[[], bool]
) -> Result:
    fields = {"node": node, "request": request.id, "op": request.op, "reporter": request.reporter}
    try:
        if not await asyncio.to_thread(enabled):
            log.warning("room request refused: not opted in", extra=fields)
            return Result(request.id, False, not_opted_in(node))
        result = await asyncio.to_thread(handle, request)
    except Exception as e:  # the room hears that it failed, and why; the loop goes on
        log.exception("room request failed", extra=fields)
        return Result(request.id, False, f"the node failed on it: {type(e).__name__}: {e}")
    log.info("room request carried out", extra={**fields, "ok": result.ok})
    return result
