"""The register: the cardroom's policy that keeps the transparency log.

Every hand sealed in the store becomes the log's next leaf, in the order
the register finds the seals (each partition of the store's log in its
notification order), whichever process sealed them: the register looks
for seals after the last one it logged in each partition, so a hand
sealed while no register ran, or by another server, is logged by the next
look, and none twice (a second register's append conflicts, and it looks
again). It signs a checkpoint of the tree (:mod:`feltline.audit.checkpoint`)
when asked and, run as a thread (:meth:`Register.run`), at an interval
whenever the tree has grown, and keeps the witnesses' cosignatures of its
checkpoints, so that a checkpoint is served with those it collected. It
serves inclusion proofs of hands and consistency proofs between
checkpoints from the tree it keeps in memory.

A duplicate match's hand is logged only once its deal is revealed (when
the last table ends it): until then its hand is withheld from everyone,
and a leaf would tell the other tables that it ended, and when. Its seal
is stored with the match's ``DealPlayed`` in one commit; the register
holds it, and every seal after it in that partition, until the match
shows the deal revealed, so that what it logs is always a prefix of each
partition and a register started again finds them where it left off.

Only hands are leaves. A table's, an account's or a match's head changes
with every action, so logging heads would cost a leaf per action; a hand
is sealed once, and its seal covers every record of it. A table cut back
or an account rewritten is still found by comparing it with the logged
hands that name it (docs/audit.md, docs/transparency.md).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from uuid import UUID

from eventsourcing.persistence import Notification

from feltline.audit.checkpoint import (
    COSIGNATURE,
    Checkpoint,
    Note,
    NoteError,
    NoteKey,
    cosigned,
    sign,
)
from feltline.audit.codec import decode_event
from feltline.domain.hand import Sealed
from feltline.domain.ids import hand_id, log_id
from feltline.domain.match import MATCH_EVENT_TYPES, DealPlayed, MatchRecord
from feltline.domain.transparency import Log, LogRecord, project
from feltline.store.faults import StoreAway
from feltline.store.log import partition_of
from feltline.store.streams import Conflict, Streams

log = logging.getLogger(__name__)

SEALED = f"{Sealed.__module__}:{Sealed.__qualname__}"
MATCHED = f"{MatchRecord.__module__}:{MatchRecord.__qualname__}"
PAGE = 1000  # seals read at a time
RETRIES = 8
INTERVAL = 10.0  # seconds between checkpoints while hands are being sealed
COSIGNERS = 16  # cosignatures a checkpoint keeps at most


class NotCosigned(Exception):
    """A cosignature the log does not keep: not valid, or not of its checkpoint."""


class NotLogged(Exception):
    """A hand that is not (yet) a leaf of the log, or a checkpoint size the log never had."""


class Register:
    """Keeps the log of one store's :class:`Streams`; thread-safe."""

    def __init__(self, streams: Streams, origin: str = "") -> None:
        self.streams = streams
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self.log = self._load()
        self._stale = False  # the log in memory holds records a failed commit added
        self._positions: list[int] = []  # each partition's last notification looked at
        self._waiting: list[deque[tuple[int, str, str]]] = []  # each's seals read, not logged
        self._dealt: dict[str, tuple[UUID, int]] = {}  # a match's hand: its match and deal
        self._tables: dict[UUID, tuple[UUID, ...]] = {}  # each match's tables
        stored = (
            Note.parse(self.log.checkpoints[0][1]).checkpoint.origin if self.log.checkpoints else ""
        )
        self.origin = stored or origin or f"feltline/{streams.signer.public_hex[:16]}"

    @property
    def verifier_key(self) -> str:
        """The note verifier key its checkpoints are signed with (C2SP signed-note)."""
        return NoteKey.of(self.origin, self.streams.signer).vkey

    def _current(self) -> Log:
        """The log, read again first if a commit failed and it could not be
        read then (the database away): records added for a commit that was
        never stored must not be built on, or served."""
        if self._stale:
            self.log = self._load()
            self._stale = False
        return self.log

    def _load(self) -> Log:
        self._positions = []  # worked out again from the leaves loaded (and the seals waiting)
        # Read afresh, never from the repository's cache: the register grows
        # its Log in place, records a conflict then refused included.
        loaded = project(None, self.streams.events.get(log_id()))  # type: ignore[arg-type]
        if loaded is None:
            return Log()
        self.streams.vouch("log", loaded.id, loaded.signer)
        return loaded

    # ---- keeping the log

    def catch_up(self) -> int:
        """Log every hand sealed since the last one logged; how many."""
        with self._lock:
            return self._catch_up()

    def _catch_up(self) -> int:
        self._current()
        for _ in range(RETRIES):
            records = self._leaves()
            if not records:
                return 0
            if self._commit(records):
                return len(records)
        raise Conflict("the transparency log kept changing under the register")

    def _leaves(self) -> list[LogRecord]:
        """Records for the seals stored since the last look, added to the
        log uncommitted (:meth:`_commit` reloads it if they are not stored).
        The store's log may be in partitions, each in its own commit order
        (:mod:`feltline.store.log`): each is followed from its own position,
        and its seals logged in order up to one of a deal not yet revealed."""
        log = self.streams.partitioned
        if len(self._positions) != log.partitions:
            self._positions = [0] * log.partitions
            self._waiting = [deque() for _ in range(log.partitions)]
            for placed in self.log.notified:
                p = partition_of(placed, log.partitions)
                self._positions[p] = max(self._positions[p], placed)
        for p, head in enumerate(log.heads()):
            while page := log.page(p, self._positions[p], head, PAGE):
                for notification in page:
                    if notification.topic == SEALED:
                        hand = str(notification.originator_id)
                        if hand not in self.log.index:
                            seal = self.streams.mapper.to_domain_event(notification)
                            assert isinstance(seal, Sealed)
                            self._waiting[p].append((notification.id, hand, seal.link))
                    elif notification.topic == MATCHED:
                        self._played(notification)
                self._positions[p] = page[-1].id
        records: list[LogRecord] = []
        for waiting in self._waiting:
            while waiting and self._shown(waiting[0][1]):
                placed, hand, link = waiting.popleft()
                record = self.log.logged(hand, link, placed)
                self.log.add(record, check=False)
                records.append(record)
        return records

    def _played(self, notification: Notification) -> None:
        """Note the hand a match's ``DealPlayed`` ends (stored with its seal)."""
        record = self.streams.mapper.to_domain_event(notification)
        if not isinstance(record, MatchRecord) or record.type != DealPlayed.__name__:
            return
        played = decode_event(record.type, record.version, record.data, MATCH_EVENT_TYPES)
        assert isinstance(played, DealPlayed)
        match = record.originator_id
        if match not in self._tables:
            self._tables[match] = self.streams.match(match).match.tables
        table = self._tables[match][played.table]
        self._dealt[str(hand_id(table, played.deal))] = match, played.deal

    def _shown(self, hand: str) -> bool:
        """Whether the hand may be a leaf: any hand but a match's deal not yet revealed."""
        dealt = self._dealt.get(hand)
        if dealt is None:
            return True
        match, deal = dealt
        if len(self.streams.match(match).match.revealed) < deal:
            return False
        del self._dealt[hand]
        return True

    def _commit(self, records: list[LogRecord]) -> bool:
        """Store ``records``, already added to the log; on a conflict (another
        register logged first) reload the log and say so. On any other
        failure the log is read again by the next call, whatever it was."""
        self._stale = True
        try:
            stored = self.streams.commit(records)
        except Conflict:
            self._current()
            return False
        self._stale = False
        last = stored[-1]
        self.log.signer = last.signed_by if hasattr(last, "signed_by") else ""
        return True

    def checkpoint(self) -> str:
        """The newest checkpoint, after logging every sealed hand and signing
        a new one if the tree grew since the last (or there is none)."""
        with self._lock:
            for _ in range(RETRIES):
                self._catch_up()
                size = self.log.tree.size
                if self.log.checkpoints and self.log.checkpoints[-1][0] == size:
                    return self.log.checkpoints[-1][1]
                root = self.log.tree.root()
                note = sign(Checkpoint(self.origin, size, root), self.origin, self.streams.signer)
                record = self.log.signed(size, root, note.render())
                self.log.add(record, check=False)
                if self._commit([record]):
                    return record.note
            raise Conflict("the transparency log kept changing under the register")

    def cosign(self, note: str, witness: str) -> str:
        """Keep the cosignature that ``witness`` (a cosigner's verifier key)
        made of one of the log's checkpoints, and return that checkpoint
        with every cosignature collected; :class:`NotCosigned` if it is
        not a valid cosignature of a checkpoint the log signed."""
        try:
            key = NoteKey.parse(witness)
            given = Note.parse(note)
        except NoteError as e:
            raise NotCosigned(str(e)) from None
        if key.kind != COSIGNATURE or cosigned(given, key) is None:
            raise NotCosigned(f"the note carries no valid cosignature by {witness}")
        try:
            claimed = given.checkpoint.size
        except NoteError as e:
            raise NotCosigned(str(e)) from None
        with self._lock:
            self._current()
            for _ in range(RETRIES):
                found = next(
                    (
                        (size, Note.parse(kept))
                        for size, kept in reversed(self.log.checkpoints)
                        if size == claimed and Note.parse(kept).text == given.text
                    ),
                    None,
                )
                if found is None:
                    raise NotCosigned("the note is not a checkpoint this log signed")
                size, kept = found
                blob = given.signed(key)[0]
                merged = kept.add(key, blob)
                if len(merged.signatures) > COSIGNERS + 1:
                    raise NotCosigned(f"the checkpoint already carries {COSIGNERS} cosignatures")
                if merged == kept:
                    return kept.render()
                record = self.log.cosigned(size, merged.render())
                self.log.add(record, check=False)
                if self._commit([record]):
                    return record.note
            raise Conflict("the transparency log kept changing under the register")

    def latest(self) -> str | None:
        """The newest stored checkpoint, or None before the first."""
        with self._lock:
            self._current()
            return self.log.checkpoints[-1][1] if self.log.checkpoints else None

    def heard(self) -> None:
        """A hand may have been sealed: log it soon (from :meth:`run`)."""
        self._wake.set()

    def run(self, interval: float = INTERVAL) -> None:
        """Log sealed hands as they are heard of, and sign a checkpoint every
        ``interval`` seconds while the tree grows, until :meth:`stop`."""
        due = time.monotonic() + interval
        while not self._stop.is_set():
            self._wake.wait(max(0.0, due - time.monotonic()))
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                if time.monotonic() >= due:
                    self._due()
                    due = time.monotonic() + interval
                else:
                    self.catch_up()
            except StoreAway:  # logged once by the store (store_away): the next round tries again
                pass
            except Conflict as e:  # other processes' registers logged first: the next round
                log.warning("register_behind: %s", e)
            except Exception:
                log.exception("the register could not keep the transparency log")

    def _due(self) -> None:
        """A checkpoint at the interval: only if the tree grew since the
        last (an empty log is not signed for: nothing to witness, and a
        store with no hands stays unsigned)."""
        with self._lock:
            self._catch_up()
            if self.log.tree.size == self._size():
                return
        self.checkpoint()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    # ---- proofs

    def inclusion(self, hand: UUID, size: int | None = None) -> tuple[int, int, list[bytes]]:
        """Where the hand is, the tree size (the newest checkpoint's, by
        default) and the hand's audit path in that tree."""
        with self._lock:
            self._current()
            index = self.log.index.get(str(hand))
            size = self._size() if size is None else size
            if index is None or index >= size:
                raise NotLogged(f"hand {hand} is not in the log's first {size} leaves")
            return index, size, self.log.tree.inclusion(index, size)

    def consistency(self, first: int, second: int) -> list[bytes]:
        """The proof that the log's tree of ``second`` leaves extends its tree of ``first``."""
        with self._lock:
            self._current()
            if not 0 <= first <= second <= self._size():
                raise NotLogged(f"no checkpoint of the log proves {first} to {second} leaves")
            return self.log.tree.consistency(first, second)

    def size(self) -> int:
        """The newest checkpoint's tree size (0 before the first)."""
        with self._lock:
            self._current()
            return self._size()

    def note(self, size: int) -> str:
        """The newest checkpoint of a tree of ``size`` leaves."""
        with self._lock:
            self._current()
            for signed, note in reversed(self.log.checkpoints):
                if signed == size:
                    return note
        raise NotLogged(f"no checkpoint of the log is of {size} leaves")

    def seal(self, index: int) -> str:
        """The final link of the hand at leaf ``index``."""
        with self._lock:
            self._current()
            return self.log.seals[index]

    def _size(self) -> int:
        return self.log.checkpoints[-1][0] if self.log.checkpoints else 0
