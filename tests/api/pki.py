"""A throwaway CA for the TLS tests (trustme) and what they read off a served certificate."""

from __future__ import annotations

import datetime as dt
import hashlib
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path

import trustme


@dataclass(frozen=True)
class Pki:
    """A CA of the test's own, its PEM file, and leaf certificates written beside it."""

    dir: Path
    ca: trustme.CA
    ca_file: Path

    def leaf(
        self,
        name: str,
        *hosts: str,
        not_before: dt.datetime | None = None,
        not_after: dt.datetime | None = None,
    ) -> tuple[Path, Path]:
        cert = self.ca.issue_cert(*hosts, not_before=not_before, not_after=not_after)
        cert_file, key_file = self.dir / f"{name}.crt", self.dir / f"{name}.key"
        cert_file.write_bytes(b"".join(p.bytes() for p in cert.cert_chain_pems))
        cert.private_key_pem.write_to_path(str(key_file))
        key_file.chmod(0o600)
        return cert_file, key_file

    def expired(self, name: str, *hosts: str) -> tuple[Path, Path]:
        """A leaf whose validity ended yesterday (OpenSSL serves it; clients must refuse it)."""
        day = dt.timedelta(days=1)
        now = dt.datetime.now(dt.UTC)
        return self.leaf(name, *hosts, not_before=now - 3 * day, not_after=now - day)


def make_pki(where: Path) -> Pki:
    where.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA()
    ca_file = where / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    return Pki(where, ca, ca_file)


def sha256_of(cert_file: Path) -> str:
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(cert_file.read_text())).hexdigest()


def served_sha256(port: int, ca_file: Path) -> str:
    """The certificate a new, verified connection to 127.0.0.1:port is given."""
    ctx = ssl.create_default_context(cafile=str(ca_file))
    with (
        socket.create_connection(("127.0.0.1", port), timeout=5) as raw,
        ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
    ):
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return hashlib.sha256(der).hexdigest()
