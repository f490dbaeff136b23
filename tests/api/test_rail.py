"""The rail's wake-ups: a watch waits on the event loop for its table's next
change, is woken by a change made in another thread, and leaves nothing
behind when it times out or is cancelled; and what the room stores reaches
the table's feed as it commits."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from feltline.api.rail import Rail
from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.engine.hand.events import Action
from feltline.engine.hand.rules import Game
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.house import TableConfig
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from tests.tables import TABLES

TABLE = uuid.uuid4()
HOLDEM = TableConfig(TABLES[Game.HOLDEM], 6)


@pytest.fixture
def rail(tmp_path: Path) -> Iterator[Rail]:
    env = StoreConfig.from_env({"SQLITE_DBNAME": str(tmp_path / "rail.db")}).env
    room = Room(Streams(Signer.generate(), env=env))
    yield Rail(room)
    room.close()


def _waiting(rail: Rail) -> int:
    return sum(len(futures) for futures in rail._waiting.values())


def test_a_change_in_another_thread_wakes_the_waiting_watch(rail: Rail) -> None:
    async def watch() -> float:
        seen = rail.version(TABLE)
        threading.Timer(0.05, rail.notify, args=(TABLE,)).start()
        began = time.monotonic()
        await rail.wait(TABLE, seen, timeout=5)
        return time.monotonic() - began

    assert asyncio.run(watch()) < 2
    assert rail.version(TABLE) == 1
    assert _waiting(rail) == 0


def test_a_change_already_made_returns_at_once(rail: Rail) -> None:
    rail.notify(TABLE)
    asyncio.run(asyncio.wait_for(rail.wait(TABLE, 0, timeout=60), 1))


def test_a_timed_out_or_cancelled_watch_leaves_no_waiter(rail: Rail) -> None:
    async def both() -> None:
        await rail.wait(TABLE, 0, timeout=0.01)
        assert _waiting(rail) == 0
        task = asyncio.create_task(rail.wait(TABLE, 0, timeout=60))
        await asyncio.sleep(0.01)
        assert _waiting(rail) == 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert _waiting(rail) == 0

    asyncio.run(both())


def test_waits_that_time_out_together_share_one_timer(rail: Rail) -> None:
    """Idle watches time out every few seconds: a timer each cost asyncio a
    heap entry per watch."""

    async def waits() -> tuple[int, float]:
        loop = asyncio.get_running_loop()
        began = loop.time()
        tasks = [asyncio.create_task(rail.wait(uuid.uuid4(), 0, timeout=0.2)) for _ in range(100)]
        await asyncio.sleep(0)  # each is waiting
        timers = len(loop._scheduled)  # type: ignore[attr-defined]
        await asyncio.wait_for(asyncio.gather(*tasks), 5)
        return timers, loop.time() - began

    timers, took = asyncio.run(waits())
    assert timers <= 2  # one, or two if the waits straddle a slot
    assert 0.2 <= took < 2
    assert _waiting(rail) == 0


def test_stopping_wakes_every_watch(rail: Rail) -> None:
    async def watches() -> None:
        tasks = [asyncio.create_task(rail.wait(uuid.uuid4(), 0, timeout=60)) for _ in range(3)]
        await asyncio.sleep(0.01)
        threading.Thread(target=rail.stop).start()
        await asyncio.wait_for(asyncio.gather(*tasks), 5)

    asyncio.run(watches())
    assert _waiting(rail) == 0


def test_what_the_room_stores_reaches_the_table_s_feed_without_a_read(rail: Rail) -> None:
    room = rail.room
    table = room.open_table("open", HOLDEM, at=0)
    for seat in (1, 2):
        room.mint(f"mint-{seat}", f"p{seat}", 1000, by="admin")
        room.sit_down(table, f"sit-{seat}", seat, f"p{seat}", 500, at=0)
    feed = rail.feed(table)
    feed.refresh()
    reads: list[str] = []
    read_table, read_hand = feed._read_records, feed._read_hand
    feed._read_records = lambda *a: reads.append("table") or read_table(*a)  # type: ignore[method-assign]
    feed._read_hand = lambda *a: reads.append("hand") or read_hand(*a)  # type: ignore[method-assign]
    room.deal(table, "deal", at=0)
    seat = waiting_on(room.hand(table, 1).hand)[0]
    room.act(table, 1, "fold", seat, Action.FOLD, at=0)
    rail.notify(table)
    kept = [s.event for s in feed.hand(1) if s is not None], [s.event for s in feed.after()]
    assert reads == []
    stored = [s.event for s in rail._read_hand(table, 1, 0) if s is not None]
    assert kept == (stored, [s.event for s in rail._read_table(table, 0)])
