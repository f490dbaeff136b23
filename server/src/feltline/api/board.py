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

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from uuid import UUID

from feltline.api.reading import Reading, Shared
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


class Board(Shared[Posted, Reading[Posted]]):
    """The tournament's records as last read. ``read(key, after)`` reads
    the store; ``as_of()`` says what a reading made now is current as of."""

    def __init__(self, key: UUID, read: Reader, as_of: Callable[[], Hashable]) -> None:
        super().__init__(key, read, as_of, Reading(), KEEP)
