"""The bot's cross-signing step at start: bootstrap the first time, check every time after.

Called by the Matrix shell once the device has uploaded its keys. It never
stops the bot: a problem is logged as an error in plain words with the
command that repairs it, and the bot goes on posting (clients that enforce
cross-signing will hide its notices until the operator acts).

The recovery key of a new identity never goes to the log: it is in the
recovery file (0600), which one log line names; the key itself is shown only
on a terminal, never on a standard error that a log system keeps.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from roombot.crosssign.api import CrossSigningApiError, KeysApi
from roombot.crosssign.assess import Assessment
from roombot.crosssign.keys import Usage, fingerprint
from roombot.crosssign.manage import Bootstrapper, Mode, RefusedError, Result, advice
from roombot.crosssign.store import KeyStore, KeyStoreError

log = logging.getLogger("roombot.crosssign")


def recovery_key_text(key: str, user_id: str, master: str, path: Path) -> str:
    """What a terminal shows of a new identity: the key, and the file that holds it."""
    return (
        "\n"
        f"roombot: created the cross-signing identity of {user_id}\n"
        f"  master key (what people verify): {fingerprint(master)}\n"
        f"  recovery key (store it offline, it restores this identity):\n"
        f"    {key}\n"
        f"  It is also in {path} (mode 0600): move that file offline, then delete it there.\n"
        f"  Restore with: roombot crypto bootstrap -c CONFIG --recovery-key-file {path}\n"
    )


def on_a_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except ValueError:  # closed
        return False


def announce_recovery_file(result: Result, out: TextIO) -> None:
    """One log line naming the new recovery file; the key itself only on a terminal."""
    if result.recovery_file is None or result.after.local is None:
        return
    master = result.after.local.master.public
    key = result.recovery_key
    shown = key is not None and on_a_terminal(out)
    if key is not None and shown:
        text = recovery_key_text(key, result.after.user_id, master, result.recovery_file)
        print(text, file=out, flush=True)
    log.warning(
        "cross-signing: created a new identity; its recovery key is in the file named here "
        "(mode 0600): move it offline, then delete it there",
        extra={
            "recovery_key_file": str(result.recovery_file),
            "master_key": master,
            "shown_on_terminal": shown,
        },
    )


async def at_start(
    *,
    homeserver: str,
    user_id: str,
    device_id: str,
    access_token: str,
    state_dir: Path,
    password: Callable[[], str | None],
    timeout: float = 30.0,
    out: TextIO | None = None,
) -> Assessment | None:
    """Bootstrap or check; returns the final assessment (None when it could not be made)."""
    store = KeyStore(state_dir)
    async with KeysApi(homeserver, user_id, device_id, access_token, timeout=timeout) as api:
        try:
            result = await Bootstrapper(api, store, password).run(Mode.START)
        except RefusedError as e:
            try:
                a = await Bootstrapper(api, store, password).check()
            except (CrossSigningApiError, KeyStoreError):
                a = None
            log.error(
                "cross-signing: %s. %s",
                e,
                advice(a) if a is not None else "",
                extra={"device_id": device_id},
            )
            return a
        except (CrossSigningApiError, KeyStoreError) as e:
            log.error(
                "cross-signing could not be checked or set up: %s; clients that enforce "
                "cross-signing may hide the bot's notices",
                e,
                extra={"device_id": device_id},
            )
            return None
    after = result.after
    announce_recovery_file(result, out or sys.stderr)
    if result.recovery_file is None and store.recovery_file_exists():
        log.warning(
            "cross-signing: the recovery key file is still in the state directory, where it "
            "is lost with the keys it backs up: move it offline",
            extra={"recovery_key_file": str(store.recovery_path)},
        )
    for action in result.actions:
        log.info("cross-signing: %s", action, extra={"device_id": device_id})
    if after.ok:
        log.info(
            "cross-signing: device is signed by the bot's identity",
            extra={
                "device_id": device_id,
                "master_key": after.server_public(Usage.MASTER),
            },
        )
    else:
        log.error(
            "cross-signing: %s. %s", after.problem, advice(after), extra={"device_id": device_id}
        )
    return after
