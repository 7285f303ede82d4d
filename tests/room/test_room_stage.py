"""The room stage without a server: where cards go, group cards, reactions, silences."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from cards import Kind, TurnError
from roombot.room import (
    Card,
    GroupEdit,
    Opened,
    Place,
    Placement,
    React,
    Ref,
    RoomAction,
    RoomPolicy,
    RoomStage,
    Summary,
    Unreact,
)
from roombot.silences import Silence
from roombot.turns import Post, Retract

ROOM = "!ops:x"


def err(turn: str, kind: Kind = Kind.QUOTA, provider: str = "openai", **kw: object) -> TurnError:
    base: dict[str, object] = {
        "kind": kind,
        "message": f"{kind} at {provider}",
        "harness": "codex",
        "provider": provider,
        "model": "gpt-5",
        "turn": turn,
    }
    base.update(kw)
    return TurnError(**base)  # type: ignore[arg-type]


def post(turn: str, **kw: object) -> Post:
    return Post(ROOM, turn, err(turn, **kw))  # type: ignore[arg-type]


def opened(turn: str, trigger: str | None = None, thread: str | None = None) -> Opened:
    return Opened(turn, ROOM, "codex", "openai", "gpt-5", None, trigger, thread)


def cards(actions: Sequence[RoomAction]) -> list[Card]:
    return [a for a in actions if isinstance(a, Card)]


def test_a_card_goes_into_its_triggers_thread_with_the_reply_fallback() -> None:
    stage = RoomStage()
    stage.opened(opened("t1", trigger="$ask", thread="$root"), 0)
    [card] = cards(stage.decided(post("t1"), 1))
    assert card.place == Place(thread=Ref(event="$root"), reply=Ref(event="$ask"))
    stage.opened(opened("t2", trigger="$ask2"), 2)
    [card] = cards(stage.decided(post("t2", kind=Kind.AUTH), 3))
    assert card.place == Place(thread=Ref(event="$ask2"), reply=Ref(event="$ask2"))


def test_reply_and_timeline_placements() -> None:
    reply = RoomStage(default=RoomPolicy(placement=Placement.REPLY))
    reply.opened(opened("t1", trigger="$ask"), 0)
    [card] = cards(reply.decided(post("t1"), 1))
    assert card.place == Place(reply=Ref(event="$ask"))
    timeline = RoomStage(default=RoomPolicy(placement=Placement.TIMELINE))
    timeline.opened(opened("t1", trigger="$ask"), 0)
    [card] = cards(timeline.decided(post("t1"), 1))
    assert card.place == Place()
    [card] = cards(RoomStage().decided(post("t9"), 1))  # no trigger: the timeline
    assert card.place == Place()


def test_a_storm_folds_into_one_group_card_edited_at_most_once_per_interval() -> None:
    stage = RoomStage(default=RoomPolicy(group_interval=30, group_window=600))
    out: list[RoomAction] = []
    for i in range(100):
        out += stage.decided(post(f"t{i}"), float(i))  # one failure a second
    out += stage.tick(1000.0)
    timeline = [c for c in cards(out) if c.place.thread is None]
    assert [c.key for c in timeline] == ["t0/post"]  # the first card became the group card
    threaded = [c for c in cards(out) if c.place.thread is not None]
    assert len(threaded) == 50 and all(c.place.thread == Ref(notice="t0/post") for c in threaded)
    edits = [a for a in out if isinstance(a, GroupEdit)]
    assert 3 <= len(edits) <= 5  # 100 s of storm, 30 s apart, plus the end of the burst
    last = edits[-1].error.group
    assert last is not None and last.count == 100 and last.threaded == 50
    assert edits[-1].error.turn == "t99"  # an old reader draws the latest failure


def test_two_kinds_make_two_groups_and_a_recovery_ends_only_its_own() -> None:
    stage = RoomStage()
    out: list[RoomAction] = []
    for i in range(10):
        out += stage.decided(post(f"q{i}"), float(i))
        out += stage.decided(post(f"u{i}", kind=Kind.PROVIDER_UNAVAILABLE, provider="x"), i + 0.5)
    stage.opened(Opened("ok", ROOM, "codex", "openai", "gpt-5"), 20)
    out += stage.closed("ok", answered=True, now=21)
    recovered = [a for a in out if isinstance(a, GroupEdit) and a.key.endswith("/recovered")]
    assert [a.target for a in recovered] == ["q0/post"]
    assert recovered[0].error.group is not None and recovered[0].error.group.recovered_at == 21000
    later = stage.decided(post("q-late"), 30) + stage.tick(2000)
    assert not any(isinstance(a, GroupEdit) and a.target == "q0/post" for a in later)
    assert [c.key for c in cards(later)] == ["q-late/post"]  # a new group begins


def test_a_first_card_in_a_thread_gets_a_timeline_group_card_with_the_second() -> None:
    stage = RoomStage()
    stage.opened(opened("t1", trigger="$a"), 0)
    first = stage.decided(post("t1"), 1)
    assert cards(first)[0].place.thread == Ref(event="$a")
    second = stage.decided(post("t2"), 2)
    group = [c for c in cards(second) if c.turn == "group:t1"]
    assert len(group) == 1 and group[0].place == Place()
    assert group[0].error.group is not None and group[0].error.group.count == 2
    own = [c for c in cards(second) if c.turn == "t2"]
    assert own[0].place.thread == Ref(notice="group:t1/card")


def test_reactions_eyes_then_cross_or_check_and_the_eyes_taken_back() -> None:
    stage = RoomStage(default=RoomPolicy(reactions=True))
    a = stage.opened(opened("t1", trigger="$a"), 0)
    assert a == [React(ROOM, "t1/react/eyes", "t1", "$a", "👀")]
    out = stage.decided(post("t1"), 1)
    assert React(ROOM, "t1/react/end", "t1", "$a", "❌", after="t1/post") in out
    assert Unreact(ROOM, "t1/unreact/eyes", "t1", "t1/react/eyes") in out
    stage.opened(opened("t2", trigger="$b"), 2)
    out = stage.closed("t2", answered=True, now=3)
    assert [type(x) for x in out] == [React, Unreact] and out[0].emoji == "✅"  # type: ignore[union-attr]
    assert RoomStage().opened(opened("t3", trigger="$c"), 0) == []  # reactions off by default


def test_inhibition_folds_exits_and_timeouts_into_the_node_offline_card() -> None:
    stage = RoomStage()
    stage.decided(post("n1", kind=Kind.NODE_OFFLINE, node="box"), 0)
    [c] = cards(stage.decided(post("x1", kind=Kind.HARNESS_EXITED, node="box"), 1))
    assert c.place.thread == Ref(notice="n1/post")
    [c] = cards(stage.decided(post("x2", kind=Kind.HARNESS_EXITED, node="other"), 2))
    assert c.place == Place()
    stage.decided(Retract(ROOM, "n1", err("n1", kind=Kind.NODE_OFFLINE, node="box")), 3)
    [c] = cards(stage.decided(post("x3", kind=Kind.TIMEOUT, node="box"), 4))
    assert c.place == Place()  # the node came back: no longer inhibited


def _silence(sid: str, starts: float, ends: float, **kw: object) -> Silence:
    fields: dict[str, object] = {
        "id": sid,
        "rooms": frozenset({ROOM}),
        "matchers": (("kind", "quota"),),
        "starts": starts,
        "ends": ends,
    }
    fields.update(kw)
    return Silence(**fields)  # type: ignore[arg-type]


def test_a_silence_holds_back_its_failures_and_sums_them_up_once() -> None:
    stage = RoomStage()
    silences = [_silence("s1", 0, 100)]
    out: list[RoomAction] = []
    for i in range(5):
        out += stage.decided(post(f"q{i}"), 10.0 + i, silences)
    out += stage.decided(post("a1", kind=Kind.AUTH), 20, silences)
    assert [c.turn for c in cards(out)] == ["a1"]
    assert stage.next_deadline(silences) == 100
    out = stage.tick(100, silences) + stage.tick(200, silences)
    [summary] = [a for a in out if isinstance(a, Summary)]
    assert summary.held == (("quota", "openai", 5),) and (summary.first, summary.last) == (10, 14)
    lifted = [_silence("s2", 0, 1000, lifted=50.0)]
    assert any(isinstance(a, Summary) for a in RoomStage().tick(50, lifted))


# --- properties ------------------------------------------------------------------------------

KINDS = [Kind.QUOTA, Kind.RATE_LIMIT, Kind.TIMEOUT, Kind.HARNESS_EXITED, Kind.NODE_OFFLINE]
ops = st.lists(
    st.tuples(
        st.floats(0, 120, allow_nan=False),
        st.sampled_from(["post", "post", "post", "answer", "retract", "tick"]),
        st.sampled_from(KINDS),
        st.sampled_from(["openai", "anthropic"]),
        st.booleans(),
    ),
    max_size=80,
)
policies = st.builds(
    RoomPolicy,
    placement=st.sampled_from(list(Placement)),
    reactions=st.booleans(),
    group_by=st.sampled_from([(), ("kind",), ("kind", "provider", "harness")]),
    group_window=st.sampled_from([60.0, 600.0]),
    group_interval=st.sampled_from([0.0, 30.0]),
    group_thread_max=st.integers(0, 5),
)


def run(
    policy: RoomPolicy, script: list[tuple[float, str, Kind, str, bool]]
) -> tuple[list[RoomAction], list[str], list[Silence]]:
    stage = RoomStage(default=policy)
    silences = [_silence("s1", 100, 400), _silence("s2", 300, 10_000, lifted=900.0)]
    now = 0.0
    out: list[RoomAction] = []
    failed: list[str] = []
    posted: dict[str, Post] = {}
    for i, (dt, op, kind, provider, trigger) in enumerate(script):
        now += dt
        turn = f"t{i}"
        if op == "post":
            out += stage.opened(
                Opened(turn, ROOM, "codex", provider, "m", "box", f"$e{i}" if trigger else None),
                now,
            )
            p = Post(ROOM, turn, err(turn, kind=kind, provider=provider, node="box"))
            posted[turn] = p
            failed.append(turn)
            out += stage.decided(p, now, silences)
        elif op == "answer":
            out += stage.opened(Opened(turn, ROOM, "codex", provider, "m", "box", "$x"), now)
            out += stage.closed(turn, answered=True, now=now + 0.1)
        elif op == "retract" and posted:
            p = posted.pop(sorted(posted)[0])
            out += stage.decided(Retract(ROOM, p.turn, p.error), now, silences)
        else:
            out += stage.tick(now, silences)
    out += stage.tick(now + 20_000, silences)
    return out, failed, silences


@settings(max_examples=300, deadline=None)
@given(policies, ops)
def test_every_failed_turn_is_reachable_and_no_card_comes_twice(
    policy: RoomPolicy, script: list[tuple[float, str, Kind, str, bool]]
) -> None:
    out, failed, _silences = run(policy, script)
    keys = Counter(a.key for a in out)
    assert max(keys.values(), default=1) == 1, "an action twice"
    own = {c.turn for c in cards(out)}
    groups = [a.error.group for a in out if isinstance(a, Card | GroupEdit) and a.error.group]
    listed = {t for g in groups for t in g.turns}
    counted = sum(g.count for g in groups)  # turns past every bound are counted by one
    held = sum(n for a in out if isinstance(a, Summary) for *_, n in a.held)
    missing = [t for t in failed if t not in own and t not in listed]
    assert len(missing) <= held + counted
    # Every place that names an action names one that came before it.
    seen: set[str] = set()
    for a in out:
        if isinstance(a, Card):
            for ref in (a.place.thread, a.place.reply):
                assert ref is None or ref.notice is None or ref.notice in seen
        if isinstance(a, GroupEdit):
            assert a.target in seen
        seen.add(a.key)


@settings(max_examples=300, deadline=None)
@given(policies, ops)
def test_no_group_card_is_edited_after_it_recovered_and_silences_always_sum_up(
    policy: RoomPolicy, script: list[tuple[float, str, Kind, str, bool]]
) -> None:
    out, _failed, silences = run(policy, script)
    done: set[str] = set()
    for a in out:
        if isinstance(a, GroupEdit):
            assert a.target not in done, "a group card edited after its recovery"
            if a.key.endswith("/recovered"):
                done.add(a.target)
    sums = Counter(a.silence.id for a in out if isinstance(a, Summary))
    assert sums == Counter(s.id for s in silences)
    # The same calls at the same times give the same actions (the replay rests on it).
    assert run(policy, script)[0] == out
