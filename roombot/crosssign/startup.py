"""The bot's cross-signing step at start: bootstrap the first time, check every time after.

Called by the Matrix shell once the device has uploaded its keys. It never
stops the bot: a problem is logged as an error in plain words with the
command that repairs it, and the bot goes on posting (clients that enforce
cross-signing will hide its notices until the operator acts).
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
from roombot.crosssign.manage import Bootstrapper, Mode, RefusedError, advice
from roombot.crosssign.store import KeyStore, KeyStoreError

log = logging.getLogger("roombot.crosssign")


def recovery_key_text(key: str, user_id: str, master: str) -> str:
    """The one-time message that carries the recovery key."""
    return (
        "\n"
        f"roombot: created the cross-signing identity of {user_id}\n"
        f"  master key (what people verify): {fingerprint(master)}\n"
        f"  recovery key (shown ONCE; store it offline, it restores this identity):\n"
        f"    {key}\n"
        "  Restore with: roombot crypto bootstrap -c CONFIG --recovery-key-file FILE\n"
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
    if result.recovery_key is not None and after.local is not None:
        print(
            recovery_key_text(result.recovery_key, user_id, after.local.master.public),
            file=out or sys.stderr,
            flush=True,
        )
        log.warning(
            "cross-signing: a new identity was created; its recovery key was printed once "
            "on standard error",
            extra={"master_key": after.local.master.public},
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
