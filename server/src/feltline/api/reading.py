"""A stream's stored records, read once per change and shared by its watchers.

A table's :class:`~feltline.api.feed.Feed` and a tournament's
:class:`~feltline.api.board.Board` both keep the records last read of one
stream, swapped in whole so that watchers never wait on the lock a reading
holds while it reads; a watcher further behind than what is kept reads the
store itself. What a record is, how many are kept and what else a reading
follows (a feed's hands) are theirs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Self, TypeVar
from uuid import UUID

R = TypeVar("R")


@dataclass(frozen=True)
class Reading(Generic[R]):
    """The records from position ``first``, current as of ``as_of`` (None: never read)."""

    records: list[R] = field(default_factory=list)
    first: int = 1
    as_of: Hashable = None
    behind: bool = False  # records were stored that it lacks

    @property
    def last(self) -> int:
        """The position of the last record read."""
        return self.first + len(self.records) - 1

    def kept(self, keep: int) -> Self:
        """This reading with no more than ``keep`` records: past that, the
        older half goes, so that trimming is not done at every change."""
        if len(self.records) <= keep:
            return self
        drop = len(self.records) - keep // 2
        return replace(self, records=self.records[drop:], first=self.first + drop)


G = TypeVar("G", bound=Reading[Any])  # a reading of records R, or more


class Shared(Generic[R, G]):
    """Stream ``key``'s records as last read. ``read(key, after)`` reads the
    store; ``as_of()`` says what a reading made now would be current as of."""

    def __init__(
        self,
        key: UUID,
        read: Callable[[UUID, int], list[R]],
        as_of: Callable[[], Hashable],
        reading: G,
        keep: int,
    ) -> None:
        self.key = key
        self._read_records = read
        self._as_of = as_of
        self._keep = keep
        self._lock = threading.Lock()  # one reading at a time
        self._reading = reading

    def after(self, position: int = 0) -> list[R]:
        """The records after ``position``."""
        r = self._reading
        if r.as_of is not None and position + 1 >= r.first:
            return r.records[position + 1 - r.first :]
        return self._read_records(self.key, position)

    def stale(self) -> bool:
        """Whether the reading may be out of date: never read, behind what
        this process stored, or older than a change since."""
        r = self._reading
        return r.behind or r.as_of != self._as_of()

    def refresh_if_stale(self) -> None:
        """Read what was stored since the last reading, unless another
        watcher did while this one waited: woken together, they read once."""
        if not self.stale():
            return
        with self._lock:
            if self.stale():
                self._read()

    def _read(self) -> None:
        """Read what was stored since the last reading; its lock held."""
        r = self._reading
        as_of = self._as_of()  # before reading: a later write makes it stale again
        self._reading = self._taken(r, self._read_records(self.key, r.last), as_of)

    def _taken(self, r: G, new: list[R], as_of: Hashable) -> G:
        """Reading ``r`` with the ``new`` records read as of ``as_of``."""
        return replace(r, records=r.records + new, as_of=as_of, behind=False).kept(self._keep)
