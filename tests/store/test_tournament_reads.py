"""A room keeps its copy of a tournament current from the records stored
after it: a request at a tournament table reads what is new, not the whole
stream again (which grows with every hand, at every table), and what
another writer stored is read all the same."""

from __future__ import annotations

import random

import pytest

from feltline.cardroom.room import Room
from feltline.domain.ids import tournament_table_id
from feltline.domain.tournament import TournamentStream

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
