"""The hand index: every hand by table, player and time, with its game,
stakes, button, players, starting and final stacks, pot, rake and winners;
the time charges taken at each deal, for the house's report; the rake
each winner paid, for players' results; and, for the replay service's
pages, when each hand's last event was recorded, whether its table took
its result (``HandFinished``), what each seat bet, and the last hand each
table finished.

Only what every player at the table saw goes in: stacks, pots and who won
them; no card is stored here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from eventsourcing.dispatch import singledispatchmethod
from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection

from feltline.domain.hand import Recorded
from feltline.domain.ids import hand_id
from feltline.domain.table import TableRecord
from feltline.engine.hand import events as hand_events
from feltline.engine.table import events as table_events
from feltline.projections.decoded import event_of
from feltline.projections.view import Cursor, View


class HandIndexView(View):
    name = "hand_index"
    tables: ClassVar = {
        "hand_tables": "table_id TEXT PRIMARY KEY, name TEXT, game TEXT, stakes TEXT",
        "hand_seats": "table_id TEXT, seat INTEGER, player TEXT, PRIMARY KEY (table_id, seat)",
        "hand_index": "hand_id TEXT PRIMARY KEY, table_id TEXT, hand INTEGER, at BIGINT, "
        "game TEXT, stakes TEXT, button INTEGER, players INTEGER, pot BIGINT, rake BIGINT, "
        "ended INTEGER, cancelled INTEGER, passed_out INTEGER, winners TEXT",
        "hand_players": "hand_id TEXT, table_id TEXT, hand INTEGER, at BIGINT, seat INTEGER, "
        "player TEXT, start BIGINT, final BIGINT, won BIGINT, PRIMARY KEY (hand_id, seat)",
        "hand_charges": "table_id TEXT, hand INTEGER, seat INTEGER, player TEXT, "
        "amount BIGINT, at BIGINT, notification_id BIGINT PRIMARY KEY",
        "hand_rake": "notification_id BIGINT, seat INTEGER, hand_id TEXT, table_id TEXT, "
        "player TEXT, amount BIGINT, PRIMARY KEY (notification_id, seat)",
        "hand_ends": "hand_id TEXT PRIMARY KEY, table_id TEXT, hand INTEGER, at BIGINT, "
        "ended_at BIGINT, finished INTEGER",
        "hand_bets": "hand_id TEXT, seat INTEGER, bet BIGINT, PRIMARY KEY (hand_id, seat)",
        "hand_done": "table_id TEXT PRIMARY KEY, hand INTEGER",
    }
    indexes: ClassVar = (
        "hand_index_table ON hand_index (table_id, hand)",
        "hand_index_at ON hand_index (at)",
        "hand_players_player ON hand_players (player, at)",
        "hand_charges_table ON hand_charges (table_id, hand)",
        "hand_rake_player ON hand_rake (player, table_id)",
        "hand_ends_page ON hand_ends (finished, at, table_id, hand)",
        "hand_ends_table ON hand_ends (table_id, hand)",
    )


class HandIndex(Projection[HandIndexView]):
    """Keeps :class:`HandIndexView` from the table and hand events."""

    name = "hand_index"

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        with self.view.applying(tracking):
            pass  # accounts, seals and keys are not hands

    @process_event.register
    def _table(self, record: TableRecord, tracking: Tracking) -> None:
        event = event_of(record)
        table = str(record.originator_id)
        with self.view.applying(tracking) as cursor:
            match event:
                case table_events.TableOpened(config=config, name=name):
                    stakes = json.dumps(_plain(config.rules.stakes), sort_keys=True)
                    cursor.run(
                        "INSERT INTO hand_tables VALUES (?, ?, ?, ?)",
                        (table, name, str(config.rules.game), stakes),
                    )
                case table_events.SatDown(seat=seat, player=player):
                    cursor.run(
                        "DELETE FROM hand_seats WHERE table_id = ? AND seat = ?", (table, seat)
                    )
                    cursor.run("INSERT INTO hand_seats VALUES (?, ?, ?)", (table, seat, player))
                case table_events.TimeCharged(seat=seat, amount=amount):
                    (player,) = cursor.rows(
                        "SELECT player FROM hand_seats WHERE table_id = ? AND seat = ?",
                        (table, seat),
                    )[0]
                    charge = (table, record.hand, seat, player, amount, tracking.notification_id)
                    cursor.run("INSERT INTO hand_charges VALUES (?, ?, ?, ?, ?, NULL, ?)", charge)
                case table_events.HandDealt(
                    hand=number, at=at, deal=hand_events.Deal(button=button, seats=seats)
                ):
                    game, stakes = cursor.rows(
                        "SELECT game, stakes FROM hand_tables WHERE table_id = ?", (table,)
                    )[0]
                    key = str(hand_id(record.originator_id, number))
                    cursor.run(
                        "INSERT INTO hand_index VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0, '')",
                        (key, table, number, at, game, stakes, button, len(seats)),
                    )
                    cursor.run(
                        "INSERT INTO hand_ends VALUES (?, ?, ?, ?, ?, 0)",
                        (key, table, number, at, at),
                    )
                    for s in seats:
                        cursor.run(
                            "INSERT INTO hand_players VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 0)",
                            (key, table, number, at, s.seat, s.player, s.stack),
                        )
                        cursor.run("INSERT INTO hand_bets VALUES (?, ?, 0)", (key, s.seat))
                    cursor.run(
                        "UPDATE hand_charges SET at = ? WHERE table_id = ? AND hand = ?",
                        (at, table, number),
                    )
                case table_events.HandFinished():
                    cursor.run(
                        "UPDATE hand_ends SET finished = 1 WHERE table_id = ? AND hand = ?",
                        (table, record.hand),
                    )
                    # Only a run from hand 1 moves it on: in a view made before
                    # hand_ends existed, the table's earlier hands are missing.
                    if record.hand == 1:
                        cursor.run("INSERT INTO hand_done VALUES (?, 1)", (table,))
                    cursor.run(
                        "UPDATE hand_done SET hand = ? WHERE table_id = ? AND hand = ?",
                        (record.hand, table, record.hand - 1),
                    )

    @process_event.register
    def _hand(self, record: Recorded, tracking: Tracking) -> None:
        key = str(record.originator_id)
        with self.view.applying(tracking) as cursor:
            match event_of(record):
                case hand_events.HandStarted(rules=rules):
                    # The hand's own game: a mixed table's rotates.
                    stakes = json.dumps(_plain(rules.stakes), sort_keys=True)
                    cursor.run(
                        "UPDATE hand_index SET game = ?, stakes = ? WHERE hand_id = ?",
                        (str(rules.game), stakes, key),
                    )
                case (
                    hand_events.Posted(seat=seat, amount=amount)
                    | hand_events.Acted(seat=seat, amount=amount)
                ) if amount:
                    _bet(cursor, key, seat, amount)
                case hand_events.BetsCollected(returned_to=seat, returned=amount) if (
                    seat is not None and amount
                ):
                    _bet(cursor, key, seat, -amount)
                case hand_events.PotAwarded(amount=amount, rake=rake, shares=shares):
                    cursor.run(
                        "UPDATE hand_index SET pot = pot + ?, rake = rake + ? WHERE hand_id = ?",
                        (amount, rake, key),
                    )
                    for share in shares:
                        cursor.run(
                            "UPDATE hand_players SET won = won + ? WHERE hand_id = ? AND seat = ?",
                            (share.amount, key, share.seat),
                        )
                    for seat, paid in rake_paid(rake, shares).items():
                        cursor.run(
                            "INSERT INTO hand_rake SELECT ?, seat, hand_id, table_id, player, ? "
                            "FROM hand_players WHERE hand_id = ? AND seat = ?",
                            (tracking.notification_id, paid, key, seat),
                        )
                case hand_events.PassedOut():
                    cursor.run("UPDATE hand_index SET passed_out = 1 WHERE hand_id = ?", (key,))
                case hand_events.HandEnded(stacks=stacks, cancelled=cancelled):
                    for seat, stack in stacks:
                        cursor.run(
                            "UPDATE hand_players SET final = ? WHERE hand_id = ? AND seat = ?",
                            (stack, key, seat),
                        )
                    won = cursor.rows(
                        "SELECT player FROM hand_players WHERE hand_id = ? AND won > 0 "
                        "ORDER BY seat",
                        (key,),
                    )
                    cursor.run(
                        "UPDATE hand_index SET ended = 1, cancelled = ?, winners = ? "
                        "WHERE hand_id = ?",
                        (int(cancelled), json.dumps([p for (p,) in won]), key),
                    )
                    cursor.run(
                        "UPDATE hand_ends SET ended_at = ? WHERE hand_id = ?", (record.at, key)
                    )


def _bet(cursor: Cursor, hand: str, seat: int, amount: int) -> None:
    """What ``seat`` put in the pots: forced and voluntary bets, less an
    uncalled bet returned (``amount`` below zero)."""
    cursor.run(
        "UPDATE hand_bets SET bet = bet + ? WHERE hand_id = ? AND seat = ?", (amount, hand, seat)
    )


Key = tuple[int, str, int]
"""Where a finished hand stands in a page: deal time, table id, number."""


@dataclass(frozen=True)
class SeatResult:
    seat: int
    player: str
    start: int
    final: int
    bet: int
    won: int


@dataclass(frozen=True)
class FinishedHand:
    """A hand its table took the result of, as the index holds it."""

    hand_id: str
    table_id: str
    number: int
    at: int
    ended_at: int
    game: str
    button: int
    rake: int
    cancelled: bool
    seats: tuple[SeatResult, ...]

    def key(self) -> Key:
        return self.at, self.table_id, self.number


def done(hands: View) -> dict[str, int]:
    """Each table's last hand such that the index holds it and every hand
    before it finished: a table missing here, or behind its stream, has
    finished hands the index does not hold (yet)."""
    return {str(t): int(n) for t, n in hands.rows("SELECT table_id, hand FROM hand_done")}


def finished_hands(
    hands: View,
    *,
    table_id: str = "",
    player: str = "",
    since: int | None = None,
    until: int | None = None,
    after: Key | None = None,
    last: Mapping[str, int] | None = None,
    limit: int = 50,
) -> list[FinishedHand]:
    """Finished hands matching every filter given, in :meth:`FinishedHand.key`
    order, starting after the key ``after``; of a table in ``last`` only its
    hands up to that number."""
    clauses = ["e.finished = 1"]
    params: list[object] = []
    if table_id:
        clauses.append("e.table_id = ?")
        params.append(table_id)
    if player:
        clauses.append("e.hand_id IN (SELECT hand_id FROM hand_players WHERE player = ?)")
        params.append(player)
    if since is not None:
        clauses.append("e.at >= ?")
        params.append(since)
    if until is not None:
        clauses.append("e.at < ?")
        params.append(until)
    if after is not None:
        clauses.append("(e.at, e.table_id, e.hand) > (?, ?, ?)")
        params += after
    for table, number in (last or {}).items():
        clauses.append("(e.table_id <> ? OR e.hand <= ?)")
        params += [table, number]
    found = hands.rows(
        "SELECT e.hand_id, e.table_id, e.hand, e.at, e.ended_at, h.game, h.button, h.rake, "
        "h.cancelled FROM hand_ends e JOIN hand_index h ON h.hand_id = e.hand_id "
        f"WHERE {' AND '.join(clauses)} ORDER BY e.at, e.table_id, e.hand LIMIT ?",
        (*params, int(limit)),
    )
    seats: dict[str, list[SeatResult]] = {str(row[0]): [] for row in found}
    if seats:
        marks = ", ".join("?" * len(seats))
        for key, seat, who, start, final, bet, won in hands.rows(
            "SELECT p.hand_id, p.seat, p.player, p.start, p.final, b.bet, p.won "
            "FROM hand_players p JOIN hand_bets b ON b.hand_id = p.hand_id AND b.seat = p.seat "
            f"WHERE p.hand_id IN ({marks}) ORDER BY p.seat",
            tuple(seats),
        ):
            seats[str(key)].append(
                SeatResult(int(seat), str(who), int(start), int(final or 0), int(bet), int(won))
            )
    return [
        FinishedHand(
            str(key),
            str(table),
            int(number),
            int(at),
            int(ended_at),
            str(game),
            int(button),
            int(rake),
            bool(cancelled),
            tuple(seats[str(key)]),
        )
        for key, table, number, at, ended_at, game, button, rake, cancelled in found
    ]


def rake_paid(rake: int, shares: Sequence[hand_events.Share]) -> dict[int, int]:
    """A pot's rake by the seats that won it, in proportion to what each
    took, since the chips raked would have been theirs; the odd chips to the
    larger shares first, then the lower seat."""
    won: dict[int, int] = {}
    for share in shares:
        won[share.seat] = won.get(share.seat, 0) + share.amount
    total = sum(won.values())
    if rake <= 0 or total <= 0:
        return {}
    paid = {seat: rake * amount // total for seat, amount in won.items()}
    for seat in sorted(won, key=lambda seat: (-won[seat], seat))[: rake - sum(paid.values())]:
        paid[seat] += 1
    return {seat: amount for seat, amount in paid.items() if amount}


def _plain(value: object) -> object:
    """A dataclass of numbers and enums as JSON."""
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is None:
        return value if isinstance(value, int | str | None) else str(value)
    return {name: _plain(getattr(value, name)) for name in fields}
