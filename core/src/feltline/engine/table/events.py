"""What happens at the table between hands, as immutable facts."""

from __future__ import annotations

from dataclasses import dataclass

from feltline.engine.hand.events import Deal, Event
from feltline.engine.hand.stakes import Stakes
from feltline.engine.table.house import TableConfig, Turn
from feltline.engine.table.state import (
    Entry,
)


@dataclass(frozen=True, slots=True)
class TableEvent(Event):
    """Everything that happens at the table between hands is public."""


@dataclass(frozen=True, slots=True)
class TableOpened(TableEvent):
    """``name`` is stored here so that it outlives the server that was told it."""

    config: TableConfig
    at: int
    name: str


@dataclass(frozen=True, slots=True)
class SatDown(TableEvent):
    """A buy-in: ``buy_in`` chips come onto the table. ``bank`` is the time
    bank the seat starts with, None for the table's whole bank: a player a
    tournament moves brings the bank they had left (docs/rules.md, "The
    time bank")."""

    seat: int
    player: str
    buy_in: int
    at: int
    entry: Entry
    bank: int | None = None


@dataclass(frozen=True, slots=True)
class JoinedPot(TableEvent):
    """A newcomer puts into the carried pot the antes each entitled player paid."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class ChipsAdded(TableEvent):
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class LeavingAfterHand(TableEvent):
    seat: int


@dataclass(frozen=True, slots=True)
class SatOut(TableEvent):
    seat: int


@dataclass(frozen=True, slots=True)
class SatIn(TableEvent):
    """``entry``: how the seat comes into hands again."""

    seat: int
    entry: Entry


@dataclass(frozen=True, slots=True)
class StoodUp(TableEvent):
    """A cash-out: ``stack`` leaves the table with the player; their share
    of a carried pot, ``forfeited``, stays in it as dead money. When the
    table closes, ``stack`` also holds what the carried pot gives back to
    the seat: whatever exceeds the seat's stack comes out of the pot."""

    seat: int
    player: str
    stack: int
    forfeited: int = 0


@dataclass(frozen=True, slots=True)
class TimeCharged(TableEvent):
    seat: int
    amount: int
    window: int


@dataclass(frozen=True, slots=True)
class TimeBankUsed(TableEvent):
    """``seconds``, all of ``seat``'s time bank, went on its clock at
    ``turn`` of the hand being played."""

    seat: int
    seconds: int
    turn: int


@dataclass(frozen=True, slots=True)
class HandDealt(TableEvent):
    """Hand number ``hand`` begins: its ``deal``, with the table's rules at
    ``turn`` (a mixed table's game; None at a table of one game) and the
    caller's seed, is the hand decider's ``StartHand``."""

    hand: int
    at: int
    deal: Deal
    commitment: str
    turn: Turn | None = None


@dataclass(frozen=True, slots=True)
class HandFinished(TableEvent):
    """The hand's final stacks and rake; after a passed-out deal, the pot
    that carries to the next (each seat's share and the dead money)."""

    stacks: tuple[tuple[int, int], ...]
    rake: int = 0
    passed_out: bool = False
    carried: tuple[tuple[int, int], ...] = ()
    dead: int = 0


@dataclass(frozen=True, slots=True)
class CarriedPotWon(TableEvent):
    """The last entitled player left takes the whole carried pot."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class StakesChanged(TableEvent):
    """The stakes every hand from the next on is dealt at."""

    stakes: Stakes


@dataclass(frozen=True, slots=True)
class TableClosed(TableEvent):
    """The table closes; everyone has stood up. Dead money of a carried pot
    that nobody seated could take back, all that can be left on the table
    then, goes to the house."""

    at: int
    reason: str = ""
