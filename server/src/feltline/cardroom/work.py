"""One request's unit of work: the changes it decides at a table, its hand
and the accounts its chips move to and from, applied to copies as they are
decided and committed together, or not at all."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from uuid import UUID

from feltline.cardroom.held import Held
from feltline.domain.account import Account, AccountEvent
from feltline.domain.hand import HandStream, Recorded, StoredHandEvent
from feltline.domain.ids import account_id
from feltline.domain.table import TableRecord, TableStream
from feltline.domain.tournament import TournamentStream
from feltline.engine.hand.commands import Command
from feltline.engine.hand.events import Event
from feltline.engine.table.commands import TableCommand
from feltline.engine.table.events import ChipsAdded, SatDown, StoodUp, TableEvent
from feltline.engine.table.state import Table
from feltline.store.streams import Stored


@dataclass(frozen=True)
class Outcome:
    """What a request did: the table's events, the hand's, and the number of
    the hand it touched (0 for none). A repeated request gets the same, with
    ``repeated`` set (they compare equal). ``table_at`` and ``hand_at`` are the streams' versions
    the new events follow, as committed (after any retry)."""

    table: tuple[TableEvent, ...] = ()
    hand: tuple[Event, ...] = ()
    number: int = 0
    repeated: bool = field(default=False, compare=False)
    table_at: int = field(default=0, compare=False)
    hand_at: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Committed:
    """What one transaction stored at a table, in order: each table and hand
    record with the engine event it holds (none for a hand's seal), so that
    whoever serves the table need not read back what was just written.
    ``hand`` is the number of the hand the hand records belong to."""

    table_id: UUID
    hand: int
    records: tuple[tuple[TableRecord | StoredHandEvent, Event | None], ...]


class Work:
    """One request's changes to the streams it touches, applied as they are
    decided, to be committed together.

    A move at a tournament's other table starts from the room's copy of it
    when that table's lock is free: taken without waiting (``lent`` gives
    it back when the request is done), so that no request at that table
    changes the copy meanwhile, and the committed table is held after
    (:meth:`put_back`), so neither this move nor the next request there reads
    the whole table from the store. When a request at that table holds its
    lock, the table is read as stored instead: never waiting for a second
    lock, two tables' requests that move players into each other cannot
    deadlock. Either way the store's expected versions check the copy."""

    def __init__(self, held: Held, stream: TableStream, lent: ExitStack) -> None:
        self.held = held
        self.lent = lent
        self.table = stream
        self.table_at = stream.version
        self.hand: HandStream | None = None
        self.hand_at: int | None = None
        self.accounts: dict[UUID, Account] = {}
        self.records: list[Stored] = []
        self.made: list[tuple[TableRecord | StoredHandEvent, Event | None]] = []
        self.bank: UUID | None = None  # a match's or tournament's: where its seats' chips come from
        # A tournament's other tables that the request moves players to or from.
        self.others: dict[UUID, TableStream] = {}
        self.borrowed: set[UUID] = set()  # those of them whose lock the request took
        self._read: dict[UUID, TableStream] = {}  # other tables read, as first read
        self.tournament: TournamentStream | None = None  # as this request has changed it

    @property
    def hand_events(self) -> tuple[Event, ...]:
        """The hand events decided so far, in order."""
        return tuple(e for r, e in self.made if isinstance(r, Recorded) and e is not None)

    def outcome(self, table: tuple[TableEvent, ...], number: int = 0) -> Outcome:
        """What the request did, with the versions its new events follow."""
        return Outcome(
            table, self.hand_events, number, table_at=self.table_at, hand_at=self.hand_at or 0
        )

    def at_table(
        self,
        key: str,
        command: TableCommand,
        request: str,
        hand: int = 0,
        *,
        table: UUID | None = None,
    ) -> tuple[TableEvent, ...]:
        """Decide ``command`` at the request's table, or at ``table``, another
        of its tournament's (:meth:`stream`), committed with the rest."""
        stream = self.stream(self.table.id if table is None else table)
        before = stream.table
        records, stream = stream.execute(key, command, request=request, hand=hand)
        if stream.id == self.table.id:
            self.table = stream
        else:
            self.others[stream.id] = stream
        self.records += records
        events = stream.commands[key].events[-len(records) :] if records else ()
        self.made += zip(records, events, strict=True)
        for event in events:
            self._settle(stream.id, f"{stream.id}/{key}", request, event, before)
        return events

    def stream(self, table: UUID) -> TableStream:
        """The request's table, or another of its tournament's, as the
        request has it so far: each read once (:meth:`other`), then as the
        request changed it."""
        if table == self.table.id:
            return self.table
        found = self.others.get(table) or self._read.get(table)
        if found is None:
            found = self._read[table] = self.other(table)
        return found

    def other(self, table: UUID) -> TableStream:
        """Another table of the request's tournament: the room's copy, brought
        up to date, if its lock is free (then held until the request is
        done), else as stored."""
        lock = self.held.lock(table)
        if lock.acquire(blocking=False):
            self.lent.callback(lock.release)
            self.borrowed.add(table)
            return self.held.table(table)
        return self.held.streams.table(table)

    def put_back(self, committed: bool | None) -> None:
        """The room's copies of the other tables once the commit is done
        (``committed``), refused (False: they catch up at their next use),
        or ended in doubt (None: they are forgotten). A committed table
        whose lock the request holds is held as committed: the store's
        expected versions found it current. Another may be held by the
        request at it, as that request had it: it catches up at its next
        use."""
        for table, stream in self.others.items():
            if committed and table in self.borrowed:
                self.held.keep(stream, None, {})
            elif committed is None:
                self.held.forget(table, {})
            else:
                self.held.outdated(table)

    def move(self, key: str, request: str, amount: int, *, source: UUID, to: UUID) -> None:
        """Move account chips from account ``source`` to account ``to``: an
        entry fee, a prize, a refund."""
        if amount == 0:
            return
        for account in (source, to):
            if account not in self.accounts:
                self.accounts[account] = self.held.account(account)
        sent = self.accounts[source].transfer(key, request, amount, to=to, player=str(source))
        self.accounts[source] = self.accounts[source].apply(sent)
        got = self.accounts[to].receive(key, request, amount, source=source)
        self.accounts[to] = self.accounts[to].apply(got)
        self.records += [sent, got]

    def mint(self, key: str, request: str, amount: int, *, by: str) -> None:
        """Make ``amount`` chips in :attr:`bank`: a tournament's own chips."""
        assert self.bank is not None
        if self.bank not in self.accounts:
            self.accounts[self.bank] = self.held.account(self.bank)
        minted = self.accounts[self.bank].mint(key, request, amount, by)
        self.accounts[self.bank] = self.accounts[self.bank].apply(minted)
        self.records.append(minted)

    def at_hand(self, key: str, command: Command, request: str, at: int) -> None:
        assert self.hand is not None
        if self.hand_at is None:
            self.hand_at = self.hand.version
        records, self.hand = self.hand.execute(
            key, command, self.held.streams.signer, at=at, request=request
        )
        self.records += records
        made = sum(1 for r in records if isinstance(r, Recorded))
        events = iter(self.hand.commands[key][1][-made:] if made else ())
        self.made += [(r, next(events) if isinstance(r, Recorded) else None) for r in records]

    def account(self, player: str) -> Account:
        """The account a seat's chips move to and from: the player's, or at
        a match's table the match's bank."""
        key = self.bank or account_id(player)
        if key not in self.accounts:
            self.accounts[key] = self.held.account(key)
        return self.accounts[key]

    def _settle(
        self, table: UUID, key: str, request: str, event: TableEvent, before: Table
    ) -> None:
        """Move the chips a table event brings on or takes off the table."""
        moved: AccountEvent
        match event:
            case SatDown(seat=seat, player=player, buy_in=amount):
                moved = self.account(player).buy_in(
                    key, request, amount, player=player, table=table, seat=seat
                )
            case ChipsAdded(seat=seat, amount=amount):
                occupant = before.seat(seat)
                assert occupant is not None
                player = occupant.player
                moved = self.account(player).buy_in(
                    key, request, amount, player=player, table=table, seat=seat
                )
            case StoodUp(seat=seat, player=player, stack=amount) if amount > 0:
                moved = self.account(player).returned(key, request, amount, table=table, seat=seat)
            case _:
                return
        self.accounts[moved.originator_id] = self.accounts[moved.originator_id].apply(moved)
        self.records.append(moved)
