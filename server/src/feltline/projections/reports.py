"""Questions the API asks the views: the house's take by table and period,
players' results, and pages of the hand index. Plain queries, so every
answer is what the views hold at one moment."""

from __future__ import annotations

import json
from dataclasses import dataclass

from feltline.projections.view import View


@dataclass(frozen=True)
class Take:
    """What the house took at a table in one period (``start`` in seconds
    on the tables' clock): rake, time charges, and hands dealt."""

    table_id: str
    start: int
    hands: int
    rake: int
    time_charges: int


def house_take(hands: View, period: int, table_id: str = "") -> list[Take]:
    """Rake and time charges per table per ``period`` seconds (3600 for an
    hour, 86400 for a day), oldest first."""
    where, params = ("WHERE table_id = ?", (table_id,)) if table_id else ("", ())
    raked = hands.rows(
        f"SELECT table_id, (at / {int(period)}) * {int(period)} AS start, COUNT(*), "
        f"SUM(rake) FROM hand_index {where} GROUP BY table_id, start",
        params,
    )
    charged = hands.rows(
        f"SELECT table_id, (at / {int(period)}) * {int(period)} AS start, SUM(amount) "
        f"FROM hand_charges {where} GROUP BY table_id, start",
        params,
    )
    charges = {(str(t), int(s)): int(a) for t, s, a in charged}
    takes = [
        Take(str(t), int(s), int(n), int(r), charges.pop((str(t), int(s)), 0))
        for t, s, n, r in raked
    ]
    takes += [Take(t, s, 0, 0, a) for (t, s), a in charges.items()]
    return sorted(takes, key=lambda take: (take.start, take.table_id))


@dataclass(frozen=True, order=True)
class Result:
    """A player's hands at one table: how many finished, chips won or lost
    over them, and time charges paid there."""

    player: str
    table_id: str
    hands: int
    net: int
    time_charges: int


def results(hands: View, player: str = "") -> list[Result]:
    """Each player's results by table (``player``'s only, if named)."""
    where, params = ("AND player = ?", (player,)) if player else ("", ())
    played = hands.rows(
        "SELECT player, table_id, COUNT(*), SUM(final - start) FROM hand_players "
        f"WHERE final IS NOT NULL {where} GROUP BY player, table_id",
        params,
    )
    charged = hands.rows(
        f"SELECT player, table_id, SUM(amount) FROM hand_charges WHERE 1 = 1 {where} "
        "GROUP BY player, table_id",
        params,
    )
    charges = {(str(p), str(t)): int(a) for p, t, a in charged}
    return sorted(
        Result(str(p), str(t), int(n), int(net), charges.get((str(p), str(t)), 0))
        for p, t, n, net in played
    )


@dataclass(frozen=True)
class Seat:
    seat: int
    player: str
    start: int
    final: int | None
    won: int


@dataclass(frozen=True)
class IndexedHand:
    hand_id: str
    table_id: str
    number: int
    at: int
    game: str
    stakes: dict[str, object]
    button: int
    pot: int
    rake: int
    ended: bool
    cancelled: bool
    passed_out: bool
    winners: list[str]
    seats: list[Seat]


def indexed_hands(
    hands: View,
    *,
    table_id: str = "",
    player: str = "",
    game: str = "",
    since: int | None = None,
    until: int | None = None,
    after: tuple[int, str] | None = None,
    limit: int = 50,
) -> list[IndexedHand]:
    """Hands matching every filter given, in order of time then id,
    starting after ``after`` (the last one's ``(at, hand_id)``)."""
    clauses: list[str] = []
    params: list[object] = []
    if table_id:
        clauses.append("h.table_id = ?")
        params.append(table_id)
    if player:
        clauses.append("h.hand_id IN (SELECT hand_id FROM hand_players WHERE player = ?)")
        params.append(player)
    if game:
        clauses.append("h.game = ?")
        params.append(game)
    if since is not None:
        clauses.append("h.at >= ?")
        params.append(since)
    if until is not None:
        clauses.append("h.at < ?")
        params.append(until)
    if after is not None:
        clauses.append("(h.at > ? OR (h.at = ? AND h.hand_id > ?))")
        params += [after[0], after[0], after[1]]
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    found = hands.rows(
        "SELECT h.hand_id, h.table_id, h.hand, h.at, h.game, h.stakes, h.button, h.pot, "
        f"h.rake, h.ended, h.cancelled, h.passed_out, h.winners FROM hand_index h {where} "
        "ORDER BY h.at, h.hand_id LIMIT ?",
        (*params, int(limit)),
    )
    made = []
    for row in found:
        seats = [
            Seat(int(s), str(p), int(a), None if f is None else int(f), int(w))
            for s, p, a, f, w in hands.rows(
                "SELECT seat, player, start, final, won FROM hand_players WHERE hand_id = ? "
                "ORDER BY seat",
                (row[0],),
            )
        ]
        made.append(
            IndexedHand(
                str(row[0]),
                str(row[1]),
                int(row[2]),
                int(row[3]),
                str(row[4]),
                json.loads(str(row[5])),
                int(row[6]),
                int(row[7]),
                int(row[8]),
                bool(row[9]),
                bool(row[10]),
                bool(row[11]),
                json.loads(str(row[12])) if row[12] else [],
                seats,
            )
        )
    return made


def dealt_in(hands: View, hand_id: str, player: str) -> bool:
    """Whether ``player`` was dealt into the hand (as far as the index has reached)."""
    return bool(
        hands.rows("SELECT 1 FROM hand_players WHERE hand_id = ? AND player = ?", (hand_id, player))
    )
