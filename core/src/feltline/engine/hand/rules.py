"""A hand's rules: the game, the betting structure and the table settings.

Everything a hand needs to know about its table travels in :class:`Rules`
and is recorded in the hand's first event, so a hand replays without the
table that dealt it.
"""

from __future__ import annotations

from dataclasses import dataclass

from feltline.engine.cards.values import System
from feltline.engine.errors import ConfigError
from feltline.engine.games import VARIANTS, named
from feltline.engine.games.variant import Game, Variant
from feltline.engine.hand.stakes import Stakes, Structure

__all__ = ["Game", "Rake", "Rules", "Stakes", "Structure"]


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

    @classmethod
    def house(cls, game: Game) -> Rules:
        """``game`` at its house stakes, with the house's other defaults."""
        return cls(game, VARIANTS[game].stakes)

    @property
    def variant(self) -> Variant:
        """What the game is: its steps, forced bets, hand values, limits."""
        return VARIANTS[self.game]

    def draw_limit(self, players: int) -> int:
        """Fewer than six players dealt in draw up to five cards; more, three."""
        return self.draw_limit_small if players < 6 else self.draw_limit_large

    @property
    def raise_cap(self) -> int:
        """The game's cap (a bet and three raises, four in draw games), unless set."""
        cap = self.stakes.raise_cap
        return self.variant.raise_cap if cap is None else cap

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
        game = self.variant
        if game.blinds:
            if s.big_blind <= 0 or not 0 <= s.small_blind <= s.big_blind:
                raise ConfigError(f"{game.title} needs a big blind and a small blind no larger")
        elif s.ante <= 0 and not game.bring_in:
            raise ConfigError(f"{self.game} needs an ante")
        if game.bring_in and not 0 < s.bring_in <= s.small_bet:
            raise ConfigError(
                f"{game.title} needs a bring-in of at least one chip, at most the small bet"
            )
        if self.joker and not game.joker:
            raise ConfigError(f"only {named(lambda v: v.joker)} deals the joker")
        if self.rake is not None and not (
            0 <= self.rake.basis_points < 10_000 and self.rake.cap >= 0
        ):
            raise ConfigError("the rake must be 0 to 9,999 basis points, its cap not negative")
        if self.fixed_seats:
            most = game.duplicate_seats
            if not most:
                raise ConfigError(f"{self.game} is not offered in a duplicate match")
            if not 2 <= self.fixed_seats <= most:
                raise ConfigError(
                    f"a duplicate {self.game} table has 2 to {most} seats, not {self.fixed_seats}"
                )
        if not (0 <= self.draw_limit_small <= 5 and 0 <= self.draw_limit_large <= 5):
            raise ConfigError("a draw limit is 0 to 5 cards")
        if game.draws and self.fixed_seats * (5 + self.draw_limit(self.fixed_seats)) > 52:
            raise ConfigError("the deck has no room to reserve each seat's draw at this limit")
        if self.low is not System.ACE_TO_FIVE and not game.chooses_low:
            raise ConfigError(f"only {named(lambda v: v.chooses_low)} chooses its low")
        if self.low is System.HIGH:
            raise ConfigError("the low must be a low system")
        return self
