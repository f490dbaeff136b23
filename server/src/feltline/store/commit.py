"""Group commit: one transaction for the saves of many concurrent callers.

Every commit waits on the disk, and a PostgreSQL application recorder also
locks the events table for each insert, so saves from many tables would
queue behind one another one commit at a time. Here a caller that arrives
while a commit is in flight waits; when it ends, one waiting caller commits
everything queued meanwhile in one transaction, and each caller returns only
once its own records are committed. Durability is unchanged; the commits
are fewer. If a batch fails (one caller's records conflict, say), each
caller's records are saved again on their own, so that only the callers at
fault see an error. Each caller's wait and each transaction's size are
observed for Prometheus (:mod:`feltline.metrics`).

Each waiting caller sleeps on its own signal and is woken once: when its
records are committed, or when it is the next to commit. Waking every
waiter after each commit (one shared condition) would have dozens of
threads fight for the GIL to find that only one of them had anything to do.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from feltline import metrics

R = TypeVar("R")


def _held() -> threading.Lock:
    lock = threading.Lock()
    lock.acquire()
    return lock


@dataclass(eq=False)
class _Request(Generic[R]):
    """One caller's records. ``asleep`` is held from the start and released
    once to wake the caller: a bare lock, cheaper to make than an Event."""

    records: Sequence[R]
    asleep: threading.Lock = field(default_factory=_held)
    done: bool = False
    error: Exception | None = None


class GroupCommit(Generic[R]):
    """Saves through ``save``, which must store its records in one
    transaction or not at all. ``transactions`` and ``requests`` count
    what it did, for measuring the batching."""

    def __init__(self, save: Callable[[Sequence[R]], object]) -> None:
        self._save = save
        self._lock = threading.Lock()
        self._queue: list[_Request[R]] = []
        self._committing = False
        self.transactions = 0
        self.requests = 0

    def __call__(self, records: Sequence[R]) -> None:
        """Store ``records`` in one transaction, perhaps with others' records;
        return once committed, or raise what storing them alone raised."""
        began = time.perf_counter()
        request = _Request(records)
        with self._lock:
            self._queue.append(request)
            waiting, self._committing = self._committing, True
        if waiting:
            request.asleep.acquire()
        if not request.done:  # its turn to commit, its own records first in line
            self._lead(request)
        metrics.COMMIT_SECONDS.observe(time.perf_counter() - began)
        if request.error is not None:
            raise request.error

    def _lead(self, leader: _Request[R]) -> None:
        """Commit everything queued, then wake the next in line and the
        other callers in the batch."""
        with self._lock:
            batch, self._queue = self._queue, []
        try:
            self._commit(batch)
        finally:
            for unfinished in (r for r in batch if not r.done):
                unfinished.error = InterruptedError("the commit was interrupted")
                unfinished.done = True
            with self._lock:
                following = self._queue[0] if self._queue else None
                self._committing = following is not None
            if following is not None:
                following.asleep.release()
            for request in batch:
                if request is not leader:
                    request.asleep.release()

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
        metrics.COMMIT_BATCH.observe(requests)
        self.transactions += 1
        self.requests += requests
