"""Catching up after another writer (:meth:`Owners.catch_up`): its
listeners (the watchers) hear once of each time another process stored
something, never of this process's own writes; and the Room's tables list
what the other process opened once it is asked for them fresh."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from tests.tables import TABLES

HOLDEM = TableConfig(TABLES[Game.HOLDEM], 6)


@pytest.fixture
def rooms(tmp_path: Path) -> Iterator[tuple[Room, Room]]:
    """Two rooms on one store, as two server processes would have."""
    signer = Signer.generate()
    env = StoreConfig.from_env({"SQLITE_DBNAME": str(tmp_path / "owners.db")}).env
    here, elsewhere = Room(Streams(signer, env=env)), Room(Streams(signer, env=env))
    yield here, elsewhere
    here.close()
    elsewhere.close()


def test_the_listeners_hear_once_of_each_write_elsewhere(rooms: tuple[Room, Room]) -> None:
    here, elsewhere = rooms
    told: list[int] = []
    here.owners.on_written(lambda: told.append(here.others_wrote()))
    here.open_table("mine", HOLDEM, at=0)
    here.owners.catch_up()
    assert told == []  # this process's own write
    theirs = elsewhere.open_table("theirs", HOLDEM, at=0)
    assert theirs not in here.tables()  # not looked yet
    here.owners.catch_up()
    here.owners.catch_up()
    assert told == [1]
    assert theirs in here.tables()
    elsewhere.mint("mint", "p1", 100, by="admin")
    here.owners.catch_up()
    assert told == [1, 2]


def test_a_fresh_read_lists_a_table_opened_elsewhere(rooms: tuple[Room, Room]) -> None:
    here, elsewhere = rooms
    assert here.tables() == []
    theirs = elsewhere.open_table("theirs", HOLDEM, at=0)
    assert here.tables(fresh=True) == [theirs]
