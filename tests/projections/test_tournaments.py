"""The tournaments view follows a sit-and-go on two tables to its end: the
chips of the players still in are the tournament's own as each hand ends,
the places and prizes are those it decided, and a rebuild from zero gives
the same rows."""

from __future__ import annotations

import random
from uuid import UUID

from feltline.cardroom.room import Room
from feltline.domain.ids import tournament_table_id
from feltline.engine.errors import RuleError
from feltline.projections.follow import Follower
from feltline.projections.tournaments import (
    Place,
    Tournaments,
    TournamentsView,
    tournament_standings,
)
from feltline.projections.view import View, open_view
from feltline.store.config import StoreConfig
from tests.projections.bots import rows
from tests.projections.conftest import Store
from tests.store.players import cid
from tests.store.test_tournament import BUY_IN, create, move, play, players


def _deal(room: Room, key: UUID, rng: random.Random, hands: int) -> None:
    """Play until ``hands`` hands have begun, stopping between requests."""
    dealt = 0
    while dealt < hands:
        state = room.tournament(key).tournament
        assert not state.over
        for number in sorted(state.tables):
            table = tournament_table_id(key, number)
            if room.table(table).table.dealt is None:
                try:
                    dealt += bool(room.deal_tournament(table, at=0).number)
                except RuleError:
                    continue
            else:
                move(room, table, rng)


def _chips(room: Room, key: UUID) -> list[tuple[str, int, int, int]]:
    state = room.tournament(key).tournament
    return sorted(
        (s.player, felt.number, seat, s.stack)
        for felt in state.tables.values()
        for seat, s in felt.seats.items()
    )


def _seen(view: View, key: UUID) -> list[tuple[str, int, int, int]]:
    standings = tournament_standings(view, str(key))
    assert standings is not None
    return sorted((c.player, c.table, c.seat, c.stack) for c in standings.chips)


def test_the_tournaments_view_follows_chips_places_and_prizes_and_equals_a_rebuild(
    store: Store,
) -> None:
    room = store.room()
    view = open_view(TournamentsView, StoreConfig.from_env(store.env).env)
    follower = Follower(room.streams, [Tournaments(view)])
    key = create(room, entrants=7, size=4)
    for name in players(room, 7):
        room.register_tournament(key, cid(), name, at=0)
    follower.catch_up()
    begun = tournament_standings(view, str(key))
    assert begun is not None
    assert (begun.name, begun.state, begun.level, begun.entrants) == ("Turbo", "running", 1, 7)
    assert begun.pool == 7 * BUY_IN
    assert len(begun.chips) == 7
    assert len({c.table for c in begun.chips}) == 2

    rng = random.Random(5)
    _deal(room, key, rng, 6)  # a hand may be under way at a table: its stacks are not in yet
    follower.catch_up()
    assert _seen(view, key) == _chips(room, key)
    assert sum(c[3] for c in _seen(view, key)) == 7 * 500

    play(room, key, rng)
    follower.catch_up()
    state = room.tournament(key).tournament
    done = tournament_standings(view, str(key))
    assert done is not None
    assert state.finished is not None
    assert done.state == "finished"
    assert done.level == state.level
    (winner,) = done.chips
    assert (winner.player, winner.stack) == (state.finished.winner, 7 * 500)
    assert {p.player: p.place for p in done.places} == dict(state.placed)
    assert len(done.places) == 7
    assert done.places[0] == Place(1, winner.player, state.paid[winner.player])
    assert {p.player: p.prize for p in done.places if p.prize} == dict(state.paid)
    assert sum(p.prize for p in done.places) == done.pool

    live = rows(view)
    view.drop()
    assert tournament_standings(view, str(key)) is None
    Follower(room.streams, [Tournaments(view)]).catch_up()
    assert rows(view) == live


def test_entries_withdrawn_and_a_cancellation_leave_no_standings(store: Store) -> None:
    room = store.room()
    view = open_view(TournamentsView, StoreConfig.from_env(store.env).env)
    key = create(room, entrants=6)
    names = players(room, 3)
    for name in names:
        room.register_tournament(key, cid(), name, at=0)
    room.unregister_tournament(key, cid(), names[0], at=0)
    Follower(room.streams, [Tournaments(view)]).catch_up()
    waiting = tournament_standings(view, str(key))
    assert waiting is not None
    assert (waiting.state, waiting.entrants, waiting.chips) == ("registering", 2, ())
    room.cancel_tournament(key, cid(), reason="too few", by="admin", at=0)
    Follower(room.streams, [Tournaments(view)]).catch_up()
    cancelled = tournament_standings(view, str(key))
    assert cancelled is not None
    assert (cancelled.state, cancelled.entrants, cancelled.places) == ("cancelled", 2, ())
    assert tournament_standings(view, "no such tournament") is None


def test_a_tournament_cancelled_after_the_start_shows_the_pool_it_still_holds(
    store: Store,
) -> None:
    # Cancelled before any place was paid: every buy-in went back by chips.
    room = store.room()
    view = open_view(TournamentsView, StoreConfig.from_env(store.env).env)
    follower = Follower(room.streams, [Tournaments(view)])
    key = create(room, entrants=3)
    for name in players(room, 3):
        room.register_tournament(key, cid(), name, at=0)
    follower.catch_up()
    running = tournament_standings(view, str(key))
    assert running is not None
    assert (running.state, running.pool) == ("running", 3 * BUY_IN)
    room.cancel_tournament(key, cid(), reason="a fire", by="admin", at=0)
    follower.catch_up()
    cancelled = tournament_standings(view, str(key))
    assert cancelled is not None
    assert (cancelled.state, cancelled.pool) == ("cancelled", 0)
    assert room.tournament(key).tournament.prize_pool == 0
