"""The cardroom: the one service the API calls to run tables, hands and accounts.

:class:`Room` takes a request, decides it with the engine against the
tables, hands and accounts it touches, and commits everything it decided in
one transaction: a buy-in and the account it comes from, a deal and the
hand it starts, a hand's end, the table's new stacks and the chips of
players who leave. Nothing else in it knows the database: the streams are
the domain's and :class:`Cardroom` is the eventsourcing application that
stores them, on SQLite or PostgreSQL as configured.

Every request carries a client command id. The same id with the same
request answers as the first time and stores nothing; with another request
it is refused (:class:`CommandIdReused`). Ids are scoped to the stream the
request addresses: the table for table requests (the cardroom for opening a
table, whose id comes from it), the hand for play, the account for minting
and cashing out. Every request that can start the action clock carries the
time (whole seconds on the caller's clock); nothing here reads a clock.

A Room keeps the tables it serves, their current hands and the accounts it
has seen in memory, and serves one request per table at a time. Once it has
seen another writer on its store, it asks before each request whether
anyone else wrote since its last look (one query,
:mod:`feltline.store.elsewhere`), and if so brings its copy up to date; a
room alone on its store asks only before it refuses a request, so that a
refusal always stands on what the store holds. It decides against that
copy and lets the database check it: every
append expects the stream versions decided on, so if another writer got
there first, it catches up and decides again, and gives up with
:class:`Conflict` after a few tries. A player's decision names the hand
position the player saw (``seen``); it is checked on every try, so one
decided on a state the hand has left is refused (:class:`Stale`), never
applied to the new one.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import (
    IntegrityError,
    MapperDeserialisationError,
    PersistenceError,
    StoredEvent,
)

from feltline.audit.keys import Signer
from feltline.domain.account import Account, AccountEvent, CashOut, Mint
from feltline.domain.account import project as project_account
from feltline.domain.chained import TamperedError, sign
from feltline.domain.hand import HandStream, Recorded, StoredHandEvent
from feltline.domain.hand import project as project_hand
from feltline.domain.ids import (
    account_id,
    bank_id,
    check_command_id,
    fingerprint,
    hand_id,
    match_id,
    match_table_id,
    table_id,
)
from feltline.domain.keys import KeyAdopted
from feltline.domain.match import Match, MatchRecord, MatchStream, SeatError
from feltline.domain.match import project as project_match
from feltline.domain.table import TableRecord, TableStream
from feltline.domain.table import project as project_table
from feltline.engine.cards import Card
from feltline.engine.commands import Act, Cancel, Command, Declare, Draw, StartHand, TimeOut
from feltline.engine.deck import SEED_BYTES
from feltline.engine.errors import ConfigError, Kind, RuleError
from feltline.engine.events import Action, Choice, Event, HandEnded, HandStarted, PassedOut
from feltline.engine.house import TableConfig
from feltline.engine.state import Phase
from feltline.engine.table import (
    AddChips,
    ChipsAdded,
    CloseTable,
    DealHand,
    EndHand,
    HandDealt,
    HandFinished,
    HandInProgressError,
    OpenTable,
    SatDown,
    SitDown,
    SitIn,
    SitOut,
    StandUp,
    StoodUp,
    Table,
    TableCommand,
    TableEvent,
)
from feltline.engine.turn import waiting_on
from feltline.store.commit import GroupCommit
from feltline.store.elsewhere import Elsewhere
from feltline.store.faults import Episode, Reported, StoreFull, disk_full

Stored = StoredHandEvent | TableRecord | AccountEvent | KeyAdopted | MatchRecord
RETRIES = 8
BACKOFF = 0.002  # seconds, times the attempt: spreads out writers that keep colliding


class Conflict(Exception):
    """Another writer stored events in these streams first; run the request
    again to decide it against the new state."""


class NotFound(RuleError):
    """A table or hand the store does not hold."""

    kind = Kind.NOT_FOUND


class ClockRunning(RuleError):
    """A time-out before the player's time is up."""

    kind = Kind.PRECONDITION


class MatchNotFound(NotFound):
    """A match the store does not hold."""


class MatchTable(RuleError):
    """A seating or dealing request at a table whose seats, chips and deals
    belong to a duplicate match: the match seats its players for each deal."""

    kind = Kind.PRECONDITION


@dataclass(frozen=True, slots=True)
class CreateMatch:
    """What makes two match creations the same request."""

    name: str
    config: TableConfig
    tables: int
    deals: int
    stack: int
    ahead: int
    by: str


@dataclass(frozen=True, slots=True)
class JoinMatch:
    table: int
    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class DealMatch:
    match: str
    table: int
    at: int


class Stale(RuleError):
    """A decision made on a state of the hand that is no longer current:
    ``hand`` and ``sequence`` say where the table is now."""

    kind = Kind.PRECONDITION

    def __init__(self, hand: int, sequence: int, seen_hand: int, seen: int) -> None:
        super().__init__(
            f"the table is at hand {hand}, sequence {sequence}, not at hand {seen_hand}, "
            f"sequence {seen}: look again and decide anew"
        )
        self.hand = hand
        self.sequence = sequence


class Cardroom(Application[UUID]):
    """Every table, hand and account in one events table (``cardroom_events``),
    so that one save is one transaction; saves from concurrent requests are
    committed together (:mod:`feltline.store.commit`).

    Every stream it loads is checked link by link and vouched for by its
    last signature (:meth:`vouch`); a hand is written only as part of what
    :class:`Room` decided, the seed drawn there.

    ``elsewhere`` tells whether another process stored events since the
    last look (:mod:`feltline.store.elsewhere`).

    A commit goes straight to the recorder, not through ``Application.save``:
    its generic collection checks every record against runtime protocols,
    which cost more than the rest of a request, and the records are mapped
    to rows by each caller before it queues, so that the one committing
    holds up the others only for the insert itself."""

    def __init__(self, signer: Signer, env: Mapping[str, str] | None = None) -> None:
        super().__init__(env)
        self.signer = signer
        self.trusted = frozenset({signer.public_hex})  # the keys the store was signed with
        self.group_commit: GroupCommit[StoredEvent] = GroupCommit(self._insert)
        self.elsewhere = Elsewhere(self.recorder.max_notification_id)
        self.reported = Reported()
        self.full = Episode()

    def _insert(self, rows: Sequence[StoredEvent]) -> None:
        self.elsewhere.stored(self.recorder.insert_events(rows))

    def vouch(
        self, kind: str, stream_id: UUID, signer: str, *, trusted: frozenset[str] | None = None
    ) -> None:
        """Refuse a stream whose last record is not signed, or is signed by
        a key this server does not trust (the store's keys, or ``trusted``):
        its chain then proves nothing."""
        if not signer:
            raise TamperedError(f"{kind} {stream_id}: its last stored event is not signed")
        if signer not in (self.trusted if trusted is None else trusted):
            raise TamperedError(
                f"{kind} {stream_id} is signed by key {signer}, "
                f"not by this server's key {self.signer.public_hex}"
            )

    def get(self, hand_id: UUID) -> HandStream:
        """The hand's stream, checked link by link and against this server's
        key; a new one if none is stored."""
        try:
            stream: HandStream = self.repository.get(hand_id, projector_func=project_hand)
        except AggregateNotFoundError:
            return HandStream.new(hand_id)
        except MapperDeserialisationError as e:
            raise TamperedError(f"hand {hand_id}: a stored event does not decode: {e}") from e
        self.vouch("hand", hand_id, stream.signer)
        return stream

    def table(self, table_id: UUID) -> TableStream:
        """The stored table, or a new one if none is stored. A table whose
        events do not decode, do not fold or do not verify raises
        :class:`Unreadable` (logged once); a database that does not answer
        raises as it does."""
        with self.reported.reading(table_id):
            try:
                stream: TableStream = self.repository.get(table_id, projector_func=project_table)
            except AggregateNotFoundError:
                return TableStream.new(table_id)
            self.vouch("table", table_id, stream.signer)
        return stream

    def match(self, match_id: UUID) -> MatchStream:
        """The stored match, or a new one if none is stored, checked like a table."""
        with self.reported.reading(match_id):
            try:
                stream: MatchStream = self.repository.get(match_id, projector_func=project_match)
            except AggregateNotFoundError:
                return MatchStream.new(match_id)
            self.vouch("match", match_id, stream.signer)
        return stream

    def account(self, account_id: UUID) -> Account:
        """The stored account, or an empty one."""
        try:
            stored: Account = self.repository.get(account_id, projector_func=project_account)
        except AggregateNotFoundError:
            return Account.new(account_id)
        self.vouch("account", account_id, stored.signer)
        return stored

    def commit(self, records: Sequence[Stored]) -> list[Stored]:
        """Store ``records`` in one transaction, the last of each stream
        signed, and return them as stored; or raise :class:`Conflict` if
        another writer stored events at any of their positions first, or
        :class:`StoreFull` if the disk is full (nothing stored either way)."""
        signed = sign(records, self.signer)
        rows = [self.mapper.to_stored_event(record) for record in signed]
        try:
            self.group_commit(rows)
        except IntegrityError as e:
            raise Conflict("another writer changed these streams first") from e
        except PersistenceError as e:
            if not disk_full(e):
                raise
            self.full.began(e)
            raise StoreFull("the store cannot write: its disk is full") from e
        self.full.ended()
        return signed


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


class _Work:
    """One request's changes to the streams it touches, applied as they are
    decided, to be committed together."""

    def __init__(self, room: Room, stream: TableStream) -> None:
        self.room = room
        self.table = stream
        self.table_at = stream.version
        self.hand: HandStream | None = None
        self.hand_at: int | None = None
        self.accounts: dict[UUID, Account] = {}
        self.records: list[Stored] = []
        self.made: list[tuple[TableRecord | StoredHandEvent, Event | None]] = []
        self.bank: UUID | None = None  # a match table's: where its seats' chips come from

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
        self, key: str, command: TableCommand, request: str, hand: int = 0
    ) -> tuple[TableEvent, ...]:
        before = self.table.table
        records, self.table = self.table.execute(key, command, request=request, hand=hand)
        self.records += records
        events = self.table.commands[key].events[-len(records) :] if records else ()
        self.made += zip(records, events, strict=True)
        for event in events:
            self._settle(f"{self.table.id}/{key}", request, event, before)
        return events

    def at_hand(self, key: str, command: Command, request: str, at: int) -> None:
        assert self.hand is not None
        if self.hand_at is None:
            self.hand_at = self.hand.version
        records, self.hand = self.hand.execute(
            key, command, self.room.cardroom.signer, at=at, request=request
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
            self.accounts[key] = self.room.account(key)
        return self.accounts[key]

    def _settle(self, key: str, request: str, event: TableEvent, before: Table) -> None:
        """Move the chips a table event brings on or takes off the table."""
        moved: AccountEvent
        match event:
            case SatDown(seat=seat, player=player, buy_in=amount):
                moved = self.account(player).buy_in(
                    key, request, amount, player=player, table=self.table.id, seat=seat
                )
            case ChipsAdded(seat=seat, amount=amount):
                occupant = before.seat(seat)
                assert occupant is not None
                player = occupant.player
                moved = self.account(player).buy_in(
                    key, request, amount, player=player, table=self.table.id, seat=seat
                )
            case StoodUp(seat=seat, player=player, stack=amount) if amount > 0:
                moved = self.account(player).returned(
                    key, request, amount, table=self.table.id, seat=seat
                )
            case _:
                return
        self.accounts[moved.originator_id] = self.accounts[moved.originator_id].apply(moved)
        self.records.append(moved)


class Room:
    """The application service over one :class:`Cardroom`."""

    def __init__(self, cardroom: Cardroom) -> None:
        self.cardroom = cardroom
        self.retries = RETRIES
        self._tables: dict[UUID, TableStream] = {}
        self._hands: dict[UUID, HandStream] = {}
        self._accounts: dict[UUID, Account] = {}
        self._epochs: dict[UUID, int] = {}  # the store's epoch each held table is current at
        self._locks: dict[UUID, threading.Lock] = {}
        self._guard = threading.Lock()
        self._listeners: list[Callable[[Committed], None]] = []
        self._matches: dict[UUID, tuple[UUID, int]] = {}  # a match's tables: the match and place

    def listen(self, listener: Callable[[Committed], None]) -> None:
        """Have ``listener`` told of every transaction at a table, right after
        it commits, in the committing thread and in commit order per table."""
        self._listeners.append(listener)

    def close(self) -> None:
        self.cardroom.close()

    # ---- tables

    def open_table(self, command_id: str, config: TableConfig, *, at: int, name: str = "") -> UUID:
        """Open a table named ``name``; its id follows from the command id."""
        new = table_id(check_command_id(command_id))
        if config.rules.fixed_seats:
            raise ConfigError("a duplicate table is opened by its match, with the match")
        command = OpenTable(config, at, name)
        self._run(
            new,
            command_id,
            command,
            lambda work, request: work.outcome(work.at_table(command_id, command, request)),
        )
        return new

    def sit_down(
        self,
        table_id: UUID,
        command_id: str,
        seat: int,
        player: str,
        buy_in: int,
        *,
        at: int,
        post_now: bool = False,
        join_pot: bool = False,
    ) -> Outcome:
        """Buy in from the player's account and take an empty seat."""
        command = SitDown(seat, player, buy_in, at, post_now, join_pot)
        return self._at_table(table_id, command_id, command)

    def add_chips(self, table_id: UUID, command_id: str, seat: int, amount: int) -> Outcome:
        """Top up a stack from the player's account, when the seat is in no hand."""
        return self._at_table(table_id, command_id, AddChips(seat, amount))

    def sit_out(self, table_id: UUID, command_id: str, seat: int) -> Outcome:
        """Deal the seat no hand from the next one on; a hand it is in plays on."""
        return self._at_table(table_id, command_id, SitOut(seat))

    def sit_in(
        self, table_id: UUID, command_id: str, seat: int, *, post_now: bool = False
    ) -> Outcome:
        """Deal a sitting-out seat in again from the next hand (hold'em: see
        :class:`feltline.engine.table.SitIn`)."""
        return self._at_table(table_id, command_id, SitIn(seat, post_now))

    def stand_up(self, table_id: UUID, command_id: str, seat: int, *, at: int) -> Outcome:
        """Leave the seat, the stack going back to the account: at once
        between hands, else when the hand ends, the player being folded at
        their turn (now, if it is their turn)."""
        command = StandUp(seat)

        def stand(work: _Work, request: str) -> Outcome:
            self._not_a_match_table(work.table)
            number = work.table.table.hands if work.table.table.dealt is not None else 0
            work.at_table(command_id, command, request, hand=number)
            if number:
                work.hand = self._hand(work.table, number)
                self._follow(work, command_id, f"table/{command_id}", request, at)
            events = work.table.commands[command_id].events
            return work.outcome(events, number)

        return self._run(table_id, command_id, command, stand)

    def deal(self, table_id: UUID, command_id: str, *, at: int) -> Outcome:
        """Deal the next hand from a fresh seed, drawn here from the OS CSPRNG;
        the table records only its commitment, the hand the seed."""

        def deal(work: _Work, request: str) -> Outcome:
            self._not_a_match_table(work.table)
            seed = secrets.token_bytes(SEED_BYTES)
            number = self._deal_hand(work, command_id, request, seed, at)
            return work.outcome(work.table.commands[command_id].events, number)

        return self._run(table_id, command_id, DealHand(at, b""), deal)

    def _deal_hand(self, work: _Work, key: str, request: str, seed: bytes, at: int) -> int:
        """Deal the table's next hand from ``seed`` into ``work``, filed under
        ``key``; its number."""
        dealt = work.at_table(key, DealHand(at, seed), request, work.table.table.hands + 1)[-1]
        assert isinstance(dealt, HandDealt)
        config = work.table.table.config
        assert config is not None
        work.hand = HandStream.new(hand_id(work.table.id, dealt.hand))
        start = StartHand(
            config.rules,
            button=dealt.button,
            seats=dealt.seats,
            seed=seed,
            antes=dealt.antes,
            small_blind=dealt.small_blind,
            big_blind=dealt.big_blind,
            extra_big_blinds=dealt.extra_big_blinds,
            dead=dealt.dead,
        )
        work.at_hand(f"table/{key}", start, request, at)
        started = work.hand_events[0]
        if not isinstance(started, HandStarted) or started.commitment != dealt.commitment:
            raise RuntimeError(f"hand {dealt.hand} does not start from the table's commitment")
        self._follow(work, key, f"table/{key}", request, at)
        return dealt.hand

    def close_table(self, table_id: UUID, command_id: str, *, at: int, reason: str = "") -> Outcome:
        """Close the table for good, in one transaction: a hand in progress
        is cancelled (every chip put in goes back, RULES.md) and settled,
        then everyone stands up, their stacks and their part of a carried
        jackpots pot going back to their accounts (see
        :func:`feltline.engine.table.pot_refunds`). The table refuses every
        command after."""
        command = CloseTable(at, reason)

        def close(work: _Work, request: str) -> Outcome:
            self._not_a_match_table(work.table)
            table = work.table.table
            number = table.hands if table.dealt is not None and not table.closed else 0
            if number:
                work.hand = self._hand(work.table, number)
                work.at_hand(f"table/{command_id}", Cancel(), request, at)
                self._follow(work, command_id, f"table/{command_id}", request, at)
            work.at_table(command_id, command, request, hand=number)
            events = work.table.commands[command_id].events
            return work.outcome(events, number)

        return self._run(table_id, command_id, command, close)

    # ---- duplicate matches

    def create_match(
        self,
        command_id: str,
        name: str,
        config: TableConfig,
        *,
        tables: int,
        deals: int,
        stack: int,
        ahead: int = 0,
        by: str,
        at: int,
    ) -> UUID:
        """Create a match and its tables in one transaction, as admin ``by``:
        ``config`` is each table's, dealt from fixed positions for its seats,
        every seat bought in for ``stack`` each deal from the table's bank,
        which is minted here (the match's chips are its own, never a
        player's); one seed per deal is drawn now and only its commitment is
        public. The match's id follows from the command id."""
        key = match_id(check_command_id(command_id))
        request = fingerprint(CreateMatch(name, config, tables, deals, stack, ahead, by))
        seats = config.seats
        duplicate = replace(
            config,
            rules=replace(config.rules, fixed_seats=seats),
            min_buy_in=stack,
            max_buy_in=stack,
        ).validate()
        ids = tuple(match_table_id(key, t) for t in range(tables))
        for attempt in range(self.retries):
            _back_off(attempt)
            stream = self.cardroom.match(key)
            if stream.repeat(command_id, request) is not None:
                return key
            seeds = tuple(secrets.token_bytes(SEED_BYTES) for _ in range(deals))
            events = Match.create(
                name,
                duplicate,
                ids,
                deals=deals,
                stack=stack,
                ahead=ahead,
                seeds=seeds,
                by=by,
                at=at,
            )
            records: list[Stored] = []
            made, _ = stream.record(command_id, request, events)
            records += made
            for t, table in enumerate(ids):
                opened, _ = TableStream.new(table).execute(
                    f"match-table/{key}/{t}",
                    OpenTable(duplicate, at, f"{name} #{t + 1}"),
                    request=request,
                )
                bank = self.cardroom.account(bank_id(key, t))
                records += [*opened, bank.mint(f"match/{key}", request, seats * stack, by)]
            try:
                self.cardroom.commit(records)
            except Conflict:
                continue
            return key
        raise Conflict(f"match {key} kept changing under this request; try again")

    def match(self, key: UUID) -> MatchStream:
        """The match as stored now."""
        stream = self.cardroom.match(key)
        if stream.version == 0:
            raise MatchNotFound(f"there is no match {key}")
        return stream

    def join_match(self, key: UUID, command_id: str, table: int, seat: int, player: str) -> bool:
        """Take a seat at one of the match's tables for the whole match;
        False when the same request came before."""
        check_command_id(command_id)
        request = fingerprint(JoinMatch(table, seat, player))
        for attempt in range(self.retries):
            _back_off(attempt)
            stream = self.match(key)
            if stream.repeat(command_id, request) is not None:
                return False
            records, _ = stream.record(command_id, request, stream.match.take(table, seat, player))
            try:
                self.cardroom.commit(records)
            except Conflict:
                continue
            return True
        raise Conflict(f"match {key} kept changing under this request; try again")

    def deal_match(self, key: UUID, table: int, *, at: int) -> Outcome:
        """Deal the match's next deal at its table ``table``: every seat
        bought in for the deal's stack from the table's bank, the deck from
        the deal's committed seed. Refused (:class:`WaitingForTables`) while
        seats are empty or the table is as far ahead of the slowest as the
        match allows."""
        setup = self.match(key).match.setup
        if not 0 <= table < len(setup.tables):
            raise SeatError(f"match {key} has tables 0 to {len(setup.tables) - 1}, not {table}")
        table_key = UUID(setup.tables[table])

        def deal(work: _Work, request: str) -> Outcome:
            if work.table.table.dealt is not None:
                raise HandInProgressError(f"table {table} is playing deal {work.table.table.hands}")
            match = self.cardroom.match(key).match
            number = match.next_deal(table)
            if work.table.table.hands != number - 1:
                raise RuntimeError(f"table {table} has dealt {work.table.table.hands} hands")
            command_key = f"match/deal/{number}"
            work.bank = bank_id(key, table)
            for seat in range(1, setup.config.seats + 1):
                player = match.players[table, seat]
                work.at_table(command_key, SitDown(seat, player, setup.stack, at), request)
            self._deal_hand(work, command_key, request, match.seed(number), at)
            return work.outcome(work.table.commands[command_key].events, number)

        return self._run(table_key, None, DealMatch(str(key), table, at), deal)

    def match_of(self, table: UUID) -> tuple[UUID, int] | None:
        """The match a table belongs to and its place in it, or None."""
        stream = self.table(table)
        return self._match_of(stream)

    def _match_of(self, stream: TableStream) -> tuple[UUID, int] | None:
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

    def _not_a_match_table(self, stream: TableStream) -> None:
        if self._match_of(stream) is not None:
            raise MatchTable(
                f"table {stream.id} belongs to a duplicate match: the match seats and deals it"
            )

    def _end_deal(self, work: _Work, table_key: str, request: str) -> None:
        """After a match table's hand ends: every seat's stack goes back to
        the table's bank, and the match records the table's stacks (and,
        from the last table to end the deal, its seed) in the same
        transaction."""
        where = self._match_of(work.table)
        if where is None:
            return
        key, number = where
        table = work.table.table
        deal = table.hands
        finished = work.table.commands[table_key].events
        stacks = {s.number: s.stack for s in table.seats}
        if not any(isinstance(e, HandFinished) for e in finished):
            raise RuntimeError(f"table {work.table.id} ended deal {deal} without its stacks")
        work.bank = bank_id(key, number)
        for seat in sorted(stacks):
            work.at_table(table_key, StandUp(seat), request, deal)
        stream = self.cardroom.match(key)
        events = stream.match.end_deal(number, deal, stacks)
        records, _ = stream.record(f"deal/{deal}/table/{number}", request, events)
        work.records += records

    # ---- hands

    def act(
        self,
        table_id: UUID,
        hand: int,
        command_id: str,
        seat: int,
        action: Action,
        *,
        amount: int = 0,
        at: int,
        seen: int | None = None,
    ) -> Outcome:
        """Check, call, fold, bring in; bet, raise or complete to ``amount``;
        refused as :class:`Stale` unless decided on hand position ``seen``
        (when given: a player's decision names what the player saw)."""
        return self._play(table_id, hand, command_id, Act(seat, action, amount), at, seen=seen)

    def draw(
        self,
        table_id: UUID,
        hand: int,
        command_id: str,
        seat: int,
        discards: tuple[Card, ...],
        *,
        at: int,
        seen: int | None = None,
    ) -> Outcome:
        return self._play(table_id, hand, command_id, Draw(seat, discards), at, seen=seen)

    def declare(
        self,
        table_id: UUID,
        hand: int,
        command_id: str,
        seat: int,
        choice: Choice,
        *,
        at: int,
        seen: int | None = None,
    ) -> Outcome:
        return self._play(table_id, hand, command_id, Declare(seat, choice), at, seen=seen)

    def time_out(
        self, table_id: UUID, hand: int, command_id: str, seat: int, *, at: int
    ) -> Outcome:
        """Act for a player whose time is up: the table's action clock,
        counted from the hand's last event, must have run out by ``at``."""
        return self._play(table_id, hand, command_id, TimeOut(seat), at)

    # ---- accounts

    def mint(self, command_id: str, player: str, amount: int, *, by: str) -> int:
        """Make ``amount`` new chips in the player's account, as admin ``by``;
        the new balance."""
        return self._at_account(
            command_id,
            Mint(player, amount, by),
            lambda owned, request: owned.mint(command_id, request, amount, by),
        )

    def cash_out(self, command_id: str, player: str, amount: int) -> int:
        """Pay ``amount`` chips out of the cardroom from the player's account;
        the new balance."""
        return self._at_account(
            command_id,
            CashOut(player, amount),
            lambda owned, request: owned.cash_out(command_id, request, amount, player),
        )

    def balance(self, player: str) -> int:
        """The chips the player holds off the table, as stored now."""
        fresh = self.cardroom.account(account_id(player))
        self._remember_accounts({fresh.id: fresh})
        return fresh.balance

    # ---- reads

    def look(self) -> None:
        """Ask the store whether anyone else wrote since the last look, so
        that the reads after it show what the store holds now. Requests look
        for themselves; a reader that must not lag another process calls it
        first (one query)."""
        self.cardroom.elsewhere.look()

    def table(self, table_id: UUID) -> TableStream:
        """The table as of the last look."""
        with self._lock(table_id):
            stream = self._table(table_id)
        if stream.version == 0:
            raise NotFound(f"there is no table {table_id}")
        return stream

    def hand(self, table_id: UUID, number: int) -> HandStream:
        return self._hand(self.table(table_id), number)

    def account(self, key: UUID) -> Account:
        return self._accounts.get(key) or self.cardroom.account(key)

    # ---- the work

    def _table(self, table_id: UUID) -> TableStream:
        """The table as of the last look: the copy this room holds, brought
        up to date (with its current hand) if anyone else wrote since it was
        last current. Its lock held."""
        epoch = self.cardroom.elsewhere.epoch
        held = self._tables.get(table_id)
        if held is None:
            held = self.cardroom.table(table_id)
            if not held.version:
                return held
        elif self._epochs.get(table_id) != epoch:
            held = self._catch_up(held)
        self._tables[table_id] = held
        self._epochs[table_id] = epoch
        return held

    def _behind(self, table_id: UUID) -> bool:
        """Look at the store: whether anyone else wrote since this room's copy
        of the table was last current."""
        self.look()
        held = table_id in self._tables
        return held and self._epochs.get(table_id) != self.cardroom.elsewhere.epoch

    def _catch_up(self, held: TableStream) -> TableStream:
        """``held`` and its current hand with whatever was stored after them,
        which must verify as a whole stream would (else :class:`Unreadable`)."""
        hand = self._hands.pop(held.id, None)
        with self.cardroom.reported.reading(held.id):
            newer = list(self.cardroom.events.get(held.id, gt=held.version))
            stream = held.extend(cast(list[TableRecord], newer))
            if newer:
                self.cardroom.vouch("table", held.id, stream.signer)
            if hand is None or hand.id != hand_id(held.id, stream.table.hands):
                return stream
            later = list(self.cardroom.events.get(hand.id, gt=hand.version))
            for record in later:
                hand = hand.apply(cast(StoredHandEvent, record))
            if later:
                self.cardroom.vouch("hand", hand.id, hand.signer)
        if hand.hand.phase is not Phase.ENDED:
            self._hands[held.id] = hand
        return stream

    def _hand(self, stream: TableStream, number: int) -> HandStream:
        if not 1 <= number <= stream.table.hands:
            raise NotFound(
                f"table {stream.id} has dealt hands 1 to {stream.table.hands}, not {number}"
            )
        wanted = hand_id(stream.id, number)
        cached = self._hands.get(stream.id)
        if cached is not None and cached.id == wanted:
            return cached
        with self.cardroom.reported.reading(stream.id, f"hand {number}: "):
            return self.cardroom.get(wanted)  # a hand that does not verify: its table neither

    def _at_table(self, table_id: UUID, command_id: str, command: TableCommand) -> Outcome:
        def run(work: _Work, request: str) -> Outcome:
            self._not_a_match_table(work.table)
            return work.outcome(work.at_table(command_id, command, request))

        return self._run(table_id, command_id, command, run)

    def _play(
        self,
        table_id: UUID,
        number: int,
        command_id: str,
        command: Command,
        at: int,
        *,
        seen: int | None = None,
    ) -> Outcome:
        check_command_id(command_id)
        table_key = f"hand/{number}/{command_id}"

        def play(work: _Work, request: str) -> Outcome:
            table = work.table.table
            current = table.hands if table.dealt is not None else 0
            if seen is not None and not 1 <= number <= table.hands:
                raise self._stale(work.table, current, number, seen)
            work.hand = self._hand(work.table, number)
            repeated = work.hand.repeat(command_id, command)
            if repeated is not None:
                done = work.table.commands.get(table_key)
                return Outcome(done.events if done else (), repeated, number, repeated=True)
            if seen is not None and not (
                number == current and current_to(work.hand, command, seen)
            ):
                raise self._stale(work.table, current, number, seen)
            if isinstance(command, TimeOut):
                config = work.table.table.config
                assert config is not None
                due = work.hand.since + config.action_clock
                if at < due:
                    raise ClockRunning(
                        f"seat {command.seat} has until {due} to act, and it is only {at}"
                    )
            work.at_hand(command_id, command, request, at)
            self._follow(work, table_key, command_id, request, at)
            done_here = work.table.commands.get(table_key)
            return work.outcome(done_here.events if done_here else (), number)

        return self._run(table_id, None, command, play)

    def _stale(self, stream: TableStream, current: int, number: int, seen: int) -> Stale:
        sequence = self._hand(stream, current).version if current else 0
        return Stale(current, sequence, number, seen)

    def _follow(self, work: _Work, table_key: str, hand_key: str, request: str, at: int) -> None:
        """What the dealer does after a hand moves on: fold players who stood
        up when their turn comes, and when the hand ends, settle it at the
        table in the same transaction."""
        assert work.hand is not None
        while True:
            hand = work.hand.hand
            if hand.phase is Phase.ENDED:
                ended = work.hand_events[-1]
                assert isinstance(ended, HandEnded)
                passed = next((e for e in work.hand_events if isinstance(e, PassedOut)), None)
                work.at_table(
                    table_key,
                    EndHand(ended.stacks, passed, ended.rake),
                    request,
                    work.table.table.hands,
                )
                self._end_deal(work, table_key, request)
                return
            waiting = waiting_on(hand)
            leaving = work.table.table.leaving if waiting else ()
            seat = next((s for s in waiting if s in leaving), None)
            if seat is None:
                return
            try:
                work.at_hand(hand_key, Act(seat, Action.FOLD), request, at)
            except RuleError:  # not a betting turn, or a bring-in that must be posted
                work.at_hand(hand_key, TimeOut(seat), request, at)

    def _run(
        self,
        table_id: UUID,
        command_id: str | None,
        command: object,
        body: Callable[[_Work, str], Outcome],
    ) -> Outcome:
        """Run ``body`` against the table, committing what it decided, again
        after a conflict; a repeated table request is answered from the table."""
        request = fingerprint(command)
        with self._lock(table_id):
            looked = False
            for attempt in range(self.retries):
                _back_off(attempt)
                if self.cardroom.elsewhere.epoch:  # another writer shares the store
                    self.look()
                    looked = True
                try:
                    stream = self._table(table_id)
                    if command_id is not None:
                        check_command_id(command_id)
                        done = stream.repeat(command_id, request)
                        if done is not None:
                            hand_events: tuple[Event, ...] = ()
                            if done.hand:
                                hand_events = self._hand(stream, done.hand).commands.get(
                                    f"table/{command_id}", ("", ())
                                )[1]
                            return Outcome(done.events, hand_events, done.hand, repeated=True)
                    if stream.version == 0 and not isinstance(command, OpenTable):
                        raise NotFound(f"there is no table {table_id}")
                    work = _Work(self, stream)
                    outcome = body(work, request)
                except RuleError:  # a refusal stands only on what the store holds now
                    if looked or not self._behind(table_id):
                        raise
                    looked = True
                    continue
                try:
                    stored = self.cardroom.commit(work.records)
                except Conflict:  # another writer got there first: catch up, decide again
                    self._epochs.pop(table_id, None)
                    self._forget_accounts(work.accounts)
                    continue
                except Exception:
                    self._forget(table_id, work.accounts)  # stored or not, nobody knows
                    raise
                self._tables[table_id] = work.table
                if work.hand is not None:
                    if work.hand.hand.phase is Phase.ENDED:
                        self._hands.pop(table_id, None)
                    else:
                        self._hands[table_id] = work.hand
                self._remember_accounts(work.accounts)
                if work.made:
                    signed = {id(r): s for r, s in zip(work.records, stored, strict=True)}
                    made = tuple(
                        (cast(TableRecord | StoredHandEvent, signed[id(r)]), e)
                        for r, e in work.made
                    )
                    committed = Committed(table_id, outcome.number, made)
                    for listener in self._listeners:
                        listener(committed)
                return outcome
        raise Conflict(f"table {table_id} kept changing under this request; try again")

    def _at_account(
        self,
        command_id: str,
        what: Mint | CashOut,
        decide: Callable[[Account, str], AccountEvent],
    ) -> int:
        check_command_id(command_id)
        request = fingerprint(what)
        player = what.player
        key = account_id(player)
        for attempt in range(self.retries):
            _back_off(attempt)
            owned = self.account(key)
            if owned.repeat(command_id, request) is not None:
                return owned.balance
            event = decide(owned, request)
            try:
                self.cardroom.commit([event])
            except Conflict:
                self._accounts.pop(key, None)
                continue
            except Exception:
                self._accounts.pop(key, None)  # stored or not, nobody knows
                raise
            after = owned.apply(event)
            self._remember_accounts({key: after})
            return after.balance
        raise Conflict(f"the account of {player} kept changing under this request; try again")

    def _lock(self, table_id: UUID) -> threading.Lock:
        """The table's lock; the guard only to add one, so that concurrent
        requests at other tables do not queue on it."""
        lock = self._locks.get(table_id)
        if lock is None:
            with self._guard:
                lock = self._locks.setdefault(table_id, threading.Lock())
        return lock

    def _forget(self, table_id: UUID, accounts: Mapping[UUID, Account]) -> None:
        self._tables.pop(table_id, None)
        self._hands.pop(table_id, None)
        self._forget_accounts(accounts)

    def _forget_accounts(self, accounts: Mapping[UUID, Account]) -> None:
        for key in accounts:
            self._accounts.pop(key, None)

    def _remember_accounts(self, accounts: Mapping[UUID, Account]) -> None:
        """Keep the newest of each account: requests at other tables may have
        stored a later version meanwhile."""
        if not accounts:
            return
        with self._guard:
            for key, latest in accounts.items():
                known = self._accounts.get(key)
                if known is None or known.version < latest.version:
                    self._accounts[key] = latest


def _back_off(attempt: int) -> None:
    """Wait a random while before a retry, longer after each conflict."""
    if attempt:
        time.sleep(random.uniform(0, BACKOFF * attempt))  # jitter, not a secret


def current_to(hand: HandStream, move: Command, seen: int) -> bool:
    """Whether a player who saw the hand at position ``seen`` decided on what
    it is now: nothing happened since, or ``move`` declares for a seat yet to
    declare in the declaring step the player saw begin (declarations are
    simultaneous and hidden, so another's does not make one stale)."""
    if seen == hand.version:
        return True
    h = hand.hand
    if not isinstance(move, Declare) or h.phase is not Phase.DECLARING:
        return False
    if not hand.step_began <= seen <= hand.version or move.seat not in h.seats:
        return False
    p = h.player(move.seat)
    return p.live and p.choice is None
