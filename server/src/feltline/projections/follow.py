"""Following the notification log: each projection from its own tracked
position, a page of notifications per transaction.

The library's ``ProjectionRunner`` subscribes through the recorder, and
the SQLite recorder has no subscription, so this polls
``select_notifications`` instead, on both stores; a server in the same
process pokes it after each commit, so it waits for nothing. On PostgreSQL
polling skips no late commit: every insert holds one lock per events table
to its commit (:class:`feltline.store.leases.FencedRecorder`), so
notification ids become visible in the order they were issued, and a gap in
them is a rolled-back transaction that never fills (see
``docs/projections.md``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import structlog
from eventsourcing.application import Application
from eventsourcing.persistence import ApplicationRecorder, OperationalError, Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import Environment

from feltline.projections.view import Moved, View
from feltline.store.streams import in_turn

PAGE = 500
log = structlog.get_logger("feltline.projections")


@dataclass(frozen=True)
class Lag:
    """How far a projection is behind the log: notifications not yet
    applied, and seconds since the oldest of them was first seen."""

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
        self._positions: dict[str, int] = {}
        self._seen: list[tuple[int, float]] = []  # (head, first seen) not yet applied by all
        self._head = 0
        self._lock = threading.Lock()
        self.poke = threading.Event()
        self.stopping = threading.Event()

    def view(self, projection: Projection[Any]) -> View:
        view = projection.view
        assert isinstance(view, View)
        return view

    def step(self, limit: int = PAGE) -> int:
        """Apply up to ``limit`` notifications to each projection; the
        number applied by the one furthest behind. Projections at the same
        position share one read of the page and its events, so each
        notification is fetched and mapped once however many views use it."""
        self._look()
        at: dict[int, list[Projection[Any]]] = {}
        for projection in self.projections:
            at.setdefault(self._position(self.view(projection)), []).append(projection)
        most = 0
        for position, together in at.items():
            page = self.app.recorder.select_notifications(position + 1, limit)
            if not page:
                continue
            events = [
                (self.app.mapper.to_domain_event(n), Tracking(self.app.name, n.id)) for n in page
            ]
            sharing: dict[int, list[Projection[Any]]] = {}
            for projection in together:
                sharing.setdefault(id(self.view(projection).connections), []).append(projection)
            for projections in sharing.values():
                self._apply(projections, position, events)
            most = max(most, len(page))
        return most

    def _apply(
        self,
        projections: Sequence[Projection[Any]],
        position: int,
        events: Sequence[tuple[Any, Tracking]],
    ) -> None:
        """``events`` into the views of ``projections``, which share their
        connections, in one transaction."""
        views = [self.view(p) for p in projections]
        try:
            with ExitStack() as batches:
                first, *others = views
                batches.enter_context(first.batch((self.app.name, position)))
                for view in others:
                    batches.enter_context(view.batch((self.app.name, position), within=first))
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
                self._positions[view.name] = events[-1][1].notification_id

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
            except OperationalError as e:  # the store busy or away: try again soon
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
            position = view.position(self.app.name)
            first = next((at for head, at in self._seen if head > position), now)
            lags.append(Lag(view.name, position, self._head, now - first))
        return lags

    def _look(self) -> None:
        head = int(self.app.recorder.max_notification_id() or 0)
        with self._lock:
            self._saw(head)

    def _saw(self, head: int) -> None:
        now = time.monotonic()
        if head > self._head:
            self._head = head
            self._seen.append((head, now))
        applied = min(
            (self._positions.get(self.view(p).name, 0) for p in self.projections), default=0
        )
        self._seen = [(h, at) for h, at in self._seen if h > applied]

    def _position(self, view: View) -> int:
        if view.name not in self._positions:
            self._positions[view.name] = view.position(self.app.name)
        return self._positions[view.name]


class Log(Application[Any]):
    """The cardroom's log, opened only to be read: its name picks the
    cardroom's events table, and reading needs no signing key."""

    name = "Cardroom"

    def construct_recorder(self) -> ApplicationRecorder:
        """The recorder, made in turn with the servers' (:func:`in_turn`)."""
        with in_turn(Environment(self.name, self.env)):
            return super().construct_recorder()
