"""The PostgreSQL server the store and API tests and the benchmarks use,
named by the library's own variables (default: CI's, 127.0.0.1:5432, user
postgres, database test), the store settings for one schema of it, and
whether its absence fails a test or skips it."""

from __future__ import annotations

import os

PG = {
    "host": os.environ.get("POSTGRES_HOST", "127.0.0.1"),
    "port": os.environ.get("POSTGRES_PORT", "5432"),
    "user": os.environ.get("POSTGRES_USER", "postgres"),
    "password": os.environ.get("POSTGRES_PASSWORD", ""),
    "dbname": os.environ.get("POSTGRES_DBNAME", "test"),
}


# The spellings of "yes" that an operator or a CI file may give a flag.
TRUE = frozenset({"1", "true", "yes", "on"})


def required() -> bool:
    """Whether FELTLINE_REQUIRE_POSTGRES says that an unreachable server
    fails its tests (as in CI) rather than skipping them."""
    return os.environ.get("FELTLINE_REQUIRE_POSTGRES", "").strip().lower() in TRUE


def store_env(schema: str, **more: str) -> dict[str, str]:
    """The eventsourcing settings for a store in ``schema`` of that server."""
    return {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": PG["dbname"],
        "POSTGRES_HOST": PG["host"],
        "POSTGRES_PORT": PG["port"],
        "POSTGRES_USER": PG["user"],
        "POSTGRES_PASSWORD": PG["password"],
        "POSTGRES_SCHEMA": schema,
        **more,
    }
