"""One stream per tournament: its events (:mod:`feltline.engine.tournament`)
as stored, chained and signed like a match's
(:mod:`feltline.domain.requested`, kind ``tournament``), with the request key
of each, so a repeated request is answered from the stream."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import ClassVar
from uuid import UUID

from pyrsistent import pmap
from pyrsistent.typing import PMap

from feltline.audit import chain
from feltline.audit.codec import TOURNAMENT_EVENT_TYPES, decode_event
from feltline.domain.hand import CommandIdReused
from feltline.domain.requested import RequestRecord, folded, followed, recorded
from feltline.engine.hand.events import Event
from feltline.engine.tournament import Tournament, evolve


@dataclass(frozen=True)
class TournamentRecord(RequestRecord):
    """One tournament event as stored, like a match's."""

    class_version: ClassVar[int] = 1


@dataclass(frozen=True)
class TournamentStream:
    """A tournament as stored; ``commands`` the fingerprint and events of
    every request key, so that a repeated request is answered from the stream."""

    id: UUID
    version: int
    tournament: Tournament
    commands: PMap[str, tuple[str, tuple[Event, ...]]]
    link: bytes = chain.GENESIS
    signer: str = ""

    @classmethod
    def new(cls, tournament_id: UUID) -> TournamentStream:
        return cls(tournament_id, 0, Tournament(), pmap())

    def repeat(self, key: str, request: str) -> tuple[Event, ...] | None:
        done = self.commands.get(key)
        if done is None:
            return None
        if done[0] != request:
            raise CommandIdReused(
                f"command id {key!r} was used for another command in this tournament"
            )
        return done[1]

    def record(
        self, key: str, request: str, events: Iterable[Event]
    ) -> tuple[list[TournamentRecord], TournamentStream]:
        """The records of ``events`` filed under ``key``, and the stream after them."""
        events = list(events)
        records, link = recorded(
            TournamentRecord,
            events,
            kind="tournament",
            types=TOURNAMENT_EVENT_TYPES,
            stream=self.id,
            version=self.version,
            link=self.link,
            key=key,
            request=request,
        )
        after = self._after(zip(records, events, strict=True))
        return records, replace(after, link=link, signer="")

    def extend(self, records: Iterable[TournamentRecord]) -> TournamentStream:
        """The stream after stored ``records``, which must fit its chain."""
        made, link, signer = followed(
            records,
            kind="tournament",
            types=TOURNAMENT_EVENT_TYPES,
            stream=self.id,
            link=self.link,
            signer=self.signer,
        )
        return replace(self._after(made), link=link, signer=signer)

    def _after(self, made: Iterable[tuple[TournamentRecord, Event]]) -> TournamentStream:
        version, state, commands = folded(
            made,
            evolve,
            kind="tournament",
            stream=self.id,
            version=self.version,
            state=self.tournament,
            commands=self.commands,
        )
        return replace(self, version=version, tournament=state, commands=commands)


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
