"""The double-entry chip ledger: every chip movement as an entry from one
book to another, with the hand, event, table, seat and player it names.

Books: ``mint`` (where minted chips come from, so its balance is minus
everything minted), ``account:<id>`` (a player's, a tournament's prize
pool, the house's fees), ``seat:<table>:<n>``, ``pot:<table>``
(the hand being played), ``carried:<table>`` (a jackpots pot between
deals), ``house:<table>`` (rake and time charges) and ``cashier`` (cashed
out). An entry moves ``amount`` from its credit book to its debit book, so
debits equal credits by construction and all balances sum to zero: every
book but ``mint`` sums to the chips minted. What a book holds is the sum
of its entries; the ledger keeps the balances beside them so that a
refund whose size only the stacks tell (a cancelled hand, a closing
table's carried pot) is read in the same transaction that writes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar
from uuid import UUID

from eventsourcing.dispatch import singledispatchmethod
from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection

from feltline.domain.account import (
    AccountEvent,
    BoughtIn,
    CashedOut,
    Minted,
    Returned,
    Transferred,
)
from feltline.domain.hand import Recorded
from feltline.domain.ids import account_id, hand_id
from feltline.domain.table import TableRecord
from feltline.engine.hand import events as hand_events
from feltline.engine.table import events as table_events
from feltline.projections.decoded import event_of
from feltline.projections.view import Cursor, View


class LedgerView(View):
    name = "ledger"
    tables: ClassVar = {
        "ledger_entries": "notification_id BIGINT, line INTEGER, kind TEXT, debit TEXT, "
        "credit TEXT, amount BIGINT, table_id TEXT, hand INTEGER, seat INTEGER, "
        "player TEXT, event TEXT, PRIMARY KEY (notification_id, line)",
        "ledger_balances": "book TEXT PRIMARY KEY, balance BIGINT",
        "ledger_seats": "table_id TEXT, seat INTEGER, player TEXT, PRIMARY KEY (table_id, seat)",
        "ledger_players": "account TEXT PRIMARY KEY, player TEXT",
        "ledger_hands": "hand_id TEXT PRIMARY KEY, table_id TEXT, hand INTEGER",
    }
    indexes: ClassVar = (
        "ledger_entries_table ON ledger_entries (table_id, hand)",
        "ledger_entries_debit ON ledger_entries (debit)",
        "ledger_entries_credit ON ledger_entries (credit)",
    )


def seat_book(table: str, seat: int) -> str:
    return f"seat:{table}:{seat}"


def account_book(account: UUID | str) -> str:
    return f"account:{account}"


class _Entries:
    """One event's entries, numbered in order, balances kept as they go."""

    def __init__(self, cursor: Cursor, tracking: Tracking, event: str) -> None:
        self.cursor, self.tracking, self.event = cursor, tracking, event
        self.lines = 0

    def move(
        self,
        kind: str,
        credit: str,
        debit: str,
        amount: int,
        *,
        table: str = "",
        hand: int = 0,
        seat: int | None = None,
        player: str = "",
    ) -> None:
        if amount == 0:
            return
        self.lines += 1
        row = (self.tracking.notification_id, self.lines, kind, debit, credit, amount)
        names = (table, hand, seat, player, self.event)
        self.cursor.run(
            "INSERT INTO ledger_entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (*row, *names)
        )
        for book, change in ((debit, amount), (credit, -amount)):
            self.cursor.run(
                "INSERT INTO ledger_balances VALUES (?, ?) ON CONFLICT (book) DO UPDATE "
                "SET balance = ledger_balances.balance + excluded.balance",
                (book, change),
            )

    def balance(self, book: str) -> int:
        found = self.cursor.rows("SELECT balance FROM ledger_balances WHERE book = ?", (book,))
        return int(found[0][0]) if found else 0

    def player(self, table: str, seat: int) -> str:
        found = self.cursor.rows(
            "SELECT player FROM ledger_seats WHERE table_id = ? AND seat = ?", (table, seat)
        )
        return str(found[0][0]) if found else ""


class Ledger(Projection[LedgerView]):
    """Keeps :class:`LedgerView` from the cardroom's table, hand and account events."""

    name = "ledger"

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        with self.view.applying(tracking):
            pass  # seals and server keys move no chips; a Received, its Transferred does

    @process_event.register
    def _minted(self, event: Minted, tracking: Tracking) -> None:
        self._account(event, tracking, "mint", credit="mint")

    @process_event.register
    def _cashed_out(self, event: CashedOut, tracking: Tracking) -> None:
        self._account(event, tracking, "cash-out", debit="cashier")

    @process_event.register
    def _bought_in(self, event: BoughtIn, tracking: Tracking) -> None:
        seat = seat_book(str(event.table), event.seat)
        self._account(event, tracking, "buy-in", debit=seat, table=event.table, seat=event.seat)

    @process_event.register
    def _returned(self, event: Returned, tracking: Tracking) -> None:
        seat = seat_book(str(event.table), event.seat)
        self._account(event, tracking, "cash-out", credit=seat, table=event.table, seat=event.seat)

    @process_event.register
    def _transferred(self, event: Transferred, tracking: Tracking) -> None:
        """One entry for both sides: the :class:`Received` committed with it adds none."""
        self._account(event, tracking, "transfer", debit=account_book(event.to))

    def _account(
        self,
        event: AccountEvent,
        tracking: Tracking,
        kind: str,
        *,
        credit: str | None = None,
        debit: str | None = None,
        table: UUID | None = None,
        seat: int | None = None,
    ) -> None:
        """An account's entry, the other side a seat, the mint or the cashier.
        The player is the seat's, stored with the table in the same commit;
        an entry with the mint or the cashier names none, and readers take
        the account's player from ``ledger_players`` (:mod:`.books`): what a
        view knew of other streams when it applied the entry would depend
        on the order partitions of the log were read in."""
        book = account_book(event.originator_id)
        with self.view.applying(tracking) as cursor:
            entries = _Entries(cursor, tracking, type(event).__name__)
            entries.move(
                kind,
                credit or book,
                debit or book,
                event.amount,
                table="" if table is None else str(table),
                seat=seat,
                player="" if table is None or seat is None else entries.player(str(table), seat),
            )

    @process_event.register
    def _table(self, record: TableRecord, tracking: Tracking) -> None:
        event = event_of(record)
        table = str(record.originator_id)
        with self.view.applying(tracking) as cursor:
            entries = _Entries(cursor, tracking, record.type)
            hand = record.hand
            _pot, carried, house = f"pot:{table}", f"carried:{table}", f"house:{table}"
            match event:
                case table_events.SatDown(seat=seat, player=player):
                    cursor.run(
                        "DELETE FROM ledger_seats WHERE table_id = ? AND seat = ?", (table, seat)
                    )
                    cursor.run("INSERT INTO ledger_seats VALUES (?, ?, ?)", (table, seat, player))
                    account = str(account_id(player))
                    cursor.run("DELETE FROM ledger_players WHERE account = ?", (account,))
                    cursor.run("INSERT INTO ledger_players VALUES (?, ?)", (account, player))
                case table_events.JoinedPot(seat=seat, amount=amount):
                    entries.move(
                        "carried-pot",
                        seat_book(table, seat),
                        carried,
                        amount,
                        table=table,
                        hand=hand,
                        seat=seat,
                        player=entries.player(table, seat),
                    )
                case table_events.TimeCharged(seat=seat, amount=amount):
                    entries.move(
                        "time-charge",
                        seat_book(table, seat),
                        house,
                        amount,
                        table=table,
                        hand=hand,
                        seat=seat,
                        player=entries.player(table, seat),
                    )
                case table_events.StoodUp(seat=seat, player=player, stack=stack):
                    back = stack - entries.balance(seat_book(table, seat))
                    entries.move(
                        "carried-pot",
                        carried,
                        seat_book(table, seat),
                        max(back, 0),
                        table=table,
                        hand=hand,
                        seat=seat,
                        player=player,
                    )
                case table_events.CarriedPotWon(seat=seat, amount=amount):
                    entries.move(
                        "carried-pot",
                        carried,
                        seat_book(table, seat),
                        amount,
                        table=table,
                        hand=hand,
                        seat=seat,
                        player=entries.player(table, seat),
                    )
                case table_events.TableClosed():
                    entries.move(
                        "carried-pot", carried, house, entries.balance(carried), table=table
                    )
                case table_events.HandDealt(hand=number):
                    cursor.run(
                        "INSERT INTO ledger_hands VALUES (?, ?, ?)",
                        (str(hand_id(record.originator_id, number)), table, number),
                    )

    @process_event.register
    def _hand(self, record: Recorded, tracking: Tracking) -> None:
        event = event_of(record)
        with self.view.applying(tracking) as cursor:
            found = cursor.rows(
                "SELECT table_id, hand FROM ledger_hands WHERE hand_id = ?",
                (str(record.originator_id),),
            )
            if not found:
                return  # a hand played without a table moves no cardroom chips
            table, hand = str(found[0][0]), int(found[0][1])
            entries = _Entries(cursor, tracking, record.type)
            pot, carried = f"pot:{table}", f"carried:{table}"

            def move(
                kind: str, credit: str, debit: str, amount: int, seat: int | None = None
            ) -> None:
                player = "" if seat is None else entries.player(table, seat)
                entries.move(
                    kind, credit, debit, amount, table=table, hand=hand, seat=seat, player=player
                )

            match event:
                case hand_events.HandStarted(deal=hand_events.Deal(seats=seats, dead=dead)):
                    move("carried-pot", carried, pot, sum(s.carried for s in seats) + dead)
                case hand_events.Posted(seat=seat, amount=amount):
                    move("forced-bet", seat_book(table, seat), pot, amount, seat)
                case hand_events.Acted(seat=seat, amount=amount):
                    move("bet", seat_book(table, seat), pot, amount, seat)
                case hand_events.BetsCollected(returned_to=seat, returned=amount) if (
                    seat is not None
                ):
                    move("uncalled-bet", pot, seat_book(table, seat), amount, seat)
                case hand_events.PotAwarded(shares=shares, rake=rake):
                    move("rake", pot, f"house:{table}", rake)
                    for share in shares:
                        move(
                            "pot-award", pot, seat_book(table, share.seat), share.amount, share.seat
                        )
                case hand_events.PassedOut(carried=shares, dead=dead):
                    move("carried-pot", pot, carried, sum(a for _, a in shares) + dead)
                case hand_events.HandEnded(stacks=stacks, cancelled=True):
                    for seat, stack in stacks:
                        back = stack - entries.balance(seat_book(table, seat))
                        move("cancelled", pot, seat_book(table, seat), back, seat)


def books(view: View, prefix: str = "") -> dict[str, int]:
    """Every book's balance (those starting with ``prefix``)."""
    found = view.rows(
        "SELECT book, balance FROM ledger_balances WHERE book LIKE ?", (prefix + "%",)
    )
    return {str(book): int(balance) for book, balance in found}


def unbalanced(view: View, by: str) -> Sequence[tuple[Any, ...]]:
    """Groups (``table_id``, ``table_id, hand``) whose pot did not come back to zero."""
    return view.rows(
        f"SELECT {by}, SUM(CASE WHEN debit LIKE 'pot:%' THEN amount ELSE 0 END) - "
        f"SUM(CASE WHEN credit LIKE 'pot:%' THEN amount ELSE 0 END) AS left_in_pot "
        f"FROM ledger_entries WHERE hand > 0 GROUP BY {by} HAVING "
        f"SUM(CASE WHEN debit LIKE 'pot:%' THEN amount ELSE 0 END) <> "
        f"SUM(CASE WHEN credit LIKE 'pot:%' THEN amount ELSE 0 END)"
    )
