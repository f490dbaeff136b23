"""Hearing at once that another process appended to the store.

Every append to a PostgreSQL store's events table sends a notification on
the table's channel (the ``eventsourcing`` recorder does, in the append's
transaction, so it is delivered when the append commits). A process that
listens learns of another's writes within milliseconds, instead of at its
next look (half a second), and its watchers see them as soon.

A notification can be lost: the listening connection drops, or the
process is paused past the server's queue. Nothing rests on one: the
periodic look (:mod:`feltline.store.elsewhere`) still finds every write,
just later; a lost connection is reopened. Notifications arriving while
the last one is being handled are taken as one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import psycopg
import structlog
from eventsourcing.utils import Environment
from psycopg.sql import SQL, Identifier

from feltline.store.preflight import connect_postgres

log = structlog.get_logger("feltline.store")
RECONNECT = 1.0  # seconds between attempts while the database is away
GAP = 0.02  # seconds at least between two calls: a busy store is heard in bursts


class Notices:
    """Calls ``heard`` after appends to the events table whose channel is
    ``channel``, from a thread of its own, until :meth:`stop`."""

    def __init__(self, env: Environment, channel: str, heard: Callable[[], None]) -> None:
        self._env = env
        self._channel = channel
        self._heard = heard
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="feltline-notices", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with connect_postgres(self._env) as conn:
                    conn.autocommit = True
                    conn.execute(SQL("LISTEN {}").format(Identifier(self._channel)))
                    while not self._stop.is_set():
                        if any(True for _ in conn.notifies(timeout=0.5, stop_after=1)):
                            for _ in conn.notifies(timeout=0):  # the ones come meanwhile
                                pass
                            self._heard()
                            self._stop.wait(GAP)
            except (psycopg.Error, OSError) as e:
                log.warning("notices_lost", error=str(e), retry_in=RECONNECT)
                self._stop.wait(RECONNECT)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
