"""The copies of tables, hands and accounts a room serves from, each table's
current as of the room's last look at the store, and the table's lock.

A room decides against these copies and lets the store's expected versions
check them (:mod:`feltline.cardroom.room`). Once the room has seen another
writer on its store (:mod:`feltline.store.elsewhere`), a table it holds
from an earlier look is brought up to date, with its current hand, before
it is used; every record read so must verify as the whole stream would.
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
from feltline.engine.state import Phase
from feltline.store.streams import Streams


class Held:
    """What one room holds of ``streams``."""

    def __init__(self, streams: Streams) -> None:
        self.streams = streams
        self._tables: dict[UUID, TableStream] = {}
        self._hands: dict[UUID, HandStream] = {}  # each table's hand in progress
        self._accounts: dict[UUID, Account] = {}
        self._epochs: dict[UUID, int] = {}  # the store's epoch each held table is current at
        self._locks: dict[UUID, threading.RLock] = {}
        self._guard = threading.Lock()
        self._matches: dict[UUID, tuple[UUID, int]] = {}  # a match's tables: the match and place

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

    def table(self, table_id: UUID) -> TableStream:
        """The table as of the last look: the copy held, brought up to date
        (with its current hand) if anyone else wrote since it was last
        current. Its lock held."""
        epoch = self.streams.elsewhere.epoch
        held = self._tables.get(table_id)
        if held is None:
            held = self.streams.table(table_id)
            if not held.version:
                return held
        elif self._epochs.get(table_id) != epoch:
            held = self._catch_up(held)
        self._tables[table_id] = held
        self._epochs[table_id] = epoch
        return held

    def behind(self, table_id: UUID) -> bool:
        """Look at the store: whether anyone else wrote, or may have written
        (a look left unsettled by a commit of ours in flight), since the copy
        of the table was last current; if so it catches up at its next use."""
        self.look()
        if table_id not in self._tables:
            return False
        elsewhere = self.streams.elsewhere
        if self._epochs.get(table_id) == elsewhere.epoch and not elsewhere.unsettled:
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
        self._epochs.pop(table_id, None)

    def forget(self, table_id: UUID, accounts: Mapping[UUID, Account]) -> None:
        self._tables.pop(table_id, None)
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
