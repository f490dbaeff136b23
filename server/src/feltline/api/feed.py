"""A table's stored records, read once per change and shared by its watchers.

Every watcher of a table wants the same records after every change: read
each for itself, a table with four watchers would read and decode the store
four times per action, and the watchers of busy tables would queue for the
store's connections ahead of the players' own requests. A :class:`Feed`
reads the table's stream and its latest hand once when the table changes,
and hands out slices of what it read. What it hands out still comes from
the store, so cursors keep working across restarts, and records written by
another server process reach it too: a reading of a table this process
does not hold the lease of counts as stale once the Room has seen another
process store something since (:data:`feltline.cardroom.held.AsOf`).

Whatever can be worked out once per record for every watcher is worked out
when the record comes in: the hand's state after each of its events, and
(lazily, by the first watcher to need them) the messages and turns sent.

What this process stores at the table is handed to the feed as it commits
(:meth:`Feed.append`); only :meth:`Feed.refresh` reads the feed's own
records from the store, when the feed is behind or stale, and the writer
calls it before waking the watchers. The event loop that serves watchers
reads the store only for a watcher that has fallen out of the feed. Each
reading is swapped in whole, so watchers never wait on the lock a refresh
holds while it reads.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from uuid import UUID

from feltline.api.reading import Reading, Shared
from feltline.api.redaction import Viewer
from feltline.cardroom.held import AsOf
from feltline.engine.hand.decide import NEW_HAND
from feltline.engine.hand.events import Event
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.state import Hand
from feltline.engine.table.events import HandDealt

KEEP = 1024  # table records kept; a watcher further behind reads the store
HANDS = 2  # hands kept: the latest, and the one its watchers are finishing


@dataclass(frozen=True)
class Stored:
    """One stored event of a table or a hand, decoded: its position in its
    stream, the request it was filed under and, for hand events, its time.

    A feed's hand records carry the hand's state ``after`` them. ``sent``
    keeps the message watchers were sent of it, serialized, whole or
    redacted, by cursor, and ``turns`` the turn sent after it (None: to
    those it does not wait on), so that a table's watchers build each once
    rather than once each."""

    position: int
    event: Event
    command_id: str
    at: int | None = None
    after: Hand | None = field(default=None, compare=False, repr=False)
    sent: dict[tuple[bool, str], bytes] = field(default_factory=dict, compare=False, repr=False)
    turns: dict[tuple[Viewer | None, str], bytes | None] = field(
        default_factory=dict, compare=False, repr=False
    )


TableReader = Callable[[UUID, int], list[Stored]]
HandReader = Callable[[UUID, int, int], list[Stored | None]]


@dataclass(frozen=True)
class Tabled(Reading[Stored]):
    """What a feed last read: the table's records, and the records of its
    latest ``HANDS`` hands by number (None stands for a hand's seal)."""

    hands: dict[int, list[Stored | None]] = field(default_factory=dict)


def folded(records: list[Stored | None], state: Hand) -> list[Stored | None]:
    """``records`` of a hand, each with the hand's state after it; ``state``
    the state before the first."""
    out: list[Stored | None] = []
    for s in records:
        if s is None:
            out.append(s)
            continue
        state = evolve(state, s.event)
        out.append(Stored(s.position, s.event, s.command_id, s.at, state))
    return out


class Feed(Shared[Stored, Tabled]):
    """The table's records (:meth:`after`) and its latest hand's, as last read.

    ``read_table(table_id, after)`` and ``read_hand(table_id, number, after)``
    read the store; ``as_of()`` says what a reading made now would be
    current as of (:data:`feltline.cardroom.held.AsOf`).
    """

    def __init__(
        self,
        table_id: UUID,
        read_table: TableReader,
        read_hand: HandReader,
        as_of: Callable[[], AsOf],
    ) -> None:
        super().__init__(table_id, read_table, as_of, Tabled(), KEEP)
        self._read_hand = read_hand

    def hand(self, number: int, after: int = 0) -> list[Stored | None]:
        """Hand ``number``'s records after position ``after``."""
        kept = self._reading.hands.get(number)
        if kept is not None:
            return kept[after:]
        return folded(self._read_hand(self.key, number, 0), NEW_HAND)[after:]

    def known(self) -> tuple[int, int, int]:
        """How far the reading goes: the table's last position, its latest
        hand's number and that hand's last position (seal included)."""
        r = self._reading
        number = max(r.hands, default=0)
        return r.last, number, len(r.hands.get(number, ()))

    def refresh(self) -> None:
        """Read what was stored since the last reading."""
        with self._lock:
            self._read()

    def _taken(self, r: Tabled, new: list[Stored], as_of: Hashable) -> Tabled:
        """Reading ``r`` with the ``new`` table records, and its hands
        followed: the latest to its end, and on to any hand dealt since."""
        hands = dict(r.hands)
        latest = max(hands, default=0)
        if latest:
            hands[latest] = _more(hands[latest], self._read_hand, self.key, latest)
        for number in (s.event.hand for s in new if isinstance(s.event, HandDealt)):
            if number > latest:  # follow the table to its new hand
                hands[number] = _more([], self._read_hand, self.key, number)
        return _kept(r.records + new, r.first, hands, as_of)

    def append(self, table: list[Stored], number: int, hand: list[Stored | None]) -> None:
        """Take in what this process just stored at the table: ``table``
        records, and ``hand`` records of hand ``number``, so that nothing
        need be read back. Records that do not follow on from the reading
        (another process stored some in between) leave it behind, for the
        next :meth:`refresh` to read."""
        with self._lock:
            r = self._reading
            if r.as_of is None or r.behind:
                return
            known = r.last
            if table and table[0].position <= known:
                table = []  # a refresh read them meanwhile
            hands = dict(r.hands)
            so_far = hands.get(number, [])
            at = next((s.position for s in hand if s is not None), len(so_far) + 1)
            if hand and at <= len(so_far):
                hand = []
            gap = (table and table[0].position != known + 1) or (hand and at != len(so_far) + 1)
            if gap or (hand and not number):
                self._reading = replace(r, behind=True)
                return
            if number and (hand or number in hands):
                hands[number] = so_far + folded(hand, _last(so_far))
            self._reading = _kept(r.records + table, r.first, hands, r.as_of)


def _last(hand: list[Stored | None]) -> Hand:
    """The hand's state after the records ``hand``."""
    last = next((s.after for s in reversed(hand) if s is not None), NEW_HAND)
    assert last is not None
    return last


def _more(
    hand: list[Stored | None], read: HandReader, table_id: UUID, number: int
) -> list[Stored | None]:
    """``hand``, hand ``number``'s records so far, and what came after."""
    return hand + folded(read(table_id, number, len(hand)), _last(hand))


def _kept(
    table: list[Stored], first: int, hands: dict[int, list[Stored | None]], as_of: Hashable
) -> Tabled:
    """A reading of no more than ``KEEP`` table records and ``HANDS`` hands."""
    for number in sorted(hands)[:-HANDS]:
        del hands[number]
    return Tabled(table, first, as_of, hands=hands).kept(KEEP)
