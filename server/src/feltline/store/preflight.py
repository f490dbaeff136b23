"""Is the configured store one a server can open? Asked before a server
listens, so that a store it cannot serve stops it with one line saying what
is wrong, before any client connects, instead of a traceback from deep in
the library.

The settings are read as the library reads them: ``CARDROOM_`` first, then
the plain name. Nothing is created or written here.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from eventsourcing.utils import Environment

from feltline.store.config import StoreConfig

SQLITE_HEADER = b"SQLite format 3\x00"


class StoreError(Exception):
    """The store cannot be served; the message says why, in one line."""


def check(config: StoreConfig) -> None:
    """Raise :class:`StoreError` if the store ``config`` names cannot be
    opened as it is."""
    env = Environment("Cardroom", dict(config.env))
    module = env.get("PERSISTENCE_MODULE", "")
    if module == "eventsourcing.sqlite":
        check_sqlite(env.get("SQLITE_DBNAME", ""))


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
