"""Omaha and Omaha high-low: exactly two hole cards with exactly three of
the board, for the high and for the low, dealt from stacked decks."""

from __future__ import annotations

import pytest

from feltline.engine.cards.card import parse_cards
from feltline.engine.cards.values import System
from feltline.engine.games import omaha, omaha_hi_lo
from feltline.engine.hand.events import PotAwarded, Share
from feltline.engine.hand.rules import Game, Rules

from .stacked import Table, deal

PLO = Rules.house(Game.OMAHA)
O8 = Rules.house(Game.OMAHA_HI_LO)


def values(hole: str, board: str) -> tuple[str, str | None]:
    """The high and the low (None: no low) that Omaha high-low reads."""
    hi, lo = omaha_hi_lo.VARIANT.values(parse_cards(hole), parse_cards(board), System.ACE_TO_FIVE)
    return hi.description, None if lo is None else lo.description


def stacked(rules: Rules, holes: list[str], board: str) -> Table:
    """Deal ``holes[i]`` to seat ``i``, the button the last seat, blinds
    after it, then ``board``: the cards go one at a time from the left of
    the button."""
    n = len(holes)
    cards = [parse_cards(h) for h in holes]
    order = [(n - 1 + k) % n for k in range(1, n + 1)]  # clockwise from left of the button
    top = [str(cards[seat][i]) for i in range(4) for seat in order]
    blinds = (
        {"small_blind": n - 1, "big_blind": 0} if n == 2 else {"small_blind": 0, "big_blind": 1}
    )
    return deal(rules, [1000] * n, " ".join(top) + " " + board, button=n - 1, **blinds)


def check_down(t: Table) -> list[Share]:
    """Everyone calls the big blind and checks to the showdown: the shares."""
    while t.hand.to_act is not None:
        seat = t.hand.to_act
        t.act(seat, "call" if t.hand.round.level > t.hand.player(seat).bet else "check")
    return [s for award in t.of(PotAwarded) if isinstance(award, PotAwarded) for s in award.shares]


def test_the_deal_is_four_cards_each_then_the_board() -> None:
    t = stacked(PLO, ["Ac Kc Qc Jc", "2d 3d 4d 5d"], "9h 8h 7h 6h 5h")
    assert t.hand.player(0).cards == parse_cards("Ac Kc Qc Jc")
    assert t.hand.player(1).cards == parse_cards("2d 3d 4d 5d")
    check_down(t)
    assert t.hand.board == parse_cards("9h 8h 7h 6h 5h")


def test_a_board_four_flush_is_no_flush_with_one_suited_hole_card() -> None:
    t = stacked(PLO, ["Ah 7s 7d 8c", "Qs Qd 4c 2c"], "2h 5h 9h Kh 3c")
    assert [(s.seat, s.amount, s.hand) for s in check_down(t)] == [(1, 20, "pair of queens")]
    assert values("Ah Th 7d 8c", "2h 5h 9h Kh 3c")[0] == "flush, ace high"


def test_quads_on_the_board_play_as_three_of_a_kind_with_two_hole_cards() -> None:
    t = stacked(PLO, ["Ac Kd 2h 3h", "4c 4d 6h 7h"], "9c 9d 9h 9s 5c")
    assert [(s.seat, s.amount, s.hand) for s in check_down(t)] == [
        (1, 20, "full house, nines full of fours")
    ]
    assert values("Ac Kd 2h 3h", "9c 9d 9h 9s 5c")[0] == "three nines"


def test_a_straight_on_the_board_is_no_straight_without_two_hole_cards() -> None:
    t = stacked(PLO, ["Ac Ad Kc Kd", "2h 4s Qs Qd"], "5c 6d 7h 8s 9c")
    assert [(s.seat, s.amount, s.hand) for s in check_down(t)] == [(0, 20, "pair of aces")]


def test_a_full_house_that_needs_both_hole_cards_of_a_pair() -> None:
    t = stacked(PLO, ["7c 7d 4h 5h", "Kh Qs Qd Js"], "Kc Kd 7h 2s 3c")
    assert [(s.seat, s.amount, s.hand) for s in check_down(t)] == [
        (0, 20, "full house, sevens full of kings")
    ]
    # One seven and the board's pair of kings: only two pair.
    assert values("7c 4h 5h 6d", "Kc Kd 7h Qs Jc")[0] == "two pair, kings and sevens"


@pytest.mark.parametrize(
    ("hole", "board", "low"),
    [
        # The board's deuce pairs the ace-deuce: the three low board cards
        # leave no low without a pair (counterfeited).
        ("Ah 2h Kc Kd", "4c 5d 2c 9h Js", None),
        # Only two specific hole cards make it: the ace and the three.
        ("As 3s Qc Qd", "4c 5d 2c 9h Js", "5-4-3-2-A low"),
        ("As Qs Qc 3d", "4c 5d 6c 9h Js", "6-5-4-3-A low"),
        # Two low board cards: no low for anyone, whatever they hold.
        ("Ah 2h 3h 4h", "5c 6d Kc Qh Js", None),
        # Four low hole cards, but a low takes only two of them.
        ("Ah 2h 3h 4h", "8c 7d 6c Qh Js", "8-7-6-2-A low"),
    ],
)
def test_the_low_takes_exactly_two_hole_cards_and_three_of_the_board(
    hole: str, board: str, low: str | None
) -> None:
    assert values(hole, board)[1] == low


def test_a_counterfeited_low_loses_the_pot_to_the_wheel() -> None:
    t = stacked(O8, ["Ah 2h Kc Kd", "As 3s Qc Qd"], "4c 5d 2c 9h Js")
    shares = [(s.seat, s.amount, s.half) for s in check_down(t)]
    # The ace-three is a wheel: the best high (a straight) and the best low.
    assert shares == [(1, 10, "high"), (1, 10, "low")]


def test_a_quartered_pot_gives_the_odd_chip_of_the_low_half_left_of_the_button() -> None:
    # Seats 0 and 1 tie the low with their ace-four; seat 2 (the button)
    # makes four kings. 30 chips: 15 high; the low half's 15 split 8 and 7,
    # the odd chip to seat 0, the first left of the button.
    t = stacked(O8, ["Ah 4h Qc Jc", "As 4s Qd Jd", "Kh Kc 9s 9d"], "2c 3d 7h Kd Ks")
    assert [(s.seat, s.amount, s.half, s.hand) for s in check_down(t)] == [
        (2, 15, "high", "four kings"),
        (0, 8, "low", "7-4-3-2-A low"),
        (1, 7, "low", "7-4-3-2-A low"),
    ]


def test_with_no_low_the_high_takes_the_whole_pot() -> None:
    t = stacked(O8, ["Ah 2h 3h 4h", "Kc Kd Qs Js"], "5c 6d Kh Qh Jd")
    assert [(s.seat, s.amount, s.half) for s in check_down(t)] == [(1, 20, "all")]


def test_the_omaha_games_describe_themselves_as_their_modules_say() -> None:
    assert omaha.VARIANT.hole_cards == omaha_hi_lo.VARIANT.hole_cards == 4
    assert omaha.VARIANT.steps is omaha_hi_lo.VARIANT.steps
    assert omaha_hi_lo.VARIANT.high_low
    assert not omaha.VARIANT.high_low
