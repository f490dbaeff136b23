"""Who may see what (docs/rules.md), one viewer and one event at a time.

The engine names each event's audience (:meth:`Event.audience`): everyone,
some seats, or nobody while the hand runs; and what the others are shown
(:meth:`Event.redacted`). This module says who is in the audience, by role:

- a player: its own seat's face-down cards, discards and declaration, and
  everything public (face-up cards, showdowns);
- a spectator, and an admin (who runs tables but never sees a live hand's
  face-down cards): what is public only;
- an auditor: what is public while the hand runs, and everything, folded
  cards, discards and the deck's seed and order included, once it has ended.

At a duplicate match's table one more rule comes first: the same cards are
still in play at the match's other tables until the match reveals the deal,
so until then its hand is withheld whole (public cards, actions and the
seed included) from everyone but the players dealt into it (:func:`withheld`).

Pure functions: the servicer says who the viewer is and whether the hand
has ended, and gets back the ``feltline.v1`` Event to send.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from feltline.api.convert import Where, to_proto
from feltline.api.tokens import Caller, Role
from feltline.engine.hand.events import Event
from feltline_protos.v1 import auth_pb2, events_pb2


class Seated(Protocol):
    """A seat dealt into a hand, and its player."""

    @property
    def seat(self) -> int: ...

    @property
    def player(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Viewer:
    """Someone watching a hand: a role and, for a player dealt in, a seat."""

    role: Role
    seat: int | None = None

    @classmethod
    def of(cls, caller: Caller, seats: Iterable[Seated]) -> Viewer:
        """``caller`` as a viewer of a hand dealt to ``seats``: a player
        sees as its seat, if it was dealt in, else as nobody's."""
        if caller.role != auth_pb2.ROLE_PLAYER:
            return cls(caller.role)
        return cls(caller.role, next((s.seat for s in seats if s.player == caller.player_id), None))


def may_see(viewer: Viewer, event: Event, *, ended: bool) -> bool:
    """Whether ``viewer`` may see all of ``event``; ``ended``: whether its
    hand has ended (table events are public)."""
    audience = event.audience()
    if audience is None:  # EVERYONE
        return True
    if viewer.role == auth_pb2.ROLE_AUDITOR:
        return ended
    return viewer.role == auth_pb2.ROLE_PLAYER and viewer.seat in audience


def sees_down_cards(viewer: Viewer, seat: int, *, ended: bool) -> bool:
    """Whether ``viewer`` may see ``seat``'s face-down cards (those not shown
    at the showdown): its own player, or an auditor once the hand ended."""
    if viewer.role == auth_pb2.ROLE_AUDITOR:
        return ended
    return viewer.role == auth_pb2.ROLE_PLAYER and viewer.seat == seat


def visible(viewer: Viewer, event: Event, *, ended: bool) -> Event:
    """``event`` as ``viewer`` may see it."""
    return event if may_see(viewer, event, ended=ended) else event.redacted()


def view(viewer: Viewer, event: Event, where: Where, *, ended: bool) -> events_pb2.Event:
    """The Event message to send ``viewer``: withheld fields absent and
    ``redacted`` set when anything was withheld."""
    seen = may_see(viewer, event, ended=ended)
    return to_proto(event if seen else event.redacted(), where, redacted=not seen)


def withheld(caller: Caller, seats: Iterable[Seated], *, unrevealed: bool) -> bool:
    """Whether a hand is kept from ``caller`` entirely: a match's deal not
    yet revealed, to anyone not dealt into this hand of it (a seat sees its
    own hand as at any table; an auditor, never dealt in, sees it once the
    match has revealed the deal)."""
    return unrevealed and Viewer.of(caller, seats).seat is None
