"""The ledger follows a duplicate match: the chips minted into each table's
bank go to its seats for every deal and come back after it, so between
deals every seat book is empty and every bank holds what it was minted,
and every ended hand's books balance."""

from __future__ import annotations

import random

from feltline.domain.ids import bank_id
from feltline.engine.hand.rules import Game
from feltline.projections.follow import Follower
from feltline.projections.ledger import (
    Ledger,
    LedgerView,
    account_book,
    books,
    seat_book,
    unbalanced,
)
from feltline.projections.standings import Standings, StandingsView, match_standings
from feltline.projections.view import open_view
from feltline.store.check import check
from feltline.store.config import StoreConfig
from tests.projections.conftest import Store
from tests.store.test_match import SEATS, STACK, create, play, seat_everyone, step


def test_the_ledger_sees_a_matchs_chips_go_out_and_come_back_every_deal(store: Store) -> None:
    room = store.room()
    match = create(room, Game.DRAW_DECLARE, deals=2)
    seat_everyone(room, match)
    play(room, match, [random.Random(31), random.Random(32)])
    view = open_view(LedgerView, StoreConfig.from_env(store.env).env)
    Follower(room.streams, [Ledger(view)]).catch_up()
    balances = books(view)
    seats = SEATS[Game.DRAW_DECLARE]
    assert -balances["mint"] == check(room.streams).minted == 2 * seats * STACK
    for t, table in enumerate(room.match(match).match.tables):
        assert balances[account_book(bank_id(match, t))] == seats * STACK
        for seat in range(1, seats + 1):
            assert balances.get(seat_book(str(table), seat), 0) == 0
        assert balances.get(f"pot:{table}", 0) == 0
    assert list(unbalanced(view, "table_id, hand")) == []


def test_the_standings_view_scores_revealed_deals_only_as_the_match_does(store: Store) -> None:
    room = store.room()
    match = create(room, Game.STUD_HI_LO, deals=3)
    seat_everyone(room, match)
    rngs = [random.Random(41), random.Random(42)]
    play(room, match, rngs, until=1)
    first = room.match(match).match.tables[0]
    while room.match(match).match.dealt_to(0) < 2:  # deal 2 ended at table 0 only
        step(room, match, 0, rngs[0])
    assert len(room.match(match).match.revealed) == 1
    view = open_view(StandingsView, StoreConfig.from_env(store.env).env)
    follower = Follower(room.streams, [Standings(view)])
    follower.catch_up()
    stream_standings = [
        (s.table, s.seat, s.player, s.score, s.matchpoints, s.chips)
        for s in room.match(match).match.standings()
    ]
    viewed = match_standings(view, str(match))
    assert [(s.table, s.seat, s.player, s.score, s.matchpoints, s.chips) for s in viewed] == (
        stream_standings
    )
    assert {s.deals for s in viewed} == {1}  # deal 2 is not scored while table 1 plays it
    assert room.table(first).table.hands == 2
    play(room, match, rngs)
    follower.catch_up()
    viewed = match_standings(view, str(match))
    assert {s.deals for s in viewed} == {3}
    assert sum(s.score for s in viewed) == 0
    assert [(s.table, s.seat, s.score) for s in viewed] == [
        (s.table, s.seat, s.score) for s in room.match(match).match.standings()
    ]
