"""Chip amounts and the betting structure, apart from the game they are
played at: each game's module gives its house stakes in these terms."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Structure(StrEnum):
    FIXED_LIMIT = "fixed-limit"
    POT_LIMIT = "pot-limit"
    NO_LIMIT = "no-limit"


@dataclass(frozen=True, slots=True)
class Stakes:
    """Chip amounts. ``small_bet`` is the fixed-limit small bet, and in pot
    and no limit the minimum bet (the big blind in a blind game)."""

    structure: Structure
    small_bet: int
    big_bet: int = 0
    ante: int = 0
    small_blind: int = 0
    big_blind: int = 0
    bring_in: int = 0
    raise_cap: int | None = None
    """Raises allowed after the bet in fixed limit; None is the game's
    default (three, four in draw games)."""
    uncapped_heads_up: bool = True

    @property
    def minimum_bet(self) -> int:
        return self.big_blind or self.small_bet
