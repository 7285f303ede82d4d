"""The notice builder: under the budget for any message size, and nothing cut silently."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings

from cards.attachment import file_name
from cards.codec import CARD_KEY, read_payload, to_payload
from cards.kinds import Kind
from cards.notice import CONTENT_BUDGET, build_edit, build_notice
from cards.shape import Attempt, TurnError
from tests.cards.htmlcheck import check_matrix_html
from tests.cards.strategies import turn_errors

HTML = "org.matrix.custom.html"


def sizes(content: dict[str, Any]) -> tuple[int, int]:
    """Serialized bytes both ways a client may send it: ASCII-escaped and raw UTF-8."""
    return (
        len(json.dumps(content).encode()),
        len(json.dumps(content, ensure_ascii=False).encode("utf-8")),
    )


def fill(size: int, unit: str) -> str:
    return (unit * (size // len(unit.encode("utf-8")) + 1))[: max(0, size)]


# Units whose cost grows when serialized: HTML escapes, JSON escapes, 4-byte characters.
UNITS = ["x", "<&>\"'", "\u202e\x1b\x00\n", "🔥👩‍💻", "é"]
SIZES = [0, 1, 500, 9_000, 29_000, 31_000, 200_000, 1_000_000, 5_000_000]


def chain(message: str) -> TurnError:
    return TurnError(
        kind=Kind.RATE_LIMIT,
        message=message,
        harness="openclaw",
        provider="anthropic",
        model="claude-opus-4-1",
        retry_after=41,
        attempts=(
            Attempt(Kind.RATE_LIMIT, message, "anthropic", "claude-opus-4-1", 429, 41),
            Attempt(Kind.PROVIDER_UNAVAILABLE, "Overloaded " + message[:1000], "anthropic"),
            Attempt(Kind.QUOTA, "quota", "openai", "gpt-5", 429),
        ),
    )


def _recoverable(err: TurnError, content: dict[str, Any], full: str | None) -> None:
    """The whole message, and every attempt's, is in the card or in the text handed back."""
    card = read_payload(content[CARD_KEY])
    assert isinstance(card, TurnError)
    if full is None:
        assert card == err  # the card holds everything
        return
    assert card.message_truncated
    assert full.startswith(err.message)
    for a in err.attempts:
        assert a.message in full


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("size", SIZES)
def test_any_message_fits_the_budget(size: int, unit: str) -> None:
    err = chain(fill(size, unit))
    notice = build_notice(err)
    content = notice.content
    assert max(sizes(content)) <= CONTENT_BUDGET
    assert content["msgtype"] == "m.notice" and content["format"] == HTML
    assert content["m.mentions"] == {}
    _recoverable(err, content, notice.full_message)
    # A shortened preview always says so.
    if len(content["body"]) < len(err.message):
        assert "more characters not shown here" in content["body"]
        assert "not shown here" in check_matrix_html(content["formatted_body"]).data
    if notice.full_message is not None:
        assert "travels separately" in content["body"]


def test_small_messages_travel_whole_everywhere() -> None:
    err = chain("Number of request tokens has exceeded your per-minute rate limit")
    notice = build_notice(err)
    assert notice.full_message is None
    assert err.message in notice.content["body"]
    assert read_payload(notice.content[CARD_KEY]) == err


def test_the_card_keeps_a_message_whole_when_only_the_prose_must_shrink() -> None:
    err = TurnError(Kind.BAD_REQUEST, fill(9_000, "<&>"), "codex", "openai", "gpt-5")
    notice = build_notice(err)
    assert notice.full_message is None
    assert read_payload(notice.content[CARD_KEY]) == err
    assert "more characters not shown here" in notice.content["body"]


def test_the_bot_attaches_the_full_text_and_rebuilds() -> None:
    err = chain(fill(200_000, "y"))
    first = build_notice(err)
    assert first.full_message is not None
    again = build_notice(dataclasses.replace(err, message_file="mxc://example.org/whole"))
    card = read_payload(again.content[CARD_KEY])
    assert isinstance(card, TurnError) and card.message_file == "mxc://example.org/whole"
    assert "mxc://" not in again.content["body"]
    assert "in the file roombot-message.txt, sent as a reply" in again.content["body"]
    assert max(sizes(again.content)) <= CONTENT_BUDGET


def test_absurd_names_and_attempt_lists_still_fit() -> None:
    many = tuple(
        Attempt(Kind.QUOTA, f"try {i} " + "z" * 300, "p" * 5_000, f"model-{i}", 429)
        for i in range(500)
    )
    err = TurnError(Kind.QUOTA, "q" * 50_000, "h" * 100_000, "p" * 50_000, attempts=many)
    notice = build_notice(err)
    assert max(sizes(notice.content)) <= CONTENT_BUDGET
    assert notice.full_message is not None
    assert "480 more attempts" in notice.content["body"]
    _recoverable(err, notice.content, notice.full_message)


def test_a_smaller_budget_is_honoured() -> None:
    err = chain(fill(20_000, "x"))
    for budget in (8_000, 12_000, 20_000):
        notice = build_notice(err, budget=budget)
        assert max(sizes(notice.content)) <= budget


def test_numbers_are_integers_only() -> None:
    notice = build_notice(chain("m"))

    def walk(value: object) -> None:
        assert not isinstance(value, float)
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(notice.content)


def test_loud_rooms_mention_and_pill() -> None:
    users = ["@alice:example.org", "@bob:example.org"]
    notice = build_notice(chain("m"), msgtype="m.text", mentions=users)
    content = notice.content
    assert content["msgtype"] == "m.text"
    assert content["m.mentions"] == {"user_ids": users}
    parsed = check_matrix_html(content["formatted_body"])
    hrefs = [v for t, k, v in parsed.attrs if t == "a" and k == "href"]
    assert hrefs == [f"https://matrix.to/#/{u}" for u in users]
    assert all(u in content["body"] for u in users)


def test_edit_repeats_the_card_in_new_content() -> None:
    err = dataclasses.replace(chain("m"), recovered=True)
    edit = build_edit("$abc:example.org", err)
    new = edit["m.new_content"]
    assert new[CARD_KEY] == to_payload(err)
    assert new["msgtype"] == edit["msgtype"] == "m.notice"
    assert edit["m.relates_to"] == {"rel_type": "m.replace", "event_id": "$abc:example.org"}
    assert edit["body"].startswith("* ")
    assert "m.mentions" in edit and "m.mentions" in new
    assert "Recovered" in new["body"]
    assert max(sizes(edit)) <= CONTENT_BUDGET


def test_edit_of_a_huge_card_fits_too() -> None:
    err = dataclasses.replace(chain(fill(1_000_000, "<")), recovered=True)
    edit = build_edit("$abc:example.org", err)
    assert max(sizes(edit)) <= CONTENT_BUDGET


@settings(max_examples=60, deadline=None)
@given(turn_errors)
def test_any_card_builds_a_notice_under_budget(err: TurnError) -> None:
    notice = build_notice(err)
    assert max(sizes(notice.content)) <= CONTENT_BUDGET
    check_matrix_html(notice.content["formatted_body"])
    _recoverable(err, notice.content, notice.full_message)


@pytest.mark.parametrize("unit", ["<", "🔥", "x", "\u202e"])
def test_edit_with_long_names_fits(unit: str) -> None:
    err = TurnError(
        Kind.QUOTA, fill(40_000, unit), unit * 2_000, unit * 2_000, unit * 2_000, recovered=True
    )
    edit = build_edit("$abc:example.org", err)
    assert max(sizes(edit)) <= CONTENT_BUDGET
    check_matrix_html(edit["formatted_body"])
    check_matrix_html(edit["m.new_content"]["formatted_body"])


@pytest.mark.parametrize("unit", ["<", "🔥", "x", "\u202e"])
def test_notice_with_long_names_fits(unit: str) -> None:
    err = TurnError(Kind.QUOTA, fill(40_000, unit), unit * 2_000, unit * 2_000, unit * 2_000)
    notice = build_notice(err)
    assert max(sizes(notice.content)) <= CONTENT_BUDGET
    assert notice.full_message is not None and notice.full_message.startswith(err.message)


def test_the_budget_fits_an_encrypted_event() -> None:
    # Measured against Synapse: a 40 KB plaintext content went through encrypted, 50 KB
    # did not. Olm/Megolm base64 grows the ciphertext by 4/3; Matrix caps events at 65,536.
    assert CONTENT_BUDGET <= 40_000
    assert CONTENT_BUDGET * 4 // 3 + 4_096 < 65_536


def test_hostile_user_ids_in_mentions_are_escaped() -> None:
    users = ['@a:b"><script>x</script>', "@c:d/#/@e:f?x=<i>"]
    content = build_notice(chain("m"), msgtype="m.text", mentions=users).content
    parsed = check_matrix_html(content["formatted_body"])
    assert "script" not in parsed.tags and "i" not in parsed.tags
    assert all(u in parsed.data for u in users)
    hrefs = [v for t, k, v in parsed.attrs if t == "a" and k == "href"]
    assert len(hrefs) == 2 and all(h.startswith("https://matrix.to/#/") for h in hrefs)
    assert all("<" not in h and '"' not in h for h in hrefs)
    assert content["m.mentions"] == {"user_ids": users}


def test_absurd_input_still_names_the_file_as_the_file_event_does() -> None:
    turn = "acp-session-0b7e2c1a-5f3d-4e8b-9a6c-2d1f0e9b8a7c-turn-17"  # 56 characters
    # Astral names cost 12 bytes a character escaped: the names are cut below 64.
    many = tuple(
        Attempt(Kind.QUOTA, "z" * 300, "\U0001d52d" * 5_000, "\U0001d52a" * 500, 429)
        for i in range(500)
    )
    err = TurnError(
        Kind.QUOTA,
        "q" * 50_000,
        "\U0001d525" * 100_000,
        "\U0001d52d" * 50_000,
        "\U0001d52a" * 50_000,
        attempts=many,
        turn=turn,
    )
    notice = build_notice(dataclasses.replace(err, message_file="mxc://example.org/whole"))
    assert notice.full_message is not None  # step 4: names cut, the list cut
    assert max(sizes(notice.content)) <= CONTENT_BUDGET
    assert f"in the file {file_name(turn)}, sent as a reply" in notice.content["body"]
