"""A hand's rules: the game, the betting structure and the table settings.

Everything a hand needs to know about its table travels in :class:`Rules`
and is recorded in the hand's first event, so a hand replays without the
table that dealt it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from feltline.engine.errors import ConfigError
from feltline.engine.values import System


class Game(StrEnum):
    DRAW_DECLARE = "draw-declare"
    JACKPOTS = "jackpots"
    STUD_HI_LO = "stud-hi-lo"
    HOLDEM = "holdem"


class Structure(StrEnum):
    FIXED_LIMIT = "fixed-limit"
    POT_LIMIT = "pot-limit"
    NO_LIMIT = "no-limit"


MAX_SEATS = {Game.DRAW_DECLARE: 8, Game.JACKPOTS: 8, Game.STUD_HI_LO: 8, Game.HOLDEM: 10}
FIXED_SEATS_MAX = {Game.DRAW_DECLARE: 6, Game.JACKPOTS: 0, Game.STUD_HI_LO: 7, Game.HOLDEM: 10}
DRAW_GAMES = frozenset({Game.DRAW_DECLARE, Game.JACKPOTS})


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


@dataclass(frozen=True, slots=True)
class Rake:
    """A share of each pot in basis points (1/10,000), main pot first, up
    to a cap per hand: integers, so a verifier redoes it exactly."""

    basis_points: int
    cap: int


@dataclass(frozen=True, slots=True)
class Rules:
    game: Game
    stakes: Stakes
    low: System = System.ACE_TO_FIVE
    joker: bool = False
    draw_limit_small: int = 5
    draw_limit_large: int = 3
    rake: Rake | None = None
    fixed_seats: int = 0
    """Duplicate matches: deal every seat's i-th card from the same deck
    position at every table, for a table of this many seats (0: from the
    top). Seat s takes slot s mod ``fixed_seats``."""

    def draw_limit(self, players: int) -> int:
        """Fewer than six players dealt in draw up to five cards; more, three."""
        return self.draw_limit_small if players < 6 else self.draw_limit_large

    @property
    def raise_cap(self) -> int:
        """A bet and three raises, a bet and four in draw games, unless set."""
        cap = self.stakes.raise_cap
        return (4 if self.game in DRAW_GAMES else 3) if cap is None else cap

    def validate(self) -> Rules:
        """Refuse settings no hand could be played with."""
        s = self.stakes
        if min(s.small_bet, s.big_bet, s.ante, s.small_blind, s.big_blind, s.bring_in) < 0:
            raise ConfigError("chip amounts cannot be negative")
        if s.small_bet <= 0:
            raise ConfigError("the small bet (or minimum bet) must be at least one chip")
        if s.structure is Structure.FIXED_LIMIT and s.big_bet < s.small_bet:
            raise ConfigError("the big bet must be at least the small bet")
        if s.raise_cap is not None and s.raise_cap < 0:
            raise ConfigError("the raise cap cannot be negative")
        if self.game is Game.HOLDEM:
            if s.big_blind <= 0 or not 0 <= s.small_blind <= s.big_blind:
                raise ConfigError("hold'em needs a big blind and a small blind no larger")
        elif s.ante <= 0 and self.game is not Game.STUD_HI_LO:
            raise ConfigError(f"{self.game} needs an ante")
        if self.game is Game.STUD_HI_LO and not 0 < s.bring_in <= s.small_bet:
            raise ConfigError("stud needs a bring-in of at least one chip, at most the small bet")
        if self.joker and self.game is not Game.STUD_HI_LO:
            raise ConfigError("only stud deals the joker")
        if self.rake is not None and not (
            0 <= self.rake.basis_points < 10_000 and self.rake.cap >= 0
        ):
            raise ConfigError("the rake must be 0 to 9,999 basis points, its cap not negative")
        if self.fixed_seats:
            most = FIXED_SEATS_MAX[self.game]
            if not most:
                raise ConfigError(f"{self.game} is not offered in a duplicate match")
            if not 2 <= self.fixed_seats <= most:
                raise ConfigError(
                    f"a duplicate {self.game} table has 2 to {most} seats, not {self.fixed_seats}"
                )
        if not (0 <= self.draw_limit_small <= 5 and 0 <= self.draw_limit_large <= 5):
            raise ConfigError("a draw limit is 0 to 5 cards")
        if (
            self.game in DRAW_GAMES
            and self.fixed_seats * (5 + self.draw_limit(self.fixed_seats)) > 52
        ):
            raise ConfigError("the deck has no room to reserve each seat's draw at this limit")
        if self.low is not System.ACE_TO_FIVE and self.game is not Game.DRAW_DECLARE:
            raise ConfigError("only draw-declare chooses its low")
        if self.low is System.HIGH:
            raise ConfigError("the low must be a low system")
        return self
