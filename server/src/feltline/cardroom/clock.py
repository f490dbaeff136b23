"""The dealer between hands and the action clock: the cardroom's policies
for what happens at a table when nobody asks. The dealer deals the next
hand once one ends and enough players sit (at an idle table once it has
been still for ``settle`` seconds, so players sitting down together all get
into the first hand); the clock acts for a player whose time is up.

Both work from what is stored, never from memory alone, so a restarted
server carries on where the last one stopped: deadlines are counted from
stored times. The clock visits only the tables that need it (most tables
wait on someone with time left, or on players): it keeps each table's
deadline in a heap (:mod:`feltline.cardroom.deadlines`) and the tables that
may deal in a set, and works both out again for a table whenever
something is stored there (:meth:`Clock.stale`). Time comes from
``seconds``, whole seconds; nothing in the engine or the store reads one.

Whoever serves the table is told through ``changed`` after each change
the clock or the dealer makes there, under the table's lock; the clock
visits the tables ``tables`` lists.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol
from uuid import UUID

import structlog

from feltline.cardroom.deadlines import Deadlines
from feltline.cardroom.errors import OwnedElsewhere
from feltline.cardroom.room import Room
from feltline.domain.table import TableStream
from feltline.engine.errors import RuleError
from feltline.engine.table import Table
from feltline.engine.turn import waiting_on
from feltline.store.faults import AccountUnreadable, StoreFull, Unreadable
from feltline.store.streams import Conflict

Seconds = Callable[[], int]
log = structlog.get_logger("feltline.cardroom")


class Logged(Protocol):
    """Where a deal or a time-out is logged, one line each."""

    def __call__(
        self, name: str, /, *, table_id: str, hand_number: int = 0, **fields: Any
    ) -> None: ...


class Clock:
    """The dealer and the action clock over ``room``."""

    def __init__(
        self,
        room: Room,
        seconds: Seconds,
        *,
        tables: Callable[[], list[UUID]],
        changed: Callable[[UUID], None],
        logged: Logged,
        stopping: threading.Event,
        settle: float = 1.0,
    ) -> None:
        self.room = room
        self.seconds = seconds
        self.settle = settle
        self._tables = tables
        self._changed = changed
        self._logged = logged
        self._stopping = stopping
        self._touched: dict[UUID, float] = {}
        # Which tables need the clock: those stored at since it last looked,
        # each table's deadline, the tables between hands that may deal,
        # and the store's epoch it is current at.
        self._ticking = threading.Lock()  # one tick at a time
        self._dirtying = threading.Lock()
        self._dirty: set[UUID] = set()
        self._deadlines = Deadlines()
        self._dealing: set[UUID] = set()
        self._clocked = -1  # none yet: the first tick works out every table

    def touched(self, table_id: UUID) -> None:
        """The table just changed: an idle table deals once still for ``settle``."""
        self._touched[table_id] = time.monotonic()

    def deal_if_ready(self, table_id: UUID) -> bool:
        """Deal the table's next hand if one can start now (its lock held)."""
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
            self.room.deal(table_id, f"deal-{number}", at=self.seconds())
        except RuleError:  # e.g. hold'em newcomers waiting for the big blind
            return False
        except StoreFull:  # the clock deals once the store writes again
            return False
        self._logged("deal", table_id=str(table_id), hand_number=number)
        return True

    def _deal_match(self, table_id: UUID, match: UUID, number: int) -> bool:
        """Deal a match's table its next deal, if the match lets it now."""
        try:
            self.room.deal_match(match, number, at=self.seconds())
        except (RuleError, StoreFull):  # seats to fill, or waiting for the slowest table
            return False
        self._logged("deal_match", table_id=str(table_id), match_id=str(match), table=number)
        return True

    def tick(self) -> int:
        """Act for every player whose time is up; deal where a hand can
        start. The number of time-outs made.

        Only the tables that need it are visited: those whose deadline has
        come (the hand's last stored time plus the action clock) and those
        between hands with players enough to deal. Both are worked out again
        for a table from what is stored once something is stored there: by
        this process (:meth:`stale`), or by another (once the store's epoch
        moves, every table another may store at: none it holds the lease of,
        :data:`feltline.cardroom.held.AsOf`); once it is taken over; and for
        every table at start."""
        with self._ticking:
            epoch = self.room.streams.elsewhere.epoch
            if epoch != self._clocked:
                start, self._clocked = self._clocked < 0, epoch
                self.stale(t for t in self._tables() if start or not self.room.as_of(t)[0])
            self._reschedule()
            now = self.seconds()
            due = self._deadlines.pop_due(now)
            visit = list(dict.fromkeys([*due, *self._dealing]))
            made = 0
            try:
                for table_id in visit:
                    if self._stopping.is_set():
                        break
                    with self.room.lock(table_id):
                        try:
                            made += self._tick(table_id, now)
                        except (RuleError, Conflict) as e:
                            log.warning("clock_refused", table_id=str(table_id), error=str(e))
                        # Logged once, or taken over just now: look again at the next tick.
                        except (Unreadable, AccountUnreadable, StoreFull, OwnedElsewhere):
                            pass
            finally:
                self.stale(due)  # acted for or not: where each stands now, at the next tick
            return made

    def stale(self, tables: Iterable[UUID]) -> None:
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
        known = set(self._tables())  # the clock keeps to the tables it is given
        left = [t for t in dirty if t in known]
        again: list[UUID] = []
        try:
            while left:
                table_id = left[-1]
                with self.room.lock(table_id):
                    try:
                        self._schedule(table_id)
                    except (RuleError, Conflict) as e:
                        log.warning("clock_refused", table_id=str(table_id), error=str(e))
                        again.append(table_id)
                    except (Unreadable, AccountUnreadable, StoreFull, OwnedElsewhere):
                        again.append(table_id)
                left.pop()
        finally:
            self.stale([*left, *again])

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
                self.touched(table_id)
                self._changed(table_id)
            return 0
        stream = self.room.hand(table_id, table.hands)
        if now < stream.since + table.config.action_clock:
            return 0
        waiting = waiting_on(stream.hand)
        if not waiting:
            return 0
        seat = waiting[0]
        self.room.time_out(table_id, table.hands, f"clock-{stream.version}-{seat}", seat, at=now)
        self._logged("time_out", table_id=str(table_id), hand_number=table.hands, seat=seat)
        self.touched(table_id)
        try:
            self.deal_if_ready(table_id)
        finally:
            self._changed(table_id)
        return 1


def _players(table: Table) -> int:
    """The seats with chips that would be dealt in."""
    return sum(1 for s in table.seats if s.stack > 0 and not (s.leaving or s.sitting_out))
