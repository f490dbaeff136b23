"""Reading a Feltline store's rows directly, without the server or eventsourcing.

The server keeps every stream in one table: ``stored_events`` in a SQLite
file (notification order is the rowid), ``<schema>.cardroom_events`` in
PostgreSQL (``notification_id``). A row's ``state`` is the record's fields
as JSON, zlib-compressed when the server ran with ``COMPRESSOR_TOPIC``; a
store encrypted at rest (``CIPHER_TOPIC``) cannot be read here: export it
through the server. A row that reads as neither in a store whose others do
is damaged: it becomes a record naming what is wrong with it
(:data:`DAMAGED`), a failure of its stream alone. Rows are read through
cursors, a page at a time, so a store of any size exports in bounded memory.
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
MATCH = "feltline.domain.match:MatchRecord"
TOURNAMENT = "feltline.domain.tournament:TournamentRecord"
KINDS = {TABLE: "table", HAND: "hand", SEAL: "seal", MATCH: "match", TOURNAMENT: "tournament"}
ACCOUNTS = {
    "feltline.domain.account:Minted": ("amount", "by"),
    "feltline.domain.account:CashedOut": ("amount",),
    "feltline.domain.account:BoughtIn": ("amount", "table", "seat"),
    "feltline.domain.account:Returned": ("amount", "table", "seat"),
    "feltline.domain.account:Transferred": ("amount", "to"),
    "feltline.domain.account:Received": ("amount", "source"),
}
"""A player's (or a match bank's, a prize pool's, the house's) account
records, by topic: the fields of each that are chained (docs/audit.md,
Table and account streams)."""
KEYS = {
    "feltline.domain.keys:KeyAdopted": ("public_key", "replaces", "reason"),
    "feltline.domain.keys:KeyAccepted": ("public_key",),
    "feltline.domain.keys:KeyRevoked": ("public_key", "since", "reason"),
}
"""The server's keys stream's records, by topic: the fields of each that are chained."""
LOG = {
    "feltline.domain.transparency:HandLogged": ("hand", "seal"),
    "feltline.domain.transparency:CheckpointSigned": ("size", "root", "note"),
    "feltline.domain.transparency:CheckpointCosigned": ("size", "note"),
}
"""The transparency log's records, by topic: the fields of each that are
chained (docs/transparency.md)."""
PAGE = 500
DAMAGED = "damaged"
"""The field of a record that could not be read, saying why."""


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

    def accounts(self) -> list[UUID]:
        """Every account, in the order they were opened."""
        ...

    def matches(self) -> list[UUID]:
        """Every duplicate match, in the order they were created."""
        ...

    def tournaments(self) -> list[UUID]:
        """Every tournament, in the order they were created."""
        ...

    def stream(self, stream: UUID) -> Iterator[Row]:
        """One stream's rows, in order."""
        ...

    def close(self) -> None: ...


class _Listed:
    """The listings of :class:`Rows`, from one query each store makes its
    own way: the streams whose first record is of some topics."""

    def tables(self) -> list[UUID]:
        return self._first((TABLE,))

    def accounts(self) -> list[UUID]:
        return self._first(tuple(ACCOUNTS))

    def matches(self) -> list[UUID]:
        return self._first((MATCH,))

    def tournaments(self) -> list[UUID]:
        return self._first((TOURNAMENT,))

    def _first(self, topics: tuple[str, ...]) -> list[UUID]:
        raise NotImplementedError


class SqliteRows(_Listed):
    """A SQLite store file, opened read-only."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise StoreError(f"no store file at {path}")
        self.source = f"sqlite:{path}"
        # A pool of verifying processes reads the rows from its feeding
        # thread: one thread at a time, never two.
        self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)

    def _first(self, topics: tuple[str, ...]) -> list[UUID]:
        """The streams whose first record is of one of ``topics``, in order."""
        rows = self._db.execute(
            "SELECT originator_id FROM stored_events WHERE originator_version = 1"
            f" AND topic IN ({','.join('?' * len(topics))}) ORDER BY rowid",
            topics,
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


class PostgresRows(_Listed):
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

    def _first(self, topics: tuple[str, ...]) -> list[UUID]:
        rows = self._db.execute(
            f"SELECT originator_id FROM {self._table}"
            " WHERE topic = ANY(%s) AND originator_version = 1 ORDER BY notification_id",
            (list(topics),),
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


ENCRYPTED = (
    "the store's records are neither JSON nor zlib-compressed JSON: the store is "
    "encrypted at rest (CIPHER_TOPIC); export it through the server"
)


def state(raw: bytes) -> dict[str, Any]:
    """A row's stored fields: JSON, or zlib-compressed JSON."""
    for decode in (_plain, _inflated):
        try:
            value = decode(raw)
        except (ValueError, zlib.error):
            continue
        if isinstance(value, dict):
            return value
    raise StoreError("neither a JSON object nor zlib-compressed JSON")


def _plain(raw: bytes) -> Any:
    return json.loads(raw)


def _inflated(raw: bytes) -> Any:
    return json.loads(zlib.decompress(raw))


def readable(rows: Rows) -> None:
    """Refuse a store encrypted at rest: one whose first table's first
    record reads as neither JSON nor zlib-compressed JSON, nor do its
    second's (a flipped byte damages one record, a cipher every one)."""
    firsts = [next(rows.stream(t), None) for t in rows.tables()[:2]]
    rows_read = [row for row in firsts if row is not None]
    if rows_read and all(DAMAGED in record(UUID(int=0), *row) for row in rows_read):
        raise StoreError(ENCRYPTED)


def record(stream: UUID, version: int, topic: str, raw: bytes, notification: int) -> Record:
    """A log line for one stored row: the stored fields exactly, their
    stream, position and place in the store's log beside them. The server's
    keys and the accounts are stored by field, and written out as their
    chain reads them. A row that cannot be read is written as what is
    wrong with it (:data:`DAMAGED`), for its stream to fail."""
    where = {"id": str(stream), "position": version, "notification": notification}
    chained = KEYS.get(topic) or ACCOUNTS.get(topic) or LOG.get(topic)
    kind = (
        "server"
        if topic in KEYS
        else "account"
        if topic in ACCOUNTS
        else "log"
        if topic in LOG
        else KINDS.get(topic)
    )
    if kind is None:
        return {"kind": "hand", **where, DAMAGED: f"a record of unknown topic {topic!r}"}
    try:
        fields = state(raw)
    except StoreError as e:
        return {"kind": kind, **where, DAMAGED: f"its stored bytes are {e}"}
    if chained is None:
        return {"kind": kind, **where, **fields}
    return {
        "kind": kind,
        **where,
        "type": topic.rpartition(":")[2],
        "version": 1,
        "data": {name: _plain_value(fields.get(name)) for name in chained},
        **{name: fields.get(name, "") for name in ("link", "signature", "signed_by")},
    }


def _plain_value(value: Any) -> Any:
    """A stored field as the chain reads it: a UUID (which the store writes
    as ``{"_type_": "uuid_hex", "_data_": hex}``) as its 36-character form."""
    if isinstance(value, dict) and value.get("_type_") == "uuid_hex":
        return str(UUID(hex=str(value.get("_data_"))))
    return value
