"""The database found away: fail at once until it answers again.

When PostgreSQL goes away (a restart, a failover, a cut network), a call
into the store waits for a connection the pool's whole timeout, and the
library tries each call ten times: a request waited about fifty seconds
for its answer, and every other request queued behind it. Once a call
finds the database unreachable, :class:`Away` has the others fail at once
(the API answers ``UNAVAILABLE`` with a retry hint, and a request sent
again under the same id is never applied twice), while one call at a time
probes the database, waiting only :data:`PROBE` for a connection. The
first call that reaches it ends the outage. Errors the database itself
answers (a conflict, the fence, a lock timeout) say it is there. The call
that finds it away fails as the library's retries decide; the calls after
it raise :class:`StoreAway`, which they do not retry.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import psycopg
import psycopg_pool
import structlog
from eventsourcing.persistence import InterfaceError, OperationalError
from eventsourcing.postgres import PostgresDatastore

from feltline.store.faults import StoreAway

log = structlog.get_logger("feltline.store")

PROBE = 0.5  # seconds a call waits for a connection while the database is away
# SQLSTATEs that say the connection, not the statement, failed: class 08,
# and the server shutting down or starting up (57P01-57P03).
LOST = ("08", "57P01", "57P02", "57P03")


def unreachable(error: BaseException) -> bool:
    """Whether ``error`` (the library's, or psycopg's under it) says the
    database could not be reached, rather than that it refused a statement."""
    cause = error.__cause__ if isinstance(error, OperationalError | InterfaceError) else error
    if isinstance(cause, psycopg_pool.PoolTimeout | psycopg.InterfaceError):
        return True
    if not isinstance(cause, psycopg.OperationalError):
        return False
    state = cause.sqlstate
    return state is None or state.startswith(LOST)


class Away:
    """Guards every connection a store's datastore hands out (its recorder's
    and its leases' calls alike)."""

    def __init__(self, datastore: PostgresDatastore) -> None:
        self._connect: Callable[[], AbstractContextManager[Any]] = datastore.get_connection
        self._pool = datastore.pool
        self._timeout = datastore.pool.timeout
        self._guard = threading.Lock()
        self._probe = threading.Lock()
        self.since: float | None = None  # when a call last found the database away

    @classmethod
    def guard(cls, datastore: PostgresDatastore) -> Away:
        """Put the guard between ``datastore`` and everything that connects through it."""
        away = cls(datastore)
        datastore.get_connection = away.connection  # type: ignore[method-assign]
        return away

    @contextmanager
    def connection(self) -> Iterator[Any]:
        probing = self.since is not None
        if probing and not self._probe.acquire(blocking=False):
            raise self._still()
        try:
            with self._connect() as conn:
                yield conn
        except BaseException as e:
            if not unreachable(e):  # the database answered, if only to refuse
                self._back()
                raise
            if probing:
                raise self._still() from e
            self._left(e)
            raise
        else:
            self._back()
        finally:
            if probing:
                self._probe.release()

    def _still(self) -> StoreAway:
        return StoreAway(
            f"the database has not answered for {time.monotonic() - (self.since or 0):.0f} s"
        )

    def _left(self, error: BaseException) -> None:
        with self._guard:
            if self.since is not None:
                return
            self.since = time.monotonic()
            self._pool.timeout = PROBE
        log.warning("store_away", error=str(error), probe_seconds=PROBE)

    def _back(self) -> None:
        if self.since is None:
            return
        with self._guard:
            if self.since is None:
                return
            away, self.since = time.monotonic() - self.since, None
            self._pool.timeout = self._timeout
        log.warning("store_back", away_seconds=round(away, 1))
