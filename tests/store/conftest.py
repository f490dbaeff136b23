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
from feltline.store.config import StoreConfig
from feltline.store.room import Cardroom, Room
from tests.postgres import PG, store_env


@dataclass
class Store:
    """Open as many writers on one database as a test needs, and reach
    under them with SQL the way an attacker with database access would."""

    env: dict[str, str]
    signer: Signer
    execute_sql: Callable[[str, tuple[object, ...]], list[tuple[object, ...]]]
    events_table: str
    opened: list[Cardroom]

    def cardroom(self, **extra: str) -> Cardroom:
        """A writer on the store; ``extra`` settings (a cipher, a compressor)
        over the store's own."""
        cardroom = Cardroom(self.signer, env={**StoreConfig.from_env(self.env).env, **extra})
        self.opened.append(cardroom)
        return cardroom

    def room(self, **extra: str) -> Room:
        return Room(self.cardroom(**extra))

    def sql(self, statement: str, *params: object) -> list[tuple[object, ...]]:
        return self.execute_sql(statement.format(events=self.events_table), params)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    signer = Signer.generate()
    opened: list[Cardroom] = []
    if request.param == "sqlite":
        path = tmp_path / "feltline.db"

        def sqlite_sql(statement: str, params: tuple[object, ...]) -> list[tuple[object, ...]]:
            with sqlite3.connect(path) as conn:
                return conn.execute(statement, params).fetchall()

        yield Store({"SQLITE_DBNAME": str(path)}, signer, sqlite_sql, "stored_events", opened)
    else:
        schema = request.getfixturevalue("postgres_schema")
        env = store_env(schema)

        def postgres_sql(statement: str, params: tuple[object, ...]) -> list[tuple[object, ...]]:
            with psycopg.connect(**PG, autocommit=True) as conn:
                cursor = conn.execute(statement.replace("?", "%s"), params)  # type: ignore[arg-type]
                return cursor.fetchall() if cursor.description else []

        yield Store(env, signer, postgres_sql, f"{schema}.cardroom_events", opened)
    for cardroom in opened:
        cardroom.close()
