"""Tables by the time their action clock runs out, earliest first.

The action clock must not visit every table on every tick: at a cardroom's
pace almost every table is waiting on someone with time left, and visiting
each costs more than everything else an idle server does. A heap finds the
tables whose time is up without looking at the others. A table's deadline
moves with every action there, so an entry is never removed from the heap
when it moves: the current deadline is kept beside it, and an entry that no
longer matches is dropped when it comes up (or when stale entries outnumber
the live ones).

Not thread-safe: the action clock alone uses it, one tick at a time.
"""

from __future__ import annotations

import heapq
from uuid import UUID

SLACK = 64  # stale entries tolerated beyond the live ones before a rebuild


class Deadlines:
    """Each table's one deadline, in the clock's whole seconds."""

    def __init__(self) -> None:
        self._due: dict[UUID, int] = {}
        self._heap: list[tuple[int, UUID]] = []

    def __len__(self) -> int:
        return len(self._due)

    def get(self, key: UUID) -> int | None:
        return self._due.get(key)

    def set(self, key: UUID, due: int | None) -> None:
        """The table's time runs out at ``due``; None: it runs on no clock."""
        if due is None:
            self._due.pop(key, None)
            return
        if self._due.get(key) == due:
            return
        self._due[key] = due
        heapq.heappush(self._heap, (due, key))
        if len(self._heap) > 2 * len(self._due) + SLACK:
            self._heap = [(d, k) for k, d in self._due.items()]
            heapq.heapify(self._heap)

    def pop_due(self, now: int) -> list[UUID]:
        """The tables whose time is up at ``now``, earliest first, each
        removed: whoever visits one sets its next deadline."""
        out: list[UUID] = []
        heap = self._heap
        while heap and heap[0][0] <= now:
            due, key = heapq.heappop(heap)
            if self._due.get(key) == due:
                del self._due[key]
                out.append(key)
        return out
