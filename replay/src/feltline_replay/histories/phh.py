"""PHH, the poker hand history format PokerKit reads
(https://github.com/uoftcprg/phh-std): a hand is a TOML file, a set of
hands a ``.phhs`` file of numbered tables."""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO

from feltline_replay.histories.format import Format, Unwritable
from feltline_replay.histories.hands import LoggedHand


def refuses(hand: LoggedHand) -> str | None:
    return "PHH: not written yet"


def one(hand: LoggedHand) -> str:
    raise Unwritable(refuses(hand))


def many(hands: Iterable[LoggedHand], out: IO[str]) -> None:
    for n, hand in enumerate(hands, 1):
        out.write(f"[{n}]\n{one(hand)}\n")


FORMAT = Format("phh", "Poker Hand History (PokerKit)", ".phh", one, many, ".phhs", refuses)
