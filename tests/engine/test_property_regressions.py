"""Bugs the property tests found, each pinned down by a stacked hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from feltline.engine.cards.card import parse_cards
from feltline.engine.errors import ConfigError
from feltline.engine.hand.commands import Act, Draw, TimeOut
from feltline.engine.hand.events import Action
from feltline.engine.hand.rules import Game, Rules, Stakes, Structure
from feltline.engine.hand.script import Phase

from .stacked import Table, deal

JACKPOTS = Rules(
    Game.JACKPOTS,
    Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=5, raise_cap=4),
)
DECLARE = Rules(
    Game.DRAW_DECLARE,
    Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=5, raise_cap=4),
)


def check_and_stand_pat_to_the_declaration(t: Table) -> None:
    while t.hand.phase in (Phase.BETTING, Phase.DRAWING):
        hand = t.hand
        if hand.phase is Phase.BETTING:
            seat = hand.to_act
            assert seat is not None
            t.do(Act(seat, Action.CHECK))
        else:
            t.do(Draw(hand.round.pending[0], ()))
    assert t.hand.phase is Phase.DECLARING


def test_a_hand_folded_by_the_declaration_clock_goes_to_the_muck() -> None:
    # A fold is a fold: like a hand folded in the betting, a declaration not
    # made in time puts the cards in the muck, so every card stays in one place.
    t = deal(DECLARE, [200, 200, 200], "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac 2d 3d", button=2)
    check_and_stand_pat_to_the_declaration(t)
    held = t.hand.player(1).cards
    assert held == parse_cards("3c 6c 9c Qc 2d")
    t.do(TimeOut(1))
    assert t.hand.player(1).folded
    assert t.hand.muck == held


def test_dead_chips_alone_in_the_pot_go_to_the_player_who_wins_it() -> None:
    # Chips forfeited by players who left stay in a jackpots pot; when the
    # players still in have put nothing in by the end (a bet nobody called
    # goes back), the dead chips are the whole pot and the winner takes them.
    t = deal(
        JACKPOTS,
        {0: 100, 1: 100},
        "Jc 2d Jd 3d 4c 5d 6c 7d 8c 9h",
        button=1,
        antes=False,
        dead=10,
    )
    t.do(Act(0, Action.BET, 10), Act(1, Action.FOLD))
    assert t.hand.phase is Phase.ENDED
    assert [(p.seat, p.stack) for p in t.hand.players] == [(0, 110), (1, 100)]
    assert t.hand.chips == 210


@pytest.mark.parametrize(
    ("small", "large", "fixed"),
    [(-1, 3, 0), (5, -1, 0), (6, 3, 0), (5, 4, 6), (5, 5, 6)],
)
def test_draw_limits_a_hand_cannot_deal_are_refused(small: int, large: int, fixed: int) -> None:
    # A negative limit would refuse even standing pat; more than five is
    # more than a player holds; and a duplicate table of six reserving four
    # or five cards a seat needs 6 x (5 + 4) = 54 cards or more.
    rules = replace(DECLARE, draw_limit_small=small, draw_limit_large=large, fixed_seats=fixed)
    with pytest.raises(ConfigError, match="draw"):
        rules.validate()


def test_the_largest_duplicate_draw_table_still_fits_the_deck() -> None:
    assert replace(DECLARE, fixed_seats=6).validate().draw_limit(6) == 3
    assert replace(DECLARE, fixed_seats=5, draw_limit_small=5).validate().draw_limit(5) == 5
