"""`roombot init --homeserver URL --user @bot:server`: from nothing to a bot ready to run.

Writes the configuration (config.example.toml's text, values filled in:
roombot.initconfig), makes one report API token per source (random, 32 bytes,
each in its own 0600 file that the config names in `token_file`), logs in once
with the bot's own startup code (the device, its keys, its cross-signing
identity; the recovery key goes to its file as at `roombot run`), lists the rooms
the bot is in or invited to, and prints the next command.

Run again, it changes nothing: an existing config is read, not written (`--force`
writes it anew), existing token files are kept, the stored session is reused (same
device). The password comes from a file (`--password-file`), an environment
variable (`--password-env`, default ROOMBOT_PASSWORD) or, on a terminal, a prompt;
never from the command line.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import re
import secrets
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roombot.initconfig import (
    Answers,
    FoundRoom,
    SourceToken,
    fill_example,
    printable,
    toml_string,
)
from roombot.session import credentials_path

HELP = "write a working config, API tokens and the bot's device, once"

DEFAULT_SOURCES = ("acp-proxy", "reporters", "scripts")
TOKEN_BYTES = 32
_SOURCE_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
_USER = re.compile(r"^@[^:\s]+:\S+$")


class InitError(RuntimeError):
    """Init cannot go on; the message names the option or file and what to do."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Write a working configuration from config.example.toml (every key stays "
        "documented), one report API token file per source (mode 0600), log in once "
        "(the bot's device and its cross-signing identity), list the rooms the bot is "
        "in or invited to and print the next command. Run twice, it changes nothing; "
        "it never overwrites a file without --force."
    )
    parser.add_argument("--homeserver", required=True, help="the homeserver's client API URL")
    parser.add_argument("--user", required=True, help="the bot's user id, @bot:example.org")
    parser.add_argument(
        "-c", "--config", default="roombot.toml", help="the file to write (default ./roombot.toml)"
    )
    parser.add_argument(
        "--state-dir",
        help="the bot's state directory as written in the config (default: roombot-state, "
        "beside the config)",
    )
    pw = parser.add_mutually_exclusive_group()
    pw.add_argument(
        "--password-file", help="a file holding the bot's password; the config names it"
    )
    pw.add_argument(
        "--password-env",
        default="ROOMBOT_PASSWORD",
        help="the environment variable holding the password (default ROOMBOT_PASSWORD); "
        "when unset, asked for on a terminal",
    )
    parser.add_argument(
        "--source",
        action="append",
        dest="sources",
        metavar="NAME",
        help="a report API source, one token each; repeat for more "
        f"(default: {', '.join(DEFAULT_SOURCES)})",
    )
    parser.add_argument(
        "--example",
        help="the commented example to start from (default: config.example.toml beside "
        "the roombot package)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="write the config anew even if it exists (token files and the stored session "
        "are kept either way: delete one to have it made again)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_init(args))
    except InitError as e:
        print(f"roombot init: {e}", file=sys.stderr)
        return 2


@dataclass(frozen=True, slots=True)
class _Plan:
    """What this run writes (nothing, when the config exists and --force is not given)."""

    config_path: Path
    config: Any  # roombot.config.Config: the one the login uses (without rooms when new)
    tokens: tuple[tuple[str, Path, bool], ...]  # (source, file, made now)
    # For a new config: what fills the example, and the example's text. None: kept as it is.
    answers: Answers | None = None
    example: str | None = None

    @property
    def writes(self) -> bool:
        return self.answers is not None


def _default_example() -> Path:
    import roombot

    return Path(roombot.__file__).resolve().parent.parent / "config.example.toml"


def _check_args(args: argparse.Namespace) -> None:
    if not re.match(r"^https?://[^\s/]+", args.homeserver):
        raise InitError(f"--homeserver: expected an http(s) URL, got {args.homeserver!r}")
    if not _USER.match(args.user):
        raise InitError(f"--user: expected a user id like @bot:example.org, got {args.user!r}")
    for name in args.sources or ():
        if not _SOURCE_NAME.match(name):
            raise InitError(f"--source: expected letters, digits, '_.-' (1-64), got {name!r}")
    if args.sources and len(set(args.sources)) != len(args.sources):
        raise InitError("--source: a name is given twice")


def _written_path(path: Path, base: Path) -> str:
    """A path as the config names it: relative to the config's directory when inside it."""
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)


def _make_tokens(names: tuple[str, ...], directory: Path) -> tuple[tuple[str, Path, bool], ...]:
    from roombot.private_files import create_private, private_dir, tighten

    private_dir(directory)
    made = []
    for name in names:
        path = directory / name
        if path.exists():
            tighten(path)
            made.append((name, path, False))
            continue
        token = secrets.token_urlsafe(TOKEN_BYTES)  # 32 random bytes, 43 characters
        create_private(path, (token + "\n").encode())
        made.append((name, path, True))
    return tuple(made)


def _state_dir(args: argparse.Namespace, config_path: Path) -> Path:
    state_dir = Path(args.state_dir or "roombot-state").expanduser()
    return state_dir if state_dir.is_absolute() else config_path.parent / state_dir


def _plan_new(args: argparse.Namespace, config_path: Path, state_dir: Path) -> _Plan:
    from roombot.config import ConfigError, parse_config
    from roombot.private_files import private_dir

    example_path = Path(args.example) if args.example else _default_example()
    try:
        example = example_path.read_text()
    except OSError as e:
        raise InitError(
            f"cannot read the example config {example_path}: {e}; give it with --example"
        ) from e
    base = config_path.parent
    state_text = args.state_dir or "roombot-state"
    private_dir(state_dir)
    names = tuple(args.sources or DEFAULT_SOURCES)
    tokens = _make_tokens(names, state_dir / "api-tokens")
    password_file = None
    if args.password_file:
        password_file = str(Path(args.password_file).expanduser().resolve())
    answers = Answers(
        homeserver=args.homeserver.rstrip("/"),
        user_id=args.user,
        state_dir=state_text,
        sources=tuple(SourceToken(n, _written_path(p, base)) for n, p, _ in tokens),
        password_env=args.password_env,
        password_file=password_file,
    )
    try:
        text = fill_example(example, answers)
    except ValueError as e:
        raise InitError(f"{example_path}: {e}") from e
    try:
        config = parse_config(tomllib.loads(text), base=base)
    except (ConfigError, tomllib.TOMLDecodeError) as e:
        raise InitError(f"the config made from {example_path} is not valid: {e}") from e
    return _Plan(config_path, config, tokens, answers, example)


def _plan_existing(args: argparse.Namespace, config_path: Path) -> _Plan:
    from roombot.config import ConfigError, load_config

    try:
        config = load_config(config_path)
    except ConfigError as e:
        raise InitError(
            f"{config_path} exists but is not valid: {e}; fix it, or write it anew with --force"
        ) from e
    m = config.matrix
    for option, given, have, key in (
        ("--homeserver", args.homeserver.rstrip("/"), m.homeserver, "matrix.homeserver"),
        ("--user", args.user, m.user_id, "matrix.user_id"),
    ):
        if given != have:
            raise InitError(
                f"{config_path} exists with {key} = {have!r}, but {option} is {given!r}: "
                "write it anew with --force, or choose another file with --config"
            )
    raw = tomllib.loads(config_path.read_text()).get("api", {}).get("sources", [])
    tokens = tuple(
        (str(t["name"]), config_path.parent / str(t["token_file"]), False)
        for t in raw
        if isinstance(t, dict) and "token_file" in t
    )
    return _Plan(config_path, config, tokens)


def _ensure_password(
    password: Any, user_id: str, state_dir: Path, *, interactive: bool, token: Any = None
) -> None:
    """The first login needs the password: ask for it on a terminal when nowhere else.

    Checked before anything is written, so a run that cannot log in leaves nothing behind.
    """
    from roombot.config import ConfigError

    try:
        if credentials_path(state_dir).exists() or (token and token.get()):
            return
        if password.get():
            return
    except ConfigError as e:
        where = "--password-file" if password.file is not None else e.key
        raise InitError(f"{where}: {e.problem}") from e
    if not interactive or password.env is None:
        raise InitError(
            f"the first login needs the bot's password: put it in {password.describe()}, "
            "or pass --password-file FILE (never on the command line)"
        )
    entered = getpass.getpass(f"password of {user_id}: ")
    if not entered:
        raise InitError("no password entered")
    # The login code reads the password where the config says; this process's own
    # environment is that place for a prompted one (no child process is started).
    os.environ[password.env] = entered


async def _homeserver_answers(url: str, timeout: float) -> None:
    import aiohttp

    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http,
            http.get(url + "/_matrix/client/versions") as r,
        ):
            body = await r.json(content_type=None) if r.status == 200 else None
    except (aiohttp.ClientError, TimeoutError, ValueError) as e:
        raise InitError(f"--homeserver: no answer from {url}: {type(e).__name__}: {e}") from e
    if not isinstance(body, dict) or "versions" not in body:
        raise InitError(f"--homeserver: {url} is not a Matrix client API (GET /versions)")


async def list_rooms(homeserver: str, access_token: str, timeout: float) -> tuple[FoundRoom, ...]:
    """The rooms the bot is in or invited to, from one sync of our own (nio's store untouched,
    no invite answered: that is `roombot run`'s part)."""
    import aiohttp

    wanted = ["m.room.name", "m.room.canonical_alias", "m.room.member"]
    filt = {
        "presence": {"not_types": ["*"]},
        "account_data": {"not_types": ["*"]},
        "room": {
            # Synapse answers a sync identical to one made in the last two minutes from a
            # cache: a type no event has makes each run's request its own.
            "timeline": {"limit": 0, "not_types": [f"dev.roombot.init.{secrets.token_hex(8)}"]},
            "ephemeral": {"not_types": ["*"]},
            "account_data": {"not_types": ["*"]},
            "state": {"types": ["m.room.name", "m.room.canonical_alias"]},
        },
    }
    params = {"timeout": "0", "filter": json.dumps(filt)}
    headers = {"Authorization": f"Bearer {access_token}"}
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http,
            http.get(homeserver + "/_matrix/client/v3/sync", params=params, headers=headers) as r,
        ):
            body = await r.json(content_type=None)
            status = r.status
    except (aiohttp.ClientError, TimeoutError, ValueError) as e:
        raise InitError(f"listing the bot's rooms failed: {type(e).__name__}: {e}") from e
    if status != 200 or not isinstance(body, dict):
        raise InitError(f"listing the bot's rooms failed: HTTP {status}: {body}")
    rooms = body.get("rooms") or {}
    found: list[FoundRoom] = []
    for membership, events_key, section in (
        ("join", "state", rooms.get("join") or {}),
        ("invite", "invite_state", rooms.get("invite") or {}),
    ):
        for room_id, info in sorted(section.items()):
            state: dict[str, Any] = {}
            inviter = None
            for event in (info.get(events_key) or {}).get("events") or []:
                if not isinstance(event, dict) or event.get("type") not in wanted:
                    continue
                content = event.get("content") or {}
                if event["type"] == "m.room.name":
                    state["name"] = content.get("name")
                elif event["type"] == "m.room.canonical_alias":
                    state["alias"] = content.get("alias")
                elif content.get("membership") == "invite":
                    inviter = event.get("sender")
            found.append(
                FoundRoom(
                    room_id,
                    membership,
                    name=state.get("name") if isinstance(state.get("name"), str) else None,
                    alias=state.get("alias") if isinstance(state.get("alias"), str) else None,
                    inviter=inviter if isinstance(inviter, str) else None,
                )
            )
    return tuple(found)


async def _log_in(config: Any) -> tuple[str, bool, Any, tuple[FoundRoom, ...]]:
    """(device id, new device?, cross-signing assessment, rooms) through the bot's own code."""
    import aiohttp

    from roombot.config import ConfigError
    from roombot.matrix import MatrixShell, StartupError
    from roombot.outbox import Outbox
    from roombot.store.migrations import prepare

    new_device = not credentials_path(config.state_dir).exists()
    prepare(config.outbox_at)
    outbox = Outbox(config.outbox_at)  # the one `roombot run` opens at its first start
    shell = MatrixShell(config, outbox)
    try:
        try:
            await shell.log_in()
        except (StartupError, ConfigError) as e:
            raise InitError(str(e)) from e
        except (aiohttp.ClientError, TimeoutError, OSError) as e:
            raise InitError(f"login failed: {type(e).__name__}: {e}") from e
        await shell.cross_sign()
        c = shell.client
        rooms = await list_rooms(
            config.matrix.homeserver, str(c.access_token), config.matrix.request_timeout
        )
        return str(c.device_id), new_device, shell.cross_signing_state, rooms
    finally:
        await shell.close()
        outbox.close()


def _write_config(path: Path, text: str, force: bool) -> None:
    from roombot.private_files import create_private, replace_private

    try:
        if force:
            replace_private(path, text.encode())
        else:
            create_private(path, text.encode())
    except FileExistsError as e:
        raise InitError(f"{path} appeared meanwhile; it was left as it is") from e
    except OSError as e:
        raise InitError(f"cannot write {path}: {e}") from e


async def _init(args: argparse.Namespace) -> int:
    import dataclasses

    from roombot.config import Secret, parse_config
    from roombot.observe import setup_logging

    _check_args(args)
    # The bot's own log lines (a new identity, a refused login) go to standard error as text.
    setup_logging("warning", "text")
    config_path = Path(args.config).expanduser().absolute()
    if config_path.is_dir():
        raise InitError(f"--config: {config_path} is a directory; name the file to write")
    write = args.force or not config_path.exists()
    # Nothing is written before the homeserver answered and the password is known.
    await _homeserver_answers(args.homeserver.rstrip("/"), 30.0)
    interactive = sys.stdin.isatty()
    if write:
        password = Secret(
            "matrix.password",
            env=None if args.password_file else args.password_env,
            file=Path(args.password_file).expanduser().absolute() if args.password_file else None,
        )
        state_dir = _state_dir(args, config_path)
        _ensure_password(password, args.user, state_dir, interactive=interactive)
        config_path.parent.mkdir(parents=True, exist_ok=True)
        plan = _plan_new(args, config_path, state_dir)
    else:
        plan = _plan_existing(args, config_path)
        m = plan.config.matrix
        _ensure_password(
            m.password,
            m.user_id,
            plan.config.state_dir,
            interactive=interactive,
            token=m.access_token,
        )
    config = plan.config
    device_id, new_device, assessment, rooms = await _log_in(config)
    if plan.writes:
        assert plan.answers is not None and plan.example is not None
        text = fill_example(plan.example, dataclasses.replace(plan.answers, rooms=rooms))
        parse_config(tomllib.loads(text), base=config_path.parent)  # a last look before writing
        _write_config(config_path, text, args.force)
    _report(plan, device_id, new_device, assessment, rooms)
    return 0


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _report(
    plan: _Plan,
    device_id: str,
    new_device: bool,
    assessment: Any,
    rooms: tuple[FoundRoom, ...],
) -> None:
    from roombot.crosssign.keys import Usage, fingerprint
    from roombot.crosssign.store import KeyStore

    config = plan.config
    cfg = _shown(plan.config_path)
    kept = "kept as it is (--force writes it anew)"
    print(f"roombot init: {config.matrix.user_id} on {config.matrix.homeserver}")
    print(f"  config         {cfg}: {'written' if plan.writes else kept}")
    print(f"  state          {_shown(config.state_dir)}")
    print(f"  device         {device_id} ({'new login' if new_device else 'stored session'})")
    if assessment is not None and assessment.ok:
        master = assessment.server_public(Usage.MASTER)
        print(f"  cross-signing  ok, master key {fingerprint(master) if master else '?'}")
    else:
        problem = assessment.problem if assessment is not None else "could not be checked"
        print(f"  cross-signing  NOT OK: {problem} (see `roombot crypto status -c {cfg}`)")
    recovery = KeyStore(config.state_dir).recovery_path
    if recovery.exists():
        print(f"  recovery key   {_shown(recovery)}: move it offline, then delete it there")
    for name, path, made in plan.tokens:
        print(f"  API token      {name}: {_shown(path)} ({'made' if made else 'kept'})")
    configured = {r.room for r in config.rooms}
    if plan.writes:
        configured = {r.room_id for r in rooms}
    print("rooms the bot is in or invited to:")
    if not rooms:
        print(
            f"  none yet: invite {config.matrix.user_id} to a room, then run this again "
            "to see it (or add a [[rooms]] table with its id)"
        )
    missing = []
    for room in rooms:
        listed = room.room_id in configured or (room.alias and room.alias in configured)
        mark = "in [[rooms]]" if listed else "NOT in the config"
        print(f"  {printable(room.room_id)}  {room.describe()}  ({mark})")
        if not listed:
            missing.append(room.room_id)
    if missing:
        print(f"  to post there, add to {cfg}:")
        for room_id in missing:
            print(f"    [[rooms]]\n    room = {toml_string(room_id)}")
    print("next:")
    print(f"  roombot run -c {cfg} --check")
    print(f"  roombot run -c {cfg}")
    api = config.api
    if not api.port:
        return
    url = f"{api.scheme}://{api.host}:{api.port}"
    example_room = printable(rooms[0].room_id) if rooms else "ROOM_ID"
    print("then give each source its token (docs/report-api.md):")
    for name, path, _ in plan.tokens:
        given = f"--url {url} --token-file {_shown(path)}"
        if name == "acp-proxy":
            line = f"roombot acp-proxy {given} --config SESSIONS.toml -- AGENT-COMMAND"
        elif name == "reporters":
            line = f"roombot reporters enable openclaw {given}"
        else:
            line = (
                f"roombot report {given} --turn try-1 --room '{example_room}' --harness {name} "
                "--message 'a test failure'"
            )
        print(f"  {name}: {line}")
