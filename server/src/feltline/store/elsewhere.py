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

    def stored(self, ids: Sequence[int] | None) -> None:
        """This process just committed events with these notification ids
        (None: the store did not say, so the next look answers yes)."""
        with self._lock:
            if ids is None:
                self._unknown = True
            else:
                self._ours.extend(ids)

    def moved(self) -> bool:
        """Whether anyone else may have stored events since the last call."""
        current = self._highest() or 0
        with self._lock:
            ours = [i for i in self._ours if i > self._mark]
            mine = sum(1 for i in ours if i <= current)
            moved = self._unknown or current - self._mark != mine
            self._ours = [i for i in ours if i > current]
            self._mark, self._unknown = current, False
        return moved
