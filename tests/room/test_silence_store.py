"""The silence store on each engine, a SQLite file and PostgreSQL: durable, reopened,
lifted once, pruned, shared with the outbox's store, and safe from many threads at once."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from roombot.outbox import Outbox
from roombot.silence_store import ID_SHAPE, SilenceStore, silence_id
from roombot.store.pgcluster import PgCluster
from tests.engines import fresh_database

QUOTA = (("kind", "quota"), ("provider", "openai"))


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_silence_survives_a_reopen_with_every_field(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "state" / "outbox.sqlite3"
    store = SilenceStore(path, clock)
    calls: list[int] = []
    store.subscribe(lambda: calls.append(len(store.snapshot())))
    made = store.add(
        rooms={"!r:hs", "#team:hs"},
        matchers=[("provider", "openai"), ("kind", "quota")],
        duration=7200,
        reason="quota spent \u202e",
        by="@mod:hs",
        command="$event1",
    )
    assert made.starts == clock.now and made.ends == clock.now + 7200
    assert made.matchers == QUOTA  # sorted
    assert ID_SHAPE.fullmatch(made.id) and made.id == silence_id("$event1")
    assert calls == [1]  # told after the add, with the silence already in the snapshot
    store.close()
    again = SilenceStore(path, clock)
    assert again.snapshot() == (made,)
    assert again.by_command("$event1") == made
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_the_same_command_twice_is_one_silence(store_at: str | Path) -> None:
    store = SilenceStore(store_at, Clock())
    a = store.add(rooms={"!r"}, matchers=QUOTA, duration=60, command="$e")
    b = store.add(rooms={"!r"}, matchers=[("kind", "auth")], duration=600, command="$e")
    assert a == b and len(store.snapshot()) == 1
    c = store.add(rooms={"!r"}, matchers=QUOTA, duration=60)  # no command: always new
    d = store.add(rooms={"!r"}, matchers=QUOTA, duration=60)
    assert len({a.id, c.id, d.id}) == 3


def test_ids_are_unique_even_when_their_digests_collide(
    store_at: str | Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import roombot.silence_store as module

    real = module.silence_id
    # every seed gives the same first id: the store must go on to the next digest
    monkeypatch.setattr(module, "silence_id", lambda seed, attempt=0: real("same", attempt))
    store = SilenceStore(store_at, Clock())
    ids = [
        store.add(rooms={"!r"}, matchers=QUOTA, duration=60, command=f"$e{i}").id for i in range(5)
    ]
    assert len(set(ids)) == 5 and ids[0] == real("same", 0) and ids[1] == real("same", 1)


def test_lift_once_then_unchanged_and_unknown_is_none(store_at: str | Path) -> None:
    clock = Clock()
    path = store_at
    store = SilenceStore(path, clock)
    s = store.add(rooms={"!r"}, matchers=QUOTA, duration=3600, by="@a:hs")
    told: list[str] = []
    store.subscribe(lambda: told.append("x"))
    clock.now += 100
    lifted = store.lift(s.id, "@b:hs")
    assert lifted is not None and lifted.lifted == clock.now and lifted.lifted_by == "@b:hs"
    assert lifted.until == clock.now and not lifted.active(clock.now)
    clock.now += 5
    assert store.lift(s.id, "@c:hs") == lifted  # the second lift changes nothing
    assert store.lift("s000000", "@c:hs") is None
    assert told == ["x"]  # only the real lift was told
    # a silence that ran to its end is not lifted after the fact
    ended = store.add(rooms={"!r"}, matchers=QUOTA, duration=60)
    clock.now += 61
    assert store.lift(ended.id, "@b:hs") == ended
    store.close()
    assert SilenceStore(path, clock).get(s.id) == lifted


def test_next_change_is_the_earliest_end_of_an_active_silence(store_at: str | Path) -> None:
    clock = Clock()
    store = SilenceStore(store_at, clock)
    assert store.next_change(clock.now) is None
    long = store.add(rooms={"!r"}, matchers=QUOTA, duration=7200)
    short = store.add(rooms={"!r"}, matchers=QUOTA, duration=600)
    assert store.next_change(clock.now) == short.ends
    clock.now += 100
    store.lift(long.id, "@m:hs")
    assert store.next_change(clock.now) == short.ends  # the lifted one is no change ahead
    assert store.next_change(short.ends) is None  # ended at that instant
    assert store.next_change(clock.now - 200) is None  # before either started


def test_prune_forgets_what_ended_before_and_keeps_the_rest(store_at: str | Path) -> None:
    clock = Clock()
    path = store_at
    store = SilenceStore(path, clock)
    old = store.add(rooms={"!r"}, matchers=QUOTA, duration=60, command="$old")
    lifted = store.add(rooms={"!r"}, matchers=QUOTA, duration=86400)
    live = store.add(rooms={"!r"}, matchers=QUOTA, duration=86400)
    clock.now += 30
    store.lift(lifted.id, "@m:hs")
    assert store.prune(clock.now + 1) == 1  # the lifted one ended before; the short one not yet
    assert [s.id for s in store.snapshot()] == [old.id, live.id]
    assert store.prune(old.ends + 1) == 1
    assert store.prune(old.ends + 1) == 0
    assert store.by_command("$old") is None
    store.close()
    assert [s.id for s in SilenceStore(path, clock).snapshot()] == [live.id]


def test_snapshot_is_in_start_order_and_costs_no_query(store_at: str | Path) -> None:
    clock = Clock()
    store = SilenceStore(store_at, clock)
    made = []
    for i in range(5):
        clock.now = 1_000_000.0 + (10 - i if i % 2 else i)  # starts out of order
        made.append(store.add(rooms={"!r"}, matchers=QUOTA, duration=600))
    assert [s.starts for s in store.snapshot()] == sorted(s.starts for s in made)
    store.close()  # the connection is gone: a snapshot that queried would fail
    assert len(store.snapshot()) == 5


def test_it_shares_the_outbox_file_without_touching_the_outboxs_tables(tmp_path: Path) -> None:
    path = tmp_path / "outbox.sqlite3"
    outbox = Outbox(path)
    store = SilenceStore(outbox.path)
    assert outbox.add_answer(key="a1", room="!r", command="$c", content={"body": "x"})
    s = store.add(rooms={"!r"}, matchers=QUOTA, duration=600)
    assert outbox.claim_command("$c2", "!r")
    store.close()
    outbox.close()
    with sqlite3.connect(path) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"notices", "commands", "meta", "parked", "silences"} <= tables
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert Outbox(path).get("a1") is not None
    assert SilenceStore(path).get(s.id) == s


def test_it_shares_the_postgresql_database_with_the_outbox(pg: PgCluster) -> None:
    url = fresh_database(pg)
    outbox = Outbox(url)
    store = SilenceStore(outbox.path)
    assert outbox.add_answer(key="a1", room="!r", command="$c", content={"body": "x"})
    s = store.add(rooms={"!r"}, matchers=QUOTA, duration=600)
    store.close()
    outbox.close()
    assert Outbox(url).get("a1") is not None
    assert SilenceStore(url).get(s.id) == s


def test_many_threads_add_and_lift_at_once(store_at: str | Path) -> None:
    path = store_at
    store = SilenceStore(path)
    other = SilenceStore(path)  # a second connection writing the same file meanwhile
    errors: list[BaseException] = []
    made: list[str] = []
    lock = threading.Lock()

    def work(n: int, on: SilenceStore) -> None:
        try:
            for i in range(40):
                s = on.add(rooms={"!r"}, matchers=QUOTA, duration=600, command=f"$t{n}-{i}")
                if i % 3 == 0:
                    assert on.lift(s.id, "@m:hs") is not None
                with lock:
                    made.append(s.id)
                on.snapshot()
        except BaseException as e:  # reported by the assertion below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n, store if n % 2 else other)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(made) == len(set(made)) == 320
    reopened = SilenceStore(path).snapshot()
    assert {s.id for s in reopened} == set(made)
    assert sum(s.lifted is not None for s in reopened) == 8 * 14


def test_a_silence_is_on_disk_when_add_returns(store_at: str | Path) -> None:
    """A child process adds a silence and is killed at once: the file holds it."""
    path = store_at
    root = Path(__file__).resolve().parents[2]
    code = (
        "import os, sys\n"
        "from roombot.silence_store import SilenceStore\n"
        "s = SilenceStore(sys.argv[1]).add(rooms={'!r'}, matchers=[('kind', 'quota')], "
        "duration=600, command='$killed')\n"
        "print(s.id, flush=True)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == -9, done.stderr
    (found,) = SilenceStore(path).snapshot()
    assert found.id == done.stdout.strip() == silence_id("$killed")


def test_bad_arguments_are_refused_and_store_nothing(store_at: str | Path) -> None:
    store = SilenceStore(store_at)
    with pytest.raises(ValueError, match="at least one room"):
        store.add(rooms=set(), matchers=QUOTA, duration=60)
    with pytest.raises(ValueError, match="positive time"):
        store.add(rooms={"!r"}, matchers=QUOTA, duration=float("nan"))
    assert store.snapshot() == ()
