"""The cardroom's own refusals, beside the engine's rule errors: each has
the ``kind`` the API maps to a status code. The store's failures a use
case passes on (:class:`Conflict`, :class:`StoreAway`, :class:`StoreFull`, :class:`Unreadable`,
:class:`AccountUnreadable`)
are named here too, so that its callers need not reach into the store."""

from __future__ import annotations

from uuid import UUID

from feltline.engine.errors import Kind, RuleError
from feltline.store.faults import AccountUnreadable, StoreAway, StoreFull, Unreadable
from feltline.store.streams import Conflict

__all__ = [
    "AccountUnreadable",
    "ClockRunning",
    "Conflict",
    "MatchNotFound",
    "MatchTable",
    "NotFound",
    "OwnedElsewhere",
    "Stale",
    "StoreAway",
    "StoreFull",
    "Unreadable",
]


class NotFound(RuleError):
    """A table or hand the store does not hold."""

    kind = Kind.NOT_FOUND


class ClockRunning(RuleError):
    """A time-out before the player's time is up."""

    kind = Kind.PRECONDITION


class MatchNotFound(NotFound):
    """A match the store does not hold."""


class MatchTable(RuleError):
    """A seating or dealing request at a table whose seats, chips and deals
    belong to a duplicate match: the match seats its players for each deal."""

    kind = Kind.PRECONDITION


class TournamentNotFound(NotFound):
    """A tournament the store does not hold."""


class TournamentTable(RuleError):
    """A seating, dealing or closing request at a table whose seats and
    chips belong to a tournament: its director seats, moves and deals."""

    kind = Kind.PRECONDITION


class Stale(RuleError):
    """A decision made on a state of the hand that is no longer current:
    ``hand`` and ``sequence`` say where the table is now."""

    kind = Kind.PRECONDITION

    def __init__(self, hand: int, sequence: int, seen_hand: int, seen: int) -> None:
        super().__init__(
            f"the table is at hand {hand}, sequence {sequence}, not at hand {seen_hand}, "
            f"sequence {seen}: look again and decide anew"
        )
        self.hand = hand
        self.sequence = sequence


class OwnedElsewhere(Exception):
    """Another live process owns the table (:mod:`feltline.cardroom.owners`):
    not a refusal, the request belongs there. ``address`` is where that
    process serves ("" if it is not known)."""

    def __init__(self, table_id: UUID, address: str) -> None:
        super().__init__(f"table {table_id} is served by the process at {address or 'unknown'}")
        self.table_id = table_id
        self.address = address
