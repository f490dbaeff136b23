"""Following the notification log: each projection from its own tracked
position in each partition of the log, a page of notifications per
transaction.

The library's ``ProjectionRunner`` subscribes through the recorder, and
the SQLite recorder has no subscription, so this polls the log instead, on
both stores; a server in the same process pokes it after each commit, so
it waits for nothing. On PostgreSQL polling skips no late commit: every
insert holds its partition's turn to its commit
(:class:`feltline.store.leases.FencedRecorder`), so notification ids become
visible in each partition in the order they were issued, and a gap in them
is a rolled-back transaction that never fills (see ``docs/projections.md``).

A log of several partitions (:mod:`feltline.store.log`) is read up to each
partition's head, the heads read from one snapshot, and merged so that
every stream's records are applied in their order: a stream's records may
lie in several partitions (an account's buy-ins are stored with the tables
they are for), and a view may fold a stream (a match's standings). Records
of different streams stored in different partitions never depend on one
another in a view (docs/projections.md, "Partitions").
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import structlog
from eventsourcing.application import Application
from eventsourcing.persistence import (
    ApplicationRecorder,
    Notification,
    OperationalError,
    Tracking,
)
from eventsourcing.projection import Projection
from eventsourcing.utils import Environment

from feltline.projections.view import Moved, View
from feltline.store.faults import StoreAway
from feltline.store.log import Log as Partitioned
from feltline.store.log import log_of, ordinal, partition_of, tracking_name
from feltline.store.streams import in_turn, settled

PAGE = 500
PLACES = 100_000  # placements remembered before the memory is cleared
log = structlog.get_logger("feltline.projections")

Positions = tuple[int, ...]  # the last notification applied, per partition


@dataclass(frozen=True)
class Lag:
    """How far a projection is behind the log: notifications not yet
    applied, and seconds since the oldest of them was first seen. Both
    counts are over every partition of the log."""

    name: str
    position: int
    head: int
    seconds: float

    @property
    def events(self) -> int:
        return max(0, self.head - self.position)


class Follower:
    """Applies the log of ``app`` to ``projections``; :meth:`step` once,
    :meth:`run` until stopped."""

    def __init__(self, app: Application[Any], projections: Sequence[Projection[Any]]) -> None:
        self.app, self.projections = app, tuple(projections)
        self.log: Partitioned = log_of(app.recorder)
        self._positions: dict[str, Positions] = {}
        self._seen: list[tuple[int, float]] = []  # (head, first seen) not yet applied by all
        self._head = 0
        self._places: dict[tuple[UUID, int], int] = {}  # (stream, version): notification id
        self._lock = threading.Lock()
        self.poke = threading.Event()
        self.stopping = threading.Event()

    def view(self, projection: Projection[Any]) -> View:
        view = projection.view
        assert isinstance(view, View)
        return view

    def names(self) -> list[str]:
        """The names each partition's position is tracked under."""
        return [tracking_name(self.app.name, p) for p in range(self.log.partitions)]

    def step(self, limit: int = PAGE) -> int:
        """Apply up to ``limit`` notifications to each projection; the
        number applied by the one furthest behind. Projections at the same
        position share one read of the page and its events, so each
        notification is fetched and mapped once however many views use it."""
        heads = self._look()
        at: dict[Positions, list[Projection[Any]]] = {}
        for projection in self.projections:
            at.setdefault(self._position(self.view(projection)), []).append(projection)
        most = 0
        names = self.names()
        for positions, together in at.items():
            page = self._page(positions, heads, limit)
            if not page:
                continue
            events = [
                (self.app.mapper.to_domain_event(n), Tracking(names[p], n.id)) for p, n in page
            ]
            sharing: dict[int, list[Projection[Any]]] = {}
            for projection in together:
                sharing.setdefault(id(self.view(projection).connections), []).append(projection)
            after = dict(zip(names, positions, strict=True))
            reached = list(positions)
            for p, n in page:
                reached[p] = n.id
            for projections in sharing.values():
                self._apply(projections, after, events, tuple(reached))
            most = max(most, len(page))
        return most

    def _page(
        self, positions: Positions, heads: Positions, limit: int
    ) -> list[tuple[int, Notification]]:
        """Up to ``limit`` notifications after ``positions``, each stream's
        in its order, with the partition of each."""
        pages = [
            deque(
                self.log.page(p, positions[p], heads[p], limit) if heads[p] > positions[p] else ()
            )
            for p in range(self.log.partitions)
        ]
        if len(pages) == 1:
            return [(0, n) for n in pages[0]]
        if len(self._places) > PLACES:
            self._places.clear()
        for page in pages:
            self._places.update(
                ((UUID(str(n.originator_id)), n.originator_version), n.id) for n in page
            )
        reached = list(positions)
        merged: list[tuple[int, Notification]] = []
        moved = True
        while moved and len(merged) < limit:
            moved = False
            for p, page in enumerate(pages):
                while page and len(merged) < limit and self._follows(page[0], reached):
                    n = page.popleft()
                    merged.append((p, n))
                    reached[p] = n.id
                    moved = True
        return merged

    def _follows(self, n: Notification, reached: list[int]) -> bool:
        """Whether the record before ``n`` in its stream is applied at ``reached``."""
        if n.originator_version == 1:
            return True
        before = (UUID(str(n.originator_id)), n.originator_version - 1)
        placed = self._places.get(before)
        if placed is None:
            placed = self.log.placed(*before)
            if placed is None:  # no record before it: nothing to wait for
                return True
            self._places[before] = placed
        return placed <= reached[partition_of(placed, self.log.partitions)]

    def _apply(
        self,
        projections: Sequence[Projection[Any]],
        after: dict[str, int],
        events: Sequence[tuple[Any, Tracking]],
        reached: Positions,
    ) -> None:
        """``events`` into the views of ``projections``, which share their
        connections, in one transaction."""
        views = [self.view(p) for p in projections]
        try:
            with ExitStack() as batches:
                first, *others = views
                batches.enter_context(first.batch(after))
                for view in others:
                    batches.enter_context(view.batch(after, within=first))
                for event, tracking in events:
                    for projection in projections:
                        projection.process_event(event, tracking)
        except Moved as e:
            log.warning("projection_moved", projections=[v.name for v in views], why=str(e))
            self._forget(views)  # read them again from the store
            return
        except BaseException:
            self._forget(views)
            raise
        with self._lock:
            for view in views:
                self._positions[view.name] = reached

    def _forget(self, views: Sequence[View]) -> None:
        with self._lock:
            for view in views:
                self._positions.pop(view.name, None)

    def catch_up(self) -> None:
        """Apply everything stored so far."""
        while self.step():
            pass

    def run(self, interval: float = 0.05) -> None:
        """Follow until :attr:`stopping` is set, waking on :attr:`poke`."""
        while not self.stopping.is_set():
            try:
                busy = self.step()
            except (OperationalError, StoreAway) as e:  # the store busy or away: try again soon
                log.warning("projection_retry", why=str(e))
                busy = 0
                self.stopping.wait(0.2)
            except Exception:
                log.exception("projection_failed")
                busy = 0
                self.stopping.wait(1.0)
            if not busy:
                self.poke.wait(interval)
                self.poke.clear()

    def lags(self) -> list[Lag]:
        """Each projection's lag behind the head of the log, at the
        position its view has stored (another process may keep it)."""
        self._look()
        now = time.monotonic()
        lags = []
        for projection in self.projections:
            view = self.view(projection)
            position = self._count(view.positions(self.names()))
            first = next((at for head, at in self._seen if head > position), now)
            lags.append(Lag(view.name, position, self._head, now - first))
        return lags

    def _count(self, positions: Positions) -> int:
        """How many notifications lie at or before ``positions``."""
        return sum(ordinal(n, self.log.partitions) for n in positions)

    def _look(self) -> Positions:
        heads = self.log.heads()
        with self._lock:
            self._saw(self._count(heads))
        return heads

    def _saw(self, head: int) -> None:
        now = time.monotonic()
        if head > self._head:
            self._head = head
            self._seen.append((head, now))
        applied = min(
            (self._count(self._positions.get(self.view(p).name, ())) for p in self.projections),
            default=0,
        )
        self._seen = [(h, at) for h, at in self._seen if h > applied]

    def _position(self, view: View) -> Positions:
        if view.name not in self._positions:
            self._positions[view.name] = view.positions(self.names())
        return self._positions[view.name]


class Log(Application[Any]):
    """The cardroom's log, opened only to be read: its name picks the
    cardroom's events table, and reading needs no signing key."""

    name = "Cardroom"

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = dict(env or {})
        if env.get("PERSISTENCE_MODULE") == "eventsourcing.postgres":
            env["APPLICATION_RECORDER_TOPIC"] = "feltline.store.leases:FencedRecorder"
        super().__init__(env)

    def construct_recorder(self) -> ApplicationRecorder:
        """The recorder, made and its partitions read in turn with the
        servers' (:func:`in_turn`)."""
        with in_turn(Environment(self.name, self.env)):
            return settled(super().construct_recorder(), self.env)
