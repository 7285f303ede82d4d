"""Configs for the `roombot run --check` tests, and the command run in this process."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from roombot.cli import main

TOKEN = "a-report-api-token-0123456789"


def write_config(
    directory: Path,
    *,
    homeserver: str,
    user_id: str = "@bot:localhost",
    rooms: tuple[str, ...] = ("!abcdefghij:localhost",),
    api_port: int = 0,
    metrics_port: int = 0,
    password: str | None = "a password",
    extra: str = "",
    name: str = "roombot.toml",
) -> Path:
    """A file `run` would start from (with the password in a file beside it, when given)."""
    directory.mkdir(parents=True, exist_ok=True)
    if password is not None:
        (directory / "password").write_text(password + "\n")
    room_tables = "".join(f'[[rooms]]\nroom = "{r}"\n' for r in rooms)
    password_key = 'password_file = "password"' if password is not None else ""
    text = f"""state_dir = "state"
[matrix]
homeserver = "{homeserver}"
user_id = "{user_id}"
{password_key}
request_timeout = 10
{room_tables}
[metrics]
port = {metrics_port}
[api]
port = {api_port}
[[api.sources]]
name = "acp-proxy"
token_env = "ROOMBOT_API_TOKEN"
rooms = ["*"]
{extra}
"""
    path = directory / name
    path.write_text(text)
    return path


def check(capsys: pytest.CaptureFixture[str], path: Path, *flags: str) -> tuple[int, list[str]]:
    """`roombot run -c PATH --check FLAGS...`: the exit status and the problem lines.

    Each problem line is returned without its `roombot: PATH: ` prefix; the
    closing count line is checked here and left out.
    """
    capsys.readouterr()
    rc = main(["run", "-c", str(path), "--check", *flags])
    out, err = capsys.readouterr()
    lines = err.splitlines()
    prefix = f"roombot: {path}: "
    assert all(line.startswith(prefix) for line in lines), err
    lines = [line.removeprefix(prefix) for line in lines]
    if rc == 0:
        assert lines == [] and "valid" in out, (out, err)
        return rc, lines
    assert lines[-1] == f"{len(lines) - 1} problem(s)", err
    return rc, lines[:-1]


def keys(lines: list[str]) -> list[str]:
    return [line.partition(": ")[0] for line in lines]


@contextlib.contextmanager
def unwritable(directory: Path) -> Iterator[None]:
    """`directory` not writable by this process, whoever it runs as.

    A user other than root: mode 0500. Root ignores modes, so for root the
    directory is made immutable (chattr +i), which root's writes obey too.
    """
    if os.geteuid() != 0:
        directory.chmod(0o500)
        try:
            yield
        finally:
            directory.chmod(0o700)
        return
    chattr = shutil.which("chattr")
    if chattr is None:
        pytest.fail("running as root without chattr: cannot make a directory unwritable")
    done = subprocess.run([chattr, "+i", str(directory)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"running as root, chattr +i failed here: {done.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(directory)], check=True)
