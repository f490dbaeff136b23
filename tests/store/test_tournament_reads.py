"""A room keeps its copy of a tournament current from the records stored
after it: a request at a tournament table reads what is new, not the whole
stream again (which grows with every hand, at every table), and what
another writer stored is read all the same."""

from __future__ import annotations

import random
import threading
from collections import Counter
from uuid import UUID

import pytest

from feltline.cardroom.room import Room
from feltline.cardroom.work import Work
from feltline.domain.ids import tournament_table_id
from feltline.domain.table import TableStream
from feltline.domain.tournament import TournamentStream
from feltline.engine.errors import RuleError
from feltline.engine.tournament import PlayerMoved
from feltline.store.check import check

from .conftest import Store
from .players import cid
from .test_tournament import create, move, players


def _hand(room: Room, key: object, rng: random.Random) -> None:
    table = tournament_table_id(key, 1)  # type: ignore[arg-type]
    room.deal_tournament(table, at=0)
    while room.table(table).table.dealt is not None:
        move(room, table, rng)


def test_a_room_reads_a_tournament_whole_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    room = store.room()
    key = create(room, entrants=3)
    for name in players(room, 3):
        room.register_tournament(key, cid(), name, at=0)
    whole: list[int] = []
    read = room.streams.tournament

    def counted(tournament_id: object) -> TournamentStream:
        stream = read(tournament_id)  # type: ignore[arg-type]
        whole.append(stream.version)
        return stream

    monkeypatch.setattr(room.streams, "tournament", counted)
    rng = random.Random(1)
    before = room.tournament(key).version
    for _ in range(3):
        _hand(room, key, rng)
    assert room.tournament(key).version > before
    assert len(whole) <= 1  # the first read of this room, if its copy was not kept yet


def test_a_room_s_copy_takes_in_what_another_room_stored(store: Store) -> None:
    first, second = store.room(), store.room()
    key = create(first, entrants=3)
    for name in players(first, 3):
        first.register_tournament(key, cid(), name, at=0)
    rng = random.Random(2)
    _hand(first, key, rng)
    held = first.tournament(key)
    _hand(second, key, rng)
    assert second.tournament(key).version > held.version
    first.look()
    caught_up = first.tournament(key)
    assert caught_up.version == second.tournament(key).version
    assert caught_up.tournament == second.tournament(key).tournament
    assert caught_up.link == second.tournament(key).link
    _hand(first, key, rng)  # and decides from it
    assert first.tournament(key).tournament.tables[1].hands == 3


def _step(room: Room, key: UUID, rng: random.Random) -> bool:
    """One request at the first table that takes one: a deal or a move.
    False once the tournament is over."""
    state = room.tournament(key).tournament
    if state.over:
        return False
    for number in sorted(state.tables):
        table = tournament_table_id(key, number)
        if room.table(table).table.dealt is not None:
            move(room, table, rng)
            return True
        try:
            room.deal_tournament(table, at=0)
            return True
        except RuleError:
            continue
    raise AssertionError("no table of the tournament takes a request")


def _moves(room: Room, key: UUID) -> dict[str, list[PlayerMoved]]:
    """The tournament's moves, by the key of the record that made them."""
    made = room.tournament(key).commands.items()
    return {k: [e for e in m if isinstance(e, PlayerMoved)] for k, (_, m) in made}


def _multi_table(room: Room) -> UUID:
    key = create(room, entrants=14, size=5)
    for name in players(room, 14):
        room.register_tournament(key, cid(), name, at=0)
    assert len(room.tournament(key).tournament.tables) == 3
    return key


def test_a_move_reads_no_table_whole(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A move starts from the room's copy of the other table and keeps what
    it committed there: each table is read whole at most once (its first
    use after the seats were drawn), however many players move."""
    room = store.room()
    key = _multi_table(room)
    whole: list[UUID] = []
    read = room.streams.table

    def counted(table_id: UUID) -> TableStream:
        whole.append(table_id)
        return read(table_id)

    monkeypatch.setattr(room.streams, "table", counted)
    rng = random.Random(3)
    while _step(room, key, rng):
        pass
    assert sum(map(len, _moves(room, key).values())) >= 2
    assert max(Counter(whole).values(), default=0) <= 1, Counter(whole)


def test_a_copy_kept_after_a_move_is_current(store: Store) -> None:
    """After every move, the room's copy of each table, which the next
    request there starts from, is the table as stored: the player moved
    sits at the table moved to."""
    room = store.room()
    key = _multi_table(room)
    moved = 0
    rng = random.Random(3)
    seen: set[str] = set()
    while _step(room, key, rng):
        moves = _moves(room, key)
        new = [e for k in moves.keys() - seen for e in moves[k]]
        seen = set(moves)
        if not new:
            continue
        for number in range(1, 4):
            table = tournament_table_id(key, number)
            stored = room.streams.table(table)
            held = room.table(table)
            assert (held.version, held.table) == (stored.version, stored.table)
        last = new[-1]
        to = room.table(tournament_table_id(key, last.to_table)).table
        assert (seat := to.seat(last.to_seat)) is not None
        assert seat.player == last.player
        moved += len(new)
    assert moved >= 2


def test_a_move_at_a_busy_table_reads_it_as_stored_and_its_copy_catches_up(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a request at the other table holds its lock, a move reads that
    table as stored rather than wait; the request there may then keep the
    copy it had, which must catch up before it is used again, not stand as
    current."""
    room = store.room()
    key = _multi_table(room)
    other = Work.other
    busy: list[UUID] = []

    def taken(work: Work, table: UUID) -> TableStream:
        """A request at ``table`` holds its lock until this one is done, and
        then keeps the copy it read before this one's move."""
        holding, done = threading.Event(), threading.Event()

        def at_table() -> None:
            with room.lock(table):
                had = room.held.table(table)
                holding.set()
                done.wait()
                room.held.keep(had, None, {})

        thread = threading.Thread(target=at_table)
        thread.start()
        holding.wait()
        work.lent.callback(thread.join)
        work.lent.callback(done.set)
        busy.append(table)
        return other(work, table)

    monkeypatch.setattr(Work, "other", taken)
    rng = random.Random(3)
    seen: set[str] = set()
    while _step(room, key, rng):
        moves = _moves(room, key)
        if moves.keys() == seen:
            continue
        seen = set(moves)
        for number in range(1, 4):
            table = tournament_table_id(key, number)
            stored, held = room.streams.table(table), room.table(table)
            assert (held.version, held.table) == (stored.version, stored.table)
    assert len(busy) >= 2
    assert check(store.streams()).problems == []
