"""The house's settings for a table: seats, buy-ins, time charge, ante cap,
action clock.

The hand's own settings travel in :class:`Rules`; these are the ones only
the table needs. Chip amounts are whole numbers of chips, time whole
seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from feltline.engine.errors import ConfigError
from feltline.engine.rules import MAX_SEATS, Game, Rules, Structure

DEFAULT_ANTE_CAP = 3
DEFAULT_WINDOW = 1800
DEFAULT_ACTION_CLOCK = 30
# Buy-ins in big bets (fixed limit) or big blinds (pot and no limit; the
# minimum bet in an antes game): the house minimum and default maximum.
FIXED_LIMIT_BUY_IN = (10, 25)
BIG_BLIND_BUY_IN = (40, 100)
# A duplicate match deals every seat from fixed positions: the deck must
# hold every seat's cards, and jackpots' carried pots are not offered.
DUPLICATE_MAX_SEATS = {Game.HOLDEM: 10, Game.STUD_HI_LO: 7, Game.DRAW_DECLARE: 6}


@dataclass(frozen=True, slots=True)
class TimeCharge:
    """Every seated player pays ``amount`` once per ``window`` seconds,
    windows counted from the table's opening."""

    amount: int
    window: int = DEFAULT_WINDOW


@dataclass(frozen=True, slots=True)
class TableConfig:
    """A table's settings. Buy-ins left as None take the house defaults,
    which :meth:`validate` fills in so the opening records real numbers.
    ``action_clock`` is how many seconds a player has before a time-out may
    act for them; the caller's clock decides, the time coming with each
    command."""

    rules: Rules
    seats: int
    min_buy_in: int | None = None
    max_buy_in: int | None = None
    time_charge: TimeCharge | None = None
    ante_cap: int = DEFAULT_ANTE_CAP
    action_clock: int = DEFAULT_ACTION_CLOCK

    def buy_in_limits(self) -> tuple[int, int]:
        """The smallest and largest stack a player may sit down with."""
        stakes = self.rules.stakes
        if stakes.structure is Structure.FIXED_LIMIT:
            unit, (low, high) = stakes.big_bet, FIXED_LIMIT_BUY_IN
        else:
            unit, (low, high) = stakes.minimum_bet, BIG_BLIND_BUY_IN
        return (
            low * unit if self.min_buy_in is None else self.min_buy_in,
            high * unit if self.max_buy_in is None else self.max_buy_in,
        )

    def validate(self) -> TableConfig:
        """Refuse a table nobody could play at; return it with its buy-ins set."""
        rules = self.rules.validate()
        game = rules.game
        duplicate = bool(rules.fixed_seats)
        if duplicate and rules.fixed_seats != self.seats:
            raise ConfigError(
                f"a duplicate table deals for its own {self.seats} seats, "
                f"not for {rules.fixed_seats}"
            )
        most = DUPLICATE_MAX_SEATS.get(game) if duplicate else MAX_SEATS[game]
        if most is None:
            raise ConfigError(f"{game} is not offered in a duplicate match")
        if not 2 <= self.seats <= most:
            kind = "a duplicate" if duplicate else "a"
            raise ConfigError(f"{kind} {game} table has 2 to {most} seats, not {self.seats}")
        low, high = self.buy_in_limits()
        if not 0 < low <= high:
            raise ConfigError(
                f"the buy-in must be at least one chip and its minimum ({low}) "
                f"no more than its maximum ({high})"
            )
        charge = self.time_charge
        if charge is not None:
            if charge.amount <= 0 or charge.window <= 0:
                raise ConfigError(
                    "a time charge is at least one chip per window of at least a second"
                )
            if rules.rake is not None:
                raise ConfigError("a table takes a rake or a time charge, not both")
        if duplicate and (charge is not None or rules.rake is not None):
            raise ConfigError("a duplicate match takes no rake or time charge")
        if self.ante_cap < 1:
            raise ConfigError("a jackpots pot takes antes on at least one deal")
        if self.action_clock < 1:
            raise ConfigError("the action clock gives a player at least a second")
        return replace(self, rules=rules, min_buy_in=low, max_buy_in=high)
