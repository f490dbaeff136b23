"""Backing a store up while servers write to it, and restoring it into a
fresh store.

A backup holds the store and nothing else: **not the signing key file**
(``FELTLINE_KEY_FILE``), which an operator keeps apart (docs/backup.md).
A restored store is signed by that key, and a server on it without the
key refuses to start.

SQLite: SQLite's online backup API copies the database page by page from
one read transaction, so the copy is the store as it stood at one commit,
whatever the writers do meanwhile; a plain copy of the file (and its
``-wal``) taken while a server writes may be torn. PostgreSQL: ``pg_dump``
of the store's schema, which reads one snapshot; its custom format file is
restored by ``pg_restore``. Both write to a partial file first and rename
it, so a backup file that exists is whole.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
from eventsourcing.utils import Environment

from feltline.store.config import StoreConfig
from feltline.store.preflight import SQLITE_HEADER, StoreError, connect_postgres

POSTGRES_MAGIC = b"PGDMP"  # the first bytes of pg_dump's custom format


class BackupError(Exception):
    """A backup or restore that cannot be done, and why."""


@dataclass(frozen=True)
class Done:
    """What a backup or restore did: the store, the file, its size in bytes."""

    store: str
    file: Path
    size: int


def backup(config: StoreConfig, target: Path) -> Done:
    """Write the store ``config`` names to ``target``, which must not exist."""
    if target.exists():
        raise BackupError(f"{target} exists: a backup never overwrites a file")
    if not target.parent.is_dir():
        raise BackupError(f"the folder {target.parent} does not exist")
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        if _on_postgres(config):
            store = _dump(config.env, partial)
        else:
            store = _copy(Path(config.env["SQLITE_DBNAME"]), partial)
        partial.rename(target)
    finally:
        partial.unlink(missing_ok=True)
    return Done(store, target, target.stat().st_size)


def restore(config: StoreConfig, source: Path) -> Done:
    """Restore the backup ``source`` into the store ``config`` names, which
    must be fresh: a SQLite file that does not exist, or a PostgreSQL schema
    that holds no table."""
    try:
        with source.open("rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except OSError as e:
        raise BackupError(f"cannot read {source}: {e.strerror}") from None
    postgres = _on_postgres(config)
    if head.startswith(POSTGRES_MAGIC) and postgres:
        store = _restore_dump(config.env, source)
    elif head == SQLITE_HEADER and not postgres:
        store = _restore_copy(source, Path(config.env["SQLITE_DBNAME"]))
    elif head.startswith(POSTGRES_MAGIC) or head == SQLITE_HEADER:
        made = "PostgreSQL" if head.startswith(POSTGRES_MAGIC) else "SQLite"
        raise BackupError(f"{source} is a backup of a {made} store: restore it into one")
    else:
        raise BackupError(f"{source} is not a Feltline backup (neither SQLite nor pg_dump's)")
    return Done(store, source, source.stat().st_size)


def _on_postgres(config: StoreConfig) -> bool:
    return config.env.get("PERSISTENCE_MODULE") == "eventsourcing.postgres"


# -- SQLite


def _copy(path: Path, target: Path) -> str:
    if not path.is_file():
        raise BackupError(f"there is no SQLite store at {path}")
    source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    copy = sqlite3.connect(target)
    try:
        # One step (pages=-1): the whole database from one read transaction.
        source.backup(copy)
    except sqlite3.DatabaseError as e:
        raise BackupError(f"SQLite store {path}: {e}") from None
    finally:
        copy.close()
        source.close()
    return f"SQLite {path}"


def _restore_copy(source: Path, path: Path) -> str:
    if path.exists():
        raise BackupError(f"{path} exists: restore into a store file that does not exist yet")
    if not path.parent.is_dir():
        raise BackupError(f"the folder {path.parent} does not exist")
    backup = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    try:
        damage = backup.execute("PRAGMA integrity_check").fetchone()[0]
        if damage != "ok":
            raise BackupError(f"{source} is damaged: {damage}")
        partial = path.with_name(f".{path.name}.partial")
        partial.unlink(missing_ok=True)
        fresh = sqlite3.connect(partial)
        try:
            backup.backup(fresh)
        finally:
            fresh.close()
        partial.rename(path)
    except sqlite3.DatabaseError as e:
        raise BackupError(f"{source}: {e}") from None
    finally:
        backup.close()
    return f"SQLite {path}"


# -- PostgreSQL


def _schema(env: Mapping[str, str]) -> str:
    return env.get("POSTGRES_SCHEMA") or "public"


def _client(env: Mapping[str, str], program: str) -> tuple[str, dict[str, str]]:
    """The PostgreSQL client program, and libpq's variables for the store."""
    found = shutil.which(program)
    if found is None:
        raise BackupError(
            f"{program} is not installed: it comes with PostgreSQL's client "
            "(Debian: apt-get install postgresql-client)"
        )
    libpq = {
        "PGDATABASE": env.get("POSTGRES_DBNAME", ""),
        "PGHOST": env.get("POSTGRES_HOST", ""),
        "PGPORT": env.get("POSTGRES_PORT", "5432"),
        "PGUSER": env.get("POSTGRES_USER", ""),
        "PGPASSWORD": env.get("POSTGRES_PASSWORD", ""),
    }
    return found, {**os.environ, **libpq}


def _run(command: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        program = Path(command[0]).name
        raise BackupError(f"{program} failed: {done.stderr.strip() or done.returncode}")


def _dump(env: Mapping[str, str], target: Path) -> str:
    """The schema, in one snapshot; owners and grants left out, since the
    restoring database has its own roles (ops/postgres/README.md)."""
    schema = _schema(env)
    pg_dump, libpq = _client(env, "pg_dump")
    with _connected(env) as db:
        if not _tables(db, schema):
            raise BackupError(f"PostgreSQL schema {schema} holds no store")
    _run(
        [
            pg_dump,
            "--format=custom",
            f"--schema={schema}",
            "--no-owner",
            "--no-privileges",
            f"--file={target}",
        ],
        libpq,
    )
    return f"PostgreSQL {env.get('POSTGRES_DBNAME')}/{schema}"


def _restore_dump(env: Mapping[str, str], source: Path) -> str:
    schema = _schema(env)
    pg_restore, libpq = _client(env, "pg_restore")
    listed = subprocess.run(
        [pg_restore, "--list", str(source)], capture_output=True, text=True, check=False
    )
    if listed.returncode:
        raise BackupError(f"{source} does not read as a pg_dump file: {listed.stderr.strip()}")
    backed_up = _dumped_schemas(listed.stdout)
    if backed_up and schema not in backed_up:
        raise BackupError(
            f"{source} holds schema {', '.join(sorted(backed_up))}, and POSTGRES_SCHEMA is "
            f"{schema}: restore into the schema it was taken from"
        )
    with _connected(env) as db:
        if _tables(db, schema):
            raise BackupError(
                f"PostgreSQL schema {schema} holds tables already: restore into a fresh "
                "database or schema"
            )
        if schema != "public":  # the backup makes it; an empty one left would stop that
            db.execute(f'DROP SCHEMA IF EXISTS "{schema}"')
    _run(
        [
            pg_restore,
            "--exit-on-error",
            "--single-transaction",
            "--no-owner",
            "--no-privileges",
            f"--dbname={libpq['PGDATABASE']}",
            str(source),
        ],
        libpq,
    )
    return f"PostgreSQL {env.get('POSTGRES_DBNAME')}/{schema}"


@contextmanager
def _connected(env: Mapping[str, str]) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """The store's database; a :class:`BackupError` saying why not."""
    try:
        with connect_postgres(Environment(env=dict(env))) as db:
            yield db
    except (psycopg.Error, StoreError) as e:
        raise BackupError(f"PostgreSQL {env.get('POSTGRES_DBNAME')}: {e}") from None


def _tables(db: psycopg.Connection[tuple[object, ...]], schema: str) -> list[str]:
    rows = db.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,)
    ).fetchall()
    return [str(row[0]) for row in rows]


def _dumped_schemas(listing: str) -> set[str]:
    """The schemas a ``pg_restore --list`` names (``...; SCHEMA - name owner``)."""
    found = set()
    for line in listing.splitlines():
        if line.startswith(";"):
            continue
        _, _, entry = line.partition(" SCHEMA - ")
        if entry:
            found.add(entry.split()[0])
    return found
