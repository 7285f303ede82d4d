"""Cross-signing keys as the Matrix spec shapes them: generate, sign, verify, read.

Pure: no I/O. Ed25519 comes from PyNaCl through signedjson's key helpers, and
every signature is made and checked by `signedjson.sign` over canonical JSON
(`canonicaljson`), so neither is written here.

A cross-signing key object is `{"user_id": U, "usage": [USAGE], "keys":
{"ed25519:<pub>": "<pub>"}, "signatures": ...}` where `<pub>` is the unpadded
base64 public key; the self-signing and user-signing objects are signed by
the master key (signature key id `ed25519:<master pub>`), and a device is
cross-signed when its device-keys object carries a signature by the
self-signing key.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

import nacl.signing
from signedjson.key import decode_signing_key_base64, decode_verify_key_bytes
from signedjson.sign import sign_json, verify_signed_json
from signedjson.types import SigningKey
from unpaddedbase64 import decode_base64, encode_base64

ED25519 = "ed25519"
SEED_BYTES = 32
_BASE64 = re.compile(r"[A-Za-z0-9+/]+")


class Usage(Enum):
    MASTER = "master"
    SELF_SIGNING = "self_signing"
    USER_SIGNING = "user_signing"

    @property
    def upload_field(self) -> str:
        """The field of `/keys/device_signing/upload` that carries this key."""
        return f"{self.value}_key"

    @property
    def query_field(self) -> str:
        """The field of a `/keys/query` answer that carries this key, per user."""
        return f"{self.value}_keys"


class KeyFormatError(ValueError):
    """A key object (from the server or the state file) is not the shape it must have."""


@dataclass(frozen=True, slots=True)
class KeyPair:
    """One Ed25519 key pair, kept as its 32-byte private seed."""

    usage: Usage
    seed: bytes

    def __post_init__(self) -> None:
        if len(self.seed) != SEED_BYTES:
            raise KeyFormatError(
                f"{self.usage.value} seed: expected 32 bytes, got {len(self.seed)}"
            )

    @classmethod
    def generate(cls, usage: Usage) -> KeyPair:
        return cls(usage, bytes(nacl.signing.SigningKey.generate()))

    @property
    def public(self) -> str:
        """The public key, unpadded base64 (also the key's version in its key id)."""
        return encode_base64(bytes(nacl.signing.SigningKey(self.seed).verify_key))

    @property
    def key_id(self) -> str:
        return f"{ED25519}:{self.public}"

    @property
    def signing_key(self) -> SigningKey:
        return decode_signing_key_base64(ED25519, self.public, encode_base64(self.seed))


@dataclass(frozen=True, slots=True)
class Identity:
    """A user's three cross-signing key pairs (private parts)."""

    user_id: str
    master: KeyPair
    self_signing: KeyPair
    user_signing: KeyPair

    def __post_init__(self) -> None:
        for pair, usage in (
            (self.master, Usage.MASTER),
            (self.self_signing, Usage.SELF_SIGNING),
            (self.user_signing, Usage.USER_SIGNING),
        ):
            if pair.usage is not usage:
                raise KeyFormatError(f"{usage.value}: got a {pair.usage.value} key pair")

    @classmethod
    def generate(cls, user_id: str) -> Identity:
        return cls.with_master(user_id, KeyPair.generate(Usage.MASTER))

    @classmethod
    def with_master(cls, user_id: str, master: KeyPair) -> Identity:
        """New self-signing and user-signing keys under an existing master key."""
        return cls(
            user_id,
            master,
            KeyPair.generate(Usage.SELF_SIGNING),
            KeyPair.generate(Usage.USER_SIGNING),
        )

    def pair(self, usage: Usage) -> KeyPair:
        return {
            Usage.MASTER: self.master,
            Usage.SELF_SIGNING: self.self_signing,
            Usage.USER_SIGNING: self.user_signing,
        }[usage]

    def key_object(self, usage: Usage) -> dict[str, Any]:
        """The public key object for `usage`, signed by the master key unless it is the master."""
        pair = self.pair(usage)
        obj: dict[str, Any] = {
            "user_id": self.user_id,
            "usage": [usage.value],
            "keys": {pair.key_id: pair.public},
        }
        if usage is not Usage.MASTER:
            sign_json(obj, self.user_id, self.master.signing_key)
        return obj

    def upload_body(self, usages: tuple[Usage, ...] = tuple(Usage)) -> dict[str, Any]:
        """The body of `/keys/device_signing/upload` (without `auth`) for `usages`."""
        return {u.upload_field: self.key_object(u) for u in usages}

    def sign_device(self, device_keys: Mapping[str, Any]) -> dict[str, Any]:
        """The device keys signed by the self-signing key, for `/keys/signatures/upload`.

        The object is the device keys minus `signatures` and `unsigned` (as the
        spec's signing rules say), carrying only the new signature.
        """
        obj = {
            k: copy.deepcopy(v)
            for k, v in device_keys.items()
            if k not in ("signatures", "unsigned")
        }
        sign_json(obj, self.user_id, self.self_signing.signing_key)
        return obj


def verify(obj: Mapping[str, Any], signer: str, key_id: str, public: str) -> bool:
    """Does `obj` carry a valid Ed25519 signature by `signer`'s key `key_id` (public key `public`)?

    Never raises: anything malformed (the object, the key, the signature) is
    simply not a valid signature, because whatever a server sends is untrusted.
    """
    try:
        if not key_id.startswith(f"{ED25519}:"):
            return False
        verify_key = decode_verify_key_bytes(key_id, decode_base64(public))
        verify_signed_json(dict(obj), signer, verify_key)
    except Exception:  # any failure at all means "not validly signed"
        return False
    return True


@dataclass(frozen=True, slots=True)
class PublicKey:
    """A cross-signing public key as read from a key object."""

    usage: Usage
    user_id: str
    public: str
    obj: Mapping[str, Any]  # the whole object, signatures included

    @property
    def key_id(self) -> str:
        return f"{ED25519}:{self.public}"

    def signed_by(self, signer: str, key: PublicKey | str) -> bool:
        """Is this object validly signed by `signer`'s `key` (a PublicKey or unpadded base64)?"""
        public = key.public if isinstance(key, PublicKey) else key
        return verify(self.obj, signer, f"{ED25519}:{public}", public)


def read_key_object(obj: object, usage: Usage, user_id: str) -> PublicKey:
    """Check one cross-signing key object's shape; raises KeyFormatError naming the field."""
    if not isinstance(obj, Mapping):
        raise KeyFormatError(f"{usage.value} key: expected an object, got {type(obj).__name__}")
    if obj.get("user_id") != user_id:
        raise KeyFormatError(f"{usage.value} key: user_id is {obj.get('user_id')!r}, not {user_id}")
    usages = obj.get("usage")
    if not isinstance(usages, list) or usage.value not in usages:
        raise KeyFormatError(f"{usage.value} key: usage {usages!r} does not include {usage.value}")
    keys = obj.get("keys")
    if not isinstance(keys, Mapping) or len(keys) != 1:
        raise KeyFormatError(f"{usage.value} key: keys must hold exactly one key, got {keys!r}")
    ((key_id, public),) = keys.items()
    if not isinstance(public, str) or key_id != f"{ED25519}:{public}":
        raise KeyFormatError(f"{usage.value} key: key id {key_id!r} does not name its key")
    if not _BASE64.fullmatch(public):
        raise KeyFormatError(f"{usage.value} key: {public!r} is not unpadded base64")
    raw = decode_base64(public)
    if len(raw) != SEED_BYTES:
        raise KeyFormatError(f"{usage.value} key: {public!r} is not a 32-byte Ed25519 key")
    return PublicKey(usage, user_id, public, obj)


def device_ed25519(device_keys: Mapping[str, Any], device_id: str) -> str | None:
    """The device's own Ed25519 key from its device-keys object, if it has one."""
    keys = device_keys.get("keys")
    if not isinstance(keys, Mapping):
        return None
    value = keys.get(f"{ED25519}:{device_id}")
    return value if isinstance(value, str) else None


def fingerprint(public: str) -> str:
    """A public key as people compare it: the unpadded base64 in groups of four."""
    return " ".join(public[i : i + 4] for i in range(0, len(public), 4))
