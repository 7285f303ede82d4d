"""How a reporter may reach the report API: the URL rule, the TLS context, the refusals' words.

The rule: `https://` is verified (the chain against the system's CAs or `ca_file`,
and the host name) and never loosened; plain `http://` goes only to loopback
(127.0.0.0/8, ::1, localhost) unless the caller says `insecure`, which is logged as
a warning. A URL is checked before any connection is made, so a refused one sends
no packet. The JS reporters (reporters/common/sender.js) keep the same rule.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import ssl
import urllib.parse
from pathlib import Path

log = logging.getLogger("roombot.report_client")

LOOPBACK_NAMES = frozenset({"localhost"})

# OpenSSL's verify codes (x509_vfy.h) for the refusals a reporter meets in practice.
_UNKNOWN_ISSUER = frozenset({2, 18, 19, 20, 21})
_EXPIRED = 10
_NOT_YET_VALID = 9
_NAME_MISMATCH = frozenset({62, 64})
# What OpenSSL says when the answer to a ClientHello is not TLS (a plain HTTP server).
_NOT_TLS = frozenset({"WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "HTTP_REQUEST"})


# The CA file every client reads when it is given none (PEM, one or more CAs).
CA_FILE_ENV = "ROOMBOT_CA_FILE"


def add_arguments(parser: argparse.ArgumentParser, url: str = "the URL") -> None:
    """`--ca-file` and `--insecure`, as every command that sends to the report API has them."""
    parser.add_argument(
        "--ca-file",
        type=Path,
        default=os.environ.get(CA_FILE_ENV),
        help=f"PEM file of the CA(s) to trust for an https:// {url} "
        f"(default: ${CA_FILE_ENV}, else the system's)",
    )
    parser.add_argument(
        "--insecure",
        action="store_true",
        help=f"allow a plain http:// {url} to a host other than loopback (token in the clear)",
    )


class CannotSend(ValueError):
    """Nothing will be sent: a refused URL or an unusable CA file; the message says which."""


def is_loopback(host: str) -> bool:
    host = host.strip("[]").rstrip(".").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: str, *, insecure: bool = False, warn: bool = True) -> urllib.parse.SplitResult:
    """The parsed URL when the rule allows it; CannotSend otherwise. Nothing is sent.

    `warn=False` for a check made ahead of the client that will send (and warn).
    """
    shown = repr(url) if "@" not in url else "(a URL holding credentials)"
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as e:
        raise CannotSend(f"not a URL: {shown} ({e})") from None
    if parts.scheme not in ("http", "https"):
        raise CannotSend(f"expected an https:// (or loopback http://) URL, got {shown}")
    if not host:
        raise CannotSend(f"the URL {shown} names no host")
    if parts.username is not None or parts.password is not None:
        # the token travels as a bearer header; one in the URL would end up in messages
        raise CannotSend(
            "the URL holds credentials (user@ or user:password@); give the token apart"
        )
    if parts.scheme == "http" and not is_loopback(host):
        if not insecure:
            raise CannotSend(
                f"plain http:// to a non-loopback host ({host}) would send the token and the "
                "reports in the clear: use https://, or --insecure to allow it anyway"
            )
        if warn:
            log.warning(
                "plain http:// to a non-loopback host (%s): the token and the reports cross "
                "the network unencrypted (--insecure)",
                host,
                extra={"host": host},
            )
    return parts


def client_context(ca_file: str | Path | None = None) -> ssl.SSLContext:
    """Verifying context: the system's CAs, or only those in `ca_file` (PEM) when given."""
    if ca_file is None:
        return ssl.create_default_context()
    path = Path(ca_file)
    try:
        pem = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as e:
        raise CannotSend(
            f"cannot read the CA file {path}: {getattr(e, 'strerror', None) or e}"
        ) from None
    try:
        return ssl.create_default_context(cadata=pem)
    except ssl.SSLError as e:
        raise CannotSend(
            f"the CA file {path} holds no usable PEM certificate: {e.reason or e}"
        ) from None


def explain(exc: BaseException, host: str) -> str | None:
    """The refusal in words when `exc` is a TLS refusal (never retried); None otherwise."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        code, detail = exc.verify_code, exc.verify_message
        if code in _UNKNOWN_ISSUER:
            return (
                f"{host}: the certificate is not signed by a CA we trust (unknown issuer; "
                f"wrong CA file?): {detail}"
            )
        if code == _EXPIRED:
            return f"{host}: the server's certificate has expired: {detail}"
        if code == _NOT_YET_VALID:
            return f"{host}: the server's certificate is not valid yet: {detail}"
        if code in _NAME_MISMATCH:
            return f"{host}: the certificate is for another host (host name mismatch): {detail}"
        return f"{host}: the server's certificate was refused: {detail}"
    if isinstance(exc, ssl.SSLError) and exc.reason in _NOT_TLS:
        return f"{host}: the server does not speak TLS on this port (is it plain http?)"
    # Any other TLS error (a handshake cut short by a restarting bot) is a transport
    # failure like a refused connection: retried.
    return None
