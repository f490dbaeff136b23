"""Hand values: high, the three lows and eight or better, with the joker.

Evaluation is a handful of additions and one or two table lookups. Every card
has an additive weight: three bits counting its rank, five bits counting its
suit and one bit of its own. The sum of a hand's weights therefore holds its
rank multiset (the key of a dict of pre-built values), whether five cards
share a suit and which ranks they are (the index of a flush table), and, by
its count of own bits, whether a card was repeated. Each system interns one
:class:`HandValue` per distinct value, so an evaluation allocates nothing.
Hands with the joker, or with more than seven cards, take a slower path that
follows the house rules literally.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from functools import cache
from itertools import combinations, combinations_with_replacement
from operator import attrgetter

from feltline.engine.cards.card import (
    ACE,
    JOKER_INDEX,
    RANK_NAMES,
    RANK_PLURALS,
    RANKS,
    format_cards,
)


class System(Enum):
    """How hands are ranked: high, or one of the three lows."""

    HIGH = "high"
    ACE_TO_FIVE = "ace-to-five"
    DEUCE_TO_SEVEN = "deuce-to-seven"
    ACE_TO_SIX = "ace-to-six"


class Category(IntEnum):
    """A hand's pattern, as a high hand ranks it (a low reads it backwards)."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    FIVE_OF_A_KIND = 9


@dataclass(frozen=True, slots=True)
class HandValue:
    """The value of a hand in one system; a larger strength wins, lows included.

    Values of different systems do not compare: a high and a low are never
    ranked against each other, so doing it by mistake raises ``TypeError``.
    """

    system: System
    strength: int
    category: Category
    description: str

    def __str__(self) -> str:
        return self.description

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.strength < _rival(self, other)

    def __le__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.strength <= _rival(self, other)

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.strength > _rival(self, other)

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.strength >= _rival(self, other)


def _rival(value: HandValue, other: HandValue) -> int:
    if value.system is not other.system:
        raise TypeError(f"cannot compare {value.system.value} and {other.system.value} values")
    return other.strength


_STRENGTH: Callable[[HandValue], int] = attrgetter("strength")

# ---------------------------------------------------------------------------
# Card weights. A hand's key is _START plus the weights of its cards:
#   bits  0-38  thirteen 3-bit rank counts (deuce first);
#   bits 39-58  four 5-bit suit counts, each starting at 11 so that its top
#               bit (16) is set exactly when the suit holds five cards or more;
#   bits 59-110 one bit per card, suit by suit, 13 rank bits each.
# The joker weighs nothing, so its missing own bit sends it to the slow path.

_RANK_BITS = (1 << 39) - 1
_SUIT_BASE = 39
_CARD_BASE = 59
_UNIT = tuple(1 << 3 * rank for rank in range(13))
_FOUR = tuple(4 << 3 * rank for rank in range(13))  # set when a rank count is 4
_START = sum(11 << _SUIT_BASE + 5 * suit for suit in range(4))
_FLUSH_BITS = sum(16 << _SUIT_BASE + 5 * suit for suit in range(4))
# From a suit's flush bit to the shift that brings its 13 rank bits down.
_FLUSH_SHIFT = {16 << _SUIT_BASE + 5 * suit: _CARD_BASE + 13 * suit for suit in range(4)}
_WEIGHT: dict[int, int] = {
    card: _UNIT[card >> 2]
    + (1 << _SUIT_BASE + 5 * (card & 3))
    + (1 << _CARD_BASE + 13 * (card & 3) + (card >> 2))
    for card in range(52)
}
_WEIGHT[JOKER_INDEX] = 0


def _suit_mask(key: int, suit: int) -> int:
    return key >> _CARD_BASE + 13 * suit & 0x1FFF


# ---------------------------------------------------------------------------
# Building the tables.

_SHAPES = {
    (4, 1): Category.FOUR_OF_A_KIND,
    (3, 2): Category.FULL_HOUSE,
    (3, 1, 1): Category.THREE_OF_A_KIND,
    (2, 2, 1): Category.TWO_PAIR,
    (2, 1, 1, 1): Category.PAIR,
}

_Pattern = tuple[Category, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class _Tables:
    """A system's tables, empty until :func:`build_tables` fills them."""

    system: System
    # A rank multiset key of 5-7 cards -> the best value without a flush.
    ranked: dict[int, HandValue] = field(default_factory=dict)
    # A suit's rank mask -> the best flush; stays empty if flushes don't count.
    flushes: dict[int, HandValue] = field(default_factory=dict)


def _ace_low(system: System) -> bool:
    return system in (System.ACE_TO_FIVE, System.ACE_TO_SIX)


def _pattern(ranks: Iterable[int], suited: bool, system: System) -> _Pattern:
    """Category and tie-break ranks of five cards, in the system's rank order.

    Tie-break ranks run from the most significant (the biggest group, then
    the higher rank), so patterns sort like the hands they describe.
    """
    low_ace = _ace_low(system)
    counts = Counter((rank + 1) % 13 if low_ace else rank for rank in ranks)
    order = sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)
    if len(order) < 5:
        return _SHAPES[tuple(counts[rank] for rank in order)], tuple(order)
    top = -1
    if system is not System.ACE_TO_FIVE:
        if order[0] - order[4] == 4:
            top = order[0]
        elif system is System.HIGH and order == [12, 3, 2, 1, 0]:
            top = 3  # the wheel is five-high
    if top < 0:
        return (Category.FLUSH if suited else Category.HIGH_CARD), tuple(order)
    return (Category.STRAIGHT_FLUSH if suited else Category.STRAIGHT), (top,)


def _describe(category: Category, ranks: tuple[int, ...], system: System) -> str:
    real = [(rank - 1) % 13 if _ace_low(system) else rank for rank in ranks]
    name = RANK_NAMES[real[0]]
    plural = RANK_PLURALS[real[0]]
    if category is Category.HIGH_CARD:
        if system is System.HIGH:
            return f"{name} high"
        return "-".join(RANKS[rank] for rank in real) + " low"
    if category is Category.PAIR:
        return f"pair of {plural}"
    if category is Category.TWO_PAIR:
        return f"two pair, {plural} and {RANK_PLURALS[real[1]]}"
    if category is Category.THREE_OF_A_KIND:
        return f"three {plural}"
    if category is Category.FULL_HOUSE:
        return f"full house, {plural} full of {RANK_PLURALS[real[1]]}"
    if category is Category.FOUR_OF_A_KIND:
        return f"four {plural}"
    if category is Category.STRAIGHT_FLUSH and real[0] == ACE:
        return "royal flush"
    return f"{category.name.lower().replace('_', ' ')}, {name} high"


def _fill(tables: _Tables) -> None:
    """Intern every value of the system and tabulate the best of 5-7 cards."""
    system = tables.system
    plain: dict[int, _Pattern] = {}
    for ranks in combinations_with_replacement(range(13), 5):
        if max(Counter(ranks).values()) < 5:
            plain[sum(_UNIT[rank] for rank in ranks)] = _pattern(ranks, False, system)
    suited: dict[int, _Pattern] = {}
    if system is not System.ACE_TO_FIVE:
        for ranks in combinations(range(13), 5):
            suited[sum(1 << rank for rank in ranks)] = _pattern(ranks, True, system)
    # Ascending patterns run from the worst high to the best low, so a low
    # takes its strengths counting down.
    ordered = sorted({*plain.values(), *suited.values()}, reverse=system is not System.HIGH)
    strength = {pattern: index for index, pattern in enumerate(ordered)}
    values = [
        HandValue(system, index, category, _describe(category, ranks, system))
        for index, (category, ranks) in enumerate(ordered)
    ]

    best = {key: strength[pattern] for key, pattern in plain.items()}
    ranked = dict(best)
    for _ in (6, 7):
        best = _grow(best)
        ranked.update(best)

    by_mask: dict[int, int] = {}
    if suited:
        for mask in range(0x2000):  # submasks come first, so they are ready
            if mask in suited:
                by_mask[mask] = strength[suited[mask]]
            elif mask.bit_count() > 5:
                by_mask[mask] = max(by_mask[mask & ~(1 << r)] for r in range(13) if mask >> r & 1)
    tables.flushes.update((mask, values[s]) for mask, s in by_mask.items())
    tables.ranked.update((key, values[s]) for key, s in ranked.items())


def _grow(best: dict[int, int]) -> dict[int, int]:
    """Best strengths of the multisets one card larger.

    A multiset's best five come from one of its one-smaller sub-multisets,
    so its best is the best over those: no five-card subsets are tried.
    """
    grown: dict[int, int] = {}
    for key, strength in best.items():
        for rank in range(13):
            if not key & _FOUR[rank]:
                bigger = key + _UNIT[rank]
                if grown.get(bigger, -1) < strength:
                    grown[bigger] = strength
    return grown


# The tables are built by the first evaluation (or :func:`build_tables`), not
# at import: most importers want only :class:`System`, and building takes a
# second or two. They are filled in place, so these names hold from the start,
# and each public evaluator checks ``_BUILT`` before it reads them.
_BUILT = False
_BUILDING = threading.Lock()
_HIGH = _Tables(System.HIGH)
_ACE_TO_FIVE = _Tables(System.ACE_TO_FIVE)
_DEUCE_TO_SEVEN = _Tables(System.DEUCE_TO_SEVEN)
_ACE_TO_SIX = _Tables(System.ACE_TO_SIX)
_HIGH_RANKED = _HIGH.ranked
_HIGH_FLUSHES = _HIGH.flushes
_ROYAL = 0x1F00  # the rank mask of ten to ace

# Eight or better: the ranks that may play, lowest first, and a table from
# the ones a hand holds (the low bit of each of their rank counts) to its low.
_EIGHT_RANKS = (ACE, 0, 1, 2, 3, 4, 5, 6)
_EIGHT_FIELDS = sum(7 * _UNIT[rank] for rank in _EIGHT_RANKS)
_EIGHT_ONES = sum(_UNIT[rank] for rank in _EIGHT_RANKS)
_EIGHT: dict[int, HandValue | None] = {}


def build_tables() -> None:
    """Build the tables now rather than at the first evaluation, so that no
    hand waits for them (a server calls it as it starts). Building happens
    once, whichever thread calls first."""
    global _BUILT  # noqa: PLW0603 (a flag read by every evaluation: a global is the fastest)
    with _BUILDING:
        if _BUILT:
            return
        for tables in (_HIGH, _ACE_TO_FIVE, _DEUCE_TO_SEVEN, _ACE_TO_SIX):
            _fill(tables)
        a5 = _ACE_TO_FIVE.ranked
        _EIGHT.update(
            (
                sum(_UNIT[rank] for rank in held),
                a5[sum(_UNIT[rank] for rank in held[:5])] if len(held) >= 5 else None,
            )
            for size in range(len(_EIGHT_RANKS) + 1)
            for held in combinations(_EIGHT_RANKS, size)
        )
        _BUILT = True


@cache
def _five_aces() -> HandValue:
    """The joker's five aces, which top every hand of a 52-card deck."""
    strength = _HIGH_FLUSHES[_ROYAL].strength + 1
    return HandValue(System.HIGH, strength, Category.FIVE_OF_A_KIND, "five aces")


@cache
def _high_straights() -> tuple[tuple[int, HandValue], ...]:
    """The straights, best first, as rank masks, for the joker to complete."""
    return tuple(
        (sum(1 << rank for rank in ranks), _HIGH_RANKED[sum(_UNIT[rank] for rank in ranks)])
        for ranks in [range(top - 4, top + 1) for top in range(12, 3, -1)] + [(ACE, 0, 1, 2, 3)]
    )


@cache
def _eight_worst() -> int:
    """The strength of the worst qualifying low. Qualifying lows are exactly
    the best ones: no pair and nothing above an eight."""
    return min(value.strength for value in _EIGHT.values() if value is not None)


# ---------------------------------------------------------------------------
# Evaluation.


def _fast_key(cards: Sequence[int]) -> int:
    """The hand's key if the tables answer it at once, else 0.

    They do for 5 to 7 distinct standard cards; anything else (the joker, a
    repeated or unknown card, too few or too many cards) goes the slow way.
    """
    key = _START
    try:
        for card in cards:
            key += _WEIGHT[card]
    except (KeyError, TypeError):
        return 0
    if 5 <= len(cards) <= 7 and (key >> _CARD_BASE).bit_count() == len(cards):
        return key
    return 0


def _checked(cards: Sequence[int]) -> tuple[list[int], bool]:
    """The weights of the standard cards, and whether the joker is there."""
    if len(cards) < 5:
        raise ValueError(f"a hand needs at least 5 cards, got {len(cards)}")
    unknown = [card for card in cards if not (isinstance(card, int) and 0 <= card <= JOKER_INDEX)]
    if unknown:
        raise ValueError(f"not cards (cards are 0 to {JOKER_INDEX}): {unknown!r}")
    repeated = sorted(card for card, count in Counter(cards).items() if count > 1)
    if repeated:
        raise ValueError(f"repeated cards: {format_cards(repeated)}")
    return [_WEIGHT[card] for card in cards if card != JOKER_INDEX], JOKER_INDEX in cards


def _five(key: int, tables: _Tables) -> HandValue:
    flush = key & _FLUSH_BITS
    if flush and tables.flushes:
        return tables.flushes[key >> _FLUSH_SHIFT[flush] & 0x1FFF]
    return tables.ranked[key & _RANK_BITS]


def _best(weights: list[int], tables: _Tables) -> HandValue:
    """The best five of any number of cards, given by their weights.

    A weight may be a bare rank unit: a suitless card standing for the joker.
    """
    if len(weights) <= 7:
        key = sum(weights, _START)
        flush = key & _FLUSH_BITS
        if not flush or not tables.flushes:
            return tables.ranked[key & _RANK_BITS]
        mask = key >> _FLUSH_SHIFT[flush] & 0x1FFF
        # Up to seven cards, a flush shuts out full houses and quads, so it is
        # the best high; but the best low avoids it with any card of another suit.
        if tables.system is System.HIGH or mask.bit_count() == len(weights):
            return tables.flushes[mask]
    fives = (_five(sum(five, _START), tables) for five in combinations(weights, 5))
    return max(fives, key=_STRENGTH)


def _bug(weights: list[int]) -> HandValue:
    """The best high with the joker as the bug, given the other cards' weights.

    The bug is an ace, or any card that completes a straight, a flush or a
    straight flush; in a flush, the best card of the suit that is not
    already in the hand. Each use is tried and the best hand kept.
    """
    key = sum(weights)
    if key >> 3 * ACE & 7 == 4:
        return _five_aces()
    options = [_best([*weights, _UNIT[ACE]], _HIGH)]
    masks = [_suit_mask(key, suit) for suit in range(4)]
    held = masks[0] | masks[1] | masks[2] | masks[3]
    straight = next(
        (value for window, value in _high_straights() if (window & ~held).bit_count() <= 1), None
    )
    if straight is not None:
        options.append(straight)
    for mask in masks:
        if mask.bit_count() >= 4:
            # Any missing card of the suit but the best one makes a straight
            # flush, which the bug may complete, or a flush that loses to the
            # best one's: trying them all gives what the rule gives.
            missing = (rank for rank in range(13) if not mask >> rank & 1)
            options.extend(_HIGH_FLUSHES[mask | 1 << rank] for rank in missing)
    return max(options, key=_STRENGTH)


def _low_with_joker(weights: list[int], tables: _Tables) -> HandValue:
    """The best low with the joker, given the other cards' weights.

    The joker stands, suitless, for each rank in turn and the best low is
    kept. That is the house rule: in ace-to-five the best choice is the
    lowest rank not in the hand, and in the other lows the lowest card that,
    among the five played, neither pairs nor makes a straight (a suitless
    card never makes a flush).
    """
    key = sum(weights)
    return max(
        (_best([*weights, _UNIT[rank]], tables) for rank in range(13) if not key & _FOUR[rank]),
        key=_STRENGTH,
    )


def _low(cards: Sequence[int], tables: _Tables) -> HandValue:
    key = _fast_key(cards)
    if key and not (key & _FLUSH_BITS and tables.flushes):
        return tables.ranked[key & _RANK_BITS]
    weights, joker = _checked(cards)
    return _low_with_joker(weights, tables) if joker else _best(weights, tables)


def high(cards: Sequence[int]) -> HandValue:
    """The best high hand of five cards or more; the joker is the bug."""
    if not _BUILT:
        build_tables()
    key = _fast_key(cards)
    if not key:
        weights, joker = _checked(cards)
        return _bug(weights) if joker else _best(weights, _HIGH)
    flush = key & _FLUSH_BITS
    if flush:  # up to seven cards, nothing a flush hand holds beats the flush
        return _HIGH_FLUSHES[key >> _FLUSH_SHIFT[flush] & 0x1FFF]
    return _HIGH_RANKED[key & _RANK_BITS]


def ace_to_five_low(cards: Sequence[int]) -> HandValue:
    """The best ace-to-five low: aces low, straights and flushes ignored."""
    if not _BUILT:
        build_tables()
    return _low(cards, _ACE_TO_FIVE)


def deuce_to_seven_low(cards: Sequence[int]) -> HandValue:
    """The best deuce-to-seven low: aces high, straights and flushes count."""
    if not _BUILT:
        build_tables()
    return _low(cards, _DEUCE_TO_SEVEN)


def ace_to_six_low(cards: Sequence[int]) -> HandValue:
    """The best ace-to-six low: aces low, straights and flushes count."""
    if not _BUILT:
        build_tables()
    return _low(cards, _ACE_TO_SIX)


def eight_or_better(cards: Sequence[int]) -> HandValue | None:
    """The best ace-to-five low if it qualifies (five ranks, eight or lower), else None."""
    if not _BUILT:
        build_tables()
    key = _fast_key(cards)
    if key:
        held = key & _EIGHT_FIELDS
        return _EIGHT[(held | held >> 1 | held >> 2) & _EIGHT_ONES]
    value = _low(cards, _ACE_TO_FIVE)
    return value if value.strength >= _eight_worst() else None


def two_plus_three(
    hole: Sequence[int], board: Sequence[int], value: Callable[[Sequence[int]], HandValue | None]
) -> HandValue | None:
    """The best ``value`` of a hand made of exactly two of the ``hole``
    cards and exactly three of the ``board`` (Omaha); None when no such
    hand has one (an unqualified low)."""
    best: HandValue | None = None
    for two in combinations(hole, 2):
        for three in combinations(board, 3):
            v = value((*two, *three))
            if v is not None and (best is None or v.strength > best.strength):
                best = v
    return best


_LOWS: dict[System, Callable[[Sequence[int]], HandValue]] = {
    System.ACE_TO_FIVE: ace_to_five_low,
    System.DEUCE_TO_SEVEN: deuce_to_seven_low,
    System.ACE_TO_SIX: ace_to_six_low,
}
_EVALUATORS = {System.HIGH: high, **_LOWS}


def low(cards: Sequence[int], system: System) -> HandValue:
    """The best low of the cards in one of the three low systems."""
    if system not in _LOWS:
        raise ValueError(f"{system.value} is not a low system")
    return _LOWS[system](cards)


def evaluate(cards: Sequence[int], system: System) -> HandValue:
    """The best hand of the cards in any system."""
    return _EVALUATORS[system](cards)
