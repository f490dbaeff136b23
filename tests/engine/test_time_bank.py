"""The time bank: each seat's time beyond the action clock, put on its clock
whole when the action clock runs out, refilled after each hand it was dealt
into up to what it started with; a table without one keeps the action clock
alone."""

from copy import deepcopy
from functools import reduce

import pytest

from feltline.engine.errors import ConfigError
from feltline.engine.games.variant import Game
from feltline.engine.hand.rules import Rules
from feltline.engine.hand.stakes import Stakes, Structure
from feltline.engine.table.commands import (
    DealHand,
    EndHand,
    OpenTable,
    SeatPlayer,
    SitDown,
    StandUp,
    TableCommand,
    UseTimeBank,
)
from feltline.engine.table.decide import decide
from feltline.engine.table.errors import NoHandInProgressError, TimeBankError
from feltline.engine.table.events import SatDown, TimeBankUsed
from feltline.engine.table.evolve import evolve
from feltline.engine.table.house import TableConfig, TimeBank
from feltline.engine.table.state import Entry, Table

HOLDEM = Rules(Game.HOLDEM, Stakes(Structure.NO_LIMIT, small_bet=2, small_blind=1, big_blind=2))
CLOCK = 30


def run(table: Table, *commands: TableCommand) -> Table:
    for command in commands:
        table = reduce(evolve, decide(table, command), table)
    return table


def seated(bank: TimeBank | None, *seats: int) -> Table:
    config = TableConfig(HOLDEM, 6, action_clock=CLOCK, time_bank=bank)
    table = run(Table(), OpenTable(config, at=0))
    return run(table, *(SitDown(s, f"p{s}", 100, at=0) for s in seats))


def dealt(table: Table) -> Table:
    return run(table, DealHand(0, bytes(32)))


def ended(table: Table) -> Table:
    """The hand ends with every stack as it started."""
    assert table.dealt is not None
    stacks = tuple((n, seat.stack) for n in table.dealt if (seat := table.seat(n)))
    return run(table, EndHand(stacks))


def bank(table: Table, number: int) -> int:
    seat = table.seat(number)
    assert seat is not None
    return seat.bank


def test_each_seat_sits_down_with_the_whole_bank() -> None:
    table = seated(TimeBank(60, 10), 1, 2)
    assert (bank(table, 1), bank(table, 2)) == (60, 60)


def test_the_bank_goes_on_the_clock_whole_at_the_turn_it_is_used() -> None:
    table = dealt(seated(TimeBank(60, 10), 1, 2))
    assert table.clock_at(7) == CLOCK
    events = decide(table, UseTimeBank(2, turn=7))
    assert events == [TimeBankUsed(2, 60, 7)]
    table = reduce(evolve, events, table)
    assert bank(table, 2) == 0
    assert bank(table, 1) == 60
    assert table.clock_at(7) == CLOCK + 60
    assert table.clock_at(8) == CLOCK  # the next turn has the action clock alone


def test_a_bank_used_up_or_used_at_this_turn_is_refused_and_changes_nothing() -> None:
    table = run(dealt(seated(TimeBank(60, 10), 1, 2, 3)), UseTimeBank(2, turn=7))
    for command, match in (
        (UseTimeBank(2, turn=9), "seat 2 has no time bank left"),
        (UseTimeBank(3, turn=7), "on the clock already at turn 7"),
    ):
        before = deepcopy(table)
        with pytest.raises(TimeBankError, match=match):
            decide(table, command)
        assert table == before


def test_a_bank_is_used_only_by_a_seat_in_the_hand_being_played() -> None:
    table = seated(TimeBank(60, 10), 1, 2)
    with pytest.raises(NoHandInProgressError, match="seat 1 is in no hand"):
        decide(table, UseTimeBank(1, turn=3))
    table = run(dealt(table), SitDown(4, "p4", 100, at=0))
    with pytest.raises(NoHandInProgressError, match="seat 4 is in no hand"):
        decide(table, UseTimeBank(4, turn=3))


def test_the_bank_refills_after_each_hand_dealt_into_up_to_its_size() -> None:
    table = run(dealt(seated(TimeBank(60, 25), 1, 2, 3)), UseTimeBank(2, turn=7))
    table = run(table, SitDown(4, "p4", 100, at=0), StandUp(3))  # 4 waits; 3 leaves after
    table = ended(table)
    assert table.banked is None
    assert [bank(table, n) for n in (1, 2, 4)] == [60, 25, 60]  # capped at 60; 2 refilled
    table = ended(dealt(table))
    assert bank(table, 2) == 50
    table = ended(dealt(table))
    assert bank(table, 2) == 60  # not 75: the bank holds 60 at most


def test_a_bank_that_does_not_refill_is_spent_for_good() -> None:
    table = ended(run(dealt(seated(TimeBank(20), 1, 2)), UseTimeBank(1, turn=4)))
    table = ended(dealt(table))
    assert bank(table, 1) == 0
    with pytest.raises(TimeBankError, match="no time bank left"):
        decide(dealt(table), UseTimeBank(1, turn=4))


def test_a_seated_player_brings_the_bank_they_had_left_or_gets_the_whole_one() -> None:
    """A player a tournament moves is seated with the bank they had left at
    their old table (``bank``); one drawn a seat, with the whole bank."""
    table = seated(TimeBank(60, 10))
    moved = decide(table, SeatPlayer(1, "ann", 300, at=0, bank=15))
    assert moved == [SatDown(1, "ann", 300, 0, Entry.PLAYING, 15)]
    table = reduce(evolve, moved, table)
    spent = run(table, SeatPlayer(2, "bob", 300, at=0, bank=0))
    drawn = run(spent, SeatPlayer(3, "cat", 300, at=0))
    assert [bank(drawn, n) for n in (1, 2, 3)] == [15, 0, 60]
    after = ended(dealt(drawn))
    assert [bank(after, n) for n in (1, 2, 3)] == [25, 10, 60]  # refilled as anyone's


@pytest.mark.parametrize(
    ("bank_", "brought", "match"),
    [
        (TimeBank(60), 61, "a time bank of 61 s: the table's holds 0 to 60 s"),
        (TimeBank(60), -1, "a time bank of -1 s: the table's holds 0 to 60 s"),
        (None, 0, "a time bank of 0 s: the table's holds none"),
    ],
)
def test_a_bank_the_table_cannot_hold_is_refused(
    bank_: TimeBank | None, brought: int, match: str
) -> None:
    table = seated(bank_)
    with pytest.raises(TimeBankError, match=match):
        decide(table, SeatPlayer(1, "ann", 300, at=0, bank=brought))


def test_without_a_bank_the_action_clock_is_all_a_player_has() -> None:
    table = dealt(seated(None, 1, 2))
    assert bank(table, 1) == 0
    assert table.clock_at(4) == CLOCK
    with pytest.raises(TimeBankError, match="seat 1 has no time bank left"):
        decide(table, UseTimeBank(1, turn=4))
    assert bank(ended(table), 1) == 0


@pytest.mark.parametrize(
    ("bank_", "match"),
    [
        (TimeBank(0), "a time bank holds 1 to 3600 seconds, not 0"),
        (TimeBank(3601), "a time bank holds 1 to 3600 seconds, not 3601"),
        (TimeBank(30, 31), "refills 0 to its 30 seconds a hand, not 31"),
        (TimeBank(30, -1), "refills 0 to its 30 seconds a hand, not -1"),
    ],
)
def test_a_bank_out_of_bounds_is_refused(bank_: TimeBank, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        TableConfig(HOLDEM, 6, time_bank=bank_).validate()
