"""The store's rows as ``feltline-replay`` reads them, through this server's
own recorder: so the Replay service exports and verifies exactly the log
``feltline-replay export --store`` writes, from any store the server can
open, one encrypted at rest (``CIPHER_TOPIC``) included.

A row's state is what the mapper wrote, decrypted and decompressed as the
mapper would before decoding it: the record's fields as JSON bytes; beside
it, its notification id (its place in the whole log), which the library's
own reads leave out, so rows are read here with the recorder's connections.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from uuid import UUID

from eventsourcing.persistence import Mapper
from eventsourcing.postgres import PostgresAggregateRecorder
from eventsourcing.sqlite import SQLiteAggregateRecorder
from psycopg.sql import SQL, Identifier

from feltline.store.streams import PAGE, Streams
from feltline_replay.store import ACCOUNTS, MATCH, TOURNAMENT


class StoredRows:
    """The rows of ``streams``' store (:class:`feltline_replay.store.Rows`);
    ``tables`` lists its tables in the order they were opened."""

    def __init__(self, streams: Streams, tables: Callable[[], list[UUID]], source: str) -> None:
        self._recorder = streams.recorder
        self._mapper: Mapper[UUID] = streams.mapper
        self._tables = tables
        self.source = source

    def tables(self) -> list[UUID]:
        return self._tables()

    def accounts(self) -> list[UUID]:
        return self._first(tuple(ACCOUNTS))

    def matches(self) -> list[UUID]:
        return self._first((MATCH,))

    def tournaments(self) -> list[UUID]:
        return self._first((TOURNAMENT,))

    def _first(self, topics: tuple[str, ...]) -> list[UUID]:
        """The streams whose first record is of one of ``topics``, in the order stored."""
        recorder = self._recorder
        if isinstance(recorder, SQLiteAggregateRecorder):
            with recorder.datastore.transaction(commit=False) as c:
                c.execute(
                    f"SELECT originator_id FROM {recorder.events_table_name}"
                    f" WHERE originator_version = 1 AND topic IN ({','.join('?' * len(topics))})"
                    " ORDER BY rowid",
                    topics,
                )
                return [UUID(r[0]) for r in c.fetchall()]
        assert isinstance(recorder, PostgresAggregateRecorder)
        statement = SQL(
            "SELECT originator_id FROM {schema}.{table}"
            " WHERE originator_version = 1 AND topic = ANY(%s) ORDER BY notification_id"
        ).format(
            schema=Identifier(recorder.datastore.schema),
            table=Identifier(recorder.events_table_name),
        )
        with recorder.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(statement, (list(topics),))
            return [UUID(str(r["originator_id"])) for r in curs.fetchall()]

    def stream(self, stream: UUID) -> Iterator[tuple[int, str, bytes, int]]:
        after = 0
        while page := self._page(stream, after):
            for version, topic, state, notification in page:
                yield version, topic, self._plain(state), notification
            after = page[-1][0]

    def _page(self, stream: UUID, after: int) -> list[tuple[int, str, bytes, int]]:
        recorder = self._recorder
        if isinstance(recorder, SQLiteAggregateRecorder):
            with recorder.datastore.transaction(commit=False) as c:
                c.execute(
                    "SELECT originator_version, topic, state, rowid"
                    f" FROM {recorder.events_table_name} WHERE originator_id = ?"
                    " AND originator_version > ? ORDER BY originator_version LIMIT ?",
                    (stream.hex, after, PAGE),
                )
                return [(r[0], r[1], r[2], r[3]) for r in c.fetchall()]
        assert isinstance(recorder, PostgresAggregateRecorder)
        statement = SQL(
            "SELECT originator_version, topic, state, notification_id FROM {schema}.{table}"
            " WHERE originator_id = %s AND originator_version > %s"
            " ORDER BY originator_version LIMIT %s"
        ).format(
            schema=Identifier(recorder.datastore.schema),
            table=Identifier(recorder.events_table_name),
        )
        with recorder.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(statement, (stream, after, PAGE))
            return [
                (r["originator_version"], r["topic"], bytes(r["state"]), r["notification_id"])
                for r in curs.fetchall()
            ]

    def _plain(self, state: bytes) -> bytes:
        if self._mapper.cipher is not None:
            state = self._mapper.cipher.decrypt(state)
        if self._mapper.compressor is not None:
            state = self._mapper.compressor.decompress(state)
        return state

    def close(self) -> None:
        """The recorder is the server's, and stays open."""
