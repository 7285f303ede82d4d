"""Which member devices are cross-signed, judged from `/keys/query` answers built here.

The answers are signed in this file with PyNaCl over canonical JSON (not with
roombot's own signing code), then forged, stripped and bent in the ways a
hostile or broken homeserver could.
"""

from __future__ import annotations

import copy
from typing import Any

import nacl.signing
import pytest
from canonicaljson import encode_canonical_json
from unpaddedbase64 import encode_base64

from roombot.crosssign.devices import CrossSigned, SignedDevice, cross_signed
from roombot.crosssign.recipients import NOT_LISTED, Recipients

ALICE = "@alice:example.org"
BOB = "@bob:example.org"


class Key:
    def __init__(self) -> None:
        self.private = nacl.signing.SigningKey.generate()
        self.public = encode_base64(bytes(self.private.verify_key))

    def sign(self, obj: dict[str, Any], user: str, key_id: str) -> dict[str, Any]:
        body = {k: v for k, v in obj.items() if k not in ("signatures", "unsigned")}
        sig = encode_base64(self.private.sign(encode_canonical_json(body)).signature)
        obj.setdefault("signatures", {}).setdefault(user, {})[key_id] = sig
        return obj


class Person:
    """A user with a master and self-signing key, and devices of their own."""

    def __init__(self, user_id: str) -> None:
        self.user_id = user_id
        self.master = Key()
        self.ssk = Key()
        self.devices: dict[str, tuple[Key, str]] = {}  # device id -> (ed25519 key, curve)

    def key_object(self, usage: str, key: Key) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "usage": [usage],
            "keys": {f"ed25519:{key.public}": key.public},
        }

    def master_object(self) -> dict[str, Any]:
        return self.key_object("master", self.master)

    def ssk_object(self) -> dict[str, Any]:
        obj = self.key_object("self_signing", self.ssk)
        return self.master.sign(obj, self.user_id, f"ed25519:{self.master.public}")

    def device(self, device_id: str, *, cross_sign: bool = True) -> dict[str, Any]:
        if device_id not in self.devices:
            self.devices[device_id] = (Key(), encode_base64(bytes(Key().private.verify_key)))
        key, curve = self.devices[device_id]
        obj: dict[str, Any] = {
            "user_id": self.user_id,
            "device_id": device_id,
            "algorithms": ["m.olm.v1.curve25519-aes-sha2", "m.megolm.v1.aes-sha2"],
            "keys": {f"curve25519:{device_id}": curve, f"ed25519:{device_id}": key.public},
        }
        key.sign(obj, self.user_id, f"ed25519:{device_id}")
        if cross_sign:
            self.ssk.sign(obj, self.user_id, f"ed25519:{self.ssk.public}")
        return obj

    def keys_of(self, device_id: str) -> tuple[str, str]:
        key, curve = self.devices[device_id]
        return key.public, curve


def answer(*entries: tuple[Person, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """A /keys/query answer as Synapse shapes it, for each person with the given devices."""
    out: dict[str, Any] = {
        "device_keys": {},
        "master_keys": {},
        "self_signing_keys": {},
        "failures": {},
    }
    for person, devices in entries:
        out["device_keys"][person.user_id] = devices
        out["master_keys"][person.user_id] = person.master_object()
        out["self_signing_keys"][person.user_id] = person.ssk_object()
    return out


def test_a_cross_signed_device_is_trusted_with_its_keys() -> None:
    alice = Person(ALICE)
    got = cross_signed(answer((alice, {"PHONE": alice.device("PHONE")})))
    ed, curve = alice.keys_of("PHONE")
    assert got.signed == {(ALICE, "PHONE"): SignedDevice(ALICE, "PHONE", ed, curve)}
    assert got.refused == {}
    assert got.reason(ALICE, "PHONE") is None


def test_a_device_its_owner_never_signed_is_refused() -> None:
    alice = Person(ALICE)
    devices = {"PHONE": alice.device("PHONE"), "LAPTOP": alice.device("LAPTOP", cross_sign=False)}
    got = cross_signed(answer((alice, devices)))
    assert set(got.signed) == {(ALICE, "PHONE")}
    assert got.refused == {
        (ALICE, "LAPTOP"): "its owner has not signed it with the self-signing key"
    }


def test_a_forged_self_signing_signature_is_refused() -> None:
    alice = Person(ALICE)
    device = alice.device("PHONE", cross_sign=False)
    # Signed by some other key, under the name of Alice's self-signing key.
    Key().sign(device, ALICE, f"ed25519:{alice.ssk.public}")
    got = cross_signed(answer((alice, {"PHONE": device})))
    assert got.signed == {}
    assert got.reason(ALICE, "PHONE") == "its signature by the owner's self-signing key is invalid"


def test_a_signature_copied_from_another_device_does_not_carry_over() -> None:
    alice = Person(ALICE)
    good = alice.device("PHONE")
    other = alice.device("LAPTOP", cross_sign=False)
    sig_id = f"ed25519:{alice.ssk.public}"
    other["signatures"][ALICE][sig_id] = good["signatures"][ALICE][sig_id]
    got = cross_signed(answer((alice, {"PHONE": good, "LAPTOP": other})))
    assert set(got.signed) == {(ALICE, "PHONE")}
    assert "invalid" in (got.reason(ALICE, "LAPTOP") or "")


def test_keys_swapped_after_signing_are_refused() -> None:
    alice = Person(ALICE)
    device = alice.device("PHONE")
    device["keys"]["curve25519:PHONE"] = Person(ALICE).device("X")["keys"]["curve25519:X"]
    got = cross_signed(answer((alice, {"PHONE": device})))
    assert got.reason(ALICE, "PHONE") == (
        "its device keys are not validly signed by the device itself"
    )


def test_a_device_without_its_own_signature_is_refused() -> None:
    alice = Person(ALICE)
    device = alice.device("PHONE")
    del device["signatures"][ALICE]["ed25519:PHONE"]
    got = cross_signed(answer((alice, {"PHONE": device})))
    assert got.reason(ALICE, "PHONE") == (
        "its device keys are not validly signed by the device itself"
    )


def test_a_verified_claim_in_the_answer_is_ignored() -> None:
    alice = Person(ALICE)
    device = alice.device("PHONE", cross_sign=False)
    # Outside the signed part (`unsigned` is not covered by any signature) ...
    device["unsigned"] = {"verified": True, "trust": "cross_signed", "device_display_name": "x"}
    got = cross_signed(answer((alice, {"PHONE": device})))
    assert got.signed == {}
    assert got.reason(ALICE, "PHONE") == "its owner has not signed it with the self-signing key"
    # ... or added beside the keys, where it breaks the device's own signature.
    device["verified"] = True
    assert cross_signed(answer((alice, {"PHONE": device}))).signed == {}


def test_another_users_self_signing_key_does_not_vouch() -> None:
    alice, bob = Person(ALICE), Person(BOB)
    device = alice.device("PHONE", cross_sign=False)
    bob.ssk.sign(device, BOB, f"ed25519:{bob.ssk.public}")
    got = cross_signed(answer((alice, {"PHONE": device}), (bob, {})))
    assert got.reason(ALICE, "PHONE") == "its owner has not signed it with the self-signing key"
    # Nor does Alice's identity when the server files Bob's self-signing key under Alice.
    device = alice.device("PHONE")
    a = answer((alice, {"PHONE": device}), (bob, {}))
    a["self_signing_keys"][ALICE] = a["self_signing_keys"][BOB]
    assert "unusable" in (cross_signed(a).reason(ALICE, "PHONE") or "")


def _identity_broken(part: str) -> dict[str, Any]:
    alice = Person(ALICE)
    a = answer((alice, {"PHONE": alice.device("PHONE")}))
    if part == "no master":
        del a["master_keys"][ALICE]
    elif part == "no ssk":
        del a["self_signing_keys"][ALICE]
    elif part == "ssk not signed by master":
        a["self_signing_keys"][ALICE]["signatures"] = {}
    elif part == "ssk signed by another master":
        other = Key()
        obj = alice.key_object("self_signing", alice.ssk)
        a["self_signing_keys"][ALICE] = other.sign(obj, ALICE, f"ed25519:{alice.master.public}")
    elif part == "master replaced":
        a["master_keys"][ALICE] = Person(ALICE).master_object()
    elif part == "master malformed":
        a["master_keys"][ALICE] = {"user_id": ALICE, "usage": ["master"], "keys": "nope"}
    elif part == "master of another user":
        a["master_keys"][ALICE] = Person(BOB).master_object()
    elif part == "master without usage":
        a["master_keys"][ALICE]["usage"] = ["self_signing"]
    return a


@pytest.mark.parametrize(
    ("part", "reason"),
    [
        ("no master", "its owner has no cross-signing identity"),
        ("no ssk", "its owner has no self-signing key"),
        ("ssk not signed by master", "not validly signed by the master key"),
        ("ssk signed by another master", "not validly signed by the master key"),
        ("master replaced", "not validly signed by the master key"),
        ("master malformed", "cross-signing identity is unusable"),
        ("master of another user", "cross-signing identity is unusable"),
        ("master without usage", "cross-signing identity is unusable"),
    ],
)
def test_a_broken_identity_vouches_for_no_device(part: str, reason: str) -> None:
    got = cross_signed(_identity_broken(part))
    assert got.signed == {}
    assert reason in (got.reason(ALICE, "PHONE") or "")


@pytest.mark.parametrize(
    "mangle",
    [
        lambda d: d.update(device_id="OTHER"),
        lambda d: d.update(user_id=BOB),
        lambda d: d.pop("keys"),
        lambda d: d["keys"].pop("curve25519:PHONE"),
        lambda d: d.update(signatures="x"),
        lambda d: d["signatures"].update({ALICE: ["x"]}),
    ],
    ids=["device id", "user id", "no keys", "no curve25519", "signatures text", "sig list"],
)
def test_malformed_device_keys_are_refused_not_raised(mangle: Any) -> None:
    alice = Person(ALICE)
    device = alice.device("PHONE")
    mangle(device)
    got = cross_signed(answer((alice, {"PHONE": device})))
    assert got.signed == {}
    assert got.reason(ALICE, "PHONE")


@pytest.mark.parametrize(
    "bad",
    [
        {},
        {"device_keys": []},
        {"device_keys": {ALICE: "x"}},
        {"device_keys": {ALICE: {"PHONE": None}}, "master_keys": "x"},
        {"device_keys": {ALICE: {"PHONE": {}}}, "master_keys": {ALICE: []}},
    ],
)
def test_garbage_answers_trust_nobody(bad: dict[str, Any]) -> None:
    got = cross_signed(bad)
    assert got.signed == {}
    assert got.reason(ALICE, "PHONE")


def test_users_and_devices_missing_from_the_answer() -> None:
    alice = Person(ALICE)
    got = cross_signed(answer((alice, {"PHONE": alice.device("PHONE")})))
    assert got.users == frozenset({ALICE})
    assert got.reason(ALICE, "TABLET") == "the homeserver did not list this device"
    assert got.reason(BOB, "PHONE") == "the homeserver sent no device keys for this user"


# -- Recipients: the decision per device, cached per user ---------------------------------


def _recipients_with(alice: Person, devices: dict[str, dict[str, Any]]) -> Recipients:
    r = Recipients(cross_signing=True)
    ask = r.ask([ALICE])
    assert ask.users == (ALICE,)
    r.learn(ask, answer((alice, devices)))
    return r


def test_recipients_check_the_keys_nio_would_encrypt_to() -> None:
    alice = Person(ALICE)
    r = _recipients_with(alice, {"PHONE": alice.device("PHONE")})
    ed, curve = alice.keys_of("PHONE")
    assert r.decide(ALICE, "PHONE", ed, curve) is None
    other_ed, other_curve = Person(ALICE).device("X")["keys"].values()
    assert r.decide(ALICE, "PHONE", ed, other_ed) == (
        "the keys the bot holds for it are not the ones its owner cross-signed"
    )
    assert r.decide(ALICE, "PHONE", other_curve, curve) is not None
    assert r.ask([ALICE]).users == ()  # cached: no query on the next send


def test_listed_devices_get_keys_unsigned_and_verified_only_needs_the_list() -> None:
    alice = Person(ALICE)
    devices = {"LAPTOP": alice.device("LAPTOP", cross_sign=False)}
    r = Recipients(cross_signing=True, listed=[(ALICE, "LAPTOP")])
    ask = r.ask([ALICE])
    r.learn(ask, answer((alice, devices)))
    assert r.decide(ALICE, "LAPTOP", *alice.keys_of("LAPTOP")) is None
    only = Recipients(cross_signing=False, listed=[(ALICE, "LAPTOP")])
    assert only.ask([ALICE, BOB]).users == ()  # nothing to fetch
    assert only.decide(ALICE, "LAPTOP", "e", "c") is None
    assert only.decide(ALICE, "PHONE", "e", "c") == NOT_LISTED


def test_a_change_makes_the_user_fetched_again_and_a_stale_answer_is_not_kept() -> None:
    alice = Person(ALICE)
    r = _recipients_with(alice, {"LAPTOP": alice.device("LAPTOP", cross_sign=False)})
    assert r.decide(ALICE, "LAPTOP", *alice.keys_of("LAPTOP"))
    r.changed([ALICE])
    assert r.changes_seen == {ALICE: 1}
    ask = r.ask([ALICE])
    assert ask.users == (ALICE,)
    # The keys change again while that query is in flight: its answer is already old.
    r.changed([ALICE])
    # Said stale, so the shell asks again before the send rather than refusing her.
    assert r.learn(ask, answer((alice, {"LAPTOP": alice.device("LAPTOP")}))) == (ALICE,)
    assert r.decide(ALICE, "LAPTOP", *alice.keys_of("LAPTOP")) == (
        "the bot could not fetch its owner's cross-signing keys"
    )
    ask = r.ask([ALICE])
    assert r.learn(ask, answer((alice, {"LAPTOP": alice.device("LAPTOP")}))) == ()
    assert r.decide(ALICE, "LAPTOP", *alice.keys_of("LAPTOP")) is None


def test_news_is_told_once_per_device_and_again_when_it_changes() -> None:
    r = Recipients(cross_signing=True)
    assert not r.news(ALICE, "PHONE", None)  # trusted from the start: nothing to say
    assert r.news(ALICE, "LAPTOP", "unsigned")
    assert not r.news(ALICE, "LAPTOP", "unsigned")
    assert r.news(ALICE, "LAPTOP", None)  # now gets keys
    assert not r.news(ALICE, "LAPTOP", None)
    assert r.news(ALICE, "LAPTOP", "forged")


def test_the_answer_is_not_changed_by_judging_it() -> None:
    alice = Person(ALICE)
    a = answer((alice, {"PHONE": alice.device("PHONE")}))
    before = copy.deepcopy(a)
    got = cross_signed(a)
    assert isinstance(got, CrossSigned) and a == before


def test_a_user_the_answer_left_out_is_asked_for_again() -> None:
    alice = Person(ALICE)
    r = Recipients(cross_signing=True)
    ask = r.ask([ALICE, BOB])
    assert ask.users == (ALICE, BOB)
    partial = answer((alice, {"PHONE": alice.device("PHONE")}))
    partial["failures"] = {"example.org": {"status": 503, "message": "Not ready"}}
    r.learn(ask, partial)
    assert (
        r.decide(BOB, "PHONE", "e", "c") == "the bot could not fetch its owner's cross-signing keys"
    )
    assert r.ask([ALICE, BOB]).users == (BOB,)
