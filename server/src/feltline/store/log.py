"""The notification log as its followers read it: in partitions.

A store's log is one partition (every SQLite store, and a PostgreSQL store
made with one) or K of them (docs/store.md, "Partitions"): partition ``p``
numbers its rows p+1, p+1+K, ..., each in the order its commits were made,
and a commit is stored whole in one partition. A reader that follows the
log (the projector, the scan for new tables, the look for what others
stored) therefore keeps a position per partition: ids of different
partitions say nothing about which was stored first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, Notification

from feltline.store.leases import FencedRecorder


class Log(Protocol):
    """What a follower reads."""

    partitions: int

    def heads(self) -> tuple[int, ...]:
        """Each partition's highest notification id (0 for none), from one
        snapshot of the store."""

    def page(self, partition: int, after: int, upto: int, limit: int) -> Sequence[Notification]:
        """The partition's rows after ``after`` up to ``upto``, in order, at most ``limit``."""

    def placed(self, stream: UUID, version: int) -> int | None:
        """Where the stream's record at ``version`` is (its notification id)."""


class Whole:
    """A log of one partition: the library's own recorder (SQLite)."""

    partitions = 1

    def __init__(self, recorder: ApplicationRecorder) -> None:
        self._recorder = recorder

    def heads(self) -> tuple[int, ...]:
        return (self._recorder.max_notification_id() or 0,)

    def page(self, partition: int, after: int, upto: int, limit: int) -> Sequence[Notification]:
        return self._recorder.select_notifications(after + 1, limit, stop=upto)

    def placed(self, stream: UUID, version: int) -> int | None:
        """Never asked: in one partition, a stream's records come in order."""
        raise AssertionError("a log of one partition places nothing")


def log_of(recorder: ApplicationRecorder) -> Log:
    return recorder if isinstance(recorder, FencedRecorder) else Whole(recorder)


def partition_of(notification_id: int, partitions: int) -> int:
    return (notification_id - 1) % partitions


def ordinal(notification_id: int, partitions: int) -> int:
    """How many ids its partition has issued up to ``notification_id`` (0 for 0)."""
    return (notification_id - 1) // partitions + 1 if notification_id else 0


def tracking_name(application: str, partition: int) -> str:
    """The name a view tracks a partition's position under: the
    application's own for the first, so a store of one partition tracks as
    every store made before."""
    return application if partition == 0 else f"{application}/{partition}"
