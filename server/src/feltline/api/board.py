"""A tournament's stored events, read once per change and shared by its
watchers: the tournament board everyone in the room reads.

Every watcher of a tournament wants the same records after every change,
and every one of them is public, so a :class:`Board` reads what was stored
since its last reading once, and each record's message is made once
for all. What it hands out still comes from the store, so cursors keep
working across restarts, and records written by another process (which
owns a table where a hand ended) reach it once the Room has seen that
process store something. A watcher further behind than the board keeps
reads the store itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from uuid import UUID

from feltline.engine.hand.events import Event

KEEP = 4096  # records kept; a watcher further behind reads the store


@dataclass(frozen=True)
class Posted:
    """One stored tournament event at its position, and the message its
    watchers are sent of it, made once for all (``sent`` empty until then;
    it holds None for an event never sent)."""

    position: int
    event: Event
    sent: list[object] = field(default_factory=list, compare=False, repr=False)


Reader = Callable[[UUID, int], list[Posted]]


@dataclass(frozen=True)
class Reading:
    """The records from position ``first``, current as of ``as_of`` (None: never read)."""

    records: list[Posted] = field(default_factory=list)
    first: int = 1
    as_of: Hashable = None


class Board:
    """The tournament's records as last read. ``read(key, after)`` reads
    the store; ``as_of()`` says what a reading made now is current as of."""

    def __init__(self, key: UUID, read: Reader, as_of: Callable[[], Hashable]) -> None:
        self.key = key
        self._read = read
        self._as_of = as_of
        self._lock = threading.Lock()  # one reading at a time
        self._reading = Reading()

    def after(self, position: int) -> list[Posted]:
        """The records after ``position``."""
        r = self._reading
        if r.as_of is not None and position + 1 >= r.first:
            return r.records[position + 1 - r.first :]
        return self._read(self.key, position)

    def stale(self) -> bool:
        return self._reading.as_of != self._as_of()

    def refresh_if_stale(self) -> None:
        """Read what was stored since the last reading, unless another
        watcher did while this one waited: woken together, they read once."""
        if not self.stale():
            return
        with self._lock:
            r = self._reading
            as_of = self._as_of()  # before reading: a later write makes it stale again
            if r.as_of == as_of:
                return
            records = r.records + self._read(self.key, r.first + len(r.records) - 1)
            first = r.first
            if len(records) > KEEP:
                drop = len(records) - KEEP // 2
                records, first = records[drop:], first + drop
            self._reading = Reading(records, first, as_of)
