"""Open Hand History (https://hh-specs.handhistory.org), JSON, spec 1.4."""

from __future__ import annotations

from feltline_replay.histories.format import Format, Unwritable
from feltline_replay.histories.hands import LoggedHand


def one(hand: LoggedHand) -> str:
    raise Unwritable("OHH: not written yet")


FORMAT = Format("ohh", "Open Hand History JSON 1.4", ".ohh", one)
