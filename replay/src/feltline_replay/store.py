"""Reading a Feltline store's rows directly, without the server or eventsourcing.

The server keeps every stream in one table: ``stored_events`` in a SQLite
file (notification order is the rowid), ``<schema>.cardroom_events`` in
PostgreSQL (``notification_id``). A row's ``state`` is the record's fields
as JSON, zlib-compressed when the server ran with ``COMPRESSOR_TOPIC``; a
store encrypted at rest (``CIPHER_TOPIC``) cannot be read here: export it
through the server. Rows are read through cursors, a page at a time, so a
store of any size exports in bounded memory.
"""

from __future__ import annotations

import json
import os
import sqlite3
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol
from uuid import UUID

from feltline_replay.log import Record

TABLE = "feltline.domain.table:TableRecord"
HAND = "feltline.domain.hand:Recorded"
SEAL = "feltline.domain.hand:Sealed"
KINDS = {TABLE: "table", HAND: "hand", SEAL: "seal"}
KEYS = {
    "feltline.domain.keys:KeyAdopted": ("public_key", "replaces", "reason"),
    "feltline.domain.keys:KeyAccepted": ("public_key",),
    "feltline.domain.keys:KeyRevoked": ("public_key", "since", "reason"),
}
"""The server's keys stream's records, by topic: the fields of each that are chained."""
PAGE = 500


class StoreError(Exception):
    """A store this tool cannot read."""


Row = tuple[int, str, bytes, int]
"""A stored record's row: ``(version, topic, state, notification)``, the
last its place in the store's whole log (its notification id)."""


class Rows(Protocol):
    """The rows of one store."""

    source: str

    def tables(self) -> list[UUID]:
        """Every table, in the order they were opened."""
        ...

    def stream(self, stream: UUID) -> Iterator[Row]:
        """One stream's rows, in order."""
        ...

    def close(self) -> None: ...


class SqliteRows:
    """A SQLite store file, opened read-only."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise StoreError(f"no store file at {path}")
        self.source = f"sqlite:{path}"
        # A pool of verifying processes reads the rows from its feeding
        # thread: one thread at a time, never two.
        self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)

    def tables(self) -> list[UUID]:
        rows = self._db.execute(
            "SELECT originator_id FROM stored_events WHERE topic = ? AND originator_version = 1"
            " ORDER BY rowid",
            (TABLE,),
        )
        return [UUID(row[0]) for row in rows]

    def stream(self, stream: UUID) -> Iterator[Row]:
        cursor = self._db.execute(
            "SELECT originator_version, topic, state, rowid FROM stored_events"
            " WHERE originator_id = ? ORDER BY originator_version",
            (stream.hex,),
        )
        while page := cursor.fetchmany(PAGE):
            yield from page

    def close(self) -> None:
        self._db.close()


class PostgresRows:
    """A PostgreSQL store, as the server's ``POSTGRES_*`` settings name it.
    Needs psycopg (``pip install 'feltline-replay[postgres]'``)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        try:
            import psycopg  # noqa: PLC0415 (an optional extra)
        except ImportError:
            raise StoreError(
                "reading PostgreSQL needs psycopg: pip install 'feltline-replay[postgres]'"
            ) from None
        schema = env.get("POSTGRES_SCHEMA") or "public"
        self._table = f'"{schema}".cardroom_events'
        self.source = f"postgres:{env.get('POSTGRES_DBNAME', '')}/{schema}"
        try:
            self._db: Any = psycopg.connect(
                dbname=env.get("POSTGRES_DBNAME", ""),
                host=env.get("POSTGRES_HOST", "127.0.0.1"),
                port=env.get("POSTGRES_PORT", "5432"),
                user=env.get("POSTGRES_USER", ""),
                password=env.get("POSTGRES_PASSWORD", ""),
                connect_timeout=10,
                autocommit=True,
            )
        except psycopg.OperationalError as e:
            raise StoreError(f"cannot connect to PostgreSQL: {e}") from None

    def tables(self) -> list[UUID]:
        rows = self._db.execute(
            f"SELECT originator_id FROM {self._table}"
            " WHERE topic = %s AND originator_version = 1 ORDER BY notification_id",
            (TABLE,),
        ).fetchall()
        return [UUID(str(row[0])) for row in rows]

    def stream(self, stream: UUID) -> Iterator[Row]:
        with self._db.cursor() as cursor:
            cursor.execute(
                f"SELECT originator_version, topic, state, notification_id FROM {self._table}"
                " WHERE originator_id = %s ORDER BY originator_version",
                (stream,),
            )
            while page := cursor.fetchmany(PAGE):
                for version, topic, state, notification in page:
                    yield version, topic, bytes(state), notification

    def close(self) -> None:
        self._db.close()


def open_rows(store: str, environ: Mapping[str, str] | None = None) -> Rows:
    """``store`` is a SQLite file's path, or ``postgres`` for the database
    the ``POSTGRES_*`` variables name."""
    if store == "postgres":
        return PostgresRows(os.environ if environ is None else environ)
    return SqliteRows(Path(store))


def state(raw: bytes) -> dict[str, Any]:
    """A row's stored fields: JSON, or zlib-compressed JSON."""
    for decode in (_plain, _inflated):
        try:
            value = decode(raw)
        except (ValueError, zlib.error):
            continue
        if isinstance(value, dict):
            return value
    raise StoreError(
        "a stored record is neither JSON nor zlib-compressed JSON: the store is "
        "probably encrypted at rest (CIPHER_TOPIC); export it through the server"
    )


def _plain(raw: bytes) -> Any:
    return json.loads(raw)


def _inflated(raw: bytes) -> Any:
    return json.loads(zlib.decompress(raw))


def record(stream: UUID, version: int, topic: str, raw: bytes, notification: int) -> Record:
    """A log line for one stored row: the stored fields exactly, their
    stream, position and place in the store's log beside them."""
    chained = KEYS.get(topic)
    if chained is not None:  # stored by field: written out as the chain reads it
        fields = state(raw)
        return {
            "kind": "server",
            "id": str(stream),
            "position": version,
            "notification": notification,
            "type": topic.rpartition(":")[2],
            "version": 1,
            "data": {name: fields.get(name) for name in chained},
            **{name: fields.get(name, "") for name in ("link", "signature", "signed_by")},
        }
    kind = KINDS.get(topic)
    if kind is None:
        raise StoreError(f"stream {stream} holds a record of unknown topic {topic!r}")
    return {
        "kind": kind,
        "id": str(stream),
        "position": version,
        "notification": notification,
        **state(raw),
    }
