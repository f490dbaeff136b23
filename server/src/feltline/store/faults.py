"""What the store does when it cannot do its job, told apart from a
request's own failures here, at the store's edge, so that the API can
answer precisely and a server keeps serving what it still can.

:class:`Unreadable`: a table whose stored events (or its hand's) do not
decode, or do not fold. Only that table is refused; it is logged once, by id.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from uuid import UUID

import structlog
from eventsourcing.persistence import PersistenceError

log = structlog.get_logger("feltline.store")


class Unreadable(Exception):
    """A stored table that does not decode or does not fit: its history
    cannot be trusted, so it is not served."""

    def __init__(self, table_id: UUID, detail: str) -> None:
        super().__init__(f"table {table_id}'s stored history does not verify: {detail}")
        self.table_id = table_id
        self.detail = detail


class Reported:
    """The tables found unreadable, each logged once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: set[UUID] = set()

    @contextmanager
    def reading(self, table_id: UUID, what: str = "") -> Iterator[None]:
        """Read the table's stored events (``what`` of them) in the block:
        whatever stops the decoding or the fold raises :class:`Unreadable`,
        while a database that does not answer raises as it did."""
        try:
            yield
        except (PersistenceError, Unreadable):
            raise
        except Exception as e:
            unreadable = Unreadable(table_id, f"{what}{type(e).__name__}: {e}")
            self._report(unreadable)
            raise unreadable from e

    def _report(self, error: Unreadable) -> None:
        with self._lock:
            if error.table_id in self._seen:
                return
            self._seen.add(error.table_id)
        log.error(
            "table_unreadable",
            table_id=str(error.table_id),
            message="the table's stored history does not verify; it is not served, "
            "the other tables are",
            error=error.detail,
        )
