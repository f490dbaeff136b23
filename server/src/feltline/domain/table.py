"""One stream per table: the table decider's events as stored.

:class:`TableStream` is an immutable aggregate like a hand's: its command
method returns the records to store and changes nothing; :func:`project`
rebuilds it. The table holds seats, stacks, the button, the carried pot and
the house's take; the hands themselves are streams of their own.

Everything a request causes at the table is filed under one key with the
request's fingerprint, and ``hand`` names the hand the same request wrote
to, so a repeated request is answered from the streams alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar, cast
from uuid import UUID

from pyrsistent import pmap
from pyrsistent.typing import PMap

from feltline.audit import chain
from feltline.audit.codec import JSON, TABLE_EVENT_TYPES, decode_event, encode_event
from feltline.domain.chained import Signed, follow
from feltline.domain.hand import CommandIdReused
from feltline.engine.hand.fast import replace
from feltline.engine.table.commands import TableCommand
from feltline.engine.table.decide import decide
from feltline.engine.table.events import TableEvent
from feltline.engine.table.evolve import evolve
from feltline.engine.table.state import Table


@dataclass(frozen=True)
class TableRecord(Signed):
    """One table event as stored: codec name, version and data, the key and
    fingerprint of the request that caused it, the hand it touched (0 for
    none), and the chain link after it (:mod:`feltline.domain.chained`)."""

    originator_id: UUID
    originator_version: int
    type: str
    version: int
    data: dict[str, JSON]
    command_id: str
    fingerprint: str
    hand: int
    link: str

    class_version: ClassVar[int] = 2

    upcast_v1_v2 = Signed.unchained


@dataclass(frozen=True)
class Done:
    """What one request did at the table."""

    fingerprint: str
    events: tuple[TableEvent, ...]
    hand: int


@dataclass(frozen=True)
class TableStream:
    """``link`` is the chain link after its last record and ``signer`` the
    key that signed that record ("" if it is not signed)."""

    id: UUID
    version: int
    table: Table
    commands: PMap[str, Done]
    link: bytes = chain.GENESIS
    signer: str = ""

    @classmethod
    def new(cls, table_id: UUID) -> TableStream:
        return cls(table_id, 0, Table(), pmap())

    def repeat(self, key: str, request: str) -> Done | None:
        """What the request filed under ``key`` did, or None if the key is new."""
        done = self.commands.get(key)
        if done is not None and done.fingerprint != request:
            raise CommandIdReused(
                f"command id {key!r} was used for another command at table {self.id}"
            )
        return done

    def execute(
        self, key: str, command: TableCommand, *, request: str, hand: int = 0
    ) -> tuple[list[TableRecord], TableStream]:
        """The records of the events the table decider decides on, and the
        stream after them (what :meth:`extend` would make of them, without
        decoding what was just encoded)."""
        events = decide(self.table, command)
        records = []
        link = self.link
        for position, event in enumerate(events, self.version + 1):
            name, version, data = encode_event(event, TABLE_EVENT_TYPES)
            link = chain.link(
                link,
                kind="table",
                stream=str(self.id),
                position=position,
                name=name,
                version=version,
                data=data,
            )
            records.append(
                TableRecord(self.id, position, name, version, data, key, request, hand, link.hex())
            )
        after = self._after(zip(records, events, strict=True))
        return records, replace(after, link=link, signer="")

    def extend(self, records: Iterable[TableRecord]) -> TableStream:
        """The stream after ``records``, which must follow on from its version
        and fit its chain and signatures."""
        link, signer = self.link, self.signer
        made: list[tuple[TableRecord, TableEvent]] = []
        for record in records:
            _in_place(self.id, record, self.version + len(made))
            link = follow(
                link,
                record,
                record.link,
                kind="table",
                stream=self.id,
                position=record.originator_version,
                name=record.type,
                version=record.version,
                data=record.data,
            )
            signer = record.signed_by if record.signature else ""
            event = decode_event(record.type, record.version, record.data, TABLE_EVENT_TYPES)
            made.append((record, cast(TableEvent, event)))
        return replace(self._after(made), link=link, signer=signer)

    def _after(self, made: Iterable[tuple[TableRecord, TableEvent]]) -> TableStream:
        commands = self.commands
        version, table = self.version, self.table
        for record, event in made:
            _in_place(self.id, record, version)
            table, version = evolve(table, event), record.originator_version
            done = commands.get(record.command_id)
            before = () if done is None else done.events
            now_done = Done(record.fingerprint, (*before, event), record.hand)
            commands = commands.set(record.command_id, now_done)
        return replace(self, version=version, table=table, commands=commands)


def _in_place(table_id: UUID, record: TableRecord, version: int) -> None:
    if record.originator_version != version + 1:
        raise ValueError(f"table {table_id}: event {record.originator_version} follows {version}")


def project(stream: TableStream | None, records: Iterable[TableRecord]) -> TableStream | None:
    """Fold stored records into a table, copying its request index once."""
    records = list(records)
    if not records:
        return stream
    return (stream or TableStream.new(records[0].originator_id)).extend(records)
