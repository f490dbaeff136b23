"""A game as a value: what the shared mechanics ask about the game.

The decider, the betting, the dealing and the showdown never name a game;
they read its :class:`Variant` (``street.opening is LOW_CARD``, ``variant.blinds``),
which each game's module in this package states once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum, StrEnum, auto

from feltline.engine.cards.card import Card
from feltline.engine.cards.values import HandValue, System
from feltline.engine.hand.script import Kind, Opening, Step
from feltline.engine.hand.stakes import Stakes

_BRING_INS = {Opening.LOW_CARD, Opening.HIGH_CARD}


class Game(StrEnum):
    """The games' names as hands record them."""

    DRAW_DECLARE = "draw-declare"
    JACKPOTS = "jackpots"
    STUD_HI_LO = "stud-hi-lo"
    HOLDEM = "holdem"
    OMAHA = "omaha"
    OMAHA_HI_LO = "omaha-hi-lo"
    STUD = "stud"
    RAZZ = "razz"


class OddChips(Enum):
    """Who takes the odd chips of a pot (or half) split among tied hands."""

    SEATS = auto()
    """One at a time clockwise from the first seat left of the button."""
    CARDS = auto()
    """The tied high hand holding the highest card, the tied low hand the
    lowest (RRoP's rule for stud)."""
    LOW_CARD = auto()
    """The tied hand holding the lowest card, the ace low: razz, whose
    pots go to the low alone."""


Values = Callable[[Sequence[Card], Sequence[Card], System], tuple[HandValue, HandValue | None]]
"""A live player's value for the whole pot or its high half (razz's is
its low), and for the low half (None: no low, or no low half in this
game), from their cards, the board and the table's low system."""


@dataclass(frozen=True, slots=True)
class Variant:
    game: Game
    title: str
    """The game's name as a player says it in a sentence."""
    steps: tuple[Step, ...]
    stakes: Stakes
    """The house stakes: the demo's, ``feltline table open``'s defaults."""
    values: Values
    hole_cards: int
    """Every card a player is dealt at most, the draw apart: a duplicate
    deal lays each seat's cards out from fixed positions by it."""
    max_seats: int
    duplicate_seats: int
    """The most seats of a duplicate match's table; 0 when the game is not
    offered in one."""
    mixed: bool
    """Whether a mixed-game table may deal it."""
    blinds: bool = False
    """Blinds instead of antes; a newcomer waits for the big blind or posts."""
    openers: bool = False
    """Jacks or better to open; a deal nobody opens is passed out and its
    pot carried to the next deal."""
    joker: bool = False
    """The table may add the joker."""
    high_low: bool = False
    """Pots split between the best high hand and the best low."""
    chooses_low: bool = False
    """The table chooses the low system (else ace-to-five)."""
    raise_cap: int = 3
    """Raises after the bet in fixed limit, unless the table sets it."""
    odd_chips: OddChips = OddChips.SEATS
    button_shown: bool = True
    """Whether histories name the button: stud's is nominal, the cards
    choosing who acts."""
    bring_in: bool = field(init=False)
    """An up card brings in on the first round: the lowest, or razz's highest."""
    draws: bool = field(init=False)
    """A step draws: the table's draw limits apply."""
    declares: bool = field(init=False)
    """A step declares: each pot goes by the declarations."""

    def forced_bets(self, stakes: Stakes) -> Stakes:
        """The stakes a hand of this game posts at a mixed table, whose
        stakes name every game's forced bets: the blinds in a blinds game,
        the ante and the bring-in in stud, the ante in draw."""
        if self.blinds:
            return replace(stakes, ante=0, bring_in=0)
        bring_in = stakes.bring_in if self.bring_in else 0
        return replace(stakes, small_blind=0, big_blind=0, bring_in=bring_in)

    def __post_init__(self) -> None:
        # Read from the steps once: the showdown asks for every pot.
        openings = {s.opening for s in self.steps}
        object.__setattr__(self, "bring_in", bool(openings & _BRING_INS))
        object.__setattr__(self, "draws", any(s.kind is Kind.DRAW for s in self.steps))
        object.__setattr__(self, "declares", any(s.kind is Kind.DECLARE for s in self.steps))
