"""The action clock visits only the tables that need it, and still acts at
every deadline: one this process set, one a restart finds in the store, and
one another process's write set."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from uuid import UUID

import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.clock import Clock
from feltline.cardroom.deadlines import Deadlines
from feltline.cardroom.room import Room
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline.store.faults import StoreFull
from tests.tables import TABLES

from .conftest import Seconds, open_room

CLOCK = 30
HOLDEM = TableConfig(TABLES[Game.HOLDEM], 6, action_clock=CLOCK)


@pytest.fixture
def opened(tmp_path: Path) -> Iterator[Callable[[], Room]]:
    """Rooms on one store, as separate server processes would have; each
    closed at the end."""
    signer = Signer.generate()
    rooms: list[Room] = []

    def another() -> Room:
        rooms.append(open_room(tmp_path / "clock.db", signer))
        return rooms[-1]

    yield another
    for room in rooms:
        room.close()


def _seat(room: Room, table: UUID, *seats: int, at: int) -> None:
    for seat in seats:
        room.mint(f"mint-{table}-{seat}", f"p{seat}-{table}", 1000, by="admin")
        room.sit_down(table, f"sit-{seat}", seat, f"p{seat}-{table}", 500, at=at)


def _clock(room: Room, seconds: Seconds) -> Clock:
    return Clock(room, seconds, logged=lambda name, /, **fields: None)


def _acted(room: Room, table: UUID, number: int) -> int:
    return room.hand(table, number).version


def test_a_quiet_tick_reads_no_table(opened: Callable[[], Room]) -> None:
    clock = Seconds()
    room = opened()
    table_clock = _clock(room, clock)
    idle = [room.open_table(f"idle-{n}", HOLDEM, at=clock.now) for n in range(20)]
    waiting = room.open_table("one-player", HOLDEM, at=clock.now)
    _seat(room, waiting, 1, at=clock.now)
    playing = room.open_table("playing", HOLDEM, at=clock.now)
    _seat(room, playing, 1, 2, at=clock.now)
    assert table_clock.tick() == 0  # works out every table, and deals at the one it can
    assert room.table(playing).table.dealt is not None
    table_clock.tick()  # the new hand's deadline
    reads: list[UUID] = []
    table = room.table
    room.table = lambda key: reads.append(key) or table(key)  # type: ignore[method-assign]
    clock.now += CLOCK - 1
    assert table_clock.tick() == 0
    assert reads == []
    clock.now += 1  # the hand's time is up: that table alone is visited
    assert table_clock.tick() == 1
    assert set(reads) == {playing}
    assert not set(idle) & set(reads)


def test_a_hand_times_out_at_its_deadline_and_again_after_each_time_out(
    opened: Callable[[], Room],
) -> None:
    clock = Seconds()
    room = opened()
    table_clock = _clock(room, clock)
    table = room.open_table("table", HOLDEM, at=clock.now)
    _seat(
        room, table, 1, 2, at=clock.now
    )  # through the room: the table_clock hears of it as stored
    table_clock.tick()
    assert room.table(table).table.hands == 1
    for _ in range(2):  # the second deadline counts from the first time-out
        clock.now += CLOCK - 1
        assert table_clock.tick() == 0
        clock.now += 1
        assert table_clock.tick() == 1


def test_a_time_out_the_store_refused_is_tried_at_the_next_tick(
    opened: Callable[[], Room],
) -> None:
    clock = Seconds()
    room = opened()
    table_clock = _clock(room, clock)
    table = room.open_table("table", HOLDEM, at=clock.now)
    _seat(room, table, 1, 2, at=clock.now)
    table_clock.tick()
    clock.now += CLOCK
    time_out = room.time_out

    def full(*args: object, **kwargs: object) -> object:
        raise StoreFull("the store cannot write: its disk is full")

    room.time_out = full  # type: ignore[assignment,method-assign]
    assert table_clock.tick() == 0
    room.time_out = time_out  # type: ignore[method-assign]
    assert table_clock.tick() == 1


def test_after_a_restart_the_clock_acts_at_the_deadline_stored(
    opened: Callable[[], Room],
) -> None:
    clock = Seconds()
    first = opened()
    table = first.open_table("table", HOLDEM, at=clock.now)
    _seat(first, table, 1, 2, at=clock.now)
    _clock(first, clock).tick()  # deals
    dealt = _acted(first, table, 1)
    first.close()
    clock.now += CLOCK - 1
    room = opened()  # a new process on the same store
    table_clock = _clock(room, clock)
    assert table_clock.tick() == 0
    clock.now += 1
    assert table_clock.tick() == 1
    assert _acted(room, table, 1) > dealt


def test_a_deadline_another_process_set_is_acted_on(opened: Callable[[], Room]) -> None:
    clock = Seconds()
    here, elsewhere = opened(), opened()
    table_clock = _clock(here, clock)
    table = here.open_table("table", HOLDEM, at=clock.now)
    table_clock.opened(table)
    assert table_clock.tick() == 0  # nobody seated: the table needs no clock
    _seat(elsewhere, table, 1, 2, at=clock.now)
    elsewhere.deal(table, "deal-1", at=clock.now)  # the other process's dealer
    clock.now += CLOCK - 1
    assert table_clock.tick() == 0
    clock.now += 1
    assert table_clock.tick() == 1
    assert _acted(elsewhere, table, 1) > 0


def test_a_deadline_moves_with_play_and_an_old_one_is_forgotten() -> None:
    deadlines = Deadlines()
    a, b = uuid.uuid4(), uuid.uuid4()
    deadlines.set(a, 10)
    deadlines.set(b, 5)
    deadlines.set(a, 20)  # someone acted at a: its time runs from then
    assert deadlines.pop_due(10) == [b]
    assert deadlines.pop_due(19) == []
    deadlines.set(a, None)  # a's hand waits on nobody now
    assert deadlines.pop_due(100) == []
    for due in range(1000):  # stale entries do not pile up
        deadlines.set(a, due)
    assert len(deadlines._heap) < 200
    assert deadlines.pop_due(10_000) == [a]
    assert len(deadlines) == 0
