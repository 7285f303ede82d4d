"""Bootstrap and check: what the bot does about its cross-signing, at start and on demand.

The one rule: an identity other people may have verified is never replaced
without the operator asking (`--replace-identity`). On its own the bot only

- creates an identity when neither the server nor the state directory has one,
- publishes the stored identity when the server has none (it is still the
  one people verified, if they did),
- signs its own device with the stored self-signing key when that key is the
  server's and the device lacks the signature.

Everything else is reported in plain words with the command that repairs it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from roombot.crosssign.api import KeysApi
from roombot.crosssign.assess import Assessment, State, assess
from roombot.crosssign.keys import Identity, KeyPair, Usage
from roombot.crosssign.recovery import encode_recovery_key, recovery_file_text
from roombot.crosssign.store import KeyStore

log = logging.getLogger("roombot.crosssign")


class Mode(Enum):
    START = "start"  # automatic, at the bot's start: only the safe steps
    ON_DEMAND = "on_demand"  # `roombot crypto bootstrap`: may also re-publish sub-keys


class RefusedError(RuntimeError):
    """Bootstrap stopped short of a step that needs the operator; the message says which."""


@dataclass
class Result:
    before: Assessment
    after: Assessment
    actions: list[str] = field(default_factory=list)
    recovery_key: str | None = None  # set only when a new master key was made
    recovery_file: Path | None = None  # where that key was written (0600), for the operator


def advice(a: Assessment, config_hint: str = "CONFIG") -> str:
    """What the operator can do about `a`, in plain words with the command."""
    cmd = f"roombot crypto bootstrap -c {config_hint}"
    match a.state:
        case State.OK:
            return ""
        case State.NOT_SET_UP | State.NOT_PUBLISHED | State.DEVICE_UNSIGNED:
            return f"Run: {cmd}"
        case State.SUBKEYS_DIFFER:
            return (
                "Someone holding the bot's master key published other sub-keys. The master key "
                f"(what people verify) is unchanged; to publish new sub-keys under it run: {cmd}"
            )
        case State.DEVICE_UNKNOWN:
            return (
                "The device has not uploaded its keys yet: start the bot once "
                f"(roombot run -c {config_hint}), then run: {cmd}"
            )
        case State.KEYS_MISSING:
            return (
                "If you kept the recovery key written at the first bootstrap, restore the same "
                f"identity (nobody has to verify again): {cmd} --recovery-key-file FILE. "
                "Otherwise make a new identity; everyone who verified the bot must verify it "
                f"again: {cmd} --replace-identity"
            )
        case State.IDENTITY_DIFFERS | State.SERVER_INVALID:
            return (
                "The bot leaves the server's identity alone: people may have verified it. "
                "Perhaps someone logged in as the bot elsewhere and reset cross-signing. To give "
                "the bot a new identity (everyone who verified the bot must verify it again): "
                f"{cmd} --replace-identity"
            )
    return ""


class Bootstrapper:
    def __init__(
        self,
        api: KeysApi,
        store: KeyStore,
        password: Callable[[], str | None],
    ) -> None:
        self.api = api
        self.store = store
        self.password = password
        self.user_id = api.user_id
        self.device_id = api.device_id

    def _new_identity(self, why: str) -> tuple[Identity, str]:
        """A new identity: its recovery file written first, then its keys, before any upload.

        Refused while a recovery file is there: it may be the only copy of the key
        of the identity people verified, and it is never overwritten.
        """
        path = self.store.recovery_path
        if self.store.recovery_file_exists():
            raise RefusedError(
                f"{why}, but {path} holds a recovery key; if it is this bot's identity, "
                "restore it (nobody has to verify again): roombot crypto bootstrap -c CONFIG "
                f"--recovery-key-file {path}; otherwise move the file offline or delete it, "
                "then run again; nothing was changed"
            )
        identity = Identity.generate(self.user_id)
        key = encode_recovery_key(identity.master.seed)
        # The file before the keys: a crash in between leaves a recovery file and no
        # identity, which the next run refuses to paper over (see above).
        text = recovery_file_text(key, self.user_id, identity.master.public)
        self.store.write_recovery_file(text)
        self.store.save(identity)
        return identity, key

    async def check(self) -> Assessment:
        local = self.store.load(self.user_id)
        answer = await self.api.query()
        return assess(answer, self.user_id, self.device_id, local)

    async def run(
        self,
        mode: Mode,
        *,
        replace_identity: bool = False,
        recovery_seed: bytes | None = None,
    ) -> Result:
        """Bring the bot to State.OK as far as `mode` and the flags allow.

        Raises RefusedError when a step needs the operator, CrossSigningApiError
        when the homeserver refuses, KeyStoreError when the key file is unusable.
        """
        before = await self.check()
        actions: list[str] = []
        recovery_key: str | None = None
        a = before
        local = a.local
        publish: Identity | None = None  # keys to upload
        # The sub-keys alone when the server already holds this master key: Synapse keeps
        # every key it once held as a hidden device and answers 500 to one uploaded again.
        subkeys_only = False
        needs_operator = ""

        if recovery_seed is not None:
            master = KeyPair(Usage.MASTER, recovery_seed)
            server_master = a.server_public(Usage.MASTER)
            if server_master is not None and server_master != master.public:
                raise RefusedError(
                    f"the recovery key is for master key {master.public}, but the homeserver "
                    f"holds {server_master}; nothing was changed"
                )
            if local is not None and local.master.public == master.public:
                actions.append("the recovery key matches the stored master key")
            else:
                if local is not None and a.state is not State.IDENTITY_DIFFERS:
                    raise RefusedError(
                        f"the state directory already holds master key {local.master.public}; "
                        "the recovery key is for another one; nothing was changed"
                    )
                local = Identity.with_master(self.user_id, master)
                self.store.save(local)
                publish = local
                subkeys_only = server_master is not None
                actions.append("restored the master key from the recovery key, new sub-keys")

        if publish is None:
            match a.state:
                case State.NOT_SET_UP:
                    # Saved before upload: a crash in between leaves keys that the next
                    # run publishes (NOT_PUBLISHED), never an identity without its keys.
                    local, recovery_key = self._new_identity(
                        f"{self.user_id} has no cross-signing identity yet"
                    )
                    publish = local
                    actions.append("created a new cross-signing identity")
                case State.NOT_PUBLISHED:
                    publish = local
                    actions.append("published the stored identity (the server had none)")
                case State.SUBKEYS_DIFFER if mode is Mode.ON_DEMAND and local is not None:
                    # New sub-keys, not the stored ones (they may have been on the server).
                    local = Identity.with_master(self.user_id, local.master)
                    self.store.save(local)
                    publish = local
                    subkeys_only = True
                    actions.append("published new sub-keys under the same master key")
                case State.KEYS_MISSING | State.IDENTITY_DIFFERS | State.SERVER_INVALID if (
                    replace_identity
                ):
                    # Always a new identity: the stored one may have been on the server.
                    local, recovery_key = self._new_identity("a new identity was asked for")
                    actions.append("replaced the server's identity with a new one")
                    publish = local
                case State.OK | State.DEVICE_UNSIGNED | State.DEVICE_UNKNOWN:
                    pass
                case _:
                    needs_operator = a.problem

        if needs_operator:
            raise RefusedError(needs_operator)
        if publish is not None:
            usages = (Usage.SELF_SIGNING, Usage.USER_SIGNING) if subkeys_only else tuple(Usage)
            await self.api.upload_signing_keys(publish.upload_body(usages), self.password)
            a = await self.check()
        if a.state is State.DEVICE_UNSIGNED and a.local is not None:
            device = await self._device_keys()
            await self.api.upload_signatures({self.device_id: a.local.sign_device(device)})
            actions.append(f"signed device {self.device_id} with the self-signing key")
            a = await self.check()
        written = self.store.recovery_path if recovery_key is not None else None
        return Result(before, a, actions, recovery_key, written)

    async def _device_keys(self) -> dict[str, object]:
        answer = await self.api.query()
        device = answer.get("device_keys", {}).get(self.user_id, {}).get(self.device_id)
        if not isinstance(device, dict):
            raise RefusedError(f"the homeserver has no device keys for {self.device_id}")
        return device
