"""The table between hands: seats, buy-ins, button and blinds, time charges,
jackpots' carried pot, refusals, and chips conserved over random play."""

from collections.abc import Sequence
from copy import deepcopy
from functools import reduce
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feltline.engine.cards.deck import commitment
from feltline.engine.errors import ConfigError, RuleError
from feltline.engine.hand.events import Deal, PassedOut, SeatAtStart
from feltline.engine.hand.rules import Game, Rake, Rules, Stakes, Structure
from feltline.engine.table.button import blind_lineup
from feltline.engine.table.commands import (
    AddChips,
    ChangeStakes,
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
from feltline.engine.table.decide import decide
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
    TableEvent,
    TimeCharged,
)
from feltline.engine.table.evolve import evolve
from feltline.engine.table.house import Rotation, TableConfig, TimeBank, TimeCharge
from feltline.engine.table.state import Entry, Seat, Table

SEED = bytes(range(32))
HOLDEM = Rules(Game.HOLDEM, Stakes(Structure.NO_LIMIT, small_bet=2, small_blind=1, big_blind=2))
JACKPOTS = Rules(Game.JACKPOTS, Stakes(Structure.FIXED_LIMIT, small_bet=2, big_bet=4, ante=1))
STUD = Rules(
    Game.STUD_HI_LO, Stakes(Structure.FIXED_LIMIT, small_bet=2, big_bet=4, ante=1, bring_in=1)
)
# Buy-ins: hold'em 80 to 200 (40 and 100 big blinds), jackpots and stud 40 to 100.


def run(table: Table, *commands: TableCommand) -> Table:
    for command in commands:
        table = reduce(evolve, decide(table, command), table)
    return table


def step(table: Table, command: TableCommand) -> tuple[Table, list[TableEvent]]:
    events = decide(table, command)
    return reduce(evolve, events, table), events


def opened(rules: Rules = HOLDEM, seats: int = 6, **options: Any) -> Table:
    return run(Table(), OpenTable(TableConfig(rules, seats, **options), at=0))


def seated(rules: Rules, *seats: int, stack: int = 100, **options: Any) -> Table:
    """An open table with a player named after each seat."""
    table = opened(rules, **options)
    return run(table, *(SitDown(s, f"p{s}", stack, at=0) for s in seats))


def deal(table: Table, at: int = 0) -> tuple[Table, HandDealt]:
    table, events = step(table, DealHand(at, SEED))
    dealt = events[-1]
    assert isinstance(dealt, HandDealt)
    return table, dealt


def unchanged(table: Table) -> EndHand:
    """A hand that gave every seat back what it started with."""
    assert table.dealt is not None
    return EndHand(tuple((n, _stack(table, n)) for n in table.dealt))


def play(table: Table, at: int = 0) -> tuple[Table, HandDealt]:
    """Deal a hand and end it with nobody winning or losing."""
    table, dealt = deal(table, at)
    return run(table, unchanged(table)), dealt


def passed_out(dealt: HandDealt, ante: int = 1) -> EndHand:
    """What the hand decider reports for a jackpots deal nobody opened."""
    seats = dealt.deal.seats
    paid = {s.seat: min(ante if dealt.deal.antes else 0, s.stack) for s in seats}
    return EndHand(
        tuple((s.seat, s.stack - paid[s.seat]) for s in seats),
        PassedOut(tuple((s.seat, s.carried + paid[s.seat]) for s in seats), dealt.deal.dead),
    )


def won_by(dealt: HandDealt, winner: int, pot: int) -> EndHand:
    """``winner`` takes ``pot`` chips from the others (evenly) and any carried pot."""
    losers = [s for s in dealt.deal.seats if s.seat != winner]
    share = pot // len(losers)
    carried = sum(s.carried for s in dealt.deal.seats) + dealt.deal.dead
    stacks = [(s.seat, s.stack - share) for s in losers]
    winnings = share * len(losers) + carried
    stacks.append((winner, _stack_of(dealt, winner) + winnings))
    return EndHand(tuple(sorted(stacks)))


def _stack_of(dealt: HandDealt, seat: int) -> int:
    return next(s.stack for s in dealt.deal.seats if s.seat == seat)


def _stack(table: Table, number: int) -> int:
    seat = table.seat(number)
    assert seat is not None
    return seat.stack


def refused(table: Table, command: TableCommand, error: type[RuleError], match: str) -> None:
    before = deepcopy(table)
    with pytest.raises(error, match=match):
        decide(table, command)
    assert table == before


# ---- settings


def test_default_buy_ins_follow_the_house_rules() -> None:
    assert TableConfig(HOLDEM, 9).validate().buy_in_limits() == (80, 200)
    assert TableConfig(JACKPOTS, 8).validate().buy_in_limits() == (40, 100)
    pot_limit_draw = Rules(
        Game.DRAW_DECLARE, Stakes(Structure.POT_LIMIT, small_bet=5, ante=1)
    )  # the minimum bet stands in for the big blind
    config = TableConfig(pot_limit_draw, 6).validate()
    assert (config.min_buy_in, config.max_buy_in) == (200, 500)


def test_opening_records_the_buy_ins_and_the_time_charge_window() -> None:
    table = opened(HOLDEM, seats=9, max_buy_in=400, time_charge=TimeCharge(3))
    assert table.config == TableConfig(
        HOLDEM, 9, min_buy_in=80, max_buy_in=400, time_charge=TimeCharge(3, 1800)
    )


@pytest.mark.parametrize(
    ("config", "match"),
    [
        (TableConfig(HOLDEM, 1), "holdem table has 2 to 10 seats, not 1"),
        (TableConfig(HOLDEM, 11), "2 to 10 seats"),
        (TableConfig(STUD, 9), "stud-hi-lo table has 2 to 8 seats"),
        (TableConfig(HOLDEM, 6, min_buy_in=300), r"minimum \(300\) no more than its maximum"),
        (TableConfig(HOLDEM, 6, min_buy_in=0), "at least one chip"),
        (TableConfig(HOLDEM, 6, time_charge=TimeCharge(0)), "time charge is at least one chip"),
        (TableConfig(HOLDEM, 6, time_charge=TimeCharge(5, 0)), "at least a second"),
        (
            TableConfig(
                Rules(
                    Game.HOLDEM,
                    HOLDEM.stakes,
                    rake=Rake(500, 3),
                ),
                6,
                time_charge=TimeCharge(5),
            ),
            "a rake or a time charge, not both",
        ),
        (
            TableConfig(
                Rules(Game.HOLDEM, HOLDEM.stakes, fixed_seats=6),
                6,
                time_charge=TimeCharge(5),
            ),
            "duplicate match takes no rake or time charge",
        ),
        (
            TableConfig(
                Rules(Game.HOLDEM, HOLDEM.stakes, rake=Rake(500, 3), fixed_seats=6),
                6,
            ),
            "duplicate match takes no rake",
        ),
        (
            TableConfig(Rules(Game.JACKPOTS, JACKPOTS.stakes, fixed_seats=6), 6),
            "jackpots is not offered in a duplicate match",
        ),
        (
            TableConfig(Rules(Game.STUD_HI_LO, STUD.stakes, fixed_seats=8), 8),
            "a duplicate stud-hi-lo table has 2 to 7 seats",
        ),
        (TableConfig(JACKPOTS, 6, ante_cap=0), "antes on at least one deal"),
        (TableConfig(JACKPOTS, 6, action_clock=0), "at least a second"),
        (
            TableConfig(Rules(Game.JACKPOTS, Stakes(Structure.FIXED_LIMIT, 2, 4)), 6),
            "needs an ante",
        ),
    ],
)
def test_a_table_nobody_could_play_at_is_refused(config: TableConfig, match: str) -> None:
    refused(Table(), OpenTable(config, at=0), ConfigError, match)


def test_a_table_opens_once() -> None:
    refused(opened(), OpenTable(TableConfig(HOLDEM, 6), at=5), TableClosedError, "already open")


@pytest.mark.parametrize(
    "command",
    [
        SitDown(1, "ann", 100, at=0),
        StandUp(1),
        AddChips(1, 10),
        DealHand(0, SEED),
        EndHand(((1, 100),)),
    ],
)
def test_nothing_happens_at_a_table_not_yet_open(command: TableCommand) -> None:
    refused(Table(), command, TableClosedError, "not open yet")


# ---- sitting down, adding chips, standing up


def test_sitting_down_brings_the_buy_in() -> None:
    table, events = step(opened(JACKPOTS), SitDown(3, "ann", 60, at=42))
    assert events == [SatDown(3, "ann", 60, 42, Entry.PLAYING)]
    assert _stack(table, 3) == 60


@pytest.mark.parametrize(
    ("command", "error", "match"),
    [
        (
            SitDown(3, "cy", 50, at=0),
            BuyInError,
            "seat 3 cannot sit down with 50: the buy-in is 80 to 200",
        ),
        (SitDown(3, "cy", 201, at=0), BuyInError, "the buy-in is 80 to 200"),
        (
            SitDown(7, "cy", 100, at=0),
            NoSuchSeatError,
            "seat 7 does not exist: this table has seats 1 to 6",
        ),
        (SitDown(0, "cy", 100, at=0), NoSuchSeatError, "seat 0 does not exist"),
        (SitDown(1, "cy", 100, at=0), SeatUnavailableError, "seat 1 is taken"),
        (SitDown(3, "p2", 100, at=0), SeatUnavailableError, "p2 is already in seat 2"),
        (
            SitDown(3, "cy", 100, at=0, join_pot=True),
            GameOptionError,
            "only jackpots carries a pot",
        ),
    ],
)
def test_sitting_down_is_refused(command: SitDown, error: type[RuleError], match: str) -> None:
    refused(seated(HOLDEM, 1, 2), command, error, match)


def test_only_a_blind_game_has_a_big_blind_to_post() -> None:
    command = SitDown(3, "cy", 60, at=0, post_now=True)
    refused(seated(STUD, 1, 2), command, GameOptionError, "stud-hi-lo has no big blind to post")


def test_chips_are_added_only_to_a_seat_not_in_the_hand_being_played() -> None:
    table, _ = deal(seated(HOLDEM, 1, 2))
    refused(table, AddChips(1, 10), HandInProgressError, "seat 1 is in the hand being played")
    refused(table, AddChips(5, 10), SeatUnavailableError, "seat 5 is empty")


def test_a_busted_player_buys_in_again_while_the_others_play_on() -> None:
    # Seat 3 went broke in the last hand; the next was dealt to 1 and 2 at once
    # (the dealer deals in the request that ends a hand), so the table is never
    # between hands for everyone. For seat 3 it is: its chips are in no hand.
    table, _ = deal(seated(STUD, 1, 2, 3))
    table = run(table, EndHand(((1, 200), (2, 100), (3, 0))))
    table, dealt = deal(table)
    assert [s.seat for s in dealt.deal.seats] == [1, 2]
    table, events = step(table, AddChips(3, 50))
    assert events == [ChipsAdded(3, 50)]
    table, events = step(table, StandUp(3))
    assert events == [StoodUp(3, "p3", 50)]
    table, events = step(table, SitDown(3, "p3", 60, at=0))
    assert events == [SatDown(3, "p3", 60, 0, Entry.PLAYING)]
    assert table.dealt == (1, 2)
    table = run(table, EndHand(((1, 150), (2, 150))))  # the hand's result is the dealt seats'
    assert _stack(table, 3) == 60
    _, dealt = deal(table)
    assert [(s.seat, s.stack) for s in dealt.deal.seats] == [(1, 150), (2, 150), (3, 60)]


def test_a_newcomer_sitting_down_during_a_hold_em_hand_waits_for_the_big_blind() -> None:
    table, _ = deal(seated(HOLDEM, 1, 2, 3))
    table = run(table, SitDown(5, "new", 100, at=0), SitDown(6, "now", 100, at=0, post_now=True))
    assert (_entry(table, 5), _entry(table, 6)) == (Entry.WAITING, Entry.POSTING)
    assert table.dealt == (1, 2, 3)


def test_a_carried_pot_is_joined_only_between_deals() -> None:
    table, dealt = deal(seated(JACKPOTS, 1, 2))
    table = run(table, passed_out(dealt))
    table, _ = deal(table)
    refused(
        table,
        SitDown(3, "new", 60, at=0, join_pot=True),
        HandInProgressError,
        "the carried pot is being played for",
    )


def test_chips_are_added_up_to_the_maximum_buy_in() -> None:
    table = seated(HOLDEM, 1, 2, stack=150)
    table, events = step(table, AddChips(1, 50))
    assert events == [ChipsAdded(1, 50)]
    assert _stack(table, 1) == 200
    refused(table, AddChips(2, 51), BuyInError, "cannot add 51 chips to 150: .* at most 50 now")
    refused(table, AddChips(2, 0), BuyInError, "cannot add 0 chips")
    refused(table, AddChips(1, 1), BuyInError, "at most 0 now")
    refused(table, AddChips(3, 10), SeatUnavailableError, "seat 3 is empty")
    refused(table, AddChips(9, 10), NoSuchSeatError, "seat 9 does not exist")


def test_standing_up_between_hands_cashes_out_the_stack() -> None:
    table = seated(HOLDEM, 1, 2, 3)
    table, events = step(table, StandUp(2))
    assert events == [StoodUp(2, "p2", 100)]
    assert table.seat(2) is None
    refused(table, StandUp(2), SeatUnavailableError, "seat 2 is empty")


def test_standing_up_during_a_hand_flags_the_player_until_it_ends() -> None:
    table = seated(HOLDEM, 1, 2, 3)
    table, _ = deal(table)
    table, events = step(table, StandUp(2))
    assert events == [LeavingAfterHand(2)]
    assert table.leaving == (2,)  # the caller folds seat 2 at its turn
    refused(table, StandUp(2), SeatUnavailableError, "seat 2 is already leaving after this hand")
    table, events = step(table, EndHand(((1, 103), (2, 98), (3, 99))))
    assert events[1:] == [StoodUp(2, "p2", 98)]
    assert table.seat(2) is None
    assert table.leaving == ()


def test_a_player_not_dealt_in_leaves_at_once_during_a_hand() -> None:
    table, _ = play(seated(HOLDEM, 1, 2))
    table = run(table, SitDown(4, "late", 100, at=0))
    table, dealt = deal(table)
    assert 4 not in {s.seat for s in dealt.deal.seats}  # waits for the big blind
    assert decide(table, StandUp(4)) == [StoodUp(4, "late", 100)]


# ---- sitting out


def test_sitting_out_during_a_hand_plays_it_out_and_misses_the_next() -> None:
    table, _ = deal(seated(STUD, 1, 2, 3, stack=60))
    table, events = step(table, SitOut(2))
    assert events == [SatOut(2)]
    assert table.dealt == (1, 2, 3)
    assert table.leaving == ()  # not folded: plays the hand out
    table, second = play(run(table, unchanged(table)))
    assert [s.seat for s in second.deal.seats] == [1, 3]
    # Not in a hand, the seat leaves at once: no ante paid for a hand it will not play.
    assert decide(table, StandUp(2)) == [StoodUp(2, "p2", 60)]
    table, events = step(table, SitIn(2))
    assert events == [SatIn(2, Entry.PLAYING)]
    _, third = deal(table)
    assert [s.seat for s in third.deal.seats] == [1, 2, 3]


def test_a_hold_em_player_back_from_sitting_out_waits_for_the_big_blind_or_posts() -> None:
    table, _ = play(seated(HOLDEM, 1, 2, 3, 4))  # button 1, blinds 2 and 3
    table = run(table, SitOut(2))
    table, second = play(table)
    assert (second.deal.button, second.deal.small_blind, second.deal.big_blind) == (3, 4, 1)
    assert _entry(table, 2) is Entry.WAITING  # its button went by without it
    table, third = play(table)
    assert (third.deal.button, third.deal.small_blind, third.deal.big_blind) == (4, 1, 3)
    table, events = step(table, SitIn(2))
    assert events == [SatIn(2, Entry.WAITING)]
    table, fourth = play(table)
    assert (fourth.deal.button, fourth.deal.small_blind, fourth.deal.big_blind) == (1, 3, 4)
    assert [s.seat for s in fourth.deal.seats] == [1, 3, 4]  # the big blind has not reached it
    table = run(table, SitOut(2), SitIn(2, post_now=True))
    assert _entry(table, 2) is Entry.POSTING
    _, fifth = deal(table)
    assert (fifth.deal.button, fifth.deal.small_blind, fifth.deal.big_blind) == (3, 4, 1)
    assert ([s.seat for s in fifth.deal.seats], fifth.deal.extra_big_blinds) == ([1, 2, 3, 4], (2,))


def test_sitting_out_and_in_before_a_deal_changes_nothing_in_hold_em() -> None:
    table, _ = play(seated(HOLDEM, 1, 2, 3))
    table = run(table, SitOut(3), SitIn(3, post_now=True))
    assert _entry(table, 3) is Entry.PLAYING  # missed nothing: nothing to post
    _, dealt = deal(table)
    assert ([s.seat for s in dealt.deal.seats], dealt.deal.extra_big_blinds) == ([1, 2, 3], ())


def test_a_hand_needs_two_players_not_sitting_out() -> None:
    table = run(seated(STUD, 1, 2, 3, stack=60), SitOut(1), SitOut(3))
    refused(table, DealHand(0, SEED), TooFewPlayersError, "only seat 2 has chips")


def test_a_carried_pot_is_played_for_by_its_players_sitting_out_or_not() -> None:
    table, dealt = deal(seated(JACKPOTS, 1, 2, 3))
    table = run(table, SitOut(3), passed_out(dealt))
    _, again = deal(table)
    assert [s.seat for s in again.deal.seats] == [1, 2, 3]


@pytest.mark.parametrize(
    ("command", "error", "match"),
    [
        (SitOut(2), SeatUnavailableError, "seat 2 is sitting out already"),
        (SitOut(5), SeatUnavailableError, "seat 5 is empty"),
        (SitOut(9), NoSuchSeatError, "seat 9 does not exist"),
        (SitIn(1), SeatUnavailableError, "seat 1 is not sitting out"),
        (SitIn(2, post_now=True), GameOptionError, "stud-hi-lo has no big blind to post"),
    ],
)
def test_sitting_out_and_in_is_refused(
    command: TableCommand, error: type[RuleError], match: str
) -> None:
    refused(run(seated(STUD, 1, 2, stack=60), SitOut(2)), command, error, match)


def test_a_player_leaving_after_the_hand_does_not_sit_out() -> None:
    table, _ = deal(seated(STUD, 1, 2, stack=60))
    table = run(table, StandUp(1))
    refused(table, SitOut(1), SeatUnavailableError, "seat 1 is leaving after this hand")


# ---- the button and the blinds


def test_the_button_starts_at_the_lowest_seat_and_moves_over_empty_seats() -> None:
    table = seated(STUD, 7, 2, 5, stack=60, seats=8)
    buttons = []
    for _ in range(4):
        table, dealt = play(table)
        buttons.append(dealt.deal.button)
        assert [s.seat for s in dealt.deal.seats] == [2, 5, 7]
        assert (dealt.deal.small_blind, dealt.deal.big_blind) == (None, None)
        assert dealt.deal.antes
    assert buttons == [2, 5, 7, 2]


def test_the_button_moves_past_a_seat_that_empties() -> None:
    table, _ = play(seated(STUD, 1, 3, 5, stack=60))  # button 1
    table = run(table, StandUp(3))
    table, dealt = play(table)
    assert dealt.deal.button == 5


def test_the_blinds_follow_the_button() -> None:
    table = seated(HOLDEM, 6, 1, 4)
    table, first = play(table)
    table, second = play(table)
    assert (first.deal.button, first.deal.small_blind, first.deal.big_blind) == (1, 4, 6)
    assert (second.deal.button, second.deal.small_blind, second.deal.big_blind) == (4, 6, 1)


def test_heads_up_the_button_posts_the_small_blind() -> None:
    table = seated(HOLDEM, 2, 5)
    table, first = play(table)
    table, second = play(table)
    assert (first.deal.button, first.deal.small_blind, first.deal.big_blind) == (2, 2, 5)
    assert (second.deal.button, second.deal.small_blind, second.deal.big_blind) == (5, 5, 2)


def test_from_three_to_two_nobody_posts_the_big_blind_twice() -> None:
    table, _ = play(seated(HOLDEM, 1, 2, 3))  # button 1, blinds 2 and 3
    table, second = play(table)
    assert (second.deal.button, second.deal.small_blind, second.deal.big_blind) == (2, 3, 1)
    table = run(table, StandUp(2))
    # Moving the button to seat 3 would put seat 1 in the big blind again.
    table, third = play(table)
    assert (third.deal.button, third.deal.small_blind, third.deal.big_blind) == (1, 1, 3)
    table, fourth = play(table)
    assert (fourth.deal.button, fourth.deal.small_blind, fourth.deal.big_blind) == (3, 3, 1)


def test_from_three_to_two_the_button_moves_on_when_it_can() -> None:
    table, _ = play(seated(HOLDEM, 1, 2, 3))
    table, _ = play(table)  # button 2, blinds 3 and 1
    table = run(table, StandUp(1))
    table, third = play(table)
    assert (third.deal.button, third.deal.small_blind, third.deal.big_blind) == (3, 3, 2)


def test_a_new_game_never_puts_the_last_big_blind_in_it_again() -> None:
    # Heads-up, seat 2 had the button and seat 1 the big blind; seat 2 left and
    # seats 3 and 4 sat down: the button would go to 3 and the big blind to 1.
    lineup = blind_lineup([1], [3, 4], [], last_button=2, last_big_blind=1)
    assert (lineup.button, lineup.seats, lineup.small_blind, lineup.big_blind) == (
        4,
        (1, 3, 4),
        1,
        3,
    )


def test_everyone_seated_before_the_first_hand_is_dealt_in() -> None:
    table = opened(HOLDEM)
    table = run(
        table,
        SitDown(4, "a", 100, at=0),
        SitDown(2, "b", 100, at=0, post_now=True),
        SitDown(6, "c", 100, at=0),
    )
    _, dealt = deal(table)
    assert [s.seat for s in dealt.deal.seats] == [2, 4, 6]
    assert (dealt.deal.button, dealt.deal.small_blind, dealt.deal.big_blind) == (2, 4, 6)
    assert dealt.deal.extra_big_blinds == ()


def test_a_newcomer_waits_for_the_big_blind() -> None:
    table, _ = play(seated(HOLDEM, 1, 3, 5))  # button 1, blinds 3 and 5
    table = run(table, SitDown(4, "new", 100, at=0))
    lineups = []
    for _ in range(3):
        table, dealt = play(table)
        d = dealt.deal
        lineups.append((d.button, d.small_blind, d.big_blind, len(d.seats)))
    assert lineups == [(3, 5, 1, 3), (5, 1, 3, 3), (1, 3, 4, 4)]
    assert table.seat(4) == Seat(4, "new", 100, Entry.PLAYING)


def test_a_newcomer_may_post_a_big_blind_to_play_at_once() -> None:
    table, _ = play(seated(HOLDEM, 1, 3, 5))
    table, events = step(table, SitDown(2, "new", 100, at=0, post_now=True))
    assert events == [SatDown(2, "new", 100, 0, Entry.POSTING)]
    table, dealt = play(table)
    assert [s.seat for s in dealt.deal.seats] == [1, 2, 3, 5]
    assert (dealt.deal.button, dealt.deal.small_blind, dealt.deal.big_blind) == (3, 5, 1)
    assert dealt.deal.extra_big_blinds == (2,)
    _, dealt = play(table)
    assert dealt.deal.extra_big_blinds == ()  # once in, a regular


def test_a_newcomer_cannot_post_into_the_seat_behind_the_button() -> None:
    table, _ = play(seated(HOLDEM, 1, 3, 5))
    table = run(table, SitDown(4, "new", 100, at=0, post_now=True))
    table, dealt = play(table)  # button 3, small blind 5: seat 4 is between them
    assert 4 not in [s.seat for s in dealt.deal.seats]
    _, dealt = play(table)
    assert (dealt.deal.button, dealt.deal.small_blind, dealt.deal.big_blind) == (5, 1, 3)
    assert dealt.deal.extra_big_blinds == (4,)


def test_a_newcomer_posting_where_the_big_blind_falls_posts_only_that() -> None:
    table, _ = play(seated(HOLDEM, 1, 3, 5))
    table = run(table, SitDown(6, "new", 100, at=0, post_now=True))
    _, dealt = play(table)
    assert (dealt.deal.button, dealt.deal.small_blind, dealt.deal.big_blind) == (3, 5, 6)
    assert dealt.deal.extra_big_blinds == ()


def test_a_newcomer_is_dealt_in_at_once_when_the_game_needs_them() -> None:
    table, _ = play(seated(HOLDEM, 1, 2))
    table = run(table, StandUp(2), SitDown(5, "new", 100, at=0))
    _, dealt = play(table)
    assert [s.seat for s in dealt.deal.seats] == [1, 5]


def test_the_deal_gives_the_hand_decider_its_start() -> None:
    table = run(seated(HOLDEM, 1, 2), AddChips(2, 20))
    table, dealt = deal(table, at=77)
    assert dealt == HandDealt(
        hand=1,
        at=77,
        deal=Deal(
            button=1,
            seats=(SeatAtStart(1, "p1", 100), SeatAtStart(2, "p2", 120)),
            antes=True,
            small_blind=1,
            big_blind=2,
        ),
        commitment=commitment(SEED),
    )
    assert table.dealt == (1, 2)
    table = run(table, EndHand(((1, 90), (2, 130))))
    _, second = deal(table)
    assert second.hand == 2
    assert second.deal.seats == (SeatAtStart(1, "p1", 90), SeatAtStart(2, "p2", 130))


def test_players_without_chips_are_not_dealt_in() -> None:
    table, _ = deal(seated(STUD, 1, 2, 3, stack=60))
    table = run(table, EndHand(((1, 120), (2, 0), (3, 60))))
    table, dealt = deal(table)
    assert [s.seat for s in dealt.deal.seats] == [1, 3]
    assert _stack(table, 2) == 0  # still seated
    table = run(table, EndHand(((1, 180), (3, 0))))
    refused(table, DealHand(0, SEED), TooFewPlayersError, "two players with chips; only seat 1")
    table = run(table, AddChips(3, 40))
    _, dealt = deal(table)
    assert [s.seat for s in dealt.deal.seats] == [1, 3]


def test_dealing_is_refused() -> None:
    refused(opened(), DealHand(0, SEED), TooFewPlayersError, "nobody has chips")
    table = seated(HOLDEM, 1, 2)
    refused(table, DealHand(0, b"abc"), SeedError, "exactly 32 bytes, not 3")
    table, _ = deal(table)
    refused(table, DealHand(0, SEED), HandInProgressError, "a hand is already being played")


# ---- time charge


def timed(*seats: int, stack: int = 100) -> Table:
    """A hold'em table opened at 1000 with a 5-chip charge per half hour."""
    config = TableConfig(HOLDEM, 6, time_charge=TimeCharge(5))
    table = run(Table(), OpenTable(config, at=1000))
    return run(table, *(SitDown(s, f"p{s}", stack, at=1000) for s in seats))


def test_every_player_pays_once_per_window_before_their_first_hand() -> None:
    table, events = step(timed(1, 2), DealHand(1000, SEED))
    assert events[:2] == [TimeCharged(1, 5, 0), TimeCharged(2, 5, 0)]
    dealt = events[2]
    assert isinstance(dealt, HandDealt)
    assert [s.stack for s in dealt.deal.seats] == [95, 95]
    table = run(table, unchanged(table))
    table, events = step(table, DealHand(2799, SEED))  # still the first window
    assert [type(e) for e in events] == [HandDealt]
    table = run(table, unchanged(table))
    table, events = step(table, DealHand(2800, SEED))  # the second window opens at 2800
    assert events[:2] == [TimeCharged(1, 5, 1), TimeCharged(2, 5, 1)]
    assert table.house == 20
    assert table.chips + table.house == 200


def test_a_newcomer_pays_for_the_window_they_sit_down_in() -> None:
    table, _ = play(timed(1, 2), at=1000)
    table = run(table, SitDown(3, "new", 100, at=2700))
    # Seated, though waiting for the big blind: the charge is for the seat.
    table, events = step(table, DealHand(2750, SEED))
    assert events[:-1] == [TimeCharged(3, 5, 0)]
    table = run(table, unchanged(table))
    _, events = step(table, DealHand(2800, SEED))
    assert events[:-1] == [TimeCharged(1, 5, 1), TimeCharged(2, 5, 1), TimeCharged(3, 5, 1)]


def test_a_player_short_of_the_charge_pays_all_they_have() -> None:
    table, _ = deal(timed(1, 2, 3), at=1000)
    table = run(table, EndHand(((1, 3), (2, 190), (3, 92))))
    table, events = step(table, DealHand(2800, SEED))
    assert events[0] == TimeCharged(1, 3, 1)
    dealt = events[-1]
    assert isinstance(dealt, HandDealt)
    assert [s.seat for s in dealt.deal.seats] == [2, 3]
    assert table.chips + table.house == 300


def test_no_charge_is_taken_for_a_deal_that_is_refused() -> None:
    table, _ = deal(timed(1, 2), at=1000)
    table = run(table, EndHand(((1, 4), (2, 186))))
    refused(table, DealHand(2800, SEED), TooFewPlayersError, "only seat 2 has chips")


def test_a_clock_that_steps_back_charges_nobody_twice() -> None:
    table, _ = play(timed(1, 2), at=5000)  # window 2
    _, events = step(table, DealHand(1000, SEED))
    assert [type(e) for e in events] == [HandDealt]


# ---- jackpots' carried pot


def test_a_passed_pot_takes_antes_on_three_deals_then_none() -> None:
    table = seated(JACKPOTS, 1, 2, 3, stack=50)
    for deals in range(3):
        table, dealt = deal(table)
        assert dealt.deal.antes
        assert dealt.deal.button == deals + 1  # the button moves on each passed deal
        assert {s.carried for s in dealt.deal.seats} == {deals}
        table = run(table, passed_out(dealt))
    assert table.pot.deals == 3
    table, dealt = deal(table)
    assert not dealt.deal.antes
    assert dealt.deal.seats == tuple(SeatAtStart(n, f"p{n}", 47, carried=3) for n in (1, 2, 3))
    table = run(table, passed_out(dealt))
    table, dealt = deal(table)
    assert not dealt.deal.antes
    table = run(table, won_by(dealt, 2, pot=4))
    assert table.pot.total == 0
    # Seat 2 takes 2 from each of the others and the 9 carried.
    assert [_stack(table, n) for n in (1, 2, 3)] == [45, 60, 45]
    _, dealt = deal(table)
    assert dealt.deal.antes  # a new pot


def test_a_newcomer_joins_a_carried_pot_with_the_antes_everyone_paid() -> None:
    table = seated(JACKPOTS, 1, 2, stack=50)
    for _ in range(4):
        table, dealt = deal(table)
        table = run(table, passed_out(dealt))
    table, events = step(table, SitDown(4, "new", 60, at=0, join_pot=True))
    assert events == [SatDown(4, "new", 60, 0, Entry.PLAYING), JoinedPot(4, 3)]  # capped at 3
    _, dealt = deal(table)
    assert SeatAtStart(4, "new", 57, carried=3) in dealt.deal.seats
    assert len(dealt.deal.seats) == 3


def test_a_newcomer_who_does_not_join_waits_until_the_pot_is_won() -> None:
    table = seated(JACKPOTS, 1, 2, stack=50)
    table, dealt = deal(table)
    table = run(table, passed_out(dealt), SitDown(3, "new", 50, at=0))
    table, dealt = deal(table)
    assert [s.seat for s in dealt.deal.seats] == [1, 2]
    table = run(table, passed_out(dealt))
    table, dealt = deal(table)
    assert [s.seat for s in dealt.deal.seats] == [1, 2]
    table = run(table, won_by(dealt, 1, pot=2))
    _, dealt = deal(table)
    assert [s.seat for s in dealt.deal.seats] == [1, 2, 3]


def test_joining_when_no_pot_carries_costs_nothing() -> None:
    table = seated(JACKPOTS, 1, 2, stack=50)
    table, events = step(table, SitDown(3, "new", 50, at=0, join_pot=True))
    assert events == [SatDown(3, "new", 50, 0, Entry.PLAYING)]
    _, dealt = deal(table)
    assert len(dealt.deal.seats) == 3


def test_joining_costs_more_than_a_small_buy_in() -> None:
    table = seated(JACKPOTS, 1, 2, stack=50, min_buy_in=2)
    for _ in range(3):
        table, dealt = deal(table)
        table = run(table, passed_out(dealt))
    command = SitDown(3, "new", 2, at=0, join_pot=True)
    refused(table, command, BuyInError, "joining costs the 3 antes each player in it paid, 3")


def test_a_player_who_leaves_forfeits_their_share() -> None:
    table = seated(JACKPOTS, 1, 2, 3, stack=50)
    for _ in range(2):
        table, dealt = deal(table)
        table = run(table, passed_out(dealt))
    table, events = step(table, StandUp(2))
    assert events == [StoodUp(2, "p2", 48, forfeited=2)]
    assert (table.pot.entitled, table.pot.dead, table.pot.total) == ((1, 3), 2, 6)
    _, dealt = deal(table)
    assert [(s.seat, s.carried) for s in dealt.deal.seats] == [(1, 2), (3, 2)]
    assert dealt.deal.dead == 2


def test_the_last_entitled_player_wins_the_carried_pot() -> None:
    table = seated(JACKPOTS, 1, 2, 3, stack=50)
    table, dealt = deal(table)
    table = run(table, passed_out(dealt), StandUp(3))
    table, events = step(table, StandUp(1))
    assert events == [StoodUp(1, "p1", 49, forfeited=1), CarriedPotWon(2, 3)]
    assert _stack(table, 2) == 52
    assert table.pot.total == 0


def test_a_player_leaving_during_a_passed_deal_forfeits_when_it_ends() -> None:
    table = seated(JACKPOTS, 1, 2, stack=50)
    table, dealt = deal(table)
    table, events = step(table, StandUp(1))
    assert events == [LeavingAfterHand(1)]
    table, events = step(table, passed_out(dealt))
    assert isinstance(events[0], HandFinished)
    assert events[1:] == [StoodUp(1, "p1", 49, forfeited=1), CarriedPotWon(2, 2)]
    assert _stack(table, 2) == 51


def test_a_player_all_in_from_the_antes_stays_in_the_carried_pot() -> None:
    table = seated(JACKPOTS, 1, 2, stack=50, min_buy_in=1)
    table = run(table, SitDown(3, "short", 1, at=0))
    table, dealt = deal(table)
    table = run(table, passed_out(dealt))
    _, dealt = deal(table)
    assert SeatAtStart(3, "short", 0, carried=1) in dealt.deal.seats


def test_a_carried_pot_needs_two_of_its_players_with_chips() -> None:
    table = seated(JACKPOTS, 3, stack=50, min_buy_in=1)
    table = run(table, SitDown(1, "a", 1, at=0), SitDown(2, "b", 1, at=0))
    table, dealt = deal(table)
    table = run(table, passed_out(dealt), SitDown(4, "new", 50, at=0))
    refused(
        table,
        DealHand(0, SEED),
        TooFewPlayersError,
        r"played for by seats \(1, 2, 3\).*only seat 3 has chips",
    )


def test_when_every_entitled_player_leaves_the_dead_money_starts_a_new_pot() -> None:
    table = seated(JACKPOTS, 1, 2, stack=50)
    table, dealt = deal(table)
    table = run(table, StandUp(1), StandUp(2), passed_out(dealt))
    assert (table.pot.entitled, table.pot.dead, table.pot.deals) == ((), 2, 0)
    table = run(table, SitDown(3, "new", 50, at=0), SitDown(4, "late", 50, at=0))
    _, dealt = deal(table)
    assert [s.seat for s in dealt.deal.seats] == [3, 4]
    assert (dealt.deal.antes, dealt.deal.dead) == (True, 2)


# ---- ending a hand


def test_the_rake_leaves_the_table_with_the_house() -> None:
    raked = Rules(Game.HOLDEM, HOLDEM.stakes, rake=Rake(500, 3))
    table, _ = deal(seated(raked, 1, 2))
    table, events = step(table, EndHand(((1, 80), (2, 117)), rake=3))
    assert events == [HandFinished(((1, 80), (2, 117)), rake=3)]
    assert (table.chips, table.house, table.dealt) == (197, 3, None)


@pytest.mark.parametrize(
    ("command", "match"),
    [
        (EndHand(((1, 100),)), r"one stack for each seat dealt in \(1, 2\), not for \(1\)"),
        (EndHand(((1, 100), (2, 100), (3, 0))), "not for \\(1, 2, 3\\)"),
        (EndHand(((1, 100), (1, 100))), "not for \\(1, 1\\)"),
        (EndHand(((1, 201), (2, -1))), "cannot be negative"),
        (EndHand(((1, 100), (2, 100)), rake=-1), "cannot be negative"),
        (EndHand(((1, 101), (2, 100))), "does not add up: 200 chips were in play, not 201"),
        (EndHand(((1, 99), (2, 100)), rake=1), "this table takes no rake"),
        (EndHand(((1, 99), (2, 99)), PassedOut(((1, 1), (2, 1)), 0)), "not holdem"),
    ],
)
def test_a_result_that_does_not_fit_the_hand_is_refused(command: EndHand, match: str) -> None:
    table, _ = deal(seated(HOLDEM, 1, 2))
    refused(table, command, HandResultError, match)


@pytest.mark.parametrize(
    ("passed", "match"),
    [
        (PassedOut(((1, 1), (3, 1)), 0), r"only the seats dealt in \(1, 2\) have a share"),
        (PassedOut(((1, 1), (1, 1)), 0), "only the seats dealt in"),
        (PassedOut(((1, 2), (2, 1)), -1), "cannot hold a negative amount"),
        (PassedOut(((1, 1), (2, 2)), 0), "does not add up: 100 chips were in play, not 101"),
    ],
)
def test_a_passed_out_result_that_does_not_fit_is_refused(passed: PassedOut, match: str) -> None:
    table, _ = deal(seated(JACKPOTS, 1, 2, stack=50))
    refused(table, EndHand(((1, 49), (2, 49)), passed), HandResultError, match)


def test_no_hand_no_result() -> None:
    table = seated(HOLDEM, 1, 2)
    refused(table, EndHand(((1, 100), (2, 100))), NoHandInProgressError, "no hand is being played")


# ---- random play


SEATS = 4


def _end_hand(data: st.DataObject, table: Table) -> EndHand:
    """A result that adds up (sometimes one chip off): the hand's chips cut at
    random among the stacks, and for a passed jackpots deal the carried pot."""
    assert table.dealt is not None
    assert table.config is not None
    total = sum(_stack(table, n) for n in table.dealt) + table.pot.total
    passed = table.config.rules.game is Game.JACKPOTS and data.draw(st.booleans())
    parts = len(table.dealt) * (2 if passed else 1) + (1 if passed else 0)
    cuts = sorted(
        data.draw(st.lists(st.integers(0, total), min_size=parts - 1, max_size=parts - 1))
    )
    amounts = [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=True)]
    amounts[0] += data.draw(st.sampled_from([0, 0, 0, 1]))
    stacks = tuple(zip(table.dealt, amounts, strict=False))
    if not passed:
        return EndHand(stacks)
    carried = tuple(zip(table.dealt, amounts[len(table.dealt) :], strict=False))
    return EndHand(stacks, PassedOut(carried, amounts[-1]))


def _command(data: st.DataObject, table: Table, now: int) -> TableCommand:
    """Mostly commands that could be right just now, some that cannot."""
    seat = st.sampled_from([*range(1, SEATS + 1)] * 3 + [0, SEATS + 1])
    rarely = st.sampled_from([False, False, False, True])
    if table.dealt is None:
        kinds = ["sit", "sit", "deal", "deal", "deal", "stand", "add", "end"]
    else:
        kinds = ["end", "end", "end", "end", "stand", "sit", "add", "deal", "bank"]
    kind = data.draw(st.sampled_from(kinds))
    if kind == "bank":
        return UseTimeBank(data.draw(seat), data.draw(st.integers(1, 4)))
    if kind == "sit":
        return SitDown(
            data.draw(seat),
            data.draw(st.sampled_from(["ann", "bob", "cy", "dee", "eve"])),
            data.draw(st.integers(5, 105)),
            now,
            post_now=data.draw(rarely),
            join_pot=data.draw(st.booleans() if table.pot.shares else rarely),
        )
    if kind == "stand":
        return StandUp(data.draw(seat))
    if kind == "add":
        return AddChips(data.draw(seat), data.draw(st.integers(-5, 100)))
    if kind == "deal":
        return DealHand(now, data.draw(st.sampled_from([SEED] * 5 + [b"short"])))
    if table.dealt is None or data.draw(rarely):
        return EndHand(((1, data.draw(st.integers(0, 50))),))
    return _end_hand(data, table)


def _money(events: Sequence[TableEvent]) -> int:
    """Chips brought to the table less chips taken away."""
    total = 0
    for event in events:
        if isinstance(event, SatDown):
            total += event.buy_in
        elif isinstance(event, ChipsAdded):
            total += event.amount
        elif isinstance(event, StoodUp):
            total -= event.stack
    return total


# A mixed table whose stakes hold every game's forced bets, dealing hold'em,
# stud high-low and Omaha high-low for an orbit or two hands each.
MIXED = Rules(
    Game.HOLDEM,
    Stakes(Structure.FIXED_LIMIT, 2, 4, ante=1, small_blind=1, big_blind=2, bring_in=1),
)
BANK = 40
MIXES = [Rotation((Game.HOLDEM, Game.STUD_HI_LO, Game.OMAHA_HI_LO), hands) for hands in (0, 2)]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([(HOLDEM, None), (JACKPOTS, None), (STUD, None), *((MIXED, m) for m in MIXES)]),
    st.data(),
)
def test_random_play_conserves_chips_and_replays(
    table_rules: tuple[Rules, Rotation | None], data: st.DataObject
) -> None:
    rules, rotation = table_rules
    config = TableConfig(
        rules,
        SEATS,
        min_buy_in=10,
        max_buy_in=100,
        time_charge=TimeCharge(3, 600),
        rotation=rotation,
        time_bank=TimeBank(BANK, 15),
    )
    table = run(Table(), OpenTable(config, at=0))
    log: list[TableEvent] = [*decide(Table(), OpenTable(config, at=0))]
    now = 0
    for _ in range(data.draw(st.integers(0, 60))):
        now += data.draw(st.integers(-50, 400))
        command = _command(data, table, now)
        try:
            events = decide(table, command)
        except RuleError:
            continue
        table = reduce(evolve, events, table)
        log.extend(events)
        assert table.chips + table.house == _money(log)
        assert all(s.stack >= 0 for s in table.seats)
        assert all(0 <= s.bank <= BANK for s in table.seats)
        assert table.banked is None or table.dealt is not None
        assert set(table.pot.entitled) <= {s.number for s in table.seats}
        assert len(table.pot.entitled) != 1
        turn = table.turn
        assert (turn is None) == (rotation is None or table.hands == 0)
        assert turn is None or 1 <= turn.hand <= turn.hands
    assert reduce(evolve, log, Table()) == table


def _entry(table: Table, number: int) -> Entry:
    seat = table.seat(number)
    assert seat is not None
    return seat.entry


# ---- a tournament director's commands


def _tournament_table() -> Table:
    rules = Rules(Game.HOLDEM, Stakes(Structure.NO_LIMIT, 2, small_blind=1, big_blind=2))
    opened = decide(Table(), OpenTable(TableConfig(rules, 6), at=0))
    return reduce(evolve, opened, Table())


def test_a_seated_tournament_player_is_dealt_in_at_once_with_any_stack() -> None:
    """A hold'em newcomer who buys in waits for the big blind; a player the
    director seats (drawn or moved) is a regular, with a stack no buy-in
    limit allows."""
    state = _tournament_table()
    bought = decide(state, SitDown(1, "ann", 100, at=0))
    seated = decide(state, SeatPlayer(1, "ann", 3, at=0))
    assert [e.entry for e in bought if isinstance(e, SatDown)] == [Entry.WAITING]
    assert seated == [SatDown(1, "ann", 3, 0, Entry.PLAYING)]
    with pytest.raises(BuyInError):
        decide(state, SeatPlayer(2, "bob", 0, at=0))
    after = reduce(evolve, seated, state)
    with pytest.raises(SeatUnavailableError):
        decide(after, SeatPlayer(1, "bob", 3, at=0))
    with pytest.raises(SeatUnavailableError):
        decide(after, SeatPlayer(2, "ann", 3, at=0))


def test_the_stakes_change_between_hands_within_the_structure() -> None:
    state = _tournament_table()
    higher = Stakes(Structure.NO_LIMIT, 4, small_blind=2, big_blind=4, ante=1)
    changed = decide(state, ChangeStakes(higher))
    assert changed == [StakesChanged(higher)]
    after = reduce(evolve, changed, state)
    assert after.config is not None
    assert after.config.rules.stakes == higher
    assert decide(after, ChangeStakes(higher)) == []
    pot_limit = Stakes(Structure.POT_LIMIT, 2, small_blind=1, big_blind=2)
    with pytest.raises(GameOptionError):
        decide(state, ChangeStakes(pot_limit))
    for event in decide(after, SeatPlayer(1, "ann", 50, at=0)) + decide(
        after, SeatPlayer(2, "bob", 50, at=0)
    ):
        after = evolve(after, event)
    playing = reduce(
        evolve,
        decide(after, DealHand(at=1, seed=bytes(32))),
        after,
    )
    with pytest.raises(HandInProgressError):
        decide(playing, ChangeStakes(higher))
