"""What the servicers share around one :class:`Room`: a lock per table, so
that a request, the dealer and the action clock never interleave at a
table; a notifier that wakes a table's watchers after every change; the
dealer, who deals the next hand once a hand ends and enough players sit;
and the action clock, which acts for a player whose time is up.

Everything a watcher or the clock needs is read back from the store (the
table's and the hand's stored records), never kept only in memory, so a
restarted server carries on where the last one stopped: cursors resume and
deadlines are counted from stored times. A table's watchers share one feed
of its records (:mod:`feltline.api.feed`), which this process's commits
keep current; each clock tick looks whether another process stored
anything (:mod:`feltline.store.elsewhere`), and if so wakes every watcher
to read it. Time comes from ``clock``, whole seconds; nothing in the engine
or the store reads one.

The clock visits only the tables that need it (most tables wait on someone
with time left, or on players): it keeps each table's deadline in a heap
(:mod:`feltline.api.deadlines`) and the tables that may deal in a set, and
works both out again for a table whenever something is stored there.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Callable, Iterable
from typing import cast
from uuid import UUID

import structlog

from feltline.api.deadlines import Deadlines
from feltline.api.feed import Feed, Stored
from feltline.api.logging import log_action
from feltline.audit.codec import TABLE_EVENT_TYPES, decode_event
from feltline.domain.hand import Recorded, Sealed
from feltline.domain.ids import hand_id
from feltline.domain.table import TableRecord, TableStream
from feltline.engine.errors import RuleError
from feltline.engine.table import Table
from feltline.engine.turn import waiting_on
from feltline.store.check import PAGE
from feltline.store.faults import StoreFull, Unreadable
from feltline.store.room import Committed, Conflict, Room

Seconds = Callable[[], int]
Waiter = asyncio.Future[None]
log = structlog.get_logger("feltline.api")


def wall_clock() -> int:
    return int(time.time())


class Hub:
    """Locks, notifications, the dealer and the clock over ``room``."""

    def __init__(self, room: Room, *, clock: Seconds = wall_clock, settle: float = 1.0) -> None:
        self.room = room
        self.clock = clock
        self.settle = settle
        self._touched: dict[UUID, float] = {}
        self._locks: dict[UUID, threading.RLock] = {}
        self._guard = threading.Lock()
        # The change counts, and the watchers waiting for each table's next.
        self._counting = threading.Lock()
        self._counts: dict[UUID, int] = {}
        self._waiting: dict[UUID, set[asyncio.Future[None]]] = {}
        # Waits by the timer that ends them: (loop, grain, slot), see _time_out.
        self._timers: dict[tuple[asyncio.AbstractEventLoop, float, int], list[Waiter]] = {}
        self._tables: dict[UUID, None] | None = None
        self._feeds: dict[UUID, Feed] = {}
        self._woken = 0  # the store's epoch when every watcher was last woken
        self.stopping = threading.Event()
        # The clock's view of which tables need it (see tick): the tables
        # stored at since it last looked, each table's deadline, the tables
        # between hands that may deal, and the store's epoch it is current at.
        self._ticking = threading.Lock()  # one tick at a time
        self._dirtying = threading.Lock()
        self._dirty: set[UUID] = set()
        self._deadlines = Deadlines()
        self._dealing: set[UUID] = set()
        self._clocked = -1  # none yet: the first tick works out every table
        room.listen(self._committed)

    # ---- tables

    def tables(self) -> list[UUID]:
        """Every table in the store, in the order they were opened."""
        with self._guard:
            if self._tables is None:
                self._tables = dict.fromkeys(self._scan())
            return list(self._tables)

    def register(self, table_id: UUID) -> None:
        self.tables()
        with self._guard:
            assert self._tables is not None
            self._tables.setdefault(table_id, None)
        self._stale((table_id,))

    def _scan(self) -> list[UUID]:
        topic = f"{TableRecord.__module__}:{TableRecord.__qualname__}"
        found: list[UUID] = []
        start = 1
        recorder = self.room.cardroom.recorder
        while page := recorder.select_notifications(start, PAGE):
            for n in page:
                if n.topic == topic and n.originator_version == 1:
                    found.append(UUID(str(n.originator_id)))
            start = page[-1].id + 1
        return found

    def lock(self, table_id: UUID) -> threading.RLock:
        with self._guard:
            return self._locks.setdefault(table_id, threading.RLock())

    # ---- notifications

    def version(self, table_id: UUID) -> int:
        with self._counting:
            return self._counts.get(table_id, 0)

    def notify(self, table_id: UUID) -> None:
        """After a change: make sure the table's feed has it, then count it
        and wake the watchers, who find it there."""
        with self._guard:
            feed = self._feeds.get(table_id)
        if feed is not None:
            feed.refresh_if_stale()
        with self._counting:
            self._counts[table_id] = self._counts.get(table_id, 0) + 1
            waiting = self._waiting.pop(table_id, set())
        _wake(waiting)

    async def wait(self, table_id: UUID, seen: int, timeout: float) -> None:
        """Until the table changes after ``seen``, another process is seen to
        store something, the server stops, or ``timeout`` (and up to a
        sixteenth more) has passed."""
        loop = asyncio.get_running_loop()
        woken = loop.create_future()
        with self._counting:
            if self._counts.get(table_id, 0) != seen or self.stopping.is_set():
                return
            self._waiting.setdefault(table_id, set()).add(woken)
            self._time_out(loop, timeout, woken)
        try:
            await woken
        finally:  # woken, timed out, or the watch was cancelled: stop waiting
            with self._counting:
                self._waiting.get(table_id, set()).discard(woken)

    def _time_out(self, loop: asyncio.AbstractEventLoop, timeout: float, woken: Waiter) -> None:
        """Resolve ``woken`` once ``timeout`` has passed, on a timer it shares
        with the waits ending within a sixteenth of ``timeout`` after it: the
        watches of idle tables time out all the time (a safety net: changes
        wake them), and a timer each made asyncio keep a heap entry per
        watch, ordered by Python code. Its lock (``_counting``) held."""
        grain = max(timeout, 0.004) / 16
        slot = math.ceil((loop.time() + timeout) / grain)
        key = (loop, grain, slot)
        sharing = self._timers.get(key)
        if sharing is None:
            sharing = self._timers[key] = []
            loop.call_at(slot * grain, self._timed_out, key)
        sharing.append(woken)

    def _timed_out(self, key: tuple[asyncio.AbstractEventLoop, float, int]) -> None:
        with self._counting:
            futures = self._timers.pop(key, [])
        _resolve(futures)  # the ones already woken or cancelled are done: left alone

    def stop(self) -> None:
        self.stopping.set()
        self._wake_everyone()

    def _wake_everyone(self) -> None:
        with self._counting:
            waiting = {f for futures in self._waiting.values() for f in futures}
            self._waiting.clear()
        _wake(waiting)

    # ---- what the store holds

    def feed(self, table_id: UUID) -> Feed:
        with self._guard:
            feed = self._feeds.get(table_id)
            if feed is None:
                feed = self._feeds[table_id] = Feed(
                    table_id, self._read_table, self._read_hand, self._epoch
                )
            return feed

    def table_records(self, table_id: UUID, after: int = 0) -> list[Stored]:
        """The table's events after position ``after``."""
        return self.feed(table_id).table(after)

    def hand_records(self, table_id: UUID, number: int, after: int = 0) -> list[Stored | None]:
        """The hand's events after position ``after``; None stands for its seal."""
        return self.feed(table_id).hand(number, after)

    def _committed(self, c: Committed) -> None:
        """Have the clock look at the table again, and hand what was just
        stored there to its feed, if it has one."""
        self._stale((c.table_id,))
        with self._guard:
            feed = self._feeds.get(c.table_id)
        if feed is None:
            return
        table: list[Stored] = []
        hand: list[Stored | None] = []
        for record, event in c.records:
            if isinstance(record, Sealed):
                hand.append(None)
                continue
            assert event is not None
            if isinstance(record, TableRecord):
                table.append(Stored(record.originator_version, event, record.command_id))
            else:
                hand.append(Stored(record.originator_version, event, record.command_id, record.at))
        feed.append(table, c.hand, hand)

    def _read_table(self, table_id: UUID, after: int) -> list[Stored]:
        out = []
        with self.room.cardroom.reported.reading(table_id):
            records = self.room.cardroom.events.get(table_id, gt=after or None)
            for r in cast(list[TableRecord], list(records)):
                event = decode_event(r.type, r.version, r.data, TABLE_EVENT_TYPES)
                out.append(Stored(r.originator_version, event, r.command_id))
        return out

    def _read_hand(self, table_id: UUID, number: int, after: int) -> list[Stored | None]:
        out: list[Stored | None] = []
        with self.room.cardroom.reported.reading(table_id, f"hand {number}: "):
            records = self.room.cardroom.events.get(hand_id(table_id, number), gt=after or None)
            for r in cast(list[Recorded | Sealed], list(records)):
                if isinstance(r, Sealed):
                    out.append(None)
                    continue
                event = decode_event(r.type, r.version, r.data)
                out.append(Stored(r.originator_version, event, r.command_id, r.at))
        return out

    # ---- the dealer and the clock

    def changed(self, table_id: UUID, *, deal: bool = True) -> None:
        """After a change at the table (its lock held): deal if a hand just
        ended and the next can start, and wake the watchers. Seating changes
        pass ``deal=False``: the clock deals at an idle table once it has
        been still for ``settle`` seconds, so players sitting down together
        all get into the first hand."""
        self._touched[table_id] = time.monotonic()
        try:
            if deal:
                self.deal_if_ready(table_id)
        finally:
            self.notify(table_id)
        place = self.room.match_of(table_id)
        if place is not None:  # a deal's end there may reveal it at every table
            self.notify(place[0])
            for other in self.room.match(place[0]).match.tables:
                if other != table_id:
                    self.notify(other)

    def deal_if_ready(self, table_id: UUID) -> bool:
        table = self.room.table(table_id).table
        if table.config is None or table.dealt is not None:
            return False
        place = self.room.match_of(table_id)
        if place is not None:
            return self._deal_match(table_id, *place)
        if _players(table) < 2:
            return False
        number = table.hands + 1
        try:
            self.room.deal(table_id, f"deal-{number}", at=self.clock())
        except RuleError:  # e.g. hold'em newcomers waiting for the big blind
            return False
        except StoreFull:  # the clock deals once the store writes again
            return False
        log_action("deal", table_id=str(table_id), hand_number=number)
        return True

    def _deal_match(self, table_id: UUID, match: UUID, number: int) -> bool:
        """Deal a match's table its next deal, if the match lets it now."""
        try:
            self.room.deal_match(match, number, at=self.clock())
        except (RuleError, StoreFull):  # seats to fill, or waiting for the slowest table
            return False
        log_action("deal_match", table_id=str(table_id), match_id=str(match), table=number)
        return True

    def unrevealed(self, table_id: UUID, deal: int) -> bool:
        """Whether hand ``deal`` of a match's table is a deal the match has
        not revealed yet (never, at a table of no match)."""
        revealed = self.revealed(table_id)
        return revealed is not None and revealed < deal

    def revealed(self, table_id: UUID) -> int | None:
        """How many deals the match of this table has revealed; None at a
        table of no match."""
        place = self.room.match_of(table_id)
        if place is None:
            return None
        return len(self.room.match(place[0]).match.revealed)

    def _epoch(self) -> int:
        """How many times another process was seen to store something: a
        feed read at an earlier count is out of date."""
        return self.room.cardroom.elsewhere.epoch

    def look(self) -> bool:
        """Whether another process stored something since every watcher was
        last woken (by this look or a request's); if so, every table's feed is
        out of date, and its watchers are woken to read it."""
        self.room.look()
        epoch = self._epoch()
        if epoch == self._woken:
            return False
        self._woken = epoch
        self._wake_everyone()
        return True

    def tick(self) -> int:
        """Notice what other processes stored; act for every player whose
        time is up; deal where a hand can start. The number of time-outs made.

        Only the tables that need it are visited: those whose deadline has
        come (the hand's last stored time plus the action clock) and those
        between hands with players enough to deal. Both are worked out again
        for a table from what is stored once something is stored there: by
        this process (:meth:`_committed`), or by another (every table, once
        the store's epoch moves); and for every table at start."""
        with self._ticking:
            self.look()
            epoch = self._epoch()
            if epoch != self._clocked:
                self._clocked = epoch
                self._stale(self.tables())
            self._reschedule()
            now = self.clock()
            due = self._deadlines.pop_due(now)
            visit = list(dict.fromkeys([*due, *self._dealing]))
            made = 0
            try:
                for table_id in visit:
                    if self.stopping.is_set():
                        break
                    with self.lock(table_id):
                        try:
                            made += self._tick(table_id, now)
                        except (RuleError, Conflict) as e:
                            log.warning("clock_refused", table_id=str(table_id), error=str(e))
                        except (Unreadable, StoreFull):  # logged once; try at the next tick
                            pass
            finally:
                self._stale(due)  # acted for or not: where each stands now, at the next tick
            return made

    def _stale(self, tables: Iterable[UUID]) -> None:
        """Have the clock work out again, at its next tick, whether and when
        these tables need it."""
        with self._dirtying:
            self._dirty.update(tables)

    def _reschedule(self) -> None:
        """Work out each table stored at since the last tick anew: its
        deadline, and whether it may deal. A table that cannot be read now
        is tried again at the next tick."""
        with self._dirtying:
            dirty, self._dirty = self._dirty, set()
        if not dirty:
            return
        with self._guard:  # the clock keeps to the tables this process knows, as before
            assert self._tables is not None  # the first tick scanned them
            left = [t for t in dirty if t in self._tables]
        again: list[UUID] = []
        try:
            while left:
                table_id = left[-1]
                with self.lock(table_id):
                    try:
                        self._schedule(table_id)
                    except (RuleError, Conflict) as e:
                        log.warning("clock_refused", table_id=str(table_id), error=str(e))
                        again.append(table_id)
                    except (Unreadable, StoreFull):
                        again.append(table_id)
                left.pop()
        finally:
            self._stale([*left, *again])

    def _schedule(self, table_id: UUID) -> None:
        """Put the table on the clock at its deadline, or among the tables
        that may deal, or neither, as it stands now."""
        stream = self.room.table(table_id)
        table = stream.table
        due: int | None = None
        dealing = False
        if table.config is not None:
            if table.dealt is not None:
                hand = self.room.hand(table_id, table.hands)
                if waiting_on(hand.hand):
                    due = hand.since + table.config.action_clock
            else:
                dealing = self._may_deal(stream)
        self._deadlines.set(table_id, due)
        if dealing:
            self._dealing.add(table_id)
        else:
            self._dealing.discard(table_id)

    def _may_deal(self, stream: TableStream) -> bool:
        """Whether the table, between hands, may deal without anything
        being stored there first: with two players ready, or (a match's
        table) with deals left, which the match lets it deal in turn."""
        place = self.room.match_of(stream.id)
        if place is None:
            return _players(stream.table) >= 2
        return stream.table.hands < self.room.match(place[0]).match.setup.deals

    def _tick(self, table_id: UUID, now: int) -> int:
        table = self.room.table(table_id).table
        if table.config is None:
            return 0
        if table.dealt is None:
            still = time.monotonic() - self._touched.get(table_id, 0.0)
            match = self.room.match_of(table_id) is not None  # seated by the match: no settling
            if (match or still >= self.settle) and self.deal_if_ready(table_id):
                self.changed(table_id, deal=False)
            return 0
        stream = self.room.hand(table_id, table.hands)
        if now < stream.since + table.config.action_clock:
            return 0
        waiting = waiting_on(stream.hand)
        if not waiting:
            return 0
        seat = waiting[0]
        self.room.time_out(table_id, table.hands, f"clock-{stream.version}-{seat}", seat, at=now)
        log_action("time_out", table_id=str(table_id), hand_number=table.hands, seat=seat)
        self.changed(table_id)
        return 1


def _players(table: Table) -> int:
    """The seats with chips that would be dealt in."""
    return sum(1 for s in table.seats if s.stack > 0 and not (s.leaving or s.sitting_out))


def _wake(waiting: set[asyncio.Future[None]]) -> None:
    """Resolve each future on its own loop: one hand-off per loop, whatever
    the number of watchers."""
    by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
    for future in waiting:
        by_loop.setdefault(future.get_loop(), []).append(future)
    for loop, futures in by_loop.items():
        if not loop.is_closed():
            loop.call_soon_threadsafe(_resolve, futures)


def _resolve(futures: list[asyncio.Future[None]]) -> None:
    for future in futures:
        if not future.done():
            future.set_result(None)


class ActionClock:
    """A thread that calls :meth:`Hub.tick` every ``interval`` seconds."""

    def __init__(self, hub: Hub, interval: float = 0.5) -> None:
        self.hub = hub
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="feltline-clock", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.hub.tick()
            except Exception:
                log.exception("clock_failed")
