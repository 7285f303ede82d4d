"""Where the bot's cross-signing stands: the server's answer held against the stored keys.

Pure: `assess(answer, user_id, device_id, local)` reads one `/keys/query`
answer (untrusted input: every key and signature is checked here, never
taken on the server's word) and says which of a few states the bot is in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from roombot.crosssign.keys import (
    ED25519,
    Identity,
    KeyFormatError,
    PublicKey,
    Usage,
    device_ed25519,
    read_key_object,
    verify,
)


class State(Enum):
    OK = "ok"
    NOT_SET_UP = "not_set_up"  # no identity on the server, no keys in the state dir
    NOT_PUBLISHED = "not_published"  # keys in the state dir, no identity on the server
    KEYS_MISSING = "keys_missing"  # the server has an identity, the state dir has no keys
    IDENTITY_DIFFERS = "identity_differs"  # the server's master key is not the stored one
    SUBKEYS_DIFFER = "subkeys_differ"  # same master key, other self- or user-signing key
    SERVER_INVALID = "server_invalid"  # the server's keys are malformed or badly signed
    DEVICE_UNKNOWN = "device_unknown"  # the server has no device keys for the bot's device
    DEVICE_UNSIGNED = "device_unsigned"  # no valid self-signing signature on the device


@dataclass(frozen=True, slots=True)
class Signature:
    """One signature found on the bot's device keys, and whether it holds."""

    signer: str
    key_id: str
    by: str  # what the key is: "the device itself", "the self-signing key", "an unknown key"
    valid: bool


@dataclass(frozen=True, slots=True)
class Assessment:
    user_id: str
    device_id: str
    state: State
    problem: str  # a plain sentence; empty when the state is OK
    local: Identity | None
    server: Mapping[Usage, PublicKey]  # the server's keys that read well
    device_key: str | None  # the device's Ed25519 key as the server has it
    signatures: tuple[Signature, ...]

    @property
    def ok(self) -> bool:
        return self.state is State.OK

    def server_public(self, usage: Usage) -> str | None:
        key = self.server.get(usage)
        return key.public if key else None


def _user_section(answer: Mapping[str, Any], field: str, user_id: str) -> object:
    section = answer.get(field)
    return section.get(user_id) if isinstance(section, Mapping) else None


def _device_signatures(
    device: Mapping[str, Any], user_id: str, device_id: str, ssk: PublicKey | None
) -> tuple[Signature, ...]:
    sigs = device.get("signatures")
    found: list[Signature] = []
    if not isinstance(sigs, Mapping):
        return ()
    own = device_ed25519(device, device_id)
    for signer, by_key in sigs.items():
        if not isinstance(by_key, Mapping):
            continue
        for key_id in by_key:
            if signer == user_id and key_id == f"{ED25519}:{device_id}" and own:
                found.append(
                    Signature(
                        signer, key_id, "the device itself", verify(device, signer, key_id, own)
                    )
                )
            elif signer == user_id and ssk is not None and key_id == ssk.key_id:
                found.append(
                    Signature(
                        signer,
                        key_id,
                        "the self-signing key",
                        verify(device, signer, key_id, ssk.public),
                    )
                )
            else:
                found.append(Signature(str(signer), str(key_id), "an unknown key", False))
    return tuple(found)


def assess(
    answer: Mapping[str, Any], user_id: str, device_id: str, local: Identity | None
) -> Assessment:
    server: dict[Usage, PublicKey] = {}
    invalid: list[str] = []
    for usage in Usage:
        obj = _user_section(answer, usage.query_field, user_id)
        if obj is None:
            continue
        try:
            server[usage] = read_key_object(obj, usage, user_id)
        except KeyFormatError as e:
            invalid.append(str(e))
    master = server.get(Usage.MASTER)
    for usage in (Usage.SELF_SIGNING, Usage.USER_SIGNING):
        key = server.get(usage)
        if key is not None and (master is None or not key.signed_by(user_id, master)):
            invalid.append(f"the {usage.value} key is not validly signed by the master key")
            del server[usage]
    ssk = server.get(Usage.SELF_SIGNING)

    devices = _user_section(answer, "device_keys", user_id)
    device = devices.get(device_id) if isinstance(devices, Mapping) else None
    device_key: str | None = None
    signatures: tuple[Signature, ...] = ()
    if (
        isinstance(device, Mapping)
        and device.get("device_id") == device_id
        and device.get("user_id") == user_id
    ):
        device_key = device_ed25519(device, device_id)
        signatures = _device_signatures(device, user_id, device_id, ssk)
    else:
        device = None

    def result(state: State, problem: str = "") -> Assessment:
        return Assessment(user_id, device_id, state, problem, local, server, device_key, signatures)

    if master is None and not invalid:
        if local is None:
            return result(State.NOT_SET_UP, f"{user_id} has no cross-signing identity yet")
        return result(
            State.NOT_PUBLISHED,
            f"the homeserver has no cross-signing identity for {user_id}, "
            "though the state directory holds one",
        )
    if master is None:
        return result(
            State.SERVER_INVALID,
            "the homeserver's cross-signing keys are unusable: " + "; ".join(invalid),
        )
    if local is None:
        return result(
            State.KEYS_MISSING,
            f"the homeserver holds a cross-signing identity for {user_id} (master key "
            f"{master.public}) but the state directory has no keys for it",
        )
    if local.master.public != master.public:
        return result(
            State.IDENTITY_DIFFERS,
            f"the homeserver holds a different cross-signing identity for {user_id}: master key "
            f"{master.public} there, {local.master.public} in the state directory",
        )
    if invalid:
        return result(
            State.SERVER_INVALID,
            "the homeserver's cross-signing keys are unusable: " + "; ".join(invalid),
        )
    for usage in (Usage.SELF_SIGNING, Usage.USER_SIGNING):
        if server.get(usage) is None or server[usage].public != local.pair(usage).public:
            return result(
                State.SUBKEYS_DIFFER,
                f"the homeserver's {usage.value.replace('_', '-')} key is "
                f"{server_key_text(server.get(usage))}, not the stored {local.pair(usage).public}",
            )
    if device is None or device_key is None:
        return result(
            State.DEVICE_UNKNOWN,
            f"the homeserver has no device keys for {user_id}'s device {device_id}",
        )
    if not any(s.by == "the self-signing key" and s.valid for s in signatures):
        return result(
            State.DEVICE_UNSIGNED,
            f"device {device_id} is not signed by {user_id}'s self-signing key",
        )
    return result(State.OK)


def server_key_text(key: PublicKey | None) -> str:
    return key.public if key else "missing"
