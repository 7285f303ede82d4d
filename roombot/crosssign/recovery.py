"""The recovery key: the master key's private seed in the spec's recovery-key form.

The form is the one the Matrix spec gives for secret-storage recovery keys:
the bytes 0x8B 0x01, the 32 key bytes, then one parity byte (the XOR of all
bytes before it), encoded in base58 (Bitcoin alphabet, by the `base58`
library) and shown in groups of four characters. Here the 32 bytes are the
cross-signing master key's seed itself, not a secret-storage key: it restores
the bot's identity with `roombot crypto bootstrap --recovery-key-file`, and
it is NOT an Element "Security Key" (entering it there does nothing useful).
The recovery file holds it under a few `#` lines saying what it is; a file
given to `--recovery-key-file` is read the same way, comments or not.
Pure: no I/O.
"""

from __future__ import annotations

import base58

from roombot.crosssign.keys import SEED_BYTES, fingerprint

PREFIX = b"\x8b\x01"


class RecoveryKeyError(ValueError):
    """Text that is not a valid recovery key; the message says what is wrong."""


def _parity(data: bytes) -> int:
    p = 0
    for b in data:
        p ^= b
    return p


def encode_recovery_key(seed: bytes) -> str:
    if len(seed) != SEED_BYTES:
        raise ValueError(f"expected a 32-byte seed, got {len(seed)} bytes")
    raw = PREFIX + seed
    text = base58.b58encode(raw + bytes([_parity(raw)])).decode("ascii")
    return " ".join(text[i : i + 4] for i in range(0, len(text), 4))


def decode_recovery_key(text: str) -> bytes:
    """The 32-byte seed in a recovery key; spaces and line breaks are ignored."""
    compact = "".join(text.split())
    if not compact:
        raise RecoveryKeyError("the recovery key is empty")
    try:
        raw = base58.b58decode(compact)
    except ValueError as e:
        raise RecoveryKeyError(f"not base58 (Bitcoin alphabet): {e}") from e
    if len(raw) != len(PREFIX) + SEED_BYTES + 1:
        raise RecoveryKeyError(
            f"decodes to {len(raw)} bytes, expected {len(PREFIX) + SEED_BYTES + 1}: "
            "a character is missing or extra"
        )
    if raw[: len(PREFIX)] != PREFIX:
        raise RecoveryKeyError("wrong prefix: this is not a recovery key")
    if _parity(raw) != 0:
        raise RecoveryKeyError("parity check failed: a character is mistyped")
    return raw[len(PREFIX) : len(PREFIX) + SEED_BYTES]


def recovery_file_text(key: str, user_id: str, master: str) -> str:
    """The recovery file's content: what it is and how to use it, then the key on its own line."""
    return (
        f"# roombot: the recovery key of {user_id}'s cross-signing identity\n"
        f"# master key (what people verify): {fingerprint(master)}\n"
        "# Move this file offline (a password manager, a safe), then delete it here.\n"
        "# Restore with: roombot crypto bootstrap -c CONFIG --recovery-key-file THIS-FILE\n"
        f"{key}\n"
    )


def key_from_file_text(text: str) -> bytes:
    """The seed in a recovery file: `#` lines are skipped, the rest is the key."""
    kept = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    return decode_recovery_key("\n".join(kept))
