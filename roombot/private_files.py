"""Owner-only files: the state directory 0700, everything the bot keeps in it 0600.

Each file is created with its final mode (never readable by others for an
instant: `os.open` with the mode, which the umask can only narrow) and a
file or directory found open to group or others is tightened once, with one
log line naming it. The owners of the files call these helpers when they open
them: the Matrix shell (credentials, nio's crypto store), the key store
(cross-signing keys, the recovery key), the outbox and the journal (SQLite).
See docs/security.md for the list.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path

log = logging.getLogger("roombot.files")

DIR_MODE = 0o700
FILE_MODE = 0o600
_OPEN_TO_OTHERS = stat.S_IRWXG | stat.S_IRWXO
# SQLite's companions of a database file; it gives them the database's own mode.
SQLITE_SUFFIXES = ("-wal", "-shm", "-journal")


def tighten(path: Path) -> bool:
    """Take group and other bits off `path` if it has any; True when it had (and says so)."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(st.st_mode) or not st.st_mode & _OPEN_TO_OTHERS:
        return False  # a symlink's target is not ours to change
    was = stat.S_IMODE(st.st_mode)
    now = was & ~_OPEN_TO_OTHERS
    try:
        os.chmod(path, now)
    except OSError as e:
        log.error(
            "a state file is open to other users and its mode cannot be changed",
            extra={"path": str(path), "mode": oct(was), "error": str(e)},
        )
        return False
    log.warning(
        "a state file or directory was open to other users: tightened it (if someone "
        "read it, treat its secrets as leaked)",
        extra={"path": str(path), "mode_was": oct(was), "mode": oct(now)},
    )
    return True


def create_dirs(path: Path) -> Path:
    """Create `path` and its missing parents with mode 0700; leaves existing ones alone."""
    missing = []
    p = path
    while not p.exists():
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        with contextlib.suppress(FileExistsError):
            d.mkdir(mode=DIR_MODE)
    return path


def private_dir(path: Path) -> Path:
    """Create `path` with mode 0700 (its missing parents too), or tighten the one there."""
    create_dirs(path)
    tighten(path)
    return path


def settle(directory: Path) -> None:
    """Files another library just made in a private directory: 0600, without a word.

    They were never reachable by others (the directory is 0700); this is for
    the day the directory's mode is loosened.
    """
    for f in directory.iterdir():
        st = f.lstat()
        if stat.S_ISREG(st.st_mode) and st.st_mode & _OPEN_TO_OTHERS:
            os.chmod(f, stat.S_IMODE(st.st_mode) & ~_OPEN_TO_OTHERS)


def private_sqlite(path: Path) -> Path:
    """Make SQLite's database file 0600 before SQLite opens it; its WAL follows that mode."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        tighten(path)
    for suffix in SQLITE_SUFFIXES:
        tighten(path.with_name(path.name + suffix))
    return path


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_new(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def replace_private(path: Path, data: bytes) -> None:
    """Write `path` whole (temporary file 0600, fsync, rename): the old content or the new."""
    tmp = _temporary(path)
    tmp.unlink(missing_ok=True)  # left by a crash of this very pid number: never reuse it
    try:
        _write_new(tmp, data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)


def create_private(path: Path, data: bytes) -> None:
    """Write a new file `path` whole, mode 0600; FileExistsError if there is one already.

    Written to a temporary name and linked into place: `link` never replaces
    an existing file, so the check and the creation are one step.
    """
    tmp = _temporary(path)
    tmp.unlink(missing_ok=True)
    try:
        _write_new(tmp, data)
        os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)
