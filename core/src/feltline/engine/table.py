"""The table between hands: seats, buy-ins, the button, time charges and
jackpots' carried pot.

A decider like the hand's: :func:`decide` turns a command into events or
refuses it with a :class:`RuleError`, changing nothing; :func:`evolve` folds
an event into the state and never fails on an event ``decide`` produced, so a
table replays from its events alone.

The hand itself belongs to the hand decider. :class:`DealHand` answers with
:class:`HandDealt`, which holds everything its ``StartHand`` needs except the
rules (the table's, recorded when it opened) and the seed (the caller's;
only its commitment is recorded here, so the table's stream never holds a
secret). :class:`EndHand` brings the hand's result back.

Chips are conserved: the seats' stacks, the carried pot and the house's take
(time charges and rake) change only by buy-ins, chips added and stacks
cashed out, each an event of its own. Time comes in with the commands, as
whole seconds on the caller's clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import reduce, singledispatch

from feltline.engine.button import Lineup, ante_lineup, blind_lineup
from feltline.engine.deck import SEED_BYTES, commitment
from feltline.engine.errors import IllegalAmount, Kind, RuleError, WrongPhase
from feltline.engine.events import Deal, Event, PassedOut, SeatAtStart
from feltline.engine.games import named
from feltline.engine.house import TableConfig, Turn
from feltline.engine.rules import Rules
from feltline.engine.stakes import Stakes

# ---- errors


class TableClosedError(WrongPhase):
    """The table is not open yet, is opened twice, or has been closed: a
    closed table refuses every command."""


class HandInProgressError(WrongPhase):
    """Only between hands."""


class NoHandInProgressError(WrongPhase):
    """Only while a hand is played."""


class NoSuchSeatError(RuleError):
    """A seat number the table does not have."""


class SeatUnavailableError(RuleError):
    """The seat is taken or empty, or the player is seated already."""

    kind = Kind.PRECONDITION


class BuyInError(IllegalAmount):
    """A buy-in or added chips outside the table's limits."""


class GameOptionError(RuleError):
    """An option the table's game does not have."""


class TooFewPlayersError(RuleError):
    """A hand needs two players with chips."""

    kind = Kind.PRECONDITION


class SeedError(RuleError):
    """A hand's seed is exactly 32 bytes."""


class TimeBankError(RuleError):
    """A time bank spent, or not there to spend."""

    kind = Kind.PRECONDITION


class HandResultError(RuleError):
    """A hand's result that does not fit the hand the table dealt."""


# ---- state


class Entry(StrEnum):
    """How a seated player comes into hands: hold'em newcomers wait for the
    big blind or post one at once; everyone else plays."""

    PLAYING = "playing"
    WAITING = "waiting"
    POSTING = "posting"


@dataclass(frozen=True, slots=True)
class Seat:
    """An occupied seat. ``leaving`` is set when the player stands up during
    a hand they are in: the caller folds them at their turn and they go when
    the hand ends. ``sitting_out`` keeps the seat out of the hands dealt
    from then on. ``charged`` is the last time-charge window they paid.
    ``bank`` is the seconds left in their time bank."""

    number: int
    player: str
    stack: int
    entry: Entry = Entry.PLAYING
    leaving: bool = False
    charged: int | None = None
    sitting_out: bool = False
    bank: int = 0


@dataclass(frozen=True, slots=True)
class CarriedPot:
    """Jackpots' pot after passed deals: each entitled seat's share, what
    leavers forfeited and how many deals it has had. Dead money with no
    share left is a fresh pot's head start, open to everyone."""

    shares: tuple[tuple[int, int], ...] = ()
    dead: int = 0
    deals: int = 0

    @property
    def entitled(self) -> tuple[int, ...]:
        return tuple(seat for seat, _ in self.shares)

    @property
    def total(self) -> int:
        return sum(amount for _, amount in self.shares) + self.dead

    def share(self, seat: int) -> int:
        return dict(self.shares).get(seat, 0)


def _carried(shares: dict[int, int], dead: int, deals: int) -> CarriedPot:
    """A pot in its one canonical form: shares by seat, none empty, and its
    deal count starting over once nobody is entitled."""
    kept = tuple(sorted((seat, amount) for seat, amount in shares.items() if amount > 0))
    return CarriedPot(kept, dead, deals if kept else 0)


@dataclass(frozen=True, slots=True)
class Table:
    """The table's state; ``Table()`` is a table not yet opened. ``dealt`` is
    the seats dealt into the hand being played, None between hands; their
    stacks stay as the hand started until it ends. ``big_blind`` is last
    hand's, so nobody posts it twice in a row; ``house`` is what the house
    has taken, time charges and rake; ``turn`` is where a mixed table's
    rotation is, as of the last hand dealt. ``banked`` is the time bank on
    the clock in the hand being played: at which turn (the hand's version
    when it went on), and how many seconds."""

    config: TableConfig | None = None
    opened_at: int = 0
    name: str = ""
    seats: tuple[Seat, ...] = ()
    button: int | None = None
    big_blind: int | None = None
    dealt: tuple[int, ...] | None = None
    hands: int = 0
    turn: Turn | None = None
    pot: CarriedPot = CarriedPot()
    house: int = 0
    closed_at: int | None = None
    banked: tuple[int, int] | None = None

    def clock_at(self, turn: int) -> int:
        """The seconds a player has to act at ``turn`` of the hand being
        played (its version when the player's turn came): the action clock,
        and the time bank when it was put on at that turn."""
        assert self.config is not None
        banked = self.banked
        extra = banked[1] if banked is not None and banked[0] == turn else 0
        return self.config.action_clock + extra

    @property
    def closed(self) -> bool:
        return self.closed_at is not None

    def seat(self, number: int) -> Seat | None:
        return next((s for s in self.seats if s.number == number), None)

    @property
    def leaving(self) -> tuple[int, ...]:
        """Seats to fold at their turn and remove when the hand ends."""
        return tuple(s.number for s in self.seats if s.leaving)

    @property
    def chips(self) -> int:
        """Chips on the table: stacks and the carried pot."""
        return sum(s.stack for s in self.seats) + self.pot.total

    @property
    def rules(self) -> Rules:
        """The rules of the hand being played, or between hands of the next
        one's game (as far as it is known: an orbit's length waits for the
        deal)."""
        assert self.config is not None
        if self.dealt is not None:
            return self.config.rules_at(self.turn)
        return self.config.rules_at(self.config.next_turn(self.turn, 0))

    def with_seat(self, updated: Seat) -> Table:
        others = (s for s in self.seats if s.number != updated.number)
        return replace(self, seats=tuple(sorted((*others, updated), key=lambda s: s.number)))


# ---- commands


@dataclass(frozen=True, slots=True)
class TableCommand:
    pass


@dataclass(frozen=True, slots=True)
class OpenTable(TableCommand):
    """``name`` is for people only: the rules never read it."""

    config: TableConfig
    at: int
    name: str = ""


@dataclass(frozen=True, slots=True)
class SitDown(TableCommand):
    """Take an empty seat. docs/rules.md seats players "between hands": a
    newcomer is in no hand, so for them it is between hands even while
    others play one (the dealer deals the next hand in the request that ends
    the last, so a table at play is never between hands for everyone). In
    hold'em ``post_now`` deals the player in at once for a big blind instead
    of waiting for it; in jackpots ``join_pot`` buys into a carried pot
    instead of waiting until it is won, between deals only: during one the
    pot is in play."""

    seat: int
    player: str
    buy_in: int
    at: int
    post_now: bool = False
    join_pot: bool = False


@dataclass(frozen=True, slots=True)
class SeatPlayer(TableCommand):
    """A tournament director seats a player with their tournament chips,
    drawn or moved there: dealt in from the next hand as a regular, since
    the director has reckoned when they post the big blind (docs/rules.md,
    "Tournaments"); ``stack`` is anything from one chip up, never a buy-in."""

    seat: int
    player: str
    stack: int
    at: int


@dataclass(frozen=True, slots=True)
class ChangeStakes(TableCommand):
    """A tournament's new level at this table, between hands: the next
    hand is dealt at ``stakes`` (the same betting structure)."""

    stakes: Stakes


@dataclass(frozen=True, slots=True)
class StandUp(TableCommand):
    seat: int


@dataclass(frozen=True, slots=True)
class SitOut(TableCommand):
    """Be dealt no hand from the next one on, keeping the seat and stack.
    The dealer deals the next hand in the request that ends the last, so
    this is the way to miss it: ask during the hand, stand up after it. A
    jackpots pot carried over is still played for by every player entitled
    to it: a share is given up only by standing up."""

    seat: int


@dataclass(frozen=True, slots=True)
class SitIn(TableCommand):
    """Be dealt in again. In hold'em a player who missed a deal while out
    comes back as a newcomer does, waiting for the big blind unless
    ``post_now``, so that sitting out never skips a blind."""

    seat: int
    post_now: bool = False


@dataclass(frozen=True, slots=True)
class AddChips(TableCommand):
    """Top up a stack when its seat is not in the hand being played: only
    the chips in front of a player when a hand starts play in it (docs/rules.md,
    "chips are added only between hands"), and a seat dealt out of the
    hand has none in it."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class UseTimeBank(TableCommand):
    """The action clock ran out for ``seat`` at ``turn`` of the hand being
    played (the hand's version then): its time bank goes on the clock."""

    seat: int
    turn: int


@dataclass(frozen=True, slots=True)
class DealHand(TableCommand):
    """Start the next hand; the caller draws ``seed`` from the CSPRNG."""

    at: int
    seed: bytes


@dataclass(frozen=True, slots=True)
class EndHand(TableCommand):
    """The hand's result: ``stacks`` from ``HandEnded``, its rake, and for a
    passed-out jackpots deal the ``PassedOut`` event (each seat's whole share
    of the pot and all its dead money, earlier deals included)."""

    stacks: tuple[tuple[int, int], ...]
    passed_out: PassedOut | None = None
    rake: int = 0


@dataclass(frozen=True, slots=True)
class CloseTable(TableCommand):
    """Close the table for good, between hands: the caller cancels a hand in
    progress first (the hand decider's ``Cancel``, settled by ``EndHand``).
    Everyone stands up with their stack; a jackpots carried pot goes back
    to the players entitled to it (see :func:`pot_refunds`)."""

    at: int
    reason: str = ""


# ---- events


@dataclass(frozen=True, slots=True)
class TableEvent(Event):
    """Everything that happens at the table between hands is public."""


@dataclass(frozen=True, slots=True)
class TableOpened(TableEvent):
    """``name`` is stored here so that it outlives the server that was told it."""

    config: TableConfig
    at: int
    name: str


@dataclass(frozen=True, slots=True)
class SatDown(TableEvent):
    """A buy-in: ``buy_in`` chips come onto the table."""

    seat: int
    player: str
    buy_in: int
    at: int
    entry: Entry


@dataclass(frozen=True, slots=True)
class JoinedPot(TableEvent):
    """A newcomer puts into the carried pot the antes each entitled player paid."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class ChipsAdded(TableEvent):
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class LeavingAfterHand(TableEvent):
    seat: int


@dataclass(frozen=True, slots=True)
class SatOut(TableEvent):
    seat: int


@dataclass(frozen=True, slots=True)
class SatIn(TableEvent):
    """``entry``: how the seat comes into hands again."""

    seat: int
    entry: Entry


@dataclass(frozen=True, slots=True)
class StoodUp(TableEvent):
    """A cash-out: ``stack`` leaves the table with the player; their share
    of a carried pot, ``forfeited``, stays in it as dead money. When the
    table closes, ``stack`` also holds what the carried pot gives back to
    the seat: whatever exceeds the seat's stack comes out of the pot."""

    seat: int
    player: str
    stack: int
    forfeited: int = 0


@dataclass(frozen=True, slots=True)
class TimeCharged(TableEvent):
    seat: int
    amount: int
    window: int


@dataclass(frozen=True, slots=True)
class TimeBankUsed(TableEvent):
    """``seconds``, all of ``seat``'s time bank, went on its clock at
    ``turn`` of the hand being played."""

    seat: int
    seconds: int
    turn: int


@dataclass(frozen=True, slots=True)
class HandDealt(TableEvent):
    """Hand number ``hand`` begins: its ``deal``, with the table's rules at
    ``turn`` (a mixed table's game; None at a table of one game) and the
    caller's seed, is the hand decider's ``StartHand``."""

    hand: int
    at: int
    deal: Deal
    commitment: str
    turn: Turn | None = None


@dataclass(frozen=True, slots=True)
class HandFinished(TableEvent):
    """The hand's final stacks and rake; after a passed-out deal, the pot
    that carries to the next (each seat's share and the dead money)."""

    stacks: tuple[tuple[int, int], ...]
    rake: int = 0
    passed_out: bool = False
    carried: tuple[tuple[int, int], ...] = ()
    dead: int = 0


@dataclass(frozen=True, slots=True)
class CarriedPotWon(TableEvent):
    """The last entitled player left takes the whole carried pot."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class StakesChanged(TableEvent):
    """The stakes every hand from the next on is dealt at."""

    stakes: Stakes


@dataclass(frozen=True, slots=True)
class TableClosed(TableEvent):
    """The table closes; everyone has stood up. Dead money of a carried pot
    that nobody seated could take back, all that can be left on the table
    then, goes to the house."""

    at: int
    reason: str = ""


# ---- decide


def decide(table: Table, command: TableCommand) -> list[TableEvent]:
    """The events ``command`` causes; a RuleError if the rules refuse it."""
    return _decide(command, table)


@singledispatch
def _decide(command: TableCommand, table: Table) -> list[TableEvent]:
    raise TypeError(f"not a table command: {command!r}")


@_decide.register
def _open_table(command: OpenTable, table: Table) -> list[TableEvent]:
    if table.closed:
        raise TableClosedError("the table has been closed")
    if table.config is not None:
        raise TableClosedError("the table is already open")
    return [TableOpened(command.config.validate(), command.at, command.name)]


@_decide.register
def _sit_down(command: SitDown, table: Table) -> list[TableEvent]:
    config = _open(table)  # an empty seat is in no hand: a newcomer is always between hands
    number, player = command.seat, command.player
    _check_number(config, number)
    if table.seat(number) is not None:
        raise SeatUnavailableError(f"seat {number} is taken")
    seated = next((s for s in table.seats if s.player == player), None)
    if seated is not None:
        raise SeatUnavailableError(f"{player} is already in seat {seated.number}")
    low, high = config.buy_in_limits()
    if not low <= command.buy_in <= high:
        raise BuyInError(
            f"seat {number} cannot sit down with {command.buy_in}: the buy-in is {low} to {high}"
        )
    game, variant = table.rules.game, table.rules.variant
    if command.post_now and not variant.blinds:
        raise GameOptionError(f"{game} has no big blind to post")
    if command.join_pot and not variant.openers:
        raise GameOptionError(
            f"only {named(lambda v: v.openers)} carries a pot to join, not {game}"
        )
    if not variant.blinds:
        entry = Entry.PLAYING
    else:
        entry = Entry.POSTING if command.post_now else Entry.WAITING
    events: list[TableEvent] = [SatDown(number, player, command.buy_in, command.at, entry)]
    if command.join_pot and table.dealt is not None:
        raise HandInProgressError(
            "the carried pot is being played for: it is joined only between deals"
        )
    if command.join_pot and table.pot.shares:
        antes = min(table.pot.deals, config.ante_cap)
        cost = antes * table.rules.stakes.ante
        if command.buy_in < cost:
            raise BuyInError(
                f"seat {number} cannot join the pot with {command.buy_in}: "
                f"joining costs the {antes} antes each player in it paid, {cost}"
            )
        events.append(JoinedPot(number, cost))
    return events


@_decide.register
def _seat_player(command: SeatPlayer, table: Table) -> list[TableEvent]:
    config = _open(table)
    number, player = command.seat, command.player
    _check_number(config, number)
    if table.seat(number) is not None:
        raise SeatUnavailableError(f"seat {number} is taken")
    seated = next((s for s in table.seats if s.player == player), None)
    if seated is not None:
        raise SeatUnavailableError(f"{player} is already in seat {seated.number}")
    if command.stack < 1:
        raise BuyInError(f"seat {number} cannot be seated with {command.stack} chips")
    return [SatDown(number, player, command.stack, command.at, Entry.PLAYING)]


@_decide.register
def _change_stakes(command: ChangeStakes, table: Table) -> list[TableEvent]:
    config = _between_hands(table, "the stakes change between hands")
    if command.stakes.structure is not config.rules.stakes.structure:
        raise GameOptionError(
            f"the table plays {config.rules.stakes.structure}, not {command.stakes.structure}"
        )
    if command.stakes == config.rules.stakes:
        return []
    replace(config.rules, stakes=command.stakes).validate()  # refuses stakes nobody could play
    return [StakesChanged(command.stakes)]


@_decide.register
def _stand_up(command: StandUp, table: Table) -> list[TableEvent]:
    seat = _occupied(table, command.seat)
    if table.dealt is not None and seat.number in table.dealt:
        if seat.leaving:
            raise SeatUnavailableError(f"seat {seat.number} is already leaving after this hand")
        return [LeavingAfterHand(seat.number)]
    return _leave(table, [seat.number])


@_decide.register
def _sit_out(command: SitOut, table: Table) -> list[TableEvent]:
    seat = _occupied(table, command.seat)
    if seat.leaving:
        raise SeatUnavailableError(f"seat {seat.number} is leaving after this hand")
    if seat.sitting_out:
        raise SeatUnavailableError(f"seat {seat.number} is sitting out already")
    return [SatOut(seat.number)]


@_decide.register
def _sit_in(command: SitIn, table: Table) -> list[TableEvent]:
    seat = _occupied(table, command.seat)
    if not seat.sitting_out:
        raise SeatUnavailableError(f"seat {seat.number} is not sitting out")
    _open(table)
    rules = table.rules
    if command.post_now and not rules.variant.blinds:
        raise GameOptionError(f"{rules.game} has no big blind to post")
    entry = seat.entry
    if entry is not Entry.PLAYING:  # missed a deal, or a newcomer yet to play
        entry = Entry.POSTING if command.post_now else Entry.WAITING
    return [SatIn(seat.number, entry)]


@_decide.register
def _add_chips(command: AddChips, table: Table) -> list[TableEvent]:
    config = _open(table)
    seat = _occupied(table, command.seat)
    if table.dealt is not None and seat.number in table.dealt:
        raise HandInProgressError(
            f"seat {seat.number} is in the hand being played: chips are added only between hands"
        )
    most = config.buy_in_limits()[1]
    if not 0 < command.amount <= most - seat.stack:
        raise BuyInError(
            f"seat {seat.number} cannot add {command.amount} chips to {seat.stack}: "
            f"a stack may be topped up to {most}, so at most {max(most - seat.stack, 0)} now"
        )
    return [ChipsAdded(seat.number, command.amount)]


@_decide.register
def _use_time_bank(command: UseTimeBank, table: Table) -> list[TableEvent]:
    _open(table)
    seat = _occupied(table, command.seat)
    if table.dealt is None or seat.number not in table.dealt:
        raise NoHandInProgressError(f"seat {seat.number} is in no hand being played")
    if table.banked is not None and table.banked[0] == command.turn:
        raise TimeBankError(f"a time bank is on the clock already at turn {command.turn}")
    if seat.bank < 1:
        raise TimeBankError(f"seat {seat.number} has no time bank left")
    return [TimeBankUsed(seat.number, seat.bank, command.turn)]


@_decide.register
def _deal_hand(command: DealHand, table: Table) -> list[TableEvent]:
    config = _between_hands(table, "a hand is already being played")
    if len(command.seed) != SEED_BYTES:
        raise SeedError(f"a hand's seed is exactly {SEED_BYTES} bytes, not {len(command.seed)}")
    events: list[TableEvent] = list(_time_charges(table, config, command.at))
    charged = reduce(evolve, events, table)
    rules = charged.rules
    lineup = _lineup(charged, rules)
    turn = config.next_turn(table.turn, len(lineup.seats))
    pot = charged.pot
    seats = []
    for number in lineup.seats:
        seat = _occupied(charged, number)
        seats.append(SeatAtStart(number, seat.player, seat.stack, pot.share(number)))
    deal = Deal(
        button=lineup.button,
        seats=tuple(seats),
        antes=not rules.variant.openers or pot.deals < config.ante_cap,
        small_blind=lineup.small_blind,
        big_blind=lineup.big_blind,
        extra_big_blinds=lineup.extra_big_blinds,
        dead=pot.dead,
    )
    events.append(HandDealt(table.hands + 1, command.at, deal, commitment(command.seed), turn))
    return events


@_decide.register
def _end_hand(command: EndHand, table: Table) -> list[TableEvent]:
    _open(table)
    if table.dealt is None:
        raise NoHandInProgressError("no hand is being played")
    rules = table.rules
    dealt = table.dealt
    stacks = dict(command.stacks)
    if len(stacks) != len(command.stacks) or sorted(stacks) != sorted(dealt):
        raise HandResultError(
            f"the result must give one stack for each seat dealt in {_seats(dealt)}, "
            f"not for {_seats(seat for seat, _ in command.stacks)}"
        )
    if any(stack < 0 for stack in stacks.values()) or command.rake < 0:
        raise HandResultError("stacks and rake cannot be negative")
    if command.rake and rules.rake is None:
        raise HandResultError("this table takes no rake")
    passed = command.passed_out
    carried: dict[int, int] = {}
    dead = 0
    if passed is not None:
        if not rules.variant.openers:
            raise HandResultError(
                f"only a {named(lambda v: v.openers)} deal is passed out, not {rules.game}"
            )
        carried, dead = dict(passed.carried), passed.dead
        if len(carried) != len(passed.carried) or not set(carried) <= set(dealt):
            raise HandResultError(f"only the seats dealt in {_seats(dealt)} have a share to carry")
        if dead < 0 or any(amount < 0 for amount in carried.values()):
            raise HandResultError("a carried pot cannot hold a negative amount")
    went_in = sum(_occupied(table, seat).stack for seat in dealt) + table.pot.total
    came_out = sum(stacks.values()) + sum(carried.values()) + dead + command.rake
    if went_in != came_out:
        raise HandResultError(
            f"the result does not add up: {went_in} chips were in play, not {came_out}"
        )
    finished = HandFinished(
        stacks=tuple(sorted(stacks.items())),
        rake=command.rake,
        passed_out=passed is not None,
        carried=tuple(sorted(carried.items())),
        dead=dead,
    )
    after = evolve(table, finished)
    return [finished, *_leave(after, after.leaving)]


@_decide.register
def _close_table(command: CloseTable, table: Table) -> list[TableEvent]:
    _between_hands(table, "cancel the hand in progress before closing the table")
    refunds = pot_refunds(table)
    events: list[TableEvent] = [
        StoodUp(s.number, s.player, s.stack + refunds.get(s.number, 0)) for s in table.seats
    ]
    return [*events, TableClosed(command.at, command.reason)]


def pot_refunds(table: Table) -> dict[int, int]:
    """What a closing table's carried pot gives back to each seat.

    Each entitled seat takes back its own share. The dead money (forfeited
    by players who left, or carried with nobody entitled) was to go to
    whoever won the pot, so it is split evenly among the entitled seats,
    or, with nobody entitled, among everyone seated, who would all have
    played for it; odd chips go to the lowest seat numbers. With nobody
    seated the house keeps it, the only place left for it."""
    pot = table.pot
    refunds = dict(pot.shares)
    takers = list(pot.entitled) or [s.number for s in table.seats]
    if takers and pot.dead:
        each, odd = divmod(pot.dead, len(takers))
        for i, seat in enumerate(sorted(takers)):
            refunds[seat] = refunds.get(seat, 0) + each + (1 if i < odd else 0)
    return refunds


# ---- decide helpers


def _open(table: Table) -> TableConfig:
    if table.closed:
        raise TableClosedError("the table has been closed")
    if table.config is None:
        raise TableClosedError("the table is not open yet")
    return table.config


def _between_hands(table: Table, refusal: str) -> TableConfig:
    config = _open(table)
    if table.dealt is not None:
        raise HandInProgressError(refusal)
    return config


def _check_number(config: TableConfig, number: int) -> None:
    if not 1 <= number <= config.seats:
        raise NoSuchSeatError(
            f"seat {number} does not exist: this table has seats 1 to {config.seats}"
        )


def _occupied(table: Table, number: int) -> Seat:
    _check_number(_open(table), number)
    seat = table.seat(number)
    if seat is None:
        raise SeatUnavailableError(f"seat {number} is empty")
    return seat


def _seats(numbers: Iterable[int]) -> str:
    return "(" + ", ".join(str(n) for n in numbers) + ")"


def _leave(table: Table, numbers: Sequence[int]) -> list[TableEvent]:
    """Players go with their stacks; if only one player entitled to a carried
    pot is left, that player wins it."""
    events: list[TableEvent] = []
    for number in numbers:
        seat = _occupied(table, number)
        stood = StoodUp(number, seat.player, seat.stack, table.pot.share(number))
        events.append(stood)
        table = evolve(table, stood)
    if len(table.pot.entitled) == 1:
        events.append(CarriedPotWon(table.pot.entitled[0], table.pot.total))
    return events


def _time_charges(table: Table, config: TableConfig, at: int) -> list[TimeCharged]:
    """Every seated player with chips pays once per window, at the first deal
    of the window after they sit down, whether or not they are dealt in:
    the charge is for the seat. A clock that steps back charges nobody twice."""
    charge = config.time_charge
    if charge is None:
        return []
    window = max(0, (at - table.opened_at) // charge.window)
    return [
        TimeCharged(s.number, min(charge.amount, s.stack), window)
        for s in table.seats
        if s.stack > 0 and (s.charged is None or s.charged < window)
    ]


def _lineup(table: Table, rules: Rules) -> Lineup:
    """Who plays the next hand. A carried jackpots pot is played for by
    its entitled players only, those all in from earlier antes included."""
    with_chips = [s for s in table.seats if s.stack > 0 and not s.sitting_out]
    if table.pot.shares:
        entitled = table.pot.entitled
        funded = [n for n in entitled if _occupied(table, n).stack > 0]
        if len(funded) < 2:
            raise TooFewPlayersError(
                f"the carried pot is played for by seats {_seats(entitled)}, and a deal needs "
                f"two of them with chips; {_chips_left(funded)}"
            )
        return ante_lineup(entitled, table.button)
    if len(with_chips) < 2:
        raise TooFewPlayersError(
            f"a hand needs two players with chips; {_chips_left([s.number for s in with_chips])}"
        )
    if not rules.variant.blinds:
        return ante_lineup([s.number for s in with_chips], table.button)
    return blind_lineup(
        regulars=[s.number for s in with_chips if s.entry is Entry.PLAYING],
        waiting=[s.number for s in with_chips if s.entry is Entry.WAITING],
        posting=[s.number for s in with_chips if s.entry is Entry.POSTING],
        last_button=table.button,
        last_big_blind=table.big_blind,
    )


def _chips_left(numbers: list[int]) -> str:
    return f"only seat {numbers[0]} has chips" if numbers else "nobody has chips"


# ---- evolve


def evolve(table: Table, event: TableEvent) -> Table:
    """The table after ``event``."""
    return _evolve(event, table)


@singledispatch
def _evolve(event: TableEvent, table: Table) -> Table:
    raise TypeError(f"not a table event: {event!r}")


@_evolve.register
def _opened(event: TableOpened, table: Table) -> Table:
    return Table(config=event.config, opened_at=event.at, name=event.name)


@_evolve.register
def _sat_down(event: SatDown, table: Table) -> Table:
    bank = table.config.time_bank if table.config is not None else None
    seat = Seat(event.seat, event.player, event.buy_in, event.entry)
    return table.with_seat(replace(seat, bank=bank.seconds) if bank is not None else seat)


@_evolve.register
def _joined_pot(event: JoinedPot, table: Table) -> Table:
    seat = _seat(table, event.seat)
    pot = table.pot
    shares = {**dict(pot.shares), event.seat: event.amount}
    table = replace(table, pot=_carried(shares, pot.dead, pot.deals))
    return table.with_seat(replace(seat, stack=seat.stack - event.amount))


@_evolve.register
def _chips_added(event: ChipsAdded, table: Table) -> Table:
    seat = _seat(table, event.seat)
    return table.with_seat(replace(seat, stack=seat.stack + event.amount))


@_evolve.register
def _leaving(event: LeavingAfterHand, table: Table) -> Table:
    return table.with_seat(replace(_seat(table, event.seat), leaving=True))


@_evolve.register
def _sat_out(event: SatOut, table: Table) -> Table:
    return table.with_seat(replace(_seat(table, event.seat), sitting_out=True))


@_evolve.register
def _sat_in(event: SatIn, table: Table) -> Table:
    seat = _seat(table, event.seat)
    return table.with_seat(replace(seat, sitting_out=False, entry=event.entry))


@_evolve.register
def _stood_up(event: StoodUp, table: Table) -> Table:
    shares = dict(table.pot.shares)
    share = shares.pop(event.seat, 0)
    dead = table.pot.dead + event.forfeited
    returned = event.stack - _seat(table, event.seat).stack  # only when the table closes
    if returned > 0:
        dead -= returned - share
    return replace(
        table,
        seats=tuple(s for s in table.seats if s.number != event.seat),
        big_blind=None if table.big_blind == event.seat else table.big_blind,
        pot=_carried(shares, dead, table.pot.deals),
    )


@_evolve.register
def _stakes_changed(event: StakesChanged, table: Table) -> Table:
    config = table.config
    assert config is not None
    rules = replace(config.rules, stakes=event.stakes)
    return replace(table, config=replace(config, rules=rules))


@_evolve.register
def _time_charged(event: TimeCharged, table: Table) -> Table:
    seat = _seat(table, event.seat)
    table = replace(table, house=table.house + event.amount)
    return table.with_seat(replace(seat, stack=seat.stack - event.amount, charged=event.window))


@_evolve.register
def _time_bank_used(event: TimeBankUsed, table: Table) -> Table:
    seat = _seat(table, event.seat)
    table = replace(table, banked=(event.turn, event.seconds))
    return table.with_seat(replace(seat, bank=seat.bank - event.seconds))


@_evolve.register
def _hand_dealt(event: HandDealt, table: Table) -> Table:
    """Seats dealt in play from now on; in a blind game a seat sitting out this
    deal has missed its blinds' turn and will wait for the big blind."""
    deal = event.deal
    dealt = tuple(s.seat for s in deal.seats)
    blinds = table.config is not None and table.config.rules_at(event.turn).variant.blinds
    seats = tuple(
        replace(s, entry=Entry.PLAYING)
        if s.number in dealt
        else replace(s, entry=Entry.WAITING)
        if blinds and s.sitting_out and s.entry is Entry.PLAYING
        else s
        for s in table.seats
    )
    return replace(
        table,
        seats=seats,
        button=deal.button,
        big_blind=deal.big_blind,
        dealt=dealt,
        hands=event.hand,
        turn=event.turn,
    )


@_evolve.register
def _hand_finished(event: HandFinished, table: Table) -> Table:
    """Stacks as the hand left them; each seat dealt in refills its time bank."""
    stacks = dict(event.stacks)
    bank = table.config.time_bank if table.config is not None else None
    seats = tuple(
        replace(
            s,
            stack=stacks.get(s.number, s.stack),
            bank=min(bank.seconds, s.bank + bank.refill) if bank and s.number in stacks else s.bank,
        )
        for s in table.seats
    )
    if event.passed_out:
        pot = _carried(dict(event.carried), event.dead, table.pot.deals + 1)
    else:
        pot = CarriedPot()
    return replace(
        table, seats=seats, dealt=None, pot=pot, house=table.house + event.rake, banked=None
    )


@_evolve.register
def _carried_pot_won(event: CarriedPotWon, table: Table) -> Table:
    seat = _seat(table, event.seat)
    return replace(table, pot=CarriedPot()).with_seat(
        replace(seat, stack=seat.stack + event.amount)
    )


@_evolve.register
def _table_closed(event: TableClosed, table: Table) -> Table:
    return replace(table, pot=CarriedPot(), house=table.house + table.pot.total, closed_at=event.at)


def _seat(table: Table, number: int) -> Seat:
    seat = table.seat(number)
    if seat is None:
        raise KeyError(f"seat {number} is empty")
    return seat
