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
from typing import cast
from uuid import UUID

from pyrsistent import pmap
from pyrsistent.typing import PMap

from feltline.audit.codec import JSON, TABLE_EVENT_TYPES, decode_event, encode_event
from feltline.domain.hand import CommandIdReused
from feltline.engine.state import replace
from feltline.engine.table import Table, TableCommand, TableEvent, decide, evolve


@dataclass(frozen=True)
class TableRecord:
    """One table event as stored: codec name, version and data, the key and
    fingerprint of the request that caused it, and the hand it touched (0
    for none)."""

    originator_id: UUID
    originator_version: int
    type: str
    version: int
    data: dict[str, JSON]
    command_id: str
    fingerprint: str
    hand: int


@dataclass(frozen=True)
class Done:
    """What one request did at the table."""

    fingerprint: str
    events: tuple[TableEvent, ...]
    hand: int


@dataclass(frozen=True)
class TableStream:
    id: UUID
    version: int
    table: Table
    commands: PMap[str, Done]

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
        records = [
            TableRecord(
                self.id, position, *encode_event(event, TABLE_EVENT_TYPES), key, request, hand
            )
            for position, event in enumerate(events, self.version + 1)
        ]
        return records, self._after(zip(records, events, strict=True))

    def extend(self, records: Iterable[TableRecord]) -> TableStream:
        """The stream after ``records``, which must follow on from its version."""
        return self._after(
            (
                record,
                cast(
                    TableEvent,
                    decode_event(record.type, record.version, record.data, TABLE_EVENT_TYPES),
                ),
            )
            for record in records
        )

    def _after(self, made: Iterable[tuple[TableRecord, TableEvent]]) -> TableStream:
        commands = self.commands
        version, table = self.version, self.table
        for record, event in made:
            if record.originator_version != version + 1:
                raise ValueError(
                    f"table {self.id}: event {record.originator_version} follows {version}"
                )
            table, version = evolve(table, event), record.originator_version
            done = commands.get(record.command_id)
            before = () if done is None else done.events
            now_done = Done(record.fingerprint, (*before, event), record.hand)
            commands = commands.set(record.command_id, now_done)
        return replace(self, version=version, table=table, commands=commands)


def project(stream: TableStream | None, records: Iterable[TableRecord]) -> TableStream | None:
    """Fold stored records into a table, copying its request index once."""
    records = list(records)
    if not records:
        return stream
    return (stream or TableStream.new(records[0].originator_id)).extend(records)
