"""Owner-only files: made with their mode whatever the umask, tightened once, never replaced."""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from roombot.private_files import (
    create_dirs,
    create_private,
    private_dir,
    private_sqlite,
    replace_private,
    tighten,
)


def mode(p: Path) -> int:
    return stat.S_IMODE(p.lstat().st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """umask 0: a mode that is not given explicitly shows up as world-readable."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def test_files_get_their_mode_from_creation_not_the_umask(tmp_path: Path, open_umask: None) -> None:
    d = private_dir(tmp_path / "a" / "state")
    assert mode(d) == 0o700 and mode(d.parent) == 0o700
    create_private(d / "new", b"secret")
    replace_private(d / "whole", b"one")
    assert mode(d / "new") == 0o600 and mode(d / "whole") == 0o600
    assert sorted(p.name for p in d.iterdir()) == ["new", "whole"]  # no temporary left


def test_sqlite_and_its_wal_are_owner_only(tmp_path: Path, open_umask: None) -> None:
    db_path = private_sqlite(create_dirs(tmp_path / "s") / "x.sqlite3")
    db = sqlite3.connect(db_path)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE t (x)")
        db.execute("INSERT INTO t VALUES (1)")
        db.commit()
        made = sorted(p.name for p in db_path.parent.iterdir())
        assert made == ["x.sqlite3", "x.sqlite3-shm", "x.sqlite3-wal"]
        assert all(mode(db_path.parent / n) == 0o600 for n in made)
    finally:
        db.close()


def test_create_private_never_replaces(tmp_path: Path) -> None:
    path = tmp_path / "recovery"
    create_private(path, b"first")
    with pytest.raises(FileExistsError):
        create_private(path, b"second")
    assert path.read_bytes() == b"first"
    assert [p.name for p in tmp_path.iterdir()] == ["recovery"]


def test_replace_private_tightens_what_it_replaces(tmp_path: Path) -> None:
    path = tmp_path / "credentials.json"
    path.write_text("old")
    path.chmod(0o644)
    replace_private(path, b"new")
    assert path.read_text() == "new" and mode(path) == 0o600


def test_tighten_says_so_once_and_leaves_symlinks(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    f = tmp_path / "keys"
    f.write_text("k")
    f.chmod(0o664)
    outside = tmp_path / "outside"
    outside.write_text("not ours")
    outside.chmod(0o644)
    link = tmp_path / "link"
    link.symlink_to(outside)
    with caplog.at_level(logging.WARNING, logger="roombot.files"):
        assert tighten(f) is True
        assert tighten(f) is False
        assert tighten(link) is False
        assert tighten(tmp_path / "missing") is False
    assert mode(f) == 0o600 and mode(outside) == 0o644
    (record,) = caplog.records
    assert record.path == str(f) and record.mode_was == "0o664" and record.mode == "0o600"  # type: ignore[attr-defined]
