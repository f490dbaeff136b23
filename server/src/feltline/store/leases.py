"""Who may write at each table: leases with fencing, stored beside the events.

Several server processes may share one PostgreSQL store, and each table is
written by one of them at a time, its owner. Ownership is a lease row per
table (owner, epoch, expiry), taken when it is free or expired, renewed
while the owner lives, given up when it stops. Every append made for a
table checks, in the transaction that appends, that the lease's epoch is
still the one its writer took and has not expired (a fencing token): a
process paused past its lease (a collector pass, SIGSTOP, a stalled VM)
that wakes up cannot store one event there, however sure it is that it
still owns the table. The streams' expected versions stay underneath, so
even a bug here could not fork a hand.

Rows, not advisory locks: an advisory lock lives as long as its database
session, which a transaction-pooling proxy (pgBouncer) hands to others
between transactions, and a lock lost with its connection tells its holder
nothing; a row with an epoch survives both, and the fence reads it in the
writer's own transaction. Time is the database's (``now()``), so the
processes' clocks never have to agree.

Tables may be leased together, under one row (:meth:`Owner.join`): a
tournament's tables with the tournament, so that the one process holding
it commits its director's moves across them (docs/store.md, "Tournaments
under several processes").

Each process also keeps a row of its own (its address and its expiry),
renewed with its leases: the address is where the other processes send the
requests for its tables (:mod:`feltline.api.forward`), and the count of
live processes is each one's fair share of the tables.

On SQLite one process owns everything (:class:`SoleOwner`): a second
process opening the same file is refused, since SQLite has no row a fence
could read in another process's transaction that it could not also skip.
"""

from __future__ import annotations

import fcntl
import os
import socket
import threading
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol
from uuid import UUID

from eventsourcing.persistence import (
    InterfaceError,
    Notification,
    OperationalError,
    PersistenceError,
    StoredEvent,
)
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry
from psycopg.rows import DictRow
from psycopg.sql import SQL, Identifier, Literal

from feltline.store.away import Away
from feltline.store.notices import Notifier

# Seconds a lease lasts unrenewed: how long a dead owner's tables wait
# (FELTLINE_LEASE_SECONDS sets it; every process on a store should agree).
LEASE = 10.0
# This process, as the owner of its leases: every room in it is the same owner.
PROCESS = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
FENCED = "FL001"  # the SQLSTATE the fence raises
MAX_PARTITIONS = 64  # more turns than any machine has cores to take them
APPENDING = 0x6C696E65  # the advisory locks that serialize appends, one per events table ("line")


class Fenced(Exception):
    """The lease of a table this process wrote for is no longer its own:
    nothing was stored."""


@dataclass(frozen=True, slots=True)
class Fence:
    """The leases an append stands on: each table's epoch as taken."""

    epochs: Mapping[UUID, int]


class Owner(Protocol):
    """What the streams and the cardroom ask of a store's leases."""

    server: str
    address: str  # where this process serves, for the others
    seconds: float  # how long a lease lasts unrenewed

    @property
    def exclusive(self) -> bool:
        """Whether a lease held keeps every other writer out of the table
        (the fence); else another room may store at it, and copies must look."""

    def take(self, table_id: UUID) -> int | None:
        """The table's epoch if this process holds its lease or just took it;
        None if another live process holds it."""

    def epoch(self, table_id: UUID) -> int | None:
        """The epoch this process holds the table at, if it does (no query)."""

    def renew(self) -> dict[UUID, int]:
        """Extend every lease this process holds; the ones it still holds."""

    def free(self, known: Iterable[UUID]) -> list[UUID]:
        """Of the leases of ``known`` (a joined table's is its unit's), and
        every lease, those no live process holds."""

    def share(self) -> int:
        """How many live processes share the store (this one included)."""

    @property
    def rank(self) -> int | None:
        """This process's place among the live ones (in the order of their
        names) at the last :meth:`share`; None before it, or when not among
        them. The partition of the log it appends to is chosen by it."""

    def address_of(self, table_id: UUID) -> str:
        """Where the owner of the table serves ("" if nobody or unknown)."""

    def release(self) -> None:
        """Give up every lease now, so that others take them at once."""

    def lost(self, table_id: UUID) -> None:
        """Forget the lease of a table the fence refused."""

    def join(self, tables: Iterable[UUID], unit: UUID) -> None:
        """Lease ``tables`` with ``unit``, as one: a tournament's tables with
        its director. Every question about one of them is asked of ``unit``'s
        lease, and an append for them is fenced by it."""

    def unit(self, table_id: UUID) -> UUID:
        """The lease the table is held under: its own, unless joined."""

    def fence(self, table_ids: Iterable[UUID]) -> Fence | None:
        """What an append for these tables must check (None: nothing to check)."""

    def close(self) -> None: ...


class SoleOwner:
    """One process owns every table of a SQLite store: the first time it
    asks for a table (a server does at start), it locks the file
    ``<database>.lock``, and a second process that tries is refused
    (:class:`StoreBusy`). Readers (an export, a check) take nothing. Within
    one process every room shares the lock (tests run several)."""

    def __init__(self, database: str) -> None:
        self.server = PROCESS
        self.address = ""
        self.seconds = LEASE
        self.exclusive = False  # the process's rooms share it
        self._database = database
        self._lock: _Shared | None = None
        self._claimed = False

    def _claim(self) -> None:
        if self._claimed:
            return
        db = self._database
        if db and ":memory:" not in db and "mode=memory" not in db:
            self._lock = _lock_file(Path(f"{db}.lock"), db)
        self._claimed = True

    def take(self, table_id: UUID) -> int:
        self._claim()
        return 1

    def epoch(self, table_id: UUID) -> int:
        self._claim()  # whoever asks which tables it owns serves the store
        return 1

    def renew(self) -> dict[UUID, int]:
        self._claim()
        return {}

    def free(self, known: Iterable[UUID]) -> list[UUID]:
        return []  # every table is this process's already

    def share(self) -> int:
        return 1

    @property
    def rank(self) -> int | None:
        return None

    def address_of(self, table_id: UUID) -> str:
        return self.address

    def release(self) -> None:
        pass

    def lost(self, table_id: UUID) -> None:
        pass

    def join(self, tables: Iterable[UUID], unit: UUID) -> None:
        pass

    def unit(self, table_id: UUID) -> UUID:
        return table_id

    def fence(self, table_ids: Iterable[UUID]) -> None:
        return None

    def close(self) -> None:
        if self._lock is not None:
            self._lock.close()  # the last room's close releases the lock
            self._lock = None
        self._claimed = False


class StoreBusy(Exception):
    """Another process serves this SQLite store."""


# The locks this process holds, by lock file: POSIX locks belong to the
# process, so a second room in it shares the first one's.
_held: dict[Path, tuple[IO[bytes], int]] = {}
_holding = threading.Lock()
_sharing: dict[str, int] = {}  # the open rooms of each owner name in this process


def _lock_file(path: Path, database: str) -> _Shared:
    """Lock ``path`` for this process, or raise :class:`StoreBusy`."""
    path = path.resolve()
    with _holding:
        if path in _held:
            handle, count = _held[path]
            _held[path] = handle, count + 1
            return _Shared(path)
        handle = path.open("a+b")
        try:
            fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            who = handle.read().decode(errors="replace").strip() or "another process"
            handle.close()
            raise StoreBusy(
                f"the SQLite store {database} is served by {who}: one process serves a "
                "SQLite store (several processes share a PostgreSQL one)"
            ) from None
        handle.truncate(0)
        handle.write(f"process {os.getpid()} on {socket.gethostname()}\n".encode())
        handle.flush()
        _held[path] = handle, 1
        return _Shared(path)


class _Shared:
    """One room's hold on the process's lock of a file: the last to close
    releases it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def close(self) -> None:
        with _holding:
            handle, count = _held[self.path]
            if count > 1:
                _held[self.path] = handle, count - 1
                return
            del _held[self.path]
        handle.close()


class Leases:
    """The leases of a PostgreSQL store, for the process ``server``;
    ``seconds`` is how long a lease lasts unrenewed. The
    rooms of one process are one owner (tests make others by name)."""

    def __init__(
        self,
        datastore: PostgresDatastore,
        *,
        seconds: float = LEASE,
        server: str = PROCESS,
    ) -> None:
        self.datastore = datastore
        self.server = server
        self.address = ""
        self.seconds = seconds
        self._closed = False
        with _holding:
            _sharing[server] = _sharing.get(server, 0) + 1
        self._held: dict[UUID, int] = {}  # the leases held, and their epochs
        self._taken: dict[UUID, int] = {}  # when each was taken, counted in takes
        self._takes = 0
        self._rank: int | None = None
        self._units: dict[UUID, UUID] = {}  # the tables leased with another lease (join)
        self._guard = threading.Lock()
        schema = Identifier(datastore.schema)
        self._sql = {name: SQL(text).format(schema=schema) for name, text in _STATEMENTS.items()}

    def _run(self, name: str, params: Sequence[Any] = ()) -> list[DictRow]:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._sql[name], params)
            return curs.fetchall() if curs.description else []

    def take(self, table_id: UUID) -> int | None:
        table_id = self._units.get(table_id, table_id)
        with self._guard:
            if table_id in self._held:
                return self._held[table_id]
        rows = self._run("take", (table_id, self.server, self.seconds))
        if not rows:
            return None
        epoch = int(rows[0]["epoch"])
        with self._guard:
            self._takes += 1
            self._held[table_id] = epoch
            self._taken[table_id] = self._takes
        return epoch

    def epoch(self, table_id: UUID) -> int | None:
        return self._held.get(self._units.get(table_id, table_id))

    def renew(self) -> dict[UUID, int]:
        with self._guard:
            started = self._takes
        self._run("here", (self.server, self.address, self.seconds))
        rows = self._run("renew", (self.seconds, self.server))
        renewed = {UUID(str(r["table_id"])): int(r["epoch"]) for r in rows}
        with self._guard:
            for table_id in list(self._held):
                # Not renewed: taken over, unless it was taken after the renewal began.
                if table_id not in renewed and self._taken.get(table_id, 0) <= started:
                    self._forget(table_id)
            # And every row in this process's name is its own: a room opened
            # again in the same process (a restart) holds what the last one did.
            self._held.update(renewed)
            return dict(self._held)

    def free(self, known: Iterable[UUID]) -> list[UUID]:
        leased = {UUID(str(r["table_id"])): bool(r["live"]) for r in self._run("all")}
        units = dict.fromkeys(self._units.get(k, k) for k in known)
        found = [k for k in units if not leased.get(k, False)]
        seen = set(found)
        found += [k for k, live in leased.items() if not live and k not in seen]
        return found

    def share(self) -> int:
        servers = [str(r["server"]) for r in self._run("live")]
        self._rank = servers.index(self.server) if self.server in servers else None
        return max(1, len(servers))

    @property
    def rank(self) -> int | None:
        return self._rank

    def address_of(self, table_id: UUID) -> str:
        rows = self._run("where", (self._units.get(table_id, table_id),))
        return str(rows[0]["address"]) if rows else ""

    def release(self) -> None:
        with self._guard:
            self._held.clear()
            self._taken.clear()
        self._run("release", (self.server,))
        self._run("gone", (self.server,))

    def lost(self, table_id: UUID) -> None:
        with self._guard:
            self._forget(self._units.get(table_id, table_id))

    def join(self, tables: Iterable[UUID], unit: UUID) -> None:
        with self._guard:
            self._units.update(dict.fromkeys(tables, unit))

    def unit(self, table_id: UUID) -> UUID:
        return self._units.get(table_id, table_id)

    def _forget(self, table_id: UUID) -> None:
        self._held.pop(table_id, None)
        self._taken.pop(table_id, None)

    def fence(self, table_ids: Iterable[UUID]) -> Fence:
        units = {self._units.get(t, t) for t in table_ids}
        return Fence({u: self._held.get(u, 0) for u in units})

    @property
    def exclusive(self) -> bool:
        """Unless another room of this process holds the leases too (tests
        open several)."""
        return _sharing.get(self.server) == 1

    def close(self) -> None:
        with _holding:
            if not self._closed:
                self._closed = True
                _sharing[self.server] -= 1


# Every statement, its schema named as {schema}.
_STATEMENTS = {
    "take": """
        INSERT INTO {schema}.feltline_leases AS l (table_id, owner, epoch, expires)
        VALUES (%s, %s, 1, now() + make_interval(secs => %s))
        ON CONFLICT (table_id) DO UPDATE
            SET owner = EXCLUDED.owner, expires = EXCLUDED.expires,
                epoch = CASE WHEN l.owner = EXCLUDED.owner AND l.expires > now()
                    THEN l.epoch ELSE l.epoch + 1 END
            WHERE l.expires < now() OR l.owner = EXCLUDED.owner
        RETURNING epoch""",
    "renew": """
        UPDATE {schema}.feltline_leases SET expires = now() + make_interval(secs => %s)
        WHERE table_id IN (
            SELECT table_id FROM {schema}.feltline_leases WHERE owner = %s
            ORDER BY table_id FOR NO KEY UPDATE)
        RETURNING table_id, epoch""",
    "here": """
        INSERT INTO {schema}.feltline_servers (server, address, expires)
        VALUES (%s, %s, now() + make_interval(secs => %s))
        ON CONFLICT (server) DO UPDATE
            SET address = EXCLUDED.address, expires = EXCLUDED.expires""",
    "all": "SELECT table_id, expires > now() AS live FROM {schema}.feltline_leases",
    "live": "SELECT server FROM {schema}.feltline_servers WHERE expires > now() ORDER BY server",
    "where": """
        SELECT s.address FROM {schema}.feltline_leases l
        JOIN {schema}.feltline_servers s ON s.server = l.owner
        WHERE l.table_id = %s AND l.expires > now()""",
    "release": """
        UPDATE {schema}.feltline_leases SET expires = '-infinity' WHERE owner = %s""",
    "gone": "DELETE FROM {schema}.feltline_servers WHERE server = %s",
}

SETTLED = "SELECT value FROM {schema}.feltline_settings WHERE name = 'partitions'"

# Made with the events table, one process at a time (streams.in_turn).
CREATE = (
    """CREATE TABLE IF NOT EXISTS {schema}.feltline_leases (
        table_id uuid PRIMARY KEY,
        owner text NOT NULL,
        epoch bigint NOT NULL,
        expires timestamptz NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS {schema}.feltline_servers (
        server text PRIMARY KEY,
        address text NOT NULL,
        expires timestamptz NOT NULL)""",
    # The fence: every lease still held at its epoch, unexpired, and locked
    # against a takeover until the append commits. SHARE: a takeover (its
    # ON CONFLICT DO UPDATE locks the row FOR NO KEY UPDATE, which a KEY
    # SHARE lock would let through) waits for the append to end, and then
    # the next append sees the new epoch. Rows are locked in table order,
    # by the fence and by a renewal alike, so the two never deadlock.
    """CREATE OR REPLACE FUNCTION {schema}.feltline_fence(tables uuid[], epochs bigint[])
    RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
        held integer;
    BEGIN
        SELECT count(*) INTO held FROM (
            SELECT 1 FROM {schema}.feltline_leases l
            JOIN unnest(tables, epochs) AS f(table_id, epoch)
                ON l.table_id = f.table_id AND l.epoch = f.epoch
            WHERE l.expires > now()
            ORDER BY l.table_id FOR SHARE OF l) AS fenced;
        IF held < cardinality(tables) THEN
            RAISE EXCEPTION 'a table lease was lost: nothing stored'
                USING ERRCODE = 'FL001';
        END IF;
    END $$""",
    # An append: the fence (if it stands on leases), its partition's turn,
    # held to the commit, then the events, numbered from the partition's
    # sequence in their order.
    """CREATE OR REPLACE FUNCTION {schema}.feltline_append(
        tables uuid[], epochs bigint[], lock_timeout text, turn text, numbers regclass,
        ids uuid[], versions bigint[], topics text[], states bytea[])
    RETURNS SETOF bigint LANGUAGE plpgsql AS $$
    BEGIN
        IF cardinality(tables) > 0 THEN
            PERFORM {schema}.feltline_fence(tables, epochs);
        END IF;
        PERFORM set_config('lock_timeout', lock_timeout, true);
        PERFORM pg_advisory_xact_lock({appending}, hashtext(turn));
        RETURN QUERY
            INSERT INTO {schema}.{events}
                (notification_id, originator_id, originator_version, topic, state)
            SELECT nextval(numbers), e.id, e.version, e.topic, e.state
            FROM unnest(ids, versions, topics, states)
                WITH ORDINALITY AS e(id, version, topic, state, n)
            ORDER BY e.n
            RETURNING notification_id;
    END $$""",
    # The notice that something was stored, sent after the append commits,
    # in a transaction of its own that waits for no flush: PostgreSQL
    # serializes every transaction that notifies, database-wide, from just
    # before its commit until its commit is flushed, so a NOTIFY inside the
    # append made one queue of every partition's appends again.
    """CREATE OR REPLACE FUNCTION {schema}.feltline_notify()
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM set_config('synchronous_commit', 'off', true);
        NOTIFY {channel};
    END $$""",
    # The store's own settings (its partitions), fixed when it is made.
    """CREATE TABLE IF NOT EXISTS {schema}.feltline_settings (
        name text PRIMARY KEY,
        value text NOT NULL)""",
)


class PartitionsError(Exception):
    """A store asked for a number of partitions other than the one it was made with."""


class FencedRecorder(PostgresApplicationRecorder):
    """The library's recorder, every append of which is one call of
    ``feltline_append``: the fence, its partition's turn (an advisory lock,
    so that notification ids follow commit order within the partition, and
    a role that may only insert can append: ops/postgres/README.md), the
    notification and the insert, as one statement and so one transaction.
    The library's own append sends these as a pipeline of statements; a
    process frozen in the middle of one (SIGSTOP, a stalled VM) left its
    transaction open, neither running nor "idle in transaction" (so never
    ended by a timeout), holding its leases' rows and the events table's
    turn: no table of it could be taken over and no process could append
    until it thawed. A statement runs to its end whatever its client does.

    The log may be split into ``partitions`` (docs/store.md, "Partitions"):
    one events table still, but K turns and K sequences, partition ``p``
    numbering its rows p+1, p+1+K, ... A commit is stored whole in one
    partition, so it is atomic whatever streams it touches, and writers in
    different partitions never wait for one another. K is fixed when the
    store is made (:meth:`settle`); one partition is the layout of every
    store made before."""

    partitions = 1

    def __init__(self, datastore: PostgresDatastore, **kwargs: Any) -> None:
        super().__init__(datastore, **kwargs)
        # The store's own channel: the library's is named after the table
        # alone, which every store in the database's other schemas shares.
        self.channel_name = f"{datastore.schema}_{self.events_table_name}"
        self._notifier = Notifier(self._notify)  # after the append, on its own
        self.away = Away.guard(datastore)  # an outage answered at once, not after a minute

    def create_table(self) -> None:
        super().create_table()
        names = {
            "schema": Identifier(self.datastore.schema),
            "events": Identifier(self.events_table_name),
            "channel": Identifier(self.channel_name),
            "appending": Literal(APPENDING),
        }
        with self.datastore.transaction(commit=True) as curs:
            for statement in CREATE:
                curs.execute(SQL(statement).format(**names))

    def settle(self, wanted: int | None) -> None:
        """Read the store's partitions, or make them, once, as its tables
        are (in turn with other processes: streams.in_turn): ``wanted``
        (None: one) for a new store; a store that already holds events
        and no setting was made before partitions, with one. Raise
        :class:`PartitionsError` if ``wanted`` is not what the store was
        made with."""
        if wanted is not None and not 1 <= wanted <= MAX_PARTITIONS:
            raise PartitionsError(f"a store has 1 to {MAX_PARTITIONS} partitions, not {wanted}")
        names = {
            "schema": Identifier(self.datastore.schema),
            "events": Identifier(self.events_table_name),
        }
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(SQL(SETTLED).format(**names))
            found = curs.fetchone()
            if found is not None:
                k = int(found["value"])
            else:
                curs.execute(SQL("SELECT 1 AS any FROM {schema}.{events} LIMIT 1").format(**names))
                k = 1 if curs.fetchone() is not None else (wanted or 1)
                self._make(curs, k)
        if wanted is not None and wanted != k:
            raise PartitionsError(
                f"this store was made with {k} partition{'s' * (k != 1)}, not {wanted}: "
                "FELTLINE_PARTITIONS applies only when a store is made"
            )
        schema, table = self.datastore.schema, self.events_table_name
        sequences = (
            [f"{table}_p{p}" for p in range(k)] if k > 1 else [f"{table}_notification_id_seq"]
        )
        self._numbers = [f'"{schema}"."{name}"' for name in sequences]
        self.partitions = k

    def _make(self, curs: Any, k: int) -> None:
        """Record ``k``, and make the numbers and the index of its partitions."""
        schema, events = Identifier(self.datastore.schema), Identifier(self.events_table_name)
        curs.execute(
            SQL("INSERT INTO {schema}.feltline_settings VALUES ('partitions', %s)").format(
                schema=schema
            ),
            (str(k),),
        )
        if k == 1:
            return  # the table's own sequence, as in every store made before
        for p in range(k):
            curs.execute(
                SQL("CREATE SEQUENCE {schema}.{seq} START WITH {start} INCREMENT BY {k}").format(
                    schema=schema,
                    seq=Identifier(f"{self.events_table_name}_p{p}"),
                    start=Literal(p + 1),
                    k=Literal(k),
                )
            )
        curs.execute(
            SQL(
                "CREATE INDEX {index} ON {schema}.{events} "
                "(((notification_id - 1) % {k}), notification_id)"
            ).format(
                index=Identifier(f"{self.events_table_name}_partition"),
                schema=schema,
                events=events,
                k=Literal(k),
            )
        )

    def home(self, stream: UUID) -> int:
        """The partition a commit for ``stream`` (its table, or its own) is stored in."""
        return stream.int % self.partitions

    def turn(self, partition: int) -> str:
        """The name of the partition's turn (its advisory lock's key)."""
        table = f"{self.datastore.schema}.{self.events_table_name}"
        return table if self.partitions == 1 else f"{table}/{partition}"

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        fence: Fence | None = kwargs.get("fence")
        partition: int = kwargs.get("partition", 0)
        epochs = fence.epochs if fence is not None else {}
        tables = sorted(epochs)
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(
                SQL("SELECT {schema}.feltline_append(%s, %s, %s, %s, %s, %s, %s, %s, %s)").format(
                    schema=Identifier(self.datastore.schema)
                ),
                (
                    tables,
                    [epochs[t] for t in tables],
                    f"{self.datastore.lock_timeout}s",
                    self.turn(partition),
                    self._numbers[partition],
                    [e.originator_id for e in stored_events],
                    [e.originator_version for e in stored_events],
                    [e.topic for e in stored_events],
                    [e.state for e in stored_events],
                ),
                prepare=True,
            )
            ids = [row["feltline_append"] for row in curs.fetchall()]
        self._notifier.poke()
        return ids

    def _notify(self) -> None:
        with self.datastore.get_connection() as conn:
            conn.execute(
                SQL("SELECT {schema}.feltline_notify()").format(
                    schema=Identifier(self.datastore.schema)
                )
            )

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def heads(self) -> tuple[int, ...]:
        """Each partition's highest notification id (0 for none), read in
        one statement and so from one snapshot: a cut of the log in which
        every commit is whole."""
        table = SQL("{schema}.{events}").format(
            schema=Identifier(self.datastore.schema), events=Identifier(self.events_table_name)
        )
        k = self.partitions
        if k == 1:
            parts = [SQL("(SELECT max(notification_id) FROM {t})").format(t=table)]
        else:
            parts = [
                SQL(
                    "(SELECT max(notification_id) FROM {t} WHERE (notification_id - 1) % {k} = {p})"
                ).format(t=table, k=Literal(k), p=Literal(p))
                for p in range(k)
            ]
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(
                SQL("SELECT ARRAY[{parts}]::bigint[] AS heads").format(parts=SQL(", ").join(parts)),
                prepare=True,
            )
            row = curs.fetchone()
            assert row is not None
            return tuple(int(h or 0) for h in row["heads"])

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def page(self, partition: int, after: int, upto: int, limit: int) -> list[Notification]:
        """Partition ``partition``'s rows after notification ``after`` up to
        ``upto``, in order, at most ``limit``."""
        k = self.partitions
        where = (
            SQL("")
            if k == 1
            else SQL(" AND (notification_id - 1) %% {k} = {p}").format(
                k=Literal(k), p=Literal(partition)
            )
        )
        statement = SQL(
            "SELECT * FROM {schema}.{events} WHERE notification_id > %s AND notification_id <= %s"
            "{where} ORDER BY notification_id LIMIT %s"
        ).format(
            schema=Identifier(self.datastore.schema),
            events=Identifier(self.events_table_name),
            where=where,
        )
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(statement, (after, upto, limit), prepare=True)
            return [
                Notification(
                    id=row["notification_id"],
                    originator_id=row["originator_id"],
                    originator_version=row["originator_version"],
                    topic=row["topic"],
                    state=bytes(row["state"]),
                )
                for row in curs.fetchall()
            ]

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def placed(self, stream: UUID, version: int) -> int | None:
        """The notification id of a stream's record at ``version`` (None: not stored)."""
        statement = SQL(
            "SELECT notification_id FROM {schema}.{events} "
            "WHERE originator_id = %s AND originator_version = %s"
        ).format(
            schema=Identifier(self.datastore.schema), events=Identifier(self.events_table_name)
        )
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(statement, (stream, version), prepare=True)
            row = curs.fetchone()
            return None if row is None else int(row["notification_id"])


def fenced(error: BaseException) -> bool:
    """Whether ``error`` is the fence refusing an append."""
    cause = error.__cause__ if isinstance(error, PersistenceError) else error
    return getattr(cause, "sqlstate", None) == FENCED
