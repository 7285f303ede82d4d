"""The reader sets, lists and lifts silences in a real store on the outbox's real file."""

from __future__ import annotations

from roombot import roomcommands as rc
from roombot.config import RoomConfig
from roombot.outbox import Outbox
from roombot.room_reader import MAX_ACTIVE_SILENCES, RoomReader
from roombot.silence_store import SilenceStore
from tests.engines import Stores
from tests.roomcmd.test_room_reader import ME, Clock, answers

ROOM = "!r:hs"
REFS = frozenset({"#team:hs"})


def msg(
    body: str, event_id: str, ts: float, sender: str = "@mod:hs", room: str = ROOM
) -> rc.Incoming:
    return rc.Incoming(room, event_id, sender, body, "m.text", int(ts * 1000))


def setup(stores: Stores, clock: Clock) -> tuple[Outbox, SilenceStore, RoomReader]:
    outbox = Outbox(stores("outbox.sqlite3"))
    store = SilenceStore(outbox.path, clock)
    reader = RoomReader(
        outbox, [RoomConfig("#team:hs")], clock=clock, reporters=["pi"], silences=store
    )
    return outbox, store, reader


def test_set_list_and_lift_a_silence(stores: Stores) -> None:
    clock = Clock(1_764_597_600.0)
    outbox, store, reader = setup(stores, clock)
    body = "!roombot silence kind=quota provider=openai 2h openai quota spent"
    assert reader.read(msg(body, "$s1", clock.now), me=ME, level=50, refs=REFS)
    (made,) = store.snapshot()
    assert made.rooms == {ROOM, "#team:hs"} and made.by == "@mod:hs"
    assert made.matchers == (("kind", "quota"), ("provider", "openai"))
    assert made.ends - made.starts == 7200 and made.reason == "openai quota spent"
    (said,) = answers(outbox)
    assert said.startswith(
        "Silenced kind=quota provider=openai in this room for 2h, until 2025-12-01 16:00 UTC "
        f"(ID {made.id})."
    )
    assert reader.outcomes["silence_set"] == 1
    clock.now += 60
    reader.read(msg("!roombot silences", "$l1", clock.now), me=ME, level=50, refs=REFS)
    (listed,) = answers(outbox)
    assert listed.splitlines() == [
        "Silences active in this room (1):",
        f"  {made.id}  kind=quota provider=openai — until 2025-12-01 16:00 UTC — by @mod:hs "
        "— openai quota spent",
    ]
    # the room under another name (its alias) is the same room
    reader.read(msg("!roombot silences", "$l2", clock.now, room="#team:hs"), me=ME, level=50)
    assert answers(outbox)[0].startswith("Silences active in this room (1):")
    # another room neither sees nor lifts it
    reader.read(msg("!roombot silences", "$l3", clock.now, room="!other:hs"), me=ME, level=50)
    assert answers(outbox) == ["No silence is active in this room."]
    reader.read(
        msg(f"!roombot unsilence {made.id}", "$u0", clock.now, room="!other:hs"), me=ME, level=50
    )
    assert answers(outbox) == [
        f"Refused: !roombot unsilence: no silence {made.id} in this room "
        "(!roombot silences lists them)."
    ]
    assert store.get(made.id) == made
    reader.read(
        msg(f"!roombot unsilence {made.id.upper()}", "$u1", clock.now, "@b:hs"),
        me=ME,
        level=50,
        refs=REFS,
    )
    (lifted,) = answers(outbox)
    assert lifted.startswith(f"Lifted silence {made.id} (kind=quota provider=openai)")
    now_lifted = store.get(made.id)
    assert now_lifted is not None and now_lifted.lifted == clock.now
    assert now_lifted.lifted_by == "@b:hs"
    clock.now += 60
    reader.read(msg(f"!roombot unsilence {made.id}", "$u2", clock.now), me=ME, level=50, refs=REFS)
    assert answers(outbox) == [
        f"Silence {made.id} (kind=quota provider=openai) was lifted already, at "
        "2025-12-01 14:01 UTC by @b:hs."
    ]
    reader.read(msg("!roombot silences", "$l4", clock.now), me=ME, level=50, refs=REFS)
    assert answers(outbox) == ["No silence is active in this room."]
    assert reader.outcomes["silence_lifted"] == 1


def test_without_power_nothing_is_set_lifted_or_listed(stores: Stores) -> None:
    clock = Clock()
    outbox, store, reader = setup(stores, clock)
    reader.read(msg("!roombot silence kind=quota 2h", "$s", clock.now), me=ME, level=100)
    (made,) = store.snapshot()
    answers(outbox)
    for i, body in enumerate(
        ("!roombot silence kind=auth 1h", "!roombot silences", f"!roombot unsilence {made.id}")
    ):
        reader.read(msg(body, f"$x{i}", clock.now, "@member:hs"), me=ME, level=49)
    got = answers(outbox)
    assert [g.split(" may run ")[1].split(" in this room")[0] for g in got] == [
        "!roombot silence",
        "!roombot silences",
        "!roombot unsilence",
    ]
    assert all(g.endswith("your power level here is 49.") for g in got)
    assert store.snapshot() == (made,)
    assert reader.outcomes["refused_power"] == 3


def test_a_crash_between_the_silence_and_its_answer_answers_at_the_restart(
    stores: Stores,
) -> None:
    clock = Clock()
    outbox = Outbox(stores("outbox.sqlite3"))
    store = SilenceStore(outbox.path, clock)
    # what the reader had done when the process died: claimed, silenced, not answered
    assert outbox.claim_command("$s", ROOM)
    made = store.add(
        rooms={ROOM}, matchers=[("kind", "quota")], duration=3600, by="@mod:hs", command="$s"
    )
    store.close()
    outbox.close()
    outbox = Outbox(stores("outbox.sqlite3"))
    store = SilenceStore(outbox.path, clock)
    reader = RoomReader(outbox, clock=clock, reporters=["pi"], silences=store)
    (said,) = answers(outbox)
    assert said.startswith("Silenced kind=quota in this room for 1h") and made.id in said
    assert store.snapshot() == (made,) and outbox.unanswered_commands() == []
    # the same event read again (a replayed sync) sets nothing more
    assert not reader.read(msg("!roombot silence kind=quota 1h", "$s", clock.now), me=ME, level=50)
    assert len(store.snapshot()) == 1


def test_a_room_holds_a_bounded_number_of_silences(stores: Stores) -> None:
    clock = Clock()
    outbox, store, reader = setup(stores, clock)
    for _ in range(MAX_ACTIVE_SILENCES):
        store.add(rooms={ROOM}, matchers=[("kind", "quota")], duration=3600, by="@m:hs")
    reader.read(msg("!roombot silence kind=auth 1h", "$s", clock.now), me=ME, level=50)
    (said,) = answers(outbox)
    assert said.startswith(f"Refused: !roombot silence: this room has {MAX_ACTIVE_SILENCES}")
    assert len(store.snapshot()) == MAX_ACTIVE_SILENCES
    # a silence that ended frees its place
    clock.now += 3601
    reader.read(msg("!roombot silence kind=auth 1h", "$s2", clock.now), me=ME, level=50)
    assert answers(outbox)[0].startswith("Silenced kind=auth")


def test_a_reader_without_a_store_says_so(stores: Stores) -> None:
    clock = Clock()
    outbox = Outbox(stores("outbox.sqlite3"))
    reader = RoomReader(outbox, clock=clock, reporters=["pi"])
    reader.read(msg("!roombot silence kind=quota 2h", "$s", clock.now), me=ME, level=50)
    assert answers(outbox) == ["Refused: !roombot silence: this bot keeps no silences"]


def test_a_malformed_silence_gets_the_usage(stores: Stores) -> None:
    clock = Clock()
    outbox, store, reader = setup(stores, clock)
    reader.read(msg("!roombot silence kind=quota", "$s", clock.now), me=ME, level=50)
    (said,) = answers(outbox)
    assert said.startswith("Not a roombot command: `silence` takes MATCHER... DURATION")
    assert "!roombot unsilence ID" in said and store.snapshot() == ()
