"""The proxy's small parts: line reassembly, frames, the copy queue, room rules."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roombot.acp import frames
from roombot.acp.lines import LineBuffer, parse_line
from roombot.acp.relay import CopyQueue
from roombot.acp.rooms import RoomConfigError, RoomRules, rules_from_toml

LINES = st.lists(st.binary(max_size=200).map(lambda b: b.replace(b"\n", b"")), max_size=20)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


@given(LINES, st.lists(st.integers(min_value=0), max_size=30))
def test_lines_come_out_whole_however_the_bytes_were_cut(
    lines: list[bytes], cuts: list[int]
) -> None:
    data = b"".join(line + b"\n" for line in lines)
    buf = LineBuffer()
    out = [line for piece in split(data, cuts) for line in buf.feed(piece)]
    assert out == lines


def test_a_gap_drops_the_broken_line_and_resumes_at_the_next() -> None:
    buf = LineBuffer()
    assert buf.feed(b'{"a":1}\n{"b":') == [b'{"a":1}']
    buf.gap()  # the rest of {"b": ... was never copied
    assert buf.feed(b'2}\n{"c":3}\n') == [b'{"c":3}']
    assert buf.stats["gaps"] == 1


def test_a_gap_that_ended_a_line_loses_nothing_more() -> None:
    buf = LineBuffer()
    assert buf.feed(b'{"a":') == []
    buf.gap(at_line_end=True)  # the rest of {"a": ... and its newline were lost
    assert buf.feed(b'{"c":3}\n') == [b'{"c":3}']


def test_a_line_over_the_limit_is_skipped_and_counted_not_held() -> None:
    buf = LineBuffer(max_line=10)
    assert buf.feed(b"0123456789abc") == []
    assert buf.feed(b"more of the same line") == []
    assert buf.feed(b"\nok\n") == [b"ok"]
    assert buf.stats["too_long"] == 1


@pytest.mark.parametrize(
    "line",
    [b"", b"   ", b"\xff\xfe", b"{not json", b"NaN-ish {", b"[" * 100_000],
)
def test_what_is_not_json_is_not_a_message(line: bytes) -> None:
    assert parse_line(line) == (False, None)


def test_json_lines_with_crlf_parse() -> None:
    assert parse_line(b'{"id":1}\r') == (True, {"id": 1})


def test_nan_reads_as_null_so_no_event_carries_it() -> None:
    assert parse_line(b'{"data":NaN,"x":-Infinity}') == (True, {"data": None, "x": None})


@given(
    st.lists(st.tuples(st.sampled_from([b"c", b"a", b"g"]), st.binary(max_size=300))),
    st.lists(st.integers(min_value=0), max_size=20),
)
def test_frames_survive_any_cutting(items: list[tuple[bytes, bytes]], cuts: list[int]) -> None:
    data = b"".join(frames.encode(tag, 1.5, payload) for tag, payload in items)
    reader = frames.FrameReader()
    out = [f for piece in split(data, cuts) for f in reader.feed(piece)]
    assert out == [(tag, 1.5, payload) for tag, payload in items]


def test_the_copy_queue_refuses_past_its_budget_but_always_takes_markers() -> None:
    q = CopyQueue(limit=10)
    assert q.offer(b"12345678")
    assert not q.offer(b"123")  # would pass the budget: refused, never waits
    assert q.offer(b"marker", force=True)
    assert q.take() == b"12345678"
    assert q.offer(b"123")
    q.close()
    assert [q.take(), q.take(), q.take()] == [b"marker", b"123", None]


def test_room_rules_precedence() -> None:
    doc = {
        "room": "!default:x",
        "cwd": {"/src": "!src:x", "/src/web": "!web:x"},
        "harness": {"codex-acp": "!codex:x"},
    }
    rules = rules_from_toml(doc)
    assert rules.resolve(harness="codex-acp", cwd="/src/web/app") == "!web:x"  # longest prefix
    assert rules.resolve(harness="codex-acp", cwd="/src/webshop") == "!src:x"  # not a prefix
    assert rules.resolve(harness="codex-acp", cwd="/elsewhere") == "!codex:x"
    assert rules.resolve(harness="gemini", cwd=None) == "!default:x"
    only = rules_from_toml(doc, room="!given:x")  # --room wins outright
    assert only.resolve(harness="codex-acp", cwd="/src/web") == "!given:x"
    assert RoomRules().resolve(harness="x", cwd=None) is None


@pytest.mark.parametrize(
    ("doc", "names"),
    [
        ({"rooms": {}}, "rooms: unknown key"),
        ({"room": ""}, "room: expected a room id"),
        ({"cwd": "!x:y"}, "cwd: expected a table"),
        ({"harness": {"codex": 3}}, "harness.codex: expected a room id"),
    ],
)
def test_bad_room_config_names_the_key(doc: dict[str, object], names: str) -> None:
    with pytest.raises(RoomConfigError, match=names):
        rules_from_toml(doc)
