"""``evolve(table, event) -> table``: one event applied, no rule checked,
so a table replays from its events alone."""

from __future__ import annotations

from dataclasses import replace
from functools import singledispatch

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
from feltline.engine.table.state import (
    CarriedPot,
    Entry,
    Seat,
    Table,
)


def _carried(shares: dict[int, int], dead: int, deals: int) -> CarriedPot:
    """A pot in its one canonical form: shares by seat, none empty, and its
    deal count starting over once nobody is entitled."""
    kept = tuple(sorted((seat, amount) for seat, amount in shares.items() if amount > 0))
    return CarriedPot(kept, dead, deals if kept else 0)


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
    if bank is None:
        return table.with_seat(seat)
    return table.with_seat(replace(seat, bank=bank.seconds if event.bank is None else event.bank))


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
