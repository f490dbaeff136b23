"""The rail: everyone watching this process's tables, matches and
tournaments. It wakes a table's watchers after every change there (told by
the table clock, :meth:`feltline.cardroom.clock.Clock.on_changed`, or by a
servicer), times out their waits, and keeps the feeds they read.

Everything a watcher needs is read back from the store (the table's and
the hand's stored records, :meth:`Room.table_events`), never kept only in
memory, so a restarted server carries on where the last one stopped:
cursors resume. A table's watchers share one feed of its records
(:mod:`feltline.api.feed`), which this process's commits keep current;
once the Room has caught up with another process's writes
(:meth:`feltline.cardroom.owners.Owners.catch_up`), every watcher is woken
to read them. A tournament's watchers share its :class:`~feltline.api.board.Board`,
and are woken by every transaction that records in the tournament
(:meth:`Room.listen_tournaments`) and by every write of another process:
hands end at its tables wherever they are owned.
"""

from __future__ import annotations

import asyncio
import math
import threading
from typing import overload
from uuid import UUID

from feltline.api.board import Board, Posted
from feltline.api.feed import Feed, Stored
from feltline.cardroom.room import Room
from feltline.cardroom.work import Committed
from feltline.domain.hand import Sealed, StoredHandEvent
from feltline.domain.table import TableRecord
from feltline.engine.hand.events import Event

# Seconds a watch waits unwoken. Every change wakes its watchers (this
# process's as it commits, another's once caught up with), so this only bounds
# how long a lost wake-up could hold a watch; at 10,000 idle watches every
# expiry is a step of each, so it is long.
POLL = 30.0
Waiter = asyncio.Future[None]


class Rail:
    """The watchers of ``room``'s tables: their wake-ups, timers and feeds."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self._guard = threading.Lock()
        # The change counts, and the watchers waiting for each table's next.
        self._counting = threading.Lock()
        self._counts: dict[UUID, int] = {}
        self._waiting: dict[UUID, set[asyncio.Future[None]]] = {}
        # Waits by the timer that ends them: (loop, grain, slot), see _time_out.
        self._timers: dict[tuple[asyncio.AbstractEventLoop, float, int], list[Waiter]] = {}
        self._feeds: dict[UUID, Feed] = {}
        self._boards: dict[UUID, Board] = {}
        self.stopping = threading.Event()
        room.listen(self._committed)
        room.listen_tournaments(self.notify)
        room.owners.on_written(self._wake_elsewhere)  # other processes' writes

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

    def _wake_elsewhere(self) -> None:
        """Another process stored something: wake the watchers of every
        table it may have stored at, to read it (nobody else stores at a
        table this process holds the lease of: its feed is current), and
        of every tournament (whose tables may be owned anywhere)."""
        with self._counting:
            elsewhere = [t for t in self._waiting if t in self._boards or not self.room.as_of(t)[0]]
            waiting = {f for t in elsewhere for f in self._waiting.pop(t)}
        _wake(waiting)

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
                    table_id, self._read_table, self._read_hand, lambda: self.room.as_of(table_id)
                )
            return feed

    def board(self, key: UUID) -> Board:
        """Tournament ``key``'s board: current as of the last change counted
        here and the last write seen from another process."""
        with self._guard:
            board = self._boards.get(key)
            if board is None:
                board = self._boards[key] = Board(
                    key,
                    self._read_tournament,
                    lambda: (self.version(key), self.room.others_wrote()),
                )
            return board

    def table_records(self, table_id: UUID, after: int = 0) -> list[Stored]:
        """The table's events after position ``after``."""
        return self.feed(table_id).after(after)

    def hand_records(self, table_id: UUID, number: int, after: int = 0) -> list[Stored | None]:
        """The hand's events after position ``after``; None stands for its seal."""
        return self.feed(table_id).hand(number, after)

    def _committed(self, c: Committed) -> None:
        """Hand what was just stored at the table to its feed, if it has one."""
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

    def _read_tournament(self, key: UUID, after: int) -> list[Posted]:
        return [Posted(r.originator_version, e) for r, e in self.room.tournament_events(key, after)]


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
