"""Commands in the room against a real Synapse: a moderator's help answered, a member
without power refused with the reason, in a plain and an encrypted room (the member's
real client encrypts the command; the bot decrypts it and answers encrypted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from roombot.devserver import DevServer
from roombot.viewer import Viewer
from tests.bot.helpers import bot_and_member, running, write_config
from tests.conftest import unique_name


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
async def test_help_for_a_moderator_and_a_refusal_for_a_member(
    synapse: DevServer, tmp_path: Path, encrypted: bool
) -> None:
    bot, _, mod = await bot_and_member(synapse, tmp_path / "mod")
    other_user = synapse.register_user(unique_name("member"))
    other = Viewer(synapse.url, other_user.user_id, other_user.password, tmp_path / "other")
    await other.login()
    try:
        room = await mod.create_room(encrypted=encrypted, invite=(bot.user_id, other_user.user_id))
        await other.join(room)
        config = write_config(tmp_path / "bot", synapse, bot, [room])
        from roombot.config import load_config

        async with running(load_config(config)) as running_bot:
            await mod.wait_member(room, bot.user_id)
            await other.wait_member(room, bot.user_id)
            await mod.sync(0)  # the bot's device is known before the key is shared
            await mod.send_text(room, "!roombot help")
            (helped,) = await mod.wait_for(room, 1, sender=bot.user_id)
            assert helped.content["msgtype"] == "m.notice"
            assert helped.content["body"].startswith("roombot commands:")
            assert "!roombot reporters plan NODE NAME enable|disable" in helped.content["body"]
            assert helped.content["m.mentions"] == {}
            assert helped.encrypted is encrypted

            await other.sync(0)
            await other.send_text(room, "!roombot reporters plan gpu-1 pi enable")
            seen = await mod.wait_for(room, 2, sender=bot.user_id)
            assert seen[1].content["body"] == (
                "Refused: only members with power level 50 or more may run !roombot "
                "reporters plan in this room; your power level here is 0."
            )
            assert seen[1].encrypted is encrypted
            # a message that is not a command, and a notice, are never answered
            await mod.send_text(room, "roombot help")
            await other.send_text(room, "!roombot")  # refused once more: counted below
            await mod.wait_for(room, 3, sender=bot.user_id)
            assert running_bot.reader.read_count == 3
            assert running_bot.outbox.counts()["sent"] == 3
    finally:
        await mod.close()
        await other.close()
