"""The byte relay: the harness's stdio, copied both ways, unchanged.

Three pump threads move bytes as the operating system hands them over (no
line buffering): client stdin -> agent stdin, agent stdout -> client stdout,
agent stderr -> client stderr (keeping a bounded tail for the exit report).
Each pump offers a copy to a `CopyQueue`, which never blocks: past its byte
budget it refuses, the pump counts the loss and tells the observer where the
gap is. A feeder thread writes the queued copies to the observer process,
so parsing JSON never competes with the relay for this interpreter's lock.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from roombot.acp import frames

READ_SIZE = 1 << 16
STDERR_TAIL = 8 * 1024


class CopyQueue:
    """A FIFO of frames bounded in bytes; `offer` never waits."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._items: collections.deque[bytes] = collections.deque()
        self._size = 0
        self._closed = False
        self._cond = threading.Condition()

    def offer(self, frame: bytes, *, force: bool = False) -> bool:
        with self._cond:
            if self._closed or (not force and self._size + len(frame) > self.limit):
                return False
            self._items.append(frame)
            self._size += len(frame)
            self._cond.notify()
            return True

    def take(self) -> bytes | None:
        """The next frame; None once closed and empty."""
        with self._cond:
            while not self._items and not self._closed:
                self._cond.wait()
            if not self._items:
                return None
            frame = self._items.popleft()
            self._size -= len(frame)
            return frame

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()


@dataclass
class RelayStats:
    bytes_in: int = 0  # client -> agent
    bytes_out: int = 0  # agent -> client
    dropped: dict[str, int] = field(default_factory=lambda: {"c": 0, "a": 0})  # copies lost


def write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except BlockingIOError:  # an inherited non-blocking descriptor: wait, never spin
            select.select([], [fd], [])
            continue
        view = view[n:]


class _Copier:
    """One direction's copies: offer them, and mark a gap after a refusal."""

    def __init__(self, queue: CopyQueue, tag: bytes, stats: RelayStats) -> None:
        self.queue, self.tag, self.stats = queue, tag, stats
        self.lost = False
        self.lost_at_line_end = False

    def copy(self, data: bytes, at: float) -> None:
        if self.lost:
            # Tell the observer whether the lost bytes ended a line: then the
            # next copy starts a fresh line and nothing more need be skipped.
            clean = b"\n" if self.lost_at_line_end else b""
            self.queue.offer(frames.encode(frames.GAP, at, self.tag + clean), force=True)
            self.lost = False
        if not self.queue.offer(frames.encode(self.tag, at, data)):
            self.lost = True
            self.lost_at_line_end = data.endswith(b"\n")
            self.stats.dropped[self.tag.decode()] += 1


class Relay:
    def __init__(
        self,
        cmd: Sequence[str],
        observer: subprocess.Popen[bytes] | None,
        *,
        queue_limit: int = 64 * 1024 * 1024,
        observer_grace: float = 30.0,
    ) -> None:
        self.observer_grace = observer_grace
        self.cmd = list(cmd)
        self.observer = observer
        self.queue = CopyQueue(queue_limit)
        self.stats = RelayStats()
        self._tail: collections.deque[bytes] = collections.deque()
        self._tail_size = 0
        self._tail_lock = threading.Lock()
        self.agent: subprocess.Popen[bytes] | None = None

    # -- pumps -----------------------------------------------------------------------

    def _pump_in(self, copier: _Copier) -> None:
        assert self.agent is not None and self.agent.stdin is not None
        dst: int | None = self.agent.stdin.fileno()
        while True:
            try:
                data = os.read(0, READ_SIZE)
            except OSError:
                data = b""
            if not data:
                break
            copier.copy(data, time.time())
            self.stats.bytes_in += len(data)
            if dst is not None:
                try:
                    write_all(dst, data)
                except OSError:  # the agent closed its stdin: keep reading, discard
                    dst = None
        # The client closed our stdin: the agent sees the same end of input.
        with contextlib.suppress(OSError):
            self.agent.stdin.close()

    def _pump_out(self, copier: _Copier) -> None:
        assert self.agent is not None and self.agent.stdout is not None
        src = self.agent.stdout.fileno()
        dst: int | None = 1
        while True:
            data = os.read(src, READ_SIZE)
            if not data:
                break
            copier.copy(data, time.time())
            self.stats.bytes_out += len(data)
            if dst is not None:
                try:
                    write_all(dst, data)
                except OSError:  # the client is gone: keep draining so the agent never blocks
                    dst = None
        # The agent's output ended: so does ours, now, not once the observer is done.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)

    def _pump_err(self) -> None:
        assert self.agent is not None and self.agent.stderr is not None
        src = self.agent.stderr.fileno()
        dst: int | None = 2
        while True:
            data = os.read(src, READ_SIZE)
            if not data:
                break
            with self._tail_lock:
                self._tail.append(data)
                self._tail_size += len(data)
                while self._tail_size - len(self._tail[0]) >= STDERR_TAIL:
                    self._tail_size -= len(self._tail.popleft())
            if dst is not None:
                try:
                    write_all(dst, data)
                except OSError:
                    dst = None

    def _feed_observer(self) -> None:
        fd = self.observer.stdin.fileno() if self.observer and self.observer.stdin else None
        while (frame := self.queue.take()) is not None:
            if fd is None:
                continue
            try:
                write_all(fd, frame)
            except OSError:  # the observer died: the relay goes on without it
                fd = None
        if self.observer is not None and self.observer.stdin is not None:
            with contextlib.suppress(OSError):
                self.observer.stdin.close()

    def stderr_tail(self) -> str:
        with self._tail_lock:
            tail = b"".join(self._tail)[-STDERR_TAIL:]
        return tail.decode("utf-8", "replace")

    # -- the run ---------------------------------------------------------------------

    def run(self, *, exit_grace: float = 5.0) -> int:
        """Relays until the harness has exited; returns its exit status (128+N for signal N)."""
        feeder = threading.Thread(target=self._feed_observer, name="acp-feeder", daemon=True)
        feeder.start()
        try:
            self.agent = subprocess.Popen(
                self.cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
            )
        except OSError as exc:
            print(f"roombot acp-proxy: cannot run {self.cmd[0]!r}: {exc}", file=sys.stderr)
            self._finish(127, str(exc), feeder)
            return 127
        self._forward_signals()
        pumps = [
            threading.Thread(
                target=self._pump_in,
                args=(_Copier(self.queue, frames.CLIENT, self.stats),),
                name="acp-in",
                daemon=True,
            ),
            threading.Thread(
                target=self._pump_out,
                args=(_Copier(self.queue, frames.AGENT, self.stats),),
                name="acp-out",
                daemon=True,
            ),
            threading.Thread(target=self._pump_err, name="acp-err", daemon=True),
        ]
        for t in pumps:
            t.start()
        code = self.agent.wait()
        # Relay what the agent wrote before it died; a grandchild holding the
        # pipe open must not keep us here forever.
        deadline = time.monotonic() + exit_grace
        for t in pumps[1:]:
            t.join(max(0.0, deadline - time.monotonic()))
        status = code if code >= 0 else 128 - code
        self._finish(status, self.stderr_tail(), feeder)
        return status

    def _finish(self, status: int, stderr: str, feeder: threading.Thread) -> None:
        payload = json.dumps({"code": status, "stderr": stderr}).encode()
        self.queue.offer(frames.encode(frames.EXIT, time.time(), payload), force=True)
        self.queue.close()
        feeder.join(self.observer_grace)
        if feeder.is_alive() and self.observer is not None:
            # A stuck observer must not hold the proxy: what it has not
            # written is lost (the spool keeps what it had taken in).
            print("roombot acp-proxy: the observer is stuck; stopping it", file=sys.stderr)
            self.observer.kill()
            feeder.join(1.0)

    def _forward_signals(self) -> None:
        def forward(signum: int, _frame: object) -> None:
            if self.agent is not None and self.agent.poll() is None:
                with contextlib.suppress(OSError):
                    self.agent.send_signal(signum)

        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(sig, forward)
