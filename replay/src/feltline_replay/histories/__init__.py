"""Hand histories a third party can read, one module per format: ``FORMATS``
is what ``feltline-replay convert --to`` offers (docs/replay.md)."""

from __future__ import annotations

from feltline_replay.histories import html, ohh, phh, pokerstars
from feltline_replay.histories.format import Format, Unwritable
from feltline_replay.histories.hands import LoggedHand, logged_hands

FORMATS: dict[str, Format] = {
    f.name: f for f in (phh.FORMAT, ohh.FORMAT, pokerstars.FORMAT, html.FORMAT)
}

__all__ = ["FORMATS", "Format", "LoggedHand", "Unwritable", "logged_hands"]
