"""A throwaway Synapse homeserver on 127.0.0.1, for tests, benches and `roombot demo`.

Synapse comes from the current virtualenv (`matrix-synapse` is a test
dependency); nothing is installed here. Each server lives in its own
directory: SQLite database, media store, signing key, config and log. It is
started as a child process and stopped (or killed) by its own pid, so a test
can kill it mid-burst and start it again on the same port and data.

Rate limits are raised by default (tests and the demo send bursts); pass
`raise_limits=False` to meet Synapse's real defaults (0.2 messages/s, burst 10).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import hmac
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Every client-side rate limit Synapse knows, raised far above any burst we send.
_HIGH = {"per_second": 10000, "burst_count": 100000}
_RAISED_LIMITS: dict[str, Any] = {
    "rc_message": _HIGH,
    "rc_registration": _HIGH,
    "rc_registration_token_validity": _HIGH,
    "rc_login": {"address": _HIGH, "account": _HIGH, "failed_attempts": _HIGH},
    "rc_admin_redaction": _HIGH,
    "rc_joins": {"local": _HIGH, "remote": _HIGH},
    "rc_joins_per_room": _HIGH,
    "rc_key_requests": _HIGH,
    "rc_3pid_validation": _HIGH,
    "rc_invites": {"per_room": _HIGH, "per_user": _HIGH, "per_issuer": _HIGH},
    "rc_third_party_invite": _HIGH,
    "rc_media_create": _HIGH,
    "rc_presence": {"per_user": _HIGH},
    "rc_delayed_event_mgmt": _HIGH,
    "rc_room_creation": _HIGH,
    "rc_reports": _HIGH,
    "rc_user_directory": _HIGH,
    "rc_profile": _HIGH,
}


class DevServerError(RuntimeError):
    """Synapse would not start, or an admin request failed."""


@dataclass(frozen=True, slots=True)
class User:
    """A user registered through the shared-secret admin API."""

    user_id: str
    localpart: str
    password: str
    access_token: str
    device_id: str


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def synapse_available() -> bool:
    try:
        import synapse  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class DevServer:
    """One Synapse process with its data directory.

    `start()` writes the config on first use and waits until the client API
    answers; `stop()` sends SIGTERM to the pid, `kill()` sends SIGKILL;
    `start()` again reuses the same port, database and signing key.
    """

    directory: Path
    port: int = 0
    server_name: str = "localhost"
    raise_limits: bool = True
    shared_secret: str = field(default_factory=lambda: secrets.token_hex(16))
    _proc: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _owns_dir: bool = field(default=False, init=False, repr=False)

    @classmethod
    def temporary(cls, **kwargs: Any) -> DevServer:
        """A server in a fresh temporary directory, removed by `cleanup()`."""
        server = cls(Path(tempfile.mkdtemp(prefix="roombot-synapse-")), **kwargs)
        server._owns_dir = True
        return server

    # -- addresses -------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def user_id(self, localpart: str) -> str:
        return f"@{localpart}:{self.server_name}"

    @property
    def log_path(self) -> Path:
        return self.directory / "homeserver.log"

    # -- lifecycle -------------------------------------------------------------

    def _write_config(self) -> Path:
        config_path = self.directory / "homeserver.yaml"
        if config_path.exists():
            return config_path
        from signedjson.key import generate_signing_key, write_signing_keys

        self.directory.mkdir(parents=True, exist_ok=True)
        key_path = self.directory / "signing.key"
        with key_path.open("w") as f:
            write_signing_keys(f, [generate_signing_key("a_dev")])
        config: dict[str, Any] = {
            "server_name": self.server_name,
            "pid_file": str(self.directory / "homeserver.pid"),
            "public_baseurl": self.url + "/",
            "listeners": [
                {
                    "port": self.port,
                    "bind_addresses": ["127.0.0.1"],
                    "type": "http",
                    "tls": False,
                    "x_forwarded": False,
                    "resources": [{"names": ["client"], "compress": False}],
                }
            ],
            "database": {
                "name": "sqlite3",
                "args": {"database": str(self.directory / "homeserver.db")},
            },
            "media_store_path": str(self.directory / "media_store"),
            "signing_key_path": str(key_path),
            "report_stats": False,
            "trusted_key_servers": [],
            "suppress_key_server_warning": True,
            "presence": {"enabled": False},
            "enable_registration": False,
            "registration_shared_secret": self.shared_secret,
            "macaroon_secret_key": secrets.token_hex(16),
            "form_secret": secrets.token_hex(16),
            "bcrypt_rounds": 4,
            "url_preview_enabled": False,
            "enable_metrics": False,
            "max_upload_size": "50M",
        }
        if self.raise_limits:
            config.update(_RAISED_LIMITS)
        # JSON is valid YAML; Synapse reads either.
        config_path.write_text(json.dumps(config, indent=2))
        return config_path

    def start(self, timeout: float = 60.0) -> None:
        """Start Synapse (again) and wait until its client API answers."""
        if self.running:
            return
        if self.port == 0:
            self.port = free_port()
        config_path = self._write_config()
        log = self.log_path.open("ab")
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "synapse.app.homeserver", "-c", str(config_path)],
                cwd=self.directory,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # a Ctrl-C in the terminal is ours to pass on
            )
        finally:
            log.close()
        atexit.register(self._atexit)
        deadline = time.monotonic() + timeout
        while True:
            if self._proc.poll() is not None:
                raise DevServerError(
                    f"Synapse exited with status {self._proc.returncode} while starting; "
                    f"log tail:\n{self.log_tail()}"
                )
            if self._answers():
                return
            if time.monotonic() > deadline:
                self.kill()
                raise DevServerError(f"Synapse not ready in {timeout}s; log:\n{self.log_tail()}")
            time.sleep(0.1)

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/_matrix/client/versions", timeout=1) as r:
                return bool(r.status == 200)
        except (OSError, urllib.error.URLError):
            return False

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM to Synapse's pid; SIGKILL if it is still there after `timeout`."""
        proc = self._proc
        if proc is None or proc.poll() is not None:
            self._proc = None
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)
        self._proc = None

    def kill(self) -> None:
        """SIGKILL to Synapse's pid: no shutdown at all, as in a crash."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(15)
        self._proc = None

    def cleanup(self) -> None:
        """Stop, and remove the directory if this object created it."""
        self.stop()
        if self._owns_dir:
            shutil.rmtree(self.directory, ignore_errors=True)

    def _atexit(self) -> None:
        with contextlib.suppress(Exception):
            self.stop(timeout=5)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def __enter__(self) -> DevServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    # -- admin API ---------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        body: object | None = None,
        *,
        token: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        """One JSON request to the server; raises DevServerError on a non-2xx answer."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if token is not None:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                payload = r.read()
        except urllib.error.HTTPError as e:
            raise DevServerError(
                f"{method} {path} -> {e.code}: {e.read().decode(errors='replace')}"
            ) from e
        result = json.loads(payload or b"{}")
        return result if isinstance(result, dict) else {"result": result}

    def register_user(
        self, localpart: str, password: str | None = None, *, admin: bool = False
    ) -> User:
        """Register through `/_synapse/admin/v1/register` with the shared secret."""
        password = password or secrets.token_urlsafe(12)
        nonce = self.request("GET", "/_synapse/admin/v1/register")["nonce"]
        signed = "\x00".join((nonce, localpart, password, "admin" if admin else "notadmin"))
        mac = hmac.new(self.shared_secret.encode(), signed.encode(), digestmod=hashlib.sha1)
        body = {
            "nonce": nonce,
            "username": localpart,
            "password": password,
            "admin": admin,
            "mac": mac.hexdigest(),
        }
        answer = self.request("POST", "/_synapse/admin/v1/register", body)
        return User(
            user_id=answer["user_id"],
            localpart=localpart,
            password=password,
            access_token=answer["access_token"],
            device_id=answer["device_id"],
        )
