"""What `roombot run` needs from this machine, looked at without changing anything.

The secrets it would read, the stored session (or what the first login needs),
the state directory (writable, owner-only: roombot.private_files), the files it
would create outside it, and the ports it would listen on. Nothing is created,
opened for writing or tightened here: a directory that does not exist yet is
judged by the one it would be created in, and a port by a socket bound and
closed at once.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

from roombot.check.finding import Finding
from roombot.config import Config, ConfigError, Secret
from roombot.private_files import DIR_MODE, FILE_MODE
from roombot.session import credentials_path, read_credentials

_OPEN_TO_OTHERS = stat.S_IRWXG | stat.S_IRWXO
_WRITABLE = os.W_OK | os.X_OK
_USABLE_DIR = os.R_OK | os.W_OK | os.X_OK


def source_key(secret: Secret) -> str:
    """The key that says where `secret` comes from: `matrix.password_file`, `..._env`."""
    return f"{secret.key}_{'file' if secret.file is not None else 'env'}"


def read_secret(secret: Secret, found: list[Finding]) -> str | None:
    """The secret, or None; a file that cannot be read is a finding."""
    try:
        return secret.get()
    except ConfigError as e:
        found.append(Finding(e.key, f"{e.problem}; make it readable by this user or fix the path"))
        return None


def stored_session(config: Config) -> dict[str, str] | None:
    """The session `run` would resume: credentials.json, when it is for the configured user."""
    creds = read_credentials(credentials_path(config.state_dir))
    if creds is None or creds.get("user_id") != config.matrix.user_id:
        return None
    return creds


def login(config: Config, session: dict[str, str] | None) -> list[Finding]:
    """Whatever `run` logs in with must be there: the session, an access token or a password."""
    found: list[Finding] = []
    m = config.matrix
    password = read_secret(m.password, found)
    token = read_secret(m.access_token, found)
    if m.access_token.env is not None and token is None:
        found.append(
            Finding(
                source_key(m.access_token),
                f"environment variable {m.access_token.env} is not set; export it, or remove "
                "the key to log in with the password",
            )
        )
    unreadable = m.password.file is not None and password is None  # said above
    if session is None and not token and not password and not unreadable:
        if m.password.file is not None:
            missing = "is empty; put the bot's password in it"
        else:
            missing = f"is not set; export {m.password.env} or set matrix.password_file"
        found.append(
            Finding(
                source_key(m.password),
                f"needed for the first login (no stored session in "
                f"{credentials_path(config.state_dir)}) but {m.password.describe()} {missing}",
            )
        )
    return found


def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _creatable(key: str, path: Path, what: str) -> Iterator[Finding]:
    """`path` does not exist: `run` would create it (and its parents) with mode 0700."""
    base = _nearest_existing(path.parent)
    if not base.is_dir():
        yield Finding(key, f"{what} {path} cannot be created: {base} is not a directory")
    elif not os.access(base, _WRITABLE):
        yield Finding(
            key,
            f"{what} {path} does not exist and {base} is not writable by uid {os.geteuid()}; "
            f"create it (mkdir -m 700 {path}, owned by the bot's user) or choose another path",
        )


def _mode_and_access(key: str, path: Path, st: os.stat_result) -> Iterator[Finding]:
    is_dir = stat.S_ISDIR(st.st_mode)
    mode = stat.S_IMODE(st.st_mode)
    wanted = DIR_MODE if is_dir else FILE_MODE
    if not os.access(path, _USABLE_DIR if is_dir else os.R_OK | os.W_OK):
        yield Finding(
            key,
            f"{path} is not writable by uid {os.geteuid()}; give it to the bot's user "
            f"(chown) with mode {wanted:o}",
        )
    if mode & _OPEN_TO_OTHERS:
        yield Finding(
            key,
            f"{path} has mode {mode:o}, open to other users; chmod {wanted:o} {path} "
            "(and if someone read it, treat its secrets as leaked)",
        )


def state_dir(config: Config) -> list[Finding]:
    """The state directory: writable, and it and all it holds for this user alone."""
    root = config.state_dir
    if not root.exists():
        return list(_creatable("state_dir", root, "the state directory"))
    if not root.is_dir():
        return [Finding("state_dir", f"{root} is not a directory; remove it or choose another")]
    found: list[Finding] = []
    for directory, dirs, files in os.walk(root):
        for name in (".", *dirs, *files):
            path = Path(directory) if name == "." else Path(directory) / name
            try:
                st = path.lstat()
            except FileNotFoundError:
                continue  # gone since it was listed (SQLite's -shm of a bot stopping)
            if stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode):
                found += _mode_and_access("state_dir", path, st)
    return found


def outside_files(config: Config) -> list[Finding]:
    """The SQLite files placed outside the state directory: where `run` would write them."""
    found: list[Finding] = []
    if config.store is not None:
        return found  # no SQLite file: everything is in PostgreSQL (roombot.check.store)
    for key, path in (("outbox.path", config.outbox.path), ("api.journal", config.api.journal)):
        if path.is_relative_to(config.state_dir):
            continue  # judged with the state directory
        if not path.exists():
            found += _creatable(key, path.parent / path.name, "the file")
        elif not path.is_file():
            found.append(Finding(key, f"{path} is not a file; fix the path"))
        else:
            found += _mode_and_access(key, path, path.lstat())
    return found


def _listen_problem(host: str, port: int) -> tuple[str, str] | None:
    """Why `run` could not listen on host:port, or None: ("host" or "port", what to do).

    Binds a socket and closes it at once.
    """
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        return "host", f"cannot resolve {host!r} ({e.strerror}); put an address of this machine"
    for family, kind, proto, _, address in addresses:
        with socket.socket(family, kind, proto) as s:
            # As asyncio's servers do, so a port in TIME_WAIT counts as free.
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(address)
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    return "port", (
                        f"{host}:{port} is in use by another process (a running roombot "
                        "holds its own); stop it or choose another port"
                    )
                if e.errno == errno.EACCES:
                    return "port", (
                        f"{host}:{port} needs privileges (a port below 1024); choose a port "
                        "above 1023"
                    )
                return "host", (
                    f"cannot listen on {host}:{port} ({e.strerror}); put an address of this machine"
                )
    return None


def ports(config: Config) -> list[Finding]:
    """The report API's and the metrics' ports: free, and not the same one."""
    found: list[Finding] = []
    api, metrics = config.api, config.metrics
    wanted = [("api", api.host, api.port), ("metrics", metrics.host, metrics.port)]
    if api.port and api.port == metrics.port:
        found.append(
            Finding("metrics.port", f"{metrics.port} is also api.port; give each its own port")
        )
        wanted.pop()
    for section, host, port in wanted:
        if not port:
            continue  # that listener is off
        problem = _listen_problem(host, port)
        if problem is not None:
            found.append(Finding(f"{section}.{problem[0]}", problem[1]))
    return found


def findings(config: Config, session: dict[str, str] | None) -> list[Finding]:
    return [
        *login(config, session),
        *state_dir(config),
        *outside_files(config),
        *ports(config),
    ]
