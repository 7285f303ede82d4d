"""The private cross-signing keys on disk: `<state_dir>/cross-signing/keys.json`.

The directory is mode 0700 and the file 0600, written whole (temporary file,
fsync, rename) so a crash leaves the old keys or the new ones, never half.
The file holds the three private seeds (unpadded base64) and the user id they
belong to; nothing else about the identity is kept, the server is asked.

Beside it, `<state_dir>/recovery-key.txt` (0600): the recovery key of a new
identity, written once for the operator to move offline; never replaced.
"""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path

from unpaddedbase64 import decode_base64, encode_base64

from roombot.crosssign.keys import Identity, KeyFormatError, KeyPair, Usage
from roombot.private_files import create_private, private_dir, replace_private, tighten

log = logging.getLogger("roombot.crosssign")

FORMAT = 1


class KeyStoreError(RuntimeError):
    """The key file exists but cannot be used; the message names the file and the fault."""


class KeyStore:
    def __init__(self, state_dir: Path) -> None:
        self.directory = Path(state_dir) / "cross-signing"
        self.path = self.directory / "keys.json"
        self.recovery_path = Path(state_dir) / "recovery-key.txt"

    def exists(self) -> bool:
        return self.path.exists()

    def load(self, user_id: str) -> Identity | None:
        """The stored identity, or None when there is none. Raises KeyStoreError when unusable."""
        tighten(self.directory)
        tighten(self.recovery_path)
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            # Someone loosened the mode: tighten it, and say that the keys may have been read.
            log.warning(
                "cross-signing key file was readable by others; set it back to 0600 "
                "(if someone else read it, replace the identity: roombot crypto bootstrap "
                "--replace-identity)",
                extra={"path": str(self.path), "mode": oct(stat.S_IMODE(st.st_mode))},
            )
            self.path.chmod(0o600)
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError) as e:
            raise KeyStoreError(f"{self.path}: cannot read the cross-signing keys: {e}") from e
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise KeyStoreError(
                f"{self.path}: not a roombot cross-signing key file (format {FORMAT})"
            )
        if data.get("user_id") != user_id:
            raise KeyStoreError(
                f"{self.path}: the keys belong to {data.get('user_id')!r}, "
                f"but the bot is {user_id}; move the file away or use the right state_dir"
            )
        try:
            pairs = {u: KeyPair(u, decode_base64(str(data[u.value]))) for u in Usage}
            return Identity(
                user_id, pairs[Usage.MASTER], pairs[Usage.SELF_SIGNING], pairs[Usage.USER_SIGNING]
            )
        except (KeyError, ValueError, KeyFormatError) as e:
            raise KeyStoreError(f"{self.path}: a key is missing or damaged: {e}") from e

    def save(self, identity: Identity) -> None:
        private_dir(self.directory)
        data = {
            "format": FORMAT,
            "user_id": identity.user_id,
            **{u.value: encode_base64(identity.pair(u).seed) for u in Usage},
        }
        replace_private(self.path, json.dumps(data, indent=1).encode())

    def recovery_file_exists(self) -> bool:
        return self.recovery_path.exists()

    def write_recovery_file(self, text: str) -> None:
        """Create the recovery file (0600); KeyStoreError when there is one: never replaced."""
        private_dir(self.recovery_path.parent)
        try:
            create_private(self.recovery_path, text.encode())
        except FileExistsError as e:
            raise KeyStoreError(
                f"{self.recovery_path} already exists; it was left as it is (move it offline "
                "or delete it, then run again)"
            ) from e
        except OSError as e:
            raise KeyStoreError(f"{self.recovery_path}: cannot write the recovery key: {e}") from e
