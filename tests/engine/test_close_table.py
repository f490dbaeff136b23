"""Closing a table: everyone stands up with their stack, a carried pot goes
back to the players entitled to it, and nothing happens at the table after."""

from __future__ import annotations

from dataclasses import replace

import pytest

from feltline.engine.table.commands import (
    AddChips,
    CloseTable,
    DealHand,
    OpenTable,
    SitDown,
    StandUp,
    TableCommand,
)
from feltline.engine.table.decide import pot_refunds
from feltline.engine.table.errors import HandInProgressError, TableClosedError
from feltline.engine.table.events import StoodUp, TableClosed
from feltline.engine.table.state import CarriedPot
from tests.engine.test_table import (
    HOLDEM,
    JACKPOTS,
    SEED,
    deal,
    passed_out,
    refused,
    run,
    seated,
    step,
    unchanged,
)


def test_closing_stands_everyone_up_with_their_stacks() -> None:
    table = seated(HOLDEM, 1, 3, stack=100)
    before = table.chips
    closed, events = step(table, CloseTable(at=7, reason="maintenance"))
    assert events == [
        StoodUp(1, "p1", 100),
        StoodUp(3, "p3", 100),
        TableClosed(7, "maintenance"),
    ]
    assert closed.closed
    assert closed.closed_at == 7
    assert closed.seats == ()
    assert closed.chips == 0
    assert sum(e.stack for e in events if isinstance(e, StoodUp)) == before


def test_an_empty_table_closes() -> None:
    table = seated(HOLDEM)
    assert step(table, CloseTable(at=1))[1] == [TableClosed(1, "")]


def test_a_hand_in_progress_is_cancelled_before_the_table_closes() -> None:
    table, _ = deal(seated(HOLDEM, 1, 2))
    refused(table, CloseTable(at=1), HandInProgressError, "cancel the hand")
    closed = run(table, unchanged(table), CloseTable(at=1))
    assert closed.closed


@pytest.mark.parametrize(
    "command",
    [
        SitDown(2, "p2", 100, at=0),
        StandUp(1),
        AddChips(1, 10),
        DealHand(0, SEED),
        CloseTable(at=2),
        OpenTable(seated(HOLDEM).config, at=0),  # type: ignore[arg-type]
    ],
)
def test_a_closed_table_refuses_every_command(command: TableCommand) -> None:
    table = run(seated(HOLDEM, 1, stack=100), CloseTable(at=1))
    refused(table, command, TableClosedError, "closed")


def test_the_carried_pot_goes_back_to_the_entitled_players() -> None:
    table = seated(JACKPOTS, 1, 2, 3, stack=50)
    for _ in range(2):
        table, dealt = deal(table)
        table = run(table, passed_out(dealt))
    assert table.pot.shares == ((1, 2), (2, 2), (3, 2))
    chips = table.chips
    closed, events = step(table, CloseTable(at=5))
    assert [e for e in events if isinstance(e, StoodUp)] == [
        StoodUp(1, "p1", 50),
        StoodUp(2, "p2", 50),
        StoodUp(3, "p3", 50),
    ]
    assert closed.chips == 0
    assert closed.house == table.house
    assert sum(e.stack for e in events if isinstance(e, StoodUp)) == chips


def test_dead_money_is_split_among_the_entitled_players() -> None:
    table = seated(JACKPOTS, 1, 2, 3, 4, stack=50)
    table, dealt = deal(table)
    table = run(table, passed_out(dealt), StandUp(4))  # seat 4's ante is dead money
    table = run(table, SitDown(5, "late", 50, at=0))  # not entitled: waits for a fresh pot
    assert table.pot.dead == 1
    assert pot_refunds(table) == {1: 2, 2: 1, 3: 1}
    closed, events = step(table, CloseTable(at=5))
    stood = {e.seat: e.stack for e in events if isinstance(e, StoodUp)}
    assert stood == {1: 51, 2: 50, 3: 50, 5: 50}
    assert closed.chips == 0
    assert events[-1] == TableClosed(5, "")


def test_dead_money_nobody_can_take_back_goes_to_the_house() -> None:
    table = seated(JACKPOTS, 1, 2, 3, stack=50)
    table, dealt = deal(table)
    table = run(table, passed_out(dealt), StandUp(1), StandUp(2))  # seat 3 wins the pot
    table = run(table, StandUp(3))
    assert table.pot.total == 0
    # Dead money with nobody seated only comes from players leaving together
    # after a hand; build the pot directly.
    table = replace(table, pot=CarriedPot((), dead=3))
    closed, events = step(table, CloseTable(at=9))
    assert events == [TableClosed(9, "")]
    assert closed.house == table.house + 3
    assert closed.chips == 0
