"""The private cross-signing keys on disk: `<state_dir>/cross-signing/keys.json`.

The directory is mode 0700 and the file 0600, written whole (temporary file,
fsync, rename) so a crash leaves the old keys or the new ones, never half.
The file holds the three private seeds (unpadded base64) and the user id they
belong to; nothing else about the identity is kept, the server is asked.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

from unpaddedbase64 import decode_base64, encode_base64

from roombot.crosssign.keys import Identity, KeyFormatError, KeyPair, Usage

log = logging.getLogger("roombot.crosssign")

FORMAT = 1


class KeyStoreError(RuntimeError):
    """The key file exists but cannot be used; the message names the file and the fault."""


class KeyStore:
    def __init__(self, state_dir: Path) -> None:
        self.directory = Path(state_dir) / "cross-signing"
        self.path = self.directory / "keys.json"

    def exists(self) -> bool:
        return self.path.exists()

    def load(self, user_id: str) -> Identity | None:
        """The stored identity, or None when there is none. Raises KeyStoreError when unusable."""
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
            os.chmod(self.path, 0o600)
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
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.directory, 0o700)
        data = {
            "format": FORMAT,
            "user_id": identity.user_id,
            **{u.value: encode_base64(identity.pair(u).seed) for u in Usage},
        }
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(data, f, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o600)  # O_CREAT's mode is ignored when the file already existed
            os.replace(tmp, self.path)
        finally:
            if tmp.exists():
                tmp.unlink()
        dir_fd = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
