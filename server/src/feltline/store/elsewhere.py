"""Whether another writer stored events since this process last looked.

Several server processes may share one store, and each must notice what
the others stored, for its watchers and for the copies of tables it keeps.
Asking the store about every table it serves, every fraction of a second,
costs a query per table even when nothing happened anywhere, which is
most of the time at a table of people. One question serves them all: the
store numbers every event it stores (its notification id), so if the
highest number of each partition of the log (:mod:`feltline.store.log`)
grew by exactly as many events as this process stored there since, nobody
else wrote. Gaps in the numbering (a PostgreSQL sequence
skips the numbers of a transaction that failed) only make the answer a
cautious yes.

A look taken while this process commits can find the store's number
already past the commit's rows before this process has learnt their
numbers; rows it is still storing may account for that much of the
difference, so the look leaves it for a later one to settle instead of
calling it another's (which would have every table it serves read the
store again). Only a difference greater than what is in flight is news
at once; meanwhile :attr:`Elsewhere.unsettled` says a difference is
pending, for a reader that must not refuse a request on a copy another
writer may have changed.

Several readers in one process ask (the Room before each request, the
action clock on each tick), and an answer must not be used up by the first
to ask: :meth:`Elsewhere.look` counts the times anyone else was seen to
store something, and each reader compares that count with the last it saw.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from feltline.store.log import ordinal, partition_of


class Elsewhere:
    """Counts this process's stored events against the highest notification
    id of each of the store's partitions, ``heads()``."""

    def __init__(self, heads: Callable[[], Sequence[int]], partitions: int = 1) -> None:
        self._heads = heads
        self._k = partitions
        self._lock = threading.Lock()
        self._mark = tuple(heads())
        self._ours: list[int] = []  # ids stored here since the mark
        self._unknown = False
        self._in_flight = 0  # rows this process is storing, their ids not yet known
        self.unsettled = False  # the last look left a difference for a later one
        self.epoch = 0  # times another writer was seen to store something

    def storing(self, rows: int) -> None:
        """This process is about to store ``rows`` rows; :meth:`stored` or
        :meth:`failed` follows."""
        with self._lock:
            self._in_flight += rows

    def stored(self, ids: Sequence[int] | None, rows: int = 0) -> None:
        """This process just committed ``rows`` rows (announced by
        :meth:`storing`) with these notification ids (None: the store did
        not say, so the next look answers yes)."""
        with self._lock:
            self._in_flight -= rows
            if ids is None:
                self._unknown = True
            else:
                self._ours.extend(ids)

    def failed(self, rows: int) -> None:
        """Storing ``rows`` rows failed: none of them was stored."""
        with self._lock:
            self._in_flight -= rows

    def look(self) -> int:
        """Ask the store, and return :attr:`epoch`: a reader that saw a
        lower count since its last look knows someone else stored events."""
        current = tuple(self._heads())
        k = self._k
        with self._lock:
            ours = [i for i in self._ours if i > self._mark[partition_of(i, k)]]
            mine = sum(1 for i in ours if i <= current[partition_of(i, k)])
            grew = sum(
                ordinal(c, k) - ordinal(m, k) for c, m in zip(current, self._mark, strict=True)
            )
            unexplained = grew - mine
            self.unsettled = not self._unknown and 0 < unexplained <= self._in_flight
            if self.unsettled:
                self._ours = ours  # perhaps ours in flight: a later look settles it
                return self.epoch
            if self._unknown or unexplained:
                self.epoch += 1
            self._ours = [i for i in ours if i > current[partition_of(i, k)]]
            self._mark, self._unknown = current, False
            return self.epoch
