"""The copies of tables, hands and accounts a room serves from, and the
table's lock.

A room decides against these copies and lets the store's expected versions
check them (:mod:`feltline.cardroom.room`). A table whose lease this
process holds is written by nobody else (the fence refuses any other
writer, :mod:`feltline.store.leases`): its copy stays current for as long
as the lease does, whatever else the store gains. Any other table's copy is
current as of the room's last look at the store: once the room has seen
another writer (:mod:`feltline.store.elsewhere`), it is brought up to date,
with its current hand, before it is used. Every record read so must verify
as the whole stream would.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import cast
from uuid import UUID

from feltline.cardroom.errors import NotFound
from feltline.domain.account import Account
from feltline.domain.hand import HandStream, StoredHandEvent
from feltline.domain.ids import hand_id
from feltline.domain.table import TableRecord, TableStream
from feltline.domain.tournament import TournamentRecord, TournamentStream
from feltline.engine.hand.script import Phase
from feltline.store.streams import Streams

AsOf = tuple[bool, int]
"""What a copy of a table is current as of: ``(True, the lease's epoch)``
while this process holds the table's lease (on PostgreSQL), else ``(False,
the store's epoch)``, the times another writer was seen (on SQLite, another
room of this process: tests run several). A copy taken as of one value
is out of date once the table's value is another."""


class Held:
    """What one room holds of ``streams``."""

    def __init__(self, streams: Streams) -> None:
        self.streams = streams
        self._tables: dict[UUID, TableStream] = {}
        self._hands: dict[UUID, HandStream] = {}  # each table's hand in progress
        self._accounts: dict[UUID, Account] = {}
        self._as_of: dict[UUID, AsOf] = {}  # what each held table is current as of
        self._locks: dict[UUID, threading.RLock] = {}
        self._guard = threading.Lock()
        self._matches: dict[UUID, tuple[UUID, int]] = {}  # a match's tables: the match and place
        # Every table looked at: the tournament it belongs to and its number there, or None.
        self._tournaments: dict[UUID, tuple[UUID, int] | None] = {}
        self._directed: dict[UUID, TournamentStream] = {}  # each tournament's newest copy read

    def lock(self, table_id: UUID) -> threading.RLock:
        """The table's one lock: a request, the dealer and the clock at a
        table take it, so they never interleave there. The guard is taken
        only to add one, so that requests at other tables do not queue on it."""
        lock = self._locks.get(table_id)
        if lock is None:
            with self._guard:
                lock = self._locks.setdefault(table_id, threading.RLock())
        return lock

    def look(self) -> None:
        """Ask the store whether anyone else wrote since the last look (one query)."""
        self.streams.elsewhere.look()

    def as_of(self, table_id: UUID) -> AsOf:
        """What a copy of the table read now would be current as of."""
        owner = self.streams.owner
        lease = owner.epoch(table_id) if owner.exclusive else None
        if lease is not None:
            return True, lease
        return False, self.streams.elsewhere.epoch

    def table(self, table_id: UUID) -> TableStream:
        """The table: the copy held, brought up to date (with its current
        hand) if it may be out of date (:data:`AsOf`). Its lock held."""
        now = self.as_of(table_id)
        held = self._tables.get(table_id)
        if held is None:
            held = self.streams.table(table_id)
            if not held.version:
                return held
        elif self._as_of.get(table_id) != now:
            held = self._catch_up(held)
        self._tables[table_id] = held
        self._as_of[table_id] = now
        return held

    def behind(self, table_id: UUID) -> bool:
        """Whether anyone else wrote, or may have written (a look left
        unsettled by a commit of ours in flight), since the copy of the table
        was last current; if so it catches up at its next use. The store is
        asked only for a table this process does not hold the lease of."""
        if table_id not in self._tables:
            return False
        now = self.as_of(table_id)
        leased = now[0]
        if not leased:
            self.look()
            now = self.as_of(table_id)
        if self._as_of.get(table_id) == now and (leased or not self.streams.elsewhere.unsettled):
            return False
        self.outdated(table_id)
        return True

    def _catch_up(self, held: TableStream) -> TableStream:
        """``held`` and its current hand with whatever was stored after them,
        which must verify as a whole stream would (else :class:`Unreadable`)."""
        hand = self._hands.pop(held.id, None)
        with self.streams.reported.reading(held.id):
            newer = self.streams.after(held.id, held.version)
            stream = held.extend(cast(list[TableRecord], newer))
            if newer:
                self.streams.vouch("table", held.id, stream.signer)
            if hand is None or hand.id != hand_id(held.id, stream.table.hands):
                return stream
            later = self.streams.after(hand.id, hand.version)
            for record in later:
                hand = hand.apply(cast(StoredHandEvent, record))
            if later:
                self.streams.vouch("hand", hand.id, hand.signer)
        if hand.hand.phase is not Phase.ENDED:
            self._hands[held.id] = hand
        return stream

    def tournament(self, key: UUID) -> TournamentStream:
        """The tournament as stored now: the copy held, extended with what
        was stored after it (which must verify as the whole stream would),
        so a request at one of its tables reads the records since the last,
        not the whole tournament, however long it has run."""
        held = self._directed.get(key)
        if held is None:
            stream = self.streams.tournament(key)
        else:
            with self.streams.reported.reading(key):
                newer = self.streams.after(key, held.version)
                if not newer:
                    return held
                stream = held.extend(cast(list[TournamentRecord], newer))
                self.streams.vouch("tournament", key, stream.signer)
        if stream.version:
            with self._guard:  # requests at several tables read it at once: keep the newest
                kept = self._directed.get(key)
                if kept is None or kept.version < stream.version:
                    self._directed[key] = stream
        return stream

    def hand(self, stream: TableStream, number: int) -> HandStream:
        """The table's hand ``number``: the one in progress as held, another
        as stored."""
        if not 1 <= number <= stream.table.hands:
            raise NotFound(
                f"table {stream.id} has dealt hands 1 to {stream.table.hands}, not {number}"
            )
        wanted = hand_id(stream.id, number)
        cached = self._hands.get(stream.id)
        if cached is not None and cached.id == wanted:
            return cached
        with self.streams.reported.reading(stream.id, f"hand {number}: "):
            return self.streams.get(wanted)  # a hand that does not verify: its table neither

    def account(self, key: UUID) -> Account:
        return self._accounts.get(key) or self.streams.account(key)

    def match_of(self, stream: TableStream) -> tuple[UUID, int] | None:
        """The match a table belongs to and its place in it, or None."""
        config = stream.table.config
        if config is None or not config.rules.fixed_seats:
            return None
        known = self._matches.get(stream.id)
        if known is None:
            opened = next((k for k in stream.commands if k.startswith("match-table/")), None)
            if opened is None:  # a duplicate table no match opened: none does
                return None
            _, key, number = opened.split("/")
            known = self._matches[stream.id] = (UUID(key), int(number))
        return known

    def tournament_of(self, stream: TableStream) -> tuple[UUID, int] | None:
        """The tournament a table belongs to and its number there, or None:
        its director opened it under the key ``tournament-table/<id>/<n>``.
        Found so, the table is leased with the tournament from then on."""
        if stream.version == 0:
            return None
        if stream.id not in self._tournaments:
            opened = next((k for k in stream.commands if k.startswith("tournament-table/")), None)
            if opened is None:
                self._tournaments[stream.id] = None
            else:
                _, key, number = opened.split("/")
                self._tournaments[stream.id] = (UUID(key), int(number))
                self.streams.owner.join([stream.id], UUID(key))  # leased with its tournament
        return self._tournaments[stream.id]

    def keep(
        self, stream: TableStream, hand: HandStream | None, accounts: Mapping[UUID, Account]
    ) -> None:
        """Hold what a request committed at a table."""
        self._tables[stream.id] = stream
        if hand is not None:
            if hand.hand.phase is Phase.ENDED:
                self._hands.pop(stream.id, None)
            else:
                self._hands[stream.id] = hand
        self.remember_accounts(accounts)

    def outdated(self, table_id: UUID) -> None:
        """Have the table caught up before its next use."""
        self._as_of.pop(table_id, None)

    def forget(self, table_id: UUID, accounts: Mapping[UUID, Account]) -> None:
        """Read the table whole at its next use; a copy a request at it keeps
        meanwhile, as that request had it, catches up first."""
        self._tables.pop(table_id, None)
        self._as_of.pop(table_id, None)
        self._hands.pop(table_id, None)
        self.forget_accounts(accounts)

    def forget_accounts(self, accounts: Mapping[UUID, Account]) -> None:
        for key in accounts:
            self._accounts.pop(key, None)

    def remember_accounts(self, accounts: Mapping[UUID, Account]) -> None:
        """Keep the newest of each account: requests at other tables may have
        stored a later version meanwhile."""
        if not accounts:
            return
        with self._guard:
            for key, latest in accounts.items():
                known = self._accounts.get(key)
                if known is None or known.version < latest.version:
                    self._accounts[key] = latest
