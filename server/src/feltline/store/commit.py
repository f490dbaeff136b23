"""Group commit: one transaction for the saves of many concurrent callers.

Every commit waits on the disk, and a PostgreSQL application recorder also
locks the events table for each insert, so saves from many tables would
queue behind one another one commit at a time. Here a caller that arrives
while a commit is in flight waits; when it ends, one waiting caller commits
everything queued meanwhile in one transaction, and each caller returns only
once its own records are committed. Durability is unchanged; the commits
are fewer. If a batch fails (one caller's records conflict, say), each
caller's records are saved again on their own, so that only the callers at
fault see an error.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

R = TypeVar("R")


@dataclass(eq=False)
class _Request(Generic[R]):
    records: Sequence[R]
    done: bool = False
    error: Exception | None = None


class GroupCommit(Generic[R]):
    """Saves through ``save``, which must store its records in one
    transaction or not at all. ``transactions`` and ``requests`` count
    what it did, for measuring the batching."""

    def __init__(self, save: Callable[[Sequence[R]], object]) -> None:
        self._save = save
        self._changed = threading.Condition()
        self._queue: list[_Request[R]] = []
        self._committing = False
        self.transactions = 0
        self.requests = 0

    def __call__(self, records: Sequence[R]) -> None:
        """Store ``records`` in one transaction, perhaps with others' records;
        return once committed, or raise what storing them alone raised."""
        request = _Request(records)
        with self._changed:
            self._queue.append(request)
            while self._committing and not request.done:
                self._changed.wait()
            leading = not request.done
            if leading:
                self._committing = True
                batch, self._queue = self._queue, []
        if leading:
            try:
                self._commit(batch)
            finally:
                with self._changed:
                    for unfinished in (r for r in batch if not r.done):
                        unfinished.error = InterruptedError("the commit was interrupted")
                        unfinished.done = True
                    self._committing = False
                    self._changed.notify_all()
        if request.error is not None:
            raise request.error

    def _commit(self, batch: list[_Request[R]]) -> None:
        try:
            self._store([r for request in batch for r in request.records], len(batch))
        except Exception as e:
            if len(batch) == 1:
                batch[0].error = e
            else:
                for request in batch:
                    try:
                        self._store(request.records, 1)
                    except Exception as alone:
                        request.error = alone
        for request in batch:
            request.done = True

    def _store(self, records: Sequence[R], requests: int) -> None:
        self._save(records)
        self.transactions += 1
        self.requests += requests
