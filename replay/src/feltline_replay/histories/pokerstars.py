"""PokerStars-style text, the shape hand-tracking programs import."""

from __future__ import annotations

from feltline_replay.histories.format import Format, Unwritable
from feltline_replay.histories.hands import LoggedHand


def one(hand: LoggedHand) -> str:
    raise Unwritable("PokerStars text: not written yet")


FORMAT = Format("pokerstars", "PokerStars-style text", ".txt", one)
