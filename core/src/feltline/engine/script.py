"""Each game as the list of steps a hand goes through.

A hand's state remembers only its step number; what a step does is read
from here, so the four games share one decider.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, auto

from feltline.engine.rules import Game


class Kind(Enum):
    FORCED = auto()
    DEAL = auto()
    BOARD = auto()
    BET = auto()
    DRAW = auto()
    DECLARE = auto()
    SHOWDOWN = auto()


@dataclass(frozen=True, slots=True)
class Step:
    kind: Kind
    name: str
    faces: tuple[bool, ...] = ()
    board: int = 0
    big: bool = False


FORCED = Step(Kind.FORCED, "forced bets")
SHOWDOWN = Step(Kind.SHOWDOWN, "showdown")
DOWN, UP = False, True


def _bet(name: str, *, big: bool) -> Step:
    return Step(Kind.BET, name, big=big)


def _deal(name: str, *faces: bool) -> Step:
    return Step(Kind.DEAL, name, faces=faces)


_DRAW_DEAL = _deal("the deal", DOWN, DOWN, DOWN, DOWN, DOWN)

SCRIPTS: dict[Game, tuple[Step, ...]] = {
    Game.HOLDEM: (
        FORCED,
        _deal("hole cards", DOWN, DOWN),
        _bet("preflop betting", big=False),
        Step(Kind.BOARD, "flop", board=3),
        _bet("flop betting", big=False),
        Step(Kind.BOARD, "turn", board=1),
        _bet("turn betting", big=True),
        Step(Kind.BOARD, "river", board=1),
        _bet("river betting", big=True),
        SHOWDOWN,
    ),
    Game.STUD_HI_LO: (
        FORCED,
        _deal("third street", DOWN, DOWN, UP),
        _bet("third street betting", big=False),
        _deal("fourth street", UP),
        _bet("fourth street betting", big=False),
        _deal("fifth street", UP),
        _bet("fifth street betting", big=True),
        _deal("sixth street", UP),
        _bet("sixth street betting", big=True),
        _deal("seventh street", DOWN),
        _bet("seventh street betting", big=True),
        SHOWDOWN,
    ),
    Game.DRAW_DECLARE: (
        FORCED,
        _DRAW_DEAL,
        _bet("first betting round", big=False),
        Step(Kind.DRAW, "the draw"),
        _bet("second betting round", big=True),
        Step(Kind.DECLARE, "declaration"),
        SHOWDOWN,
    ),
    Game.JACKPOTS: (
        FORCED,
        _DRAW_DEAL,
        _bet("first betting round", big=False),
        Step(Kind.DRAW, "the draw"),
        _bet("second betting round", big=True),
        SHOWDOWN,
    ),
}
