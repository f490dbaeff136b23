"""Every game, each in its own module; :data:`VARIANTS` is the one place a
game's name is looked up."""

from __future__ import annotations

from collections.abc import Callable

from feltline.engine.games import (
    draw_declare,
    holdem,
    jackpots,
    omaha,
    omaha_hi_lo,
    razz,
    stud,
    stud_hi_lo,
)
from feltline.engine.games.variant import Game, Variant

VARIANTS: dict[Game, Variant] = {
    m.VARIANT.game: m.VARIANT
    for m in (draw_declare, jackpots, stud_hi_lo, holdem, omaha, omaha_hi_lo, stud, razz)
}


def named(has: Callable[[Variant], bool]) -> str:
    """The games that have a feature, as a player names them: "stud",
    "hold'em, Omaha or Omaha high-low"."""
    titles = [v.title for v in VARIANTS.values() if has(v)]
    return " or ".join([", ".join(titles[:-1]), titles[-1]] if len(titles) > 1 else titles)
