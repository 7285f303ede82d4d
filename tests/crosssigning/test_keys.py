"""Pure parts: key objects per the spec, signatures over canonical JSON, recovery keys, store."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import nacl.signing
import pytest
from canonicaljson import encode_canonical_json
from hypothesis import given
from hypothesis import strategies as st
from unpaddedbase64 import decode_base64, encode_base64

from roombot.crosssign.assess import State, assess
from roombot.crosssign.keys import (
    Identity,
    KeyFormatError,
    KeyPair,
    Usage,
    fingerprint,
    read_key_object,
    verify,
)
from roombot.crosssign.recovery import (
    RecoveryKeyError,
    decode_recovery_key,
    encode_recovery_key,
    key_from_file_text,
    recovery_file_text,
)
from roombot.crosssign.store import KeyStore, KeyStoreError

USER = "@bot:example.org"


def nacl_check(obj: dict[str, Any], signer: str, key_id: str, public: str) -> None:
    """Check a signature with PyNaCl directly over canonical JSON (independent of signedjson)."""
    body = {k: v for k, v in obj.items() if k not in ("signatures", "unsigned")}
    sig = decode_base64(obj["signatures"][signer][key_id])
    nacl.signing.VerifyKey(decode_base64(public)).verify(encode_canonical_json(body), sig)


def device_keys(device_id: str = "DEV") -> tuple[dict[str, Any], nacl.signing.SigningKey]:
    key = nacl.signing.SigningKey.generate()
    pub = encode_base64(bytes(key.verify_key))
    obj: dict[str, Any] = {
        "user_id": USER,
        "device_id": device_id,
        "algorithms": ["m.olm.v1.curve25519-aes-sha2", "m.megolm.v1.aes-sha2"],
        "keys": {f"ed25519:{device_id}": pub, f"curve25519:{device_id}": "c" * 43},
    }
    sig = key.sign(encode_canonical_json(obj)).signature
    obj["signatures"] = {USER: {f"ed25519:{device_id}": encode_base64(sig)}}
    obj["unsigned"] = {"device_display_name": "roombot"}
    return obj, key


def test_key_objects_have_the_spec_shape_and_signatures() -> None:
    ident = Identity.generate(USER)
    body = ident.upload_body()
    assert set(body) == {"master_key", "self_signing_key", "user_signing_key"}
    for usage in Usage:
        obj = body[usage.upload_field]
        pair = ident.pair(usage)
        assert obj["user_id"] == USER
        assert obj["usage"] == [usage.value]
        assert obj["keys"] == {f"ed25519:{pair.public}": pair.public}
        assert len(decode_base64(pair.public)) == 32
        assert "=" not in pair.public  # unpadded base64
    assert "signatures" not in body["master_key"]
    for field in ("self_signing_key", "user_signing_key"):
        nacl_check(body[field], USER, ident.master.key_id, ident.master.public)
    # three different keys
    assert len({ident.pair(u).public for u in Usage}) == 3


def test_device_signature_covers_the_object_minus_signatures_and_unsigned() -> None:
    ident = Identity.generate(USER)
    dev, _ = device_keys()
    signed = ident.sign_device(dev)
    assert "unsigned" not in signed
    assert list(signed["signatures"]) == [USER]
    assert list(signed["signatures"][USER]) == [ident.self_signing.key_id]
    nacl_check(signed, USER, ident.self_signing.key_id, ident.self_signing.public)
    assert dev["signatures"][USER].keys() == {"ed25519:DEV"}  # the input is untouched
    # our checker agrees, and the signature survives merging with the device's own one
    merged = {
        **dev,
        "signatures": {USER: {**dev["signatures"][USER], **signed["signatures"][USER]}},
    }
    assert verify(merged, USER, ident.self_signing.key_id, ident.self_signing.public)


def test_tampering_breaks_every_signature() -> None:
    ident = Identity.generate(USER)
    ssk = ident.key_object(Usage.SELF_SIGNING)
    kid, pub = ident.master.key_id, ident.master.public
    assert verify(ssk, USER, kid, pub)
    changed = {**ssk, "usage": ["master"]}
    assert not verify(changed, USER, kid, pub)
    sig = ssk["signatures"][USER][kid]
    flipped = sig[:10] + ("A" if sig[10] != "A" else "B") + sig[11:]
    bad = {**ssk, "signatures": {USER: {kid: flipped}}}
    assert not verify(bad, USER, kid, pub)
    with pytest.raises(nacl.exceptions.BadSignatureError):
        nacl_check(bad, USER, kid, pub)
    assert not verify(ssk, USER, kid, ident.self_signing.public)  # wrong key
    assert not verify(ssk, "@other:example.org", kid, pub)  # wrong signer
    assert not verify({**ssk, "signatures": {USER: {kid: "!!"}}}, USER, kid, pub)
    assert not verify({**ssk, "signatures": "nonsense"}, USER, kid, pub)
    assert not verify(ssk, USER, "curve25519:x", pub)


def test_read_key_object_names_what_is_wrong() -> None:
    ident = Identity.generate(USER)
    good = ident.key_object(Usage.MASTER)
    assert read_key_object(good, Usage.MASTER, USER).public == ident.master.public
    cases = [
        ([], "expected an object"),
        ({**good, "user_id": "@x:y"}, "user_id"),
        ({**good, "usage": ["self_signing"]}, "usage"),
        ({**good, "keys": {}}, "exactly one key"),
        ({**good, "keys": {"ed25519:AAAA": "BBBB"}}, "does not name its key"),
        ({**good, "keys": {"ed25519:AAAA": "AAAA"}}, "32-byte"),
        ({**good, "keys": {"ed25519:@@": "@@"}}, "base64"),
    ]
    for obj, words in cases:
        with pytest.raises(KeyFormatError, match=words):
            read_key_object(obj, Usage.MASTER, USER)


@given(st.binary(min_size=32, max_size=32))
def test_recovery_key_round_trip(seed: bytes) -> None:
    text = encode_recovery_key(seed)
    assert all(len(g) == 4 for g in text.split()[:-1])
    assert decode_recovery_key(text) == seed
    assert decode_recovery_key(text.replace(" ", "") + "\n") == seed


def test_recovery_key_rejects_typos_and_other_keys() -> None:
    text = encode_recovery_key(bytes(range(32)))
    assert text.startswith("Es")  # the prefix 0x8B 0x01 gives every key this start
    compact = text.replace(" ", "")
    for i in (3, 20, len(compact) - 1):
        c = compact[i]
        typo = compact[:i] + ("2" if c != "2" else "3") + compact[i + 1 :]
        with pytest.raises(RecoveryKeyError):
            decode_recovery_key(typo)
    with pytest.raises(RecoveryKeyError, match="missing or extra"):
        decode_recovery_key(compact[:-2])
    with pytest.raises(RecoveryKeyError, match="base58"):
        decode_recovery_key(compact[:-1] + "0")  # 0 is not in the alphabet
    with pytest.raises(RecoveryKeyError, match="empty"):
        decode_recovery_key("  ")


def test_recovery_file_says_what_it_is_and_reads_back() -> None:
    seed = bytes(range(32))
    master = KeyPair(Usage.MASTER, seed).public
    key = encode_recovery_key(seed)
    text = recovery_file_text(key, USER, master)
    comments = [ln for ln in text.splitlines() if ln.startswith("#")]
    assert [ln for ln in text.splitlines() if not ln.startswith("#")] == [key]
    assert any(USER in ln for ln in comments) and any(fingerprint(master) in ln for ln in comments)
    assert any("--recovery-key-file" in ln for ln in comments)
    assert key_from_file_text(text) == seed
    assert key_from_file_text(key) == seed  # a bare key, as before
    with pytest.raises(RecoveryKeyError, match="empty"):
        key_from_file_text("# only a comment\n")


def test_store_keeps_keys_private_and_whole(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "state")
    assert store.load(USER) is None
    ident = Identity.generate(USER)
    store.save(ident)
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.directory.stat().st_mode) == 0o700
    assert store.load(USER) == ident
    store.path.chmod(0o644)
    assert store.load(USER) == ident
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600  # tightened again
    with pytest.raises(KeyStoreError, match="belong to"):
        store.load("@someone:else")
    data = json.loads(store.path.read_text())
    data["master"] = "AAAA"
    store.path.write_text(json.dumps(data))
    with pytest.raises(KeyStoreError, match="damaged"):
        store.load(USER)
    store.path.write_text("{not json")
    with pytest.raises(KeyStoreError, match="cannot read"):
        store.load(USER)


def answer_for(ident: Identity, device: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {f"{u.value}_keys": {USER: ident.key_object(u)} for u in Usage}
    out["device_keys"] = {USER: {device["device_id"]: device}} if device else {}
    return out


def test_assess_walks_the_states() -> None:
    ident = Identity.generate(USER)
    dev, _ = device_keys()
    assert assess({}, USER, "DEV", None).state is State.NOT_SET_UP
    assert assess({}, USER, "DEV", ident).state is State.NOT_PUBLISHED
    a = assess(answer_for(ident, dev), USER, "DEV", ident)
    assert a.state is State.DEVICE_UNSIGNED
    assert [(s.by, s.valid) for s in a.signatures] == [("the device itself", True)]
    signed = ident.sign_device(dev)
    dev2 = {**dev, "signatures": {USER: {**dev["signatures"][USER], **signed["signatures"][USER]}}}
    a = assess(answer_for(ident, dev2), USER, "DEV", ident)
    assert a.state is State.OK, a.problem
    assert {(s.by, s.valid) for s in a.signatures} == {
        ("the device itself", True),
        ("the self-signing key", True),
    }
    assert assess(answer_for(ident, dev2), USER, "OTHER", ident).state is State.DEVICE_UNKNOWN
    assert assess(answer_for(ident, dev2), USER, "DEV", None).state is State.KEYS_MISSING
    other = Identity.generate(USER)
    assert assess(answer_for(ident, dev2), USER, "DEV", other).state is State.IDENTITY_DIFFERS
    same_master = Identity(USER, ident.master, other.self_signing, other.user_signing)
    assert assess(answer_for(ident, dev2), USER, "DEV", same_master).state is State.SUBKEYS_DIFFER
    # a self-signing key the master did not sign makes the server's keys unusable
    forged = answer_for(ident, dev2)
    forged["self_signing_keys"][USER] = other.key_object(Usage.SELF_SIGNING) | {
        "signatures": {USER: {ident.master.key_id: "A" * 86}}
    }
    assert assess(forged, USER, "DEV", ident).state is State.SERVER_INVALID
    # a tampered device signature is not a signature
    sig = dev2["signatures"][USER][ident.self_signing.key_id]
    dev3 = json.loads(json.dumps(dev2))
    dev3["signatures"][USER][ident.self_signing.key_id] = ("B" if sig[0] != "B" else "C") + sig[1:]
    a = assess(answer_for(ident, dev3), USER, "DEV", ident)
    assert a.state is State.DEVICE_UNSIGNED
    # hostile shapes never raise
    for junk in ({"master_keys": []}, {"master_keys": {USER: 5}}, {"device_keys": {USER: [1]}}):
        assess(junk, USER, "DEV", ident)


def test_fingerprint_groups_of_four() -> None:
    pair = KeyPair.generate(Usage.MASTER)
    fp = fingerprint(pair.public)
    assert fp.replace(" ", "") == pair.public
    assert all(len(g) == 4 for g in fp.split()[:-1])
