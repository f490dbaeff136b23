"""The pots of each live table: what every seat has put in this hand, who
folded, each seat's bet this round, and the main and side pots these make,
updated as each bet lands and emptied when the hand ends.

Only what the whole table sees is kept: chips and folds, never a card.
The pots are cut when read, by the engine's own :func:`collect`, so the
view and the hand can never disagree on who may win what.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from eventsourcing.dispatch import singledispatchmethod
from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection

from feltline.domain.hand import Recorded
from feltline.domain.ids import hand_id
from feltline.domain.table import TableRecord
from feltline.engine.hand import events as hand_events
from feltline.engine.hand.pot import collect
from feltline.engine.table.events import HandDealt
from feltline.projections.decoded import event_of
from feltline.projections.view import View


class PotsView(View):
    name = "pots"
    tables: ClassVar = {
        "pots_hands": "hand_id TEXT PRIMARY KEY, table_id TEXT, hand INTEGER, dead BIGINT",
        "pots_seats": "hand_id TEXT, seat INTEGER, player TEXT, put_in BIGINT, bet BIGINT, "
        "folded INTEGER, all_in INTEGER, PRIMARY KEY (hand_id, seat)",
    }
    indexes: ClassVar = ("pots_hands_table ON pots_hands (table_id)",)


class Pots(Projection[PotsView]):
    """Keeps :class:`PotsView` from the deals and the hands' chip events."""

    name = "pots"

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        with self.view.applying(tracking):
            pass

    @process_event.register
    def _table(self, record: TableRecord, tracking: Tracking) -> None:
        with self.view.applying(tracking) as cursor:
            if record.type != "HandDealt":
                return
            dealt = event_of(record)
            assert isinstance(dealt, HandDealt)
            key = str(hand_id(record.originator_id, dealt.hand))
            cursor.run(
                "INSERT INTO pots_hands VALUES (?, ?, ?, ?)",
                (key, str(record.originator_id), dealt.hand, dealt.deal.dead),
            )
            for s in dealt.deal.seats:
                cursor.run(
                    "INSERT INTO pots_seats VALUES (?, ?, ?, ?, 0, 0, 0)",
                    (key, s.seat, s.player, s.carried),
                )

    @process_event.register
    def _hand(self, record: Recorded, tracking: Tracking) -> None:
        key = str(record.originator_id)
        update = "UPDATE pots_seats SET {} WHERE hand_id = ? AND seat = ?"
        with self.view.applying(tracking) as cursor:
            match event_of(record):
                case hand_events.Posted(seat=seat, forced=forced, amount=amount, all_in=all_in):
                    bet = 0 if forced is hand_events.Forced.ANTE else amount  # antes go in the pot
                    cursor.run(
                        update.format("put_in = put_in + ?, bet = bet + ?, all_in = ?"),
                        (amount, bet, int(all_in), key, seat),
                    )
                case hand_events.Acted(seat=seat, action=action, amount=amount, total=total) as a:
                    folded = int(action is hand_events.Action.FOLD)
                    cursor.run(
                        update.format("put_in = put_in + ?, bet = ?, all_in = ?, folded = ?"),
                        (amount, total, int(a.all_in), folded, key, seat),
                    )
                case hand_events.BetsCollected(returned_to=seat, returned=amount):
                    if seat is not None:
                        cursor.run(update.format("put_in = put_in - ?"), (amount, key, seat))
                    cursor.run("UPDATE pots_seats SET bet = 0 WHERE hand_id = ?", (key,))
                case hand_events.HandEnded():
                    cursor.run("DELETE FROM pots_seats WHERE hand_id = ?", (key,))
                    cursor.run("DELETE FROM pots_hands WHERE hand_id = ?", (key,))


@dataclass(frozen=True)
class SeatInPot:
    seat: int
    player: str
    put_in: int
    bet: int
    folded: bool
    all_in: bool


@dataclass(frozen=True)
class LivePot:
    amount: int
    eligible: tuple[int, ...]


@dataclass(frozen=True)
class TablePots:
    """A live table's hand: seats, pots (main first) and the bet to match this round."""

    table_id: str
    hand: int
    seats: tuple[SeatInPot, ...]
    pots: tuple[LivePot, ...]
    to_call: int

    @property
    def total(self) -> int:
        return sum(p.amount for p in self.pots)


def table_pots(view: View, table_id: str) -> TablePots | None:
    """The pots of the hand being played at a table; None between hands."""
    found = view.rows("SELECT hand_id, hand, dead FROM pots_hands WHERE table_id = ?", (table_id,))
    if not found:
        return None
    key, number, dead = found[0]
    seats = tuple(
        SeatInPot(int(s), str(p), int(i), int(b), bool(f), bool(a))
        for s, p, i, b, f, a in view.rows(
            "SELECT seat, player, put_in, bet, folded, all_in FROM pots_seats "
            "WHERE hand_id = ? ORDER BY seat",
            (key,),
        )
    )
    live = [s.seat for s in seats if not s.folded]
    cut = collect({s.seat: s.put_in for s in seats}, live) if live else ()
    pots = [LivePot(p.amount, p.eligible) for p in cut]
    if int(dead):
        main = pots[0] if pots else LivePot(0, tuple(live))
        pots[:1] = [LivePot(main.amount + int(dead), main.eligible)]
    return TablePots(
        table_id, int(number), seats, tuple(pots), max((s.bet for s in seats), default=0)
    )
