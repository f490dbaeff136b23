"""A table's feed: one store read per change for all its watchers, records
handed out by position, the latest hand followed, older hands and ranges
read from the store as asked."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from feltline.api.feed import Feed, Stored
from feltline.engine.events import Event
from feltline.engine.table import HandDealt, HandFinished

TABLE = uuid.uuid4()


def _dealt(number: int) -> HandDealt:
    return HandDealt(hand=number, at=0, button=1, seats=(), commitment="c")


def _finished() -> HandFinished:
    return HandFinished(stacks=())


@dataclass
class Store:
    """A table's and its hands' records, counting the reads."""

    table: list[Event] = field(default_factory=list)
    hands: dict[int, list[Event]] = field(default_factory=dict)
    version: int = 0
    reads: list[str] = field(default_factory=list)

    def read_table(self, table_id: uuid.UUID, after: int) -> list[Stored]:
        self.reads.append(f"table>{after}")
        return [Stored(n, e, "") for n, e in enumerate(self.table, 1)][after:]

    def read_hand(self, table_id: uuid.UUID, number: int, after: int) -> list[Stored | None]:
        self.reads.append(f"hand {number}>{after}")
        made = [Stored(n, e, "") for n, e in enumerate(self.hands.get(number, []), 1)]
        return list(made[after:])

    def change(
        self, *, table: tuple[Event, ...] = (), hand: tuple[int, tuple[Event, ...]] = (0, ())
    ) -> None:
        self.table += table
        number, events = hand
        if number:
            self.hands.setdefault(number, []).extend(events)
        self.version += 1

    def feed(self, fresh: float = 60.0) -> Feed:
        return Feed(TABLE, lambda: self.version, self.read_table, self.read_hand, fresh=fresh)


def test_watchers_share_one_read_per_change() -> None:
    store = Store()
    store.change(table=(_dealt(1),), hand=(1, (_finished(), _finished())))
    feed = store.feed()
    for _ in range(4):  # four watchers look after the same change
        assert [s.position for s in feed.table()] == [1]
        assert [s.position for s in feed.hand(1) if s] == [1, 2]
    assert store.reads == ["table>0", "hand 1>0"]
    store.change(hand=(1, (_finished(),)))
    assert [s.position for s in feed.hand(1, 2) if s] == [3]
    assert feed.table(1) == []
    assert store.reads[2:] == ["table>1", "hand 1>2"]


def test_the_feed_follows_the_table_to_its_new_hand_and_reads_older_ones() -> None:
    store = Store()
    store.change(table=(_dealt(1),), hand=(1, (_finished(),)))
    feed = store.feed()
    assert len(feed.hand(1)) == 1
    store.change(table=(_finished(), _dealt(2)), hand=(2, (_finished(), _finished())))
    feed.refresh()  # as the writer does, before waking the watchers
    assert store.reads[-1] == "hand 2>0"  # read ahead: nobody asked yet
    reads = len(store.reads)
    assert len(feed.hand(2)) == 2
    assert len(store.reads) == reads
    assert len(feed.hand(1)) == 1  # no longer kept: read from the store
    assert store.reads[-1] == "hand 1>0"


def test_an_unannounced_change_is_read_once_the_reading_is_stale() -> None:
    store = Store()
    store.change(table=(_dealt(1),))
    feed = store.feed(fresh=0.0)
    assert len(feed.table()) == 1
    store.table.append(_finished())  # another process wrote; nobody here was told
    assert feed.stale()
    assert [s.position for s in feed.table(1)] == [2]
    fresh = store.feed(fresh=60.0)
    assert len(fresh.table()) == 2
    store.table.append(_finished())
    assert not fresh.stale()
    assert fresh.table(2) == []
