"""Jackpots: jacks or better to open, and what proves it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from feltline.engine.cards.card import Card
from feltline.engine.cards.values import Category, high

JACK = 9


def combination(cards: Sequence[Card]) -> tuple[Card, ...] | None:
    """The cards that make jacks or better, or None: a pair of jacks or
    better, two pair, trips or quads among any cards held, or a straight or
    better with all five."""
    if len(cards) == 5 and high(cards).category >= Category.STRAIGHT:
        return tuple(cards)
    counts = Counter(c.rank for c in cards)
    sets = [rank for rank, n in counts.items() if n >= 2]
    if not sets:
        return None
    if len(sets) == 1 and counts[sets[0]] == 2 and sets[0] < JACK:
        return None
    return tuple(c for c in cards if c.rank in sets)
