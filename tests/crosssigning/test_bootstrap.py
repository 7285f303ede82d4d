"""Bootstrap and checks against the real Synapse of the tests; signatures checked by hand."""

from __future__ import annotations

import copy
import io
import logging
import stat
from pathlib import Path

import nacl.exceptions
import pytest

from roombot.crosssign.api import CrossSigningApiError
from roombot.crosssign.assess import State
from roombot.crosssign.keys import Identity, Usage
from roombot.crosssign.manage import Mode, RefusedError
from roombot.crosssign.recovery import key_from_file_text
from roombot.crosssign.startup import at_start
from roombot.crosssign.store import KeyStore
from roombot.devserver import DevServer
from tests.conftest import unique_name
from tests.crosssigning.helpers import (
    BotDevice,
    bot_device,
    check_signature,
    only_key,
    query_as,
)


async def start(dev: BotDevice, out: io.StringIO | None = None) -> object:
    return await at_start(
        homeserver=dev.client.homeserver,
        user_id=dev.user.user_id,
        device_id=dev.device_id,
        access_token=dev.client.access_token,
        state_dir=dev.state_dir,
        password=lambda: dev.user.password,
        out=out,
    )


def stored_seed(dev: BotDevice, user_id: str) -> bytes:
    stored = KeyStore(dev.state_dir).load(user_id)
    assert stored is not None
    return stored.master.seed


async def test_second_client_sees_a_cross_signed_device(synapse: DevServer, tmp_path: Path) -> None:
    bot = synapse.register_user(unique_name("bot"))
    other = synapse.register_user(unique_name("alice"))
    dev = await bot_device(synapse, bot, tmp_path / "state")
    try:
        # Before: the device is there, not cross-signed.
        before = query_as(synapse, other, bot.user_id)
        assert bot.user_id not in before.get("master_keys", {})
        out = io.StringIO()
        a = await start(dev, out)
        assert getattr(a, "state", None) is State.OK

        answer = query_as(synapse, other, bot.user_id)
        master = answer["master_keys"][bot.user_id]
        ssk = answer["self_signing_keys"][bot.user_id]
        device = answer["device_keys"][bot.user_id][dev.device_id]
        assert master["usage"] == ["master"] and master["user_id"] == bot.user_id
        assert ssk["usage"] == ["self_signing"] and ssk["user_id"] == bot.user_id
        assert bot.user_id not in answer.get("user_signing_keys", {})  # only its owner sees it
        master_id, master_pub = only_key(master)
        ssk_id, ssk_pub = only_key(ssk)
        # Every signature, checked here with Ed25519 over canonical JSON.
        check_signature(ssk, bot.user_id, master_id, master_pub)
        check_signature(device, bot.user_id, ssk_id, ssk_pub)
        device_pub = device["keys"][f"ed25519:{dev.device_id}"]
        check_signature(device, bot.user_id, f"ed25519:{dev.device_id}", device_pub)
        # ... and tampering breaks them.
        forged = copy.deepcopy(ssk)
        sig = forged["signatures"][bot.user_id][master_id]
        forged["signatures"][bot.user_id][master_id] = ("A" if sig[0] != "A" else "B") + sig[1:]
        with pytest.raises(nacl.exceptions.BadSignatureError):
            check_signature(forged, bot.user_id, master_id, master_pub)
        moved = copy.deepcopy(device)
        moved["device_id"] = "SOMEONEELSE"
        with pytest.raises(nacl.exceptions.BadSignatureError):
            check_signature(moved, bot.user_id, ssk_id, ssk_pub)
        with pytest.raises(nacl.exceptions.BadSignatureError):
            check_signature(device, bot.user_id, ssk_id, master_pub)  # wrong key

        # The owner sees its user-signing key, signed by the master key too.
        own = await dev.query()
        usk = own["user_signing_keys"][bot.user_id]
        check_signature(usk, bot.user_id, master_id, master_pub)

        # The private keys: owner-only, and the recovery file holds the master seed.
        store = KeyStore(dev.state_dir)
        assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
        assert stat.S_IMODE(store.directory.stat().st_mode) == 0o700
        assert stat.S_IMODE(store.recovery_path.stat().st_mode) == 0o600
        stored = store.load(bot.user_id)
        assert stored is not None and stored.master.public == master_pub
        assert key_from_file_text(store.recovery_path.read_text()) == stored.master.seed
        assert out.getvalue() == ""  # not a terminal: the key is in the file only
    finally:
        await dev.client.close()


async def test_later_starts_keep_the_identity_and_print_nothing(
    synapse: DevServer, tmp_path: Path
) -> None:
    bot = synapse.register_user(unique_name("bot"))
    dev = await bot_device(synapse, bot, tmp_path / "state")
    try:
        first = io.StringIO()
        await start(dev, first)
        master = (await dev.query())["master_keys"][bot.user_id]
        for _ in range(2):
            out = io.StringIO()
            a = await start(dev, out)
            assert getattr(a, "state", None) is State.OK
            assert out.getvalue() == ""  # nothing is printed after the first start
        async with dev.api() as api:
            result = await dev.bootstrapper(api).run(Mode.ON_DEMAND)
            assert result.actions == []
            assert result.recovery_key is None
            assert api.uia_rounds == 0
        assert (await dev.query())["master_keys"][bot.user_id] == master
    finally:
        await dev.client.close()


async def test_a_new_device_of_the_same_bot_gets_signed(synapse: DevServer, tmp_path: Path) -> None:
    """The bot logs in again (new device, same state dir): same identity, new device signed."""
    bot = synapse.register_user(unique_name("bot"))
    dev = await bot_device(synapse, bot, tmp_path / "state")
    await start(dev)
    master = (await dev.query())["master_keys"][bot.user_id]
    await dev.client.close()
    dev2 = await bot_device(synapse, bot, tmp_path / "state2")
    try:
        (tmp_path / "state" / "cross-signing").rename(tmp_path / "state2" / "cross-signing")
        assert dev2.device_id != dev.device_id
        a = await start(dev2)
        assert getattr(a, "state", None) is State.OK
        answer = await dev2.query()
        assert answer["master_keys"][bot.user_id] == master
        _, ssk_pub = only_key(answer["self_signing_keys"][bot.user_id])
        device = answer["device_keys"][bot.user_id][dev2.device_id]
        check_signature(device, bot.user_id, f"ed25519:{ssk_pub}", ssk_pub)
    finally:
        await dev2.client.close()


async def test_a_foreign_identity_is_reported_never_replaced_unasked(
    synapse: DevServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bot = synapse.register_user(unique_name("bot"))
    dev = await bot_device(synapse, bot, tmp_path / "state")
    try:
        await start(dev)
        ours = KeyStore(dev.state_dir).load(bot.user_id)
        assert ours is not None
        # Someone logs in as the bot elsewhere and resets cross-signing: that needs the
        # password (user-interactive auth), which the API answers.
        foreign = Identity.generate(bot.user_id)
        async with dev.api() as api:
            await api.upload_signing_keys(foreign.upload_body(), lambda: bot.password)
            assert api.uia_rounds == 1
        with caplog.at_level(logging.ERROR, logger="roombot.crosssign"):
            a = await start(dev)
        assert getattr(a, "state", None) is State.IDENTITY_DIFFERS
        said = caplog.text
        assert foreign.master.public in said and ours.master.public in said
        assert "--replace-identity" in said
        server = (await dev.query())["master_keys"][bot.user_id]
        assert only_key(server)[1] == foreign.master.public  # left alone

        async with dev.api() as api:
            with pytest.raises(RefusedError, match="different cross-signing identity"):
                await dev.bootstrapper(api).run(Mode.ON_DEMAND)
            # The first identity's recovery file is in the way: never overwritten.
            store = KeyStore(dev.state_dir)
            first_file = store.recovery_path.read_text()
            with pytest.raises(RefusedError, match="holds a recovery key"):
                await dev.bootstrapper(api).run(Mode.ON_DEMAND, replace_identity=True)
            assert store.recovery_path.read_text() == first_file
            store.recovery_path.unlink()  # the operator moved it offline
            result = await dev.bootstrapper(api).run(Mode.ON_DEMAND, replace_identity=True)
            assert api.uia_rounds == 1  # replacing asks for the password
        assert result.after.state is State.OK, result.after.problem
        assert result.recovery_key is not None  # a new identity, with its recovery file
        assert result.recovery_file == store.recovery_path
        assert key_from_file_text(store.recovery_path.read_text()) == stored_seed(dev, bot.user_id)
        server = (await dev.query())["master_keys"][bot.user_id]
        assert only_key(server)[1] not in (ours.master.public, foreign.master.public)
        stored = KeyStore(dev.state_dir).load(bot.user_id)
        assert stored is not None and only_key(server)[1] == stored.master.public
    finally:
        await dev.client.close()


async def test_wrong_password_is_said_plainly(synapse: DevServer, tmp_path: Path) -> None:
    bot = synapse.register_user(unique_name("bot"))
    dev = await bot_device(synapse, bot, tmp_path / "state")
    try:
        await start(dev)
        async with dev.api() as api:
            with pytest.raises(CrossSigningApiError, match="refused the bot's password"):
                await api.upload_signing_keys(
                    Identity.generate(bot.user_id).upload_body(), lambda: "wrong"
                )
            with pytest.raises(CrossSigningApiError, match="none is configured"):
                await api.upload_signing_keys(
                    Identity.generate(bot.user_id).upload_body(), lambda: None
                )
        a = await start(dev)
        assert getattr(a, "state", None) is State.OK  # nothing was replaced
    finally:
        await dev.client.close()


async def test_lost_state_restored_from_the_recovery_key(
    synapse: DevServer, tmp_path: Path
) -> None:
    bot = synapse.register_user(unique_name("bot"))
    dev = await bot_device(synapse, bot, tmp_path / "state")
    try:
        await start(dev)
        store = KeyStore(dev.state_dir)
        seed = key_from_file_text(store.recovery_path.read_text())
        master = (await dev.query())["master_keys"][bot.user_id]
        store.path.unlink()  # the state directory's keys are lost

        a = await start(dev)
        assert getattr(a, "state", None) is State.KEYS_MISSING
        assert not store.exists()  # nothing was made up in their place

        async with dev.api() as api:
            with pytest.raises(RefusedError, match="is for master key"):
                await dev.bootstrapper(api).run(Mode.ON_DEMAND, recovery_seed=bytes(32))
            result = await dev.bootstrapper(api).run(Mode.ON_DEMAND, recovery_seed=seed)
        assert result.after.state is State.OK
        after = await dev.query()
        assert after["master_keys"][bot.user_id] == master  # same identity: nobody re-verifies
        _, ssk_pub = only_key(after["self_signing_keys"][bot.user_id])
        check_signature(after["self_signing_keys"][bot.user_id], bot.user_id, *only_key(master))
        check_signature(
            after["device_keys"][bot.user_id][dev.device_id],
            bot.user_id,
            f"ed25519:{ssk_pub}",
            ssk_pub,
        )
        restored = store.load(bot.user_id)
        assert restored is not None and restored.master.seed == seed
        assert restored.pair(Usage.SELF_SIGNING).public == ssk_pub
    finally:
        await dev.client.close()
