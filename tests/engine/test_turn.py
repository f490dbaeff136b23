"""Whom the hand waits on and what that seat may do (``turn.waiting_on``,
``turn.choices``), one stacked hand per game; ``test_properties.py`` holds
the same functions to the independent judge on random hands."""

from __future__ import annotations

import pytest

from feltline.engine.errors import IllegalDraw
from feltline.engine.hand.commands import Act, Draw
from feltline.engine.hand.events import Action
from feltline.engine.hand.rules import Game, Rules
from feltline.engine.hand.script import Phase
from feltline.engine.hand.turn import Choices, choices, waiting_on

from .draw_table import DECLARE, FIXED
from .draw_table import deal as deal_draw
from .stacked import deal
from .test_draw_declare import check_around, stand_pat
from .test_holdem import NL
from .test_stud import FOUR, STUD, play

A = Action


def test_hold_em_first_to_act_calls_the_big_blind_or_raises_up_to_its_stack() -> None:
    t = deal(NL, [1000, 1000, 400], button=0, small_blind=1, big_blind=2)
    assert waiting_on(t.hand) == (0,)
    assert choices(t.hand, 0) == Choices((A.CALL, A.FOLD, A.RAISE), 10, 20, 1000)
    assert choices(t.hand, 1) is None
    assert choices(t.hand, 2) is None
    t.act(0, "call")
    t.act(1, "call")
    # the big blind's option: no call, a raise to at most its 400
    assert choices(t.hand, 2) == Choices((A.CHECK, A.FOLD, A.RAISE), 0, 20, 400)


def test_a_short_all_in_leaves_the_seat_that_acted_only_a_call() -> None:
    t = deal(NL, [1000, 1000, 25], button=0, small_blind=1, big_blind=2)
    t.act(0, "raise", 20)
    t.act(1, "fold")
    t.act(2, "raise", 25)  # all in, five more: not a full raise
    assert waiting_on(t.hand) == (0,)
    assert choices(t.hand, 0) == Choices((A.CALL, A.FOLD), 5, 0, 0)


def test_nobody_is_waited_on_once_the_hand_is_over() -> None:
    t = deal(NL, [1000, 1000], button=0, small_blind=0, big_blind=1)
    t.act(0, "fold")
    assert t.hand.phase is Phase.ENDED
    assert waiting_on(t.hand) == ()
    assert choices(t.hand, 0) is None
    assert choices(t.hand, 1) is None


def test_the_stud_low_card_must_bring_in_or_complete() -> None:
    t = play(STUD, {0: 100, 1: 100, 2: 100, 3: 100}, FOUR, button=3)
    assert waiting_on(t.hand) == (1,)
    assert choices(t.hand, 1) == Choices((A.BRING_IN, A.COMPLETE), 2, 4, 4)


def test_left_of_a_low_card_all_in_from_the_ante_the_bring_in_may_be_folded() -> None:
    t = play(STUD, {0: 100, 1: 1, 2: 100, 3: 100}, FOUR, button=3)
    assert waiting_on(t.hand) == (2,)
    offered = choices(t.hand, 2)
    assert offered == Choices((A.BRING_IN, A.FOLD, A.COMPLETE), 2, 4, 4)
    t.do(Act(2, A.FOLD))  # and the engine takes the fold it offered
    assert waiting_on(t.hand) == (3,)


def test_a_draw_offers_up_to_the_table_s_limit() -> None:
    t = deal_draw(DECLARE, [200] * 3, button=2)
    check_around(t)
    seat = waiting_on(t.hand)[0]
    assert choices(t.hand, seat) == Choices(draw=True, max_discards=5)
    assert all(choices(t.hand, s) is None for s in (0, 1, 2) if s != seat)


def test_a_duplicate_deal_offers_the_full_table_s_limit_the_engine_holds_to() -> None:
    """Five players at a six-seat duplicate table draw at most three, as a
    full table does, not the five a table of five would allow."""
    t = deal_draw(Rules(Game.DRAW_DECLARE, FIXED, fixed_seats=6), [200] * 5, button=4)
    check_around(t)
    seat = waiting_on(t.hand)[0]
    offered = choices(t.hand, seat)
    assert offered == Choices(draw=True, max_discards=3)
    held = t.holding(seat)
    with pytest.raises(IllegalDraw, match="the limit is 3"):
        t.do(Draw(seat, held[:4]))
    t.do(Draw(seat, held[:3]))


def test_every_seat_yet_to_declare_is_waited_on_at_once() -> None:
    t = deal_draw(DECLARE, [200] * 3, button=2)
    check_around(t)
    stand_pat(t)
    check_around(t)
    assert t.hand.phase is Phase.DECLARING
    assert sorted(waiting_on(t.hand)) == [0, 1, 2]
    t.declare(1, "high")
    assert sorted(waiting_on(t.hand)) == [0, 2]
    assert choices(t.hand, 1) is None
    assert choices(t.hand, 0) == choices(t.hand, 2) == Choices(declare=True)
