"""The table's state between hands, rebuilt by folding ``evolve`` over its
events."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from feltline.engine.hand.rules import Rules
from feltline.engine.table.house import TableConfig, Turn


class Entry(StrEnum):
    """How a seated player comes into hands: hold'em newcomers wait for the
    big blind or post one at once; everyone else plays."""

    PLAYING = "playing"
    WAITING = "waiting"
    POSTING = "posting"


@dataclass(frozen=True, slots=True)
class Seat:
    """An occupied seat. ``leaving`` is set when the player stands up during
    a hand they are in: the caller folds them at their turn and they go when
    the hand ends. ``sitting_out`` keeps the seat out of the hands dealt
    from then on. ``charged`` is the last time-charge window they paid.
    ``bank`` is the seconds left in their time bank."""

    number: int
    player: str
    stack: int
    entry: Entry = Entry.PLAYING
    leaving: bool = False
    charged: int | None = None
    sitting_out: bool = False
    bank: int = 0


@dataclass(frozen=True, slots=True)
class CarriedPot:
    """Jackpots' pot after passed deals: each entitled seat's share, what
    leavers forfeited and how many deals it has had. Dead money with no
    share left is a fresh pot's head start, open to everyone."""

    shares: tuple[tuple[int, int], ...] = ()
    dead: int = 0
    deals: int = 0

    @property
    def entitled(self) -> tuple[int, ...]:
        return tuple(seat for seat, _ in self.shares)

    @property
    def total(self) -> int:
        return sum(amount for _, amount in self.shares) + self.dead

    def share(self, seat: int) -> int:
        return dict(self.shares).get(seat, 0)


@dataclass(frozen=True, slots=True)
class Table:
    """The table's state; ``Table()`` is a table not yet opened. ``dealt`` is
    the seats dealt into the hand being played, None between hands; their
    stacks stay as the hand started until it ends. ``big_blind`` is last
    hand's, so nobody posts it twice in a row; ``house`` is what the house
    has taken, time charges and rake; ``turn`` is where a mixed table's
    rotation is, as of the last hand dealt. ``banked`` is the time bank on
    the clock in the hand being played: at which turn (the hand's version
    when it went on), and how many seconds."""

    config: TableConfig | None = None
    opened_at: int = 0
    name: str = ""
    seats: tuple[Seat, ...] = ()
    button: int | None = None
    big_blind: int | None = None
    dealt: tuple[int, ...] | None = None
    hands: int = 0
    turn: Turn | None = None
    pot: CarriedPot = CarriedPot()
    house: int = 0
    closed_at: int | None = None
    banked: tuple[int, int] | None = None

    def clock_at(self, turn: int) -> int:
        """The seconds a player has to act at ``turn`` of the hand being
        played (its version when the player's turn came): the action clock,
        and the time bank when it was put on at that turn."""
        assert self.config is not None
        banked = self.banked
        extra = banked[1] if banked is not None and banked[0] == turn else 0
        return self.config.action_clock + extra

    @property
    def closed(self) -> bool:
        return self.closed_at is not None

    def seat(self, number: int) -> Seat | None:
        return next((s for s in self.seats if s.number == number), None)

    @property
    def leaving(self) -> tuple[int, ...]:
        """Seats to fold at their turn and remove when the hand ends."""
        return tuple(s.number for s in self.seats if s.leaving)

    @property
    def chips(self) -> int:
        """Chips on the table: stacks and the carried pot."""
        return sum(s.stack for s in self.seats) + self.pot.total

    @property
    def rules(self) -> Rules:
        """The rules of the hand being played, or between hands of the next
        one's game (as far as it is known: an orbit's length waits for the
        deal)."""
        assert self.config is not None
        if self.dealt is not None:
            return self.config.rules_at(self.turn)
        return self.config.rules_at(self.config.next_turn(self.turn, 0))

    def with_seat(self, updated: Seat) -> Table:
        others = (s for s in self.seats if s.number != updated.number)
        return replace(self, seats=tuple(sorted((*others, updated), key=lambda s: s.number)))
