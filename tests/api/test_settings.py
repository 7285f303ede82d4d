"""The [api] section: tokens from env or files, never the TOML; errors name the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from roombot.api.access import Bucket, Tokens
from roombot.api.settings import parse_api_settings
from roombot.config import ConfigError

GOOD_TOKEN = "a-good-long-token-123456"


def parse(data: Any, tmp_path: Path) -> Any:
    return parse_api_settings(data, base=tmp_path, state_dir=tmp_path / "state")


def test_defaults_and_a_full_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = parse({}, tmp_path)
    assert (s.host, s.port, s.max_body, s.sources) == ("127.0.0.1", 0, 1024 * 1024, ())
    assert s.journal == tmp_path / "state" / "journal.sqlite3"
    monkeypatch.setenv("HUB_TOKEN", GOOD_TOKEN)
    (tmp_path / "eng.token").write_text("file-token-0123456789abc\n")
    s = parse(
        {
            "port": 8450,
            "journal": "j.sqlite3",
            "max_body": 4096,
            "sources": [
                {"name": "hub", "token_env": "HUB_TOKEN", "rooms": ["!a:x.org"], "rate": 5},
                {"name": "eng", "token_file": "eng.token", "rooms": ["*"], "burst": 10},
            ],
        },
        tmp_path,
    )
    assert s.journal == tmp_path / "j.sqlite3"
    hub, eng = s.sources
    assert hub.token == GOOD_TOKEN and hub.rate == 5 and hub.allows("!a:x.org")
    assert not hub.allows("!b:x.org") and not hub.all_rooms
    assert eng.token == "file-token-0123456789abc" and eng.all_rooms and eng.burst == 10
    assert GOOD_TOKEN not in repr(hub)  # a token never reaches a log line


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"sources": [{"name": "a", "token": GOOD_TOKEN, "rooms": ["*"]}]}, "api.sources[0].token"),
        (
            {"sources": [{"name": "a", "token_env": "NOPE_NOT_SET", "rooms": ["*"]}]},
            "api.sources[0].token_env",
        ),
        (
            {"sources": [{"name": "a", "token_file": "missing", "rooms": ["*"]}]},
            "api.sources[0].token_file",
        ),
        (
            {"sources": [{"name": "a", "token_env": "SHORT", "rooms": ["*"]}]},
            "api.sources[0].token_env",
        ),
        ({"sources": [{"name": "a", "token_env": "T1", "rooms": []}]}, "api.sources[0].rooms"),
        (
            {"sources": [{"name": "a", "token_env": "T1", "rooms": ["lobby"]}]},
            "api.sources[0].rooms[0]",
        ),
        ({"sources": [{"name": "a b", "token_env": "T1", "rooms": ["*"]}]}, "api.sources[0].name"),
        (
            {"sources": [{"name": "a", "token_env": "T1", "rooms": ["*"], "rate": 0}]},
            "api.sources[0].rate",
        ),
        (
            {"sources": [{"name": "a", "token_env": "T1", "rooms": ["*"], "colour": 1}]},
            "api.sources[0].colour",
        ),
        (
            {
                "sources": [
                    {"name": "a", "token_env": "T1", "rooms": ["*"]},
                    {"name": "a", "token_env": "T2", "rooms": ["*"]},
                ]
            },
            "api.sources[1].name",
        ),
        (
            {
                "sources": [
                    {"name": "a", "token_env": "T1", "rooms": ["*"]},
                    {"name": "b", "token_env": "T1", "rooms": ["*"]},
                ]
            },
            "api.sources[1].token_env",
        ),
        ({"port": 70000}, "api.port"),
        ({"max_body": 10}, "api.max_body"),
        ({"listen": 1}, "api.listen"),
    ],
)
def test_errors_name_the_key(
    data: Any, key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("T1", GOOD_TOKEN)
    monkeypatch.setenv("T2", GOOD_TOKEN + "2")
    monkeypatch.setenv("SHORT", "abc")
    monkeypatch.delenv("NOPE_NOT_SET", raising=False)
    with pytest.raises(ConfigError) as info:
        parse(data, tmp_path)
    assert info.value.key == key, str(info.value)


def test_tokens_find_the_source_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("T1", GOOD_TOKEN)
    settings = parse({"sources": [{"name": "a", "token_env": "T1", "rooms": ["*"]}]}, tmp_path)
    tokens = Tokens(settings.sources)
    assert tokens.source_for(f"Bearer {GOOD_TOKEN}") is settings.sources[0]
    assert tokens.source_for(f"bearer  {GOOD_TOKEN} ") is settings.sources[0]
    for header in (None, "", GOOD_TOKEN, f"Basic {GOOD_TOKEN}", f"Bearer {GOOD_TOKEN}x", "Bearer "):
        assert tokens.source_for(header) is None, header


def test_bucket_refills_at_its_rate_and_lets_a_big_batch_go_into_debt() -> None:
    b = Bucket(rate=2.0, burst=4.0)
    assert b.admit(100.0) == 0.0
    b.charge(10, 100.0)  # a batch of 10 while 4 were there: 6 in debt
    assert b.admit(100.0) == pytest.approx(3.5)  # (1 - -6) / 2
    assert b.admit(103.5) == 0.0
    b.charge(1, 103.5)
    assert b.admit(1000.0) == 0.0 and b.tokens == 4.0  # never above the burst
