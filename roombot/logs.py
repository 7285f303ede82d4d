"""What reaches the log besides our own lines: library noise, early records, crashes.

The log is the operator's view of the bot, so every line in it is in the configured
format and means what it says:

- `quiet_expected()`: matrix-nio warns about things that happen in normal operation;
  those (listed in EXPECTED, each with why) become one debug line of ours instead.
  Nothing else nio says is touched.
- `HeldLogs`: records made before the configuration says which format to use (a
  deprecated key read while loading it) wait, and are written once it is known.
- `route_uncaught()`: an exception nobody caught (in the main thread, another thread,
  or a `__del__`) is a log record too, not a bare traceback on standard error.
"""

from __future__ import annotations

import logging
import sys
import threading
from dataclasses import dataclass
from types import TracebackType
from typing import Any

log = logging.getLogger("roombot.logs")


@dataclass(frozen=True, slots=True)
class Expected:
    """A library message that is no failure, and what it means in our words."""

    logger: str
    starts: str
    meaning: str


EXPECTED: tuple[Expected, ...] = (
    # Logged for each member device the bot has no Olm session with yet, right before
    # nio claims one of its one-time keys and opens one: the first encrypted notice to
    # every new device. A claim or send that then fails surfaces as a failed send,
    # which the outbox logs and retries.
    Expected(
        "nio.crypto.log",
        "Missing session for device ",
        "opening an encrypted channel to a member device that has none yet",
    ),
)


class _Explain(logging.Filter):
    def __init__(self, expected: tuple[Expected, ...]) -> None:
        super().__init__()
        self.expected = expected

    def filter(self, record: logging.LogRecord) -> bool:
        text = str(record.msg)
        for e in self.expected:
            if record.name == e.logger and text.startswith(e.starts):
                log.debug(e.meaning, extra={"library": record.name, "detail": text})
                return False
        return True


def quiet_expected(expected: tuple[Expected, ...] = EXPECTED) -> None:
    """Put the EXPECTED filter on each logger named there (idempotent)."""
    for name in sorted({e.logger for e in expected}):
        logger = logging.getLogger(name)
        logger.filters[:] = [f for f in logger.filters if not isinstance(f, _Explain)]
        logger.addFilter(_Explain(tuple(e for e in expected if e.logger == name)))


class _Hold(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class HeldLogs:
    """From `start()` until `release()`: the root logger keeps records instead of writing."""

    def __init__(self) -> None:
        self._hold = _Hold()

    @classmethod
    def start(cls) -> HeldLogs:
        held = cls()
        logging.getLogger().addHandler(held._hold)
        logging.captureWarnings(True)  # a Python warning waits with them
        return held

    def release(self) -> None:
        """Hand the held records to the root logger's handlers as they are now (the
        configured ones, or Python's last-resort stderr writer when none is set)."""
        root = logging.getLogger()
        if self._hold in root.handlers:
            root.removeHandler(self._hold)
        records, self._hold.records = self._hold.records, []
        for record in records:
            if record.levelno >= root.getEffectiveLevel():
                if root.handlers:
                    root.callHandlers(record)
                elif logging.lastResort is not None:
                    logging.lastResort.handle(record)


_crash = logging.getLogger("roombot.crash")


def route_uncaught() -> None:
    """Uncaught exceptions and unraisable ones (a failing `__del__`) become log records."""

    def main_thread(
        kind: type[BaseException], value: BaseException, tb: TracebackType | None
    ) -> None:
        _crash.critical("uncaught exception: %s", kind.__name__, exc_info=(kind, value, tb))

    def other_thread(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "?"
        exc: Any = (args.exc_type, args.exc_value, args.exc_traceback)
        _crash.error("uncaught exception in thread %s", name, exc_info=exc)

    def unraisable(u: Any) -> None:
        exc: Any = (u.exc_type, u.exc_value, u.exc_traceback)
        where = u.err_msg or "Exception ignored in"
        _crash.warning("%s: %r", where, u.object, exc_info=exc)

    sys.excepthook = main_thread
    threading.excepthook = other_thread
    sys.unraisablehook = unraisable
