"""The streams whose records are requests' decisions, a duplicate match's
and a tournament's: each record is an event of the decider, filed under the
key and fingerprint of the request that caused it (so a repeated request is
answered from the stream), chained and signed like every stream's
(:mod:`feltline.domain.chained`). What differs between them is the kind
the chain names, the codec's event types, the record's class and the
decider's state and ``evolve`` (:class:`RequestStream`'s hooks).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Generic, Self, TypeVar
from uuid import UUID

from pyrsistent.typing import PMap

from feltline.audit import chain
from feltline.audit.codec import JSON, decode_event, encode_event
from feltline.domain.chained import Signed, follow
from feltline.domain.hand import CommandIdReused
from feltline.engine.hand.events import Event

Commands = PMap[str, tuple[str, tuple[Event, ...]]]
"""Each request key's fingerprint and the events it recorded."""
Types = Mapping[str, tuple[type[Event], int]]


@dataclass(frozen=True)
class RequestRecord(Signed):
    """One event as stored: codec name, version and data, the key and
    fingerprint of the request that caused it, and the chain link after it."""

    originator_id: UUID
    originator_version: int
    type: str
    version: int
    data: dict[str, JSON]
    command_id: str
    fingerprint: str
    link: str


R = TypeVar("R", bound=RequestRecord)
S = TypeVar("S")


def recorded(
    record: type[R],
    events: Sequence[Event],
    *,
    kind: str,
    types: Types,
    stream: UUID,
    version: int,
    link: bytes,
    key: str,
    request: str,
) -> tuple[list[R], bytes]:
    """The records of ``events`` after position ``version`` and ``link``,
    filed under ``key``, and the link after them."""
    records = []
    for position, event in enumerate(events, version + 1):
        name, event_version, data = encode_event(event, types)
        link = chain.link(
            link,
            kind=kind,
            stream=str(stream),
            position=position,
            name=name,
            version=event_version,
            data=data,
        )
        records.append(
            record(stream, position, name, event_version, data, key, request, link.hex())
        )
    return records, link


def followed(
    records: Iterable[R], *, kind: str, types: Types, stream: UUID, link: bytes, signer: str
) -> tuple[list[tuple[R, Event]], bytes, str]:
    """Stored ``records`` with their events, each fitting the chain after
    ``link``; the link after them and the key that signed the last."""
    made: list[tuple[R, Event]] = []
    for r in records:
        link = follow(
            link,
            r,
            r.link,
            kind=kind,
            stream=stream,
            position=r.originator_version,
            name=r.type,
            version=r.version,
            data=r.data,
        )
        signer = r.signed_by if r.signature else ""
        made.append((r, decode_event(r.type, r.version, r.data, types)))
    return made, link, signer


def folded(
    made: Iterable[tuple[R, Event]],
    evolve: Callable[[S, Event], S],
    *,
    kind: str,
    stream: UUID,
    version: int,
    state: S,
    commands: Commands,
) -> tuple[int, S, Commands]:
    """The version, state and request keys after ``made``, which must follow
    position ``version`` one by one."""
    for r, event in made:
        if r.originator_version != version + 1:
            raise ValueError(f"{kind} {stream}: event {r.originator_version} follows {version}")
        state, version = evolve(state, event), r.originator_version
        first, before = commands.get(r.command_id, (r.fingerprint, ()))
        commands = commands.set(r.command_id, (first, (*before, event)))
    return version, state, commands


@dataclass(frozen=True)
class RequestStream(ABC, Generic[R, S]):
    """A stream of requests' records as stored; ``commands`` the fingerprint
    and events of every request key, so that a repeated request is answered
    from the stream. Its kind says ``kind`` and ``types`` and keeps its
    state in a field of its own, reached through the hooks below."""

    kind: ClassVar[str]
    types: ClassVar[Types]

    id: UUID
    version: int
    commands: Commands
    link: bytes = chain.GENESIS
    signer: str = ""

    def repeat(self, key: str, request: str) -> tuple[Event, ...] | None:
        """What the request filed under ``key`` recorded, or None if the key is new."""
        done = self.commands.get(key)
        if done is None:
            return None
        if done[0] != request:
            raise CommandIdReused(
                f"command id {key!r} was used for another command in this {self.kind}"
            )
        return done[1]

    def record(self, key: str, request: str, events: Iterable[Event]) -> tuple[list[R], Self]:
        """The records of ``events`` filed under ``key``, and the stream after them."""
        events = list(events)
        records, link = recorded(
            self._record(),
            events,
            kind=self.kind,
            types=self.types,
            stream=self.id,
            version=self.version,
            link=self.link,
            key=key,
            request=request,
        )
        after = self._after(zip(records, events, strict=True))
        return records, replace(after, link=link, signer="")

    def extend(self, records: Iterable[R]) -> Self:
        """The stream after stored ``records``, which must fit its chain."""
        made, link, signer = followed(
            records,
            kind=self.kind,
            types=self.types,
            stream=self.id,
            link=self.link,
            signer=self.signer,
        )
        return replace(self._after(made), link=link, signer=signer)

    def _after(self, made: Iterable[tuple[R, Event]]) -> Self:
        version, state, commands = folded(
            made,
            self._evolve,
            kind=self.kind,
            stream=self.id,
            version=self.version,
            state=self._state(),
            commands=self.commands,
        )
        return replace(self._with(state), version=version, commands=commands)

    @abstractmethod
    def _record(self) -> type[R]:
        """The class of its records."""

    @abstractmethod
    def _state(self) -> S:
        """The decider's state."""

    @abstractmethod
    def _with(self, state: S) -> Self:
        """The stream with the decider's ``state``."""

    @abstractmethod
    def _evolve(self, state: S, event: Event) -> S:
        """The decider's ``evolve``."""
