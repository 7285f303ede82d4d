"""roombot.logs: nio's expected warnings, records held until the format is known, crashes."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from roombot.logs import HeldLogs, quiet_expected
from roombot.observe import JsonFormatter

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def stream() -> Iterator[io.StringIO]:
    """The root logger writes JSON into a string for the test; logging as it was after."""
    root = logging.getLogger()
    nio = logging.getLogger("nio.crypto.log")
    saved = (root.handlers[:], root.level, nio.filters[:])
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG)
    try:
        yield out
    finally:
        root.handlers[:], level, nio.filters[:] = saved
        root.setLevel(level)
        logging.captureWarnings(False)


def lines(out: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_missing_session_becomes_one_debug_line_of_ours(stream: io.StringIO) -> None:
    quiet_expected()
    quiet_expected()  # twice, as a second setup would: still one filter
    nio = logging.getLogger("nio.crypto.log")
    nio.warning("Missing session for device ABCDEFGHIJ")
    nio.warning("Found matching session yet decryption failed for sender @a:b")
    got = [(r["level"], r["logger"], r["msg"]) for r in lines(stream)]
    assert got == [
        (
            "debug",
            "roombot.logs",
            "opening an encrypted channel to a member device that has none yet",
        ),
        # Anything else nio says still reaches the log as it said it.
        (
            "warning",
            "nio.crypto.log",
            "Found matching session yet decryption failed for sender @a:b",
        ),
    ]
    assert lines(stream)[0]["detail"] == "Missing session for device ABCDEFGHIJ"


def test_records_made_before_the_format_is_known_are_written_in_it(
    stream: io.StringIO,
) -> None:
    configured = logging.getLogger().handlers[:]
    logging.getLogger().handlers[:] = []  # as before setup_logging: nothing configured
    held = HeldLogs.start()
    logging.getLogger("roombot.config").warning("matrix.old_key is read for one release")
    warnings.warn("an old option", DeprecationWarning, stacklevel=1)
    assert stream.getvalue() == ""  # nothing written while the format is unknown
    logging.getLogger().handlers[:] = configured  # what setup_logging does
    held.release()
    got = [(r["logger"], str(r["msg"]).splitlines()[0]) for r in lines(stream)]
    assert got[0] == ("roombot.config", "matrix.old_key is read for one release")
    assert got[1][0] == "py.warnings" and "DeprecationWarning: an old option" in got[1][1]
    assert len(got) == 2
    held.release()  # a second release writes nothing again
    assert len(lines(stream)) == 2


CRASHES = """
import gc, logging, threading, warnings
from roombot.observe import setup_logging

setup_logging("info", "json")

class Leaky:
    def __del__(self):
        raise RuntimeError("in __del__")

Leaky()
gc.collect()
t = threading.Thread(target=lambda: 1 / 0, name="worker")
t.start()
t.join()
warnings.warn("a Python warning", UserWarning)
logging.getLogger("nio.rooms").info("a library's malformed message", "extra argument")
logging.getLogger("nio.rooms").warning("a library's malformed message", "extra argument")
raise SystemError("nobody caught this")
"""


def test_every_line_on_standard_error_is_json_even_for_crashes() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CRASHES)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env=env,
    )
    assert proc.returncode == 1
    records = [json.loads(line) for line in proc.stderr.splitlines()]  # each one JSON
    got = [(r["level"], r["logger"], str(r["msg"]).splitlines()[0]) for r in records]
    assert got[0][:2] == ("warning", "roombot.crash") and "Leaky" in got[0][2]
    assert got[1] == ("error", "roombot.crash", "uncaught exception in thread worker")
    assert got[2][:2] == ("warning", "py.warnings") and "a Python warning" in got[2][2]
    assert got[3] == (
        "warning",
        "nio.rooms",
        "a library's malformed message ('extra argument',)",
    )
    assert got[4] == ("critical", "roombot.crash", "uncaught exception: SystemError")
    assert len(got) == 5
    assert "RuntimeError: in __del__" in records[0]["exc"]
    assert "ZeroDivisionError" in records[1]["exc"]
    assert "SystemError: nobody caught this" in records[4]["exc"]
