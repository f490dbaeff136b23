"""The cardroom's use cases: the one service the API and the command line
call to run tables, hands, matches and accounts.

Each use case is short: it loads the streams it touches (as :class:`Held`
copies), decides through the engine in one unit of work (:class:`Work`),
and commits everything it decided in one transaction: a buy-in and the
account it comes from, a deal and the hand it starts, a hand's end, the
table's new stacks and the chips of players who leave. What the dealer
does inside that transaction is :mod:`feltline.cardroom.dealer`'s.

Every request carries a client command id. The same id with the same
request answers as the first time and stores nothing; with another request
it is refused (:class:`CommandIdReused`). Ids are scoped to the stream the
request addresses: the table for table requests (the cardroom for opening a
table, whose id comes from it), the hand for play, the account for minting
and cashing out. Every request that can start the action clock carries the
time (whole seconds on the caller's clock); nothing here reads a clock.

A room serves one request per table at a time, under the table's lock.
Once it has seen another writer on its store, it asks before each request
whether anyone else wrote since its last look (one query,
:mod:`feltline.store.elsewhere`), and if so brings its copy up to date; a
room alone on its store asks only before it refuses a request, so that a
refusal always stands on what the store holds. It decides against that
copy and lets the database check it: every append expects the stream
versions decided on, so if another writer got there first, it catches up
and decides again, and gives up with :class:`Conflict` after a few tries. A
player's decision names the hand position the player saw (``seen``); it is
checked on every try, so one decided on a state the hand has left is
refused (:class:`Stale`), never applied to the new one.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, replace
from typing import cast
from uuid import UUID

from feltline.audit.codec import TABLE_EVENT_TYPES, TOURNAMENT_EVENT_TYPES, decode_event
from feltline.audit.keys import Signer
from feltline.cardroom import dealer, director
from feltline.cardroom.errors import (
    ClockRunning,
    MatchNotFound,
    MatchTable,
    NotFound,
    Stale,
    TournamentNotFound,
    TournamentTable,
)
from feltline.cardroom.held import AsOf, Held
from feltline.cardroom.owners import Owners
from feltline.cardroom.register import Register
from feltline.cardroom.work import Committed, Outcome, Work
from feltline.domain.account import Account, AccountEvent, CashOut, InsufficientChips, Mint
from feltline.domain.hand import HandStream, Recorded, Sealed, StoredHandEvent
from feltline.domain.ids import (
    account_id,
    bank_id,
    check_command_id,
    fingerprint,
    hand_id,
    house_id,
    match_id,
    match_table_id,
    pool_id,
    table_id,
    tournament_id,
    tournament_table_id,
)
from feltline.domain.invite import used
from feltline.domain.match import Match, MatchStream, SeatError
from feltline.domain.table import TableRecord, TableStream
from feltline.domain.tournament import TournamentRecord, TournamentStream
from feltline.engine.cards.card import Card
from feltline.engine.cards.deck import SEED_BYTES
from feltline.engine.errors import ConfigError, NotYourTurn, RuleError
from feltline.engine.hand.commands import (
    Act,
    Cancel,
    CloseContributions,
    Commit,
    Declare,
    Draw,
    Reveal,
    TimeOut,
)
from feltline.engine.hand.events import Action, Choice, Event
from feltline.engine.hand.script import Phase
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.commands import (
    AddChips,
    CloseTable,
    DealHand,
    OpenTable,
    SitDown,
    SitIn,
    SitOut,
    StandUp,
    TableCommand,
    UseTimeBank,
)
from feltline.engine.table.errors import HandInProgressError, NoHandInProgressError
from feltline.engine.table.house import TableConfig
from feltline.engine.tournament import Band, Level, NotRunning, Start, Tournament, WaitingToDeal
from feltline.store.config import StoreConfig
from feltline.store.leases import Fenced
from feltline.store.rows import StoredRows
from feltline.store.signing import open_streams
from feltline.store.streams import Conflict, Stored, Streams

# What a seat does in a hand, or the clock for it.
Move = Act | Draw | Declare | TimeOut | Commit | Reveal | CloseContributions
RETRIES = 8
BACKOFF = 0.002  # seconds, times the attempt: spreads out writers that keep colliding


def open_room(config: StoreConfig | None = None, *, new_key: bool = False) -> Room:
    """The room over the store as configured (by default, from the
    environment; see :func:`feltline.store.signing.open_streams`)."""
    return Room(open_streams(config, new_key=new_key))


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


@dataclass(frozen=True, slots=True)
class CreateTournament:
    """A tournament's set-up as an admin asks for it (docs/rules.md,
    "Tournaments"): what makes two creations the same request."""

    name: str
    config: TableConfig
    levels: tuple[Level, ...]
    buy_in: int
    fee: int
    stack: int
    payouts: tuple[Band, ...]
    start: Start
    entrants: int
    by: str
    minimum: int = 0
    starts_at: int = 0
    late_until: int = 0


@dataclass(frozen=True, slots=True)
class Enter:
    player: str


@dataclass(frozen=True, slots=True)
class Withdraw:
    player: str


@dataclass(frozen=True, slots=True)
class CancelTournament:
    reason: str
    by: str


@dataclass(frozen=True, slots=True)
class StartTournament:
    at: int


@dataclass(frozen=True, slots=True)
class DealTournament:
    tournament: str
    table: int
    at: int


class Room:
    """The cardroom's use cases over one store's :class:`Streams`."""

    def __init__(self, streams: Streams) -> None:
        self.streams = streams
        self.held = Held(streams)
        self.owners = Owners(streams, self.held)
        # The transparency log's keeper (docs/transparency.md).
        self.register = Register(streams, origin=streams.env.get("FELTLINE_LOG_ORIGIN", ""))
        self.retries = RETRIES
        self._listeners: list[Callable[[Committed], None]] = []
        self._tournament_listeners: list[Callable[[UUID], None]] = []

    def listen(self, listener: Callable[[Committed], None]) -> None:
        """Have ``listener`` told of every transaction at a table, right after
        it commits, in the committing thread and in commit order per table."""
        self._listeners.append(listener)

    def listen_tournaments(self, listener: Callable[[UUID], None]) -> None:
        """Have ``listener`` told the id of every tournament a transaction
        recorded something in, right after it commits, in the committing
        thread: a hand begun or ended at its table records in it too."""
        self._tournament_listeners.append(listener)

    def close(self) -> None:
        """Hand this room's tables over (:meth:`Owners.stop`) and close the store."""
        self.owners.stop()
        self.streams.close()

    def lock(self, table_id: UUID) -> threading.RLock:
        """The table's one lock (:meth:`Held.lock`): held while the API
        reads a table whole, as while a request changes it."""
        return self.held.lock(table_id)

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
        self.owners.opened(new)
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
        :class:`feltline.engine.table.commands.SitIn`)."""
        return self._at_table(table_id, command_id, SitIn(seat, post_now))

    def stand_up(self, table_id: UUID, command_id: str, seat: int, *, at: int) -> Outcome:
        """Leave the seat, the stack going back to the account: at once
        between hands, else when the hand ends, the player being folded at
        their turn (now, if it is their turn)."""
        command = StandUp(seat)

        def stand(work: Work, request: str) -> Outcome:
            self._not_a_match_table(work.table)
            self._not_a_tournament_table(work.table)
            number = work.table.table.hands if work.table.table.dealt is not None else 0
            work.at_table(command_id, command, request, hand=number)
            if number:
                work.hand = self.held.hand(work.table, number)
                dealer.follow(work, command_id, f"table/{command_id}", request, at)
            events = work.table.commands[command_id].events
            return work.outcome(events, number)

        return self._run(table_id, command_id, command, stand)

    def deal(self, table_id: UUID, command_id: str, *, at: int) -> Outcome:
        """Deal the next hand from a fresh seed, drawn here from the OS CSPRNG;
        the table records only its commitment, the hand the seed."""

        def deal(work: Work, request: str) -> Outcome:
            self._not_a_match_table(work.table)
            self._not_a_tournament_table(work.table)
            seed = secrets.token_bytes(SEED_BYTES)
            number = dealer.deal(work, command_id, request, seed, at)
            return work.outcome(work.table.commands[command_id].events, number)

        return self._run(table_id, command_id, DealHand(at, b""), deal)

    def close_table(self, table_id: UUID, command_id: str, *, at: int, reason: str = "") -> Outcome:
        """Close the table for good, in one transaction: a hand in progress
        is cancelled (every chip put in goes back, docs/rules.md) and settled,
        then everyone stands up, their stacks and their part of a carried
        jackpots pot going back to their accounts (see
        :func:`feltline.engine.table.decide.pot_refunds`). The table refuses every
        command after."""
        command = CloseTable(at, reason)

        def close(work: Work, request: str) -> Outcome:
            self._not_a_match_table(work.table)
            self._not_a_tournament_table(work.table)
            table = work.table.table
            number = table.hands if table.dealt is not None and not table.closed else 0
            if number:
                work.hand = self.held.hand(work.table, number)
                work.at_hand(f"table/{command_id}", Cancel(), request, at)
                dealer.follow(work, command_id, f"table/{command_id}", request, at)
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
            for table in ids:
                self.owners.serve(table)  # new tables: taken, or OwnedElsewhere
            stream = self.streams.match(key)
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
                bank = self.streams.account(bank_id(key, t))
                records += [*opened, bank.mint(f"match/{key}", request, seats * stack, by)]
            try:
                self.streams.commit(records, tables=ids)
            except Conflict:
                continue
            except Fenced:
                for table in ids:
                    self.owners.lost(table)
                continue
            for table in ids:
                self.owners.opened(table)
            return key
        raise Conflict(f"match {key} kept changing under this request; try again")

    def match(self, key: UUID, *, fresh: bool = False) -> MatchStream:
        """The match as stored now; with ``fresh``, after a look, so that its
        tables read next are too."""
        if fresh:
            self.look()
        stream = self.streams.match(key)
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
                self.streams.commit(records)
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

        def deal(work: Work, request: str) -> Outcome:
            if work.table.table.dealt is not None:
                raise HandInProgressError(f"table {table} is playing deal {work.table.table.hands}")
            match = self.streams.match(key).match
            number = match.next_deal(table)
            if work.table.table.hands != number - 1:
                raise RuntimeError(f"table {table} has dealt {work.table.table.hands} hands")
            command_key = f"match/deal/{number}"
            work.bank = bank_id(key, table)
            for seat in range(1, setup.config.seats + 1):
                player = match.players[table, seat]
                work.at_table(command_key, SitDown(seat, player, setup.stack, at), request)
            dealer.deal(work, command_key, request, match.seed(number), at)
            return work.outcome(work.table.commands[command_key].events, number)

        return self._run(table_key, None, DealMatch(str(key), table, at), deal)

    def match_of(self, table: UUID) -> tuple[UUID, int] | None:
        """The match a table belongs to and its place in it, or None."""
        stream = self.table(table)
        return self.held.match_of(stream)

    def _not_a_match_table(self, stream: TableStream) -> None:
        if self.held.match_of(stream) is not None:
            raise MatchTable(
                f"table {stream.id} belongs to a duplicate match: the match seats and deals it"
            )

    # ---- tournaments

    def create_tournament(self, command_id: str, setup: CreateTournament, *, at: int) -> UUID:
        """Create a tournament as admin ``setup.by``; the seat draws' seed
        is drawn now and only its commitment is public. Its id follows from
        the command id."""
        key = tournament_id(check_command_id(command_id))

        def create(state: Tournament) -> list[Event]:
            if state.created is not None:
                raise ConfigError(f"tournament {key} exists already: create it under a new id")
            return Tournament.create(
                setup.name,
                setup.config,
                setup.levels,
                buy_in=setup.buy_in,
                fee=setup.fee,
                stack=setup.stack,
                payouts=setup.payouts,
                start=setup.start,
                entrants=setup.entrants,
                minimum=setup.minimum,
                starts_at=setup.starts_at,
                late_until=setup.late_until,
                seed=secrets.token_bytes(SEED_BYTES),
                by=setup.by,
                at=at,
            )

        self._at_tournament(key, command_id, setup, create, at=at, new=True)
        return key

    def tournament(self, key: UUID, *, fresh: bool = False) -> TournamentStream:
        """The tournament as stored now (with ``fresh``, after a look)."""
        if fresh:
            self.look()
        stream = self.held.tournament(key)
        if stream.version == 0:
            raise TournamentNotFound(f"there is no tournament {key}")
        return stream

    def tournaments(self) -> list[UUID]:
        """Every tournament in the store, in the order created."""
        return self.streams.tournaments()[0]

    def register_tournament(self, key: UUID, command_id: str, player: str, *, at: int) -> bool:
        """Enter ``player``: the buy-in moves from their account to the
        prize pool and the fee to the house, in the transaction that
        records the entry (and, when it fills a sit-and-go, draws the
        seats and opens the tables). False when the same request came before."""

        def enter(state: Tournament) -> list[Event]:
            if not self.has_account(player):
                raise NotFound(f"{player} has no account: chips are minted for a player first")
            return state.register(player, at)

        def pay(work: Work, state: Tournament) -> None:
            setup = state.setup
            where = f"tournament/{key}/{command_id}"
            fingerprinted = fingerprint(Enter(player))
            source = account_id(player)
            owned = self.balance(player)
            if owned < setup.buy_in + setup.fee:
                raise InsufficientChips(
                    f"{player} has {owned} chips off the table, not the "
                    f"{setup.buy_in + setup.fee} the buy-in and fee take"
                )
            work.move(where, fingerprinted, setup.buy_in, source=source, to=pool_id(key))
            work.move(where, fingerprinted, setup.fee, source=source, to=house_id())

        return self._at_tournament(key, command_id, Enter(player), enter, pay=pay, at=at)

    def unregister_tournament(self, key: UUID, command_id: str, player: str, *, at: int) -> bool:
        """Withdraw ``player``'s entry before the start: the buy-in and the
        fee go back to their account. False when the same request came before."""

        def withdraw(state: Tournament) -> list[Event]:
            return state.unregister(player, at)

        def refund(work: Work, state: Tournament) -> None:
            setup = state.setup
            where = f"tournament/{key}/{command_id}"
            fingerprinted = fingerprint(Withdraw(player))
            to = account_id(player)
            work.move(where, fingerprinted, setup.buy_in, source=pool_id(key), to=to)
            work.move(where, fingerprinted, setup.fee, source=house_id(), to=to)

        return self._at_tournament(key, command_id, Withdraw(player), withdraw, pay=refund, at=at)

    def cancel_tournament(
        self, key: UUID, command_id: str, *, reason: str, by: str, at: int
    ) -> bool:
        """Stop the tournament, as admin ``by``, between hands: the refunds
        the rules give (docs/rules.md) go back to the players' accounts and
        its tables close. False when the same request came before."""

        def cancel(state: Tournament) -> list[Event]:
            playing = sorted(n for n, t in state.tables.items() if t.playing)
            if playing and not state.over:
                raise NotRunning(
                    f"tables {playing} are playing a hand: a tournament is cancelled between hands"
                )
            return state.cancel(at, reason)

        return self._at_tournament(key, command_id, CancelTournament(reason, by), cancel, at=at)

    def start_tournament(self, key: UUID, *, at: int) -> bool:
        """Start a scheduled tournament at its time (the director's, on the
        clock): the seats drawn and its tables opened, or cancelled with
        refunds when too few registered. False if it had started already."""
        return self._at_tournament(
            key, f"start-{at}", StartTournament(at), lambda state: state.start(at), at=at
        )

    def _at_tournament(
        self,
        key: UUID,
        command_id: str,
        what: object,
        decide: Callable[[Tournament], list[Event]],
        *,
        pay: Callable[[Work, Tournament], None] | None = None,
        at: int,
        new: bool = False,
    ) -> bool:
        """Decide a request at the tournament and commit it with what its
        director carries out (:func:`feltline.cardroom.director.record`),
        again after a conflict; False when the same request came before."""
        check_command_id(command_id)
        request = fingerprint(what)
        for attempt in range(self.retries):
            _back_off(attempt)
            stream = self.held.tournament(key)
            if stream.version == 0 and not new:
                raise TournamentNotFound(f"there is no tournament {key}")
            if stream.repeat(command_id, request) is not None:
                return False
            events = decide(stream.tournament)
            # Decided only by the director's owner, its tables leased with it.
            self.owners.tournament(key, stream.tournament.then(events).setup.entrants)
            if self.owners.serve(key):  # just taken: decide on what is stored now
                continue
            with ExitStack() as lent:  # the tables' locks the work took
                work = Work(self.held, self.streams.table(tournament_table_id(key, 1)), lent)
                if pay is not None:
                    pay(work, stream.tournament)
                director.record(work, stream, command_id, request, events, at=at)
                try:
                    self._commit_tournament(key, work)
                except Conflict:
                    self.held.forget_accounts(work.accounts)
                    continue
            return True
        raise Conflict(f"tournament {key} kept changing under this request; try again")

    def _commit_tournament(self, key: UUID, work: Work) -> None:
        """Commit ``work`` under tournament ``key``'s lease, which its tables
        are held with, and tell the listeners what was stored at each of
        the tables it touched."""
        tables = [work.table.id] if work.table.version else []
        tables += [t for t in work.others if t not in tables]
        try:
            stored = self.streams.commit(work.records, tables=[key, *tables])
        except Fenced:
            self.owners.lost(key)
            self.held.forget(work.table.id, work.accounts)
            work.put_back(None)
            raise Conflict("the tournament's lease was lost; try again") from None
        except BaseException:
            self.held.forget(work.table.id, work.accounts)
            work.put_back(None)
            raise
        self.held.remember_accounts(work.accounts)
        self.held.forget(work.table.id, {})  # read from the store unlocked, not held
        work.put_back(True)
        for table in tables:
            self.owners.opened(table)
        self._tell(work, stored, tables, 0)

    def _tell(self, work: Work, stored: list[Stored], tables: list[UUID], hand: int) -> None:
        """Tell the listeners what ``work`` stored at each of ``tables``,
        and at which tournaments."""
        recorded = {r.originator_id for r in work.records if isinstance(r, TournamentRecord)}
        for key in recorded:
            for told in self._tournament_listeners:
                told(key)
        signed = {id(r): s for r, s in zip(work.records, stored, strict=True)}
        for table in tables:
            # The request's own table takes its hand's records too.
            made = tuple(
                (cast(TableRecord | StoredHandEvent, signed[id(r)]), e)
                for r, e in work.made
                if r.originator_id == table
                or (table == work.table.id and r.originator_id not in work.others)
            )
            if made:
                number = hand if table == work.table.id else 0
                for listener in self._listeners:
                    listener(Committed(table, number, made))

    def tournament_of(self, table_id: UUID) -> tuple[UUID, int] | None:
        """The tournament a table belongs to and its number there, or None."""
        return self.held.tournament_of(self.table(table_id))

    def deal_tournament(self, table_id: UUID, *, at: int) -> Outcome:
        """Deal a tournament's table its next hand, if its director lets it
        now (else the tournament's refusal, a :class:`WaitingToDeal`): the
        clock's level changes first, then the hand begun at the current
        level's stakes, from a fresh seed as every deal."""
        where = self.tournament_of(table_id)
        if where is None:
            raise NotFound(f"table {table_id} belongs to no tournament")
        key, number = where

        def deal(work: Work, request: str) -> Outcome:
            table = work.table.table
            if table.closed:
                raise WaitingToDeal(f"table {number} has closed")
            if table.dealt is not None:
                raise HandInProgressError(f"table {number} is playing hand {table.hands}")
            command_key = f"tournament/deal/{table.hands + 1}"
            director.advance(work, key, request, at)
            try:
                director.begin_hand(
                    work, key, number, table_key=command_key, request=request, at=at
                )
            except WaitingToDeal:
                if not work.records:
                    raise
                return work.outcome(())  # the level changes stand
            dealt = dealer.deal(work, command_key, request, secrets.token_bytes(SEED_BYTES), at)
            return work.outcome(work.table.commands[command_key].events, dealt)

        return self._run(table_id, None, DealTournament(str(key), number, at), deal)

    def _not_a_tournament_table(self, stream: TableStream) -> None:
        where = self.held.tournament_of(stream)
        if where is not None:
            raise TournamentTable(
                f"table {stream.id} is table {where[1]} of tournament {where[0]}: "
                "its director seats, moves and deals"
            )

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
        return self.play(table_id, hand, command_id, Act(seat, action, amount), at=at, seen=seen)

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
        return self.play(table_id, hand, command_id, Draw(seat, discards), at=at, seen=seen)

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
        return self.play(table_id, hand, command_id, Declare(seat, choice), at=at, seen=seen)

    def commit(
        self, table_id: UUID, hand: int, command_id: str, seat: int, commitment: str, *, at: int
    ) -> Outcome:
        """A seat commits to its contribution to the hand's deck
        (``feltline-deck-v2``): the SHA-256 of its 32 bytes, in hex."""
        return self.play(table_id, hand, command_id, Commit(seat, commitment), at=at)

    def reveal(
        self, table_id: UUID, hand: int, command_id: str, seat: int, contribution: bytes, *, at: int
    ) -> Outcome:
        """A seat reveals the 32 bytes it committed to."""
        return self.play(table_id, hand, command_id, Reveal(seat, contribution), at=at)

    def close_contributions(self, table_id: UUID, hand: int, *, at: int) -> Outcome:
        """The contribution window ran out (the clock's to say): the hand
        goes on without the seats that did not keep up. Filed under the
        hand's position, so a second close of the same window is a repeat."""
        stream = self.held.hand(self.table(table_id), hand)
        command_id = f"window-{stream.version}"
        return self.play(table_id, hand, command_id, CloseContributions(), at=at)

    def time_out(
        self, table_id: UUID, hand: int, command_id: str, seat: int, *, at: int
    ) -> Outcome:
        """Act for a player whose time is up: the table's action clock,
        counted from the hand's last event, must have run out by ``at``."""
        return self.play(table_id, hand, command_id, TimeOut(seat), at=at)

    def use_time_bank(self, table_id: UUID, hand: int, seat: int, *, at: int) -> Outcome:
        """Put the time bank of a player whose action clock is up on their
        clock (the clock's to say), at the hand's turn as stored: their
        time, counted from the hand's last event, must have run out by
        ``at``. Filed under that turn, so a second use of it is a repeat."""
        turn = self.held.hand(self.table(table_id), hand).version
        command_id = f"bank-{hand}-{turn}-{seat}"
        command = UseTimeBank(seat, turn)

        def use(work: Work, request: str) -> Outcome:
            table = work.table.table
            if table.dealt is None or table.hands != hand:
                raise NoHandInProgressError(f"hand {hand} is not being played")
            work.hand = self.held.hand(work.table, hand)
            if work.hand.version != turn or seat not in waiting_on(work.hand.hand):
                raise NotYourTurn(f"seat {seat} is not on the clock at turn {turn}")
            due = work.hand.since + table.clock_at(turn)
            if at < due:
                raise ClockRunning(f"seat {seat} has until {due} to act, and it is only {at}")
            events = work.at_table(command_id, command, request, hand=hand)
            return work.outcome(events, hand)

        return self._run(table_id, command_id, command, use)

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
        fresh = self.streams.account(account_id(player))
        self.held.remember_accounts({fresh.id: fresh})
        return fresh.balance

    def holdings(self, player: str) -> tuple[int, int]:
        """The chips the player holds off the tables (:meth:`balance`) and
        at them, as stored now."""
        self.look()
        balance = self.balance(player)
        at_tables = 0
        for key in self.tables():
            for seat in self.table(key).table.seats:
                if seat.player == player:
                    at_tables += seat.stack
        return balance, at_tables

    def has_account(self, player: str) -> bool:
        """Whether the player has an account: chips were once minted for it."""
        return self.streams.account(account_id(player)).version > 0

    # ---- invites

    def use_invite(self, token_id: str, role: str, player_id: str, *, at: int) -> bool:
        """Record the invite ``token_id`` as exchanged for a session, at
        ``at``: True for the first exchange, False if it was used already,
        here or at any server on this store (:mod:`feltline.domain.invite`)."""
        try:
            self.streams.commit([used(token_id, role, player_id, at=at)])
        except Conflict:
            return False
        return True

    # ---- reads

    def as_of(self, table_id: UUID) -> AsOf:
        """What a reading of the table made now is current as of
        (:data:`feltline.cardroom.held.AsOf`)."""
        return self.held.as_of(table_id)

    def look(self) -> None:
        """Ask the store whether anyone else wrote since the last look, so
        that the reads after it show what the store holds now. Requests look
        for themselves; a read that must not lag another process asks for
        ``fresh`` (one query: :meth:`Owners.look`)."""
        self.owners.look()

    def tables(self, *, fresh: bool = False) -> list[UUID]:
        """Every table in the store, in the order opened
        (:meth:`Owners.every`); with ``fresh``, after a look, so that the
        tables read next are as stored now."""
        if fresh:
            self.look()
        return self.owners.every()

    def served(self) -> list[UUID]:
        """The tables this process owns (:meth:`Owners.served`)."""
        return self.owners.served()

    def unreadable(self) -> int:
        """How many tables were found unreadable (each logged once, never served)."""
        return len(self.streams.reported)

    @property
    def public_key(self) -> str:
        """The key every record of this room is signed with, in hex."""
        return self.streams.signer.public_hex

    @property
    def signer(self) -> Signer:
        """The room's key, which its servers' bearer tokens are signed with
        too (a session's token given for an invite's)."""
        return self.streams.signer

    def vouch(self, link: bytes) -> str:
        """The room's signature (hex) of a chain's link: a receipt for every
        record the link covers (a seat's contribution to the deck)."""
        return self.signer.sign(link).hex()

    def others_wrote(self) -> int:
        """How many times another process was seen to store something
        (:mod:`feltline.store.elsewhere`): what was read at a lower count
        may be out of date."""
        return self.streams.elsewhere.epoch

    def rows(self, source: str) -> StoredRows:
        """The store's rows as ``feltline-replay`` reads them, the tables in
        the order opened: what the Replay service exports and verifies."""
        return StoredRows(self.streams, self.owners.every, source)

    def table_events(self, table_id: UUID, after: int = 0) -> list[tuple[TableRecord, Event]]:
        """The table's records after position ``after``, each with its event
        decoded, as a commit tells them (:class:`Committed`)."""
        out: list[tuple[TableRecord, Event]] = []
        with self.streams.reported.reading(table_id):
            for r in cast(list[TableRecord], self.streams.after(table_id, after)):
                out.append((r, decode_event(r.type, r.version, r.data, TABLE_EVENT_TYPES)))
        return out

    def tournament_events(self, key: UUID, after: int = 0) -> list[tuple[TournamentRecord, Event]]:
        """The tournament's records after position ``after``, each with its
        event decoded: what its watchers are sent."""
        out: list[tuple[TournamentRecord, Event]] = []
        with self.streams.reported.reading(key):
            for r in cast(list[TournamentRecord], self.streams.after(key, after)):
                out.append((r, decode_event(r.type, r.version, r.data, TOURNAMENT_EVENT_TYPES)))
        return out

    def hand_events(
        self, table_id: UUID, number: int, after: int = 0
    ) -> list[tuple[StoredHandEvent, Event | None]]:
        """Hand ``number``'s records after position ``after``, each with its
        event decoded (None for its seal), as a commit tells them."""
        out: list[tuple[StoredHandEvent, Event | None]] = []
        with self.streams.reported.reading(table_id, f"hand {number}: "):
            stored = self.streams.after(hand_id(table_id, number), after)
            for r in cast(list[Recorded | Sealed], stored):
                if isinstance(r, Sealed):
                    out.append((r, None))
                else:
                    out.append((r, decode_event(r.type, r.version, r.data)))
        return out

    def revealed(self, table_id: UUID) -> int | None:
        """How many deals the match of this table has revealed; None at a
        table of no match."""
        place = self.match_of(table_id)
        if place is None:
            return None
        return len(self.match(place[0]).match.revealed)

    def unrevealed(self, table_id: UUID, deal: int) -> bool:
        """Whether hand ``deal`` of a match's table is a deal the match has
        not revealed yet (never, at a table of no match)."""
        revealed = self.revealed(table_id)
        return revealed is not None and revealed < deal

    def table(self, table_id: UUID, *, fresh: bool = False) -> TableStream:
        """The table as of the last look, or with ``fresh``, as stored now."""
        if fresh:
            self.look()
        with self.held.lock(table_id):
            stream = self.held.table(table_id)
        if stream.version == 0:
            raise NotFound(f"there is no table {table_id}")
        return stream

    def hand(self, table_id: UUID, number: int) -> HandStream:
        return self.held.hand(self.table(table_id), number)

    def account(self, key: UUID) -> Account:
        return self.held.account(key)

    def _at_table(self, table_id: UUID, command_id: str, command: TableCommand) -> Outcome:
        def run(work: Work, request: str) -> Outcome:
            self._not_a_match_table(work.table)
            self._not_a_tournament_table(work.table)
            return work.outcome(work.at_table(command_id, command, request))

        return self._run(table_id, command_id, command, run)

    def play(
        self,
        table_id: UUID,
        number: int,
        command_id: str,
        command: Move,
        *,
        at: int,
        seen: int | None = None,
    ) -> Outcome:
        """Play ``command`` in hand ``number`` (:meth:`act`, :meth:`draw`,
        :meth:`declare` and :meth:`time_out` build it; a request that already
        holds one passes it as it is)."""
        check_command_id(command_id)
        table_key = f"hand/{number}/{command_id}"

        def play(work: Work, request: str) -> Outcome:
            table = work.table.table
            current = table.hands if table.dealt is not None else 0
            if seen is not None and not 1 <= number <= table.hands:
                raise self._stale(work.table, current, number, seen)
            work.hand = self.held.hand(work.table, number)
            repeated = work.hand.repeat(command_id, command)
            if repeated is not None:
                done = work.table.commands.get(table_key)
                return Outcome(done.events if done else (), repeated, number, repeated=True)
            if seen is not None and not (
                number == current and current_to(work.hand, command, seen)
            ):
                raise self._stale(work.table, current, number, seen)
            if isinstance(command, TimeOut):
                due = work.hand.since + work.table.table.clock_at(work.hand.version)
                if at < due:
                    raise ClockRunning(
                        f"seat {command.seat} has until {due} to act, and it is only {at}"
                    )
            work.at_hand(command_id, command, request, at)
            dealer.follow(work, table_key, command_id, request, at)
            done_here = work.table.commands.get(table_key)
            return work.outcome(done_here.events if done_here else (), number)

        return self._run(table_id, None, command, play)

    def _stale(self, stream: TableStream, current: int, number: int, seen: int) -> Stale:
        sequence = self.held.hand(stream, current).version if current else 0
        return Stale(current, sequence, number, seen)

    def _run(
        self,
        table_id: UUID,
        command_id: str | None,
        command: object,
        body: Callable[[Work, str], Outcome],
    ) -> Outcome:
        """Run ``body`` against the table, committing what it decided, again
        after a conflict; a repeated table request is answered from the table."""
        request = fingerprint(command)
        with self.held.lock(table_id):
            looked = False
            for attempt in range(self.retries):
                _back_off(attempt)
                # Another writer shares the store, and may have written here.
                if self.streams.elsewhere.epoch and not self.held.as_of(table_id)[0]:
                    self.look()
                    looked = True
                with ExitStack() as lent:  # the other tables' locks a move took (Work)
                    try:
                        stream = self.held.table(table_id)
                        if command_id is not None:
                            check_command_id(command_id)
                            done = stream.repeat(command_id, request)
                            if done is not None:
                                hand_events: tuple[Event, ...] = ()
                                if done.hand:
                                    hand_events = self.held.hand(stream, done.hand).commands.get(
                                        f"table/{command_id}", ("", ())
                                    )[1]
                                return Outcome(done.events, hand_events, done.hand, repeated=True)
                        if stream.version == 0 and not isinstance(command, OpenTable):
                            raise NotFound(f"there is no table {table_id}")
                        # A repeat and a refusal to find the table stand anywhere;
                        # a decision only at the table's owner (else OwnedElsewhere),
                        # a tournament's with the tournament (Owners.tournament).
                        self.held.tournament_of(stream)
                        if self.owners.serve(table_id):  # just taken: as stored now
                            stream = self.held.table(table_id)
                        work = Work(self.held, stream, lent)
                        outcome = body(work, request)
                    except RuleError:  # a refusal stands only on what the store holds now
                        if looked or not self.held.behind(table_id):
                            raise
                        looked = True
                        continue
                    tables = [table_id, *work.others]
                    try:
                        for other in work.others:  # a tournament's, that a move touched
                            self.owners.serve(other)
                        stored = self.streams.commit(work.records, tables=tables)
                    except Conflict:  # another writer got there first: catch up, decide again
                        self.held.outdated(table_id)
                        self.held.forget_accounts(work.accounts)
                        work.put_back(False)
                        continue
                    except Fenced:  # the lease is gone: nothing stored; whose is the table now?
                        self.owners.lost(table_id)
                        self.held.forget(table_id, work.accounts)
                        work.put_back(None)
                        continue
                    except Exception:
                        self.held.forget(table_id, work.accounts)  # stored or not, nobody knows
                        work.put_back(None)
                        raise
                    self.held.keep(work.table, work.hand, work.accounts)
                    work.put_back(True)
                self._tell(work, stored, tables, outcome.number)
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
                self.streams.commit([event])
            except Conflict:
                self.held.forget_accounts({key: owned})
                continue
            except Exception:
                self.held.forget_accounts({key: owned})  # stored or not, nobody knows
                raise
            after = owned.apply(event)
            self.held.remember_accounts({key: after})
            return after.balance
        raise Conflict(f"the account of {player} kept changing under this request; try again")


def _back_off(attempt: int) -> None:
    """Wait a random while before a retry, longer after each conflict."""
    if attempt:
        time.sleep(random.uniform(0, BACKOFF * attempt))  # jitter, not a secret


def current_to(hand: HandStream, move: Move, seen: int) -> bool:
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
