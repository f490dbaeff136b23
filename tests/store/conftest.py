"""Every store test runs on SQLite (a temporary file) and on PostgreSQL (a
fresh schema per test, ``postgres_schema`` in tests/conftest.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from tests.postgres import PG, store_env

PARTITIONS = 4  # of the partitioned store's log


@dataclass
class Store:
    """Open as many writers on one database as a test needs, and reach
    under them with SQL the way an attacker with database access would."""

    env: dict[str, str]
    signer: Signer
    execute_sql: Callable[[str, tuple[object, ...]], list[tuple[object, ...]]]
    events_table: str
    opened: list[Streams]

    def streams(self, **extra: str) -> Streams:
        """A writer on the store; ``extra`` settings (a cipher, a compressor)
        over the store's own."""
        streams = Streams(self.signer, env={**StoreConfig.from_env(self.env).env, **extra})
        self.opened.append(streams)
        return streams

    def room(self, **extra: str) -> Room:
        return Room(self.streams(**extra))

    def sql(self, statement: str, *params: object) -> list[tuple[object, ...]]:
        return self.execute_sql(statement.format(events=self.events_table), params)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    yield from _opened(request.param, request, tmp_path)


@pytest.fixture(params=["sqlite", "postgres", "partitioned"])
def every_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """As ``store``, and a PostgreSQL store made with four partitions of
    its log (docs/store.md, "Partitions"), for the tests of what partitions
    must keep: crashes, the projector, several writers."""
    yield from _opened(request.param, request, tmp_path)


def _opened(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    signer = Signer.generate()
    opened: list[Streams] = []
    if kind == "sqlite":
        path = tmp_path / "feltline.db"

        def sqlite_sql(statement: str, params: tuple[object, ...]) -> list[tuple[object, ...]]:
            with sqlite3.connect(path) as conn:
                return conn.execute(statement, params).fetchall()

        yield Store({"SQLITE_DBNAME": str(path)}, signer, sqlite_sql, "stored_events", opened)
    else:
        schema = request.getfixturevalue("postgres_schema")
        more = {"FELTLINE_PARTITIONS": str(PARTITIONS)} if kind == "partitioned" else {}
        env = store_env(schema, **more)

        def postgres_sql(statement: str, params: tuple[object, ...]) -> list[tuple[object, ...]]:
            with psycopg.connect(**PG, autocommit=True) as conn:
                cursor = conn.execute(statement.replace("?", "%s"), params)  # type: ignore[arg-type]
                return cursor.fetchall() if cursor.description else []

        yield Store(env, signer, postgres_sql, f"{schema}.cardroom_events", opened)
    for streams in opened:
        streams.close()
