"""The streams the cardroom keeps, stored: one ``eventsourcing`` application
over every table, hand, account, match and the server's keys.

:class:`Streams` loads a stream checked link by link and vouched for by
its last signature, and commits what the service layer
(:mod:`feltline.cardroom`) decided, the last record of each stream signed,
in one transaction. It decides nothing: storage only, on SQLite or
PostgreSQL as configured, and nothing above it knows which.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import (
    ApplicationRecorder,
    IntegrityError,
    MapperDeserialisationError,
    Notification,
    PersistenceError,
    StoredEvent,
)
from eventsourcing.utils import Environment

from feltline import metrics
from feltline.audit.keys import Signer
from feltline.domain.account import Account, AccountEvent
from feltline.domain.account import project as project_account
from feltline.domain.chained import TamperedError, sign
from feltline.domain.hand import HandStream, StoredHandEvent
from feltline.domain.hand import project as project_hand
from feltline.domain.keys import KeyRecord
from feltline.domain.match import MatchRecord, MatchStream
from feltline.domain.match import project as project_match
from feltline.domain.table import TableRecord, TableStream
from feltline.domain.table import project as project_table
from feltline.store.commit import GroupCommit
from feltline.store.elsewhere import Elsewhere
from feltline.store.faults import Episode, Reported, StoreFull, disk_full
from feltline.store.leases import (
    LEASE,
    PROCESS,
    Fence,
    Fenced,
    Leases,
    Owner,
    SoleOwner,
    fenced,
)
from feltline.store.notices import Notices
from feltline.store.preflight import connect_postgres

Stored = StoredHandEvent | TableRecord | AccountEvent | KeyRecord | MatchRecord
PAGE = 1000  # rows read at a time
CREATING = 0x66656C74  # the advisory lock taken to make the tables ("felt")


@contextmanager
def in_turn(env: Environment) -> Iterator[None]:
    """Make the store's tables, if missing, one process at a time. On
    PostgreSQL each start replaces the library's insert function, and two
    processes doing so at once (servers, a projector) fail with 'tuple
    concurrently updated': an advisory lock has them take turns."""
    if env.get("PERSISTENCE_MODULE") != "eventsourcing.postgres":
        yield
        return
    with connect_postgres(env) as turns:
        turns.execute("SELECT pg_advisory_lock(%s)", (CREATING,))
        try:
            yield
        finally:
            turns.execute("SELECT pg_advisory_unlock(%s)", (CREATING,))


@dataclass(frozen=True, slots=True)
class Write:
    """One commit's rows and the leases they stand on."""

    rows: Sequence[StoredEvent]
    fence: Fence | None


class Conflict(Exception):
    """Another writer stored events in these streams first; run the request
    again to decide it against the new state."""


class Streams(Application[UUID]):
    """Every table, hand and account in one events table (``cardroom_events``),
    so that one save is one transaction; saves from concurrent requests are
    committed together (:mod:`feltline.store.commit`).

    Every stream it loads is checked link by link and vouched for by its
    last signature (:meth:`vouch`); a hand is written only as part of what
    the service layer decided, the seed drawn there.

    ``elsewhere`` tells whether another process stored events since the
    last look (:mod:`feltline.store.elsewhere`).

    A commit goes straight to the recorder, not through ``Application.save``:
    its generic collection checks every record against runtime protocols,
    which cost more than the rest of a request, and the records are mapped
    to rows by each caller before it queues, so that the one committing
    holds up the others only for the insert itself."""

    name = "Cardroom"  # names the events table, cardroom_events, as in every store made before

    def __init__(
        self,
        signer: Signer,
        env: Mapping[str, str] | None = None,
        *,
        server: str = PROCESS,
    ) -> None:
        env = dict(env or {})
        postgres = env.get("PERSISTENCE_MODULE") == "eventsourcing.postgres"
        if postgres:
            env["APPLICATION_RECORDER_TOPIC"] = "feltline.store.leases:FencedRecorder"
        else:  # refuses a second process before anything is read
            self.owner: Owner = SoleOwner(env.get("SQLITE_DBNAME", ""))
        super().__init__(env)
        if postgres:
            datastore = self.recorder.datastore  # type: ignore[attr-defined]
            seconds = float(env.get("FELTLINE_LEASE_SECONDS", LEASE))
            self.owner = Leases(datastore, seconds=seconds, server=server)
        self.signer = signer
        self.trusted = frozenset({signer.public_hex})  # the keys the store was signed with
        self.key_held: IO[bytes] | None = None  # the key file, held against a rotation
        self.group_commit: GroupCommit[Write] = GroupCommit(self._insert)
        self.elsewhere = Elsewhere(self.recorder.max_notification_id)
        self.reported = Reported()
        self.full = Episode()

    def construct_recorder(self) -> ApplicationRecorder:
        """The recorder, its tables made if missing, in turn (:func:`in_turn`)."""
        with in_turn(Environment(self.name, self.env)):
            return super().construct_recorder()

    def close(self) -> None:
        super().close()
        self.owner.close()
        if self.key_held is not None:
            self.key_held.close()  # and with it, its lock
            self.key_held = None

    def hear(self, heard: Callable[[], None]) -> Notices | None:
        """Have ``heard`` called soon after any process appends to the store
        (:mod:`feltline.store.notices`); None on SQLite, which one process
        serves. Stop it with :meth:`Notices.stop`."""
        if not isinstance(self.owner, Leases):
            return None
        channel = self.recorder.channel_name  # type: ignore[attr-defined]
        return Notices(Environment(self.name, self.env), channel, heard)

    def _insert(self, writes: Sequence[Write]) -> None:
        rows = [row for write in writes for row in write.rows]
        epochs = {t: e for w in writes if w.fence is not None for t, e in w.fence.epochs.items()}
        self.elsewhere.storing(len(rows))
        try:
            ids = self.recorder.insert_events(rows, fence=Fence(epochs) if epochs else None)
        except BaseException:
            self.elsewhere.failed(len(rows))
            raise
        self.elsewhere.stored(ids, len(rows))

    def vouch(
        self, kind: str, stream_id: UUID, signer: str, *, trusted: frozenset[str] | None = None
    ) -> None:
        """Refuse a stream whose last record is not signed, or is signed by
        a key this server does not trust (the store's keys, or ``trusted``):
        its chain then proves nothing."""
        if not signer:
            raise TamperedError(f"{kind} {stream_id}: its last stored event is not signed")
        if signer not in (self.trusted if trusted is None else trusted):
            raise TamperedError(
                f"{kind} {stream_id} is signed by key {signer}, "
                f"not by this server's key {self.signer.public_hex}"
            )

    def get(self, hand_id: UUID) -> HandStream:
        """The hand's stream, checked link by link and against this server's
        key; a new one if none is stored."""
        try:
            stream: HandStream = self.repository.get(hand_id, projector_func=project_hand)
        except AggregateNotFoundError:
            return HandStream.new(hand_id)
        except MapperDeserialisationError as e:
            raise TamperedError(f"hand {hand_id}: a stored event does not decode: {e}") from e
        self.vouch("hand", hand_id, stream.signer)
        return stream

    def table(self, table_id: UUID) -> TableStream:
        """The stored table, or a new one if none is stored. A table whose
        events do not decode, do not fold or do not verify raises
        :class:`Unreadable` (logged once); a database that does not answer
        raises as it does."""
        with self.reported.reading(table_id):
            try:
                stream: TableStream = self.repository.get(table_id, projector_func=project_table)
            except AggregateNotFoundError:
                return TableStream.new(table_id)
            self.vouch("table", table_id, stream.signer)
        return stream

    def match(self, match_id: UUID) -> MatchStream:
        """The stored match, or a new one if none is stored, checked like a table."""
        with self.reported.reading(match_id):
            try:
                stream: MatchStream = self.repository.get(match_id, projector_func=project_match)
            except AggregateNotFoundError:
                return MatchStream.new(match_id)
            self.vouch("match", match_id, stream.signer)
        return stream

    def account(self, account_id: UUID) -> Account:
        """The stored account, or an empty one. One whose events do not
        decode or do not verify raises :class:`AccountUnreadable` (logged once)."""
        with self.reported.reading_account(account_id):
            try:
                stored: Account = self.repository.get(account_id, projector_func=project_account)
            except AggregateNotFoundError:
                return Account.new(account_id)
            self.vouch("account", account_id, stored.signer)
        return stored

    # ---- reading what is stored, for whoever shows it

    def notifications(self, start: int = 1) -> Iterator[Notification]:
        """Every row from notification ``start`` on, in the order stored, a
        page at a time."""
        while page := self.recorder.select_notifications(start, PAGE):
            yield from page
            start = page[-1].id + 1

    def tables(self, start: int = 1) -> tuple[list[UUID], int]:
        """The tables opened from notification ``start`` on, in the order
        they were opened, and where a later reading starts."""
        topic = f"{TableRecord.__module__}:{TableRecord.__qualname__}"
        found: list[UUID] = []
        for n in self.notifications(start):
            if n.topic == topic and n.originator_version == 1:
                found.append(UUID(str(n.originator_id)))
            start = n.id + 1
        return found, start

    def after(self, stream_id: UUID, version: int) -> list[Stored]:
        """The stream's records after position ``version``, decoded but not
        checked: a reader of a stream already loaded whole (and so checked)
        takes only what follows."""
        return cast(list[Stored], list(self.events.get(stream_id, gt=version or None)))

    def commit(self, records: Sequence[Stored], *, tables: Iterable[UUID] = ()) -> list[Stored]:
        """Store ``records`` in one transaction, the last of each stream
        signed, and return them as stored; or raise :class:`Conflict` if
        another writer stored events at any of their positions first,
        :class:`Fenced` if this process no longer holds the lease of one of
        ``tables`` (the tables they are written for), or :class:`StoreFull`
        if the disk is full (nothing stored in any case)."""
        signed = sign(records, self.signer)
        rows = [self.mapper.to_stored_event(record) for record in signed]
        try:
            self.group_commit([Write(rows, self.owner.fence(tables))])
        except IntegrityError as e:
            metrics.STORE_ERRORS.labels("conflict").inc()
            raise Conflict("another writer changed these streams first") from e
        except PersistenceError as e:
            if fenced(e):
                metrics.STORE_ERRORS.labels("fenced").inc()
                raise Fenced("this process no longer holds the lease of a table") from e
            full = disk_full(e)
            metrics.STORE_ERRORS.labels("disk_full" if full else "database").inc()
            if not full:
                raise
            self.full.began(e)
            raise StoreFull("the store cannot write: its disk is full") from e
        self.full.ended()
        return signed
