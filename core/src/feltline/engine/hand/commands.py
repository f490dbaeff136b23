"""What players and the table ask of a hand. Every command names its seat."""

from __future__ import annotations

from dataclasses import dataclass

from feltline.engine.cards.card import Card
from feltline.engine.hand.events import Action, Choice, Deal, Entropy
from feltline.engine.hand.rules import Rules


@dataclass(frozen=True, slots=True)
class Command:
    pass


@dataclass(frozen=True, slots=True)
class StartHand(Command):
    """Deal a hand. The table decides who is in and who posts what; the
    shell draws ``seed`` from the operating system's CSPRNG. With
    ``entropy`` other than off, the seats contribute before the deck is
    derived (``feltline-deck-v2``)."""

    rules: Rules
    deal: Deal
    seed: bytes
    entropy: Entropy = Entropy.OFF


@dataclass(frozen=True, slots=True)
class Commit(Command):
    """A seat commits to its contribution: the SHA-256 of its 32 bytes, in
    lowercase hex."""

    seat: int
    commitment: str


@dataclass(frozen=True, slots=True)
class Reveal(Command):
    """A seat reveals the 32 bytes it committed to."""

    seat: int
    contribution: bytes


@dataclass(frozen=True, slots=True)
class CloseContributions(Command):
    """The contribution window ran out: go on with the seats that kept up."""


@dataclass(frozen=True, slots=True)
class Act(Command):
    """Check, call, fold, bring in; bet, raise or complete *to* ``amount``
    (the seat's whole bet this round after the action)."""

    seat: int
    action: Action
    amount: int = 0


@dataclass(frozen=True, slots=True)
class Draw(Command):
    seat: int
    discards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Declare(Command):
    seat: int
    choice: Choice


@dataclass(frozen=True, slots=True)
class TimeOut(Command):
    """The action clock ran out for ``seat``: check or fold, stand pat, or
    fold the declaration, as docs/rules.md says."""

    seat: int


@dataclass(frozen=True, slots=True)
class Cancel(Command):
    """The table closed mid-hand: every chip put in goes back."""
