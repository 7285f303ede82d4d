"""A team member's client that enforces MSC4153 (Matrix spec v1.18) on top of matrix-nio.

nio has no cross-signing, so the rule is added here as a strict client would:

- show an encrypted event only when the device that sent it is cross-signed
  by its owner: the Megolm session's Ed25519 key (learnt over Olm, not
  forwarded) and its Curve25519 key must belong to a device whose keys carry
  a valid signature by the owner's self-signing key, which carries a valid
  signature by the owner's master key;
- share room keys only with such devices (others are blacklisted before
  each send).

The server's `/keys/query` answer is fetched at display time and every
signature is checked here with PyNaCl over canonical JSON; nothing is taken
on the server's word.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import nacl.exceptions
from nio import RoomMessage, RoomSendResponse

from roombot.viewer import Seen, Viewer
from tests.crosssigning.helpers import check_signature, only_key


@dataclass(frozen=True)
class CrossSignedDevice:
    device_id: str
    ed25519: str
    curve25519: str


@dataclass
class StrictMember(Viewer):
    # event id -> (sender's Curve25519 key, Megolm session id), for decrypted events
    origins: dict[str, tuple[str, str]] = field(default_factory=dict)
    hidden: dict[str, str] = field(default_factory=dict)  # event id -> why it is not shown

    def _record(self, room_id: str, event: Any, now: float) -> None:
        decrypted = isinstance(event, RoomMessage) and getattr(event, "decrypted", False)
        if decrypted and event.sender_key and event.session_id:
            self.origins[event.event_id] = (event.sender_key, event.session_id)
        super()._record(room_id, event, now)

    async def _query(self, user_id: str) -> dict[str, Any]:
        url = f"{self.homeserver}/_matrix/client/v3/keys/query"
        headers = {"Authorization": f"Bearer {self.client.access_token}"}
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http,
            http.post(url, json={"device_keys": {user_id: []}}, headers=headers) as r,
        ):
            assert r.status == 200, await r.text()
            answer: dict[str, Any] = await r.json()
            return answer

    async def cross_signed_devices(self, user_id: str) -> dict[str, CrossSignedDevice]:
        """The user's devices that are cross-signed by the user's own identity, checked here."""
        answer = await self._query(user_id)
        master = answer.get("master_keys", {}).get(user_id)
        ssk = answer.get("self_signing_keys", {}).get(user_id)
        if not master or not ssk:
            return {}
        try:
            if master.get("user_id") != user_id or "master" not in master.get("usage", []):
                return {}
            if ssk.get("user_id") != user_id or "self_signing" not in ssk.get("usage", []):
                return {}
            master_id, master_pub = only_key(master)
            ssk_id, ssk_pub = only_key(ssk)
            check_signature(ssk, user_id, master_id, master_pub)
        except (AssertionError, KeyError, ValueError, nacl.exceptions.BadSignatureError):
            return {}
        out: dict[str, CrossSignedDevice] = {}
        for device_id, device in answer.get("device_keys", {}).get(user_id, {}).items():
            try:
                if device.get("user_id") != user_id or device.get("device_id") != device_id:
                    continue
                ed = device["keys"][f"ed25519:{device_id}"]
                curve = device["keys"][f"curve25519:{device_id}"]
                check_signature(device, user_id, f"ed25519:{device_id}", ed)
                check_signature(device, user_id, ssk_id, ssk_pub)
            except (KeyError, ValueError, TypeError, nacl.exceptions.BadSignatureError):
                continue
            out[device_id] = CrossSignedDevice(device_id, ed, curve)
        return out

    async def shown(self, room_id: str, sender: str | None = None) -> list[Seen]:
        """The messages this client displays: only those from cross-signed devices."""
        trusted: dict[str, dict[str, CrossSignedDevice]] = {}
        out: list[Seen] = []
        for seen in self.messages(room_id, sender):
            why = await self._why_hidden(seen, trusted)
            if why:
                self.hidden[seen.event_id] = why
            else:
                self.hidden.pop(seen.event_id, None)
                out.append(seen)
        return out

    async def _why_hidden(
        self, seen: Seen, trusted: dict[str, dict[str, CrossSignedDevice]]
    ) -> str | None:
        if not seen.encrypted:
            return "not encrypted in an encrypted room"
        origin = self.origins.get(seen.event_id)
        if origin is None:
            return "no Megolm session recorded for it"
        sender_key, session_id = origin
        olm = self.client.olm
        assert olm is not None
        session = olm.inbound_group_store.get(seen.room_id, sender_key, session_id)
        if session is None:
            return "its Megolm session is unknown"
        if session.forwarding_chain:
            return "its room key was forwarded, not received from the sender's device"
        if seen.sender not in trusted:
            trusted[seen.sender] = await self.cross_signed_devices(seen.sender)
        for device in trusted[seen.sender].values():
            if device.curve25519 == sender_key and device.ed25519 == session.ed25519:
                return None
        return f"sent by a device of {seen.sender} that is not cross-signed"

    async def send_strict(self, room_id: str, body: str) -> set[tuple[str, str]]:
        """Send a message, sharing the room key only with cross-signed devices.

        Returns the (user, device) pairs the room key went to.
        """
        await self.sync(0)
        olm = self.client.olm
        assert olm is not None
        room = self.client.rooms[room_id]
        for user_id in room.users:
            signed = await self.cross_signed_devices(user_id)
            for device in self.client.device_store.active_user_devices(user_id):
                ok = device.id in signed and signed[device.id].ed25519 == device.ed25519
                if ok and olm.is_device_blacklisted(device):
                    self.client.unblacklist_device(device)
                elif not ok and not olm.is_device_blacklisted(device):
                    self.client.blacklist_device(device)
        # A fresh session per send, so that the shared-with set is this send's.
        if room_id in olm.outbound_group_sessions:
            self.client.invalidate_outbound_session(room_id)
        resp = await asyncio.wait_for(
            self.client.room_send(
                room_id,
                "m.room.message",
                {"msgtype": "m.text", "body": body},
                ignore_unverified_devices=True,
            ),
            30,
        )
        assert isinstance(resp, RoomSendResponse), resp
        return set(olm.outbound_group_sessions[room_id].users_shared_with)
