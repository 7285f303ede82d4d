"""`!roombot silence`, `silences`, `unsilence`: parsed from hostile text, answered inertly."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roombot import roomcommands as rc
from roombot import silences
from roombot.silence_store import ID_SHAPE, silence_id
from roombot.silences import Silence

NAMES = ("openclaw", "pi")
# The tags the answers use; anything else in the HTML would be foreign text let through.
TAGS = re.compile(r"</?(p|b|ul|li|code|br|i|pre)>")
HIDDEN = re.compile(r"[\u0000-\u0008\u000b-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "!roombot silence kind=quota provider=openai 2h spent, see #ops",
            rc.SetSilence((("kind", "quota"), ("provider", "openai")), 7200.0, "spent, see #ops"),
        ),
        ("!roombot silence model=gpt-5* 1h30m", rc.SetSilence((("model", "gpt-5*"),), 5400.0)),
        (
            "!roombot  silence\tnode=gpu-1   2H  a   b",
            rc.SetSilence((("node", "gpu-1"),), 7200.0, "a b"),
        ),
        ("!roombot silences", rc.ListSilences()),
        ("!roombot unsilence s4k2m9q", rc.Unsilence("s4k2m9q")),
        ("!roombot unsilence S4K2M9Q", rc.Unsilence("s4k2m9q")),
    ],
)
def test_silence_commands_parse(body: str, expected: rc.Command) -> None:
    assert rc.parse(body, NAMES) == expected


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("!roombot silence kind=quota", "no duration like 30m, 2h or 1d was given"),
        ("!roombot silence 2h", "needs at least one matcher"),
        ("!roombot silence quota 2h", "'quota' is not field=value"),
        ("!roombot silence colour=red 2h", "'colour' is not one of kind, provider"),
        ("!roombot silence kind=quota kind=auth 2h", "kind is given twice"),
        ("!roombot silence kind=nothing 2h", "'nothing' is no kind"),
        ("!roombot silence provider=<b>x</b> 2h", "the value of provider must be"),
        ("!roombot silence kind=quota 30s", "a silence lasts from 1m to 30d"),
        ("!roombot silence kind=quota 31d", "a silence lasts from 1m to 30d"),
        ("!roombot silence kind=quota 2h " + "x" * 201, "the reason is longer than 200"),
        ("!roombot silences now", "`silences` takes nothing more"),
        ("!roombot unsilence", "takes one silence ID"),
        ("!roombot unsilence s1 s2", "takes one silence ID"),
        ("!roombot unsilence silence", "'silence' is not a silence ID"),
        ("!roombot unsilence s4k2m9i", "is not a silence ID"),  # i is no Crockford letter
    ],
)
def test_malformed_silences_say_what_is_wrong(body: str, says: str) -> None:
    got = rc.parse(body, NAMES)
    assert isinstance(got, rc.Usage), got
    assert says in got.problem, got.problem


def test_a_hostile_matcher_is_named_visibly() -> None:
    got = rc.parse("!roombot silence \u202ekind\u200b=quota 2h", NAMES)
    assert isinstance(got, rc.Usage)
    # written out (repr's escape or the cards' marker), never the raw character
    assert not HIDDEN.search(got.problem)
    assert "\\u202e" in got.problem or "⟦RLO⟧" in got.problem


def test_every_id_the_store_makes_is_one_the_parser_takes() -> None:
    for i in range(2000):
        sid = silence_id(f"$event{i}")
        assert ID_SHAPE.fullmatch(sid)
        assert rc.parse(f"!roombot unsilence {sid}", NAMES) == rc.Unsilence(sid)
    schema = json.loads(
        open("roombot/api/schemas/silences.v1.json", encoding="utf-8").read()  # noqa: SIM115
    )
    pattern = schema["properties"]["silences"]["items"]["properties"]["id"]["pattern"]
    assert re.fullmatch(pattern.strip("^$"), silence_id("$x"))
    assert all(
        bool(re.fullmatch(pattern.strip("^$"), w)) == bool(ID_SHAPE.fullmatch(w))
        for w in ("s0000000", "s00000", "sabcdefg", "sabcdefi", "sABCDEF", "t123456", "s12345z")
    )


def _inert(answer: rc.Answer) -> None:
    content = rc.content(answer)
    assert content["m.mentions"] == {} and content["msgtype"] == "m.notice"
    assert "<" not in TAGS.sub("", answer.html), answer.html
    assert not HIDDEN.search(answer.plain) and not HIDDEN.search(answer.html)
    json.dumps(content, ensure_ascii=False).encode()  # sendable


_free = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Zs", "Zl", "Zp", "Cc")),
    min_size=1,
    max_size=40,
)
words = st.one_of(
    st.sampled_from(
        [
            "kind=quota",
            "provider=openai",
            "model=gpt-5*",
            "node=gpu-1",
            "kind=*",
            "2h",
            "1h30m",
            "30s",
            "31d",
            "@room",
            "<b>",
            "\u202e",
            "=",
            "kind=",
            "=quota",
        ]
    ),
    st.builds(lambda f, v: f"{f}={v}", st.sampled_from([*silences.FIELDS, "x"]), _free),
    _free,
)


@given(st.lists(words, max_size=12))
def test_any_silence_words_give_a_valid_silence_or_a_usage_that_is_inert(
    tail: list[str],
) -> None:
    got = rc.parse("!roombot silence " + " ".join(tail), NAMES)
    assert isinstance(got, rc.SetSilence | rc.Usage), got
    if isinstance(got, rc.Usage):
        assert not HIDDEN.search(got.problem), got.problem
        _inert(rc.usage_answer(got.problem, 50, NAMES))
        return
    assert 1 <= len(got.matchers) <= silences.MAX_MATCHERS
    assert all(f in silences.FIELDS and silences.VALUE.fullmatch(v) for f, v in got.matchers)
    assert silences.MIN_DURATION <= got.duration <= silences.MAX_DURATION
    assert len(got.reason) <= silences.MAX_REASON


@given(st.text(max_size=300))
def test_any_unsilence_text_is_an_id_or_a_usage(tail: str) -> None:
    got = rc.parse("!roombot unsilence " + tail, NAMES)
    assert isinstance(got, rc.Unsilence | rc.Usage)
    if isinstance(got, rc.Unsilence):
        assert ID_SHAPE.fullmatch(got.id)
    else:
        _inert(rc.usage_answer(got.problem, 50, NAMES))


def _silence(reason: str = "", by: str = "@mod:hs", **kw: object) -> Silence:
    base: dict[str, object] = {
        "id": "s4k2m9q",
        "rooms": frozenset({"!r"}),
        "matchers": (("kind", "quota"), ("provider", "openai")),
        "starts": 1_764_597_600.0,  # 2025-12-01 14:00 UTC
        "ends": 1_764_597_600.0 + 7200,
        "reason": reason,
        "by": by,
    }
    base.update(kw)
    return Silence(**base)  # type: ignore[arg-type]


def test_the_set_answer_says_what_until_when_and_how_to_lift() -> None:
    a = rc.silence_answer(_silence("spent"))
    assert a.plain.splitlines() == [
        "Silenced kind=quota provider=openai in this room for 2h, until 2025-12-01 16:00 UTC "
        "(ID s4k2m9q).",
        "Reason: spent",
        "Matching failures post no card while it holds; one notice sums them up when it ends. "
        "Lift it sooner with: !roombot unsilence s4k2m9q",
    ]
    assert "<code>!roombot unsilence s4k2m9q</code>" in a.html
    _inert(a)


def test_the_list_shows_id_matchers_until_by_and_reason_and_is_bounded() -> None:
    assert rc.silences_answer([]).plain == "No silence is active in this room."
    many = [_silence(f"r{i}", id=f"s00000{i % 10}") for i in range(rc.LISTED + 5)]
    a = rc.silences_answer(many)
    lines = a.plain.splitlines()
    assert lines[0] == f"Silences active in this room ({rc.LISTED + 5}):"
    assert lines[1] == (
        "  s000000  kind=quota provider=openai — until 2025-12-01 16:00 UTC — by @mod:hs — r0"
    )
    assert len(lines) == 1 + rc.LISTED + 1 and "… and 5 more" in lines[-1]
    _inert(a)


HOSTILE = '@room <script>x</script> <a href="https://evil">y</a> \u202e\x1b[2J\u200b'


@given(st.text(max_size=400), st.text(max_size=200))
def test_answers_show_any_reason_and_sender_inertly(reason: str, by: str) -> None:
    s = _silence(reason, by, lifted=1_764_598_000.0, lifted_by=by)
    for a in (
        rc.silence_answer(s),
        rc.silences_answer([s]),
        rc.lifted_answer(s, True),
        rc.lifted_answer(s, False),
    ):
        _inert(a)
        assert len(a.plain) < 2_000


def test_a_hostile_reason_is_visible_escaped_and_cut() -> None:
    a = rc.silences_answer([_silence(HOSTILE * 20, by=HOSTILE)])
    assert "<script>" not in a.html and "<a href" not in a.html and "&lt;script&gt;" in a.html
    assert "⟦RLO⟧" in a.plain and "more characters not shown" in a.plain
    _inert(a)


def test_lift_answers() -> None:
    s = _silence(lifted=1_764_598_200.0, lifted_by="@b:hs")
    assert rc.lifted_answer(s, True).plain == (
        "Lifted silence s4k2m9q (kind=quota provider=openai), set by @mod:hs until "
        "2025-12-01 16:00 UTC; what it held back is summed up next."
    )
    assert rc.lifted_answer(s, False).plain == (
        "Silence s4k2m9q (kind=quota provider=openai) was lifted already, at "
        "2025-12-01 14:10 UTC by @b:hs."
    )
    assert rc.lifted_answer(_silence(), False).plain.endswith(
        "has ended already, at 2025-12-01 16:00 UTC."
    )


def test_help_lists_the_silence_commands_and_refusals_name_them() -> None:
    h = rc.help_answer(50, NAMES)
    for line in (
        "!roombot silence MATCHER... DURATION [REASON]",
        "!roombot silences",
        "!roombot unsilence ID",
        "!roombot reporters plan NODE NAME enable|disable",
    ):
        assert f"  {line} — " in h.plain and f"<code>{line}</code>" in h.html.replace("&gt;", ">")
    assert "kind, provider, harness, model, node" in h.plain
    _inert(h)
    r = rc.refusal(rc.SetSilence((("kind", "quota"),), 60.0), 0, 50)
    assert r.plain == (
        "Refused: only members with power level 50 or more may run !roombot silence in this "
        "room; your power level here is 0."
    )
    assert "may run !roombot unsilence in" in rc.refusal(rc.Unsilence("s000000"), 0, 50).plain
    assert "may run roombot commands in" in rc.refusal(rc.Help(), 0, 50).plain


def test_spans_read_as_typed() -> None:
    assert [rc.span(x) for x in (60, 5400, 7200, 86400 * 3 + 3600, 45, 0)] == [
        "1m",
        "1h30m",
        "2h",
        "3d1h",
        "45s",
        "0s",
    ]
