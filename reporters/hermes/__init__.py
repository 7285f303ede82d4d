"""roombot's reporter for Hermes (hermes-agent 0.19.0), as a Hermes plugin.

Hermes loads it from $HERMES_HOME/plugins/roombot-reporter/ once `roombot-reporter` is in
`plugins.enabled` of $HERMES_HOME/config.yaml (`roombot reporters enable hermes` writes
both: the plugin directory holds a two-file loader pointing at this directory). Its
settings are the `roombot_reporter` block of the same config.yaml:

    roombot_reporter:
      url: "https://roombot.example.org:8450"   # or plain http:// to loopback
      tokenFile: "/etc/roombot/hermes-reporter.token"   # or tokenEnv: ROOMBOT_API_TOKEN
      caFile: "/etc/roombot/ca.pem"            # optional: a private CA
      room: "!team:example.org"                # optional: for turns outside ACP with no Matrix room
      node: "gpu-1"                            # optional: default the host name
      endAfter: 120                            # optional: seconds (see reporter.py)

Without a url and a token reference it registers no hook at all. It never breaks Hermes:
every hook returns at once (a lock, a deque append), every error is swallowed and counted,
and the network is only touched by the sender's daemon thread (sender.py).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import socket
import time
from collections.abc import Callable, Mapping
from typing import Any

from . import reporter as _reporter
from . import sender as _sender

SETTINGS_KEY = "roombot_reporter"
TESTED_HERMES = "0.19.0"  # the version the lab runs (lab/install.sh)
GATEWAY_VARS = (
    "HERMES_SESSION_PLATFORM",
    "HERMES_SESSION_CHAT_ID",
    "HERMES_SESSION_MESSAGE_ID",
    "HERMES_SESSION_THREAD_ID",
)

_logger = logging.getLogger("roombot.hermes_reporter")


def log(line: str) -> None:
    with contextlib.suppress(Exception):  # a failing logger must not reach Hermes
        _logger.warning(line)


def gateway_context() -> Mapping[str, str]:
    """The gateway's session variables of the running turn (empty outside the gateway)."""
    try:
        from gateway.session_context import get_session_env  # type: ignore[import-not-found]
    except Exception:
        return {}
    return {name: get_session_env(name, "") for name in GATEWAY_VARS}


class Running:
    """A started reporter: the rules, the sender, and the hook callbacks to register."""

    def __init__(self, rules: _reporter.Reporter, sender: _sender.Sender) -> None:
        self.rules = rules
        self.sender = sender

    def callback(self, name: str) -> Callable[..., None]:
        hook, clock = self.rules.hook, time.time

        def on_hook(**kwargs: Any) -> None:
            hook(name, clock(), kwargs)  # never raises; returns None: Hermes's flow unchanged

        on_hook.__name__ = f"roombot_reporter_{name}"
        return on_hook

    def close(self, seconds: float = 2.0) -> None:
        self.rules.close()
        self.sender.flush(seconds)


def start(
    settings: object,
    *,
    env: Mapping[str, str] | None = None,
    options: _sender.Options | None = None,
    context: _reporter.Context = gateway_context,
    log: Callable[[str], None] = log,
) -> Running | None:
    """The reporter for these settings, its thread started; None when it has nothing to do."""
    try:
        config = _sender.resolve(settings, env)
    except _sender.NotSending as e:
        log(f"{_sender.LOG_PREFIX}not sending: {SETTINGS_KEY}: {e}")
        return None
    if config is None:
        return None
    given: Mapping[str, Any] = settings if isinstance(settings, Mapping) else {}
    room = given.get("room") if isinstance(given.get("room"), str) else None
    node = given.get("node") if isinstance(given.get("node"), str) else None
    end_after = given.get("endAfter")
    if not isinstance(end_after, int | float) or isinstance(end_after, bool) or end_after <= 0:
        end_after = _reporter.END_AFTER
    rules: _reporter.Reporter | None = None

    def tick(now: float) -> None:
        if rules is not None:
            rules.tick(now)

    sender = _sender.Sender(config, log=log, options=options, tick=tick)
    rules = _reporter.Reporter(
        sender.enqueue,
        room=room or None,
        node=node or _hostname(),
        end_after=float(end_after),
        context=context,
        log=log,
    )
    return Running(rules, sender)


def register(ctx: Any) -> None:
    """Hermes's entry point: read the settings, register the hooks (none without settings)."""
    try:
        _check_version()
        from hermes_cli.config import load_config_readonly  # type: ignore[import-not-found]

        running = start(load_config_readonly().get(SETTINGS_KEY))
        if running is None:
            return
        for name in _reporter.HOOKS:
            ctx.register_hook(name, running.callback(name))
        atexit.register(running.close)
    except Exception as e:  # a failing plugin must not stop Hermes from starting
        log(f"{_sender.LOG_PREFIX}disabled: {type(e).__name__}: {e}")


def _check_version() -> None:
    try:
        from importlib.metadata import version

        found = version("hermes-agent")
    except Exception:
        return
    if found != TESTED_HERMES:
        log(
            f"{_sender.LOG_PREFIX}warning: hermes-agent {found} is not the version this reporter "
            f"was tested with ({TESTED_HERMES}); its hooks may have changed"
        )


def _hostname() -> str | None:
    try:
        return socket.gethostname() or None
    except Exception:
        return None
