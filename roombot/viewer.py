"""A team member's client: a real matrix-nio client with E2EE that reads a room back.

Used by `roombot demo` (the viewer that decrypts and prints each card), by the
tests (the second real client) and by the benches. It creates rooms, invites,
and collects every `m.room.message` it sees, decrypted, in arrival order, with
edits (`m.replace`) applied on request.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nio import (
    AsyncClient,
    AsyncClientConfig,
    JoinResponse,
    LoginResponse,
    MegolmEvent,
    ReactionEvent,
    RedactionEvent,
    RoomCreateResponse,
    RoomMessage,
    RoomMessagesResponse,
    SyncResponse,
)
from nio.crypto.attachments import decrypt_attachment

# Up to 1000 timeline events per room per sync; beyond that, the gap is paginated.
_FILTER = {"room": {"timeline": {"limit": 1000}}}


@dataclass(frozen=True, slots=True)
class Seen:
    """One message event as the member received it."""

    event_id: str
    room_id: str
    sender: str
    content: dict[str, Any]
    encrypted: bool
    received: float  # time.monotonic() when the member's sync returned it

    @property
    def replaces(self) -> str | None:
        rel = self.content.get("m.relates_to")
        if isinstance(rel, dict) and rel.get("rel_type") == "m.replace":
            event_id = rel.get("event_id")
            return event_id if isinstance(event_id, str) else None
        return None


@dataclass(frozen=True, slots=True)
class Reaction:
    """An m.reaction as the member received it."""

    event_id: str
    sender: str
    target: str
    key: str


@dataclass
class Viewer:
    homeserver: str
    user_id: str
    password: str
    store_dir: Path
    seen: dict[str, list[Seen]] = field(default_factory=dict)
    reactions: dict[str, list[Reaction]] = field(default_factory=dict)
    redacted: set[str] = field(default_factory=set)
    undecryptable: list[MegolmEvent] = field(default_factory=list)
    client: AsyncClient = field(init=False)

    def __post_init__(self) -> None:
        self.store_dir.mkdir(parents=True, exist_ok=True)
        self.client = AsyncClient(
            self.homeserver,
            self.user_id,
            store_path=str(self.store_dir),
            config=AsyncClientConfig(encryption_enabled=True, max_timeouts=2, max_limit_exceeded=5),
        )
        self._ids: set[str] = set()
        self._started = False

    async def login(self, device_name: str = "viewer", *, cross_sign: bool = True) -> None:
        """Log in, upload the device's keys and, as current clients do, cross-sign the
        device (a new identity for a new user), so that a bot with `trust = "cross_signed"`
        gives it room keys. `cross_sign=False`: a device its owner never signed."""
        resp = await asyncio.wait_for(self.client.login(self.password, device_name), 30)
        if not isinstance(resp, LoginResponse):
            raise RuntimeError(f"viewer login failed: {resp}")
        if self.client.should_upload_keys:
            await asyncio.wait_for(self.client.keys_upload(), 30)
        if cross_sign:
            await self.cross_sign()
        await self.sync(0)

    async def cross_sign(self) -> None:
        """Create this user's cross-signing identity if it has none, and sign this device."""
        from roombot.crosssign.api import KeysApi
        from roombot.crosssign.manage import Bootstrapper, Mode
        from roombot.crosssign.store import KeyStore

        c = self.client
        async with KeysApi(c.homeserver, self.user_id, c.device_id, c.access_token) as api:
            store = KeyStore(self.store_dir / "cross-signing")
            result = await Bootstrapper(api, store, lambda: self.password).run(Mode.ON_DEMAND)
        if not result.after.ok:
            raise RuntimeError(f"viewer cross-signing failed: {result.after.problem}")

    async def close(self) -> None:
        await self.client.close()

    async def create_room(
        self, *, encrypted: bool, invite: tuple[str, ...] = (), name: str = "team"
    ) -> str:
        state = (
            [
                {
                    "type": "m.room.encryption",
                    "state_key": "",
                    "content": {"algorithm": "m.megolm.v1.aes-sha2"},
                }
            ]
            if encrypted
            else []
        )
        resp = await asyncio.wait_for(
            self.client.room_create(name=name, invite=invite, initial_state=state), 30
        )
        if not isinstance(resp, RoomCreateResponse):
            raise RuntimeError(f"room creation failed: {resp}")
        await self.sync(0)
        return str(resp.room_id)

    async def join(self, room: str) -> str:
        resp = await asyncio.wait_for(self.client.join(room), 30)
        if not isinstance(resp, JoinResponse):
            raise RuntimeError(f"join failed: {resp}")
        await self.sync(0)
        return str(resp.room_id)

    async def send_text(self, room_id: str, body: str) -> str:
        """Send `body` as m.text, as a person types it (encrypted in an encrypted room,
        to every member device: nio's clients keep no cross-signing). The event id."""
        resp = await asyncio.wait_for(
            self.client.room_send(
                room_id,
                "m.room.message",
                {"msgtype": "m.text", "body": body},
                ignore_unverified_devices=True,
            ),
            30,
        )
        event_id = getattr(resp, "event_id", None)
        if not isinstance(event_id, str):
            raise RuntimeError(f"send failed: {resp}")
        return event_id

    async def wait_member(self, room_id: str, user_id: str, timeout: float = 60) -> None:
        """Sync until `user_id` has joined `room_id` (not only been invited)."""
        deadline = time.monotonic() + timeout
        while True:
            room = self.client.rooms.get(room_id)
            user = room.users.get(user_id) if room else None
            if user is not None and not user.invited:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"{user_id} did not join {room_id}")
            await self.sync(500)

    async def sync(self, timeout_ms: int = 1000) -> None:
        c = self.client
        resp = await asyncio.wait_for(
            c.sync(timeout=timeout_ms, sync_filter=_FILTER), timeout_ms / 1000 + 30
        )
        if not isinstance(resp, SyncResponse):
            raise RuntimeError(f"viewer sync failed: {resp}")
        now = time.monotonic()
        for room_id, info in resp.rooms.join.items():
            if info.timeline.limited and self._started:
                # More arrived than one sync carries: fetch the gap, oldest first.
                await self._backfill(room_id, info.timeline.prev_batch, now)
            for event in info.timeline.events:
                self._record(room_id, event, now)
        self._started = True
        if c.outgoing_to_device_messages:
            await c.send_to_device_messages()
        if c.should_upload_keys:
            await c.keys_upload()
        if c.should_query_keys:
            await c.keys_query()
        if c.should_claim_keys:
            await c.keys_claim(c.get_users_for_key_claiming())

    async def _backfill(self, room_id: str, token: str, now: float) -> None:
        older: list[Any] = []
        while token:
            resp = await asyncio.wait_for(
                self.client.room_messages(room_id, start=token, limit=500), 60
            )
            if not isinstance(resp, RoomMessagesResponse) or not resp.chunk:
                break
            new = [e for e in resp.chunk if getattr(e, "event_id", None) not in self._ids]
            older.extend(new)
            if len(new) < len(resp.chunk):
                break  # reached what we already have
            token = resp.end
        for event in reversed(older):
            self._record(room_id, event, now)

    def _record(self, room_id: str, event: Any, now: float) -> None:
        if isinstance(event, MegolmEvent):  # nio could not decrypt it
            self.undecryptable.append(event)
            return
        if isinstance(event, ReactionEvent) and event.event_id not in self._ids:
            self._ids.add(event.event_id)
            self.reactions.setdefault(room_id, []).append(
                Reaction(event.event_id, event.sender, event.reacts_to, event.key)
            )
            return
        if isinstance(event, RedactionEvent):
            self.redacted.add(event.redacts)
            return
        if not isinstance(event, RoomMessage) or event.event_id in self._ids:
            return
        self._ids.add(event.event_id)
        content = event.source.get("content", {})
        self.seen.setdefault(room_id, []).append(
            Seen(
                event_id=event.event_id,
                room_id=room_id,
                sender=event.sender,
                content=content if isinstance(content, dict) else {},
                encrypted=bool(getattr(event, "decrypted", False)),
                received=now,
            )
        )

    def reactions_on(self, room_id: str, target: str, sender: str | None = None) -> list[str]:
        """The reactions on `target` that are still there (not redacted), in order."""
        return [
            r.key
            for r in self.reactions.get(room_id, [])
            if r.target == target
            and r.event_id not in self.redacted
            and (sender is None or r.sender == sender)
        ]

    def messages(self, room_id: str, sender: str | None = None) -> list[Seen]:
        return [s for s in self.seen.get(room_id, []) if sender is None or s.sender == sender]

    async def wait_for(
        self, room_id: str, count: int, *, sender: str | None = None, timeout: float = 60
    ) -> list[Seen]:
        """Sync until at least `count` messages (from `sender`) are in the room."""
        deadline = time.monotonic() + timeout
        while len(self.messages(room_id, sender)) < count:
            if time.monotonic() > deadline:
                got = len(self.messages(room_id, sender))
                raise TimeoutError(f"saw {got} of {count} messages in {room_id}")
            await self.sync(500)
        return self.messages(room_id, sender)

    def current(self, room_id: str, sender: str | None = None) -> list[Seen]:
        """The notices as a reader sees them now: originals, each with its latest edit applied."""
        out: dict[str, Seen] = {}
        order: list[str] = []
        for s in self.messages(room_id, sender):
            target = s.replaces
            if target and target in out:
                new = s.content.get("m.new_content")
                if isinstance(new, dict):
                    out[target] = Seen(target, s.room_id, s.sender, new, s.encrypted, s.received)
                continue
            out[s.event_id] = s
            order.append(s.event_id)
        return [out[e] for e in order]

    async def read_file(self, content: dict[str, Any], mxc: str) -> bytes:
        """Download an attachment; decrypt it when the content carries the key (`file`)."""
        resp = await asyncio.wait_for(self.client.download(mxc), 60)
        body = getattr(resp, "body", None)
        if not isinstance(body, bytes):
            raise RuntimeError(f"download of {mxc} failed: {resp}")
        info = content.get("file")
        if isinstance(info, dict) and info.get("url") == mxc:
            return bytes(
                decrypt_attachment(body, info["key"]["k"], info["hashes"]["sha256"], info["iv"])
            )
        return body
