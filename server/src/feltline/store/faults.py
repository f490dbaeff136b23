"""What the store does when it cannot do its job: a stream it cannot read,
a disk it cannot write to.

Both are told apart from a request's own failures here, at the store's
edge, so that the API can answer each precisely and a server keeps serving
what it still can:

- :class:`Unreadable`: a table whose stored events (or its hand's) do not
  decode, or do not fold. Only that table is refused; it is logged once, by id.
- :class:`AccountUnreadable`: an account whose stored events do not decode
  or do not verify. Only that account is refused (and with it any request
  that would move its chips); it is logged once, by id.
- :class:`StoreFull`: a commit refused because the database's disk is full
  (SQLite's ``SQLITE_FULL``, PostgreSQL's ``disk_full``). Nothing was
  stored, so the same request may be sent again once space returns; the
  episode is logged once when it begins and once when a commit succeeds
  again (:class:`Episode`), not on every refused request or clock tick.
- :class:`StoreAway`: the database is known to be away (a restart, a
  failover, a cut network), so the call was not tried
  (:mod:`feltline.store.away`); nothing was stored.
"""

from __future__ import annotations

import errno
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from uuid import UUID

import psycopg.errors
import structlog
from eventsourcing.persistence import PersistenceError

from feltline import metrics

log = structlog.get_logger("feltline.store")


class Unreadable(Exception):
    """A stored table that does not decode or does not fit: its history
    cannot be trusted, so it is not served."""

    def __init__(self, table_id: UUID, detail: str) -> None:
        super().__init__(f"table {table_id}'s stored history does not verify: {detail}")
        self.table_id = table_id
        self.detail = detail


class AccountUnreadable(Exception):
    """A stored account that does not decode or does not verify: its chips
    cannot be trusted, so they are neither shown nor moved."""

    def __init__(self, account_id: UUID, detail: str) -> None:
        super().__init__(f"account {account_id}'s stored history does not verify: {detail}")
        self.account_id = account_id
        self.detail = detail


class StoreFull(Exception):
    """A commit refused for want of space: nothing was stored."""


def disk_full(error: BaseException) -> bool:
    """Whether ``error``, or any error it was raised from, says the disk is
    full. The persistence modules wrap the driver's error in their own, so
    the chain is followed down to it."""
    seen: BaseException | None = error
    for _ in range(10):  # a chain is short; a cycle must not loop forever
        if seen is None:
            return False
        # SQLite's primary result code is the low byte of the extended one,
        # which the module sets only on errors it raised itself.
        code = getattr(seen, "sqlite_errorcode", None) if isinstance(seen, sqlite3.Error) else None
        if code is not None and code & 0xFF == sqlite3.SQLITE_FULL:
            return True
        if isinstance(seen, psycopg.errors.DiskFull):
            return True
        if isinstance(seen, OSError) and seen.errno == errno.ENOSPC:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class StoreAway(PersistenceError):
    """The database is known to be away: the call was not tried (or its
    probe found it still away). Not the library's ``OperationalError``, so
    that its ten retries do not wait out the outage call by call."""


class Episode:
    """A stretch of time the store cannot write, logged once at its start
    (error) and once at its end (info), however many requests it refuses."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.on = False

    def began(self, error: BaseException) -> None:
        with self._lock:
            if self.on:
                return
            self.on = True
        log.error(
            "store_full",
            message="the store cannot write: its disk is full; requests are refused "
            "with UNAVAILABLE until space is freed",
            error=str(error),
        )

    def ended(self) -> None:
        if not self.on:  # read without the lock: the common case costs nothing
            return
        with self._lock:
            if not self.on:
                return
            self.on = False
        log.info("store_writable", message="the store writes again")


class Reported:
    """The tables (and accounts) found unreadable, each logged once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: set[UUID] = set()
        self._accounts: set[UUID] = set()

    def __len__(self) -> int:
        """How many tables were found unreadable."""
        return len(self._seen)

    @contextmanager
    def reading(self, table_id: UUID, what: str = "") -> Iterator[None]:
        """Read the table's stored events (``what`` of them) in the block:
        whatever stops the decoding or the fold raises :class:`Unreadable`,
        while a database that does not answer raises as it did."""
        try:
            yield
        except (PersistenceError, Unreadable, AccountUnreadable):
            raise
        except Exception as e:
            metrics.STORE_ERRORS.labels("unreadable").inc()
            unreadable = Unreadable(table_id, f"{what}{type(e).__name__}: {e}")
            self._report(unreadable)
            raise unreadable from e

    @contextmanager
    def reading_account(self, account_id: UUID) -> Iterator[None]:
        """Read the account's stored events in the block: whatever stops
        their decoding or their chain raises :class:`AccountUnreadable`."""
        try:
            yield
        except PersistenceError:
            raise
        except Exception as e:
            metrics.STORE_ERRORS.labels("unreadable").inc()
            unreadable = AccountUnreadable(account_id, f"{type(e).__name__}: {e}")
            with self._lock:
                first = account_id not in self._accounts
                self._accounts.add(account_id)
            if first:
                log.error(
                    "account_unreadable",
                    account_id=str(account_id),
                    message="the account's stored history does not verify; it is not served, "
                    "the other accounts are",
                    error=unreadable.detail,
                )
            raise unreadable from e

    def _report(self, error: Unreadable) -> None:
        with self._lock:
            if error.table_id in self._seen:
                return
            self._seen.add(error.table_id)
        log.error(
            "table_unreadable",
            table_id=str(error.table_id),
            message="the table's stored history does not verify; it is not served, "
            "the other tables are",
            error=error.detail,
        )
