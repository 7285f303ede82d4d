"""HTTPS for the report API: the server's certificate, checked at load and reloaded on SIGHUP.

`ServerCert(cert_file, key_file)` loads the pair into an SSL context the site serves
with. `reload()` loads the files again into a fresh context and, only when that one
is whole, makes it the one new connections get; a pair that fails to load leaves the
old one serving. The switch happens in the SNI callback, which OpenSSL calls at every
handshake, with or without a server name, so no listener is restarted.
"""

from __future__ import annotations

import hashlib
import logging
import ssl
from pathlib import Path

log = logging.getLogger("roombot.api")


class TlsError(Exception):
    """A certificate or key that cannot serve: the message says why, `part` which file."""

    def __init__(self, message: str, part: str = "cert") -> None:
        super().__init__(message)
        self.part = part  # "cert" or "key": the file at fault


def _no_passphrase() -> bytes:
    # Called by OpenSSL only for an encrypted key; without this it would prompt on the tty.
    raise TlsError("the key file is encrypted; give an unencrypted key (mode 0600)", "key")


def _read(path: Path, part: str) -> bytes:
    what = "certificate file" if part == "cert" else "key file"
    try:
        return path.read_bytes()
    except OSError as e:
        raise TlsError(f"cannot read the {what} {path}: {e.strerror or e}", part) from None


def fingerprint(cert_file: Path) -> str:
    """SHA-256 of the first certificate in a PEM file, as hex: what a log line names."""
    text = _read(cert_file, "cert").decode("ascii", "replace")
    begin, end = "-----BEGIN CERTIFICATE-----", "-----END CERTIFICATE-----"
    start = text.find(begin)
    stop = text.find(end, start)
    if start < 0 or stop < 0:
        raise TlsError(f"{cert_file} holds no PEM certificate")
    try:
        der = ssl.PEM_cert_to_DER_cert(text[start : stop + len(end)])
    except ValueError as e:
        raise TlsError(f"{cert_file}: not a PEM certificate: {e}") from None
    return hashlib.sha256(der).hexdigest()


def server_context(cert_file: Path, key_file: Path) -> ssl.SSLContext:
    """A server context holding this pair, or TlsError saying what is wrong with it."""
    _read(cert_file, "cert")
    if b"PRIVATE KEY-----" not in _read(key_file, "key"):
        raise TlsError(f"{key_file} holds no PEM private key", "key")
    fingerprint(cert_file)  # a file that is not a PEM certificate gets its own word
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(cert_file, key_file, password=_no_passphrase)
    except ssl.SSLError as e:
        if e.reason == "KEY_VALUES_MISMATCH":
            raise TlsError(
                f"the key {key_file} does not match the certificate {cert_file}", "key"
            ) from None
        raise TlsError(
            f"cannot load the certificate {cert_file} with the key {key_file}: "
            f"{e.reason or e} (expected PEM files)"
        ) from None
    return ctx


class ServerCert:
    """The live certificate of a listener; `context` is what the site serves with."""

    def __init__(self, cert_file: Path, key_file: Path) -> None:
        self.cert_file, self.key_file = cert_file, key_file
        self._current = server_context(cert_file, key_file)
        self.fingerprint = fingerprint(cert_file)
        self.context = self._current
        self.context.sni_callback = self._choose

    def _choose(self, conn: ssl.SSLObject, _name: str | None, _ctx: ssl.SSLContext) -> None:
        if self._current is not self.context:
            conn.context = self._current

    def reload(self) -> bool:
        """Load the files again; True when new connections now get them. One log line."""
        try:
            fresh = server_context(self.cert_file, self.key_file)
            sha = fingerprint(self.cert_file)
        except TlsError as e:
            log.error(
                "report API certificate not reloaded; the old one is still served",
                extra={"reason": str(e), "sha256": self.fingerprint},
            )
            return False
        self._current, self.fingerprint = fresh, sha
        log.info(
            "report API certificate reloaded",
            extra={"cert_file": str(self.cert_file), "sha256": sha},
        )
        return True
