"""What `roombot run --check` asks the homeserver: only reads, nothing the bot keeps changes.

The client API answering `/_matrix/client/versions`; the session `run` would
resume (or the configured access token) still accepted, for the configured
user; each configured room resolvable, and, with a session, one the bot is
in, is invited to, or may join (a public room). No login (that would make a
device), no join, no sync token kept.
"""

from __future__ import annotations

import json
import secrets
from typing import Any
from urllib.parse import quote

import aiohttp

from roombot.check.finding import Finding
from roombot.check.local import source_key
from roombot.config import Config, ConfigError, Secret

CLIENT = "/_matrix/client"
# A sync that returns little beyond which rooms the bot is invited to (no timeline, no state).
_INVITES_ONLY: dict[str, Any] = {
    "presence": {"not_types": ["*"]},
    "account_data": {"not_types": ["*"]},
    "room": {
        "timeline": {"limit": 0},
        "state": {"not_types": ["*"]},
        "ephemeral": {"not_types": ["*"]},
        "account_data": {"not_types": ["*"]},
    },
}


def _invites_filter() -> str:
    # Synapse answers a sync identical to one of the last two minutes from a cache
    # (an invite sent since would be missed); a field of our own, new each time,
    # makes each request its own. Servers ignore filter fields they do not know.
    return json.dumps({**_INVITES_ONLY, "dev.roombot.check": secrets.token_hex(8)})


class _Homeserver:
    def __init__(self, http: aiohttp.ClientSession, base: str, token: str | None) -> None:
        self.http, self.base, self.token = http, base, token

    async def get(
        self, path: str, params: dict[str, str] | None = None, *, auth: bool = True
    ) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {self.token}"} if auth and self.token else {}
        async with self.http.get(self.base + path, params=params, headers=headers) as r:
            try:
                body = await r.json(content_type=None)
            except ValueError:
                body = None
            return r.status, body


def _error(status: int, body: Any) -> str:
    if isinstance(body, dict) and "errcode" in body:
        return f"HTTP {status} {body['errcode']}: {body.get('error', '')}".rstrip(": ")
    return f"HTTP {status}"


async def _versions(hs: _Homeserver, url: str) -> Finding | None:
    try:
        status, body = await hs.get(f"{CLIENT}/versions", auth=False)
    except (aiohttp.ClientError, TimeoutError, OSError) as e:
        return Finding(
            "matrix.homeserver",
            f"{url} does not answer ({type(e).__name__}: {e}); start the homeserver or fix the URL",
        )
    if status != 200 or not isinstance(body, dict) or not isinstance(body.get("versions"), list):
        return Finding(
            "matrix.homeserver",
            f"{url} is not a Matrix client API (GET {CLIENT}/versions gave "
            f"{_error(status, body)}); put the URL your Matrix client signs in to",
        )
    return None


def _quiet(secret: Secret) -> str | None:
    """The secret, or None: one that cannot be read was reported by the local checks."""
    try:
        return secret.get()
    except ConfigError:
        return None


async def _who(hs: _Homeserver) -> tuple[int, Any]:
    return await hs.get(f"{CLIENT}/v3/account/whoami")


async def _session(
    hs: _Homeserver, config: Config, session: dict[str, str] | None, found: list[Finding]
) -> None:
    """Keep `hs.token` only if the homeserver accepts it for the configured user."""
    m = config.matrix
    if session is not None:
        hs.token = session.get("access_token")
        status, body = await _who(hs)
        if status == 200:
            return
        hs.token = None
        if not _quiet(m.password):
            found.append(
                Finding(
                    source_key(m.password),
                    f"the stored session is refused ({_error(status, body)}) and "
                    f"{m.password.describe()} holds no password to log in again; set it",
                )
            )
        return
    token = _quiet(m.access_token)
    if not token:
        return
    hs.token = token
    status, body = await _who(hs)
    if status != 200 or not isinstance(body, dict) or not body.get("device_id"):
        hs.token = None
        found.append(
            Finding(
                source_key(m.access_token),
                f"the homeserver refuses this access token ({_error(status, body)}); "
                "put a current one, or remove the key to log in with the password",
            )
        )
    elif body.get("user_id") != m.user_id:
        hs.token = None
        found.append(
            Finding(
                "matrix.user_id",
                f"the access token belongs to {body.get('user_id')}, not {m.user_id}; "
                "put the token's user here or use the bot's own token",
            )
        )


async def _memberships(hs: _Homeserver) -> tuple[set[str], set[str]]:
    """The rooms the bot is in, and those it is invited to."""
    status, body = await hs.get(f"{CLIENT}/v3/joined_rooms")
    ok = status == 200 and isinstance(body, dict)
    joined = set(body.get("joined_rooms", [])) if ok else set()
    status, body = await hs.get(
        f"{CLIENT}/v3/sync",
        {"filter": _invites_filter(), "timeout": "0", "set_presence": "offline"},
    )
    rooms = body.get("rooms", {}) if status == 200 and isinstance(body, dict) else {}
    return joined, set(rooms.get("invite", {}))


async def _public(hs: _Homeserver, room_id: str) -> bool:
    """A room the bot may join without an invite (the room's summary says so)."""
    status, body = await hs.get(
        f"{CLIENT}/v1/rooms/{quote(room_id, safe='')}/hierarchy", {"max_depth": "0", "limit": "1"}
    )
    if status != 200 or not isinstance(body, dict):
        return False
    rooms = body.get("rooms", [])
    return any(
        isinstance(r, dict) and r.get("room_id") == room_id and r.get("join_rule") == "public"
        for r in rooms
    )


async def _rooms(hs: _Homeserver, config: Config, found: list[Finding]) -> None:
    members = await _memberships(hs) if hs.token else None
    for i, room in enumerate(config.rooms):
        key, room_id = f"rooms[{i}].room", room.room
        if room.room.startswith("#"):
            status, body = await hs.get(
                f"{CLIENT}/v3/directory/room/{quote(room.room, safe='')}", auth=False
            )
            if status != 200 or not isinstance(body, dict) or "room_id" not in body:
                found.append(
                    Finding(
                        key,
                        f"the homeserver cannot resolve {room.room} ({_error(status, body)}); "
                        "put the room's id or an alias it has",
                    )
                )
                continue
            room_id = body["room_id"]
        if members is None:
            continue  # not logged in yet: who is in the room is not ours to see
        joined, invited = members
        if room_id in joined or room_id in invited or await _public(hs, room_id):
            continue
        found.append(
            Finding(
                key,
                f"{config.matrix.user_id} is neither in {room.room} nor invited to it, and it "
                f"is not public; invite {config.matrix.user_id} from a member's client",
            )
        )


async def findings(config: Config, session: dict[str, str] | None) -> list[Finding]:
    found: list[Finding] = []
    timeout = aiohttp.ClientTimeout(total=config.matrix.request_timeout)
    async with aiohttp.ClientSession(timeout=timeout) as http:
        hs = _Homeserver(http, config.matrix.homeserver, None)
        down = await _versions(hs, config.matrix.homeserver)
        if down is not None:
            return [down]
        try:
            await _session(hs, config, session, found)
            await _rooms(hs, config, found)
        except (aiohttp.ClientError, TimeoutError, OSError) as e:
            found.append(
                Finding(
                    "matrix.homeserver",
                    f"the homeserver stopped answering ({type(e).__name__}: {e}); try again",
                )
            )
    return found
