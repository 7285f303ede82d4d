"""The card's group part: written and read back exactly, dropped (never an error) when
broken, held to the schema's verdicts, drawn in every form, and kept under the budget."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings

from cards.codec import (
    CARD_KEY,
    MAX_GROUP_TEXT,
    MAX_GROUP_TURNS,
    MAX_INT,
    group_payload,
    loads_payload,
    read_group,
    read_payload,
    sendable,
    to_payload,
)
from cards.event import render_event
from cards.kinds import Kind
from cards.notice import CONTENT_BUDGET, build_edit, build_notice
from cards.render import (
    render_html_fragment,
    render_html_page,
    render_matrix_html,
    render_plain,
)
from cards.shape import Attempt, Group, TurnError
from tests.cards.htmlcheck import check_matrix_html, check_page, flat
from tests.cards.strategies import group_like, groups, json_values, turn_errors
from tests.cards.test_codec import SCHEMA, VALIDATOR, _no_floats
from tests.cards.test_golden import CARDS, GOLDEN, _compare

FAST = settings(max_examples=150, deadline=None)
GROUP_VALIDATOR = jsonschema.Draft202012Validator(
    {**SCHEMA["$defs"]["group"], "$defs": SCHEMA["$defs"]}
)

# 2026-12-01 12:00:00 UTC and times after it, in ms.
NOON = 1_796_126_400_000
MINUTE = 60_000
KEY = (("harness", "codex"), ("kind", "quota"), ("provider", "openai"))

LATEST = TurnError(
    kind=Kind.QUOTA,
    message="You exceeded your current quota, please check your plan and billing details.",
    harness="codex",
    provider="openai",
    model="gpt-5",
    turn="acp/sess-9/37",
    attempts=(Attempt(Kind.QUOTA, "You exceeded your current quota", "openai", "gpt-5", 429),),
)
STORM = Group(
    count=37,
    first_at=NOON,
    last_at=NOON + 41 * MINUTE,
    key=KEY,
    models=("gpt-5", "gpt-5-mini"),
    harnesses=("codex",),
    turns=tuple(f"acp/sess-{i}/1" for i in range(37)),
    threaded=36,
)


def card(group: Group | None = STORM, **changes: Any) -> TurnError:
    return dataclasses.replace(LATEST, group=group, **changes)


# -- the codec ----------------------------------------------------------------------


def test_the_group_part_as_written() -> None:
    payload = to_payload(card(dataclasses.replace(STORM, recovered_at=NOON + 50 * MINUTE)))
    VALIDATOR.validate(payload)
    assert payload["group"] == {
        "v": 1,
        "count": 37,
        "first_at": NOON,
        "last_at": NOON + 41 * MINUTE,
        "key": [["harness", "codex"], ["kind", "quota"], ["provider", "openai"]],
        "models": ["gpt-5", "gpt-5-mini"],
        "harnesses": ["codex"],
        "turns": [f"acp/sess-{i}/1" for i in range(37)],
        "threaded": 36,
        "recovered_at": NOON + 50 * MINUTE,
    }
    # Every other field is the latest failure's: an old reader draws that.
    without = {k: v for k, v in payload.items() if k != "group"}
    assert without == to_payload(LATEST)
    assert read_payload(without) == LATEST


@FAST
@given(groups)
def test_any_group_round_trips_and_validates(group: Group) -> None:
    err = card(group)
    payload = to_payload(err)
    VALIDATOR.validate(payload)
    GROUP_VALIDATOR.validate(payload["group"])
    assert loads_payload(json.dumps(payload)) == err
    assert read_group(group_payload(group)) == group


@FAST
@given(groups)
def test_a_group_is_rebuilt_from_what_the_outbox_stores(group: Group) -> None:
    stored = json.loads(json.dumps(dataclasses.asdict(group)))
    assert Group.from_dict(stored) == group
    whole = json.loads(json.dumps(dataclasses.asdict(card(group))))
    assert Group.from_dict(whole["group"]) == group


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"count": "3"}, TypeError),
        ({"count": True}, TypeError),
        ({"turns": ["a", 1]}, TypeError),
        ({"key": [["kind"]]}, ValueError),
        ({"key": [["kind", 1]]}, TypeError),
    ],
)
def test_from_dict_refuses_a_misshapen_store(change: dict[str, Any], problem: type) -> None:
    stored = {**json.loads(json.dumps(dataclasses.asdict(STORM))), **change}
    with pytest.raises(problem):
        Group.from_dict(stored)
    missing = json.loads(json.dumps(dataclasses.asdict(STORM)))
    del missing["first_at"]
    with pytest.raises(KeyError):
        Group.from_dict(missing)


def _written(**changes: Any) -> dict[str, Any]:
    part = group_payload(STORM)
    for name, value in changes.items():
        if value is ...:
            part.pop(name)
        else:
            part[name] = value
    return part


BROKEN = {
    "not an object": ["v", 1],
    "null": None,
    "version 2": _written(v=2),
    "version 0": _written(v=0),
    "version true": _written(v=True),
    "version 1.0": _written(v=1.0),
    "version missing": _written(v=...),
    "count 0": _written(count=0),
    "count negative": _written(count=-5),
    "count a float": _written(count=37.0),
    "count a string": _written(count="37"),
    "count missing": _written(count=...),
    "count too large": _written(count=2**53),
    "first_at missing": _written(first_at=...),
    "last_at negative": _written(last_at=-1),
    "threaded null": _written(threaded=None),
    "retracted a bool": _written(retracted=False),
    "recovered_at a string": _written(recovered_at="soon"),
    "key an object": _written(key={"kind": "quota"}),
    "key pair of three": _written(key=[["kind", "quota", "x"]]),
    "key pair not strings": _written(key=[["kind", 3]]),
    "key too long": _written(key=[["f", str(i)] for i in range(9)]),
    "models too many": _written(models=[f"m{i}" for i in range(21)]),
    "harnesses too many": _written(harnesses=[f"h{i}" for i in range(21)]),
    "turns too many": _written(turns=[f"t{i}" for i in range(MAX_GROUP_TURNS + 1)]),
    "turns a million": _written(turns=["t"] * 1_000_000),
    "models repeated": _written(models=["gpt-5", "gpt-5"]),
    "model too long": _written(models=["m" * (MAX_GROUP_TEXT + 1)]),
    "key value ten megabytes": _written(key=[["kind", "q" * 10_000_000]]),
    "turn not a string": _written(turns=[{"id": "t"}]),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_broken_group_part_is_dropped_and_the_card_still_reads(name: str) -> None:
    payload = {**to_payload(LATEST), "group": BROKEN[name]}
    assert read_payload(payload) == LATEST
    if name != "null" and _no_floats(BROKEN[name]):
        # The schema refuses what the reader drops (JSON Schema counts 1.0 as an integer).
        assert not VALIDATOR.is_valid(payload)
    text = json.dumps(payload)
    assert loads_payload(text) == LATEST
    shown = render_event({"body": "x", CARD_KEY: payload})
    assert shown.card == LATEST and "turns failed" not in shown.plain


def test_a_group_part_at_its_bounds_is_read() -> None:
    part = _written(
        key=[[f"f{i}", "v" * MAX_GROUP_TEXT] for i in range(8)],
        models=[f"{i}".ljust(MAX_GROUP_TEXT, "m") for i in range(20)],
        harnesses=[f"{i}".ljust(MAX_GROUP_TEXT, "h") for i in range(20)],
        turns=[f"{i}".ljust(MAX_GROUP_TEXT, "t") for i in range(MAX_GROUP_TURNS)],
        count=MAX_INT,
        threaded=MAX_INT,
        retracted=MAX_INT,
        recovered_at=MAX_INT,
        future_field={"anything": [1, 2]},
    )
    group = read_group(part)
    assert group is not None and group.count == MAX_INT and len(group.turns) == MAX_GROUP_TURNS
    assert GROUP_VALIDATOR.is_valid(part)


def test_a_minimal_group_part_reads_with_defaults() -> None:
    group = read_group({"v": 1, "count": 2, "first_at": 5, "last_at": 9, "recovered_at": None})
    assert group == Group(2, 5, 9, (), (), (), (), 0)


def test_lone_surrogates_in_a_group_read_as_replacement_characters() -> None:
    text = json.dumps({**to_payload(LATEST), "group": _written(models=["a\ud800"])})
    err = loads_payload(text)
    assert isinstance(err, TurnError) and err.group is not None
    assert err.group.models == ("a\ufffd",)


@FAST
@given(group_like)
def test_schema_and_reader_give_a_group_part_the_same_verdict(part: dict[str, Any]) -> None:
    group = read_group(part)
    payload = {**to_payload(LATEST), "group": part}
    err = read_payload(payload)
    assert isinstance(err, TurnError) and err.group == group  # the card reads either way
    if _no_floats(part):
        assert (group is not None) == GROUP_VALIDATOR.is_valid(part), group
        assert (group is not None) == VALIDATOR.is_valid(payload)
    if group is not None:
        assert read_group(group_payload(group)) == group


@FAST
@given(json_values)
def test_any_json_value_as_the_group_part_leaves_the_card_readable(value: object) -> None:
    err = read_payload({**to_payload(LATEST), "group": value})
    assert isinstance(err, TurnError) and err.group is None


def test_the_writer_keeps_a_group_within_its_bounds() -> None:
    big = Group(
        count=70,
        first_at=NOON,
        last_at=NOON,
        key=tuple((f"f{i}", "v") for i in range(12)),
        models=("a\ud800", "a\udfff", "b", "a\ud800", *(f"m{i}" for i in range(30))),
        harnesses=("x" * 5_000,),
        turns=tuple(f"t{i}" for i in range(70)),
        threaded=50,
        recovered_at=-1,
    )
    sent = sendable(card(big)).group
    assert sent is not None
    assert len(sent.key) == 8 and len(sent.turns) == 50 and sent.turns[0] == "t0"
    assert sent.models[:2] == ("a\ufffd", "b") and len(sent.models) == 20
    assert sent.harnesses == ("x" * (MAX_GROUP_TEXT - 1) + "…",)
    assert sent.recovered_at is None
    payload = to_payload(card(big))
    VALIDATOR.validate(payload)
    assert read_payload(payload) == sendable(card(big))
    # Nothing true to draw: the card goes out as the latest failure alone.
    for broken in (
        dataclasses.replace(STORM, count=0),
        dataclasses.replace(STORM, first_at=-1),
        dataclasses.replace(STORM, last_at=2**53),
        dataclasses.replace(STORM, threaded=-1),
    ):
        assert sendable(card(broken)).group is None
        assert read_payload(to_payload(card(broken))) == LATEST
    assert sendable(card()) is not None and sendable(card()).group is STORM


# -- drawing ------------------------------------------------------------------------


def test_plain_leads_with_the_count_and_the_key() -> None:
    lines = render_plain(card()).split("\n")
    assert lines[0] == "⚠️ 37 turns failed: quota, openai, codex"
    assert lines[1] == (
        "Since 12:00 UTC (latest 12:41 UTC) · models: gpt-5, gpt-5-mini · harnesses: codex"
    )
    assert lines[2] == "36 of the 37 failed turns have their own card in this card's thread."
    at = lines.index("latest:")
    assert "\n".join(lines[at + 1 :]) == render_plain(LATEST)


def test_a_group_over_midnight_gives_dates() -> None:
    group = dataclasses.replace(STORM, first_at=NOON - 13 * 60 * MINUTE, count=1, threaded=0)
    lines = render_plain(card(group)).split("\n")
    assert lines[0] == "⚠️ 1 turn failed: quota, openai, codex"
    assert lines[1].startswith("Since 2026-11-30 23:00 UTC (latest 2026-12-01 12:41 UTC)")
    assert "thread" not in lines[2]


def test_a_recovered_group_says_when_and_after_how_many() -> None:
    group = dataclasses.replace(STORM, recovered_at=NOON + 50 * MINUTE, retracted=2, threaded=37)
    text = render_plain(card(group))
    lines = text.split("\n")
    assert lines[0] == "✅ Recovered at 12:50 UTC after 37 failures: quota, openai, codex"
    assert "Each failed turn's own card is in this card's thread." in lines
    assert "2 of them recovered later." in lines
    html = render_matrix_html(card(group))
    check_matrix_html(html)
    assert "Recovered at 12:50 UTC after 37 failures" in html
    assert 'data-mx-bg-color="#198038"' in html  # the recovered colour
    fragment = render_html_fragment(card(group))
    assert "group recovered" in fragment and "Recovered at 12:50 UTC" in fragment


def test_a_group_without_known_key_values_still_counts() -> None:
    group = dataclasses.replace(STORM, key=(), models=(), harnesses=())
    lines = render_plain(card(group)).split("\n")
    assert lines[0] == "⚠️ 37 turns failed"
    assert lines[1] == "Since 12:00 UTC (latest 12:41 UTC)"


def test_key_values_in_the_usual_order_then_any_other_field() -> None:
    group = dataclasses.replace(
        STORM, key=(("zone", "eu"), ("node", "build-7"), ("kind", "auth"), ("model", "o3"))
    )
    assert render_plain(card(group)).startswith("⚠️ 37 turns failed: auth, o3, build-7, eu\n")


def test_a_clock_beyond_the_year_9999_is_drawn_as_a_number() -> None:
    group = dataclasses.replace(STORM, first_at=MAX_INT, last_at=MAX_INT)
    assert f"Since {MAX_INT:,} ms after the epoch" in render_plain(card(group))


HOSTILE_NAME = "<script>alert(1)</script>\u202egpt\x1b[31m"


def test_foreign_names_in_the_group_are_escaped_and_shown_in_every_form() -> None:
    group = dataclasses.replace(
        STORM,
        key=(("kind", "quota"), ("provider", HOSTILE_NAME)),
        models=(HOSTILE_NAME, "ok"),
        harnesses=('codex"><img src=x>',),
    )
    err = card(group)
    plain = render_plain(err)
    assert "\u202e" not in plain and "\x1b" not in plain and "⟦RLO⟧" in plain
    matrix = check_matrix_html(render_matrix_html(err))
    page = check_page(render_html_page([err]))
    for parsed in (matrix, page):
        assert "script" not in parsed.tags and "img" not in parsed.tags
        data = flat(parsed.data)
        assert "<script>alert(1)</script>⟦RLO⟧gpt␛[31m" in data
        assert 'codex"><img src=x>' in data
        assert "\u202e" not in data and "\x1b" not in data


def test_every_form_draws_the_latest_failure_inside_the_group_card() -> None:
    err = card()
    matrix = render_matrix_html(err)
    assert matrix.endswith(render_matrix_html(LATEST))
    assert "<strong>latest:</strong>" in matrix
    fragment = check_page(render_html_page([err]))
    assert "h4" in fragment.tags  # the latest failure's title under the group's
    assert LATEST.message in flat(fragment.data)


@FAST
@given(turn_errors)
def test_a_group_card_ends_with_its_latest_failure_drawn_as_before(err: TurnError) -> None:
    grouped = dataclasses.replace(err, group=STORM)
    plain = render_plain(grouped)
    assert plain.endswith("latest:\n" + render_plain(dataclasses.replace(err, group=None)))
    assert render_matrix_html(grouped).endswith(
        render_matrix_html(dataclasses.replace(err, group=None))
    )


# -- the notice ---------------------------------------------------------------------


def _sizes(content: dict[str, Any]) -> int:
    return max(
        len(json.dumps(content).encode()),
        len(json.dumps(content, ensure_ascii=False).encode("utf-8")),
    )


def test_a_real_sized_storm_travels_whole_beside_a_huge_message() -> None:
    group = Group(
        count=12_345,
        first_at=NOON,
        last_at=NOON + 25 * 60 * MINUTE,
        key=(
            ("harness", "claude-code"),
            ("kind", "provider_unavailable"),
            ("node", "build-7"),
            ("provider", "openrouter"),
        ),
        models=tuple(f"anthropic/claude-sonnet-4-5-2025092{i}" for i in range(20)),
        harnesses=tuple(f"harness-{i}" for i in range(20)),
        turns=tuple(
            f"acp-session-0b7e2c1a-5f3d-4e8b-9a6c-2d1f0e9b8a7c-turn-{i}" for i in range(50)
        ),
        threaded=50,
        recovered_at=NOON + 26 * 60 * MINUTE,
        retracted=3,
    )
    err = card(group, message="x" * 5_000_000)
    notice = build_notice(err)
    assert _sizes(notice.content) <= CONTENT_BUDGET
    got = read_payload(notice.content[CARD_KEY])
    assert isinstance(got, TurnError) and got.group == group
    assert notice.content["body"].startswith("✅ Recovered at 2026-12-02 14:00 UTC after 12,345")
    edit = build_edit("$group:example.org", err)
    assert _sizes(edit) <= CONTENT_BUDGET
    assert edit["body"].startswith("* ✅ Recovered at")


@pytest.mark.parametrize("unit", ["x", "<", "🔥", "\u202e", "\U000e0068", "\x1b"])
def test_a_maximal_group_with_a_maximal_message_fits_one_event(unit: str) -> None:
    def text(i: int) -> str:
        return (str(i) + unit * MAX_GROUP_TEXT)[:MAX_GROUP_TEXT]

    group = Group(
        count=MAX_INT,
        first_at=0,
        last_at=MAX_INT,
        key=tuple((text(i), text(i + 100)) for i in range(8)),
        models=tuple(text(i) for i in range(20)),
        harnesses=tuple(text(i + 20) for i in range(20)),
        turns=tuple(text(i + 40) for i in range(50)),
        threaded=MAX_INT,
        recovered_at=MAX_INT,
        retracted=MAX_INT,
    )
    err = TurnError(
        Kind.QUOTA,
        unit * 1_000_000,
        unit * 2_000,
        unit * 2_000,
        unit * 2_000,
        attempts=(Attempt(Kind.QUOTA, unit * 1_000_000, unit * 2_000, unit * 2_000, 429),),
        group=group,
        turn="t",
    )
    notice = build_notice(err)
    assert _sizes(notice.content) <= CONTENT_BUDGET
    check_matrix_html(notice.content["formatted_body"])
    got = read_payload(notice.content[CARD_KEY])
    assert isinstance(got, TurnError) and got.group is not None
    assert got.group.count == MAX_INT  # the count is never cut
    # What the card no longer lists is said aloud and travels in the whole text.
    assert notice.full_message is not None
    if len(got.group.turns) < 50:
        assert "more turn ids" in notice.content["body"]
    for turn in sendable(err).group.turns:  # type: ignore[union-attr]
        assert turn in notice.full_message
    edit = build_edit("$group:example.org", err)
    assert _sizes(edit) <= CONTENT_BUDGET


# -- golden files -------------------------------------------------------------------

GROUP_CARDS: dict[str, TurnError] = {
    "group_storm": card(),
    "group_recovered": dataclasses.replace(
        CARDS["fallback_chain"],
        group=Group(
            count=212,
            first_at=NOON - 60 * MINUTE,
            last_at=NOON + 14 * 60 * MINUTE,
            key=(("kind", "rate_limit"), ("provider", "anthropic")),
            models=("claude-opus-4-1", "claude-sonnet-4-5"),
            harnesses=("openclaw", "claude-code"),
            turns=("t1", "t2"),
            threaded=50,
            recovered_at=NOON + 15 * 60 * MINUTE,
            retracted=4,
        ),
    ),
    "group_hostile": dataclasses.replace(
        CARDS["hostile_markup"],
        group=Group(
            count=3,
            first_at=NOON,
            last_at=NOON,
            key=(("kind", "refusal"), ("harness", "codex <b>cli</b>")),
            models=('gpt-5"><script>x</script>', "\u202ex\u200d"),
            harnesses=("codex <b>cli</b>",),
            turns=("a", "b", "c"),
            threaded=3,
        ),
    ),
}


def _content(err: TurnError) -> str:
    notice = build_notice(err)
    record = {"content": notice.content, "full_message_chars": None}
    if notice.full_message is not None:
        record["full_message_chars"] = len(notice.full_message)
    return json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True)


@pytest.mark.parametrize(
    ("suffix", "form"),
    [
        (".txt", render_plain),
        (".matrix.html", render_matrix_html),
        (".html", render_html_fragment),
        (".content.json", _content),
    ],
)
@pytest.mark.parametrize("name", list(GROUP_CARDS))
def test_group_golden(name: str, suffix: str, form: Any) -> None:
    actual = form(GROUP_CARDS[name])
    if suffix == ".matrix.html":
        check_matrix_html(actual)
    elif suffix == ".html":
        check_page(actual)
    _compare(GOLDEN / f"{name}{suffix}", actual)


def test_group_golden_page() -> None:
    page = render_html_page(GROUP_CARDS.values(), title="roombot group cards")
    check_page(page)
    _compare(GOLDEN / "group_page.html", page)
