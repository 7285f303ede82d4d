"""The whole text's m.file event: its name, its shape in plain and encrypted rooms."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cards.attachment import FILE_MIMETYPE, file_content, file_line, file_name


def test_the_file_is_named_for_the_turn() -> None:
    assert file_name("turn-42") == "roombot-turn-42.txt"
    assert file_name(None) == "roombot-message.txt"
    assert file_name("") == "roombot-message.txt"
    assert file_name("../../etc/passwd") == "roombot-etc-passwd.txt"
    assert file_name("a\u202etxt.exe\x00b") == "roombot-a-txt.exe-b.txt"


@given(st.text())
def test_any_turn_gives_a_short_safe_name(turn: str) -> None:
    name = file_name(turn)
    assert name.startswith("roombot-") and name.endswith(".txt")
    assert len(name) <= len("roombot-.txt") + 64
    assert all(c.isascii() and (c.isalnum() or c in "._-") for c in name)
    assert "/" not in name and "\\" not in name


def test_the_card_points_at_the_file_by_name_not_by_uri() -> None:
    line = file_line("t1")
    assert "roombot-t1.txt" in line and "reply" in line and "mxc://" not in line


def test_plain_room_file_event_is_a_reply_with_a_url() -> None:
    c = file_content(turn="t1", url="mxc://hs/abc", size=1234, reply_to="$card")
    assert c["msgtype"] == "m.file"
    assert c["body"] == c["filename"] == "roombot-t1.txt"
    assert c["info"] == {"mimetype": FILE_MIMETYPE, "size": 1234} and FILE_MIMETYPE == "text/plain"
    assert c["url"] == "mxc://hs/abc" and "file" not in c
    assert c["m.relates_to"] == {"m.in_reply_to": {"event_id": "$card"}}
    assert c["m.mentions"] == {}


def test_encrypted_room_file_event_carries_the_key_instead_of_a_url() -> None:
    keys = {
        "url": "mxc://hs/enc",
        "key": {"kty": "oct", "alg": "A256CTR", "ext": True, "k": "K", "key_ops": ["decrypt"]},
        "iv": "IV",
        "hashes": {"sha256": "H"},
        "v": "v2",
    }
    c = file_content(turn="t1", url="mxc://hs/enc", size=9, reply_to="$c", encrypted_file=keys)
    assert c["file"] == keys and "url" not in c
    assert c["m.relates_to"]["m.in_reply_to"]["event_id"] == "$c"
