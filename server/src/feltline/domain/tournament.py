"""One stream per tournament: its events (:mod:`feltline.engine.tournament`)
as stored, chained and signed like a match's
(:mod:`feltline.domain.requested`, kind ``tournament``), with the request key
of each, so a repeated request is answered from the stream."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import ClassVar, Self
from uuid import UUID

from pyrsistent import pmap

from feltline.audit.codec import TOURNAMENT_EVENT_TYPES, decode_event
from feltline.domain.requested import RequestRecord, RequestStream, Types
from feltline.engine.hand.events import Event
from feltline.engine.tournament import Tournament, evolve


@dataclass(frozen=True)
class TournamentRecord(RequestRecord):
    """One tournament event as stored, like a match's."""

    class_version: ClassVar[int] = 1


@dataclass(frozen=True)
class TournamentStream(RequestStream[TournamentRecord, Tournament]):
    """A tournament as stored (:class:`feltline.domain.requested.RequestStream`)."""

    kind: ClassVar[str] = "tournament"
    types: ClassVar[Types] = TOURNAMENT_EVENT_TYPES

    tournament: Tournament = field(kw_only=True)

    @classmethod
    def new(cls, tournament_id: UUID) -> TournamentStream:
        return cls(tournament_id, 0, pmap(), tournament=Tournament())

    def _record(self) -> type[TournamentRecord]:
        return TournamentRecord

    def _state(self) -> Tournament:
        return self.tournament

    def _with(self, state: Tournament) -> Self:
        return replace(self, tournament=state)

    def _evolve(self, state: Tournament, event: Event) -> Tournament:
        return evolve(state, event)


def project(
    stream: TournamentStream | None, records: Iterable[TournamentRecord]
) -> TournamentStream | None:
    """Fold stored records into a tournament, checking its chain as it goes."""
    records = list(records)
    if not records:
        return stream
    return (stream or TournamentStream.new(records[0].originator_id)).extend(records)


def requests(records: Iterable[TournamentRecord]) -> list[list[Event]]:
    """Stored events grouped by the request that wrote them, in order: what
    :func:`feltline.engine.tournament.rerun` re-decides."""
    grouped: list[list[Event]] = []
    last = None
    for record in records:
        event = decode_event(record.type, record.version, record.data, TOURNAMENT_EVENT_TYPES)
        if record.command_id != last or not grouped:
            grouped.append([])
            last = record.command_id
        grouped[-1].append(event)
    return grouped
