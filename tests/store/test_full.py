"""A full disk at the recorder: a commit refused for want of space raises
StoreFull, logged once per episode, and the same request goes through
once space returns. SQLite on a real full filesystem is in
tests/api/test_full_disk.py; PostgreSQL's disk_full is raised here where the
driver raises it, under the library's recorder, which wraps it."""

from __future__ import annotations

import errno
import sqlite3
from typing import Any

import psycopg
import psycopg.errors
import pytest
from eventsourcing.persistence import OperationalError
from structlog.testing import capture_logs

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.store.config import StoreConfig
from feltline.store.faults import StoreFull, disk_full
from feltline.store.streams import Streams
from tests.postgres import store_env


def test_a_full_postgres_disk_is_store_full_logged_once_and_the_request_goes_through_once_freed(
    postgres_schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    streams = Streams(Signer.generate(), env=StoreConfig.from_env(store_env(postgres_schema)).env)
    room = Room(streams)
    recorder: Any = streams.recorder
    insert = recorder.insert_events
    full = True

    def insert_or_fail(*args: Any, **kwargs: Any) -> Any:
        if full:  # as the library's connection reports PostgreSQL's disk_full
            cause = psycopg.errors.DiskFull('could not extend file "base/1/2": No space left')
            raise OperationalError(str(cause)) from cause
        return insert(*args, **kwargs)

    monkeypatch.setattr(recorder, "insert_events", insert_or_fail)
    try:
        with capture_logs() as logs:
            for _ in range(3):
                with pytest.raises(StoreFull, match="disk is full") as refused:
                    room.mint("mint-1", "alice", 100, by="admin")
                assert isinstance(refused.value.__cause__, OperationalError)  # the library's
            full = False
            assert room.mint("mint-1", "alice", 100, by="admin") == 100
            assert room.mint("mint-1", "alice", 100, by="admin") == 100  # stored once
            assert room.balance("alice") == 100
        told = [(line["event"], line["log_level"]) for line in logs]
        assert told == [("store_full", "error"), ("store_writable", "info")]
    finally:
        streams.close()


def _raised_from(error: BaseException, cause: BaseException) -> BaseException:
    try:
        raise error from cause
    except BaseException as e:
        return e


def test_only_a_full_disk_counts_as_one() -> None:
    locked = sqlite3.OperationalError("database is locked")
    locked.sqlite_errorcode = sqlite3.SQLITE_BUSY
    sqlite_full = sqlite3.OperationalError("database or disk is full")
    sqlite_full.sqlite_errorcode = sqlite3.SQLITE_FULL
    assert disk_full(_raised_from(OperationalError("full"), sqlite_full))
    assert disk_full(_raised_from(OperationalError("full"), psycopg.errors.DiskFull("full")))
    assert disk_full(OSError(errno.ENOSPC, "No space left on device"))
    assert not disk_full(_raised_from(OperationalError("locked"), locked))
    assert not disk_full(_raised_from(OperationalError("gone"), psycopg.OperationalError("gone")))
    assert not disk_full(OSError(errno.EIO, "I/O error"))
