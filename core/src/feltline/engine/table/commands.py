"""What players and the floor ask of the table."""

from __future__ import annotations

from dataclasses import dataclass

from feltline.engine.hand.events import PassedOut
from feltline.engine.hand.stakes import Stakes
from feltline.engine.table.house import TableConfig


@dataclass(frozen=True, slots=True)
class TableCommand:
    pass


@dataclass(frozen=True, slots=True)
class OpenTable(TableCommand):
    """``name`` is for people only: the rules never read it."""

    config: TableConfig
    at: int
    name: str = ""


@dataclass(frozen=True, slots=True)
class SitDown(TableCommand):
    """Take an empty seat. docs/rules.md seats players "between hands": a
    newcomer is in no hand, so for them it is between hands even while
    others play one (the dealer deals the next hand in the request that ends
    the last, so a table at play is never between hands for everyone). In
    hold'em ``post_now`` deals the player in at once for a big blind instead
    of waiting for it; in jackpots ``join_pot`` buys into a carried pot
    instead of waiting until it is won, between deals only: during one the
    pot is in play."""

    seat: int
    player: str
    buy_in: int
    at: int
    post_now: bool = False
    join_pot: bool = False


@dataclass(frozen=True, slots=True)
class SeatPlayer(TableCommand):
    """A tournament director seats a player with their tournament chips,
    drawn or moved there: dealt in from the next hand as a regular, since
    the director has reckoned when they post the big blind (docs/rules.md,
    "Tournaments"); ``stack`` is anything from one chip up, never a buy-in.
    ``bank`` is the time bank a moved player had left at their old table,
    None for the table's whole bank (a player drawn a seat)."""

    seat: int
    player: str
    stack: int
    at: int
    bank: int | None = None


@dataclass(frozen=True, slots=True)
class ChangeStakes(TableCommand):
    """A tournament's new level at this table, between hands: the next
    hand is dealt at ``stakes`` (the same betting structure)."""

    stakes: Stakes


@dataclass(frozen=True, slots=True)
class StandUp(TableCommand):
    seat: int


@dataclass(frozen=True, slots=True)
class SitOut(TableCommand):
    """Be dealt no hand from the next one on, keeping the seat and stack.
    The dealer deals the next hand in the request that ends the last, so
    this is the way to miss it: ask during the hand, stand up after it. A
    jackpots pot carried over is still played for by every player entitled
    to it: a share is given up only by standing up."""

    seat: int


@dataclass(frozen=True, slots=True)
class SitIn(TableCommand):
    """Be dealt in again. In hold'em a player who missed a deal while out
    comes back as a newcomer does, waiting for the big blind unless
    ``post_now``, so that sitting out never skips a blind."""

    seat: int
    post_now: bool = False


@dataclass(frozen=True, slots=True)
class AddChips(TableCommand):
    """Top up a stack when its seat is not in the hand being played: only
    the chips in front of a player when a hand starts play in it (docs/rules.md,
    "chips are added only between hands"), and a seat dealt out of the
    hand has none in it."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class UseTimeBank(TableCommand):
    """The action clock ran out for ``seat`` at ``turn`` of the hand being
    played (the hand's version then): its time bank goes on the clock."""

    seat: int
    turn: int


@dataclass(frozen=True, slots=True)
class DealHand(TableCommand):
    """Start the next hand; the caller draws ``seed`` from the CSPRNG."""

    at: int
    seed: bytes


@dataclass(frozen=True, slots=True)
class EndHand(TableCommand):
    """The hand's result: ``stacks`` from ``HandEnded``, its rake, and for a
    passed-out jackpots deal the ``PassedOut`` event (each seat's whole share
    of the pot and all its dead money, earlier deals included)."""

    stacks: tuple[tuple[int, int], ...]
    passed_out: PassedOut | None = None
    rake: int = 0


@dataclass(frozen=True, slots=True)
class CloseTable(TableCommand):
    """Close the table for good, between hands: the caller cancels a hand in
    progress first (the hand decider's ``Cancel``, settled by ``EndHand``).
    Everyone stands up with their stack; a jackpots carried pot goes back
    to the players entitled to it (see :func:`pot_refunds`)."""

    at: int
    reason: str = ""
