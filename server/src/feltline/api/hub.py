"""What the servicers share around one :class:`Room`: a notifier that
wakes a table's watchers after every change, the feeds they read, the
tables this process serves, and the table clock (the dealer between hands
and the action clock, :mod:`feltline.cardroom.clock`), which it runs and
whose changes it announces. A request, the dealer and the clock at a table
all hold the Room's one lock of the table.

Everything a watcher needs is read back from the store (the table's and
the hand's stored records), never kept only in memory, so a restarted
server carries on where the last one stopped: cursors resume. A table's
watchers share one feed of its records (:mod:`feltline.api.feed`), which
this process's commits keep current; each clock tick looks whether another
process stored anything (:mod:`feltline.store.elsewhere`), and if so wakes
every watcher to read it. Time comes from ``clock``, whole seconds.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Callable
from typing import overload
from uuid import UUID

import structlog

from feltline.api.feed import Feed, Stored
from feltline.api.logging import log_action
from feltline.cardroom.clock import Clock
from feltline.cardroom.room import Room
from feltline.cardroom.work import Committed
from feltline.domain.hand import Sealed, StoredHandEvent
from feltline.domain.table import TableRecord
from feltline.engine.events import Event

Seconds = Callable[[], int]
# Seconds a watch waits unwoken. Every change wakes its watchers (this
# process's as it commits, another's at the next look), so this only bounds
# how long a lost wake-up could hold a watch; at 10,000 idle watches every
# expiry is a step of each, so it is long.
POLL = 30.0
Waiter = asyncio.Future[None]
log = structlog.get_logger("feltline.api")


def wall_clock() -> int:
    return int(time.time())


class Hub:
    """Notifications, feeds and the table clock over ``room``."""

    def __init__(self, room: Room, *, clock: Seconds = wall_clock, settle: float = 1.0) -> None:
        self.room = room
        self.clock = clock
        self._guard = threading.Lock()
        # The change counts, and the watchers waiting for each table's next.
        self._counting = threading.Lock()
        self._counts: dict[UUID, int] = {}
        self._waiting: dict[UUID, set[asyncio.Future[None]]] = {}
        # Waits by the timer that ends them: (loop, grain, slot), see _time_out.
        self._timers: dict[tuple[asyncio.AbstractEventLoop, float, int], list[Waiter]] = {}
        self._feeds: dict[UUID, Feed] = {}
        self._woken = 0  # the store's epoch when every watcher was last woken
        self.stopping = threading.Event()
        self.table_clock = Clock(
            room,
            clock,
            tables=room.served,
            changed=self._announce,
            logged=log_action,
            stopping=self.stopping,
            settle=settle,
        )
        room.listen(self._committed)
        room.owners.on_taken(self.table_clock.stale)
        room.owners.on_written(self.look)  # other processes' writes, heard at once

    # ---- tables

    def register(self, table_id: UUID) -> None:
        """A table was just opened through this process: put it on the clock."""
        self.table_clock.stale((table_id,))

    def lock(self, table_id: UUID) -> threading.RLock:
        """The room's lock of the table: one lock, whoever changes the table."""
        return self.room.lock(table_id)

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
        self.table_clock.stale((c.table_id,))
        with self._guard:
            feed = self._feeds.get(c.table_id)
        if feed is None:
            return
        table = [_stored(r, e) for r, e in c.records if isinstance(r, TableRecord)]
        hand = [_stored(r, e) for r, e in c.records if not isinstance(r, TableRecord)]
        feed.append(table, c.hand, hand)

    def _read_table(self, table_id: UUID, after: int) -> list[Stored]:
        return [_stored(r, e) for r, e in self.room.table_events(table_id, after)]

    def _read_hand(self, table_id: UUID, number: int, after: int) -> list[Stored | None]:
        return [_stored(r, e) for r, e in self.room.hand_events(table_id, number, after)]

    # ---- the dealer and the clock

    def changed(self, table_id: UUID, *, deal: bool = True) -> None:
        """After a change at the table (its lock held): deal if a hand just
        ended and the next can start, and wake the watchers. Seating changes
        pass ``deal=False``: the clock deals at an idle table once it has
        been still for a while, so players sitting down together all get
        into the first hand."""
        self.table_clock.touched(table_id)
        try:
            if deal:
                self.table_clock.deal_if_ready(table_id)
        finally:
            self._announce(table_id)

    def _announce(self, table_id: UUID) -> None:
        """Wake the table's watchers, and at a match's table every table of
        the match: a deal's end there may reveal it at all of them."""
        self.notify(table_id)
        place = self.room.match_of(table_id)
        if place is not None:
            self.notify(place[0])
            for other in self.room.match(place[0]).match.tables:
                if other != table_id:
                    self.notify(other)

    def _epoch(self) -> int:
        """How many times another process was seen to store something: a
        feed read at an earlier count is out of date."""
        return self.room.others_wrote()

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
        """Notice what other processes stored (waking every watcher if so),
        then run the table clock (:meth:`Clock.tick`): the time-outs made."""
        self.look()
        return self.table_clock.tick()


@overload
def _stored(record: TableRecord, event: Event | None) -> Stored: ...
@overload
def _stored(record: StoredHandEvent, event: Event | None) -> Stored | None: ...
def _stored(record: TableRecord | StoredHandEvent, event: Event | None) -> Stored | None:
    """A stored record and its event as a feed keeps it; None for a hand's seal."""
    if isinstance(record, Sealed):
        return None
    assert event is not None
    at = None if isinstance(record, TableRecord) else record.at
    return Stored(record.originator_version, event, record.command_id, at)


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
