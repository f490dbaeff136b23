"""Questions the API asks the ledger: pages of entries by book or by hand,
an account's totals, and the whole ledger's tally, read at one position of
the log so that its figures are of one moment and can be checked against
each other."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from feltline.projections.ledger import books, unbalanced
from feltline.projections.view import View
from feltline.store.log import ordinal

COLUMNS = "notification_id, line, kind, debit, credit, amount, table_id, hand, seat, player, event"
TALLY_ATTEMPTS = 5  # reads, each retried when the projector moved during it


@dataclass(frozen=True)
class Entry:
    """One row of ``ledger_entries``: ``amount`` from ``credit`` to ``debit``."""

    position: int
    line: int
    kind: str
    debit: str
    credit: str
    amount: int
    table_id: str
    hand: int
    seat: int | None
    player: str
    event: str


def _entries(
    view: View, where: str, params: Sequence[object], after: tuple[int, int] | None, limit: int
) -> list[Entry]:
    clauses, values = [where], list(params)
    if after is not None:
        clauses.append("(notification_id > ? OR (notification_id = ? AND line > ?))")
        values += [after[0], after[0], after[1]]
    found = view.rows(
        f"SELECT {COLUMNS} FROM ledger_entries WHERE {' AND '.join(clauses)} "
        "ORDER BY notification_id, line LIMIT ?",
        (*values, int(limit)),
    )
    players = _players(view, {book for row in found for book in row[3:5] if not row[9]})
    return [
        Entry(
            int(n),
            int(line),
            str(kind),
            str(debit),
            str(credit),
            int(amount),
            str(table or ""),
            int(hand or 0),
            None if seat is None else int(seat),
            str(player or players.get(debit) or players.get(credit) or ""),
            str(event),
        )
        for n, line, kind, debit, credit, amount, table, hand, seat, player, event in found
    ]


def _players(view: View, books: set[str]) -> dict[str, str]:
    """The player of each account book among ``books``, for the entries
    that name none (those with the mint or the cashier)."""
    accounts = [b.removeprefix("account:") for b in books if b.startswith("account:")]
    if not accounts:
        return {}
    found = view.rows(
        "SELECT account, player FROM ledger_players "
        f"WHERE account IN ({', '.join('?' * len(accounts))})",
        accounts,
    )
    return {f"account:{account}": str(player) for account, player in found}


def book_entries(
    view: View, book: str, *, after: tuple[int, int] | None = None, limit: int = 50
) -> list[Entry]:
    """Entries debiting or crediting ``book``, oldest first, after the
    ``(position, line)`` of the last one seen."""
    return _entries(view, "(debit = ? OR credit = ?)", (book, book), after, limit)


def hand_entries(
    view: View, table_id: str, hand: int, *, after: tuple[int, int] | None = None, limit: int = 50
) -> list[Entry]:
    """A table's entries naming hand ``hand``, in the order they were made."""
    return _entries(view, "table_id = ? AND hand = ?", (table_id, hand), after, limit)


@dataclass(frozen=True)
class AccountTotals:
    """An account's book: its balance, what its player holds at the tables,
    and what went in and out of it by kind."""

    balance: int
    at_tables: int
    minted: int
    bought_in: int
    returned: int
    cashed_out: int


def account_totals(view: View, book: str, player: str) -> AccountTotals:
    """The totals of account ``book``, whose player is ``player``."""
    moved = {
        str(kind): (int(into or 0), int(out or 0))
        for kind, into, out in view.rows(
            "SELECT kind, SUM(CASE WHEN debit = ? THEN amount ELSE 0 END) AS came_in, "
            "SUM(CASE WHEN credit = ? THEN amount ELSE 0 END) AS went_out FROM ledger_entries "
            "WHERE debit = ? OR credit = ? GROUP BY kind",
            (book, book, book, book),
        )
    }
    seated = view.rows(
        "SELECT SUM(b.balance) FROM ledger_balances b JOIN ledger_seats s "
        "ON b.book = 'seat:' || s.table_id || ':' || CAST(s.seat AS TEXT) WHERE s.player = ?",
        (player,),
    )
    (held,) = view.rows("SELECT balance FROM ledger_balances WHERE book = ?", (book,)) or [(0,)]
    return AccountTotals(
        balance=int(held[0]),
        at_tables=int(seated[0][0] or 0),
        minted=moved.get("mint", (0, 0))[0],
        bought_in=moved.get("buy-in", (0, 0))[1],
        returned=moved.get("cash-out", (0, 0))[0],
        cashed_out=moved.get("cash-out", (0, 0))[1],
    )


@dataclass(frozen=True)
class Tally:
    """Where every chip minted is, at notification ``position``, and what
    does not add up (nothing, when every chip is accounted for)."""

    position: int
    minted: int
    accounts: int
    seats: int
    pots: int
    carried: int
    raked: int
    time_charges: int
    forfeited: int
    cashed_out: int
    problems: tuple[str, ...]

    @property
    def balanced(self) -> bool:
        return not self.problems


class Moving(Exception):
    """The projector applied notifications during every attempt to read."""


def tally(view: View, names: Sequence[str]) -> Tally:
    """The ledger's tally. Each read is a transaction of its own, so the
    figures are taken again until the positions (of each partition of the
    log, tracked under ``names``) are the same before and after them;
    :class:`Moving` if they never are."""
    for _ in range(TALLY_ATTEMPTS):
        before = view.positions(names)
        made = _tally(view, sum(ordinal(n, len(names)) for n in before))
        if view.positions(names) == before:
            return made
    raise Moving(f"the ledger moved during each of {TALLY_ATTEMPTS} reads")


def _tally(view: View, position: int) -> Tally:
    balances = books(view)
    kinds = {
        str(kind): int(amount)
        for kind, amount in view.rows(
            "SELECT kind, SUM(amount) FROM ledger_entries WHERE debit LIKE 'house:%' GROUP BY kind"
        )
    }

    def held(prefix: str) -> int:
        return sum(b for k, b in balances.items() if k.startswith(prefix))

    minted = -balances.get("mint", 0)
    house = held("house:")
    figures = {
        "accounts": held("account:"),
        "seats": held("seat:"),
        "pots": held("pot:"),
        "carried": held("carried:"),
        "house": house,
        "cashed_out": balances.get("cashier", 0),
    }
    problems = [
        f"book {k} holds {b} chips" for k, b in sorted(balances.items()) if k != "mint" and b < 0
    ]
    on_hand = sum(figures.values())
    if on_hand != minted:
        problems.append(f"the books hold {on_hand} chips but {minted} were minted")
    raked, charged = kinds.get("rake", 0), kinds.get("time-charge", 0)
    latest = {
        str(t): int(n)
        for t, n in view.rows("SELECT table_id, MAX(hand) FROM ledger_hands GROUP BY table_id")
    }
    for table, hand, left in unbalanced(view, "table_id, hand"):
        in_play = latest.get(str(table)) == int(hand) and balances.get(f"pot:{table}") == int(left)
        if not in_play:
            problems.append(f"table {table} hand {hand} left {left} chips in its pot")
    return Tally(
        position=position,
        minted=minted,
        accounts=figures["accounts"],
        seats=figures["seats"],
        pots=figures["pots"],
        carried=figures["carried"],
        raked=raked,
        time_charges=charged,
        forfeited=house - raked - charged,
        cashed_out=figures["cashed_out"],
        problems=tuple(problems),
    )
