"""Hearing at once that another process appended to the store.

Every append to a PostgreSQL store's events table sends a notification on
the table's channel, just after the append commits
(:class:`feltline.store.leases.FencedRecorder`). A process that
listens learns of another's writes within milliseconds, instead of at its
next look (half a second), and its watchers see them as soon.

A notification can be lost: the listening connection drops, or the
process is paused past the server's queue. Nothing rests on one: the
periodic look (:mod:`feltline.store.elsewhere`) still finds every write,
just later; a lost connection is reopened, and ``heard`` is called once
it listens again, for what was stored meanwhile (and so, at the start,
for what was stored before it listened: :class:`Notices` returns once it
listens, or after ``READY`` seconds if the database is slow to answer).
Notifications arriving while the last one is being handled are taken as
one; a notice that could not be sent is tried again a second later.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import psycopg
import structlog
from eventsourcing.utils import Environment
from psycopg.sql import SQL, Identifier

from feltline.store.away import unreachable
from feltline.store.faults import StoreAway
from feltline.store.preflight import connect_postgres

log = structlog.get_logger("feltline.store")
RECONNECT = 1.0  # seconds between attempts while the database is away
GAP = 0.02  # seconds at least between two calls: a busy store is heard in bursts
READY = 5.0  # seconds a new Notices waits for its first LISTEN
RESEND = 10  # times a notice that could not be sent is tried, a second apart


class Notices:
    """Calls ``heard`` after appends to the events table whose channel is
    ``channel``, from a thread of its own, until :meth:`stop`."""

    def __init__(self, env: Environment, channel: str, heard: Callable[[], None]) -> None:
        self._env = env
        self._channel = channel
        self._heard = heard
        self._stop = threading.Event()
        self._listening = threading.Event()
        self._thread = threading.Thread(target=self._run, name="feltline-notices", daemon=True)
        self._thread.start()
        self._listening.wait(READY)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with connect_postgres(self._env) as conn:
                    conn.autocommit = True
                    conn.execute(SQL("LISTEN {}").format(Identifier(self._channel)))
                    self._heard()  # whatever was stored while nobody listened
                    self._listening.set()
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


class Notifier:
    """Sends ``send`` (the store's notice) soon after each :meth:`poke`, from
    a thread of its own made at the first: pokes that come while one is
    sent are sent as one, at most one each ``GAP``. A notifying transaction
    holds a lock every other notifying transaction of the database waits
    for, so a busy server's appends would otherwise queue on it one by one.
    A notice that fails is sent again a second later, ``RESEND`` times at most."""

    def __init__(self, send: Callable[[], None]) -> None:
        self._send = send
        self._due = threading.Event()
        self._thread: threading.Thread | None = None
        self._starting = threading.Lock()

    def poke(self) -> None:
        self._due.set()
        if self._thread is None:
            with self._starting:
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name="feltline-notifier", daemon=True
                    )
                    self._thread.start()

    def _run(self) -> None:
        failed = 0  # in a row
        while True:
            self._due.wait()
            self._due.clear()
            try:
                self._send()
                failed = 0
            except Exception as e:  # the database away: again, a while; the store closed: dropped
                failed += 1
                if failed < RESEND and (isinstance(e, StoreAway) or unreachable(e)):
                    self._due.set()
                    time.sleep(RECONNECT)
            time.sleep(GAP)
