"""A throwaway PostgreSQL cluster, for tests and benches: Debian's server binaries,
a data directory and a Unix socket in one temporary directory, no TCP port.

`initdb` refuses to run as root, so as root the cluster belongs to the `postgres`
user that Debian's package creates; its socket directory is open to the caller.
`stop()` and `start()` keep the data, so a test can restart the server mid-burst.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import quote

_BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


class ClusterError(RuntimeError):
    """The server binaries are missing, or the cluster would not start."""


def _binary(name: str) -> str:
    for d in _BIN_DIRS:
        if (d / name).exists():
            return str(d / name)
    found = shutil.which(name)
    if found is None:
        raise ClusterError(
            f"{name} not found: install Debian's postgresql package (`make postgres`)"
        )
    return found


class PgCluster:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"
        self.sock = root / "sock"
        self._owner: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            try:
                self._owner = pwd.getpwnam("postgres")
            except KeyError:
                raise ClusterError("running as root and there is no postgres user") from None

    @classmethod
    def temporary(cls) -> PgCluster:
        root = Path(tempfile.mkdtemp(prefix="roombot-pg-"))
        root.chmod(0o755)
        return cls(root)

    @classmethod
    @contextlib.contextmanager
    def started(cls) -> Iterator[PgCluster]:
        """A temporary cluster, started; stopped and removed when the block ends."""
        cluster = cls.temporary()
        try:
            cluster.start()
            yield cluster
        finally:
            cluster.cleanup()

    def _run(self, argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        cmd = list(argv)
        if self._owner is not None:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)

    def _must(self, argv: Sequence[str]) -> None:
        done = self._run(argv)
        if done.returncode != 0:
            raise ClusterError(f"{argv[0]} failed: {done.stderr.strip() or done.stdout.strip()}")

    def init(self) -> None:
        self.sock.mkdir(exist_ok=True)
        if self._owner is not None:
            for p in (self.root, self.sock):
                os.chown(p, self._owner.pw_uid, self._owner.pw_gid)
        self.sock.chmod(0o755)
        self._must(
            [_binary("initdb"), "-D", str(self.data), "-U", "roombot", "-A", "trust",
             "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]
        )  # fmt: skip

    def start(self) -> None:
        if not self.data.exists():
            self.init()
        opts = (
            f"-k {self.sock} -c listen_addresses='' -c max_connections=200 -c shared_buffers=32MB"
        )
        self._must(
            [_binary("pg_ctl"), "-D", str(self.data), "-l", str(self.root / "log"),
             "-o", opts, "-w", "-t", "60", "start"]
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        self._run([_binary("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"])

    def running(self) -> bool:
        done = self._run([_binary("pg_ctl"), "-D", str(self.data), "status"])
        return done.returncode == 0

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://roombot@/{database}?host={quote(str(self.sock), safe='/')}"

    def create_database(self, name: str) -> str:
        """A new, empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def cleanup(self) -> None:
        with contextlib.suppress(Exception):
            if self.data.exists():
                self.stop("immediate")
        for _ in range(3):
            shutil.rmtree(self.root, ignore_errors=True)
            if not self.root.exists():
                return
            time.sleep(0.2)
