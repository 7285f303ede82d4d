"""The Matrix shell: matrix-nio (with vodozemac E2EE) around the outbox.

It logs in (password the first time, then the stored access token and device,
so the device and its keys persist), keeps syncing, joins the configured rooms,
answers invites, and turns one outbox notice into one event: `deliver(notice)`
returns an outcome the Courier acts on. nio's own retrying is switched off
(`max_timeouts=0`, `max_limit_exceeded=0`) so that the outbox owns the retry
policy and a failure surfaces at once.

State directory layout (the directory 0700): `credentials.json` (user id,
device id, access token; mode 0600) and `crypto/` (0700: nio's SQLite crypto
store, Olm account, Megolm sessions, device list; its files 0600).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import json
import logging
import random
import time
from typing import Any

import aiohttp
from nio import (
    AsyncClient,
    AsyncClientConfig,
    JoinError,
    JoinResponse,
    LocalProtocolError,
    LoginResponse,
    MegolmEvent,
    RoomCreateEvent,
    RoomGetEventResponse,
    RoomMemberEvent,
    RoomMessageText,
    RoomRedactResponse,
    RoomResolveAliasResponse,
    RoomSendResponse,
    SyncError,
    SyncResponse,
    UploadResponse,
    WhoamiResponse,
)
from nio.exceptions import EncryptionError, GroupEncryptionError, OlmTrustError

from roombot.config import Config, ConfigError, RoomConfig
from roombot.crosssign.api import CrossSigningApiError, KeysApi
from roombot.crosssign.recipients import Recipients
from roombot.outbox import (
    Action,
    Gone,
    Notice,
    Outbox,
    Outcome,
    RateLimited,
    Rejected,
    Sent,
    Skipped,
    State,
    Transient,
    Waiting,
)
from roombot.private_files import private_dir, replace_private, settle, tighten
from roombot.relations import ROOT_MISSING, TRIGGER_MISSING, relation, with_note
from roombot.roomcommands import Incoming, level_of
from roombot.session import credentials_path, read_credentials

log = logging.getLogger("roombot.matrix")

# Encrypted messages whose room key had not come yet: tried again after each sync, this
# many at most, for this long (a key sent with the message normally comes in the same
# or the next sync).
_UNDECRYPTED_MAX = 200
_UNDECRYPTED_FOR = 120.0

# Errors a homeserver gives for content it will never accept as it is.
_REJECTED = {"M_TOO_LARGE", "M_BAD_JSON", "M_NOT_JSON", "M_INVALID_PARAM"}
# Errors that mean the bot may not post in the room (removed, banned, never joined).
_GONE = {"M_FORBIDDEN", "M_NOT_FOUND"}
_NETWORK = (aiohttp.ClientError, TimeoutError, OSError)


def _refused(resp: SyncError) -> bool:
    """The homeserver answered and said no (a 4xx), as for a sync position it no longer
    knows (its database was reset); not a failure that retrying the same request fixes."""
    status = getattr(resp.transport_response, "status", None)
    return isinstance(status, int) and 400 <= status < 500 and status != 429


class StartupError(RuntimeError):
    """The bot cannot start (no credentials, homeserver refuses the login...)."""


def _content_builders() -> Any:
    # Imported late: `cards.notice` is the one place a notice's content is built
    # (the whole text's file event included).
    from cards import notice

    return notice


class MatrixShell:
    def __init__(self, config: Config, outbox: Outbox) -> None:
        self.config = config
        self.outbox = outbox
        m = config.matrix
        self.state_dir = config.state_dir
        self.store_dir = self.state_dir / "crypto"
        self.creds_path = credentials_path(self.state_dir)
        private_dir(self.state_dir)
        private_dir(self.store_dir)
        for f in (self.creds_path, *self.store_dir.iterdir()):
            tighten(f)
        self.client = AsyncClient(
            m.homeserver,
            m.user_id,
            store_path=str(self.store_dir),
            config=AsyncClientConfig(
                encryption_enabled=True,
                store_sync_tokens=True,
                max_timeouts=0,
                max_limit_exceeded=0,
                request_timeout=m.request_timeout,
            ),
        )
        self.room_ids: dict[str, str] = {}  # a configured or seen room ref -> room id
        # Rooms the homeserver says the bot is in (from syncs and joins): a join of one
        # of these changes nothing, so it is not logged.
        self.joined: set[str] = set()
        self.left: dict[str, str] = {}  # room id -> why the bot is no longer in it
        self.last_sync: float = 0.0
        self.synced = asyncio.Event()
        self.on_rooms_changed: list[Any] = []  # callbacks: a room became postable again
        # Who reads the room messages the syncs bring (roombot.room_reader.RoomReader).
        self.reader: Any = None
        self._undecrypted: list[tuple[float, str, MegolmEvent]] = []
        # room id -> its creators (nio keeps no creator; from room version 12 they hold
        # power without being listed in m.room.power_levels)
        self.creators: dict[str, frozenset[str]] = {}
        self._handled_invites: set[str] = set()
        # (room id, event id) -> whether the event is there to relate to (a trigger)
        self._found: dict[tuple[str, str], bool] = {}
        self._stop = asyncio.Event()
        # Cross-sign the device at start (roombot.crosssign; tests switch it off to show
        # what an unsigned bot looks like). The last check's result, for status and tests.
        self.cross_signing = True
        self.cross_signing_state: Any = None
        # Under trust = "cross_signed" or "verified_only": who gets room keys (and what was logged).
        self.recipients = Recipients(
            cross_signing=m.trust == "cross_signed", listed=m.trusted_devices
        )

    # -- start -------------------------------------------------------------------------

    async def start(self) -> None:
        # The homeserver may be down when the bot starts (a reboot of both): wait for it.
        delay = 0.5
        while True:
            try:
                await self.log_in()
                break
            except _NETWORK as e:
                log.warning(
                    "homeserver unreachable at start, retrying",
                    extra={"error": repr(e), "retry_in_s": delay},
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, 30)
        if self.cross_signing:
            await self.cross_sign()
        await self._initial_sync()
        await self._join_configured()

    async def log_in(self) -> None:
        """One login (stored session, access token or password) and the device's keys uploaded.

        Raises a network error as it comes (`start` waits and tries again; `roombot init`
        reports it), StartupError or ConfigError when the login itself is refused.
        """
        await self._login()
        settle(self.store_dir)  # nio opened (or made) its store at login
        if self.client.should_upload_keys:
            await self._call(self.client.keys_upload())

    async def cross_sign(self) -> None:
        """Since spec v1.18 (MSC4153) clients hide devices that are not cross-signed.

        Bootstraps the identity the first time, checks it on every later start;
        never raises (a problem is logged with its repair command).
        """
        from roombot.crosssign.startup import at_start

        self.cross_signing_state = await at_start(
            homeserver=self.config.matrix.homeserver,
            user_id=self.client.user_id,
            device_id=self.client.device_id,
            access_token=self.client.access_token,
            state_dir=self.state_dir,
            password=self.config.matrix.password.get,
            timeout=self.config.matrix.request_timeout,
        )

    async def _call(self, aw: Any, timeout: float | None = None) -> Any:
        return await asyncio.wait_for(aw, timeout or self.config.matrix.request_timeout + 5)

    def _load_creds(self) -> dict[str, str] | None:
        data = read_credentials(self.creds_path)
        if data is None:
            return None
        if data.get("user_id") != self.config.matrix.user_id:
            log.warning(
                "stored credentials are for another user; logging in again",
                extra={"stored": data.get("user_id")},
            )
            return None
        return data

    def _save_creds(self) -> None:
        data = {
            "homeserver": self.config.matrix.homeserver,
            "user_id": self.client.user_id,
            "device_id": self.client.device_id,
            "access_token": self.client.access_token,
        }
        replace_private(self.creds_path, json.dumps(data).encode())

    async def _login(self) -> None:
        m = self.config.matrix
        creds = self._load_creds()
        if creds:
            self.client.restore_login(creds["user_id"], creds["device_id"], creds["access_token"])
            who = await self._call(self.client.whoami())
            if isinstance(who, WhoamiResponse):
                log.info(
                    "logged in with the stored access token",
                    extra={"user_id": who.user_id, "device_id": self.client.device_id},
                )
                return
            log.warning(
                "stored access token refused; logging in with the password on the same device",
                extra={"error": str(who)},
            )
            await self._password_login(device_id=creds["device_id"])
            return
        token = m.access_token.get()
        if token:
            probe = AsyncClient(m.homeserver, m.user_id)
            probe.access_token = token
            try:
                who = await self._call(probe.whoami())
            finally:
                await probe.close()
            if not isinstance(who, WhoamiResponse) or not who.device_id:
                raise StartupError(f"matrix.access_token: the homeserver refused it: {who}")
            self.client.restore_login(who.user_id, who.device_id, token)
            self._save_creds()
            return
        await self._password_login(device_id=None)

    async def _password_login(self, device_id: str | None) -> None:
        m = self.config.matrix
        password = m.password.get()
        if not password:
            raise ConfigError(
                "matrix.password",
                f"needed for the first login but not set (looked in {m.password.describe()}); "
                "set matrix.password_env or matrix.password_file",
            )
        if device_id:
            self.client.device_id = device_id  # nio logs in on this device: keys kept
        resp = await self._call(self.client.login(password, device_name=m.device_name))
        if not isinstance(resp, LoginResponse):
            raise StartupError(f"login as {m.user_id} failed: {resp}")
        self._save_creds()
        log.info(
            "logged in with the password",
            extra={"user_id": resp.user_id, "device_id": resp.device_id},
        )

    async def _initial_sync(self) -> None:
        """One sync with every joined room's full state, from the position nio stored.

        After a restart nio's room list is empty, so the state of every room is asked
        for (`full_state`: all joined rooms, even unchanged ones). It is asked for *from
        the stored position* (nio's crypto store keeps it), not from nothing: a sync
        from nothing would hand back every pending invite and every room the bot was
        ever removed from as if new, redeliver the room keys already read, and, within
        Synapse's two-minute sync cache, return the previous start's stale answer (the
        rooms the bot has been in all along still shown as invites).
        """
        delay = 0.5
        while True:
            try:
                resp = await self._call(self.client.sync(timeout=0, full_state=True), timeout=120)
            except _NETWORK as e:
                resp = e
            if isinstance(resp, SyncResponse):
                await self._after_sync(resp)
                return
            if isinstance(resp, SyncError) and self.client.loaded_sync_token and _refused(resp):
                log.warning(
                    "the homeserver refused the stored sync position; syncing from the start",
                    extra={"error": str(resp)},
                )
                self.client.loaded_sync_token = ""
                self.client.next_batch = ""
                continue
            log.warning("initial sync failed, retrying", extra={"error": str(resp)})
            await asyncio.sleep(delay)
            delay = min(delay * 2, 30)

    async def _join_configured(self) -> None:
        # Joined even when already in: the answer maps an alias to its room id, and a
        # join the bot did not need is a no-op on the server (and not logged).
        for room in self.config.rooms:
            room_id = await self._join(room.room)
            if room_id:
                self.room_ids[room.room] = room_id

    async def _join(self, ref: str, *, inviter: str | None = None) -> str | None:
        """Join `ref`; one log line when that changed something (`inviter`: accepting
        that person's invite), none when the bot was in the room already."""
        try:
            resp = await self._call(self.client.join(ref))
        except _NETWORK as e:
            log.warning("could not join room", extra={"room": ref, "error": str(e)})
            return None
        if isinstance(resp, JoinResponse):
            room_id = str(resp.room_id)
            self.room_ids[ref] = room_id
            self.left.pop(room_id, None)
            if room_id not in self.joined:
                self.joined.add(room_id)
                if inviter is not None:
                    log.info("invite accepted", extra={"room_id": room_id, "inviter": inviter})
                else:
                    log.info("joined room", extra={"room": ref, "room_id": room_id})
            self._room_back(room_id)
            return room_id
        log.warning(
            "could not join room",
            extra={
                "room": ref,
                "error": resp.message if isinstance(resp, JoinError) else str(resp),
            },
        )
        return None

    def _room_back(self, room_id: str) -> None:
        """The bot is in `room_id` again: release notices parked for it."""
        for ref in list(self.outbox.parked()):
            if ref == room_id or self.room_ids.get(ref) == room_id:
                self.outbox.unpark(ref)
                log.info("room unparked", extra={"room": ref, "room_id": room_id})
        for callback in self.on_rooms_changed:
            callback()

    # -- sync ---------------------------------------------------------------------------

    async def sync_forever(self) -> None:
        """Long-poll sync until stop(); failures back off, they never end the loop."""
        timeout_ms = self.config.matrix.sync_timeout_ms
        delay = 0.5
        while not self._stop.is_set():
            try:
                resp = await self._call(
                    self.client.sync(timeout=timeout_ms), timeout=timeout_ms / 1000 + 30
                )
            except asyncio.CancelledError:
                raise
            except Exception as e:  # network, or anything nio raises: never end the loop
                resp = e
            if isinstance(resp, SyncResponse):
                delay = 0.5
                try:
                    await self._after_sync(resp)
                except asyncio.CancelledError:
                    raise
                except Exception as e:  # retried after the next sync
                    log.warning("post-sync housekeeping failed", extra={"error": repr(e)})
                continue
            log.warning("sync failed, retrying", extra={"error": str(resp), "retry_in_s": delay})
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), delay * (0.5 + random.random() / 2))
            delay = min(delay * 2, 30)

    def stop(self) -> None:
        self._stop.set()

    async def _after_sync(self, resp: SyncResponse) -> None:
        self.last_sync = time.time()
        self.synced.set()
        c = self.client
        self.joined.update(resp.rooms.join)
        await self._handle_invites(resp)
        self._handle_leaves(resp)
        self._read_messages(resp)
        # A member's devices or cross-signing keys moved: judge them again before a send.
        self.recipients.changed([*resp.device_list.changed, *resp.device_list.left])
        # Key housekeeping, as nio's sync_forever does: a member who joins later
        # gets keys because the bot queries their devices before the next send.
        if c.outgoing_to_device_messages:
            await self._call(c.send_to_device_messages())
        if c.should_upload_keys:
            await self._call(c.keys_upload())
        if c.should_query_keys:
            await self._call(c.keys_query())
        if c.should_claim_keys:
            await self._call(c.keys_claim(c.get_users_for_key_claiming()))

    async def _handle_invites(self, resp: SyncResponse) -> None:
        me = self.client.user_id
        for room_id, info in resp.rooms.invite.items():
            if room_id in self._handled_invites:
                continue
            inviter = next(
                (
                    getattr(e, "sender", None)
                    for e in info.invite_state
                    if getattr(e, "state_key", None) == me
                    and getattr(e, "membership", None) == "invite"
                ),
                None,
            )
            self._handled_invites.add(room_id)
            configured = any(r.room == room_id for r in self.config.rooms)
            if configured or (inviter and self.config.invites.allows(inviter)):
                await self._join(room_id, inviter=inviter or "unknown")
            else:
                log.warning(
                    "invite declined: inviter is not in invites.users or invites.servers",
                    extra={"room_id": room_id, "inviter": inviter},
                )
                # Its leave comes back in a later sync: no news then, it was never in.
                self.left[room_id] = "the bot declined the invite"
                with contextlib.suppress(*_NETWORK):
                    await self._call(self.client.room_leave(room_id))

    def _handle_leaves(self, resp: SyncResponse) -> None:
        me = self.client.user_id
        for room_id, info in resp.rooms.leave.items():
            why = "the bot left the room"
            for e in info.timeline.events:
                if isinstance(e, RoomMemberEvent) and e.state_key == me:
                    why = f"membership {e.membership} set by {e.sender}"
            if room_id not in self.left:
                log.warning("no longer in room", extra={"room_id": room_id, "reason": why})
            self.left[room_id] = why
            self.joined.discard(room_id)
            self._handled_invites.discard(room_id)

    # -- room messages (commands) ----------------------------------------------------------

    def _read_messages(self, resp: SyncResponse) -> None:
        """Hand each text message of the joined rooms' timelines to the reader, in order.

        nio has already decrypted what it had the keys for (it replaces each MegolmEvent
        it can decrypt in the response); one it could not is kept and tried again after
        later syncs, when its room key has come. Events before the bot's own join in a
        timeline are the room's history, never commands.
        """
        if self.reader is None:
            return
        me = self.client.user_id
        for room_id, info in resp.rooms.join.items():
            for e in (*info.state, *info.timeline.events):
                if isinstance(e, RoomCreateEvent):
                    extra = (e.source.get("content") or {}).get("additional_creators")
                    extra = (
                        [u for u in extra if isinstance(u, str)] if isinstance(extra, list) else []
                    )
                    self.creators[room_id] = frozenset([e.sender, *extra])
            events = list(info.timeline.events)
            for i, e in enumerate(events):
                if (
                    isinstance(e, RoomMemberEvent)
                    and e.state_key == me
                    and e.membership == "join"
                    and (e.prev_membership or "leave") != "join"
                ):
                    events = events[i + 1 :]
                    break
            for e in events:
                if isinstance(e, MegolmEvent):
                    self._undecrypted.append((time.monotonic(), room_id, e))
                else:
                    self._read_one(room_id, e)
        self._retry_undecrypted()

    def _retry_undecrypted(self) -> None:
        now = time.monotonic()
        keep: list[tuple[float, str, MegolmEvent]] = []
        for since, room_id, e in self._undecrypted[-_UNDECRYPTED_MAX:]:
            try:
                e.room_id = room_id
                decrypted = self.client.decrypt_event(e)
            except Exception:  # no key yet, or never: nio says so by raising
                if now - since < _UNDECRYPTED_FOR:
                    keep.append((since, room_id, e))
                continue
            self._read_one(room_id, decrypted)
        self._undecrypted = keep

    def _read_one(self, room_id: str, e: Any) -> None:
        if not isinstance(e, RoomMessageText):
            return  # m.notice, m.emote, files, reactions, state: never commands
        room = self.client.rooms.get(room_id)
        if room is None:
            return
        content = e.source.get("content") or {}
        relates = content.get("m.relates_to")
        edit = "m.new_content" in content or (
            isinstance(relates, dict) and relates.get("rel_type") == "m.replace"
        )
        msg = Incoming(
            room=room_id,
            event_id=e.event_id,
            sender=e.sender,
            body=e.body if isinstance(e.body, str) else "",
            msgtype="m.text",
            ts_ms=int(e.server_timestamp or 0),
            edit=edit,
            encrypted=bool(getattr(e, "decrypted", False)),
        )
        refs = frozenset(r for r, rid in self.room_ids.items() if rid == room_id)
        level = level_of(
            e.sender,
            room.power_levels.get_user_level(e.sender),
            creators=self.creators.get(room_id, frozenset()),
            room_version=room.room_version,
        )
        try:
            self.reader.read(msg, me=self.client.user_id, level=level, refs=refs)
        except Exception:  # one bad message never stops the sync loop; logged, not retried
            log.exception("reading a room message failed", extra={"room_id": room_id})

    # -- delivery ------------------------------------------------------------------------

    def room_config(self, ref: str, room_id: str | None) -> RoomConfig | None:
        cfg = self.config.room(ref)
        if cfg is None and room_id is not None:
            cfg = next((r for r in self.config.rooms if self.room_ids.get(r.room) == room_id), None)
        return cfg

    async def _resolve(self, ref: str) -> str | Outcome:
        if ref in self.room_ids:
            return self.room_ids[ref]
        if ref.startswith("!"):
            return ref
        resp = await self._call(self.client.room_resolve_alias(ref))
        if isinstance(resp, RoomResolveAliasResponse):
            self.room_ids[ref] = resp.room_id
            return str(resp.room_id)
        if getattr(resp, "status_code", None) == "M_NOT_FOUND":
            return Gone(f"room alias {ref} does not exist")
        return Transient(f"resolving {ref}: {resp}")

    async def deliver(self, notice: Notice) -> Outcome:
        """Send one notice; never raises for a network or server failure."""
        try:
            return await self._deliver(notice)
        except OlmTrustError as e:
            return Transient(f"encryption: {e}", encryption=True)
        except (EncryptionError, GroupEncryptionError) as e:
            return Transient(f"encryption: {e}", encryption=True)
        except LocalProtocolError as e:
            return Transient(f"client state: {e}")
        except _NETWORK as e:
            return Transient(f"network: {type(e).__name__}: {e}")

    async def _deliver(self, notice: Notice) -> Outcome:
        resolved = await self._resolve(notice.room)
        if not isinstance(resolved, str):
            return resolved
        room_id = resolved
        if room_id in self.left:
            return Gone(f"not in room {room_id}: {self.left[room_id]}")
        if room_id not in self.client.rooms:
            if room_id not in self.joined and await self._join(notice.room) is None:
                return Gone(f"not a member of {notice.room} and cannot join it")
            # nio knows a room only from a sync: let the sync loop bring it in.
            deadline = time.monotonic() + self.config.matrix.sync_timeout_ms / 1000 + 10
            while room_id not in self.client.rooms and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            if room_id not in self.client.rooms:
                return Transient(f"joined {room_id} but no sync has shown it yet")
        room = self.client.rooms[room_id]
        event_type = "m.room.message"
        txn_id = notice.txn_id
        content: dict[str, Any] | Outcome
        if notice.action is Action.UNREACT:
            return await self._unreact(notice, room_id)
        if notice.action is Action.REACT:
            after = (notice.place or {}).get("after")
            card = self.outbox.get(after) if after else None
            if card is not None and card.state is State.PENDING and card.event_id is None:
                return Waiting("waits for its card")
            event_type, content = "m.reaction", dict(notice.answer or {})
        elif notice.owes_file:
            # The card is in the room: the whole text follows as its own m.file event.
            where = await self._where(notice, room_id)
            if not isinstance(where, tuple):
                return where
            content = self._file_content(notice, where[0])
            txn_id = notice.file_txn_id
        else:
            content = await self._content(notice, room_id, room.encrypted)
        if not isinstance(content, dict):
            return content
        if room.encrypted:
            refused = await self._apply_trust(room_id)
            if refused is not None:
                return refused
        resp = await self._call(
            self.client.room_send(
                room_id,
                event_type,
                content,
                tx_id=txn_id,
                ignore_unverified_devices=self.config.matrix.trust == "ignore_unverified",
            )
        )
        if isinstance(resp, RoomSendResponse):
            return Sent(resp.event_id)
        code = getattr(resp, "status_code", None)
        if code == "M_DUPLICATE_ANNOTATION":
            return Skipped("the same reaction is there already")
        return _failure(resp)

    async def _unreact(self, notice: Notice, room_id: str) -> Outcome:
        """Take back a reaction: redact the event its React notice was sent as."""
        sent = self.outbox.get((notice.place or {}).get("reaction", ""))
        if sent is None or sent.state is State.FAILED:
            return Skipped("the reaction to take back was never sent")
        if sent.event_id is None:
            return Waiting("waits for the reaction it takes back")
        resp = await self._call(
            self.client.room_redact(room_id, sent.event_id, tx_id=notice.txn_id)
        )
        if isinstance(resp, RoomRedactResponse):
            return Sent(resp.event_id)
        return _failure(resp)

    async def _found_event(self, room_id: str, event_id: str) -> bool | Outcome:
        """Whether `event_id` is an event of this room that was not redacted."""
        known = self._found.get((room_id, event_id))
        if known is not None:
            return known
        resp = await self._call(self.client.room_get_event(room_id, event_id))
        if isinstance(resp, RoomGetEventResponse):
            found = bool((resp.event.source or {}).get("content"))
        elif getattr(resp, "status_code", None) in {"M_NOT_FOUND", "M_FORBIDDEN"}:
            found = False
        else:
            return Transient(f"looking up event {event_id}: {resp}")
        if len(self._found) > 10_000:
            self._found.clear()
        self._found[(room_id, event_id)] = found
        return found

    async def _where(
        self, notice: Notice, room_id: str
    ) -> tuple[str | None, str | None, str | None] | Outcome:
        """(thread root, replied event, why it is in the timeline instead) for a post."""
        place = notice.place or {}
        ends: list[str | None] = []
        for end in ("thread", "reply"):
            ref = place.get(end)
            if not isinstance(ref, dict):
                ends.append(None)
                continue
            if "notice" in ref:
                root = self.outbox.get(ref["notice"])
                if root is None or root.event_id is None:
                    return None, None, ROOT_MISSING
                ends.append(root.event_id)
                continue
            found = await self._found_event(room_id, str(ref.get("event")))
            if not isinstance(found, bool):
                return found
            if not found:
                return None, None, TRIGGER_MISSING
            ends.append(str(ref["event"]))
        return ends[0], ends[1], None

    async def _apply_trust(self, room_id: str) -> Outcome | None:
        """Mark every member device verified (gets room keys) or blacklisted, per matrix.trust.

        nio rotates the room's Megolm session whenever a mark changes, so a device
        that gains or loses trust is in or out from the next notice on.
        """
        c = self.client
        room = c.rooms[room_id]
        if self.config.matrix.trust == "ignore_unverified":
            # Every device: undo blacklisting left by an earlier policy.
            for user_id in room.users:
                for device in c.device_store.active_user_devices(user_id):
                    if device.blacklisted:
                        c.unblacklist_device(device)
            return None
        # A member whose keys change while the answer is on its way (a sync right after
        # they joined or signed a device says so) is asked for again before this send:
        # refusing them on an answer that is no longer theirs would lose them the notice.
        for _ in range(3):
            ask = self.recipients.ask(room.users)
            if not ask.users:
                break
            try:
                async with KeysApi(
                    self.config.matrix.homeserver,
                    str(c.user_id),
                    str(c.device_id),
                    str(c.access_token),
                    timeout=self.config.matrix.request_timeout,
                ) as api:
                    answer = await api.query_users(ask.users)
            except CrossSigningApiError as e:
                return Transient(f"encryption: members' cross-signing keys: {e}", encryption=True)
            if not self.recipients.learn(ask, answer):
                break
        else:
            return Transient(
                "encryption: members' keys kept changing while the bot fetched them",
                encryption=True,
            )
        for user_id in room.users:
            for device in c.device_store.active_user_devices(user_id):
                if (user_id, device.id) == (c.user_id, c.device_id):
                    continue
                why = self.recipients.decide(user_id, device.id, device.ed25519, device.curve25519)
                # The marks live in nio's store; set one only when it changes.
                if why is None and not device.verified:
                    c.verify_device(device)
                elif why is not None and not device.blacklisted:
                    c.blacklist_device(device)
                if not self.recipients.news(user_id, device.id, why):
                    continue
                if why is None:
                    log.info(
                        "device gets room keys from now on",
                        extra={"user_id": user_id, "device_id": device.id},
                    )
                else:
                    log.warning(
                        "device gets no room keys",
                        extra={"user_id": user_id, "device_id": device.id, "reason": why},
                    )
        return None

    async def _content(
        self, notice: Notice, room_id: str, encrypted: bool
    ) -> dict[str, Any] | Outcome:
        try:
            return await self._build(notice, room_id, encrypted)
        except ValueError as e:  # the builder cannot fit this card in one event at all
            return Rejected(f"cannot build the notice: {e}")

    async def _build(
        self, notice: Notice, room_id: str, encrypted: bool
    ) -> dict[str, Any] | Outcome:
        if notice.action in (Action.ANSWER, Action.SUMMARY):
            return dict(notice.answer or {})  # built whole before
        cards_notice = _content_builders()
        cfg = self.room_config(notice.room, room_id)
        loud = bool(cfg and cfg.loud)
        msgtype = "m.text" if loud else "m.notice"
        mentions: tuple[str, ...] = cfg.mention if (cfg and loud) else ()
        err = notice.error
        if err is None:
            return Rejected(f"notice {notice.key} holds no card")
        attachment = notice.attachment
        if notice.action is Action.GROUP_EDIT:
            place = notice.place or {}
            if self.outbox.fresher_edit_sent(place.get("target", ""), tuple(place.get("rank", ()))):
                return Skipped("a later state of the group card is in the room already")
            target = self.outbox.get(place.get("target", ""))
            if target is None or target.event_id is None:
                return Rejected(f"no sent group card for {notice.key} to edit")
            return cards_notice.build_edit(target.event_id, err, msgtype=msgtype, mentions=())
        where = await self._where(notice, room_id)
        if not isinstance(where, tuple):
            return where
        thread, reply, why = where
        if why is not None:
            err = dataclasses.replace(err, note=with_note(err.note, why))
        if notice.action is Action.RETRACT:
            original = self.outbox.posted_event(notice.room, notice.turn)
            if original is None:
                return Rejected(f"no sent post of turn {notice.turn} in {notice.room} to edit")
            post = self.outbox.get_post(notice.room, notice.turn)
            attachment = attachment or (post.attachment if post else None)
            err = dataclasses.replace(err, recovered=True)
            if attachment:
                err = dataclasses.replace(err, message_file=attachment["url"])
            content: dict[str, Any] = cards_notice.build_edit(
                original, err, msgtype=msgtype, mentions=mentions
            )
            if attachment and attachment.get("file"):
                content["file"] = attachment["file"]
                content.setdefault("m.new_content", {})["file"] = attachment["file"]
            return content
        related = relation(thread, reply)
        built = cards_notice.build_notice(err, msgtype=msgtype, mentions=mentions)
        if built.full_message is None and attachment is None:
            return _related(dict(built.content), related)
        if attachment is None:
            uploaded = await self._upload_message(built.full_message, encrypted, err.turn)
            if not isinstance(uploaded, dict):
                return uploaded
            attachment = uploaded
            self.outbox.set_attachment(notice.seq, attachment)
        rebuilt = cards_notice.build_notice(
            dataclasses.replace(err, message_file=attachment["url"]),
            msgtype=msgtype,
            mentions=mentions,
        )
        content = dict(rebuilt.content)
        if attachment.get("file"):
            # An encrypted attachment: the reader needs the key to open the file.
            content["file"] = attachment["file"]
        return _related(content, related)

    def _file_content(self, notice: Notice, thread: str | None) -> dict[str, Any] | Outcome:
        attachment, err = notice.attachment, notice.error
        if attachment is None or err is None or notice.event_id is None:
            return Rejected(f"notice {notice.key} owes a file but holds no upload")
        return _content_builders().file_content(
            turn=err.turn,
            url=attachment["url"],
            size=attachment["size"],
            reply_to=notice.event_id,
            encrypted_file=attachment.get("file"),
            thread=thread,
        )

    async def _upload_message(
        self, text: str, encrypted: bool, turn: str | None
    ) -> dict[str, Any] | Outcome:
        data = text.encode()
        resp, keys = await self._call(
            self.client.upload(
                io.BytesIO(data),
                content_type="text/plain; charset=utf-8",
                filename=_content_builders().file_name(turn),
                encrypt=encrypted,
                filesize=len(data),
            ),
            timeout=max(60.0, len(data) / 100_000),
        )
        if not isinstance(resp, UploadResponse):
            code = getattr(resp, "status_code", None)
            if code == "M_LIMIT_EXCEEDED":
                return RateLimited((getattr(resp, "retry_after_ms", None) or 5000) / 1000)
            if code == "M_TOO_LARGE":
                return Rejected(f"upload of the full message refused: {resp}")
            return Transient(f"upload: {resp}")
        attachment: dict[str, Any] = {"url": resp.content_uri, "size": len(data)}
        if keys:
            attachment["file"] = {**keys, "url": resp.content_uri}
        log.info("full message uploaded", extra={"url": resp.content_uri, "bytes": len(data)})
        return attachment

    async def close(self) -> None:
        await self.client.close()


def _related(content: dict[str, Any], related: dict[str, Any] | None) -> dict[str, Any]:
    if related is not None:
        content["m.relates_to"] = related
    return content


def _failure(resp: Any) -> Outcome:
    """What a homeserver's refusal of a send means for the notice."""
    code = getattr(resp, "status_code", None)
    if code == "M_LIMIT_EXCEEDED":
        return RateLimited((getattr(resp, "retry_after_ms", None) or 5000) / 1000)
    if code in _GONE:
        return Gone(f"{code}: {resp.message}")
    if code in _REJECTED:
        return Rejected(f"{code}: {resp.message}")
    return Transient(f"{code}: {getattr(resp, 'message', resp)}")


def sync_age(shell: MatrixShell) -> float | None:
    return None if not shell.last_sync else time.time() - shell.last_sync
