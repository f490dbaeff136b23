"""Cards and their notation.

A card is a small int so that evaluators can index tables with it directly:
``rank * 4 + suit`` for the 52 standard cards (rank 0 is the deuce, 12 the
ace; suits in RRoP order clubs, diamonds, hearts, spades) and 52 for the
joker. :class:`Card` subclasses ``int`` only to print itself in the usual
notation: ``As``, ``Td``, ``2c``, and ``Jk`` for the joker.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "cdhs"
JOKER_TOKEN = "Jk"

RANK_NAMES = (
    "deuce",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
RANK_PLURALS = (
    "deuces",
    "threes",
    "fours",
    "fives",
    "sixes",
    "sevens",
    "eights",
    "nines",
    "tens",
    "jacks",
    "queens",
    "kings",
    "aces",
)
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")

ACE = 12
JOKER_INDEX = 52


def ace_low(card: int) -> int:
    """An order on cards with the ace below the deuce, by rank then suit;
    the joker last, never a low card."""
    if card == JOKER_INDEX:
        return JOKER_INDEX
    return ((card >> 2) + 1) % 13 * 4 + (card & 3)


class CardError(ValueError):
    """A card token that is not in Feltline's notation."""


class Card(int):
    """One card; compares and hashes as its index, prints as its token."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """0 (deuce) to 12 (ace); the joker has no rank and raises."""
        if self == JOKER_INDEX:
            raise ValueError("the joker has no rank")
        return self >> 2

    @property
    def suit(self) -> int:
        """0 clubs, 1 diamonds, 2 hearts, 3 spades; the joker has none."""
        if self == JOKER_INDEX:
            raise ValueError("the joker has no suit")
        return self & 3

    @property
    def is_joker(self) -> bool:
        return self == JOKER_INDEX

    def __str__(self) -> str:
        return _TOKENS[self]

    def __repr__(self) -> str:
        return f"Card({_TOKENS[self]!r})"

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        """The card of a rank (0-12) and suit (0-3)."""
        if not (0 <= rank < 13 and 0 <= suit < 4):
            raise CardError(f"no card has rank {rank} and suit {suit}")
        return ALL_CARDS[rank * 4 + suit]

    @classmethod
    def parse(cls, token: str) -> Card:
        """Read one card such as ``As``, ``Td`` or ``Jk``."""
        card = _BY_TOKEN.get(token)
        if card is not None:
            return card
        raise CardError(_explain(token))


def _explain(token: str) -> str:
    if len(token) != 2:
        return (
            f"bad card {token!r}: a card is two characters, a rank from {RANKS} "
            f"and a suit from {SUITS} (for example 'As' or 'Td'), or {JOKER_TOKEN!r}"
        )
    if token[0] not in RANKS:
        return f"bad card {token!r}: rank {token[0]!r} is not one of {RANKS}"
    return f"bad card {token!r}: suit {token[1]!r} is not one of {SUITS}"


_TOKENS = (*(r + s for r in RANKS for s in SUITS), JOKER_TOKEN)
ALL_CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(53))
JOKER = ALL_CARDS[JOKER_INDEX]
STANDARD_DECK: tuple[Card, ...] = ALL_CARDS[:52]
_BY_TOKEN = {token: ALL_CARDS[i] for i, token in enumerate(_TOKENS)}


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Read cards from ``"As Kd"``, ``"AsKd"`` or an iterable of tokens.

    Every bad token is reported at once, by position, so a person can fix
    a whole line in one go.
    """
    if isinstance(text, str):
        compact = "".join(text.split())
        if len(compact) % 2:
            raise CardError(
                f"bad cards {text!r}: every card is two characters, "
                f"but {len(compact)} characters were given"
            )
        tokens = [compact[i : i + 2] for i in range(0, len(compact), 2)]
    else:
        tokens = list(text)
    parsed: list[Card] = []
    problems: list[str] = []
    for position, token in enumerate(tokens, 1):
        card = _BY_TOKEN.get(token)
        if card is None:
            problems.append(f"card {position}: {_explain(token)}")
        else:
            parsed.append(card)
    if problems:
        raise CardError("; ".join(problems))
    return tuple(parsed)


def format_cards(cards: Iterable[int]) -> str:
    """Print cards as space-separated tokens."""
    return " ".join(_TOKENS[c] for c in cards)


def deck(*, joker: bool = False) -> tuple[Card, ...]:
    """A fresh deck in index order: 52 cards, or 53 with the joker."""
    return ALL_CARDS if joker else STANDARD_DECK
