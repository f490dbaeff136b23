import pytest

from feltline.engine.cards.card import parse_cards
from feltline.engine.errors import IllegalAction, IllegalAmount, NotYourTurn, RuleError
from feltline.engine.hand.events import (
    Acted,
    BetsCollected,
    BoardDealt,
    CardDealt,
    HandEnded,
    Posted,
    PotAwarded,
    StreetBegan,
)
from feltline.engine.hand.rules import Game, Rules, Stakes, Structure
from feltline.engine.hand.script import Phase

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


def test_a_duplicate_table_refuses_seats_that_would_share_deck_positions() -> None:
    rules = Rules(Game.HOLDEM, NL.stakes, fixed_seats=3)
    with pytest.raises(IllegalAction, match="duplicate table of 3 seats"):
        deal(rules, {0: 100, 3: 100}, button=0, small_blind=0, big_blind=3)
    with pytest.raises(IllegalAction, match="duplicate table of 3 seats"):
        deal(rules, {1: 100, 4: 100}, button=1, small_blind=1, big_blind=4)
    t = deal(rules, {1: 100, 2: 100, 3: 100}, button=1, small_blind=2, big_blind=3)
    assert t.hand.to_act == 1


def test_when_all_but_one_fold_the_last_player_wins_without_acting() -> None:
    t = deal(NL, [1000, 1000, 1000], button=0, small_blind=1, big_blind=2)
    t.act(0, "fold")
    t.act(1, "fold")
    assert t.hand.phase is Phase.ENDED
    assert t.hand.to_act is None
    collected = t.of(BetsCollected)[0]
    assert isinstance(collected, BetsCollected)
    assert (collected.returned_to, collected.returned, collected.pot) == (2, 5, 10)
    ended = t.of(HandEnded)[0]
    assert isinstance(ended, HandEnded)
    assert dict(ended.stacks) == {0: 1000, 1: 995, 2: 1005}


def test_cards_come_off_the_top_one_at_a_time_from_left_of_the_button_with_no_burns() -> None:
    t = deal(
        NL,
        [1000] * 4,
        "Ac Kc Qc Jc Ad Kd Qd Jd 2h 3h 4h 5h 6h",
        button=2,
        small_blind=3,
        big_blind=0,
    )
    dealt = [(e.seat, str(e.card), e.position) for e in t.events if isinstance(e, CardDealt)]
    assert dealt == [
        (3, "Ac", 0),
        (0, "Kc", 1),
        (1, "Qc", 2),
        (2, "Jc", 3),
        (3, "Ad", 4),
        (0, "Kd", 5),
        (1, "Qd", 6),
        (2, "Jd", 7),
    ]
    for seat in (1, 2, 3):
        t.act(seat, "call")
    t.act(0, "check")
    for _ in range(3):
        for seat in (3, 0, 1, 2):
            t.act(seat, "check")
    boards = [(e.cards, e.positions) for e in t.events if isinstance(e, BoardDealt)]
    assert boards == [
        (parse_cards("2h 3h 4h"), (8, 9, 10)),
        (parse_cards("5h"), (11,)),
        (parse_cards("6h"), (12,)),
    ]
    assert t.hand.board == parse_cards("2h 3h 4h 5h 6h")


def test_first_to_act_left_of_the_big_blind_then_first_active_left_of_the_button() -> None:
    t = deal(NL, [1000, 1000, 100, 1000, 1000], button=0, small_blind=1, big_blind=2)
    assert t.hand.to_act == 3
    t.act(3, "raise", 100)
    t.act(4, "call")
    t.act(0, "call")
    t.act(1, "fold")
    t.act(2, "call")  # all in
    # the small blind has folded and the big blind is all in: seat 3 begins
    began = {e.name: e.order for e in t.events if isinstance(e, StreetBegan)}
    assert began["flop betting"] == (3, 4, 0)
    assert t.hand.to_act == 3


def test_best_five_of_seven_may_use_one_hole_card() -> None:
    t = deal(
        NL,
        [1000, 1000],
        "3h As 4s Ad Ah Kh Qh 7h 2c",
        button=1,
        small_blind=1,
        big_blind=0,
    )
    assert t.hand.player(0).cards == parse_cards("3h 4s")
    t.act(1, "call")
    t.act(0, "check")
    for _ in range(3):
        t.act(0, "check")
        t.act(1, "check")
    award = t.of(PotAwarded)[0]
    assert isinstance(award, PotAwarded)
    assert [(s.seat, s.amount) for s in award.shares] == [(0, 20)]
    assert "flush" in award.shares[0].hand


def test_the_hand_is_raked_only_once_the_flop_is_dealt() -> None:
    t = deal(NL, [1000, 1000, 1000], button=0, small_blind=1, big_blind=2)
    t.act(0, "call")
    t.act(1, "call")
    assert not t.hand.raked
    t.act(2, "check")
    assert t.hand.raked


def test_the_big_blind_is_not_asked_to_act_when_everyone_else_called_all_in() -> None:
    """Nobody may bet or raise when no other player is active, and the big
    blind has nothing to call: its option is void and the board is dealt."""
    t = deal(NL, {0: 8, 1: 1000}, button=0, small_blind=0, big_blind=1)
    t.act(0, "call")  # all in for 8
    assert t.hand.phase is Phase.ENDED
    collected = t.of(BetsCollected)[0]
    assert isinstance(collected, BetsCollected)
    assert (collected.returned_to, collected.returned, collected.pot) == (1, 2, 16)
    assert not [e for e in t.events if isinstance(e, Acted) and e.seat == 1]


def test_the_hand_ends_as_soon_as_all_but_one_have_folded() -> None:
    t = deal(NL, {0: 1000, 1: 1000}, button=0, small_blind=0, big_blind=1)
    t.act(0, "fold")  # the big blind, alone, has nobody left to act against
    assert t.hand.phase is Phase.ENDED
    ended = t.events[-1]
    assert isinstance(ended, HandEnded)
    assert dict(ended.stacks) == {0: 995, 1: 1005}
