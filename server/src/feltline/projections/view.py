"""A projection's SQL tables beside its tracking position, in one database.

The library's tracking recorders record "applied up to notification N";
subclassing them per store lets a view's rows and that position commit in
one transaction, which is what makes a projection exactly once. A view
names its tables' DDL in SQLite's and PostgreSQL's common dialect and
writes statements with ``?`` placeholders, so no projection knows which
store it has.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any, ClassVar, Protocol

from eventsourcing.persistence import InfrastructureFactory, Tracking, TrackingRecorder
from eventsourcing.postgres import PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteDatastore, SQLiteFactory, SQLiteTrackingRecorder
from eventsourcing.utils import Environment
from psycopg.sql import SQL

Row = tuple[Any, ...]


class Cursor(Protocol):
    """What a projection may do inside its view's transaction."""

    def run(self, sql: str, params: Sequence[object] = ()) -> None: ...

    def rows(self, sql: str, params: Sequence[object] = ()) -> list[Row]: ...


class Moved(Exception):
    """Another process applied notifications to the view, or dropped it."""


class View(TrackingRecorder):
    """A projection's tables; the store-specific subclasses below hold the
    connection. ``tables`` maps each table's name to its column list."""

    name: ClassVar[str] = ""
    tables: ClassVar[Mapping[str, str]] = {}
    indexes: ClassVar[Sequence[str]] = ()

    def __init__(self) -> None:
        self._local = threading.local()

    @contextmanager
    def batch(
        self, after: Mapping[str, int] | None = None, within: View | None = None
    ) -> Iterator[None]:
        """One transaction for the events processed inside; the last
        tracking position seen of each partition of the log is recorded in
        it, at the end. ``after`` (each partition's tracking name and
        position) is where the caller believes the view is: if another
        process moved or dropped it meanwhile, :class:`Moved`. ``within``,
        a view on the same connections with its batch open, lends its
        transaction: the views commit together, one lock taken and one
        commit made for all of them."""
        lent = None if within is None else getattr(within._local, "cursor", None)
        with self._transaction() if lent is None else nullcontext(lent) as cursor:
            for name, position in (after or {}).items():
                (found,) = cursor.rows(
                    f"SELECT MAX(notification_id) FROM {self._tracking_table} "
                    "WHERE application_name = ?",
                    (name,),
                )[0]
                if int(found or 0) != position:
                    raise Moved(f"view {self.name} is at {found or 0} of {name}, not {position}")
            self._local.cursor, self._local.tracking = cursor, {}
            try:
                yield
                for tracking in self._local.tracking.values():
                    self._track(cursor.raw, tracking)
            finally:
                self._local.cursor = None

    @contextmanager
    def applying(self, tracking: Tracking) -> Iterator[Cursor]:
        """The cursor to write one event's rows with, in the open batch or
        in a transaction of its own."""
        if getattr(self._local, "cursor", None) is None:
            with self.batch(), self.applying(tracking) as cursor:
                yield cursor
            return
        yield self._local.cursor
        self._local.tracking[tracking.application_name] = tracking

    def rows(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """A read outside any batch, in a transaction of its own that writes
        nothing, so it waits for no writer."""
        with self._transaction(write=False) as cursor:
            return cursor.rows(sql, params)

    def position(self, application_name: str) -> int:
        """The last notification applied (0 for none)."""
        return int(self.max_tracking_id(application_name) or 0)

    def positions(self, names: Sequence[str]) -> tuple[int, ...]:
        """The last notification applied of each partition, tracked under ``names``."""
        return tuple(self.position(name) for name in names)

    def drop(self) -> None:
        """Forget every row and the position, to rebuild from zero."""
        with self._transaction() as cursor:
            for table in self.tables:
                cursor.run(f"DELETE FROM {table}")
            cursor.run(  # the library's own row, which marks the table's layout, stays
                f"DELETE FROM {self._tracking_table} WHERE application_name <> ?",
                ("__migration__",),
            )

    def _ddl(self) -> list[str]:
        made = [f"CREATE TABLE IF NOT EXISTS {t} ({cols})" for t, cols in self.tables.items()]
        return made + [f"CREATE INDEX IF NOT EXISTS {i}" for i in self.indexes]

    @property
    def connections(self) -> object:
        """What the view's transactions are taken from: views with the same
        one can share a transaction."""
        raise NotImplementedError

    @property
    def _tracking_table(self) -> str:
        raise NotImplementedError

    @contextmanager
    def _transaction(self, write: bool = True) -> Iterator[_Cursor]:
        raise NotImplementedError
        yield

    def _track(self, raw: Any, tracking: Tracking) -> None:
        raise NotImplementedError


class _Cursor:
    """A driver's cursor taking ``?`` placeholders (psycopg's are ``%s``,
    so a literal ``%`` is doubled for it)."""

    def __init__(self, raw: Any, placeholder: str) -> None:
        self.raw, self._psycopg = raw, placeholder == "%s"

    def _sql(self, sql: str) -> str:
        return sql.replace("%", "%%").replace("?", "%s") if self._psycopg else sql

    def run(self, sql: str, params: Sequence[object] = ()) -> None:
        self.raw.execute(self._sql(sql), tuple(params))

    def rows(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        self.raw.execute(self._sql(sql), tuple(params))
        return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in self.raw.fetchall()]


class SQLiteView(View, SQLiteTrackingRecorder):
    """On SQLite: the library's tracking table is one per database, so each
    view tracks in a table of its own, ``<name>_tracking``."""

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        SQLiteTrackingRecorder.__init__(self, datastore, **kwargs)
        View.__init__(self)
        table = self._tracking_table
        self.insert_tracking_statement = self.insert_tracking_statement.replace(
            "tracking", table
        ).replace(f"{table}_name", "application_name")
        self.select_max_tracking_id_statement = (
            f"SELECT MAX(notification_id) FROM {table} WHERE application_name=?"
        )

    def construct_create_table_statements(self) -> list[str]:
        made = super().construct_create_table_statements()
        tracking = made[-1].replace("EXISTS tracking", f"EXISTS {self._tracking_table}")
        return [*made[:-1], tracking, *self._ddl()]

    @property
    def connections(self) -> object:
        return self.datastore

    @property
    def _tracking_table(self) -> str:
        return f"{self.name}_tracking"

    @contextmanager
    def _transaction(self, write: bool = True) -> Iterator[_Cursor]:
        if not write:
            with self.datastore.transaction(commit=False) as c:
                yield _Cursor(c, "?")
            return
        with self.datastore.transaction(commit=True) as c:
            # Write first, so the transaction takes SQLite's write lock (waiting
            # its busy timeout) before it reads: one that read first cannot
            # upgrade while the server writes, and fails as "locked" at once.
            c.execute(
                f"UPDATE {self._tracking_table} SET notification_id = notification_id "
                "WHERE application_name = '__migration__'"
            )
            yield _Cursor(c, "?")

    def _track(self, raw: Any, tracking: Tracking) -> None:
        self._insert_tracking(raw, tracking)


class PostgresView(View, PostgresTrackingRecorder):
    """On PostgreSQL: the factory names the tracking table after the view."""

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        PostgresTrackingRecorder.__init__(self, datastore, **kwargs)
        View.__init__(self)
        schema = self.datastore.schema
        self.sql_create_statements.extend(
            _qualified(statement, schema, self.tables) for statement in self._ddl()
        )

    @property
    def connections(self) -> object:
        return self.datastore

    @property
    def _tracking_table(self) -> str:
        return f"{self.datastore.schema}.{self.tracking_table_name}"

    @contextmanager
    def _transaction(self, write: bool = True) -> Iterator[_Cursor]:
        with self.datastore.transaction(commit=write) as curs:
            curs.execute(f"SET LOCAL search_path TO {self.datastore.schema}")
            yield _Cursor(curs, "%s")

    def _track(self, raw: Any, tracking: Tracking) -> None:
        self._insert_tracking(raw, tracking)


def _qualified(statement: str, schema: str, tables: Mapping[str, str]) -> Any:
    for table in tables:
        statement = statement.replace(f" {table} ", f" {schema}.{table} ")
    return SQL(statement)


def open_view(view: type[View], env: Mapping[str, str], beside: object = None) -> View:
    """``view`` on the store ``env`` names, its tables made if missing.

    ``beside``, the recorder of an application on the same SQLite file,
    lends its connections: the view's writes and the application's then
    queue for one lock in this process, each woken as the other commits,
    instead of polling for SQLite's file lock, whose busy handler sleeps up
    to 100 ms a try while the other keeps committing."""
    factory = InfrastructureFactory[TrackingRecorder].construct(
        env=Environment(view.name, dict(env))
    )
    on_postgres = "postgres" in str(env.get("PERSISTENCE_MODULE", ""))
    base = PostgresView if on_postgres else SQLiteView
    made = type(f"{base.__name__[:-4]}{view.__name__}", (view, base), {})
    shared = getattr(beside, "datastore", None)
    if isinstance(shared, SQLiteDatastore) and isinstance(factory, SQLiteFactory):
        recorder: Any = made(datastore=shared)
        if factory.env_create_table():
            recorder.create_table()
    else:
        recorder = factory.tracking_recorder(made)
    assert isinstance(recorder, View)
    return recorder
