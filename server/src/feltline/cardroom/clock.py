"""The dealer between hands and the action clock: the cardroom's policies
for what happens at a table when nobody asks. The dealer deals the next
hand once one ends and enough players sit (at an idle table once it has
been still for ``settle`` seconds, so players sitting down together all get
into the first hand); the clock acts for a player whose time is up, and
closes a hand's contribution window (``feltline-deck-v2``) once it has
run out. A player whose time is up with time bank left has the bank put on
their clock first (:meth:`feltline.cardroom.room.Room.use_time_bank`).

Both work from what is stored, never from memory alone, so a restarted
server carries on where the last one stopped: deadlines are counted from
stored times. The clock visits only the tables that need it (most tables
wait on someone with time left, or on players): it keeps each table's
deadline in a heap (:mod:`feltline.cardroom.deadlines`) and the tables that
may deal in a set, and works both out again for a table whenever
something is stored there (:meth:`Clock.stale`). Time comes from
``seconds``, whole seconds; nothing in the engine or the store reads one.

The clock visits the tables this process serves
(:meth:`feltline.cardroom.owners.Owners.served`); another process's tables
are its own to deal and to clock. Each tick first catches up with what
other processes stored (:meth:`feltline.cardroom.owners.Owners.catch_up`).
After each change at a table, the clock's or a request's
(:meth:`Clock.changed`), whoever watches is told of every stream the change
concerns (:meth:`Clock.on_changed`): the table, and at a match's table the
match and all its tables, since a deal's end there may reveal it at each.
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
from feltline.cardroom.work import Committed
from feltline.domain.table import TableStream
from feltline.engine.errors import RuleError
from feltline.engine.hand.script import Phase
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.state import Table
from feltline.engine.tournament import Start
from feltline.store.faults import AccountUnreadable, StoreAway, StoreFull, Unreadable
from feltline.store.streams import Conflict

Seconds = Callable[[], int]
log = structlog.get_logger("feltline.cardroom")


def wall_clock() -> int:
    return int(time.time())


class Logged(Protocol):
    """Where a deal or a time-out is logged, one line each."""

    def __call__(
        self, name: str, /, *, table_id: str, hand_number: int = 0, **fields: Any
    ) -> None: ...


class Clock:
    """The dealer and the action clock over ``room``, on ``seconds``' time."""

    def __init__(
        self, room: Room, seconds: Seconds = wall_clock, *, logged: Logged, settle: float = 1.0
    ) -> None:
        self.room = room
        self.seconds = seconds
        self.settle = settle
        self._tables = room.served
        self._logged = logged
        self._listeners: list[Callable[[UUID], None]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._touched: dict[UUID, float] = {}
        # Which tables need the clock: those stored at since it last looked,
        # each table's deadline, the tables between hands that may deal,
        # and the store's epoch it is current at.
        self._ticking = threading.Lock()  # one tick at a time
        self._dirtying = threading.Lock()
        self._dirty: set[UUID] = set()
        self._deadlines = Deadlines()
        self._dealing: set[UUID] = set()
        # Each table whose hand waits on its seats' contributions: which
        # window (the hand and its phase) and when, on the monotonic clock,
        # it closes. Counted from the tick that first sees it open, in
        # milliseconds, as the action clock's whole seconds cannot.
        self._windows: dict[UUID, tuple[tuple[int, str], float]] = {}
        self._clocked = -1  # none yet: the first tick works out every table
        # Scheduled tournaments not started yet, with their start times, and
        # how far the store's tournaments have been read.
        self._scheduled: dict[UUID, int] = {}
        self._tournaments_read: tuple[int, ...] = ()
        room.listen(self._committed)
        room.owners.on_taken(self.stale)

    def on_changed(self, listener: Callable[[UUID], None]) -> None:
        """Have ``listener`` told of each stream a change at a table
        concerns, right after it (the table's lock held)."""
        self._listeners.append(listener)

    def opened(self, table_id: UUID) -> None:
        """A table was just opened through this process: put it on the clock."""
        self.stale((table_id,))

    def changed(self, table_id: UUID, *, deal: bool = True) -> None:
        """After a change at the table (its lock held): deal if a hand just
        ended and the next can start, and tell the listeners. Seating changes
        pass ``deal=False``: the clock deals at an idle table once it has
        been still for a while, so players sitting down together all get
        into the first hand."""
        self.touched(table_id)
        try:
            if deal:
                self.deal_if_ready(table_id)
        finally:
            self._announce(table_id)

    def _announce(self, table_id: UUID) -> None:
        """Tell the listeners of the table, and at a match's table of the
        match and every table of the match: a deal's end there may reveal it
        at all of them."""
        concerned = [table_id]
        place = self.room.match_of(table_id)
        if place is not None:
            tables = self.room.match(place[0]).match.tables
            concerned += [place[0], *(t for t in tables if t != table_id)]
        for key in concerned:
            for listener in self._listeners:
                listener(key)

    def _committed(self, c: Committed) -> None:
        """Look at the table again at the next tick: something was stored there."""
        self.stale((c.table_id,))

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
        if self.room.tournament_of(table_id) is not None:
            return self._deal_tournament(table_id)
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

    def _deal_tournament(self, table_id: UUID) -> bool:
        """Deal a tournament's table its next hand, if its director lets it now."""
        try:
            number = self.room.deal_tournament(table_id, at=self.seconds()).number
        except (RuleError, StoreFull, Conflict):  # a break, hand for hand, players to come
            return False
        if number:
            self._logged("deal_tournament", table_id=str(table_id), hand_number=number)
        return bool(number)

    def _start_tournaments(self, now: int) -> None:
        """Start every scheduled tournament whose time has come (its
        director's: the seats drawn and the tables opened, or cancelled with
        refunds when too few registered), if this process holds its
        director's lease (:meth:`feltline.cardroom.owners.Owners.tournament`):
        its owner starts it."""
        found, self._tournaments_read = self.room.streams.tournaments(self._tournaments_read)
        for key in found:
            created = self.room.tournament(key).tournament.created
            if created is not None and created.start is Start.SCHEDULED:
                self._scheduled[key] = created.starts_at
        for key, starts in list(self._scheduled.items()):
            if starts > now or self.room.owners.owner.epoch(key) is None:
                continue
            try:
                state = self.room.tournament(key).tournament
                if state.started_at is None and not state.over:
                    self.room.start_tournament(key, at=now)
                    self._logged("tournament_started", table_id="", tournament_id=str(key))
            except (RuleError, Conflict, StoreFull, OwnedElsewhere) as e:
                log.warning("tournament_not_started", tournament_id=str(key), error=str(e))
                continue
            del self._scheduled[key]

    def tick(self) -> int:
        """Catch up with what other processes stored; act for every player
        whose time is up (or put their time bank on their clock); deal where
        a hand can start. The number of time-outs made.

        Only the tables that need it are visited: those whose deadline has
        come (the hand's last stored time plus the action clock, and the
        time bank when it is on) and those
        between hands with players enough to deal. Both are worked out again
        for a table from what is stored once something is stored there: by
        this process (:meth:`stale`), or by another (once the store's epoch
        moves, every table another may store at: none it holds the lease of,
        :data:`feltline.cardroom.held.AsOf`); once it is taken over; and for
        every table at start."""
        self.room.owners.catch_up()
        with self._ticking:
            epoch = self.room.others_wrote()
            if epoch != self._clocked:
                start, self._clocked = self._clocked < 0, epoch
                self.stale(t for t in self._tables() if start or not self.room.as_of(t)[0])
            self._reschedule()
            now = self.seconds()
            self._start_tournaments(now)
            due = self._deadlines.pop_due(now)
            closing = time.monotonic()
            due += [t for t, (_, ends) in self._windows.items() if ends <= closing]
            visit = list(dict.fromkeys([*due, *self._dealing]))
            made = 0
            try:
                for table_id in visit:
                    if self._stop.is_set():
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
        window: tuple[int, str] | None = None
        if table.config is not None:
            if table.dealt is not None:
                hand = self.room.hand(table_id, table.hands)
                if waiting_on(hand.hand):
                    due = hand.since + table.clock_at(hand.version)
                if hand.hand.phase in _CONTRIBUTING:
                    window = (table.hands, hand.hand.phase.value)
            else:
                dealing = self._may_deal(stream)
        if window is None:
            self._windows.pop(table_id, None)
        elif self._windows.get(table_id, (None, 0.0))[0] != window:
            assert table.config is not None
            ends = time.monotonic() + table.config.contribution_window_ms / 1000
            self._windows[table_id] = (window, ends)
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
            # Seated by a match or a tournament's director: no settling.
            seated = (
                self.room.match_of(table_id) is not None
                or self.room.tournament_of(table_id) is not None
            )
            if (seated or still >= self.settle) and self.deal_if_ready(table_id):
                self.touched(table_id)
                self._announce(table_id)
            return 0
        stream = self.room.hand(table_id, table.hands)
        if stream.hand.phase in _CONTRIBUTING:
            return self._close_window(table_id, table.hands, now)
        if now < stream.since + table.clock_at(stream.version):
            return 0
        waiting = waiting_on(stream.hand)
        if not waiting:
            return 0
        seat = waiting[0]
        placed = table.seat(seat)
        banked = table.banked is not None and table.banked[0] == stream.version
        if placed is not None and placed.bank > 0 and not banked:
            self.room.use_time_bank(table_id, table.hands, seat, at=now)
            self._logged("time_bank", table_id=str(table_id), hand_number=table.hands, seat=seat)
            self._announce(table_id)
            return 0
        self.room.time_out(table_id, table.hands, f"clock-{stream.version}-{seat}", seat, at=now)
        self._logged("time_out", table_id=str(table_id), hand_number=table.hands, seat=seat)
        self.touched(table_id)
        try:
            self.deal_if_ready(table_id)
        finally:
            self._announce(table_id)
        return 1

    def _close_window(self, table_id: UUID, number: int, now: int) -> int:
        """Close the hand's contribution window if it has run out: the hand
        goes on without the seats that did not keep up (or, every seat's
        commitment being required, is cancelled, and the next is dealt)."""
        window = self._windows.get(table_id)
        if window is None or window[1] > time.monotonic():
            return 0
        del self._windows[table_id]
        self.room.close_contributions(table_id, number, at=now)
        self._logged("contributions_closed", table_id=str(table_id), hand_number=number)
        self.touched(table_id)
        try:
            self.deal_if_ready(table_id)
        finally:
            self._announce(table_id)
        return 1

    # ---- the clock's thread

    def start(self, every: float) -> None:
        """Tick every ``every`` seconds in a thread, from now."""
        self._thread = threading.Thread(
            target=self._run, args=(every,), name="feltline-clock", daemon=True
        )
        self._thread.start()

    def _run(self, every: float) -> None:
        while not self._stop.wait(self.pause(every)):
            try:
                self.tick()
            except StoreAway:  # logged once by the store (store_away): the next tick tries again
                pass
            except Exception:
                log.exception("clock_failed")

    def pause(self, every: float) -> float:
        """How long to wait for the next tick: ``every`` seconds, or less
        when a contribution window closes sooner, so that it closes on time
        (it opens at the first tick that sees it)."""
        if not self._windows:
            return every
        soonest = min(ends for _, ends in self._windows.values())
        return min(every, max(0.0, soonest - time.monotonic()))

    def stop(self) -> None:
        """Stop ticking, and stop a tick under way at its next table."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)


_CONTRIBUTING = (Phase.COMMITTING, Phase.REVEALING)


def _players(table: Table) -> int:
    """The seats with chips that would be dealt in."""
    return sum(1 for s in table.seats if s.stack > 0 and not (s.leaving or s.sitting_out))
