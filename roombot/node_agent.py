"""The node agent: a heartbeat to the bot's report API every interval, for as long as it runs.

`run_agent(settings, stop=...)` sends `POST /v1/nodes/heartbeat` with the node's name,
the harnesses found on it and their versions, the reporters enabled, whether the node
opted in to plugin management, and roombot's version. Until `stop` is set it never
gives up and never raises: a bot that is down, restarting or refusing is retried, and
logged once when the trouble starts and once when it ends, never at every beat.

Retries back off from 1 s, doubling, up to the interval and never beyond it: the bot
gives every node offline_after from its own start (the restart rule, docs/nodes.md), so
an agent that waited longer than that after an outage would be taken for offline.

Without `--interval` the agent leaves `interval` out and beats at the bot's `[nodes]
heartbeat_interval`, which each answer tells it (10 s until the first answer).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roombot import harness_versions, reviewed
from roombot.nodes import DEFAULT_HEARTBEAT_INTERVAL
from roombot.report_client import Refused, ReportClient, ReportError

log = logging.getLogger("roombot.node")

HEARTBEAT_PATH = "/v1/nodes/heartbeat"
FIRST_RETRY = 1.0

Found = Callable[[], Mapping[str, str | None]]
Enabled = Callable[[], Mapping[str, bool]]


def reporters_enabled() -> dict[str, bool]:
    """Each reporter: whether its harness's configuration on this node loads it."""
    from roombot import reporters

    return {name: reporters.status(r).enabled for name, r in reporters.REPORTERS.items()}


def roombot_version() -> str | None:
    try:
        return importlib.metadata.version("roombot")
    except importlib.metadata.PackageNotFoundError:
        return None


@dataclass(frozen=True, slots=True)
class AgentSettings:
    url: str
    token: str
    node: str
    interval: float | None = None  # None: the bot's heartbeat_interval
    ca_file: Path | None = None
    insecure: bool = False
    state_dir: Path = field(default_factory=reviewed.default_state_dir)  # the opt-in, the plans

    def __repr__(self) -> str:  # never print the token
        return f"AgentSettings(url={self.url!r}, node={self.node!r})"


class Agent:
    def __init__(
        self,
        settings: AgentSettings,
        *,
        found: Found = harness_versions.found,
        enabled: Enabled = reporters_enabled,
        managed: Callable[[], bool] | None = None,
        client: ReportClient | None = None,
    ) -> None:
        self.settings = settings
        # tries=1: the agent's own loop retries, at its own pace. Raises CannotSend
        # (a refused URL, an unreadable CA file) before anything is sent.
        self.client = client or ReportClient(
            settings.url,
            settings.token,
            ca_file=settings.ca_file,
            insecure=settings.insecure,
            timeout=5.0,
            tries=1,
        )
        self.found = found
        self.enabled = enabled
        self.managed = managed or (lambda: reviewed.management_enabled(settings.state_dir))
        self.interval = settings.interval or DEFAULT_HEARTBEAT_INTERVAL
        self.sent = 0
        self.failed = 0  # beats that did not get through, all told
        self._trouble: str | None = None  # what went wrong, while it lasts
        self._failed_now = 0  # beats lost in the present trouble
        self._local: set[str] = set()  # local problems already logged

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"node": self.settings.node}
        if self.settings.interval is not None:  # else the bot's heartbeat_interval
            body["interval"] = self.settings.interval
        return {
            **body,
            "harnesses": dict(self._local_call("harnesses", self.found, {})),
            "reporters": dict(self._local_call("reporters", self.enabled, {})),
            "plugin_management": bool(self._local_call("plugin management", self.managed, False)),
            "version": roombot_version(),
        }

    def _local_call(self, what: str, call: Callable[[], Any], default: Any) -> Any:
        """What the node says about itself; a failure is logged once and sent as `default`."""
        try:
            value = call()
        except Exception as e:
            if what not in self._local:
                self._local.add(what)
                log.warning(
                    "cannot read the node's %s (sent without them): %s",
                    what,
                    e,
                    extra={"node": self.settings.node},
                )
            return default
        self._local.discard(what)
        return value

    async def beat(self) -> bool:
        """One heartbeat; True when the bot took it."""
        body = self.body()
        try:
            answer = await asyncio.to_thread(self.client.post, HEARTBEAT_PATH, body)
        except ReportError as e:
            self._failing(str(e), refused=isinstance(e, Refused))
            return False
        except Exception as e:  # anything else the network or a proxy throws at us
            self._failing(f"{type(e).__name__}: {e}", refused=False)
            return False
        self.sent += 1
        if self._trouble is not None:
            log.info(
                "the bot takes heartbeats again (%d lost)",
                self._failed_now,
                extra={"node": self.settings.node, "lost": self._failed_now},
            )
            self._trouble = None
            self._failed_now = 0
        told = answer.get("heartbeat_interval")
        if self.settings.interval is None and isinstance(told, int | float) and told > 0:
            self.interval = float(told)
        return True

    def _failing(self, why: str, *, refused: bool) -> None:
        self.failed += 1
        self._failed_now += 1
        # Once per outage; a new reason (down, then refusing) is a new line.
        kind = "refused" if refused else "unreachable"
        if self._trouble != kind:
            self._trouble = kind
            if refused:
                log.error(
                    "the bot refuses this node's heartbeat (retrying): %s",
                    why,
                    extra={"node": self.settings.node},
                )
            else:
                log.warning(
                    "the bot cannot be reached (retrying, logged once until it answers): %s",
                    why,
                    extra={"node": self.settings.node},
                )

    async def run(self, stop: asyncio.Event) -> int:
        log.info(
            "node agent started",
            extra={"node": self.settings.node, "url": self.client.url},
        )
        retry = FIRST_RETRY
        while not stop.is_set():
            if await self.beat():
                retry = FIRST_RETRY
                wait = self.interval
            else:
                wait = min(retry, self.interval)
                retry = min(retry * 2, self.interval)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), wait)
        log.info(
            "node agent stopped",
            extra={"node": self.settings.node, "sent": self.sent, "failed": self.failed},
        )
        return 0
