"""Tournament standings: for each tournament its level, the chips of every
player still in as of their table's last hand's end, the places as they
are decided and the prizes paid, so that a tournament's standings are
one read (:func:`tournament_standings`).

Everything comes from the tournament's own stream, which records the
stacks each hand ended with by seat (``HandPlayed``); the seats' players
follow its seat draws and moves, so no table stream is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from eventsourcing.dispatch import singledispatchmethod
from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection

from feltline.audit.codec import TOURNAMENT_EVENT_TYPES, decode_event
from feltline.domain.tournament import TournamentRecord
from feltline.engine.tournament import (
    Cancelled,
    Eliminated,
    Finished,
    HandPlayed,
    LevelChanged,
    Paid,
    Placed,
    PlayerMoved,
    Registered,
    RegistrationClosed,
    SeatsDrawn,
    Started,
    TournamentCreated,
    Unregistered,
)
from feltline.projections.view import Cursor, View


class TournamentsView(View):
    name = "tournaments"
    tables: ClassVar = {
        "tournaments_list": "tournament_id TEXT PRIMARY KEY, name TEXT, state TEXT, "
        "level INTEGER, entrants INTEGER, pool BIGINT",
        "tournaments_chips": "tournament_id TEXT, player TEXT, table_no INTEGER, seat INTEGER, "
        "stack BIGINT, PRIMARY KEY (tournament_id, player)",
        "tournaments_places": "tournament_id TEXT, player TEXT, place INTEGER, "
        "PRIMARY KEY (tournament_id, player)",
        "tournaments_prizes": "tournament_id TEXT, player TEXT, place INTEGER, amount BIGINT, "
        "PRIMARY KEY (tournament_id, player, place)",
    }
    indexes: ClassVar = (
        "tournaments_chips_seat ON tournaments_chips (tournament_id, table_no, seat)",
    )


class Tournaments(Projection[TournamentsView]):
    """Keeps :class:`TournamentsView` from the tournaments' streams."""

    name = "tournaments"

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        with self.view.applying(tracking):
            pass  # tables, hands, accounts and matches: the tournament records its stacks

    @process_event.register
    def _tournament(self, record: TournamentRecord, tracking: Tracking) -> None:
        key = str(record.originator_id)
        event = decode_event(record.type, record.version, record.data, TOURNAMENT_EVENT_TYPES)
        with self.view.applying(tracking) as cursor:
            _apply(cursor, key, event)


def _apply(cursor: Cursor, key: str, event: object) -> None:
    match event:
        case TournamentCreated(name=name):
            cursor.run(
                "INSERT INTO tournaments_list VALUES (?, ?, 'registering', 0, 0, 0)", (key, name)
            )
        case Registered() | Unregistered():
            step = 1 if isinstance(event, Registered) else -1
            cursor.run(
                "UPDATE tournaments_list SET entrants = entrants + ? WHERE tournament_id = ?",
                (step, key),
            )
        case Started():
            _set(cursor, key, "state = 'running', level = 1")
        case LevelChanged(level=level):
            _set(cursor, key, "level = ?", level)
        case RegistrationClosed(entrants=entrants, pool=pool):
            _set(cursor, key, "entrants = ?, pool = ?", entrants, pool)
        case SeatsDrawn(chairs=chairs, stack=stack):
            for chair in chairs:
                cursor.run(
                    "INSERT INTO tournaments_chips VALUES (?, ?, ?, ?, ?)",
                    (key, chair.player, chair.table, chair.seat, stack),
                )
        case HandPlayed(table=table, stacks=stacks):
            for seat, stack in stacks:
                cursor.run(
                    "UPDATE tournaments_chips SET stack = ? "
                    "WHERE tournament_id = ? AND table_no = ? AND seat = ?",
                    (stack, key, table, seat),
                )
        case PlayerMoved(player=player, to_table=table, to_seat=seat, stack=stack):
            cursor.run(
                "UPDATE tournaments_chips SET table_no = ?, seat = ?, stack = ? "
                "WHERE tournament_id = ? AND player = ?",
                (table, seat, stack, key, player),
            )
        case Eliminated(player=player):
            cursor.run(
                "DELETE FROM tournaments_chips WHERE tournament_id = ? AND player = ?",
                (key, player),
            )
        case Placed(place=place, players=players):
            for player in players:
                cursor.run("INSERT INTO tournaments_places VALUES (?, ?, ?)", (key, player, place))
        case Paid(player=player, place=place, amount=amount):
            cursor.run(
                "INSERT INTO tournaments_prizes VALUES (?, ?, ?, ?)", (key, player, place, amount)
            )
        case Finished():
            _set(cursor, key, "state = 'finished'")
        case Cancelled():
            # The refunds took back all but the prizes paid before it.
            cursor.run(
                "UPDATE tournaments_list SET state = 'cancelled', pool = (SELECT "
                "COALESCE(SUM(amount), 0) FROM tournaments_prizes WHERE tournament_id = ?) "
                "WHERE tournament_id = ?",
                (key, key),
            )
        case _:
            pass  # the seed, the levels' hands, moves' reasons: no standing changes


def _set(cursor: Cursor, key: str, assignments: str, *values: object) -> None:
    cursor.run(f"UPDATE tournaments_list SET {assignments} WHERE tournament_id = ?", (*values, key))


@dataclass(frozen=True)
class Chips:
    """A player still in: where they sit and their stack as their table's
    last hand ended (or as they were seated or moved, since)."""

    player: str
    table: int
    seat: int
    stack: int


@dataclass(frozen=True)
class Place:
    """A place decided, shared when several finished together; ``prize``
    in account chips (0 out of the money)."""

    place: int
    player: str
    prize: int


@dataclass(frozen=True)
class TournamentStandings:
    name: str
    state: str  # registering, running, finished or cancelled
    level: int
    entrants: int
    pool: int
    chips: tuple[Chips, ...]  # the biggest stack first
    places: tuple[Place, ...]  # first place first


def tournament_standings(view: View, tournament_id: str) -> TournamentStandings | None:
    """The tournament's standings as the view has them (None before its
    creation has been applied)."""
    found = view.rows(
        "SELECT name, state, level, entrants, pool FROM tournaments_list WHERE tournament_id = ?",
        (tournament_id,),
    )
    if not found:
        return None
    name, state, level, entrants, pool = found[0]
    chips = view.rows(
        "SELECT player, table_no, seat, stack FROM tournaments_chips WHERE tournament_id = ? "
        "ORDER BY stack DESC, player",
        (tournament_id,),
    )
    places = view.rows(
        "SELECT p.place, p.player, COALESCE(SUM(z.amount), 0) FROM tournaments_places p "
        "LEFT JOIN tournaments_prizes z ON z.tournament_id = p.tournament_id "
        "AND z.player = p.player WHERE p.tournament_id = ? "
        "GROUP BY p.place, p.player ORDER BY p.place, p.player",
        (tournament_id,),
    )
    return TournamentStandings(
        str(name),
        str(state),
        int(level),
        int(entrants),
        int(pool),
        tuple(Chips(str(p), int(t), int(s), int(c)) for p, t, s, c in chips),
        tuple(Place(int(n), str(p), int(a)) for n, p, a in places),
    )
