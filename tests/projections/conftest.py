"""The store fixtures of tests/store: every projection test runs on SQLite
and on a fresh PostgreSQL schema."""

from tests.store.conftest import Store, postgres, postgres_schema, store

__all__ = ["Store", "postgres", "postgres_schema", "store"]
