"""Why the table refuses a command: each error names what the player
asked for that the table cannot do now."""

from __future__ import annotations

from feltline.engine.errors import IllegalAmount, Kind, RuleError, WrongPhase


class TableClosedError(WrongPhase):
    """The table is not open yet, is opened twice, or has been closed: a
    closed table refuses every command."""


class HandInProgressError(WrongPhase):
    """Only between hands."""


class NoHandInProgressError(WrongPhase):
    """Only while a hand is played."""


class NoSuchSeatError(RuleError):
    """A seat number the table does not have."""


class SeatUnavailableError(RuleError):
    """The seat is taken or empty, or the player is seated already."""

    kind = Kind.PRECONDITION


class BuyInError(IllegalAmount):
    """A buy-in or added chips outside the table's limits."""


class GameOptionError(RuleError):
    """An option the table's game does not have."""


class TooFewPlayersError(RuleError):
    """A hand needs two players with chips."""

    kind = Kind.PRECONDITION


class SeedError(RuleError):
    """A hand's seed is exactly 32 bytes."""


class TimeBankError(RuleError):
    """A time bank spent, or not there to spend."""

    kind = Kind.PRECONDITION


class HandResultError(RuleError):
    """A hand's result that does not fit the hand the table dealt."""
