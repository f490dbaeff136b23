"""A table's stored records, read once per change and shared by its watchers.

Every watcher of a table wants the same records after every change: read
each for itself, a table with four watchers would read and decode the store
four times per action, and the watchers of busy tables would queue for the
store's connections ahead of the players' own requests. A :class:`Feed`
reads the table's stream and its latest hand once when the table changes,
and hands out slices of what it read. What it hands out still comes from
the store, so cursors keep working across restarts, and records written by
another server process reach it too: a feed that has not been told of a
change reads the store again once its reading is ``fresh`` seconds old.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from uuid import UUID

from feltline.engine.events import Event
from feltline.engine.table import HandDealt
from feltline_protos.v1 import events_pb2

FRESH = 0.25  # seconds a reading serves without a change announced
KEEP = 1024  # table records kept; a watcher further behind reads the store


@dataclass(frozen=True)
class Stored:
    """One stored event of a table or a hand, decoded: its position in its
    stream, the request it was filed under and, for hand events, its time.

    ``shown`` keeps the message each watcher was sent, whole or redacted,
    so that a table's watchers build each once rather than once each."""

    position: int
    event: Event
    command_id: str
    at: int | None = None
    shown: dict[bool, events_pb2.Event] = field(default_factory=dict, compare=False, repr=False)


TableReader = Callable[[UUID, int], list[Stored]]
HandReader = Callable[[UUID, int, int], list[Stored | None]]


class Feed:
    """The table's records since ``first`` and its latest hand's, as last read.

    ``read_table(table_id, after)`` and ``read_hand(table_id, number, after)``
    read the store; ``version()`` is the count of changes announced for the
    table, which a reading remembers to know when it is out of date.
    """

    def __init__(
        self,
        table_id: UUID,
        version: Callable[[], int],
        read_table: TableReader,
        read_hand: HandReader,
        *,
        fresh: float = FRESH,
    ) -> None:
        self.table_id = table_id
        self._version = version
        self._read_table = read_table
        self._read_hand = read_hand
        self.fresh = fresh
        self._lock = threading.Lock()
        self._seen = -1
        self._read_at = 0.0
        self._table: list[Stored] = []
        self._first = 1  # the position of _table[0]
        self._number = 0  # the hand in _hand
        self._hand: list[Stored | None] = []

    def table(self, after: int = 0) -> list[Stored]:
        """The table's records after position ``after``."""
        with self._lock:
            self._catch_up()
            if after + 1 >= self._first:
                return self._table[after + 1 - self._first :]
        return self._read_table(self.table_id, after)

    def hand(self, number: int, after: int = 0) -> list[Stored | None]:
        """Hand ``number``'s records after position ``after``; None stands for
        its seal."""
        with self._lock:
            if number > self._number:
                self._number, self._hand = number, []
                self._seen = -1
            self._catch_up()  # which may move on to a newer hand
            if number == self._number:
                return self._hand[after:]
        return self._read_hand(self.table_id, number, after)

    def stale(self) -> bool:
        """Whether the next look would read the store: a hint, for reading
        it off the event loop with :meth:`refresh` first."""
        return self._version() != self._seen or time.monotonic() - self._read_at >= self.fresh

    def refresh(self) -> None:
        """Read what was stored since the last reading, if stale. The writer
        calls it before waking the watchers, so that they find it read."""
        with self._lock:
            self._catch_up()

    def _catch_up(self) -> None:
        """Read what was stored since the last reading, if a change was
        announced since or the reading is no longer fresh."""
        if not self.stale():
            return
        self._seen, self._read_at = self._version(), time.monotonic()
        known = self._first + len(self._table) - 1
        new = self._read_table(self.table_id, known)
        self._table += new
        dealt = [s.event.hand for s in new if isinstance(s.event, HandDealt)]
        if dealt and dealt[-1] > self._number:  # follow the table to its new hand
            self._number, self._hand = dealt[-1], []
        if len(self._table) > KEEP:
            drop = len(self._table) - KEEP // 2
            self._table = self._table[drop:]
            self._first += drop
        if self._number:
            self._hand += self._read_hand(self.table_id, self._number, len(self._hand))
