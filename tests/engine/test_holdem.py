import pytest

from feltline.engine.errors import IllegalAction, IllegalAmount, NotYourTurn, RuleError
from feltline.engine.events import Acted, BetsCollected, HandEnded, Posted, PotAwarded
from feltline.engine.rules import Game, Rules, Stakes, Structure
from feltline.engine.state import Phase

from .stacked import deal

NL = Rules(Game.HOLDEM, Stakes(Structure.NO_LIMIT, small_bet=10, small_blind=5, big_blind=10))


def test_heads_up_button_posts_small_blind_acts_first_then_last() -> None:
    t = deal(NL, {0: 1000, 1: 1000}, button=0, small_blind=0, big_blind=1)
    assert t.hand.to_act == 0
    t.act(0, "call")
    t.act(1, "check")
    assert t.hand.to_act == 1  # the button acts last after the flop


def test_big_blind_has_the_option_in_an_unraised_pot() -> None:
    t = deal(NL, [1000, 1000, 1000], button=0, small_blind=1, big_blind=2)
    t.act(0, "call")
    t.act(1, "call")
    assert t.hand.to_act == 2
    t.act(2, "raise", 30)
    assert t.hand.round.pending == (0, 1)


def test_minimum_raise_is_named_in_the_error_and_nothing_changes() -> None:
    t = deal(NL, [1000, 1000, 1000], button=0, small_blind=1, big_blind=2)
    before = list(t.events)
    with pytest.raises(IllegalAmount, match="seat 0 cannot raise to 15: raise to 20 to 1000"):
        t.act(0, "raise", 15)
    with pytest.raises(NotYourTurn, match="seat 1 cannot act: it is seat 0's turn"):
        t.act(1, "fold")
    with pytest.raises(IllegalAction, match="cannot check: 10 to call"):
        t.act(0, "check")
    assert t.events == before


def test_short_all_in_does_not_reopen_the_betting() -> None:
    t = deal(NL, {0: 1000, 1: 1000, 2: 150}, button=2, small_blind=0, big_blind=1)
    # seat 2 (button) acts first preflop three-handed
    t.act(2, "call")
    t.act(0, "call")
    t.act(1, "check")
    # flop: seat 0 bets 100, seat 1 calls, seat 2 raises all in to 140 (short)
    t.act(0, "bet", 100)
    t.act(1, "call")
    t.act(2, "raise", 140)
    assert t.hand.round.pending == (0, 1)
    with pytest.raises(IllegalAction, match="not reopened"):
        t.act(0, "raise", 300)
    t.act(0, "call")
    t.act(1, "call")
    assert t.hand.rounds == 2  # the flop round closed; the turn is dealt


def test_pot_limit_largest_raise_matches_the_rules_example() -> None:
    pl = Rules(Game.HOLDEM, Stakes(Structure.POT_LIMIT, small_bet=10, small_blind=5, big_blind=10))
    t = deal(pl, [2000, 2000, 2000], button=0, small_blind=1, big_blind=2)
    # preflop: everyone calls 10; pot 30. Then make the flop pot 100 and a bet of 50.
    t.act(0, "call")
    t.act(1, "call")
    t.act(2, "check")
    # pot 30 and a bet of 30: C = 30, P = 60, raise to at most 30 + 60 + 30
    assert t.hand.pot == 30
    t.act(1, "bet", 30)
    with pytest.raises(IllegalAmount, match="raise to 60 to 120"):
        t.act(2, "raise", 121)


def test_side_pots_and_uncalled_bet() -> None:
    t = deal(
        NL,
        {0: 50, 1: 1000, 2: 200},
        "As Kd 2c Ah Kh 3d 7s 8s 9d Jc 4h",
        button=0,
        small_blind=1,
        big_blind=2,
    )
    t.act(0, "raise", 50)
    t.act(1, "raise", 600)
    t.act(2, "call")
    awards = t.of(PotAwarded)
    collected = t.of(BetsCollected)
    assert collected[0].returned_to == 1
    assert collected[0].returned == 400
    assert [a.amount for a in awards] == [150, 300]
    assert [a.eligible for a in awards] == [(0, 1, 2), (1, 2)]
    ended = t.of(HandEnded)[0]
    assert sum(dict(ended.stacks).values()) == 1250
    assert t.hand.chips == 1250


def test_every_action_keeps_chips_constant() -> None:
    t = deal(NL, [300, 300, 300, 300], button=3, small_blind=0, big_blind=1)
    total = t.hand.chips
    for seat, action, amount in [
        (2, "raise", 30),
        (3, "call", 0),
        (0, "fold", 0),
        (1, "call", 0),
        (1, "check", 0),
        (2, "bet", 50),
        (3, "raise", 270),
        (1, "fold", 0),
        (2, "call", 0),
    ]:
        t.act(seat, action, amount)
        assert t.hand.chips == total
    assert t.hand.phase is Phase.ENDED
    assert len([e for e in t.events if isinstance(e, Acted)]) == 9


def test_no_bet_when_nobody_else_can_call() -> None:
    t = deal(NL, {0: 1000, 1: 20}, button=0, small_blind=0, big_blind=1)
    t.act(0, "raise", 20)
    # seat 1 is all in from the big blind... it has 10 behind and must call or fold
    with pytest.raises(RuleError):
        t.act(1, "raise", 40)


def test_a_newcomer_posting_at_once_has_a_live_big_blind() -> None:
    t = deal(
        NL, [1000, 1000, 1000, 1000], button=0, small_blind=1, big_blind=2, extra_big_blinds=(3,)
    )
    posted = [(e.seat, e.amount) for e in t.of(Posted)]
    assert posted == [(1, 5), (2, 10), (3, 10)]
    assert t.hand.to_act == 3
    t.act(3, "check")  # the posted blind is live: it completes the call
    t.act(0, "call")
    t.act(1, "call")
    t.act(2, "check")
    assert t.hand.pot == 40


def test_extra_big_blind_must_be_a_seat_without_another_blind() -> None:
    with pytest.raises(IllegalAction, match="extra big blind"):
        deal(NL, [1000, 1000, 1000], button=0, small_blind=1, big_blind=2, extra_big_blinds=(2,))


def test_the_hand_ends_as_soon_as_all_but_one_have_folded() -> None:
    t = deal(NL, {0: 1000, 1: 1000}, button=0, small_blind=0, big_blind=1)
    t.act(0, "fold")  # the big blind, alone, has nobody left to act against
    assert t.hand.phase is Phase.ENDED
    ended = t.events[-1]
    assert isinstance(ended, HandEnded)
    assert dict(ended.stacks) == {0: 995, 1: 1005}
