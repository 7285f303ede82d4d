"""`roombot run --check`, each situation without a homeserver: one line naming the key, exit 2.

The base file is valid offline (that is tested first), so each test changes one
thing and sees exactly the one line it causes.
"""

from __future__ import annotations

import socket
import tomllib
from pathlib import Path

import pytest

from roombot.devserver import free_port
from tests.check.helpers import TOKEN, check, keys, unwritable, write_config

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.toml"
# A port nothing listens on: what a homeserver that is down looks like.
DOWN = "http://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROOMBOT_API_TOKEN", TOKEN)
    monkeypatch.delenv("ROOMBOT_PASSWORD", raising=False)


def base(tmp_path: Path, **changes: object) -> Path:
    kwargs: dict[str, object] = {"homeserver": DOWN.format(port=free_port())}
    kwargs.update(changes)
    return write_config(tmp_path / "bot", **kwargs)  # type: ignore[arg-type]


def test_the_base_file_is_valid_offline_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = base(tmp_path, api_port=free_port(), metrics_port=free_port())
    assert check(capsys, path, "--offline") == (0, [])
    assert not (tmp_path / "bot" / "state").exists()


@pytest.mark.parametrize("value", [None, "short"], ids=["unset", "short"])
def test_api_token_unset_or_short(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    value: str | None,
) -> None:
    if value is None:
        monkeypatch.delenv("ROOMBOT_API_TOKEN")
    else:
        monkeypatch.setenv("ROOMBOT_API_TOKEN", value)
    rc, lines = check(capsys, base(tmp_path), "--offline")
    assert rc == 2 and keys(lines) == ["api.sources[0].token_env"], lines
    assert "ROOMBOT_API_TOKEN" in lines[0] and "at least 16" in lines[0]


def test_no_password_and_no_stored_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, lines = check(capsys, base(tmp_path, password=None), "--offline")
    assert rc == 2 and keys(lines) == ["matrix.password_env"], lines
    assert "first login" in lines[0] and "export ROOMBOT_PASSWORD" in lines[0]


def test_a_stored_session_needs_no_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = base(tmp_path, password=None)
    state = tmp_path / "bot" / "state"
    state.mkdir(mode=0o700)
    creds = state / "credentials.json"
    creds.write_text('{"user_id": "@bot:localhost", "device_id": "D", "access_token": "t"}')
    creds.chmod(0o600)
    assert check(capsys, path, "--offline") == (0, [])
    # A session of another user is no session: `run` would log in again.
    creds.write_text('{"user_id": "@other:localhost", "device_id": "D", "access_token": "t"}')
    rc, lines = check(capsys, path, "--offline")
    assert rc == 2 and keys(lines) == ["matrix.password_env"], lines


def test_placeholder_room_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = base(tmp_path, rooms=("!abcdefghij:localhost", "!AbCdEfGhIjKlMnOpQr"))
    rc, lines = check(capsys, path, "--offline")
    assert rc == 2 and keys(lines) == ["rooms[1].room"], lines
    assert "!AbCdEfGhIjKlMnOpQr is the example's placeholder" in lines[0]


def test_placeholder_homeserver(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines = check(capsys, base(tmp_path, homeserver="https://matrix.example.org"))
    assert rc == 2 and keys(lines) == ["matrix.homeserver"], lines
    assert "matrix.example.org" in lines[0] and "placeholder" in lines[0]


def test_placeholder_user(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines = check(capsys, base(tmp_path, user_id="@roombot:example.org"), "--offline")
    assert rc == 2 and keys(lines) == ["matrix.user_id"], lines


@pytest.mark.parametrize("room", ["#team", "#team:", "!abc:under_score.org"])
def test_a_room_reference_run_could_not_join(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], room: str
) -> None:
    rc, lines = check(capsys, base(tmp_path, rooms=(room,)), "--offline")
    assert rc == 2 and keys(lines) == ["rooms[0].room"], lines
    assert "not a well-formed room reference" in lines[0]


def test_every_placeholder_of_the_example_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROOMBOT_PASSWORD", "a password")
    example = tomllib.loads(EXAMPLE.read_text())
    rc, lines = check(capsys, EXAMPLE, "--offline")
    assert rc == 2
    found = set(keys(lines))
    assert {"matrix.homeserver", "matrix.user_id"} <= found, lines
    rooms = [r["room"] for r in example["rooms"]]
    assert "!AbCdEfGhIjKlMnOpQr" in rooms
    assert {f"rooms[{i}].room" for i in range(len(rooms))} <= found, lines
    # Every other line of the example's own making names an example.org placeholder.
    assert all("placeholder" in line for line in lines), lines


def test_homeserver_down(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = base(tmp_path)
    rc, lines = check(capsys, path)
    assert rc == 2 and keys(lines) == ["matrix.homeserver"], lines
    assert "does not answer" in lines[0] and "start the homeserver" in lines[0]
    assert check(capsys, path, "--offline") == (0, [])  # --offline does not ask


@pytest.mark.parametrize("key", ["api.port", "metrics.port"])
def test_a_port_in_use(tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        ports = {"api_port": port} if key == "api.port" else {"metrics_port": port}
        rc, lines = check(capsys, base(tmp_path, **ports), "--offline")
    assert rc == 2 and keys(lines) == [key], lines
    assert f"127.0.0.1:{port} is in use" in lines[0]


def test_api_and_metrics_on_one_port(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    rc, lines = check(capsys, base(tmp_path, api_port=port, metrics_port=port), "--offline")
    assert rc == 2 and keys(lines) == ["metrics.port"], lines


@pytest.mark.parametrize("where", ["missing", "a-directory"])
def test_an_unreadable_file_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    path = base(tmp_path)
    secret = tmp_path / "bot" / where
    if where == "a-directory":
        secret.mkdir()
    text = path.read_text().replace('token_env = "ROOMBOT_API_TOKEN"', f'token_file = "{where}"')
    path.write_text(text.replace('password_file = "password"', f'password_file = "{where}"'))
    rc, lines = check(capsys, path, "--offline")
    assert rc == 2
    assert keys(lines) == ["api.sources[0].token_file", "matrix.password_file"], lines
    assert all(f"cannot read {secret}" in line for line in lines), lines


def test_state_dir_not_writable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = base(tmp_path)
    state = tmp_path / "bot" / "state"
    state.mkdir(mode=0o700)
    with unwritable(state):
        rc, lines = check(capsys, path, "--offline")
    assert rc == 2 and keys(lines) == ["state_dir"], lines
    assert f"{state} is not writable" in lines[0]


def test_state_dir_that_cannot_be_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = base(tmp_path)
    parent = tmp_path / "bot"
    with unwritable(parent):
        rc, lines = check(capsys, path, "--offline")
    assert rc == 2 and keys(lines) == ["state_dir"], lines
    assert "does not exist" in lines[0] and "mkdir -m 700" in lines[0]
    assert not (parent / "state").exists()


def test_state_open_to_other_users(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = base(tmp_path)
    state = tmp_path / "bot" / "state"
    state.mkdir()
    state.chmod(0o755)
    (state / "outbox.sqlite3").write_bytes(b"")
    (state / "outbox.sqlite3").chmod(0o644)
    rc, lines = check(capsys, path, "--offline")
    assert rc == 2 and keys(lines) == ["state_dir", "state_dir"], lines
    assert f"chmod 700 {state} " in lines[0] and f"chmod 600 {state / 'outbox.sqlite3'}" in lines[1]
    assert oct(state.stat().st_mode)[-3:] == "755"  # reported, not changed


def test_every_problem_is_reported_not_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ROOMBOT_API_TOKEN")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        path = base(
            tmp_path,
            homeserver="https://matrix.example.org",
            rooms=("!AbCdEfGhIjKlMnOpQr",),
            password=None,
            api_port=taken.getsockname()[1],
        )
        rc, lines = check(capsys, path, "--offline")
    assert rc == 2
    assert sorted(keys(lines)) == [
        "api.port",
        "api.sources[0].token_env",
        "matrix.homeserver",
        "matrix.password_env",
        "rooms[0].room",
    ], lines


def test_a_shape_error_is_one_line_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = base(tmp_path)
    path.write_text(path.read_text().replace("request_timeout", "request_timout"))
    rc, lines = check(capsys, path, "--offline")
    assert rc == 2 and keys(lines) == ["matrix.request_timout"], lines


def test_offline_goes_with_check(tmp_path: Path) -> None:
    from roombot.cli import main

    assert main(["run", "-c", str(base(tmp_path)), "--offline"]) == 2


def test_tls_files_and_tokens_are_all_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ROOMBOT_API_TOKEN")
    path = base(tmp_path)
    text = path.read_text().replace(
        "[[api.sources]]", 'tls_cert_file = "cert.pem"\ntls_key_file = "key.pem"\n[[api.sources]]'
    )
    path.write_text(text)
    rc, lines = check(capsys, path, "--offline")
    assert rc == 2 and keys(lines) == ["api.tls_cert_file", "api.sources[0].token_env"], lines
    assert "cannot read the certificate file" in lines[0]


def test_an_access_token_variable_that_is_not_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = base(tmp_path)
    path.write_text(
        path.read_text().replace(
            "request_timeout", 'access_token_env = "ROOMBOT_CHECK_UNSET"\nrequest_timeout'
        )
    )
    rc, lines = check(capsys, path, "--offline")
    assert rc == 2 and keys(lines) == ["matrix.access_token_env"], lines
    assert "ROOMBOT_CHECK_UNSET is not set" in lines[0]


def test_a_host_this_machine_cannot_listen_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = base(tmp_path, metrics_port=free_port())
    # 192.0.2.1 (TEST-NET-1, RFC 5737) is no address of this machine.
    path.write_text(path.read_text().replace("[metrics]\n", '[metrics]\nhost = "192.0.2.1"\n'))
    rc, lines = check(capsys, path, "--offline")
    assert rc == 2 and keys(lines) == ["metrics.host"], lines


def test_an_empty_password_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = base(tmp_path)
    (tmp_path / "bot" / "password").write_text("\n")
    rc, lines = check(capsys, path, "--offline")
    assert rc == 2 and keys(lines) == ["matrix.password_file"], lines
    assert "is empty; put the bot's password in it" in lines[0]
