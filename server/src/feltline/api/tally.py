"""The play a server stores, counted for :mod:`feltline.metrics`: each
move by game and kind, each hand dealt, finished and cancelled, as every
commit at a table is told to the Room's listeners; and, read when
scraped, the tables this process serves, those refused as unreadable,
and when each table with players ready last dealt (a table that stops
dealing while players wait is what an operator must hear of).

It counts what this process commits; a cluster's totals are the sum over
its processes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID

from prometheus_client.core import Metric

from feltline import metrics
from feltline.cardroom.errors import Unreadable
from feltline.cardroom.room import Room
from feltline.cardroom.work import Committed
from feltline.engine.hand.events import Acted, Declared, Drew, HandEnded, HandStarted
from feltline.engine.table.events import HandFinished
from feltline.engine.table.state import Table


class Tally:
    """Counts what each commit at ``room``'s tables did; :meth:`start` has
    it told of them and read at each scrape."""

    def __init__(self, room: Room, clock: Callable[[], float] = time.time) -> None:
        self.room = room
        self.clock = clock
        self._games: dict[UUID, str] = {}
        self._dealt: dict[UUID, float] = {}  # the last hand dealt here, or first seen ready
        self._children: dict[tuple[object, ...], Any] = {}
        self._detach: Callable[[], None] | None = None

    def start(self) -> None:
        self.room.listen(self)
        metrics.TABLES_SERVED.set_function(lambda: len(self.room.served()))
        metrics.TABLES_UNREADABLE.set_function(self.room.unreadable)
        self._detach = metrics.read_at_scrape(self.last_hands)

    def stop(self) -> None:
        if self._detach is not None:
            self._detach()

    def __call__(self, committed: Committed) -> None:
        table_id = committed.table_id
        for _, event in committed.records:
            if isinstance(event, HandStarted):
                game = self._games[table_id] = event.rules.game.value
                self._dealt[table_id] = self.clock()
                self._count(metrics.HANDS_STARTED, game)
            elif isinstance(event, Acted):
                self._count(metrics.ACTIONS, self._game(table_id), event.action.value)
            elif isinstance(event, Drew):
                self._count(metrics.ACTIONS, self._game(table_id), "draw")
            elif isinstance(event, Declared):
                self._count(metrics.ACTIONS, self._game(table_id), "declare")
            elif isinstance(event, HandFinished):
                self._count(metrics.HANDS_FINISHED, self._game(table_id))
            elif isinstance(event, HandEnded) and event.cancelled:
                self._count(metrics.HANDS_CANCELLED, self._game(table_id))

    def _count(self, counter: Any, *labels: str) -> None:
        """Add one to ``counter``'s series for ``labels``, found once."""
        key = (counter, *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = counter.labels(*labels)
        child.inc()

    def _game(self, table_id: UUID) -> str:
        game = self._games.get(table_id)
        if game is None:
            config = self.room.table(table_id).table.config
            assert config is not None  # a table that stores a hand was opened
            game = self._games[table_id] = config.rules.game.value
        return game

    def last_hands(self) -> Iterator[Metric]:
        """``feltline_table_last_hand_timestamp_seconds`` for each table
        with players ready, read now."""
        now = self.clock()
        ready: list[tuple[str, float]] = []
        for table_id in self.room.served():
            try:
                table = self.room.table(table_id).table
            except Unreadable:  # counted as such, never dealt at
                continue
            if table.closed or _ready(table) < 2:
                continue
            ready.append((str(table_id), self._dealt.setdefault(table_id, now)))
        return metrics.last_hands(ready)


def _ready(table: Table) -> int:
    """Players seated who would be dealt in: with chips, not sitting out or leaving."""
    return sum(1 for s in table.seats if s.stack > 0 and not (s.leaving or s.sitting_out))
