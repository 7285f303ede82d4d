"""The room command parser, the reading rules and the answers: hostile text stays inert."""

from __future__ import annotations

import html
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roombot import roomcommands as rc

NAMES = ("openclaw", "pi")
DIGEST = "ab" * 32


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("!roombot", rc.Help()),
        ("  !roombot help ", rc.Help()),
        ("!RoomBot help", rc.Help()),
        ("!roombot reporters plan gpu-1 pi enable", rc.Plan("gpu-1", "pi", "enable")),
        ("!roombot reporters plan a.b_c openclaw disable", rc.Plan("a.b_c", "openclaw", "disable")),
        (f"!roombot reporters apply gpu-1 {DIGEST}", rc.Apply("gpu-1", DIGEST)),
        (f"!roombot   reporters\napply\tgpu-1  {DIGEST}", rc.Apply("gpu-1", DIGEST)),
    ],
)
def test_commands_parse(body: str, expected: rc.Command) -> None:
    assert rc.parse(body, NAMES) == expected


@pytest.mark.parametrize(
    "body", ["hello", "!roombots help", "roombot help", "", "   ", "! roombot help", "x !roombot"]
)
def test_messages_not_for_the_bot_are_none(body: str) -> None:
    assert rc.parse(body, NAMES) is None


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("!roombot silence 2h", "needs at least one matcher"),
        ("!roombot silenc kind=quota 2h", "unknown command 'silenc'"),
        ("!roombot reporters", "needs `plan` or `apply`"),
        ("!roombot reporters plan gpu-1 pi", "takes NODE NAME enable|disable"),
        ("!roombot reporters plan gpu-1 hermes enable", "no reporter named 'hermes' (known: "),
        ("!roombot reporters plan gpu-1 pi destroy", "'destroy' is not enable or disable"),
        ("!roombot reporters plan ../etc pi enable", "'../etc' is not a node name"),
        ("!roombot reporters plan @room pi enable", "'@room' is not a node name"),
        ("!roombot reporters apply gpu-1 ABCD", "is not a plan digest (64 hex digits)"),
        (f"!roombot reporters apply gpu-1 {DIGEST.upper()}", "is not a plan digest"),
        ("!roombot reporters apply gpu-1", "takes NODE DIGEST"),
        ("!roombot reporters remove gpu-1", "unknown reporters command 'remove'"),
        ("!roombot help " + "x" * 2000, "longer than 1000 characters"),
    ],
)
def test_malformed_commands_say_what_is_wrong(body: str, says: str) -> None:
    got = rc.parse(body, NAMES)
    assert isinstance(got, rc.Usage)
    assert says in got.problem


def test_a_hostile_word_is_shown_cut_and_visible() -> None:
    got = rc.parse("!roombot \u202eevil" + "x" * 300, NAMES)
    assert isinstance(got, rc.Usage)
    assert "\u202e" not in got.problem and "⟦RLO⟧" in got.problem
    assert len(got.problem) < 100


@given(st.text(max_size=300))
def test_any_text_parses_or_is_ignored_and_every_answer_is_inert(tail: str) -> None:
    got = rc.parse("!roombot " + tail, NAMES)
    assert got is not None
    if isinstance(got, rc.Usage):
        answer = rc.usage_answer(got.problem, 50, NAMES)
        content = rc.content(answer)
        assert content["m.mentions"] == {}
        assert "<" not in re.sub(r"</?(p|b|ul|li|code|br|i|pre)>", "", answer.html)
        json.dumps(content, ensure_ascii=False).encode()  # sendable


def msg(**over: object) -> rc.Incoming:
    base: dict[str, object] = {
        "room": "!r",
        "event_id": "$e",
        "sender": "@mod:hs",
        "body": "!roombot help",
        "msgtype": "m.text",
        "ts_ms": 1_000_000,
    }
    return rc.Incoming(**{**base, **over})  # type: ignore[arg-type]


def test_screen_reads_only_fresh_text_from_others() -> None:
    kw = {"me": "@bot:hs", "now_ms": 1_000_500, "since_ms": 900_000}
    assert rc.screen(msg(), **kw) is None
    assert rc.screen(msg(msgtype="m.notice"), **kw) is rc.Ignored.NOT_TEXT
    assert rc.screen(msg(sender="@bot:hs"), **kw) is rc.Ignored.OWN
    assert rc.screen(msg(edit=True), **kw) is rc.Ignored.EDIT
    assert rc.screen(msg(ts_ms=899_999), **kw) is rc.Ignored.OLD  # before the bot read commands
    late = {**kw, "now_ms": 1_000_000 + rc.MAX_AGE_MS + 1}
    assert rc.screen(msg(), **late) is rc.Ignored.OLD  # older than the horizon


def test_permission_is_at_or_above_the_rooms_level() -> None:
    assert rc.permitted(50, 50) and rc.permitted(100, 50)
    assert not rc.permitted(49, 50) and not rc.permitted(0, 1)


def test_refusal_says_why_with_the_level() -> None:
    a = rc.refusal(rc.Plan("gpu-1", "pi", "enable"), 0, 50)
    assert a.plain == (
        "Refused: only members with power level 50 or more may run !roombot reporters plan "
        "in this room; your power level here is 0."
    )
    assert "power level 50" in a.html


HOSTILE = (
    '@room <script>alert(1)</script> <a href="https://matrix.to/#/@ceo:hs">x</a> \u202e\x1b[2J'
)


def test_plan_answer_shows_digest_versions_and_an_inert_diff() -> None:
    diff = f"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-{HOSTILE}\n+ok\n"
    a = rc.plan_answer(
        rc.Plan("gpu-1", "pi", "enable"), DIGEST, diff, {"pi": "0.70.0", "openclaw": None}
    )
    assert DIGEST in a.plain and f"!roombot reporters apply gpu-1 {DIGEST}" in a.plain
    assert "openclaw not found, pi 0.70.0" in a.plain
    assert "<script>" not in a.html and "<a href" not in a.html
    assert "&lt;script&gt;" in a.html and "\u202e" not in a.html and "\x1b" not in a.plain
    assert '<pre><code class="language-diff">' in a.html
    assert rc.content(a)["m.mentions"] == {} and rc.content(a)["msgtype"] == "m.notice"
    # what the HTML says is what the diff said (made visible), nothing lost
    inner = a.html.split('class="language-diff">')[1].split("</code>")[0]
    assert html.unescape(inner) == rc.foreign(diff, 10**6)


def test_a_long_diff_is_cut_at_a_line_with_a_note() -> None:
    diff = "".join(f"+line {i}\n" for i in range(1000))
    a = rc.plan_answer(rc.Plan("n", "pi", "enable"), DIGEST, diff, {})
    assert f"+line {rc.DIFF_LINES - 1}\n" in a.plain and f"+line {rc.DIFF_LINES}\n" not in a.plain
    assert f"{1000 - rc.DIFF_LINES:,} more lines not shown" in a.plain
    assert len(json.dumps(rc.content(a))) < 40_000
    one_line = "+" + "x" * 100_000
    b = rc.plan_answer(rc.Plan("n", "pi", "enable"), DIGEST, one_line, {})
    assert len(b.plain) < rc.DIFF_CHARS + 2_000


def test_no_change_plan_says_so() -> None:
    a = rc.plan_answer(rc.Plan("n", "pi", "disable"), DIGEST, "", {"pi": None})
    assert "nothing to change" in a.plain and DIGEST not in a.plain


def test_node_texts_are_bounded_and_visible() -> None:
    a = rc.node_refused(rc.Apply("n", DIGEST), HOSTILE * 1000)
    assert len(a.plain) < rc.TEXT_CHARS + 200 and "more characters not shown" in a.plain
    assert "<script>" not in a.html and "⟦RLO⟧" in a.plain


def test_creators_outrank_everyone_from_room_version_12_only() -> None:
    creators = frozenset({"@alice:hs", "@bob:hs"})
    assert rc.level_of("@alice:hs", 0, creators=creators, room_version="12") == rc.CREATOR_LEVEL
    assert rc.level_of("@bob:hs", 0, creators=creators, room_version="13") == rc.CREATOR_LEVEL
    assert rc.level_of("@carol:hs", 7, creators=creators, room_version="12") == 7
    # before version 12 the creator is listed in m.room.power_levels like anyone
    assert rc.level_of("@alice:hs", 0, creators=creators, room_version="11") == 0
    assert rc.level_of("@alice:hs", 100, creators=creators, room_version="10") == 100
