"""The three client-server endpoints cross-signing needs, over aiohttp.

`/keys/query` (what the server holds), `/keys/device_signing/upload`
(publish the public keys, answering user-interactive auth with the bot's
password when the server asks) and `/keys/signatures/upload` (the device's
signature by the self-signing key).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import aiohttp

log = logging.getLogger("roombot.crosssign")

PREFIX = "/_matrix/client/v3"


class CrossSigningApiError(RuntimeError):
    """The homeserver refused a request or could not be reached; the message says which."""

    def __init__(self, message: str, *, status: int | None = None, errcode: str | None = None):
        super().__init__(message)
        self.status = status
        self.errcode = errcode


class KeysApi:
    """One logged-in device's view of the key endpoints."""

    def __init__(
        self,
        homeserver: str,
        user_id: str,
        device_id: str,
        access_token: str,
        *,
        timeout: float = 30.0,
    ) -> None:
        self.homeserver = homeserver.rstrip("/")
        self.user_id = user_id
        self.device_id = device_id
        self._token = access_token
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._session: aiohttp.ClientSession | None = None
        self.uia_rounds = 0  # how many times the server asked for the password (for tests, logs)

    async def __aenter__(self) -> KeysApi:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _post(self, path: str, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        url = self.homeserver + PREFIX + path
        headers = {"Authorization": f"Bearer {self._token}"}
        try:
            async with self._session.post(url, json=body, headers=headers) as r:
                try:
                    answer = await r.json(content_type=None)
                except ValueError:
                    answer = None
                return r.status, answer if isinstance(answer, dict) else {}
        except (aiohttp.ClientError, TimeoutError) as e:
            raise CrossSigningApiError(f"POST {path}: {type(e).__name__}: {e}") from e

    @staticmethod
    def _error(path: str, status: int, answer: Mapping[str, Any]) -> CrossSigningApiError:
        errcode = answer.get("errcode")
        error = answer.get("error") or "(no message)"
        return CrossSigningApiError(
            f"POST {path} -> {status} {errcode or ''}: {error}".replace("  ", " "),
            status=status,
            errcode=errcode if isinstance(errcode, str) else None,
        )

    async def query(self, user_id: str | None = None) -> dict[str, Any]:
        """The `/keys/query` answer for one user (the bot itself by default)."""
        user = user_id or self.user_id
        status, answer = await self._post("/keys/query", {"device_keys": {user: []}})
        if status != 200:
            raise self._error("/keys/query", status, answer)
        return answer

    async def query_users(self, user_ids: Iterable[str]) -> dict[str, Any]:
        """One `/keys/query` answer for several users (every device of each)."""
        devices: dict[str, list[str]] = {user: [] for user in user_ids}
        status, answer = await self._post("/keys/query", {"device_keys": devices})
        if status != 200:
            raise self._error("/keys/query", status, answer)
        return answer

    async def upload_signing_keys(
        self, body: Mapping[str, Any], password: Callable[[], str | None]
    ) -> None:
        """Publish cross-signing keys; answers user-interactive auth with `password()`.

        The first request goes without auth: Synapse (and the spec since
        MSC3967) lets a first-time upload through, and only asks for auth to
        replace keys. When it answers 401 with a session, the second request
        sends `m.login.password`.
        """
        path = "/keys/device_signing/upload"
        status, answer = await self._post(path, body)
        if status == 200:
            return
        if status != 401 or "flows" not in answer:
            raise self._error(path, status, answer)
        self.uia_rounds += 1
        flows = answer.get("flows") or []
        offered = [f.get("stages") for f in flows if isinstance(f, dict)]
        if ["m.login.password"] not in offered:
            raise CrossSigningApiError(
                f"POST {path}: the homeserver asks for authentication the bot cannot give "
                f"(flows {offered}); publish the keys from a client that can",
                status=status,
            )
        try:
            secret = password()
        except ValueError as e:  # ConfigError: the password file is unreadable
            raise CrossSigningApiError(f"POST {path}: the bot's password: {e}") from e
        if not secret:
            raise CrossSigningApiError(
                f"POST {path}: the homeserver asks for the bot's password and none is configured "
                "(set matrix.password_file or matrix.password_env)",
                status=status,
            )
        auth = {
            "type": "m.login.password",
            "identifier": {"type": "m.id.user", "user": self.user_id},
            "password": secret,
            "session": answer.get("session"),
        }
        status, answer = await self._post(path, {**body, "auth": auth})
        if status == 200:
            return
        if status == 401:
            raise CrossSigningApiError(
                f"POST {path}: the homeserver refused the bot's password "
                f"({answer.get('errcode')}: {answer.get('error')})",
                status=status,
                errcode=answer.get("errcode"),
            )
        raise self._error(path, status, answer)

    async def upload_signatures(self, signed: Mapping[str, Mapping[str, Any]]) -> None:
        """`/keys/signatures/upload` for the bot's own keys: {device id: signed object}."""
        path = "/keys/signatures/upload"
        status, answer = await self._post(path, {self.user_id: dict(signed)})
        if status != 200:
            raise self._error(path, status, answer)
        failures = answer.get("failures") or {}
        if failures:
            raise CrossSigningApiError(f"POST {path}: the homeserver refused: {failures}")
