"""Hand values: hand-picked rulings per system, descriptions, errors, properties."""

import operator
import subprocess
import sys
from collections.abc import Callable, Sequence
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feltline.engine.cards.card import JOKER, STANDARD_DECK, Card, parse_cards
from feltline.engine.cards.values import (
    Category,
    HandValue,
    System,
    ace_to_five_low,
    ace_to_six_low,
    deuce_to_seven_low,
    eight_or_better,
    evaluate,
    high,
    low,
)

Evaluator = Callable[[Sequence[int]], HandValue]


def check(evaluator: Evaluator, winner: str, relation: str, loser: str) -> None:
    """``winner`` beats ``loser`` (relation ">") or ties with it ("=")."""
    better, worse = evaluator(parse_cards(winner)), evaluator(parse_cards(loser))
    if relation == ">":
        assert better > worse, f"{winner} ({better}) should beat {loser} ({worse})"
    else:
        assert better == worse, f"{winner} ({better}) should tie {loser} ({worse})"


HIGH_RULINGS = [
    # The wheel is the lowest straight, the steel wheel the lowest straight flush.
    ("6c 5d 4h 3s 2c", ">", "5c 4d 3h 2s Ac"),
    ("5c 4d 3h 2s Ac", ">", "Ac Ad Ah Ks Qd"),
    ("6h 5h 4h 3h 2h", ">", "5s 4s 3s 2s As"),
    ("5s 4s 3s 2s As", ">", "Ac Ad Ah As Kd"),
    # No wrap-around: Q-K-A-2-3 is only ace high.
    ("2c 2d 4h 5s 7c", ">", "Qc Kd Ah 2s 3c"),
    ("Ac Kd Qh Js 9c", ">", "Qc Kd Ah 2s 3c"),
    ("As Ks Qs Js Ts", ">", "Kh Qh Jh Th 9h"),
    # Suits never break ties.
    ("As Ks Qs Js Ts", "=", "Ah Kh Qh Jh Th"),
    ("Ac Jc 9c 6c 3c", "=", "Ad Jd 9d 6d 3d"),
    ("Ac Kd 9h 7s 4c", "=", "As Kc 9d 7h 4h"),
    # Kickers count in order, down to the last.
    ("Ac Jc 9c 6c 3c", ">", "Ad Jd 9d 6d 2d"),
    ("9c 9d 9h 9s Ah", ">", "9c 9d 9h 9s Kh"),
    ("Kc Kd 3h 3s 2c", ">", "Qc Qd Jh Js Ac"),
    ("Kc Kd 4h 4s 2c", ">", "Kh Ks 3h 3c Ac"),
    ("Kc Kd 4h 4s 3c", ">", "Kh Ks 4d 4c 2c"),
    ("8c 8d Ah 5s 3c", ">", "8h 8s Kh Qs Jc"),
    ("8c 8d Ah 5s 4c", ">", "8h 8s Ad 5d 3c"),
    ("Ac Qd 9h 7s 4c", ">", "Ah Qs 9d 7c 3c"),
    ("3c 3d 3h 2s 2c", ">", "2d 2h 2s As Ac"),
    # Category order.
    ("7c 5c 4c 3c 2c", ">", "As Kd Qh Jc Tc"),
    ("2c 2d 2h 3s 3c", ">", "Ac Kc Qc Jc 9c"),
    ("2c 2d 2h 4s 5c", ">", "Ac Ad Kh Ks Qc"),
    # Best five of seven.
    ("9h 9c 9d 4h 4c 2s 2d", "=", "9s 9c 9d 4s 4d Ac Kd"),
    ("Ks Kd Kh 5c 5d 5h 2c", "=", "Kc Kd Kh 5s 5c Ad Qd"),
    ("9c 8d 7h 6s 5c 4d 3h", ">", "8c 7d 6h 5s 4c Ad Kd"),
    ("Ac Ad Kc Kd Qc Qd 2s", ">", "Ah As Kh Ks Jc Jd Ts"),
    ("Ah 9h 7h 5h 3h 2h Kd", ">", "Ac 9c 7c 5c 2c Kd Qd"),
    ("9h 8h 7h 6h 5h Td Jc", ">", "As Ks Qs Js 9s 9d 9c"),
    ("Ac 2d 3h 4s 5c 6d Kh", "=", "2c 3d 4h 5s 6c Kd Qh"),
]

ACE_TO_FIVE_RULINGS = [
    ("5c 4d 3h 2s Ac", ">", "6c 4d 3h 2s Ac"),
    # Straights and flushes are ignored; the ace is low.
    ("5h 4h 3h 2h Ah", "=", "5c 4d 3h 2s Ac"),
    ("8h 6h 4h 3h 2h", "=", "8c 6d 4h 3s 2c"),
    ("6c 4d 3h 2s Ac", ">", "7c 6d 4h 3s 2c"),
    ("6c 4d 3h 2s Ac", ">", "6c 5d 4h 3s 2c"),
    ("7c 5c 4c 3c 2c", "=", "7s 5h 4d 3c 2h"),
    # The highest card first, then down to the last.
    ("8c 6d 4h 3s 2c", ">", "8c 7d 3h 2s Ac"),
    ("8c 6d 4h 3s Ac", ">", "8c 6d 4h 3s 2c"),
    ("Qc Jd 9h 8s 7c", ">", "Kc 4d 3h 2s Ac"),
    # Pairs are bad: any no-pair beats any pair, and so on up.
    ("Kc Qd Jh 9s 8c", ">", "Ac Ad 2h 3s 4c"),
    ("Ac Ad Kh Qs Jc", ">", "2c 2d 3h 4s 5c"),
    ("4c 4d 7h 3s 2c", ">", "4h 4s 8h 2s Ac"),
    ("Kc Kd Qh Js Tc", ">", "2c 2d Ah As 3c"),
    ("3c 3d 2h 2s Kc", ">", "4c 4d Ah As 2c"),
    ("Kc Kd Qh Qs Jc", ">", "Ac Ad Ah 2s 3c"),
    ("Kc Kd Kh Qs Jc", ">", "Ac Ad Ah 2s 2c"),
    ("Ac Ad Ah Ks Kc", ">", "2c 2d 2h As Ac"),
    ("Ac Ad Ah 2s 2c", ">", "Ac Ad Ah As 2c"),
    ("2c 2d 2h 2s Ac", ">", "2c 2d 2h 2s 3c"),
    # Best five of seven.
    ("Kc Kd 7h 5s 3c 2d Ah", "=", "7c 5d 3h 2s Ad"),
    ("Ac Ad 2c 2d 3c 4h 6s", "=", "6h 4s 3d 2h Ac"),
    ("Ac Ad 2c 2d 3c 3d 4h", "=", "Ah As 4d 3s 2s"),
    ("5c 4d 3h 2s Ac Ad 5h", "=", "5d 4c 3c 2c Ah"),
]

DEUCE_TO_SEVEN_RULINGS = [
    ("7c 5d 4h 3s 2c", ">", "7c 6d 4h 3s 2c"),
    ("8c 6d 4h 3s 2c", ">", "8c 6d 5h 3s 2c"),
    ("7c 6d 5h 3s 2c", ">", "7c 6d 5h 4s 2c"),
    # The ace is high, so A-2-3-4-5 is ace high and no straight.
    ("Kc Qd Jh 9s 8c", ">", "Ac 2d 3h 4s 5c"),
    ("Ac 2d 3h 4s 5c", ">", "2c 2d 3h 4s 5c"),
    ("Ac 5d 4h 3s 2c", ">", "Ac 6d 4h 3s 2c"),
    ("Kc 5d 4h 3s 2c", ">", "Ac 5d 4h 3s 2c"),
    ("2c 2d 7h 4s 3c", ">", "Ac Ad 5h 4s 3c"),
    # Straights and flushes count against you.
    ("2c 2d 3h 4s 5c", ">", "6c 5d 4h 3s 2c"),
    ("Ac Ad Ah 3s 2c", ">", "6c 5d 4h 3s 2c"),
    ("Kc Qd Jh 9s 8c", ">", "7h 5h 4h 3h 2h"),
    ("Ac Ad Kh Qs Jc", ">", "7h 5h 4h 3h 2h"),
    ("7c 5d 4h 3s 2c", ">", "7h 5h 4h 3h 2h"),
    ("6c 5d 4h 3s 2c", ">", "8h 5h 4h 3h 2h"),
    ("Kh Qh Jh 9h 8h", ">", "2c 2d 2h 3s 3c"),
    ("Kc Kd Qh Qs Ac", ">", "2c 2d 2h 4s 3c"),
    ("5s 4s 3s 2s As", ">", "6s 5s 4s 3s 2s"),
    ("Ah Kh Qh Jh 9h", ">", "As Ks Qs Js Ts"),
    # Best five of seven avoids straights and flushes where it can.
    ("6c 5d 4h 3s 2c 8d Kc", "=", "8h 5s 4c 3d 2h"),
    ("7h 5h 4h 3h 2h 8c 9c", "=", "8d 5c 4s 3c 2d"),
    ("7h 5h 4h 3h 2h 9h Th", "=", "7c 5c 4c 3c 2c"),
    ("6c 5d 4h 3s 2c 2d", "=", "2h 2s 5c 4c 3d"),
    ("Ac Kd 5h 4s 3c 2d 2h", "=", "Kc 5d 4h 3s 2c"),
]

ACE_TO_SIX_RULINGS = [
    ("6c 4d 3h 2s Ac", ">", "6c 5d 3h 2s Ac"),
    ("6c 4d 3h 2s Ac", ">", "7c 6d 4h 3s 2c"),
    ("6c 4d 3h 2s Ac", "=", "6h 4s 3d 2c Ad"),
    # A-2-3-4-5 is a straight: worse than a pair.
    ("6c 4d 3h 2s Ac", ">", "5c 4d 3h 2s Ac"),
    ("Kc Kd Qh Js 9c", ">", "5c 4d 3h 2s Ac"),
    ("7c 5d 4h 3s 2c", ">", "6c 5d 4h 3s 2c"),
    # A-K-Q-J-T is king high, no straight; suited, a king-high flush.
    ("Ac Kd Qh Js Tc", ">", "Ac Ad 2h 3s 4c"),
    ("Ac Kd Qh Js Tc", ">", "2c Kd Qh Js Tc"),
    ("Kc Qd Jh 9s 8c", ">", "Ac Kd Qh Js Tc"),
    ("Ks Qd Jh Ts 8c", ">", "Ks Qd Jh Ts 9c"),
    ("Ah Kh Qh Jh Th", ">", "Ac Ad Ah Ks Kc"),
    # Flushes count; the ace is the lowest pair, trips and quads.
    ("Kc Qd Jh 9s 8c", ">", "7h 4h 3h 2h Ah"),
    ("7h 5h 4h 3h 2h", ">", "Ac Ad Ah 2s 2c"),
    ("Ac Ad 2h 3s 4c", ">", "2c 2d Ah 3s 4c"),
    ("Ac Ad Ah 2s 2c", ">", "2c 2d 2h As Ac"),
    ("Ac Ad Ah As 2c", ">", "Kc Kd Kh Ks Ac"),
    ("2c 2d 2h 2s 3c", ">", "6h 5h 4h 3h 2h"),
    ("5h 4h 3h 2h Ah", ">", "6s 5s 4s 3s 2s"),
    # Best five of seven.
    ("Ac 2d 3h 4s 5c 9d Kh", "=", "9c 4h 3d 2c Ad"),
    ("6h 4h 3h 2h Ah 7c 8c", "=", "7d 4c 3s 2s Ac"),
    ("Kc Qd Jh Ts Ac 9d 9h", "=", "Qc Jd Th 9s Ad"),
    ("Ac 2d 3h 4s 5c 5d 5h", "=", "5s 5c 3d 2d Ah"),
]

JOKER_RULINGS = [
    # The bug: five aces beat a royal flush.
    (high, "Ac Ad Ah As Jk", ">", "As Ks Qs Js Ts"),
    (high, "Jk Ac Ad Ah As Kd 2s", "=", "Ah Ad Ac As Jk"),
    (high, "Jk Ks Qs Js Ts", "=", "As Ks Qs Js Ts"),
    (high, "Jk Ac Kc Qc Jc 9d 8d", "=", "Ah Kh Qh Jh Th"),
    # In a flush, the best card of the suit not in the hand: never a second ace.
    (high, "Ah Kh Qh 9h Jk", "=", "Ac Kc Qc Jc 9c"),
    (high, "Ah 9h 5h 3h Jk", "=", "Ac Kc 9c 5c 3c"),
    (high, "Ah Kh Qh 5h 3h", ">", "Ah 9h 5h 3h Jk"),
    (high, "Ah Kh 9h 6h 3h 2h Jk", "=", "Ac Kc Qc 9c 6c"),
    (high, "Ah Kh 9h 5h 3h 2h Jk", "=", "5c 4c 3c 2c Ac"),
    # Otherwise an ace, never another rank.
    (high, "Kh Kd Jk 7c 2s", "=", "Kh Kd Ac 7c 2s"),
    (high, "Kh Kd Kc 7c 2s", ">", "Kh Kd Jk 7c 2s"),
    (high, "Ac Ad Jk 7c 2s", "=", "Ac Ad Ah 7c 2s"),
    (high, "7c 7d 9h 9s Jk", "=", "9c 9d 7h 7s Ac"),
    (high, "Jk Ac Ad Ah Kc Kd 2s", "=", "Ac Ad Ah As Kc"),
    (high, "Jk 9c 8d 7h Ks Kd 2c", "=", "Kc Kh Ac 9s 8s"),
    # Or any card completing a straight or straight flush.
    (high, "9c 8d 7h 6s Jk", "=", "Tc 9d 8h 7s 6c"),
    (high, "9c 8d 6h 5s Jk", "=", "9c 8d 7h 6s 5c"),
    (high, "2c 3d 4h 5s Jk", "=", "6c 5d 4h 3s 2c"),
    (high, "Ac 2d 3h 4s Jk", "=", "5c 4d 3h 2s Ac"),
    (high, "9h 8h 7h 5h Jk", "=", "9s 8s 7s 6s 5s"),
    (high, "Jk 6h 7h 8h 9h 9c 9d", "=", "Ts 9s 8s 7s 6s"),
    # Ace-to-five: the lowest rank not in the hand.
    (ace_to_five_low, "Jk 2c 3d 4h 5s", "=", "5c 4d 3h 2s Ac"),
    (ace_to_five_low, "Jk Ac 3d 4h 5s", "=", "5c 4d 3h 2s Ac"),
    (ace_to_five_low, "Jk Ac 2d 3h 4s Kc Qd", "=", "5c 4d 3h 2s Ac"),
    (ace_to_five_low, "Jk Kc Qd Jh Ts", "=", "Kc Qd Jh Ts Ac"),
    (ace_to_five_low, "Jk Ac Ad Ah As", "=", "Ac Ad Ah As 2c"),
    # Deuce-to-seven: the lowest card that neither pairs nor makes a straight
    # or flush, the joker having no suit.
    (deuce_to_seven_low, "Jk 3c 4d 5h 6s", "=", "8c 6d 5h 4s 3c"),
    (deuce_to_seven_low, "Jk 7c 5d 4h 3s", "=", "7c 5d 4h 3s 2c"),
    (deuce_to_seven_low, "Jk 2h 3h 4h 5h", "=", "7c 5h 4h 3h 2h"),
    (deuce_to_seven_low, "Jk Ac Kd Qh Js", "=", "Ac Kd Qh Js 2c"),
    (deuce_to_seven_low, "Jk 2c 2d 3h 4s", "=", "2c 2d 5h 4s 3c"),
    # Ace-to-six likewise, the ace low.
    (ace_to_six_low, "Jk 2c 3d 4h 5s", "=", "7c 5d 4h 3s 2c"),
    (ace_to_six_low, "Jk Ac 2d 3h 4s", "=", "6c 4d 3h 2s Ac"),
    (ace_to_six_low, "Jk Kc Qd Jh Ts", "=", "Kc Qd Jh Ts Ac"),
    (ace_to_six_low, "Jk Ah 2h 3h 4h", "=", "6c 4h 3h 2h Ah"),
]

EIGHT_OR_BETTER_RULINGS = [
    ("5c 4d 3h 2s Ac", "5-4-3-2-A low"),
    ("5h 4h 3h 2h Ah", "5-4-3-2-A low"),
    ("8h 6h 4h 3h 2h", "8-6-4-3-2 low"),
    ("8c 7d 6h 5s 4c", "8-7-6-5-4 low"),
    ("9c 7d 6h 5s 4c", None),
    ("8c 8d 6h 5s 4c", None),
    ("Kc Qd Jh Ts 9c", None),
    ("8c 7d 6h 5s 4c 3d 2h", "6-5-4-3-2 low"),
    ("Ac Kd Qh 7s 5c 3d 2h", "7-5-3-2-A low"),
    ("Ac Ad 2h 2s 3c 3d 4h", None),
    ("Ac Ad 2h 2s 3c 4d 8h", "8-4-3-2-A low"),
    ("9c 9d Th Js Qc Kd Ah", None),
    ("8c 7d 6h 5s 9c 9d Kh", None),
    ("Ac 2d 3h 4s 9c Td Jh", None),
    ("Ac 2d 3h 4s 8c 8d 8h", "8-4-3-2-A low"),
    ("8c 8d 7h 7s 6c 5d 4h", "8-7-6-5-4 low"),
    ("Ac 2c 3c 4c 5c 6c 7c", "5-4-3-2-A low"),
    ("Ad 2d 3d 4d 6c 6h 6s", "6-4-3-2-A low"),
    ("Kc Kd Kh Ks Ac 2d 3h", None),
    ("7s 6s 4d 3c 2h Qd Jd", "7-6-4-3-2 low"),
    # The joker is the lowest rank not in the hand, then the test applies.
    ("Jk 2c 3d 4h 8s", "8-4-3-2-A low"),
    ("Jk Ac 2c 3d 7h Th Kd", "7-4-3-2-A low"),
    ("Jk Ac 2c 3d 9h Th", None),
    ("Jk 9c 9d 8h 7s 6c 5d", "8-7-6-5-A low"),
]

EIGHT_OR_BETTER_ORDER = [
    ("8c 5d 4h 3s 2c", "8c 6d 3h 2s Ac"),
    ("7c 6d 5h 4s 3c", "8c 4d 3h 2s Ac"),
    ("6c 4d 3h 2s Ac 9d 9h", "6c 5d 4h 3s 2c"),
]


@pytest.mark.parametrize(("winner", "relation", "loser"), HIGH_RULINGS)
def test_high(winner: str, relation: str, loser: str) -> None:
    check(high, winner, relation, loser)


@pytest.mark.parametrize(("winner", "relation", "loser"), ACE_TO_FIVE_RULINGS)
def test_ace_to_five(winner: str, relation: str, loser: str) -> None:
    check(ace_to_five_low, winner, relation, loser)


@pytest.mark.parametrize(("winner", "relation", "loser"), DEUCE_TO_SEVEN_RULINGS)
def test_deuce_to_seven(winner: str, relation: str, loser: str) -> None:
    check(deuce_to_seven_low, winner, relation, loser)


@pytest.mark.parametrize(("winner", "relation", "loser"), ACE_TO_SIX_RULINGS)
def test_ace_to_six(winner: str, relation: str, loser: str) -> None:
    check(ace_to_six_low, winner, relation, loser)


@pytest.mark.parametrize(("evaluator", "winner", "relation", "loser"), JOKER_RULINGS)
def test_joker(evaluator: Evaluator, winner: str, relation: str, loser: str) -> None:
    check(evaluator, winner, relation, loser)


@pytest.mark.parametrize(("hand", "description"), EIGHT_OR_BETTER_RULINGS)
def test_eight_or_better(hand: str, description: str | None) -> None:
    cards = parse_cards(hand)
    value = eight_or_better(cards)
    if description is None:
        assert value is None
    else:
        assert value is not None
        assert value.description == description
        assert value is ace_to_five_low(cards)


@pytest.mark.parametrize(("winner", "loser"), EIGHT_OR_BETTER_ORDER)
def test_eight_or_better_order(winner: str, loser: str) -> None:
    better, worse = eight_or_better(parse_cards(winner)), eight_or_better(parse_cards(loser))
    assert better is not None
    assert worse is not None
    assert better > worse


@pytest.mark.parametrize(
    ("system", "hand", "category", "description"),
    [
        (System.HIGH, "Ac Kd 9h 7s 4c", Category.HIGH_CARD, "ace high"),
        (System.HIGH, "7c 5d 4h 3s 2c", Category.HIGH_CARD, "seven high"),
        (System.HIGH, "Ac Ad 9h 7s 4c", Category.PAIR, "pair of aces"),
        (System.HIGH, "Kh Kd 9s 9c 2d", Category.TWO_PAIR, "two pair, kings and nines"),
        (System.HIGH, "7c 7d 7h As 4c", Category.THREE_OF_A_KIND, "three sevens"),
        (System.HIGH, "Tc 9d 8h 7s 6c", Category.STRAIGHT, "straight, ten high"),
        (System.HIGH, "5c 4d 3h 2s Ac", Category.STRAIGHT, "straight, five high"),
        (System.HIGH, "Ac Jc 9c 6c 3c", Category.FLUSH, "flush, ace high"),
        (System.HIGH, "Kc Kd Kh 4s 4c", Category.FULL_HOUSE, "full house, kings full of fours"),
        (System.HIGH, "Qc Qd Qh Qs 2c", Category.FOUR_OF_A_KIND, "four queens"),
        (System.HIGH, "9h 8h 7h 6h 5h", Category.STRAIGHT_FLUSH, "straight flush, nine high"),
        (System.HIGH, "5s 4s 3s 2s As", Category.STRAIGHT_FLUSH, "straight flush, five high"),
        (System.HIGH, "As Ks Qs Js Ts", Category.STRAIGHT_FLUSH, "royal flush"),
        (System.HIGH, "As Ac Ad Ah Jk", Category.FIVE_OF_A_KIND, "five aces"),
        (System.ACE_TO_FIVE, "8c 7d 5h 3s Ad", Category.HIGH_CARD, "8-7-5-3-A low"),
        (System.ACE_TO_FIVE, "5h 4h 3h 2h Ah", Category.HIGH_CARD, "5-4-3-2-A low"),
        (System.ACE_TO_FIVE, "Kh Qh Jh Th Ah", Category.HIGH_CARD, "K-Q-J-T-A low"),
        (System.ACE_TO_FIVE, "4c 4d Ah 3s 2c", Category.PAIR, "pair of fours"),
        (System.ACE_TO_FIVE, "4c 4d Ah As 2c", Category.TWO_PAIR, "two pair, fours and aces"),
        (
            System.ACE_TO_FIVE,
            "Ac Ad Ah Ks Kc",
            Category.FULL_HOUSE,
            "full house, aces full of kings",
        ),
        (System.DEUCE_TO_SEVEN, "7c 5d 4h 3s 2c", Category.HIGH_CARD, "7-5-4-3-2 low"),
        (System.DEUCE_TO_SEVEN, "5c 4d 3h 2s Ac", Category.HIGH_CARD, "A-5-4-3-2 low"),
        (System.DEUCE_TO_SEVEN, "6c 5d 4h 3s 2c", Category.STRAIGHT, "straight, six high"),
        (System.DEUCE_TO_SEVEN, "5s 4s 3s 2s As", Category.FLUSH, "flush, ace high"),
        (System.DEUCE_TO_SEVEN, "9c 9d 5h 4s 3c", Category.PAIR, "pair of nines"),
        (System.ACE_TO_SIX, "6c 4d 3h 2s Ac", Category.HIGH_CARD, "6-4-3-2-A low"),
        (System.ACE_TO_SIX, "Ac Kd Qh Js Tc", Category.HIGH_CARD, "K-Q-J-T-A low"),
        (System.ACE_TO_SIX, "5c 4d 3h 2s Ac", Category.STRAIGHT, "straight, five high"),
        (System.ACE_TO_SIX, "Ah Kh Qh Jh Th", Category.FLUSH, "flush, king high"),
        (System.ACE_TO_SIX, "Ks Qs Js Ts 9s", Category.STRAIGHT_FLUSH, "straight flush, king high"),
    ],
)
def test_descriptions(system: System, hand: str, category: Category, description: str) -> None:
    value = evaluate(parse_cards(hand), system)
    assert value.system is system
    assert value.category is category
    assert value.description == description
    assert str(value) == description


def test_equal_values_are_one_interned_object() -> None:
    assert high(parse_cards("As Ks Qs Js Ts")) is high(parse_cards("Th Jh Qh Kh Ah 2c"))
    assert ace_to_five_low(parse_cards("5c 4d 3h 2s Ac")) is eight_or_better(
        parse_cards("Ah 2h 3h 4h 5h")
    )


def test_dispatch() -> None:
    cards = parse_cards("Ac 5d 4h 3s 2c 2d Kh")
    assert evaluate(cards, System.HIGH) is high(cards)
    assert evaluate(cards, System.ACE_TO_FIVE) is low(cards, System.ACE_TO_FIVE)
    assert low(cards, System.DEUCE_TO_SEVEN) is deuce_to_seven_low(cards)
    assert low(cards, System.ACE_TO_SIX) is ace_to_six_low(cards)


# --- errors ----------------------------------------------------------------

EVALUATORS = [high, ace_to_five_low, deuce_to_seven_low, ace_to_six_low, eight_or_better]


@pytest.mark.parametrize("evaluator", EVALUATORS)
@pytest.mark.parametrize(
    ("cards", "message"),
    [
        (parse_cards("As Ks Qs Js"), "at least 5 cards, got 4"),
        ((), "at least 5 cards, got 0"),
        (parse_cards("As Ks Qs Js As"), "repeated cards: As"),
        (parse_cards("Jk Ks Qs Js Jk 2c"), "repeated cards: Jk"),
        ((0, 1, 2, 3, 53), "not cards"),
        ((0, 1, 2, 3, -1), "not cards"),
    ],
)
def test_bad_hands_are_refused(
    evaluator: Callable[[Sequence[int]], object], cards: Sequence[int], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        evaluator(cards)


def test_low_refuses_high() -> None:
    with pytest.raises(ValueError, match="high is not a low system"):
        low(parse_cards("Ac 5d 4h 3s 2c"), System.HIGH)


@pytest.mark.parametrize("compare", [operator.lt, operator.le, operator.gt, operator.ge])
def test_values_of_different_systems_do_not_compare(
    compare: Callable[[object, object], bool],
) -> None:
    cards = parse_cards("Ac 5d 4h 3s 2c")
    with pytest.raises(TypeError, match="cannot compare high and ace-to-five values"):
        compare(high(cards), ace_to_five_low(cards))
    with pytest.raises(TypeError):
        compare(high(cards), 3)
    assert high(cards) != ace_to_five_low(cards)


# --- properties --------------------------------------------------------------

TWO_SUITS = [card for card in STANDARD_DECK if card.suit in (2, 3)]


def hands(size: int, *, joker: bool = False) -> st.SearchStrategy[list[Card]]:
    """Random hands, half of them from two suits so that flushes are common."""
    naturals = size - joker
    return (
        st.sampled_from([STANDARD_DECK, TWO_SUITS])
        .flatmap(
            lambda deck: st.lists(
                st.sampled_from(deck), min_size=naturals, max_size=naturals, unique=True
            )
        )
        .map(lambda cards: [*cards, JOKER] if joker else cards)
    )


SYSTEMS = st.sampled_from(list(System))


@given(system=SYSTEMS, size=st.integers(6, 8), joker=st.booleans(), data=st.data())
def test_best_hand_is_the_best_five(
    system: System, size: int, joker: bool, data: st.DataObject
) -> None:
    cards = data.draw(hands(size, joker=joker))
    assert evaluate(cards, system) == max(evaluate(five, system) for five in combinations(cards, 5))


@given(system=SYSTEMS, joker=st.booleans(), data=st.data())
def test_order_is_total_and_consistent(system: System, joker: bool, data: st.DataObject) -> None:
    a, b, c = (evaluate(data.draw(hands(7, joker=joker)), system) for _ in range(3))
    assert (a < b) + (a == b) + (a > b) == 1
    assert (a < b) == (b > a)
    assert (a <= b) == (a < b or a == b) == (b >= a)
    assert (a == b) == (a.strength == b.strength)
    if a == b:
        assert hash(a) == hash(b)
    if a <= b <= c:
        assert a <= c
    if a < b < c:
        assert a < c


@given(data=st.data(), size=st.integers(5, 7))
def test_ace_to_five_joker_is_the_lowest_rank_not_in_the_hand(
    data: st.DataObject, size: int
) -> None:
    cards = data.draw(hands(size, joker=True))
    ranks = {card.rank for card in cards if not card.is_joker}
    lowest = next(rank for rank in (12, *range(12)) if rank not in ranks)
    natural = [Card.of(lowest, 0) if card.is_joker else card for card in cards]
    assert ace_to_five_low(cards) == ace_to_five_low(natural)


def is_straight(ranks: set[int], system: System) -> bool:
    order = sorted((rank + 1) % 13 if system is System.ACE_TO_SIX else rank for rank in ranks)
    return len(order) == 5 and order[4] - order[0] == 4


@pytest.mark.parametrize("system", [System.DEUCE_TO_SEVEN, System.ACE_TO_SIX])
@given(data=st.data())
def test_other_low_jokers_are_the_lowest_card_that_neither_pairs_nor_straightens(
    system: System, data: st.DataObject
) -> None:
    cards = data.draw(hands(5, joker=True))
    others = [card for card in cards if not card.is_joker]
    ranks = {card.rank for card in others}
    order = (12, *range(12)) if system is System.ACE_TO_SIX else range(13)
    lowest = next(
        rank for rank in order if rank not in ranks and not is_straight({*ranks, rank}, system)
    )
    # A suit the other four do not all share, so the card makes no flush.
    suit = next(suit for suit in range(4) if any(card.suit != suit for card in others))
    assert evaluate(cards, system) == evaluate([*others, Card.of(lowest, suit)], system)


@given(data=st.data(), size=st.integers(5, 8), joker=st.booleans())
def test_eight_or_better_is_a_qualifying_ace_to_five_low(
    data: st.DataObject, size: int, joker: bool
) -> None:
    cards = data.draw(hands(size, joker=joker))
    value = ace_to_five_low(cards)
    qualifies = value.category is Category.HIGH_CARD and value.description[0] in "5678"
    assert eight_or_better(cards) is (value if qualifies else None)


def test_the_tables_are_built_by_the_first_evaluation_not_by_importing_the_engine() -> None:
    """Importing the whole engine (as a command line reading only the rules
    does) builds nothing; the first evaluation, from whichever thread, does."""
    code = """
import threading
import feltline.engine.table.decide, feltline.engine.table.evolve, feltline.engine.hand.decide
from feltline.engine.cards import values
from feltline.engine.cards.card import parse_cards
empty = [len(t.ranked) for t in (values._HIGH, values._ACE_TO_FIVE, values._DEUCE_TO_SEVEN)]
print(empty, len(values._EIGHT))
found = []
hands = ["As Ks Qs Js Ts 2d 3c", "Jk Ac Ad Ah As 2c 3d"]
threads = [threading.Thread(target=lambda h=h: found.append(str(values.high(parse_cards(h)))))
           for h in hands]
for t in threads: t.start()
for t in threads: t.join()
print(sorted(found), str(values.eight_or_better(parse_cards("Ac 2d 3h 4s 8c Kd Qh"))))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    assert out == ["[0, 0, 0] 0", "['five aces', 'royal flush'] 8-4-3-2-A low"]
