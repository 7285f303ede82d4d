"""Shared pieces of the cross-signing tests: a bot device, an outsider's view, signature checks.

The checks here use PyNaCl and canonicaljson directly, not roombot's own
verify(), so the tests do not grade the code with itself.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nacl.signing
from canonicaljson import encode_canonical_json
from nio import AsyncClient, AsyncClientConfig, LoginResponse
from unpaddedbase64 import decode_base64

from roombot.crosssign.api import KeysApi
from roombot.crosssign.manage import Bootstrapper
from roombot.crosssign.store import KeyStore
from roombot.devserver import DevServer, User


def check_signature(obj: dict[str, Any], signer: str, key_id: str, public: str) -> None:
    """Raise unless `obj` carries a valid Ed25519 signature over its canonical JSON."""
    body = {k: v for k, v in obj.items() if k not in ("signatures", "unsigned")}
    sig = decode_base64(obj["signatures"][signer][key_id])
    nacl.signing.VerifyKey(decode_base64(public)).verify(encode_canonical_json(body), sig)


def only_key(obj: dict[str, Any]) -> tuple[str, str]:
    ((key_id, public),) = obj["keys"].items()
    assert key_id == f"ed25519:{public}"
    return key_id, public


def query_as(hs: DevServer, viewer: User, user_id: str) -> dict[str, Any]:
    """A second client's `/keys/query` for `user_id`."""
    return hs.request(
        "POST",
        "/_matrix/client/v3/keys/query",
        {"device_keys": {user_id: []}},
        token=viewer.access_token,
    )


@dataclass
class BotDevice:
    """A bot-like device: a nio client with a crypto store whose keys are on the server."""

    user: User
    client: AsyncClient
    state_dir: Path

    @property
    def device_id(self) -> str:
        return str(self.client.device_id)

    def api(self) -> KeysApi:
        return KeysApi(
            self.client.homeserver, self.user.user_id, self.device_id, self.client.access_token
        )

    async def query(self) -> dict[str, Any]:
        """The bot's own `/keys/query` answer (it alone sees its user-signing key)."""
        async with self.api() as api:
            return await api.query()

    def bootstrapper(self, api: KeysApi, password: str | None = None) -> Bootstrapper:
        secret = self.user.password if password is None else password
        return Bootstrapper(api, KeyStore(self.state_dir), lambda: secret)

    def save_credentials(self) -> None:
        """credentials.json as the bot writes it, so `roombot crypto` finds the device."""
        path = self.state_dir / "credentials.json"
        data = {
            "homeserver": self.client.homeserver,
            "user_id": self.user.user_id,
            "device_id": self.device_id,
            "access_token": self.client.access_token,
        }
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(data, f)


async def bot_device(hs: DevServer, user: User, state_dir: Path) -> BotDevice:
    state_dir.mkdir(parents=True, exist_ok=True)
    store = state_dir / "crypto"
    store.mkdir(exist_ok=True)
    client = AsyncClient(
        hs.url,
        user.user_id,
        store_path=str(store),
        config=AsyncClientConfig(encryption_enabled=True, max_timeouts=2),
    )
    resp = await asyncio.wait_for(client.login(user.password, device_name="roombot"), 30)
    assert isinstance(resp, LoginResponse), resp
    if client.should_upload_keys:
        await asyncio.wait_for(client.keys_upload(), 30)
    return BotDevice(user, client, state_dir)
