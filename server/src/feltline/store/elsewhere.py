"""Whether another writer stored events since this process last looked.

Several server processes may share one store, and each must notice what
the others stored, for its watchers and for the copies of tables it keeps.
Asking the store about every table it serves, every fraction of a second,
costs a query per table even when nothing happened anywhere, which is
most of the time at a table of people. One question serves them all: the
store numbers every event it stores (its notification id), so if the
highest number grew by exactly as many events as this process stored
since, nobody else wrote. Gaps in the numbering (a PostgreSQL sequence
skips the numbers of a transaction that failed) only make the answer a
cautious yes.

Several readers in one process ask (the Room before each request, the
action clock on each tick), and an answer must not be used up by the first
to ask: :meth:`Elsewhere.look` counts the times anyone else was seen to
store something, and each reader compares that count with the last it saw.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence


class Elsewhere:
    """Counts this process's stored events against the store's highest
    notification id, ``highest()`` (None while the store is empty)."""

    def __init__(self, highest: Callable[[], int | None]) -> None:
        self._highest = highest
        self._lock = threading.Lock()
        self._mark = highest() or 0
        self._ours: list[int] = []  # ids stored here since the mark
        self._unknown = False
        self.epoch = 0  # times another writer was seen to store something

    def stored(self, ids: Sequence[int] | None) -> None:
        """This process just committed events with these notification ids
        (None: the store did not say, so the next look answers yes)."""
        with self._lock:
            if ids is None:
                self._unknown = True
            else:
                self._ours.extend(ids)

    def look(self) -> int:
        """Ask the store, and return :attr:`epoch`: a reader that saw a
        lower count since its last look knows someone else stored events."""
        current = self._highest() or 0
        with self._lock:
            ours = [i for i in self._ours if i > self._mark]
            mine = sum(1 for i in ours if i <= current)
            if self._unknown or current - self._mark != mine:
                self.epoch += 1
            self._ours = [i for i in ours if i > current]
            self._mark, self._unknown = current, False
            return self.epoch
