"""A hand as the list of steps it goes through.

A hand's state remembers only its step number; what a step does is read
from its game's steps (``engine/games/``), so every game shares one decider.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum, auto


class Phase(StrEnum):
    """What the hand waits for."""

    NOT_STARTED = "not-started"
    COMMITTING = "committing"
    REVEALING = "revealing"
    DEALING = "dealing"
    BETTING = "betting"
    DRAWING = "drawing"
    DECLARING = "declaring"
    ENDED = "ended"


class Kind(Enum):
    FORCED = auto()
    DEAL = auto()
    BOARD = auto()
    BET = auto()
    DRAW = auto()
    DECLARE = auto()
    SHOWDOWN = auto()


class Opening(Enum):
    """Who acts first in a betting round; the first such seat that is
    active, going on clockwise."""

    BUTTON = auto()
    """Left of the button."""
    BLINDS = auto()
    """Left of the big blind (of the button when nobody posted one)."""
    LOW_CARD = auto()
    """The lowest up card brings in (ace high)."""
    HIGH_CARD = auto()
    """The highest up card brings in (ace low: razz)."""
    HIGH_SHOWING = auto()
    """The best high hand showing."""
    LOW_SHOWING = auto()
    """The best low hand showing (ace-to-five: razz)."""
    FIRST_BETTOR = auto()
    """Whoever made the first round's first bet (left of the button when
    nobody did)."""


@dataclass(frozen=True, slots=True)
class Step:
    kind: Kind
    name: str
    faces: tuple[bool, ...] = ()
    board: int = 0
    big: bool = False
    opening: Opening = Opening.BUTTON


FORCED = Step(Kind.FORCED, "forced bets")
SHOWDOWN = Step(Kind.SHOWDOWN, "showdown")
DRAW = Step(Kind.DRAW, "the draw")
DECLARE = Step(Kind.DECLARE, "declaration")
DOWN, UP = False, True


def bet(name: str, *, big: bool, opening: Opening = Opening.BUTTON) -> Step:
    """A betting round: the small bet in fixed limit, or the big one."""
    return Step(Kind.BET, name, big=big, opening=opening)


def deal(name: str, *faces: bool) -> Step:
    """One card to each live player per face, down or up."""
    return Step(Kind.DEAL, name, faces=faces)


def board(name: str, count: int) -> Step:
    """``count`` common cards face up in the middle."""
    return Step(Kind.BOARD, name, board=count)
