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
from dataclasses import replace
from functools import reduce, singledispatch

from feltline.engine.cards.deck import SEED_BYTES, commitment
from feltline.engine.games import named
from feltline.engine.hand.events import Deal, SeatAtStart
from feltline.engine.hand.rules import Rules
from feltline.engine.table.button import Lineup, ante_lineup, blind_lineup
from feltline.engine.table.commands import (
    AddChips,
    ChangeStakes,
    CloseTable,
    DealHand,
    EndHand,
    OpenTable,
    SeatPlayer,
    SitDown,
    SitIn,
    SitOut,
    StandUp,
    TableCommand,
    UseTimeBank,
)
from feltline.engine.table.errors import (
    BuyInError,
    GameOptionError,
    HandInProgressError,
    HandResultError,
    NoHandInProgressError,
    NoSuchSeatError,
    SeatUnavailableError,
    SeedError,
    TableClosedError,
    TimeBankError,
    TooFewPlayersError,
)
from feltline.engine.table.events import (
    CarriedPotWon,
    ChipsAdded,
    HandDealt,
    HandFinished,
    JoinedPot,
    LeavingAfterHand,
    SatDown,
    SatIn,
    SatOut,
    StakesChanged,
    StoodUp,
    TableClosed,
    TableEvent,
    TableOpened,
    TimeBankUsed,
    TimeCharged,
)
from feltline.engine.table.evolve import evolve
from feltline.engine.table.house import TableConfig
from feltline.engine.table.state import (
    Entry,
    Seat,
    Table,
)


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
    bank = command.bank
    if bank is not None:
        size = config.time_bank.seconds if config.time_bank is not None else None
        if size is None or not 0 <= bank <= size:
            raise TimeBankError(
                f"seat {number} cannot bring a time bank of {bank} s: the table's holds "
                + (f"0 to {size} s" if size is not None else "none")
            )
    return [SatDown(number, player, command.stack, command.at, Entry.PLAYING, bank)]


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
