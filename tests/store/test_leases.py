"""Table leases with fencing (docs/store.md, "Several processes"): on
PostgreSQL each table is written by the one process holding its lease, and
a process whose lease was taken over cannot store one event there, however
sure it is that it still owns the table; on SQLite one process owns the
store, and a second is refused."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from uuid import UUID

import pytest
import structlog.testing

from feltline.cardroom.errors import OwnedElsewhere
from feltline.cardroom.room import Room, open_room
from feltline.engine.hand.events import Action
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.commands import SitOut
from feltline.store.config import StoreConfig
from feltline.store.leases import Fenced, Leases
from feltline.store.streams import Streams

from .conftest import Store
from .test_room import seated


def _process(store: Store, name: str) -> Room:
    """A room as another server process would have it: an owner of its own."""
    streams = Streams(store.signer, env=StoreConfig.from_env(store.env).env, server=name)
    store.opened.append(streams)
    return Room(streams)


def _expire(store: Store, table: UUID) -> None:
    """As if its owner had been paused past its lease."""
    schema = store.events_table.split(".")[0]
    store.sql(
        f"UPDATE {schema}.feltline_leases SET expires = now() - interval '1 second' "
        "WHERE table_id = ?",
        table,
    )


# Leases between processes are PostgreSQL's: a SQLite store has one process.
postgres = pytest.mark.parametrize("store", ["postgres"], indirect=True)


@postgres
def test_a_table_is_served_by_the_process_that_holds_its_lease(store: Store) -> None:
    a, b = _process(store, "a"), _process(store, "b")
    table = seated(a, 2)
    with pytest.raises(OwnedElsewhere):
        b.deal(table, "d1", at=0)
    assert a.table(table).table.hands == 0
    a.deal(table, "d1", at=0)
    assert a.table(table).table.hands == 1


@postgres
def test_a_table_held_under_lease_is_not_read_again_for_another_s_writes(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nobody else stores at a table whose lease this process holds: while
    another process plays at its own tables, the owner decides on its copy
    without reading the table again (two processes would otherwise each
    re-read every table at every request, for every write of the other)."""
    a, b = _process(store, "a"), _process(store, "b")
    here, there = seated(a, 2), seated(b, 2)
    a.deal(here, "d1", at=0)
    b.deal(there, "d1", at=0)
    a.look()  # A has seen B write
    a.table(there)  # and holds a copy of B's table
    reads: list[UUID] = []
    after = a.streams.after
    monkeypatch.setattr(a.streams, "after", lambda s, v: reads.append(s) or after(s, v))
    seat = waiting_on(a.hand(here, 1).hand)[0]
    a.act(here, 1, "call", seat, Action.CALL, at=0)
    assert reads == []
    # A table it does not own is read again once another was seen to store.
    b.act(there, 1, "b-call", waiting_on(b.hand(there, 1).hand)[0], Action.CALL, at=0)
    a.look()
    assert a.hand(there, 1).version == b.hand(there, 1).version
    assert reads[0] == there


@postgres
def test_a_process_whose_lease_was_taken_over_stores_nothing(store: Store) -> None:
    """The SIGSTOP case: A owns the table and deals; it is paused past its
    lease; B takes the table over and plays on; A wakes and still believes
    it owns the table: its append is refused by the fence, nothing of it
    is stored, and the hand has one history."""
    a, b = _process(store, "a"), _process(store, "b")
    table = seated(a, 2)
    a.deal(table, "d1", at=0)
    first = waiting_on(a.hand(table, 1).hand)[0]
    _expire(store, table)
    b.look()
    b.act(table, 1, "b-call", first, Action.CALL, at=0)  # B takes the lease over
    stored = b.hand(table, 1).version
    # A's decision, made on its old copy, reaches the store through the fence only.
    records_before = store.sql("SELECT count(*) FROM {events}")[0][0]
    with pytest.raises(OwnedElsewhere):
        a.act(table, 1, "a-fold", first, Action.FOLD, at=0)
    assert store.sql("SELECT count(*) FROM {events}")[0][0] == records_before
    b.look()
    assert b.hand(table, 1).version == stored


@postgres
def test_the_fence_refuses_an_append_under_a_lost_lease(store: Store) -> None:
    """Below the room: the streams' commit itself checks the lease in its
    own transaction, whatever the copy said."""
    a, b = _process(store, "a"), _process(store, "b")
    table = seated(a, 2)
    stream = a.streams.table(table)
    records, _ = stream.execute("sit-out", SitOut(1), request="r")
    _expire(store, table)
    assert b.streams.owner.take(table) is not None
    with pytest.raises(Fenced):
        a.streams.commit(records, tables=(table,))
    assert a.streams.table(table).version == stream.version


@postgres
def test_two_processes_racing_for_an_expired_lease_one_wins(store: Store) -> None:
    a, b = _process(store, "a"), _process(store, "b")
    table = seated(a, 2)
    owners = {"a": a.streams.owner, "b": b.streams.owner}
    assert isinstance(owners["a"], Leases)
    for _ in range(200):
        _expire(store, table)
        for owner in owners.values():
            owner.lost(table)
        won: dict[str, int | None] = {}
        start = threading.Barrier(2)

        def race(name: str, start: threading.Barrier, won: dict[str, int | None]) -> None:
            start.wait()
            won[name] = owners[name].take(table)

        threads = [threading.Thread(target=race, args=(n, start, won)) for n in owners]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(v is not None for v in won.values()) == [False, True], won


@postgres
def test_a_stopped_process_hands_its_tables_over_at_once(store: Store) -> None:
    a, b = _process(store, "a"), _process(store, "b")
    table = seated(a, 2)
    with pytest.raises(OwnedElsewhere):
        b.deal(table, "d1", at=0)
    a.owners.stop()  # SIGTERM's drain
    b.deal(table, "d1", at=0)
    assert b.table(table).table.hands == 1


@postgres
def test_the_keeper_takes_a_dead_process_s_tables(store: Store) -> None:
    a, b = _process(store, "a"), _process(store, "b")
    tables = [seated(a, 2) for _ in range(3)]
    b.owners.keep()
    assert b.owners.served() == []
    for table in tables:
        _expire(store, table)
    b.owners.keep()
    assert sorted(b.owners.served()) == sorted(tables)


SECOND = """
import sys
from feltline.cardroom.room import open_room
from feltline.store.config import StoreConfig
from feltline.store.leases import StoreBusy
env = {"SQLITE_DBNAME": sys.argv[1], "FELTLINE_KEY_FILE": sys.argv[2]}
room = open_room(StoreConfig.from_env(env))
try:
    room.owners.keep()
except StoreBusy as e:
    print(e)
    sys.exit(3)
"""


def test_a_second_process_on_a_sqlite_store_is_refused(tmp_path: Path) -> None:
    db, key = tmp_path / "feltline.db", tmp_path / "feltline.key"
    env = StoreConfig.from_env({"SQLITE_DBNAME": str(db), "FELTLINE_KEY_FILE": str(key)})
    room = open_room(env)
    room.owners.keep()
    second = _second(db, key)
    assert second.returncode == 3, second.stderr
    assert f"the SQLite store {db} is served by process" in second.stdout
    room.close()
    again = _second(db, key)
    assert again.returncode == 0, again.stdout + again.stderr


def _second(db: Path, key: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", SECOND, str(db), str(key)]
    return subprocess.run(command, check=False, capture_output=True, text=True)


def test_a_sole_owner_keeping_its_store_says_nothing_was_taken_over(tmp_path: Path) -> None:
    """On SQLite one process owns every table: keeping its leases is silent
    (every keep of the demo's server once warned that each table had been
    taken over)."""
    db, key = tmp_path / "feltline.db", tmp_path / "feltline.key"
    room = open_room(
        StoreConfig.from_env({"SQLITE_DBNAME": str(db), "FELTLINE_KEY_FILE": str(key)})
    )
    try:
        seated(room, 2)
        with structlog.testing.capture_logs() as logged:
            room.owners.keep()
            room.owners.keep()
        assert [e for e in logged if e["log_level"] in ("warning", "error")] == []
        assert room.owners.served() == room.owners.every() != []
    finally:
        room.close()
