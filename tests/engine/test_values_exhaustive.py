"""Every five-card hand, and every rank pattern of six and seven cards.

These walk the whole space through the public API, so they are the slow
tests of the evaluators (a few seconds each).
"""

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations, combinations_with_replacement

import pytest

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
)

C = Category
HIGH_COUNTS = {
    C.STRAIGHT_FLUSH: 10,
    C.FOUR_OF_A_KIND: 156,
    C.FULL_HOUSE: 156,
    C.FLUSH: 1277,
    C.STRAIGHT: 10,
    C.THREE_OF_A_KIND: 858,
    C.TWO_PAIR: 858,
    C.PAIR: 2860,
    C.HIGH_CARD: 1277,
}
# Without a wheel (2-7) or with A-K-Q-J-T no straight there are nine
# straights, so one more no-pair hand and one more flush.
NINE_STRAIGHTS = {
    **HIGH_COUNTS,
    C.STRAIGHT_FLUSH: 9,
    C.STRAIGHT: 9,
    C.FLUSH: 1278,
    C.HIGH_CARD: 1278,
}
ACE_TO_FIVE_COUNTS = {
    C.FOUR_OF_A_KIND: 156,
    C.FULL_HOUSE: 156,
    C.THREE_OF_A_KIND: 858,
    C.TWO_PAIR: 858,
    C.PAIR: 2860,
    C.HIGH_CARD: 1287,
}


def distinct_values(
    evaluator: Callable[[Sequence[int]], HandValue | None],
) -> dict[int, HandValue]:
    """Evaluate all 2,598,960 five-card hands; their distinct values by strength."""
    return {
        value.strength: value
        for value in map(evaluator, combinations(range(52), 5))
        if value is not None
    }


@pytest.mark.parametrize(
    ("evaluator", "counts", "higher_category_wins"),
    [
        (high, HIGH_COUNTS, True),
        (ace_to_five_low, ACE_TO_FIVE_COUNTS, False),
        (deuce_to_seven_low, NINE_STRAIGHTS, False),
        (ace_to_six_low, NINE_STRAIGHTS, False),
    ],
    ids=["high", "ace-to-five", "deuce-to-seven", "ace-to-six"],
)
def test_every_five_card_hand(
    evaluator: Callable[[Sequence[int]], HandValue],
    counts: dict[Category, int],
    higher_category_wins: bool,
) -> None:
    values = distinct_values(evaluator)
    assert len(values) == sum(counts.values())
    assert Counter(value.category for value in values.values()) == counts
    # Strengths are dense, and each category is one block of them, in order.
    assert sorted(values) == list(range(len(values)))
    categories = [values[strength].category for strength in sorted(values)]
    assert categories == sorted(categories, reverse=not higher_category_wins)


def test_exactly_56_lows_qualify_as_eight_or_better() -> None:
    values = distinct_values(eight_or_better)
    assert len(values) == 56
    assert {value.system for value in values.values()} == {System.ACE_TO_FIVE}
    assert {value.category for value in values.values()} == {Category.HIGH_CARD}
    assert min(values.values()).description == "8-7-6-5-4 low"
    assert max(values.values()).description == "5-4-3-2-A low"


def unsuited(ranks: Sequence[int]) -> tuple[int, ...]:
    """Cards of the sorted ranks, suits dealt round so that no five share one."""
    return tuple(rank * 4 + index % 4 for index, rank in enumerate(ranks))


@pytest.mark.parametrize("system", list(System), ids=lambda system: system.value)
@pytest.mark.parametrize("size", [6, 7])
def test_every_rank_pattern_takes_its_best_five(system: System, size: int) -> None:
    for ranks in combinations_with_replacement(range(13), size):
        if max(Counter(ranks).values()) > 4:
            continue
        cards = unsuited(ranks)
        best = max(evaluate(five, system) for five in combinations(cards, 5))
        assert evaluate(cards, system) == best, cards
