"""The Hermes reporter's sender: a bounded queue drained by one daemon thread.

Nothing here may slow or break Hermes. `enqueue` takes a lock, appends to a deque and wakes
the thread: no I/O, no wait, no exception out. The thread posts one event at a time to
roombot's report API (`POST /v1/events`, bearer token, a short timeout), retries what is
worth retrying with backoff, and drops the rest with a log line; every drop and every
swallowed error is counted. The thread is a daemon: an unsent report never keeps Hermes
alive (`flush` gives it a bounded moment at exit).

The URL rule is roombot's (roombot/report_tls.py), kept here in the standard library:
https:// is verified (the chain against the system's CAs, or only those of `caFile`, and
the host name), never loosened; plain http:// goes only to loopback (127.0.0.0/8, ::1,
localhost) unless `insecure: true`, which logs a warning. A URL with credentials in it is
refused. The token comes from `tokenFile` or `tokenEnv`, never from the settings, and is
never logged.
"""

from __future__ import annotations

import collections
import ipaddress
import json
import os
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

LOG_PREFIX = "roombot reporter: "

# The bot is busy, starting or rate limiting, or the token is being fixed: worth another try.
RETRY = frozenset({401, 408, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class Options:
    max_queue: int = 64  # events held while roombot is unreachable; the oldest dropped first
    max_tries: int = 6  # posts of one event before it is dropped
    base_delay: float = 0.25  # first backoff, doubling up to max_delay
    max_delay: float = 8.0
    timeout: float = 3.0  # one POST (connect and answer)


@dataclass(frozen=True)
class Config:
    url: str  # without the trailing slash
    token: str
    ca_file: str | None = None
    insecure: bool = False


class NotSending(ValueError):
    """The settings give no usable target; the message says why (the token never in it)."""


def is_loopback(host: str) -> bool:
    host = host.strip("[]").rstrip(".").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve(settings: object, env: Mapping[str, str] | None = None) -> Config | None:
    """The reporter's settings -> a Config; None when there are none (send nothing).

    Raises NotSending for settings that are there but unusable.
    """
    env = os.environ if env is None else env
    if not isinstance(settings, Mapping):
        return None
    url = settings.get("url")
    url = url.strip() if isinstance(url, str) else ""
    if not url:
        return None
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise NotSending("url is not a URL") from None
    if parts.scheme not in ("http", "https") or not host:
        raise NotSending("url is not an https:// (or loopback http://) URL")
    if parts.username or parts.password:
        raise NotSending("url holds credentials (user@ or user:password@): give the token apart")
    insecure = settings.get("insecure") is True
    if parts.scheme == "http" and not is_loopback(host) and not insecure:
        raise NotSending(
            f"url is plain http:// to a non-loopback host ({host}): the token would cross the "
            "network in the clear; use https://, or insecure: true to allow it anyway"
        )
    ca_file = settings.get("caFile")
    ca_file = ca_file if isinstance(ca_file, str) and ca_file else None
    if ca_file is not None:
        try:
            with open(ca_file, encoding="utf-8") as f:
                pem = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise NotSending(f"caFile {ca_file}: {type(e).__name__}") from None
        if "-----BEGIN CERTIFICATE-----" not in pem:
            raise NotSending(f"caFile {ca_file} holds no PEM certificate")
    if "token" in settings:
        raise NotSending("a token in clear is refused: use tokenFile or tokenEnv")
    token_file, token_env = settings.get("tokenFile"), settings.get("tokenEnv")
    if isinstance(token_file, str) and token_file:
        try:
            with open(token_file, encoding="utf-8") as f:
                token = f.read().strip()
        except (OSError, UnicodeDecodeError) as e:
            raise NotSending(f"tokenFile {token_file}: {type(e).__name__}") from None
    elif isinstance(token_env, str) and token_env:
        token = env.get(token_env, "").strip()
        if not token:
            raise NotSending(f"tokenEnv {token_env} is not set")
    else:
        raise NotSending("no tokenFile or tokenEnv")
    if not token:
        raise NotSending("the token is empty")
    return Config(url.rstrip("/"), token, ca_file, insecure)


def tls_refusal(error: BaseException, host: str) -> str | None:
    """A certificate refusal in roombot's words (never retried), or None."""
    reason = getattr(error, "reason", error)
    if isinstance(reason, ssl.SSLCertVerificationError):
        code = reason.verify_code
        if code in (2, 18, 19, 20, 21):
            return (
                f"{host}: the certificate is not signed by a CA we trust "
                "(unknown issuer; wrong caFile?)"
            )
        if code == 10:
            return f"{host}: the server's certificate has expired"
        if code == 9:
            return f"{host}: the server's certificate is not valid yet"
        if code in (62, 64):
            return f"{host}: the certificate is for another host (host name mismatch)"
        return f"{host}: the server's certificate was refused: {reason.verify_message}"
    if isinstance(reason, ssl.SSLError) and "WRONG_VERSION_NUMBER" in str(reason):
        return f"{host}: the server does not speak TLS on this port (is it plain http?)"
    return None


@dataclass
class Counts:
    sent: int = 0
    dropped: int = 0
    retries: int = 0
    errors: int = 0  # exceptions swallowed (in hooks and in the thread)
    extra: dict[str, int] = field(default_factory=dict)


class Sender:
    """One daemon thread posting queued events in order; `enqueue` never blocks or raises."""

    def __init__(
        self,
        config: Config,
        *,
        log: Callable[[str], None],
        options: Options | None = None,
        tick: Callable[[float], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.log = log
        self.options = options or Options()
        self.counts = Counts()
        self._tick = tick  # run by the thread about once a second (the reporter's timers)
        self._clock = clock
        self._queue: collections.deque[tuple[Any, int]] = collections.deque()
        self._cond = threading.Condition()
        self._busy = False
        self._stopped = False
        self._full = 0  # dropped for a full queue since the thread last said so
        parts = urllib.parse.urlsplit(config.url)
        self._host = parts.hostname or ""
        self._events_url = config.url + "/v1/events"
        self._context: ssl.SSLContext | None = None
        if parts.scheme == "https":
            self._context = ssl.create_default_context(cafile=config.ca_file)
        elif not is_loopback(self._host):
            log(
                f"{LOG_PREFIX}warning: plain http:// to a non-loopback host ({self._host}): the "
                "token and the reports cross the network unencrypted (insecure: true)"
            )
        self._opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}),  # straight to roombot, whatever *_proxy says
            urllib.request.HTTPSHandler(context=self._context),
        )
        self._thread = threading.Thread(target=self._run, name="roombot-reporter", daemon=True)
        self._thread.start()

    def enqueue(self, event: dict[str, Any] | Callable[[], dict[str, Any]]) -> None:
        """Hold one event (or a function building it, called on the thread); never blocks."""
        try:
            with self._cond:
                if len(self._queue) >= self.options.max_queue:
                    self._queue.popleft()  # the oldest; said by the thread, not in the hook
                    self.counts.dropped += 1
                    self._full += 1
                self._queue.append((event, 0))
                self._cond.notify()
        except Exception:
            self.counts.errors += 1

    def pending(self) -> int:
        with self._cond:
            return len(self._queue) + (1 if self._busy else 0)

    def flush(self, seconds: float) -> bool:
        """Wait at most `seconds` for the queue to empty (at exit, in tests)."""
        deadline = time.monotonic() + seconds
        with self._cond:
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.05))
        return True

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    # -- the thread --

    def _run(self) -> None:
        while True:
            try:
                with self._cond:
                    if not self._queue and not self._stopped:
                        self._cond.wait(1.0)
                    if self._stopped:
                        return
                    item = self._queue.popleft() if self._queue else None
                    self._busy = item is not None
                    full, self._full = self._full, 0
                if full:
                    self.log(
                        f"{LOG_PREFIX}dropped {full} report(s), the oldest first: queue full "
                        f"({self.options.max_queue} reports)"
                    )
                if self._tick is not None:
                    self._tick(self._clock())
                if item is not None:
                    event, tries = item
                    self._send(event() if callable(event) else event, tries)
            except Exception as e:  # the thread must outlive anything
                self.counts.errors += 1
                self.log(f"{LOG_PREFIX}sender error: {type(e).__name__}")
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _send(self, event: dict[str, Any], tries: int) -> None:
        while True:
            ok, retry, why, wait = self._post(event)
            if ok:
                self.counts.sent += 1
                return
            tries += 1
            if not retry:
                self._drop(event, why)
                return
            if tries >= self.options.max_tries:
                self._drop(event, f"{why}, after {tries} tries")
                return
            self.counts.retries += 1
            backoff = min(self.options.base_delay * 2 ** (tries - 1), self.options.max_delay)
            until = time.monotonic() + max(backoff, wait)
            with self._cond:  # woken by enqueue too: wait out the whole backoff
                while not self._stopped and time.monotonic() < until:
                    self._cond.wait(until - time.monotonic())
                if self._stopped:
                    return

    def _post(self, event: dict[str, Any]) -> tuple[bool, bool, str, float]:
        """(sent, worth retrying, why not, the wait the bot asked for)."""
        try:
            body = json.dumps(event, ensure_ascii=False).encode("utf-8")
        except (TypeError, ValueError) as e:
            return False, False, f"not JSON: {e}", 0.0
        request = urllib.request.Request(
            self._events_url,
            data=body,
            method="POST",
            headers={
                "Authorization": f"Bearer {self.config.token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
        )
        try:
            with self._opener.open(request, timeout=self.options.timeout) as answer:
                answer.read(4096)
                return True, False, "", 0.0
        except urllib.error.HTTPError as e:
            text = e.read(300).decode("utf-8", "replace")
            wait = _seconds(e.headers.get("Retry-After"))
            return False, e.code in RETRY, f"HTTP {e.code} {text}", wait
        except (urllib.error.URLError, OSError) as e:
            refusal = tls_refusal(e, self._host)
            if refusal is not None:
                return False, False, f"TLS refused: {refusal}", 0.0
            reason = getattr(e, "reason", e)
            return False, True, f"{self._host}: {type(reason).__name__}: {reason}", 0.0

    def _drop(self, event: dict[str, Any], why: str) -> None:
        self.counts.dropped += 1
        self.log(
            f"{LOG_PREFIX}dropped {event.get('type')} {event.get('event_id')} for "
            f"{event.get('turn')}: {why}"
        )


def _seconds(value: str | None) -> float:
    try:
        return max(0.0, min(float(value or 0), 60.0))
    except ValueError:
        return 0.0
