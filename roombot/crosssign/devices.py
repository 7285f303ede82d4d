"""Which devices their owners have cross-signed, read from one `/keys/query` answer (MSC4153).

Pure: `cross_signed(answer)` checks every signature itself (the answer is
untrusted; no field that claims a device is verified is ever read). A device
is cross-signed when all of these hold:

- its owner's master key object reads well (`read_key_object`);
- the owner's self-signing key object reads well and carries a valid
  signature by that master key;
- the device-keys object names the same user and device it is listed under,
  holds the device's Ed25519 and Curve25519 keys, carries a valid signature by
  the device's own Ed25519 key, and a valid signature by the self-signing key.

The Curve25519 key is kept because room keys travel over Olm to that key: a
caller must check that the device it encrypts to holds both keys seen here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from roombot.crosssign.keys import (
    ED25519,
    KeyFormatError,
    PublicKey,
    Usage,
    device_ed25519,
    read_key_object,
    verify,
)

CURVE25519 = "curve25519"

DeviceRef = tuple[str, str]  # (user id, device id)


@dataclass(frozen=True, slots=True)
class SignedDevice:
    """A device whose keys its owner's identity vouches for."""

    user_id: str
    device_id: str
    ed25519: str
    curve25519: str


@dataclass(frozen=True, slots=True)
class CrossSigned:
    """The verdict on every device of every user one `/keys/query` answer lists."""

    signed: Mapping[DeviceRef, SignedDevice]
    refused: Mapping[DeviceRef, str]  # a device that is not cross-signed -> why, in words
    users: frozenset[str]  # the users whose device lists the answer holds

    def reason(self, user_id: str, device_id: str) -> str | None:
        """None when the device is cross-signed, else why it is not."""
        ref = (user_id, device_id)
        if ref in self.signed:
            return None
        if ref in self.refused:
            return self.refused[ref]
        if user_id not in self.users:
            return "the homeserver sent no device keys for this user"
        return "the homeserver did not list this device"


def _section(answer: Mapping[str, Any], field: str) -> Mapping[str, Any]:
    section = answer.get(field)
    return section if isinstance(section, Mapping) else {}


def _self_signing_key(answer: Mapping[str, Any], user_id: str) -> PublicKey | str:
    """The user's self-signing key, checked against the master key; or why there is none."""
    master_obj = _section(answer, Usage.MASTER.query_field).get(user_id)
    if master_obj is None:
        return "its owner has no cross-signing identity"
    try:
        master = read_key_object(master_obj, Usage.MASTER, user_id)
    except KeyFormatError as e:
        return f"its owner's cross-signing identity is unusable ({e})"
    ssk_obj = _section(answer, Usage.SELF_SIGNING.query_field).get(user_id)
    if ssk_obj is None:
        return "its owner has no self-signing key"
    try:
        ssk = read_key_object(ssk_obj, Usage.SELF_SIGNING, user_id)
    except KeyFormatError as e:
        return f"its owner's self-signing key is unusable ({e})"
    if not ssk.signed_by(user_id, master):
        return "its owner's self-signing key is not validly signed by the master key"
    return ssk


def _device_verdict(
    device: object, user_id: str, device_id: str, ssk: PublicKey
) -> SignedDevice | str:
    if not isinstance(device, Mapping):
        return "its device keys are not an object"
    if device.get("user_id") != user_id or device.get("device_id") != device_id:
        return "its device keys name another user or device"
    ed = device_ed25519(device, device_id)
    keys = device.get("keys")
    curve = keys.get(f"{CURVE25519}:{device_id}") if isinstance(keys, Mapping) else None
    if ed is None or not isinstance(curve, str):
        return "its device keys lack the Ed25519 or Curve25519 key"
    if not verify(device, user_id, f"{ED25519}:{device_id}", ed):
        return "its device keys are not validly signed by the device itself"
    sigs = device.get("signatures")
    by_owner = sigs.get(user_id) if isinstance(sigs, Mapping) else None
    if not isinstance(by_owner, Mapping) or ssk.key_id not in by_owner:
        return "its owner has not signed it with the self-signing key"
    if not verify(device, user_id, ssk.key_id, ssk.public):
        return "its signature by the owner's self-signing key is invalid"
    return SignedDevice(user_id, device_id, ed, curve)


def cross_signed(answer: Mapping[str, Any]) -> CrossSigned:
    """Judge every device in a `/keys/query` answer; never raises on malformed input."""
    signed: dict[DeviceRef, SignedDevice] = {}
    refused: dict[DeviceRef, str] = {}
    users: set[str] = set()
    for user_id, devices in _section(answer, "device_keys").items():
        if not isinstance(user_id, str) or not isinstance(devices, Mapping):
            continue
        users.add(user_id)
        ssk = _self_signing_key(answer, user_id)
        for device_id, device in devices.items():
            if not isinstance(device_id, str):
                continue
            ref = (user_id, device_id)
            verdict = ssk if isinstance(ssk, str) else _device_verdict(device, *ref, ssk)
            if isinstance(verdict, SignedDevice):
                signed[ref] = verdict
            else:
                refused[ref] = verdict
    return CrossSigned(signed, refused, frozenset(users))
