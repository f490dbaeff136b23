"""Typed rule errors: the engine refuses a command and changes nothing.

Each carries a message a player understands; ``kind`` lets the API choose a
status code without parsing text.
"""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    INVALID = "invalid"  # the command can never be right (bad amount, bad card)
    PRECONDITION = "precondition"  # right in another phase or turn
    DENIED = "denied"  # acting for another seat
    NOT_FOUND = "not-found"  # a table or hand the store does not hold


class RuleError(Exception):
    kind = Kind.INVALID


class ConfigError(RuleError):
    """Table settings no hand could be played with."""


class NotYourTurn(RuleError):
    kind = Kind.PRECONDITION


class WrongPhase(RuleError):
    kind = Kind.PRECONDITION


class IllegalAction(RuleError):
    kind = Kind.PRECONDITION


class IllegalAmount(RuleError):
    pass


class IllegalDraw(RuleError):
    pass


class IllegalContribution(RuleError):
    """A seat's commitment or contribution that can never be right: a wrong
    length, or bytes that do not hash to the commitment."""


class NotInHand(RuleError):
    kind = Kind.DENIED
