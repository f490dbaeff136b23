"""A tournament is leased as one (docs/store.md, "Tournaments under
several processes"): its director and every one of its tables are held by
one process at a time, which moves players between its tables and pays
its prizes in the transaction of the hand that caused them. Real processes
on one PostgreSQL store play a two-table sit-and-go
(:mod:`tests.store.tournament_owner`); the one holding the tournament is
killed, or frozen and thawed, mid-play: another takes the whole tournament
over and plays it to the end, every chip and prize accounted for once."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from uuid import UUID

import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.errors import OwnedElsewhere
from feltline.cardroom.room import Room
from feltline.domain.ids import account_id, pool_id, tournament_id, tournament_table_id
from feltline.engine.hand.events import Action
from feltline.engine.hand.turn import waiting_on
from feltline.store.check import check
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams

from .conftest import Store
from .tournament_owner import NAME, PLAYERS, SETUP

CHILD = Path(__file__).with_name("tournament_owner.py")
ENTRANTS, BUY_IN, FEE = 12, 100, 10
KEY = tournament_id("lease")
ENDS_WITHIN = 300.0  # seconds, on a shared 2-core machine
# Leases between processes are PostgreSQL's: a SQLite store has one process.
postgres = pytest.mark.parametrize("store", ["postgres"], indirect=True)


def _room(store: Store, name: str) -> Room:
    """A room as another server process would have it: an owner of its own."""
    streams = Streams(store.signer, env=StoreConfig.from_env(store.env).env, server=name)
    store.opened.append(streams)
    return Room(streams)


def _seated(room: Room) -> list[UUID]:
    """The sit-and-go filled through ``room``: its two tables."""
    key = room.create_tournament(NAME, SETUP, at=0)
    for player in PLAYERS:
        room.mint(f"mint-{player}", player, 1_000, by="admin")
        room.register_tournament(key, f"enter-{player}", player, at=0)
    return [tournament_table_id(key, n) for n in (1, 2)]


def _expire(store: Store, lease: UUID) -> None:
    """As if its owner had been paused past its lease."""
    schema = store.events_table.split(".")[0]
    store.sql(
        f"UPDATE {schema}.feltline_leases SET expires = now() - interval '1 second' "
        "WHERE table_id = ?",
        lease,
    )


def _leased(store: Store) -> list[str]:
    schema = store.events_table.split(".")[0]
    return [str(r[0]) for r in store.sql(f"SELECT table_id FROM {schema}.feltline_leases")]


@postgres
def test_every_table_of_a_tournament_is_served_by_the_holder_of_its_one_lease(
    store: Store,
) -> None:
    a, b = _room(store, "a"), _room(store, "b")
    one, two = _seated(a)
    assert _leased(store) == [str(KEY)]  # no lease of a table's own
    for table in (one, two):
        with pytest.raises(OwnedElsewhere):
            b.deal_tournament(table, at=0)
    with pytest.raises(OwnedElsewhere):
        b.cancel_tournament(KEY, "stop", reason="", by="admin", at=0)
    a.deal_tournament(one, at=0)
    a.deal_tournament(two, at=0)
    assert _leased(store) == [str(KEY)]


@postgres
def test_a_process_taking_over_learns_the_tournament_from_the_log_and_takes_it_whole(
    store: Store,
) -> None:
    """B never read the tournament: its round of taking finds it in the
    log before it takes any of its tables, and takes it as one lease."""
    a = _room(store, "a")
    tables = _seated(a)
    _expire(store, KEY)
    b = _room(store, "b")
    b.owners.keep()
    assert _leased(store) == [str(KEY)]
    assert sorted(b.served()) == sorted(tables)
    assert sorted(a.served()) == sorted(tables)  # until A renews, and learns it lost it
    a.owners.keep()
    assert a.served() == []


@postgres
def test_a_process_whose_tournament_was_taken_over_stores_nothing_at_any_of_its_tables(
    store: Store,
) -> None:
    """The SIGSTOP case in one process: A holds the tournament and deals
    both its tables; it is paused past its lease; B takes the tournament
    over by acting at table 1; A wakes, still sure it holds everything, and
    acts at table 2, where B has stored nothing (no stream version stands
    in its way): the tournament's fence alone refuses it."""
    a, b = _room(store, "a"), _room(store, "b")
    one, two = _seated(a)
    a.deal_tournament(one, at=0)
    a.deal_tournament(two, at=0)
    _expire(store, KEY)
    b.look()
    b.act(one, 1, "b-call", waiting_on(b.hand(one, 1).hand)[0], Action.CALL, at=0)
    records = store.sql("SELECT count(*) FROM {events}")[0][0]
    with pytest.raises(OwnedElsewhere):
        a.act(two, 1, "a-call", waiting_on(a.hand(two, 1).hand)[0], Action.CALL, at=0)
    assert store.sql("SELECT count(*) FROM {events}")[0][0] == records
    b.act(two, 1, "b-call", waiting_on(b.hand(two, 1).hand)[0], Action.CALL, at=0)  # B's now


class Process:
    """One player process, its stored requests counted in its acks file."""

    def __init__(self, env: dict[str, str], tmp_path: Path, n: int) -> None:
        self.acks = tmp_path / f"acks-{n}"
        self.output = tmp_path / f"output-{n}"
        with self.output.open("wb") as out:
            self.child = subprocess.Popen(
                [
                    sys.executable,
                    str(CHILD),
                    json.dumps({"env": env, "acks": str(self.acks), "seed": n}),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def stored(self) -> int:
        return len(self.acks.read_text().splitlines()) if self.acks.exists() else 0

    def said(self) -> str:
        return self.output.read_text()


def _start(store: Store, tmp_path: Path, count: int) -> list[Process]:
    key = tmp_path / "feltline.key"
    store.signer = Signer.create(key)
    env = {**store.env, "FELTLINE_KEY_FILE": str(key), "FELTLINE_LEASE_SECONDS": "2"}
    store.streams()  # the store made, its leases table with it
    return [Process(env, tmp_path, n) for n in range(count)]


def _holder(store: Store, processes: list[Process]) -> Process:
    """The process holding the tournament's lease, once one does."""
    schema = store.events_table.split(".")[0]
    started = time.monotonic()
    while time.monotonic() - started < 60:
        rows = store.sql(
            f"SELECT owner FROM {schema}.feltline_leases WHERE table_id = ? AND expires > now()",
            str(KEY),
        )
        if rows:
            pid = int(str(rows[0][0]).split(":")[1])
            return next(p for p in processes if p.child.pid == pid)
        time.sleep(0.05)
    raise AssertionError("no process took the tournament")


def _wait(until: object, within: float, processes: list[Process], what: str) -> None:
    started = time.monotonic()
    while not until():  # type: ignore[operator]
        for p in processes:
            code = p.child.poll()
            assert code in (None, 0), p.said()[-3000:]
        assert time.monotonic() - started < within, f"{what} took over {within} s"
        time.sleep(0.05)


def _finished(store: Store, processes: list[Process]) -> int:
    """Wait for every process to see the tournament over; then check it
    paid its pool once and every chip is accounted for. Its last level."""
    _wait(lambda: all(p.child.poll() is not None for p in processes), ENDS_WITHIN, [], "the end")
    for p in processes:
        assert p.child.returncode == 0, p.said()[-3000:]
    streams = store.streams()
    assert check(streams).problems == []
    tournament = streams.tournament(KEY).tournament
    assert tournament.finished is not None
    assert sum(tournament.paid.values()) == ENTRANTS * BUY_IN
    assert streams.account(pool_id(KEY)).balance == 0
    held = sum(streams.account(account_id(f"p{n}")).balance for n in range(ENTRANTS))
    assert held == ENTRANTS * (1_000 - BUY_IN - FEE) + ENTRANTS * BUY_IN
    return tournament.level


def _stored(processes: list[Process]) -> int:
    return sum(p.stored() for p in processes)


def _level(store: Store) -> int:
    return store.streams().tournament(KEY).tournament.level


@postgres
@pytest.mark.timeout(600)
def test_a_killed_owner_s_tournament_is_taken_over_whole_and_finishes(
    store: Store, tmp_path: Path
) -> None:
    processes = _start(store, tmp_path, 3)
    try:
        _wait(lambda: _stored(processes) >= 40, 180, processes, "40 requests")
        holder = _holder(store, processes)
        holder.child.send_signal(signal.SIGKILL)
        holder.child.wait()
        level = _level(store)
        others = [p for p in processes if p is not holder]
        assert _finished(store, others) > level  # the levels went on where they were
        assert sum(p.stored() for p in others) > 0
    finally:
        for p in processes:
            p.child.kill()
            p.child.wait()


@postgres
@pytest.mark.timeout(600)
def test_a_frozen_owner_stores_nothing_once_its_tournament_is_taken_over(
    store: Store, tmp_path: Path
) -> None:
    processes = _start(store, tmp_path, 2)
    try:
        _wait(lambda: _stored(processes) >= 40, 180, processes, "40 requests")
        frozen = _holder(store, processes)
        frozen.child.send_signal(signal.SIGSTOP)
        (other,) = [p for p in processes if p is not frozen]
        before = other.stored()
        try:
            _wait(lambda: other.stored() >= before + 10, 60, [other], "the takeover")
        finally:
            frozen.child.send_signal(signal.SIGCONT)
        # The append it was in when frozen, if any, committed before the
        # takeover (one statement) and is reported on waking; after it, nothing.
        time.sleep(0.5)
        woke = frozen.stored()
        going = other.stored()
        time.sleep(3.0)
        assert frozen.stored() == woke
        assert other.stored() > going  # while the new owner plays on
        _finished(store, processes)
        said = frozen.said()  # it says why it stored nothing
        assert "lease_lost" in said or "lease_taken_over" in said, said[-3000:]
    finally:
        for p in processes:
            p.child.kill()
            p.child.wait()
