"""Is the configured store one a server can open? Asked before a server
listens, so that a store it cannot serve stops it with one line saying what
is wrong, before any client connects, instead of a traceback from deep in
the library, or a wait of the library's connect timeout (30 s) for a
PostgreSQL database that is not there.

The settings are read as the library reads them: ``CARDROOM_`` first, then
the plain name. Nothing is created or written here.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
from eventsourcing.utils import Environment, resolve_topic

from feltline.store.config import StoreConfig

SQLITE_HEADER = b"SQLite format 3\x00"


class StoreError(Exception):
    """The store cannot be served; the message says why, in one line."""


def check(config: StoreConfig, *, timeout: int = 5) -> None:
    """Raise :class:`StoreError` if the store ``config`` names cannot be
    opened as it is; a PostgreSQL server has ``timeout`` seconds to answer."""
    env = Environment("Cardroom", dict(config.env))
    module = env.get("PERSISTENCE_MODULE", "")
    if module == "eventsourcing.sqlite":
        check_sqlite(env.get("SQLITE_DBNAME", ""))
    elif module == "eventsourcing.postgres":
        check_postgres(env, timeout=timeout)


def check_sqlite(name: str) -> None:
    """A missing file is a new store (if its folder exists); an existing one
    must be a whole SQLite database. An empty file is refused: it is what a
    failed copy or a truncation leaves, and taking it for a new store would
    hide that the old one is gone."""
    if not name or name == ":memory:" or name.startswith("file:"):
        return  # in memory, or a URI whose options the library passes on
    path = Path(name)
    if not path.exists():
        if not path.parent.is_dir():
            raise StoreError(f"SQLite store {name}: the folder {path.parent} does not exist")
        return
    if not path.is_file():
        raise StoreError(f"SQLite store {name} is not a file")
    try:
        with path.open("rb") as f:
            header = f.read(len(SQLITE_HEADER))
    except OSError as e:
        raise StoreError(f"SQLite store {name} cannot be read: {e.strerror}") from None
    wal = Path(f"{name}-wal")
    if not header and not (wal.is_file() and wal.stat().st_size):
        raise StoreError(
            f"SQLite store {name} is an empty file, not a store: "
            "restore it, or remove it to start a new store"
        )
    if header and header != SQLITE_HEADER:
        raise StoreError(f"SQLite store {name} is not a SQLite database")
    beside = [p for p in (wal, Path(f"{name}-shm")) if not p.exists()]
    try:
        damage = _damage(path)
    except sqlite3.DatabaseError as e:
        damage = str(e)
    if damage:
        for made in beside:  # SQLite's own, made by this read: a store opening would keep them
            made.unlink(missing_ok=True)
        raise StoreError(f"SQLite store {name} is damaged: {damage}")


def _damage(path: Path) -> str:
    """What SQLite's page-by-page check finds wrong, in one line, or ''."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        found = [str(row[0]) for row in db.execute("PRAGMA quick_check(1)")]
    finally:
        db.close()
    if found == ["ok"]:
        return ""
    lines = [line for text in found for line in text.splitlines() if not line.startswith("***")]
    return "; ".join(lines) or "SQLite's check failed"


def check_postgres(env: Environment, *, timeout: int = 5) -> None:
    """Connect once, as the library will: a database that does not exist,
    a server that does not answer or a login it refuses is said at once."""
    dbname = env.get("POSTGRES_DBNAME") or ""
    host, port = env.get("POSTGRES_HOST") or "", env.get("POSTGRES_PORT") or "5432"
    where = f'database "{dbname}" on {host}:{port}'
    try:
        connect_postgres(env, timeout=timeout).close()
    except psycopg.OperationalError as e:
        why = _reason(str(e))
        if why == f'database "{dbname}" does not exist':
            raise StoreError(
                f"PostgreSQL {where} does not exist: create it, or set POSTGRES_DBNAME"
            ) from None
        user = env.get("POSTGRES_USER") or ""
        raise StoreError(f"PostgreSQL {where}, user {user}: cannot connect: {why}") from None


def connect_postgres(
    env: Environment, *, timeout: int = 5
) -> psycopg.Connection[tuple[object, ...]]:
    """A connection to the PostgreSQL store ``env`` names, as the library
    makes its own (:class:`StoreError` if a setting it needs is missing)."""
    dbname = env.get("POSTGRES_DBNAME") or ""
    host = env.get("POSTGRES_HOST") or ""
    port = env.get("POSTGRES_PORT") or "5432"
    user = env.get("POSTGRES_USER") or ""
    missing = [
        key for key, value in (("DBNAME", dbname), ("HOST", host), ("USER", user)) if not value
    ]
    if missing:
        names = ", ".join(f"POSTGRES_{key}" for key in missing)
        raise StoreError(f"PostgreSQL store: set {names}")
    topic = env.get("POSTGRES_GET_PASSWORD_TOPIC")
    password = resolve_topic(topic)() if topic else env.get("POSTGRES_PASSWORD") or ""
    return psycopg.connect(
        dbname=dbname,
        host=host,
        port=port,
        user=user,
        password=password,
        connect_timeout=timeout,
        autocommit=True,
    )


def _reason(message: str) -> str:
    """The server's or the network's own words, from libpq's message:
    ``connection failed: connection to server at "h", port p failed:
    FATAL:  <reason>`` and maybe a hint on the next line."""
    line = message.strip().splitlines()[0] if message.strip() else "no reason given"
    reason = line.rpartition(" failed: ")[2] or line
    return reason.removeprefix("FATAL:").strip()
