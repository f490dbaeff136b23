"""A table's feed: one store read per change for all its watchers, records
handed out by position, the latest hand followed and folded, older hands
read from the store as asked."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from functools import reduce

from feltline.api.feed import Feed, Stored
from feltline.engine.hand.decide import NEW_HAND
from feltline.engine.hand.events import Deal, Event
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.rules import Game, Rules, Stakes, Structure
from feltline.engine.table.events import HandDealt, HandFinished
from tests.engine.stacked import deal

TABLE = uuid.uuid4()
NL = Rules(Game.HOLDEM, Stakes(Structure.NO_LIMIT, small_bet=10, small_blind=5, big_blind=10))


def _hand() -> tuple[Event, ...]:
    table = deal(NL, [100, 100, 100], button=0, small_blind=1, big_blind=2)
    table.act(0, "call")
    table.act(1, "fold")
    return tuple(table.events)


HAND = _hand()  # the events of a hand in progress, to hand out a few at a time


def _dealt(number: int) -> HandDealt:
    return HandDealt(hand=number, at=0, deal=Deal(button=1, seats=()), commitment="c")


def _finished() -> HandFinished:
    return HandFinished(stacks=())


@dataclass
class Store:
    """A table's and its hands' records, counting the reads."""

    table: list[Event] = field(default_factory=list)
    hands: dict[int, list[Event]] = field(default_factory=dict)
    version: int = 0
    elsewhere: int = 0  # the Room's count of other processes' writes seen
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

    def feed(self) -> Feed:
        return Feed(TABLE, self.read_table, self.read_hand, lambda: self.elsewhere)


def test_watchers_share_one_read_per_change() -> None:
    store = Store()
    store.change(table=(_dealt(1),), hand=(1, HAND[:2]))
    feed = store.feed()
    assert feed.stale()  # never read
    feed.refresh()
    for _ in range(4):  # four watchers look after the same change
        assert [s.position for s in feed.after()] == [1]
        assert [s.position for s in feed.hand(1) if s] == [1, 2]
    assert store.reads == ["table>0", "hand 1>0"]
    store.change(hand=(1, HAND[2:3]))
    feed.refresh()  # as the writer does, before waking the watchers
    assert [s.position for s in feed.hand(1, 2) if s] == [3]
    assert feed.after(1) == []
    assert store.reads[2:] == ["table>1", "hand 1>2"]


def test_looking_never_reads_the_feed_s_own_records() -> None:
    store = Store()
    store.change(table=(_dealt(1),), hand=(1, HAND[:1]))
    feed = store.feed()
    feed.refresh()
    reads = len(store.reads)
    store.change(hand=(1, HAND[1:2]))  # not yet read in
    assert len(feed.hand(1)) == 1
    assert feed.after(1) == []
    assert len(store.reads) == reads


def test_the_feed_follows_the_table_to_its_new_hand_and_reads_older_ones() -> None:
    store = Store()
    store.change(table=(_dealt(1),), hand=(1, HAND[:1]))
    feed = store.feed()
    feed.refresh()
    assert len(feed.hand(1)) == 1
    store.change(hand=(1, HAND[1:2]))
    store.change(table=(_finished(), _dealt(2)), hand=(2, HAND[:2]))
    feed.refresh()
    assert store.reads[-2:] == ["hand 1>1", "hand 2>0"]  # hand 1 read to its end, 2 ahead
    reads = len(store.reads)
    assert len(feed.hand(2)) == 2
    assert len(feed.hand(1)) == 2  # kept for the watchers still finishing it
    assert len(store.reads) == reads
    store.change(table=(_finished(), _dealt(3)), hand=(3, HAND[:1]))
    feed.refresh()
    reads = len(store.reads)
    assert len(feed.hand(1)) == 2  # no longer kept: read from the store
    assert store.reads[reads:] == ["hand 1>0"]


def test_each_hand_record_carries_the_state_after_it() -> None:
    store = Store()
    hand = HAND
    store.change(table=(_dealt(1),), hand=(1, hand[:3]))
    feed = store.feed()
    feed.refresh()
    store.change(hand=(1, hand[3:]))
    feed.refresh()  # folded on from where the last reading stopped
    for n, s in enumerate(feed.hand(1), 1):
        assert s is not None
        assert s.after == reduce(evolve, hand[:n], NEW_HAND)
    assert [s.after for s in feed.hand(1)] == [s.after for s in store.feed().hand(1)]


def test_another_process_s_writes_make_the_reading_stale_once_seen() -> None:
    store = Store()
    store.change(table=(_dealt(1),))
    feed = store.feed()
    feed.refresh()
    assert not feed.stale()
    store.table.append(_finished())  # another process wrote
    assert not feed.stale()  # nobody here has seen it yet
    assert feed.after(1) == []
    store.elsewhere += 1  # the Room saw it
    assert feed.stale()
    reads = len(store.reads)
    for _ in range(4):  # the table's watchers, woken together
        feed.refresh_if_stale()
    assert store.reads[reads:] == ["table>1", "hand 1>0"]  # one reading, not four
    assert [s.position for s in feed.after(1)] == [2]
    assert not feed.stale()


def _stored(events: tuple[Event, ...], first: int, at: int | None = None) -> list[Stored]:
    return [Stored(n, e, "", at) for n, e in enumerate(events, first)]


def test_what_this_process_stored_is_taken_in_without_reading_it_back() -> None:
    store = Store()
    store.change(table=(_dealt(1),), hand=(1, HAND[:2]))
    feed = store.feed()
    feed.refresh()
    reads = len(store.reads)
    store.change(hand=(1, HAND[2:4]))
    feed.append([], 1, list(_stored(HAND[2:4], 3)))
    store.change(table=(_finished(), _dealt(2)), hand=(2, HAND[:1]))
    feed.append(_stored((_finished(), _dealt(2)), 2), 2, list(_stored(HAND[:1], 1)))
    assert not feed.stale()
    assert [s.position for s in feed.hand(1) if s] == [1, 2, 3, 4]
    assert [s.position for s in feed.after(1)] == [2, 3]
    assert [s.position for s in feed.hand(2) if s] == [1]
    assert store.reads[reads:] == []
    reference = store.feed()
    reference.refresh()
    for number in (1, 2):
        assert [s.after for s in feed.hand(number)] == [s.after for s in reference.hand(number)]


def test_records_that_skip_some_leave_the_feed_behind_until_it_reads() -> None:
    store = Store()
    store.change(table=(_dealt(1),), hand=(1, HAND[:2]))
    feed = store.feed()
    feed.refresh()
    store.change(hand=(1, HAND[2:3]))  # another process stored position 3
    store.change(hand=(1, HAND[3:4]))
    feed.append([], 1, list(_stored(HAND[3:4], 4)))
    assert feed.stale()
    assert len(feed.hand(1)) == 2  # nothing taken in out of order
    feed.refresh()
    assert [s.position for s in feed.hand(1) if s] == [1, 2, 3, 4]
    assert not feed.stale()


def test_records_a_refresh_read_first_are_not_taken_twice() -> None:
    store = Store()
    store.change(table=(_dealt(1),), hand=(1, HAND[:2]))
    feed = store.feed()
    feed.refresh()
    store.change(table=(_finished(),), hand=(1, HAND[2:3]))
    feed.refresh()  # a watcher's refresh got there before the writer's append
    feed.append(_stored((_finished(),), 2), 1, list(_stored(HAND[2:3], 3)))
    assert not feed.stale()
    assert [s.position for s in feed.after()] == [1, 2]
    assert [s.position for s in feed.hand(1) if s] == [1, 2, 3]
