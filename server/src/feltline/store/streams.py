"""The streams the cardroom keeps, stored: one ``eventsourcing`` application
over every table, hand, account, match, tournament and the server's keys.

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
from functools import partial
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
from feltline.domain.invite import InviteUsed
from feltline.domain.keys import KeyRecord
from feltline.domain.match import MatchRecord, MatchStream
from feltline.domain.match import project as project_match
from feltline.domain.table import TableRecord, TableStream
from feltline.domain.table import project as project_table
from feltline.domain.tournament import TournamentRecord, TournamentStream
from feltline.domain.tournament import project as project_tournament
from feltline.domain.transparency import LogRecord
from feltline.store.commit import GroupCommit
from feltline.store.elsewhere import Elsewhere
from feltline.store.faults import Episode, Reported, StoreFull, disk_full
from feltline.store.leases import (
    LEASE,
    PROCESS,
    Fence,
    Fenced,
    FencedRecorder,
    Leases,
    Owner,
    PartitionsError,
    SoleOwner,
    fenced,
)
from feltline.store.log import log_of
from feltline.store.notices import Notices
from feltline.store.preflight import connect_postgres

Stored = (
    StoredHandEvent
    | TableRecord
    | AccountEvent
    | KeyRecord
    | MatchRecord
    | TournamentRecord
    | LogRecord
    | InviteUsed
)
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


def settled(recorder: ApplicationRecorder, env: Mapping[str, str]) -> ApplicationRecorder:
    """``recorder`` with its store's partitions read, or made for a new
    store as ``FELTLINE_PARTITIONS`` asks (docs/store.md, "Partitions")."""
    if isinstance(recorder, FencedRecorder):
        wanted = env.get("FELTLINE_PARTITIONS", "").strip()
        if wanted and not wanted.isdigit():
            raise PartitionsError(f"FELTLINE_PARTITIONS is a number of partitions, not {wanted!r}")
        recorder.settle(int(wanted) if wanted else None)
    return recorder


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
        self.partitioned = log_of(self.recorder)
        self.group_commits: tuple[GroupCommit[Write], ...] = tuple(
            GroupCommit(partial(self._insert, p)) for p in range(self.partitioned.partitions)
        )
        self.elsewhere = Elsewhere(self.partitioned.heads, self.partitioned.partitions)
        self.reported = Reported()
        self.full = Episode()

    def construct_recorder(self) -> ApplicationRecorder:
        """The recorder, its tables made if missing and its partitions
        settled (:func:`settled`), in turn (:func:`in_turn`)."""
        with in_turn(Environment(self.name, self.env)):
            return settled(super().construct_recorder(), self.env)

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

    def _insert(self, partition: int, writes: Sequence[Write]) -> None:
        rows = [row for write in writes for row in write.rows]
        epochs = {t: e for w in writes if w.fence is not None for t, e in w.fence.epochs.items()}
        fence = Fence(epochs) if epochs else None
        self.elsewhere.storing(len(rows))
        try:
            ids = self.recorder.insert_events(rows, fence=fence, partition=partition)
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

    def tournament(self, tournament_id: UUID) -> TournamentStream:
        """The stored tournament, or a new one if none is stored, checked like a table."""
        with self.reported.reading(tournament_id):
            try:
                stream: TournamentStream = self.repository.get(
                    tournament_id, projector_func=project_tournament
                )
            except AggregateNotFoundError:
                return TournamentStream.new(tournament_id)
            self.vouch("tournament", tournament_id, stream.signer)
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

    def tables(self, after: Sequence[int] = ()) -> tuple[list[UUID], tuple[int, ...]]:
        """The tables opened after position ``after`` (each partition's last
        notification read; none: from the start), in the order found, and
        the position a later reading starts after."""
        return self._begun(TableRecord, after)

    def tournaments(self, after: Sequence[int] = ()) -> tuple[list[UUID], tuple[int, ...]]:
        """The tournaments created after position ``after``, as :meth:`tables`."""
        return self._begun(TournamentRecord, after)

    def _begun(
        self, kind: type[TableRecord | TournamentRecord], after: Sequence[int]
    ) -> tuple[list[UUID], tuple[int, ...]]:
        topic = f"{kind.__module__}:{kind.__qualname__}"
        found: list[UUID] = []
        positions = list(after) or [0] * self.partitioned.partitions
        for p, head in enumerate(self.partitioned.heads()):
            while page := self.partitioned.page(p, positions[p], head, PAGE):
                found += [
                    UUID(str(n.originator_id))
                    for n in page
                    if n.topic == topic and n.originator_version == 1
                ]
                positions[p] = page[-1].id
        return found, tuple(positions)

    def after(self, stream_id: UUID, version: int) -> list[Stored]:
        """The stream's records after position ``version``, decoded but not
        checked: a reader of a stream already loaded whole (and so checked)
        takes only what follows."""
        return cast(list[Stored], list(self.events.get(stream_id, gt=version or None)))

    def _home(self, tables: Sequence[UUID], records: Sequence[Stored]) -> int:
        """The partition a commit is stored in: this process's own, once it
        knows its place among the live processes (its rank, modulo the
        partitions), so that processes append without waiting for one
        another's turns; before that, its first table's, or its first
        stream's when it is for no table (an account's, a match's)."""
        k = self.partitioned.partitions
        if k == 1:
            return 0
        rank = self.owner.rank
        if rank is not None:
            return rank % k
        assert isinstance(self.recorder, FencedRecorder)
        return self.recorder.home(tables[0] if tables else records[0].originator_id)

    def commit(self, records: Sequence[Stored], *, tables: Iterable[UUID] = ()) -> list[Stored]:
        """Store ``records`` in one transaction, the last of each stream
        signed, and return them as stored; or raise :class:`Conflict` if
        another writer stored events at any of their positions first,
        :class:`Fenced` if this process no longer holds the lease of one of
        ``tables`` (the tables they are written for), or :class:`StoreFull`
        if the disk is full (nothing stored in any case)."""
        signed = sign(records, self.signer)
        rows = [self.mapper.to_stored_event(record) for record in signed]
        tables = tuple(tables)
        try:
            self.group_commits[self._home(tables, signed)]([Write(rows, self.owner.fence(tables))])
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
