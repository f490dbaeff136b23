"""What a hand-history format is to ``feltline-replay convert``: a name, how
one hand is written, and how a set of hands is, where the format has a file
for a set. Each format is a module of this package; ``FORMATS`` names them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import IO

from feltline_replay.histories.hands import LoggedHand


class Unwritable(ValueError):
    """A hand the format cannot hold (a game it has no code for): the
    message says why, and the hand is left out."""


def _holds_every_hand(hand: LoggedHand) -> str | None:
    return None


@dataclass(frozen=True)
class Format:
    """``one`` writes a hand's file (``<hand id><suffix>``); ``many``, when
    the format has a file for a set, writes the hands given into one file
    (``hands<set_suffix>``), streaming. ``refuses`` says why a hand cannot
    be written, or None: ``convert`` asks it before either."""

    name: str
    summary: str
    suffix: str
    one: Callable[[LoggedHand], str]
    many: Callable[[Iterable[LoggedHand], IO[str]], None] | None = None
    set_suffix: str | None = None
    refuses: Callable[[LoggedHand], str | None] = _holds_every_hand
