"""Duplicate match standings: each revealed deal's chip result, duplicate
score and matchpoints per table and seat, with the seat's player, so a
match's standings are one query (:func:`match_standings`).

A deal's stacks come in as each table ends it, but nothing is scored until
the match reveals the deal: a table's result would tell the players still
playing it at the other tables about the same cards. Until then the
stacks wait in ``standings_pending``, which nothing reads but this
projection.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from eventsourcing.dispatch import singledispatchmethod
from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection

from feltline.audit.codec import decode_event
from feltline.domain.match import (
    MATCH_EVENT_TYPES,
    DealPlayed,
    DealRevealed,
    MatchCreated,
    MatchRecord,
    SeatTaken,
)
from feltline.engine.duplicate import chip_results, matchpoints, scores
from feltline.projections.view import View


class StandingsView(View):
    name = "standings"
    tables: ClassVar = {
        "standings_matches": "match_id TEXT PRIMARY KEY, tables INTEGER, stack BIGINT",
        "standings_players": "match_id TEXT, table_no INTEGER, seat INTEGER, player TEXT, "
        "PRIMARY KEY (match_id, table_no, seat)",
        "standings_pending": "match_id TEXT, deal INTEGER, table_no INTEGER, seat INTEGER, "
        "stack BIGINT, PRIMARY KEY (match_id, deal, table_no, seat)",
        "standings_scores": "match_id TEXT, deal INTEGER, table_no INTEGER, seat INTEGER, "
        "chips BIGINT, score BIGINT, matchpoints INTEGER, "
        "PRIMARY KEY (match_id, deal, table_no, seat)",
    }
    indexes: ClassVar = ()


class Standings(Projection[StandingsView]):
    """Keeps :class:`StandingsView` from the matches' streams."""

    name = "standings"

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        with self.view.applying(tracking):
            pass  # tables, hands and accounts: the match records what it scores

    @process_event.register
    def _match(self, record: MatchRecord, tracking: Tracking) -> None:
        key = str(record.originator_id)
        event = decode_event(record.type, record.version, record.data, MATCH_EVENT_TYPES)
        with self.view.applying(tracking) as cursor:
            match event:
                case MatchCreated(tables=tables, stack=stack):
                    cursor.run(
                        "INSERT INTO standings_matches VALUES (?, ?, ?)", (key, len(tables), stack)
                    )
                case SeatTaken(table=table, seat=seat, player=player):
                    cursor.run(
                        "INSERT INTO standings_players VALUES (?, ?, ?, ?)",
                        (key, table, seat, player),
                    )
                case DealPlayed(deal=deal, table=table, stacks=stacks):
                    for seat, stack in stacks:
                        cursor.run(
                            "INSERT INTO standings_pending VALUES (?, ?, ?, ?, ?)",
                            (key, deal, table, seat, stack),
                        )
                case DealRevealed(deal=deal):
                    count, start = cursor.rows(
                        "SELECT tables, stack FROM standings_matches WHERE match_id = ?", (key,)
                    )[0]
                    by_table: list[dict[int, int]] = [{} for _ in range(int(count))]
                    for table, seat, stack in cursor.rows(
                        "SELECT table_no, seat, stack FROM standings_pending "
                        "WHERE match_id = ? AND deal = ?",
                        (key, deal),
                    ):
                        by_table[int(table)][int(seat)] = int(stack)
                    results = [chip_results(int(start), s) for s in by_table]
                    for t, (chips, score, points) in enumerate(
                        zip(results, scores(results), matchpoints(results), strict=True)
                    ):
                        for seat in chips:
                            cursor.run(
                                "INSERT INTO standings_scores VALUES (?, ?, ?, ?, ?, ?, ?)",
                                (key, deal, t, seat, chips[seat], score[seat], points[seat]),
                            )
                    cursor.run(
                        "DELETE FROM standings_pending WHERE match_id = ? AND deal = ?",
                        (key, deal),
                    )


@dataclass(frozen=True)
class Standing:
    table: int
    seat: int
    player: str
    score: int
    matchpoints: int
    chips: int
    deals: int


def match_standings(view: View, match_id: str) -> list[Standing]:
    """Every player's totals over the revealed deals, best first."""
    rows = view.rows(
        "SELECT p.table_no, p.seat, p.player, COALESCE(SUM(s.score), 0) AS score, "
        "COALESCE(SUM(s.matchpoints), 0) AS points, COALESCE(SUM(s.chips), 0) AS chips, "
        "COUNT(s.deal) AS deals "
        "FROM standings_players p LEFT JOIN standings_scores s ON s.match_id = p.match_id "
        "AND s.table_no = p.table_no AND s.seat = p.seat WHERE p.match_id = ? "
        "GROUP BY p.table_no, p.seat, p.player",
        (match_id,),
    )
    found = [
        Standing(int(t), int(s), str(p), int(a), int(b), int(c), int(d))
        for t, s, p, a, b, c, d in rows
    ]
    return sorted(found, key=lambda r: (-r.score, -r.matchpoints, r.table, r.seat))
