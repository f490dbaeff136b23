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
from feltline.domain.ids import tournament_table_id
from feltline.domain.table import TableStream
from feltline.domain.tournament import TournamentStream
from feltline.engine.errors import RuleError
from feltline.engine.tournament import PlayerMoved
from feltline.store.check import check
from feltline.store.streams import Conflict

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


def test_requests_at_tables_moving_players_into_each_other_never_wait_for_each_other(
    store: Store,
) -> None:
    """Two threads play the tables of one room's tournament at once, moving
    players into each other's tables: a move takes the other table's lock
    only if it is free (else reads it as stored), so neither waits for the
    other, and the copies held at the end are the tables as stored."""
    room = store.room()
    key = _multi_table(room)
    failed: list[BaseException] = []

    def play(numbers: set[int], seed: int) -> None:
        rng = random.Random(seed)
        try:
            while not room.tournament(key).tournament.over:
                for number in sorted(numbers & set(room.tournament(key).tournament.tables)):
                    table = tournament_table_id(key, number)
                    try:
                        if room.table(table).table.dealt is not None:
                            move(room, table, rng)
                        else:
                            room.deal_tournament(table, at=0)
                    except (RuleError, Conflict):  # not its turn to deal; asked again
                        continue
        except BaseException as e:
            failed.append(e)

    threads = [
        threading.Thread(target=play, args=({1, 3}, 1), daemon=True),
        threading.Thread(target=play, args=({2}, 2), daemon=True),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "the tables' requests wait for each other"
    assert failed == []
    assert sum(map(len, _moves(room, key).values())) >= 2
    for number in range(1, 4):
        table = tournament_table_id(key, number)
        stored, held = room.streams.table(table), room.table(table)
        assert (held.version, held.table) == (stored.version, stored.table)
    assert check(store.streams()).problems == []
