"""Commands in the room against a real Synapse: a moderator's help answered, a member
without power refused with the reason, in a plain and an encrypted room (the member's
real client encrypts the command; the bot decrypts it and answers encrypted)."""

from __future__ import annotations

import asyncio
import sqlite3
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
            assert running_bot.reader.outcomes["answered"] == 1
            assert running_bot.reader.outcomes["refused_power"] == 2
            assert running_bot.outbox.counts()["sent"] == 3
        # A restart that forgets the sync position (nio's stored token dropped): the first
        # sync hands the room's recent timeline back, old commands included; none runs again.
        dropped = 0
        for db in (tmp_path / "bot" / "state" / "crypto").glob("*.db"):
            with sqlite3.connect(db) as con:
                dropped += con.execute("DELETE FROM synctokens").rowcount
        assert dropped == 1
        async with running(load_config(config)) as again:
            await mod.send_text(room, "!roombot help")
            seen = await mod.wait_for(room, 4, sender=bot.user_id)
            await asyncio.sleep(1)
            await mod.sync(500)
            assert len(mod.messages(room, bot.user_id)) == 4
            assert seen[3].content["body"].startswith("roombot commands:")
            assert again.reader.read_count == 1
            assert again.reader.replayed == 3  # the three old commands came back, unrun
    finally:
        await mod.close()
        await other.close()


NODE_TOKEN = "room-commands-node-token-0123456789"


async def test_the_round_trip_plan_apply_stale_and_not_opted_in(
    synapse: DevServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In an encrypted room, with two real `roombot node run` processes (one opted in,
    one not) polling the bot's real report API: the moderator's plan is made on the node
    by roombot.reviewed and comes back with its digest, the apply of that digest changes
    the file (backed up first); a stale digest and a node that has not opted in are
    refused with a notice; a member without power is refused."""
    import json
    import os
    import subprocess
    import sys

    from lab import setups
    from roombot.config import load_config
    from roombot.devserver import free_port

    bot, _, mod = await bot_and_member(synapse, tmp_path / "mod")
    other_user = synapse.register_user(unique_name("member"))
    other = Viewer(synapse.url, other_user.user_id, other_user.password, tmp_path / "other")
    await other.login()
    agent = tmp_path / "pi-agent"
    agent.mkdir()
    settings_file = agent / "settings.json"
    settings_file.write_text('{\n  "theme": "dark"\n}\n')
    token_file = tmp_path / "node.token"
    token_file.write_text(NODE_TOKEN + "\n")
    root = Path(__file__).resolve().parents[2]
    nodes: list[subprocess.Popen[bytes]] = []
    try:
        room = await mod.create_room(encrypted=True, invite=(bot.user_id, other_user.user_id))
        await other.join(room)
        port = free_port()
        monkeypatch.setenv("ROOMBOT_RC_NODE_TOKEN", NODE_TOKEN)
        extra = (
            f'[api]\nport = {port}\n[[api.sources]]\nname = "nodes"\n'
            f'token_env = "ROOMBOT_RC_NODE_TOKEN"\nrooms = ["{room}"]\n'
        )
        config = write_config(tmp_path / "bot", synapse, bot, [room], extra=extra)
        url = f"http://127.0.0.1:{port}"
        async with running(load_config(config)) as bot_run:
            for node, opted_in in (("gpu-1", True), ("gpu-2", False)):
                state = tmp_path / node
                env = {
                    **os.environ,
                    "PYTHONPATH": str(root),
                    "HOME": str(tmp_path / "home"),
                    # the lab's Pi on PATH: its version is one the lab tested
                    "PATH": f"{setups.NPM_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
                    "PI_CODING_AGENT_DIR": str(agent),
                    "ROOMBOT_NODE_STATE": str(state),
                }
                if opted_in:
                    opt_in = ["node", "plugin-management", "enable"]
                    subprocess.run(
                        [sys.executable, "-m", "roombot", *opt_in],
                        cwd=root,
                        env=env,
                        check=True,
                        capture_output=True,
                    )
                run = ["node", "run", "--url", url, "--token-file", str(token_file)]
                with (tmp_path / f"{node}.log").open("ab") as out:
                    nodes.append(
                        subprocess.Popen(
                            [sys.executable, "-m", "roombot", *run, "--name", node],
                            cwd=root,
                            env=env,
                            stdout=out,
                            stderr=subprocess.STDOUT,
                        )
                    )
            await mod.wait_member(room, bot.user_id)
            await other.wait_member(room, bot.user_id)
            count = 0

            async def say(viewer: Viewer, body: str) -> str:
                nonlocal count
                await viewer.sync(0)
                await viewer.send_text(room, body)
                count += 1
                seen = await mod.wait_for(room, count, sender=bot.user_id, timeout=60)
                assert seen[-1].encrypted and seen[-1].content["msgtype"] == "m.notice"
                return str(seen[-1].content["body"])

            # until both node loops have asked for work once, a node is unknown to the desk
            for _ in range(100):
                if all(bot_run.reader.desk.polled(n) for n in ("gpu-1", "gpu-2")):
                    break
                await asyncio.sleep(0.1)
            before = settings_file.read_text()
            plan = await say(mod, "!roombot reporters plan gpu-1 pi enable")
            assert plan.startswith("Plan: enable the pi reporter on node gpu-1"), plan
            digest = plan.split("Digest: ")[1].split("\n")[0]
            assert len(digest) == 64 and '+  "roombotReporter"' in plan
            assert "pi 1.6.0" in plan  # the version found on the node
            assert settings_file.read_text() == before

            refused = await say(other, f"!roombot reporters apply gpu-1 {digest}")
            assert refused.startswith("Refused: only members with power level 50 or more")
            assert settings_file.read_text() == before

            applied = await say(mod, f"!roombot reporters apply gpu-1 {digest}")
            assert applied.startswith(f"Applied on node gpu-1: plan {digest[:12]}"), applied
            assert "Nothing was restarted" in applied
            tree = json.loads(settings_file.read_text())
            assert tree["roombotReporter"] == {"url": url, "tokenFile": str(token_file)}
            assert tree["theme"] == "dark"
            backups = [p for p in agent.iterdir() if p != settings_file]
            assert [p.read_text() for p in backups] == [before], backups

            plan2 = await say(mod, "!roombot reporters plan gpu-1 pi disable")
            digest2 = plan2.split("Digest: ")[1].split("\n")[0]
            settings_file.write_text(settings_file.read_text().replace("dark", "light"))
            stale = await say(mod, f"!roombot reporters apply gpu-1 {digest2}")
            assert stale.startswith("Node gpu-1 refused !roombot reporters apply"), stale
            assert f"changed since plan {digest2[:12]} was made" in stale
            assert "nothing was written" in stale
            assert "roombotReporter" in settings_file.read_text()

            not_in = await say(mod, "!roombot reporters plan gpu-2 pi enable")
            assert not_in == (
                "Node gpu-2 refused !roombot reporters plan: node gpu-2 has not opted in to "
                "being managed from the room; on the node run: roombot node plugin-management "
                "enable"
            )
            unknown = await say(mod, "!roombot reporters plan gpu-9 pi enable")
            assert "node gpu-9 has not asked this bot for work" in unknown
            assert {k: v for k, v in bot_run.reader.outcomes.items() if v} == {
                "refused_power": 1,
                "refused_desk": 1,
                "passed": 5,
                "node_ok": 3,
                "node_refused": 2,
            }
    finally:
        for proc in nodes:
            proc.terminate()
        for proc in nodes:
            assert proc.wait(10) == 0, (tmp_path / "gpu-1.log").read_text()[-2000:]
        await mod.close()
        await other.close()


async def test_history_shown_on_joining_is_never_a_command(
    synapse: DevServer, tmp_path: Path
) -> None:
    """A command written before the bot was in the room (fresh, and after the bot
    started) comes in the join's timeline; only the command after the join runs."""
    from roombot.config import load_config

    bot, _, mod = await bot_and_member(synapse, tmp_path / "mod")
    try:
        config = write_config(
            tmp_path / "bot", synapse, bot, [], extra=f'[invites]\nusers = ["{mod.user_id}"]\n'
        )
        async with running(load_config(config)) as running_bot:
            room = await mod.create_room(encrypted=False)
            await mod.send_text(room, "!roombot help")
            await mod.send_text(room, "!roombot reporters plan gpu-1 pi enable")
            await mod.client.room_invite(room, bot.user_id)
            await mod.wait_member(room, bot.user_id)
            await asyncio.sleep(1)  # the bot's join sync, with the history, is read
            await mod.send_text(room, "!roombot help")
            (answer,) = await mod.wait_for(room, 1, sender=bot.user_id)
            assert answer.content["body"].startswith("roombot commands:")
            await asyncio.sleep(1)
            await mod.sync(500)
            assert len(mod.messages(room, bot.user_id)) == 1
            assert running_bot.reader.read_count == 1
    finally:
        await mod.close()


async def test_silences_set_listed_and_lifted_in_an_encrypted_room(
    synapse: DevServer, tmp_path: Path
) -> None:
    """A moderator sets a silence in an encrypted room and is answered (encrypted); a
    member without power is refused with the reason and sets nothing; `silences` lists
    it, also after a restart (the store is durable); `unsilence` lifts it."""
    from roombot.config import load_config

    bot, _, mod = await bot_and_member(synapse, tmp_path / "mod")
    other_user = synapse.register_user(unique_name("member"))
    other = Viewer(synapse.url, other_user.user_id, other_user.password, tmp_path / "other")
    await other.login()
    count = 0
    try:
        room = await mod.create_room(encrypted=True, invite=(bot.user_id, other_user.user_id))
        await other.join(room)
        config = write_config(tmp_path / "bot", synapse, bot, [room])

        async def say(viewer: Viewer, body: str) -> str:
            nonlocal count
            await viewer.sync(0)
            await viewer.send_text(room, body)
            count += 1
            seen = await mod.wait_for(room, count, sender=bot.user_id, timeout=60)
            last = seen[-1]
            assert last.encrypted and last.content["msgtype"] == "m.notice"
            assert last.content["m.mentions"] == {}
            return str(last.content["body"])

        async with running(load_config(config)) as running_bot:
            await mod.wait_member(room, bot.user_id)
            await other.wait_member(room, bot.user_id)
            await mod.sync(0)
            set_ = await say(
                mod, "!roombot silence kind=quota provider=openai 2h quota <b>spent</b>"
            )
            (made,) = running_bot.silences.snapshot()
            assert set_.startswith(
                "Silenced kind=quota provider=openai in this room for 2h, until "
            ), set_
            assert f"(ID {made.id})" in set_ and "Reason: quota <b>spent</b>" in set_
            assert made.rooms == {room} and made.by == mod.user_id
            assert made.matchers == (("kind", "quota"), ("provider", "openai"))

            refused = await say(other, "!roombot silence kind=auth 1h")
            assert refused == (
                "Refused: only members with power level 50 or more may run !roombot silence "
                "in this room; your power level here is 0."
            )
            refused = await say(other, f"!roombot unsilence {made.id}")
            assert "may run !roombot unsilence in this room" in refused
            assert running_bot.silences.snapshot() == (made,)

            listed = await say(mod, "!roombot silences")
            assert listed.splitlines()[0] == "Silences active in this room (1):"
            assert listed.splitlines()[1].startswith(
                f"  {made.id}  kind=quota provider=openai — until "
            )
            assert f"by {mod.user_id} — quota <b>spent</b>" in listed

        async with running(load_config(config)) as again:
            assert again.silences.snapshot() == (made,)
            listed = await say(mod, "!roombot silences")
            assert f"  {made.id}  kind=quota provider=openai" in listed
            lifted = await say(mod, f"!roombot unsilence {made.id}")
            assert lifted.startswith(f"Lifted silence {made.id} (kind=quota provider=openai)")
            # The silence ended: the room stage sums up what it held back (nothing here).
            count += 1
            summary = (await mod.wait_for(room, count, sender=bot.user_id, timeout=60))[-1]
            assert "While silenced: nothing was held back." in summary.content["body"]
            (now_lifted,) = again.silences.snapshot()
            assert now_lifted.lifted is not None and now_lifted.lifted_by == mod.user_id
            assert await say(mod, "!roombot silences") == "No silence is active in this room."
            assert again.reader.outcomes["silence_lifted"] == 1
    finally:
        await mod.close()
        await other.close()
