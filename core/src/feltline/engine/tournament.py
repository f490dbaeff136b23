"""A tournament as a decider: its set-up, entries, seats, levels, moves,
places and prizes (docs/rules.md, "Tournaments").

Every decision the tournament director makes is an event here, which a
verifier re-checks without the server: the seat draws against the seed
committed when the tournament was created (revealed when it ends), every
level change, every move, every place and every prize. The hands
themselves are the tables' own; the tournament records when each table
begins one (at which level) and the stacks it ends with.

:class:`Tournament` is the state and decides: each method returns the
events a request causes or refuses it with a :class:`RuleError`, changing
nothing; :func:`evolve` folds an event in. The director's rules are
:mod:`feltline.engine.director`; the stream that stores the events is the
server's (``feltline.domain.tournament``), their codec
:data:`feltline.audit.codec.TOURNAMENT_EVENT_TYPES`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import reduce

from feltline.engine import director
from feltline.engine.cards.deck import SEED_BYTES, commitment
from feltline.engine.director import Felt, Move, Seated, with_item, without
from feltline.engine.errors import ConfigError, Kind, RuleError
from feltline.engine.hand.events import NOBODY, Event
from feltline.engine.hand.stakes import Stakes
from feltline.engine.table.button import ante_lineup, blind_lineup
from feltline.engine.table.house import TableConfig

MAX_ENTRANTS = 10_000
MAX_LEVELS = 100


class RegistrationError(RuleError):
    """Registering twice, when full, closed or cancelled; unregistering
    someone not registered, or after the start."""

    kind = Kind.PRECONDITION


class NotRunning(RuleError):
    """Not before the start, nor after the end or a cancellation."""

    kind = Kind.PRECONDITION


class WaitingToDeal(RuleError):
    """A table may not begin a hand now: a break, hand-for-hand play, too
    few players, a hand already being played or a level to change first."""

    kind = Kind.PRECONDITION


class HandResultError(RuleError):
    """A hand's result that does not fit the hand the table began."""


class RerunError(Exception):
    """A stored tournament whose events are not what its rules decide."""


# ---- set-up


class Start(StrEnum):
    SIT_AND_GO = "sit-and-go"  # starts when every place is taken
    SCHEDULED = "scheduled"  # starts at a time, any number of tables


@dataclass(frozen=True, slots=True)
class Level:
    """A level's stakes (blinds, antes, bring-in, bets) for ``minutes`` or
    for ``hands`` (one of them); without stakes, a break of ``minutes``."""

    stakes: Stakes | None
    minutes: int = 0
    hands: int = 0


@dataclass(frozen=True, slots=True)
class Band:
    """The prizes when at most ``entrants`` enter: each paid place's share
    of the pool in basis points, first place first."""

    entrants: int
    shares: tuple[int, ...]


# ---- events


@dataclass(frozen=True, slots=True)
class TournamentCreated(Event):
    """``config`` is every table's (its stakes are the first level's);
    ``buy_in`` goes to the pool and ``fee`` to the house, in account chips;
    ``stack`` is the starting stack in tournament chips. A sit-and-go
    starts when ``entrants`` have registered; a scheduled tournament at
    ``starts_at`` with ``minimum`` to ``entrants`` players. Registration
    stays open until the end of level ``late_until`` (0: the start).
    ``commitment`` is the SHA-256 of the seed every seat draw reads."""

    name: str
    config: TableConfig
    levels: tuple[Level, ...]
    buy_in: int
    fee: int
    stack: int
    payouts: tuple[Band, ...]
    start: Start
    starts_at: int
    entrants: int
    minimum: int
    late_until: int
    commitment: str
    by: str
    at: int


@dataclass(frozen=True, slots=True)
class SeedDrawn(Event):
    """The seed of the seat draws: nobody sees it until the tournament ends."""

    seed: bytes

    def audience(self) -> frozenset[int] | None:
        return NOBODY

    def redacted(self) -> Event:
        return replace(self, seed=b"")


@dataclass(frozen=True, slots=True)
class Registered(Event):
    player: str
    at: int


@dataclass(frozen=True, slots=True)
class Unregistered(Event):
    player: str
    at: int


@dataclass(frozen=True, slots=True)
class Started(Event):
    """Level 1 begins ``at``."""

    at: int


@dataclass(frozen=True, slots=True)
class Chair:
    player: str
    table: int
    seat: int


@dataclass(frozen=True, slots=True)
class SeatsDrawn(Event):
    """Seats drawn by draw ``draw`` of the seed, each with ``stack`` chips:
    everyone's at the start, one late registrant's after it."""

    draw: int
    chairs: tuple[Chair, ...]
    stack: int


@dataclass(frozen=True, slots=True)
class LevelChanged(Event):
    """Level ``level`` began ``at``; it applies from each table's next hand."""

    level: int
    at: int


@dataclass(frozen=True, slots=True)
class RegistrationClosed(Event):
    """Nobody more may enter: ``pool`` is paid out by ``shares``."""

    at: int
    entrants: int
    pool: int
    shares: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandBegun(Event):
    """Table ``table`` deals its hand ``hand`` at level ``level``."""

    table: int
    hand: int
    level: int
    button: int
    big_blind: int | None
    at: int


@dataclass(frozen=True, slots=True)
class HandPlayed(Event):
    """The stacks, by seat, the table's hand ended with, ``at``."""

    table: int
    hand: int
    stacks: tuple[tuple[int, int], ...]
    at: int


@dataclass(frozen=True, slots=True)
class Eliminated(Event):
    """``player`` lost every chip in hand ``hand``, which they began with
    ``stack``; ``round`` is its hand-for-hand round (0 outside one)."""

    player: str
    table: int
    seat: int
    hand: int
    stack: int
    round: int


@dataclass(frozen=True, slots=True)
class Placed(Event):
    """``players`` finish in the places from ``place`` on, sharing them."""

    place: int
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Paid(Event):
    """A prize, in account chips, out of the pool."""

    player: str
    place: int
    amount: int


@dataclass(frozen=True, slots=True)
class PlayerMoved(Event):
    """A move to balance or break tables, with the player's stack; the
    player is dealt in at once and posts the new table's big blind after
    ``big_blind_in`` hands (the director's reckoning; -1 without blinds)."""

    player: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    stack: int
    big_blind_in: int


@dataclass(frozen=True, slots=True)
class TableBroken(Event):
    """Table ``table`` breaks: draw ``draw`` orders its players and draws
    ``draw + 1`` on seat them, one each, in the moves that follow."""

    table: int
    draw: int


@dataclass(frozen=True, slots=True)
class HandForHandBegun(Event):
    players: int


@dataclass(frozen=True, slots=True)
class RoundPlayed(Event):
    """Every table has ended hand-for-hand round ``round``."""

    round: int


@dataclass(frozen=True, slots=True)
class HandForHandEnded(Event):
    players: int


@dataclass(frozen=True, slots=True)
class Finished(Event):
    winner: str
    at: int


@dataclass(frozen=True, slots=True)
class Refund:
    player: str
    amount: int


@dataclass(frozen=True, slots=True)
class Cancelled(Event):
    """The tournament stops; ``refunds`` are in account chips."""

    at: int
    reason: str
    refunds: tuple[Refund, ...]


@dataclass(frozen=True, slots=True)
class SeedRevealed(Event):
    """The seat draws' seed, once no draw is left to make."""

    seed: bytes


# ---- the state


@dataclass(frozen=True)
class Tournament:
    """``registered`` in the order they registered (odd chips of a shared
    prize go in this order); ``eliminated`` counts the players out,
    ``unplaced`` are the eliminations not yet placed, in order, and
    ``placed`` the places of those placed so far; ``big_blinds`` those
    whose last hand dealt them the big blind. ``by_players`` indexes the
    tables by their number of players (:func:`director.counted`), so that a
    hand's end finds the tables to break and balance without looking at
    every table. ``opened`` is the highest table number the tournament ever
    had: a new table is numbered past it, never a broken table's number
    (its id, the tournament's and the number, would name that table's
    hands). ``seed`` is the secret."""

    created: TournamentCreated | None = None
    seed: bytes = b""
    registered: tuple[str, ...] = ()
    started_at: int | None = None
    level: int = 0
    level_at: int = 0
    level_hands: Mapping[int, int] = field(default_factory=dict)
    closed: RegistrationClosed | None = None
    tables: Mapping[int, Felt] = field(default_factory=dict)
    by_players: tuple[frozenset[int], ...] = ()
    draws: int = 0
    opened: int = 0
    moves: Mapping[str, int] = field(default_factory=dict)
    big_blinds: frozenset[str] = frozenset()
    eliminated: int = 0
    unplaced: tuple[Eliminated, ...] = ()
    placed: Mapping[str, int] = field(default_factory=dict)
    paid: Mapping[str, int] = field(default_factory=dict)
    hand_for_hand: bool = False
    round: int = 0
    finished: Finished | None = None
    cancelled: Cancelled | None = None
    revealed: bytes = b""

    @property
    def setup(self) -> TournamentCreated:
        if self.created is None:
            raise RuleError("the tournament has not been created")
        return self.created

    @property
    def over(self) -> bool:
        return self.finished is not None or self.cancelled is not None

    @property
    def running(self) -> bool:
        return self.started_at is not None and not self.over

    @property
    def players_left(self) -> int:
        return len(self.registered) - self.eliminated if self.started_at is not None else 0

    @property
    def chips(self) -> int:
        """Tournament chips at the tables."""
        return sum(t.chips for t in self.tables.values())

    @property
    def pool(self) -> int:
        """The buy-ins taken, which the prizes and refunds are shared from."""
        return len(self.registered) * self.setup.buy_in

    @property
    def prize_pool(self) -> int:
        """What the prize pool holds or paid as prizes, as players see it:
        the buy-ins, except that a cancellation's refunds took back all
        but the prizes paid before it."""
        return sum(self.paid.values()) if self.cancelled is not None else self.pool

    @property
    def fees(self) -> int:
        return len(self.registered) * self.setup.fee

    @property
    def blinds(self) -> bool:
        return self.setup.config.rules.variant.blinds

    @property
    def size(self) -> int:
        return self.setup.config.seats

    @property
    def places_paid(self) -> int:
        return len(self.closed.shares) if self.closed is not None else 0

    def stakes(self, level: int) -> Stakes | None:
        """Level ``level``'s stakes (the last level's carry on), None on a break."""
        levels = self.setup.levels
        return levels[min(level, len(levels)) - 1].stakes

    # ---- decisions

    @staticmethod
    def create(
        name: str,
        config: TableConfig,
        levels: tuple[Level, ...],
        *,
        buy_in: int,
        fee: int,
        stack: int,
        payouts: tuple[Band, ...],
        start: Start,
        entrants: int,
        minimum: int = 0,
        starts_at: int = 0,
        late_until: int = 0,
        seed: bytes,
        by: str,
        at: int,
    ) -> list[Event]:
        """A new tournament's events; :class:`ConfigError` if nobody could
        play it. A sit-and-go's ``minimum`` is its ``entrants``."""
        config = config.validate()
        rules = config.rules
        if rules.fixed_seats or rules.rake is not None or config.time_charge is not None:
            raise ConfigError("a tournament table deals from the top, with no rake or time charge")
        if config.rotation is not None:
            raise ConfigError("a tournament deals one game: its levels' stakes are that game's")
        _check_levels(config, levels)
        if buy_in < 0 or fee < 0:
            raise ConfigError("the buy-in and the fee cannot be negative")
        if stack < 1:
            raise ConfigError(f"the starting stack is at least 1 chip, not {stack}")
        if not 2 <= entrants <= MAX_ENTRANTS:
            raise ConfigError(f"a tournament has 2 to {MAX_ENTRANTS} entrants, not {entrants}")
        if start is Start.SIT_AND_GO:
            if starts_at or late_until:
                raise ConfigError("a sit-and-go starts when it fills: no start time, no late entry")
            minimum = entrants
        else:
            if starts_at < at:
                raise ConfigError("a scheduled tournament starts after it is created")
            if not 2 <= minimum <= entrants:
                raise ConfigError(f"the minimum to start is 2 to {entrants}, not {minimum}")
            if not 0 <= late_until < len(levels):
                raise ConfigError(
                    f"late registration ends with one of levels 0 to {len(levels) - 1}, "
                    f"not {late_until}"
                )
        _check_payouts(payouts, minimum, entrants)
        if len(seed) != SEED_BYTES:
            raise ConfigError(f"the seat draws' seed is exactly {SEED_BYTES} bytes")
        created = TournamentCreated(
            name,
            config,
            levels,
            buy_in,
            fee,
            stack,
            payouts,
            start,
            starts_at,
            entrants,
            minimum,
            late_until,
            commitment(seed),
            by,
            at,
        )
        return [created, SeedDrawn(seed)]

    def register(self, player: str, at: int) -> list[Event]:
        """An entry: before the start, a place on the list (a sit-and-go
        starts when the last is taken); during late registration, a seat
        drawn at once at a table with the fewest players."""
        setup = self.setup
        if self.over:
            raise RegistrationError("the tournament is over")
        if player in self.registered:
            raise RegistrationError(f"{player} is registered already")
        if len(self.registered) >= setup.entrants:
            raise RegistrationError(f"the tournament is full at {setup.entrants} entrants")
        registered = Registered(player, at)
        if self.started_at is None:
            after = self.then([registered])
            if setup.start is Start.SIT_AND_GO and len(after.registered) == setup.entrants:
                return [registered, *after._starting(at)]
            return [registered]
        if self.closed is not None:
            raise RegistrationError("registration has closed")
        shortest = director.shortest(self.by_players, self.size)
        tables = [self.tables[n] for n in sorted(shortest)]
        if not tables:
            tables = [Felt(self.opened + 1)]
        chairs = [c for t in tables for c in director.empty_chairs(t, self.size, blinds=False)]
        chair = director.drawn_seat(self.seed, self.draws, chairs)
        assert chair is not None
        drawn = SeatsDrawn(self.draws, (Chair(player, *chair),), setup.stack)
        return [registered, drawn]

    def unregister(self, player: str, at: int) -> list[Event]:
        if self.started_at is not None or self.over:
            raise RegistrationError("entries are withdrawn only before the start")
        if player not in self.registered:
            raise RegistrationError(f"{player} is not registered")
        return [Unregistered(player, at)]

    def start(self, at: int) -> list[Event]:
        """A scheduled tournament at its time: seats drawn, or cancelled
        with refunds if too few registered."""
        setup = self.setup
        if setup.start is not Start.SCHEDULED:
            raise NotRunning("a sit-and-go starts when it fills")
        if self.started_at is not None or self.over:
            raise NotRunning("the tournament has started already")
        if at < setup.starts_at:
            raise NotRunning(f"the tournament starts at {setup.starts_at}, not {at}")
        if len(self.registered) < setup.minimum:
            return self.cancel(at, f"{len(self.registered)} registered of {setup.minimum} needed")
        return self._starting(at)

    def _starting(self, at: int) -> list[Event]:
        setup = self.setup
        chairs = director.first_seating(self.seed, self.draws, self.registered, self.size)
        events: list[Event] = [
            Started(at),
            SeatsDrawn(self.draws, tuple(Chair(*c) for c in chairs), setup.stack),
        ]
        if setup.late_until == 0:
            events.append(self.then(events)._closing(at))
        return events

    def tick(self, at: int) -> list[Event]:
        """The clock: each level that has run its time (or its hands at the
        busiest table) gives way to the next, dated when it was due, so a
        clock stopped for a while catches up where it was. Registration
        closes as the level after ``late_until`` begins."""
        if not self.running:
            raise NotRunning("the tournament is not running")
        events: list[Event] = []
        state = self
        while state.level < len(self.setup.levels):
            level = self.setup.levels[state.level - 1]
            due = state.level_at + level.minutes * 60
            if level.minutes and at >= due:
                changed = LevelChanged(state.level + 1, due)
            elif level.hands and max(state.level_hands.values(), default=0) >= level.hands:
                changed = LevelChanged(state.level + 1, at)
            else:
                break
            events.append(changed)
            state = state.then([changed])
            if state.closed is None and state.level == self.setup.late_until + 1:
                closing = state._closing(changed.at)
                events.append(closing)
                state = state.then([closing])
                more = state._settle(changed.at)
                events += more
                state = state.then(more)
                if state.over:
                    break
        return events

    def _closing(self, at: int) -> RegistrationClosed:
        entrants = len(self.registered)
        band = next(b for b in self.setup.payouts if b.entrants >= entrants)
        return RegistrationClosed(at, entrants, entrants * self.setup.buy_in, band.shares)

    def begin_hand(self, table: int, at: int) -> list[Event]:
        """Table ``table`` may deal its next hand now, at the current level."""
        if not self.running:
            raise NotRunning("the tournament is not running")
        felt = self._table(table)
        if felt.playing:
            raise WaitingToDeal(f"table {table} is playing hand {felt.hands}")
        if felt.players < 2:
            raise WaitingToDeal(f"table {table} waits for players: it has {felt.players}")
        if self.stakes(self.level) is None:
            raise WaitingToDeal(f"level {self.level} is a break")
        level = self.setup.levels[self.level - 1]
        hands = max(self.level_hands.values(), default=0)
        if level.hands and self.level < len(self.setup.levels) and hands >= level.hands:
            raise WaitingToDeal(f"level {self.level} has played its {level.hands} hands")
        if director.to_break(self.tables, self.by_players, self.size) == table:
            raise WaitingToDeal(f"table {table} is breaking")
        if self.hand_for_hand:
            if felt.round >= self.round:
                raise WaitingToDeal(
                    f"hand for hand: table {table} waits for the others to end round {self.round}"
                )
            behind = [t.number for t in self.tables.values() if t.playing and t.round < self.round]
            if behind:
                raise WaitingToDeal(f"hand for hand: tables {behind} are ending their hands")
        if self.blinds:
            lineup = blind_lineup(felt.seats, (), (), felt.button, felt.big_blind)
        else:
            lineup = ante_lineup(felt.seats, felt.button)
        return [HandBegun(table, felt.hands + 1, self.level, lineup.button, lineup.big_blind, at)]

    def end_hand(self, table: int, hand: int, stacks: Mapping[int, int], at: int) -> list[Event]:
        """A table ended its hand with these stacks: who is out and where
        they finish, what they are paid, then the tables broken and
        balanced, and hand-for-hand play begun or ended."""
        if not self.running:
            raise NotRunning("the tournament is not running")
        felt = self._table(table)
        if felt.dealt is None or felt.hands != hand:
            raise HandResultError(f"table {table} is not playing hand {hand}")
        if sorted(stacks) != sorted(felt.dealt):
            raise HandResultError(
                f"the result gives the stacks of seats {sorted(stacks)}, "
                f"not of those dealt in {sorted(felt.dealt)}"
            )
        if any(s < 0 for s in stacks.values()):
            raise HandResultError("a stack cannot be negative")
        went_in = sum(felt.seats[s].stack for s in felt.dealt)
        if sum(stacks.values()) != went_in:
            raise HandResultError(
                f"the result does not add up: {went_in} chips were in play, "
                f"not {sum(stacks.values())}"
            )
        events: list[Event] = [HandPlayed(table, hand, tuple(sorted(stacks.items())), at)]
        for seat in sorted(s for s, chips in stacks.items() if chips == 0):
            start = felt.seats[seat]
            events.append(Eliminated(start.player, table, seat, hand, start.stack, felt.round))
        state = self.then(events)
        more = state._settle(at)
        return [*events, *more]

    def _settle(self, at: int) -> list[Event]:
        """What follows a hand or the close of registration: the round
        ended, places and prizes, the end, tables broken and balanced,
        hand-for-hand begun or ended."""
        events: list[Event] = []
        state = self

        def add(new: Sequence[Event]) -> None:
            nonlocal state
            events.extend(new)
            state = state.then(new)

        while True:
            before = len(events)
            if state.hand_for_hand and state._round_over():
                add([RoundPlayed(state.round)])
            add(state._placings())
            round_out = any(e.round for e in state.unplaced)
            if state.hand_for_hand and state.players_left <= state.places_paid and not round_out:
                add([HandForHandEnded(state.players_left)])
            if state.players_left == 1:
                if state.closed is None:
                    add([state._closing(at)])
                    add(state._placings())
                (last,) = [s.player for t in state.tables.values() for s in t.seats.values()]
                add(state._placed(1, [(last, 0)]))
                add([Finished(last, at), SeedRevealed(state.seed)])
                return events
            add(state._breaking())
            if director.unbalanced(state.by_players, state.size):
                broken = director.to_break(state.tables, state.by_players, state.size)
                most = max(
                    n for n, numbers in enumerate(state.by_players) if not numbers <= {broken}
                )
                for number in sorted(state.by_players[most]):
                    felt = state.tables[number]
                    if felt.players == most and not felt.playing:
                        add(state._balancing(number))
            if (
                not state.hand_for_hand
                and state.closed is not None
                and director.at_the_bubble(state.players_left, state.places_paid, len(state.tables))
            ):
                add([HandForHandBegun(state.players_left)])
            if len(events) == before:
                return events

    def _round_over(self) -> bool:
        return not any(t.playing for t in self.tables.values()) and all(
            t.round >= self.round for t in self.tables.values() if t.players >= 2
        )

    def _placings(self) -> list[Event]:
        """Places and prizes of the eliminations that can be placed: every
        hand's at once, a hand-for-hand round's once it is over, none while
        registration is open (the number of entrants is not known)."""
        if self.closed is None:
            return []
        events: list[Event] = []
        left = len(self.registered) - len(self.placed)
        pending = list(self.unplaced)
        while pending:
            first = pending[0]
            if first.round:
                if first.round >= self.round:
                    break
                group = [e for e in pending if e.round == first.round]
            else:
                group = [
                    e for e in pending if (e.table, e.hand, e.round) == (first.table, first.hand, 0)
                ]
            pending = [e for e in pending if e not in group]
            events += self._placed(left, [(e.player, e.stack) for e in group])
            left -= len(group)
        return events

    def _placed(self, left: int, out: Sequence[tuple[str, int]]) -> list[Event]:
        closed = self.closed
        assert closed is not None
        prize_list = director.prizes(closed.pool, closed.shares)
        events: list[Event] = []
        for place, tied in director.placings(out, left):
            players = tuple(sorted(tied, key=self.registered.index)) if len(tied) > 1 else tied
            events.append(Placed(place, players))
            for player, amount in zip(
                players, director.shared(prize_list, place, players), strict=True
            ):
                if amount:
                    events.append(Paid(player, place, amount))
        return events

    def _breaking(self) -> list[Event]:
        broken = director.to_break(self.tables, self.by_players, self.size)
        if broken is None or self.tables[broken].playing:
            return []
        moves = director.break_table(
            self.seed,
            self.draws,
            self.tables,
            self.by_players,
            broken,
            size=self.size,
            blinds=self.blinds,
            posted=self.big_blinds,
        )
        return [TableBroken(broken, self.draws), *(_moved(m) for m in moves)]

    def _balancing(self, table: int) -> list[Event]:
        if table not in self.tables:
            return []
        broken = director.to_break(self.tables, self.by_players, self.size)
        moves = director.balance(
            self.tables,
            self.by_players,
            table,
            size=self.size,
            blinds=self.blinds,
            moves=self.moves,
            posted=self.big_blinds,
            barred=[] if broken is None else [broken],
        )
        return [_moved(m) for m in moves]

    def cancel(self, at: int, reason: str) -> list[Event]:
        """Stop the tournament. Before the start every entrant gets back the
        buy-in and the fee. After it the house keeps the fees, and the pool
        not yet paid out goes to the players still in, in proportion to
        their chips (rounded down; odd chips one each to the largest stacks,
        ties in registration order)."""
        if self.over:
            raise NotRunning("the tournament is over")
        setup = self.setup
        if self.started_at is None:
            refunds = tuple(Refund(p, setup.buy_in + setup.fee) for p in self.registered)
        else:
            left = self.pool - sum(self.paid.values())
            chips = self.chips
            stacks = [(s.player, s.stack) for t in self.tables.values() for s in t.seats.values()]
            order = {p: i for i, p in enumerate(self.registered)}
            stacks.sort(key=lambda ps: (-ps[1], order[ps[0]]))
            amounts = [left * stack // chips for _, stack in stacks]
            for i in range(left - sum(amounts)):
                amounts[i] += 1
            refunds = tuple(Refund(p, a) for (p, _), a in zip(stacks, amounts, strict=True) if a)
        return [Cancelled(at, reason, refunds), SeedRevealed(self.seed)]

    # ---- helpers

    def then(self, events: Iterable[Event]) -> Tournament:
        """The state after ``events``."""
        return reduce(evolve, events, self)

    def _table(self, number: int) -> Felt:
        felt = self.tables.get(number)
        if felt is None:
            raise WaitingToDeal(f"the tournament has no table {number} in play")
        return felt


def _moved(move: Move) -> PlayerMoved:
    return PlayerMoved(move.player, *move.origin, *move.to, move.stack, move.big_blind_in)


def _check_levels(config: TableConfig, levels: tuple[Level, ...]) -> None:
    if not 1 <= len(levels) <= MAX_LEVELS:
        raise ConfigError(f"a tournament has 1 to {MAX_LEVELS} levels, not {len(levels)}")
    if levels[0].stakes is None or levels[-1].stakes is None:
        raise ConfigError("the first and the last level are played, not breaks")
    for n, level in enumerate(levels, 1):
        if level.minutes < 0 or level.hands < 0:
            raise ConfigError(f"level {n} cannot last a negative time")
        if level.stakes is None:
            if level.minutes < 1 or level.hands:
                raise ConfigError(f"break {n} lasts a number of minutes")
            continue
        if (level.minutes > 0) == (level.hands > 0):
            raise ConfigError(f"level {n} lasts either a number of minutes or of hands")
        if level.stakes.structure is not config.rules.stakes.structure:
            raise ConfigError(
                f"level {n} is {level.stakes.structure}, the tournament "
                f"{config.rules.stakes.structure}"
            )
        try:
            replace(config.rules, stakes=level.stakes).validate()
        except ConfigError as e:
            raise ConfigError(f"level {n}: {e}") from None
    if config.rules.stakes != levels[0].stakes:
        raise ConfigError("the tables' stakes are the first level's")


def _check_payouts(payouts: tuple[Band, ...], minimum: int, entrants: int) -> None:
    if not payouts:
        raise ConfigError("a tournament pays at least one place")
    low = minimum
    for band in payouts:
        if band.entrants < low:
            raise ConfigError(
                f"the payout bands go up by entrants from {minimum}: {band.entrants} comes "
                f"after {low - 1}"
            )
        shares = band.shares
        if not shares or any(s <= 0 for s in shares) or sum(shares) != director.BASIS_POINTS:
            raise ConfigError("a band's shares are positive and add up to 10,000 basis points")
        if list(shares) != sorted(shares, reverse=True):
            raise ConfigError("a higher place is never paid less than a lower one")
        if len(shares) >= low:
            raise ConfigError(
                f"with {low} entrants at most {low - 1} places are paid, not {len(shares)}"
            )
        low = band.entrants + 1
    if payouts[-1].entrants < entrants:
        raise ConfigError(f"the payout bands stop at {payouts[-1].entrants}, not {entrants}")


# ---- evolve


def evolve(state: Tournament, event: Event) -> Tournament:
    match event:
        case TournamentCreated(config=config):
            by_players = tuple(frozenset[int]() for _ in range(config.seats + 1))
            return replace(state, created=event, by_players=by_players)
        case SeedDrawn(seed=seed):
            return replace(state, seed=seed)
        case Registered(player=player):
            return replace(state, registered=(*state.registered, player))
        case Unregistered(player=player):
            return replace(state, registered=tuple(p for p in state.registered if p != player))
        case Started(at=at):
            return replace(state, started_at=at, level=1, level_at=at)
        case SeatsDrawn(draw=number, chairs=chairs, stack=stack):
            tables = dict(state.tables)
            by_players = state.by_players
            for c in chairs:
                felt = tables.get(c.table)
                before = None if felt is None else felt.players
                felt = felt or Felt(c.table)
                seats = with_item(felt.seats, c.seat, Seated(c.player, stack))
                tables[c.table] = replace(felt, seats=seats)
                by_players = director.counted(by_players, c.table, before, len(seats))
            opened = max([state.opened, *(c.table for c in chairs)])
            return replace(
                state, tables=tables, by_players=by_players, draws=number + 1, opened=opened
            )
        case LevelChanged(level=level, at=at):
            return replace(state, level=level, level_at=at, level_hands={})
        case RegistrationClosed():
            return replace(state, closed=event)
        case HandBegun(table=table, hand=hand, button=button, big_blind=big):
            felt = state.tables[table]
            felt = replace(
                felt,
                button=button,
                big_blind=big,
                dealt=tuple(sorted(felt.seats)),
                hands=hand,
                round=state.round if state.hand_for_hand else 0,
            )
            hands = state.level_hands.get(table, 0) + 1
            dealt = {s.player for s in felt.seats.values()}
            posting = {felt.seats[big].player} if big is not None else set()
            return replace(
                state,
                big_blinds=(state.big_blinds - dealt) | posting,
                tables=with_item(state.tables, table, felt),
                level_hands=with_item(state.level_hands, table, hands),
            )
        case HandPlayed(table=table, stacks=stacks):
            felt = state.tables[table]
            ended = dict(stacks)
            seats = {
                n: replace(s, stack=ended[n]) if n in ended else s for n, s in felt.seats.items()
            }
            return replace(
                state, tables=with_item(state.tables, table, replace(felt, seats=seats, dealt=None))
            )
        case Eliminated(table=table, seat=seat):
            felt = state.tables[table]
            by_players = director.counted(state.by_players, table, felt.players, felt.players - 1)
            return replace(
                state,
                tables=with_item(state.tables, table, director.vacated(felt, seat)),
                by_players=by_players,
                eliminated=state.eliminated + 1,
                unplaced=(*state.unplaced, event),
            )
        case Placed(place=place, players=players):
            placed = {**state.placed, **dict.fromkeys(players, place)}
            unplaced = tuple(e for e in state.unplaced if e.player not in players)
            return replace(state, placed=placed, unplaced=unplaced)
        case Paid(player=player, amount=amount):
            paid = with_item(state.paid, player, state.paid.get(player, 0) + amount)
            return replace(state, paid=paid)
        case PlayerMoved():
            return _evolve_move(state, event)
        case TableBroken(table=table, draw=number):
            return replace(state, draws=number + 1 + state.tables[table].players)
        case HandForHandBegun():
            tables = {n: replace(t, round=0) for n, t in state.tables.items()}
            return replace(state, hand_for_hand=True, round=1, tables=tables)
        case RoundPlayed(round=number):
            return replace(state, round=number + 1)
        case HandForHandEnded():
            return replace(state, hand_for_hand=False)
        case Finished():
            return replace(state, finished=event)
        case Cancelled():
            return replace(state, cancelled=event)
        case SeedRevealed(seed=seed):
            return replace(state, revealed=seed)
    raise TypeError(f"not a tournament event: {event!r}")


def _evolve_move(state: Tournament, event: PlayerMoved) -> Tournament:
    move = Move(
        event.player,
        (event.from_table, event.from_seat),
        (event.to_table, event.to_seat),
        event.stack,
        event.big_blind_in,
    )
    by_players = director.recounted(state.by_players, state.tables, move)
    tables = {**state.tables, **director.moved(state.tables, move)}
    if not tables[event.from_table].seats:
        tables = without(tables, event.from_table)
        by_players = director.counted(by_players, event.from_table, 0, None)
    moves = with_item(state.moves, event.player, state.moves.get(event.player, 0) + 1)
    return replace(state, tables=tables, by_players=by_players, moves=moves)


def rerun(batches: Sequence[Sequence[Event]], seed: bytes) -> Tournament:
    """Re-decide a stored tournament, given its events as they were
    committed (one batch a request) and the revealed ``seed``: each batch's
    first event names the request (an entry, a withdrawal, the start, the
    clock, a hand begun or ended, a cancellation), and the decision it
    calls must give exactly the batch (the seed's own event may be stored
    redacted, as it is served). So every draw, level, move, place
    and prize is checked against the rules, not only against the chain.
    Raises :class:`RerunError` at the first difference."""
    state = Tournament()
    for number, batch in enumerate(batches, 1):
        first = batch[0] if batch else None
        try:
            expected = decision(state, batch, seed)
        except RuleError as e:
            raise RerunError(f"batch {number}: {first!r} was refused: {e}") from None
        if [e.redacted() for e in batch] != [e.redacted() for e in expected]:
            at = next(
                (i for i, (a, b) in enumerate(zip(batch, expected, strict=False)) if a != b),
                min(len(batch), len(expected)),
            )
            stored = batch[at] if at < len(batch) else "nothing"
            due = expected[at] if at < len(expected) else "nothing"
            raise RerunError(
                f"batch {number}, event {at + 1}: stored {stored!r}, the rules give {due!r}"
            )
        state = state.then(expected)
    return state


def decision(state: Tournament, batch: Sequence[Event], seed: bytes) -> list[Event]:
    """The events the request that ``batch`` records decides in ``state``,
    given the revealed ``seed`` (the verifier's re-decision of one batch)."""
    match batch[0] if batch else None:
        case TournamentCreated() as created:
            if commitment(seed) != created.commitment:
                raise RerunError("the revealed seed does not hash to the commitment")
            return [created, SeedDrawn(seed)]
        case Registered(player=player, at=at):
            return state.register(player, at)
        case Unregistered(player=player, at=at):
            return state.unregister(player, at)
        case Started(at=at):
            return state.start(at)
        case Cancelled(at=at, reason=reason):
            return state.cancel(at, reason)
        case LevelChanged():
            return state.tick(max(e.at for e in batch if isinstance(e, LevelChanged)))
        case HandBegun(table=table, at=at):
            return state.begin_hand(table, at)
        case HandPlayed(table=table, hand=hand, stacks=stacks, at=at):
            return state.end_hand(table, hand, dict(stacks), at)
    raise RerunError(f"no request begins with {batch[0] if batch else 'an empty batch'!r}")
