"""The store fixture of tests/store (the PostgreSQL ones are the root
conftest's): every projection test runs on SQLite and on a fresh
PostgreSQL schema."""

from tests.store.conftest import Store, every_store, store

__all__ = ["Store", "every_store", "store"]
