"""Which tables this process serves, among every table in the store.

Several processes may serve one store; each table is written by one of
them at a time, the holder of its lease (:mod:`feltline.store.leases`). A
request at a table this process does not own raises
:class:`OwnedElsewhere`, naming where the owner serves, for the API to pass
it on; a table nobody owns (a new one, one whose owner died or stopped) is
taken by the first process that needs it. The dealer and the action clock
visit only the tables :meth:`Owners.served` lists.

:meth:`Owners.keep`, every third of a lease, renews this process's leases,
drops the ones another process took over, and takes its fair share of the
tables nobody holds: so a dead process's tables are played on elsewhere
once its leases expire. A table taken over is read again from the store
before it is used (whatever its last owner stored is there), and its
deadlines are worked out anew from the stored times, so a hand in progress
goes on where it stopped.

A tournament's tables are leased with the tournament, as one (the
owner's ``join``): its director moves players between its tables and
pays its prizes in one transaction with the hand that caused it, so one
process holds every table it touches, and that process's death or pause
hands the whole tournament over. :meth:`Owners.tournament` joins them,
once a tournament is known here (before any of its tables is taken).

Catching up after another writer is here too. :meth:`Owners.look` asks
the store whether anyone else wrote since the last look (one query,
:mod:`feltline.store.elsewhere`), so that the tables read after it are as
stored now; the Room's reads ask for it. :meth:`Owners.catch_up`, at each
tick of the clock and as soon as another process's append is heard, also
tells its listeners (the watchers) when another process stored something.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable
from uuid import UUID

import structlog

from feltline import metrics
from feltline.cardroom.errors import OwnedElsewhere
from feltline.cardroom.held import Held
from feltline.domain.ids import tournament_table_id
from feltline.store.notices import Notices
from feltline.store.streams import Streams

log = structlog.get_logger("feltline.cardroom")


class Owners:
    """The tables of ``streams`` this process owns, and every table it knows."""

    def __init__(self, streams: Streams, held: Held) -> None:
        self.streams = streams
        self.owner = streams.owner
        self.held = held
        self._taken: list[Callable[[Iterable[UUID]], None]] = []
        self._written: list[Callable[[], object]] = []
        self._told = 0  # the count of other processes' writes the listeners were told of
        self._notices: Notices | None = None
        self._guard = threading.Lock()
        self._known: dict[UUID, None] | None = None  # every table, in the order opened
        self._scanning = threading.Lock()
        self._scanned_from: tuple[int, ...] = ()  # where the next reading of the log starts
        self._scanned_at = -1  # the store's epoch at the last reading
        self._tournaments: dict[UUID, None] = {}  # every tournament, its tables joined
        self._tournaments_from: tuple[int, ...] = ()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def on_taken(self, listener: Callable[[Iterable[UUID]], None]) -> None:
        """Have ``listener`` told of the tables this process takes over."""
        self._taken.append(listener)

    def on_written(self, listener: Callable[[], object]) -> None:
        """Have ``listener`` called once this process has caught up with what
        other processes stored (:meth:`catch_up`): at the clock's next tick,
        or on PostgreSQL, once started, as soon as they store it
        (:mod:`feltline.store.notices`)."""
        self._written.append(listener)

    # ---- catching up after another writer

    def look(self) -> None:
        """Ask the store whether anyone else wrote since the last look (one
        query), so that the tables read after it are as stored now."""
        self.held.look()

    def catch_up(self) -> None:
        """:meth:`look`, and tell the listeners if another process stored
        something since they were last told."""
        self.look()
        with self._guard:
            epoch = self.streams.elsewhere.epoch
            if epoch == self._told:
                return
            self._told = epoch
        for listener in self._written:
            listener()

    # ---- the tables

    def every(self) -> list[UUID]:
        """Every table in the store, in the order opened: those it held when
        first asked, those opened here since, and those opened through
        other processes, found in what the log gained once another process
        was seen to store something."""
        with self._scanning:  # the log is read outside the guard
            epoch = self.streams.elsewhere.epoch
            if self._known is None or epoch != self._scanned_at:
                found, self._scanned_from = self.streams.tables(self._scanned_from)
                # After the tables: the tournament of any table found is found too.
                begun, self._tournaments_from = self.streams.tournaments(self._tournaments_from)
                for key in begun:
                    self.tournament(key, self.streams.tournament(key).tournament.setup.entrants)
                self._scanned_at = epoch
                with self._guard:
                    self._known = {**(self._known or {}), **dict.fromkeys(found)}
            with self._guard:
                return list(self._known)

    def tournament(self, key: UUID, entrants: int) -> None:
        """Lease the tournament's tables with it: every number its director
        may give one (a table holds at least one of the ``entrants``, and a
        new table takes the next number)."""
        if key in self._tournaments:
            return
        self.owner.join((tournament_table_id(key, n) for n in range(1, entrants + 1)), key)
        with self._guard:
            self._tournaments[key] = None

    def served(self) -> list[UUID]:
        """The tables this process owns, in the order opened."""
        return [t for t in self.every() if self.owner.epoch(t) is not None]

    def opened(self, table_id: UUID) -> None:
        """A table was just opened here."""
        self.every()
        with self._guard:
            assert self._known is not None
            self._known.setdefault(table_id, None)

    # ---- leases

    def serve(self, table_id: UUID) -> bool:
        """Make sure this process owns the table, taking it if nobody does
        (then True: whatever its last owner stored is to be read); else
        :class:`OwnedElsewhere`."""
        if self.owner.epoch(table_id) is not None:
            return False
        if self.owner.take(table_id) is None:
            raise OwnedElsewhere(table_id, self.owner.address_of(table_id))
        self._took([self.owner.unit(table_id)])
        return True

    def lost(self, table_id: UUID) -> None:
        """The fence refused an append for the table: its lease is gone."""
        self.owner.lost(table_id)
        log.warning("lease_lost", table_id=str(table_id), server=self.owner.server)

    def keep(self) -> None:
        """Renew this process's leases, and take its fair share of the
        leases nobody holds (a tournament, with all its tables, is one)."""
        before = set(self.served())
        held = self.owner.renew()
        metrics.LEASES_HELD.set(len(held))
        for table_id in before - set(self.served()):  # a SQLite store's owner holds no rows
            log.warning("lease_taken_over", table_id=str(table_id), server=self.owner.server)
        with self._guard:
            tournaments = list(self._tournaments)
        units = list(dict.fromkeys(self.owner.unit(t) for t in [*tournaments, *self.every()]))
        share = math.ceil(len(units) / self.owner.share())
        room = share - len(held)
        if room <= 0:
            return
        taken: list[UUID] = []
        for table_id in self.owner.free(units):
            if len(taken) >= room:
                break
            if self.owner.take(table_id) is not None:
                taken.append(table_id)
        if taken:
            metrics.LEASE_TAKEOVERS.inc(len(taken))
            metrics.LEASES_HELD.set(len(held) + len(taken))
            log.info("leases_taken", tables=len(taken), server=self.owner.server)
            self._took(taken)

    def _took(self, units: list[UUID]) -> None:
        """Read the tables of the leases taken again before their next use,
        and tell the listeners."""
        taken = set(units)
        tables = [t for t in self.every() if self.owner.unit(t) in taken]
        with self._guard:  # a table not listed yet (just opened) is its own lease
            tables += [u for u in units if u not in self._tournaments and u not in tables]
        for table_id in tables:
            self.held.outdated(table_id)
        for listener in self._taken:
            listener(tables)

    # ---- the keeper's thread

    def advertise(self, address: str) -> None:
        """Tell the other processes on the store that this one serves its
        tables at ``address`` (where they send requests for them)."""
        self.owner.address = address

    def start(self) -> None:
        """Keep the leases every third of a lease in a thread, from now, and
        listen for other processes' appends."""
        every = self.owner.seconds / 3
        self.keep()
        self._notices = self.streams.hear(self.catch_up)
        self._thread = threading.Thread(
            target=self._run, args=(every,), name="feltline-leases", daemon=True
        )
        self._thread.start()

    def _run(self, every: float) -> None:
        while not self._stop.wait(every):
            try:
                self.keep()
            except Exception as e:  # the store down: the next round tries again
                log.warning("leases_not_kept", error=str(e), server=self.owner.server)

    def stop(self) -> None:
        """Stop keeping the leases, and give them up so that other processes
        take the tables at once (a drain)."""
        self._stop.set()
        if self._notices is not None:
            self._notices.stop()
        if self._thread is not None:
            self._thread.join(timeout=10)
        try:
            self.owner.release()
        except Exception as e:  # the store down: the leases expire on their own
            log.warning("leases_not_released", error=str(e), server=self.owner.server)
