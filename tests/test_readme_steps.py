"""README.md's "Running the bot" works as written: its shell blocks, run against the
suite's Synapse, bring a card into an encrypted room, read by a second real client.

How the steps are found: the section is everything under the heading "## Running the
bot" up to the next "## " heading. Each ```sh block in it follows a marker line
`<!-- readme-step: ROLE ... -->`, and every block of the section must carry one (so a
block added later cannot slip past this test):
- install: not run; the suite already runs in an installed venv, whose `roombot` is put
  first on PATH;
- bot: run by `sh -e` in a fresh directory that holds config.example.toml, as a checkout
  does; its last command is the bot itself, which keeps running;
- report: run by `sh -e` in the same directory once the bot answers /healthz; exit 0.

What the test supplies, and nothing more (everything else, the variables set, their order,
the commands, is the README's):
- $EDITOR: a script that makes the edits the README asks of the operator: [matrix]
  homeserver and user_id (the suite's Synapse, a fresh bot account), the [[rooms]] (one
  encrypted room the bot is invited to), [invites] (the member); and, as other tests
  share the machine, free ports for [api] and [metrics] instead of the example's;
- the password, for the '...' of `export ROOMBOT_PASSWORD='...'`;
- in the report block: that room's id for the example's room, that free port for the
  example's API port (the test first checks the block names the example's own).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from cards.codec import CARD_KEY, read_payload
from cards.shape import TurnError
from roombot.devserver import DevServer, free_port
from roombot.env_names import RETIRED
from tests.bot.helpers import bot_and_member

ROOT = Path(__file__).parent.parent
HEADING = "## Running the bot"
_STEP = re.compile(r"^<!-- readme-step: (\w+)[^\n]*-->\n```sh\n(.*?)^```", re.M | re.S)
_PASSWORD = "export ROOMBOT_PASSWORD='...'"


def section(readme: str) -> str:
    start = readme.index(HEADING + "\n")
    end = readme.find("\n## ", start + len(HEADING))
    return readme[start : end if end >= 0 else len(readme)]


def steps(readme: str) -> dict[str, str]:
    """The section's shell blocks by role; every block of the section has one."""
    text = section(readme)
    found = {m.group(1): m.group(2) for m in _STEP.finditer(text)}
    assert len(found) == text.count("```sh\n"), "a ```sh block without a readme-step marker"
    assert set(found) == {"install", "bot", "report"}, sorted(found)
    return found


def _tables(text: str) -> list[tuple[str, int, int]]:
    """(header, start, end) of each TOML table: from its header line to the next one."""
    heads = list(re.finditer(r"^(\[\[?[\w.]+\]\]?)[ \t]*$", text, re.M))
    ends = [h.start() for h in heads[1:]] + [len(text)]
    return [(h.group(1), h.start(), e) for h, e in zip(heads, ends, strict=True)]


def _set(text: str, table: str, key: str, value: object) -> str:
    # the key's one uncommented line in that table; the example changing shape fails here
    ((_, start, end),) = [t for t in _tables(text) if t[0] == table]
    line = re.compile(rf"^{key} = .*$", re.M)
    assert len(line.findall(text, start, end)) == 1, f"{table} {key} in config.example.toml"
    return text[:start] + line.sub(f"{key} = {json.dumps(value)}", text[start:end]) + text[end:]


@dataclass(frozen=True)
class Edits:
    """What the operator writes into roombot.toml in their editor."""

    homeserver: str
    user_id: str
    room: str
    inviter: str
    api_port: int
    metrics_port: int

    def apply(self, text: str) -> str:
        text = _set(text, "[matrix]", "homeserver", self.homeserver)
        text = _set(text, "[matrix]", "user_id", self.user_id)
        text = _set(text, "[invites]", "users", [self.inviter])
        text = _set(text, "[invites]", "servers", [])
        text = _set(text, "[api]", "port", self.api_port)
        text = _set(text, "[metrics]", "port", self.metrics_port)
        rooms = [(s, e) for h, s, e in _tables(text) if h == "[[rooms]]"]
        assert rooms, "[[rooms]] in config.example.toml"
        for s, e in reversed(rooms[1:]):
            text = text[:s] + text[e:]
        s, e = rooms[0]
        return text[:s] + f"[[rooms]]\nroom = {json.dumps(self.room)}\n\n" + text[e:]


def example_room_and_port() -> tuple[str, int]:
    doc = tomllib.loads((ROOT / "config.example.toml").read_text(encoding="utf-8"))
    return doc["rooms"][0]["room"], doc["api"]["port"]


def editor(directory: Path, edits: Edits) -> Path:
    """An $EDITOR that applies `edits` to the file it is given, and checks the result."""
    script = directory / "editor"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys, tomllib\n"
        "from pathlib import Path\n"
        "from tests.test_readme_steps import Edits\n"
        f"edits = Edits(**{json.dumps(dataclasses.asdict(edits))})\n"
        "path = Path(sys.argv[1])\n"
        "path.write_text(edits.apply(path.read_text()))\n"
        "doc = tomllib.loads(path.read_text())\n"
        "assert [r['room'] for r in doc['rooms']] == [edits.room], doc['rooms']\n"
    )
    script.chmod(0o755)
    return script


def environment(directory: Path, script: Path) -> dict[str, str]:
    """A shell's environment with this checkout's `roombot` first on PATH and no roombot
    secret of the developer's own."""
    bin_dir = directory / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "roombot"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m roombot "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMBOT_") and k not in RETIRED}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(ROOT),
        EDITOR=str(script),
    )
    return env


async def wait_healthy(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 90
    async with aiohttp.ClientSession() as http:
        while time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text()[-4000:]
            try:
                async with http.get(f"http://127.0.0.1:{port}/healthz") as r:
                    if r.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
    raise TimeoutError(log.read_text()[-4000:])


def test_the_steps_are_marked_and_name_the_examples_room_and_port() -> None:
    found = steps((ROOT / "README.md").read_text(encoding="utf-8"))
    room, port = example_room_and_port()
    assert _PASSWORD in found["bot"]
    assert f"--room '{room}'" in found["report"]
    assert f"--url http://127.0.0.1:{port} " in found["report"]
    assert found["bot"].rstrip().splitlines()[-1].startswith("roombot run -c roombot.toml ")


async def test_the_readme_steps_bring_a_card_into_the_encrypted_room(
    synapse: DevServer, tmp_path: Path
) -> None:
    found = steps((ROOT / "README.md").read_text(encoding="utf-8"))
    bot, member_user, member = await bot_and_member(synapse, tmp_path / "member")
    try:
        room_id = await member.create_room(encrypted=True, invite=(bot.user_id,))
        api_port, metrics_port = free_port(), free_port()
        edits = Edits(
            synapse.url, bot.user_id, room_id, member_user.user_id, api_port, metrics_port
        )
        checkout = tmp_path / "checkout"
        checkout.mkdir()
        (checkout / "config.example.toml").write_bytes((ROOT / "config.example.toml").read_bytes())
        env = environment(tmp_path, editor(tmp_path, edits))
        example_room, example_port = example_room_and_port()
        bot_steps = found["bot"].replace(_PASSWORD, f"export ROOMBOT_PASSWORD='{bot.password}'")
        report_steps = (
            found["report"]
            .replace(f"'{example_room}'", f"'{room_id}'")
            .replace(f"127.0.0.1:{example_port} ", f"127.0.0.1:{api_port} ")
        )
        log = tmp_path / "bot.log"
        with log.open("wb") as out:
            shell = subprocess.Popen(
                ["sh", "-e", "-c", bot_steps],
                cwd=checkout,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # the shell and the bot it runs, stopped together
            )
        try:
            await wait_healthy(metrics_port, shell, log)
            report = await asyncio.to_thread(
                subprocess.run,
                ["sh", "-e", "-c", report_steps],
                cwd=checkout,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert report.returncode == 0, report.stdout + report.stderr
            assert json.loads(report.stdout)["accepted"] >= 1
            (seen,) = await member.wait_for(room_id, 1, sender=bot.user_id, timeout=60)
            card = read_payload(seen.content.get(CARD_KEY))
            assert isinstance(card, TurnError)
            assert seen.encrypted and card.harness == "shell"
            assert card.message == "roombot is set up"
            # what the steps left behind: the token owner-only, the state beside the config
            assert (checkout / "api-token").stat().st_mode & 0o777 == 0o600
            assert (checkout / "roombot-state").is_dir()
        finally:
            if shell.poll() is None:
                os.killpg(shell.pid, signal.SIGTERM)
            try:
                shell.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(shell.pid, signal.SIGKILL)
                shell.wait(10)
    finally:
        await member.close()
