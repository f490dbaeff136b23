"""The ledger follows a duplicate match: the chips minted into each table's
bank go to its seats for every deal and come back after it, so between
deals every seat book is empty and every bank holds what it was minted,
and every ended hand's books balance."""

from __future__ import annotations

import random

from feltline.domain.ids import bank_id
from feltline.engine.rules import Game
from feltline.projections.follow import Follower
from feltline.projections.ledger import (
    Ledger,
    LedgerView,
    account_book,
    books,
    seat_book,
    unbalanced,
)
from feltline.projections.view import open_view
from feltline.store.check import check
from feltline.store.config import StoreConfig
from tests.projections.conftest import Store
from tests.store.test_match import SEATS, STACK, create, play, seat_everyone


def test_the_ledger_sees_a_matchs_chips_go_out_and_come_back_every_deal(store: Store) -> None:
    room = store.room()
    match = create(room, Game.DRAW_DECLARE, deals=2)
    seat_everyone(room, match)
    play(room, match, [random.Random(31), random.Random(32)])
    view = open_view(LedgerView, StoreConfig.from_env(store.env).env)
    Follower(room.cardroom, [Ledger(view)]).catch_up()
    balances = books(view)
    seats = SEATS[Game.DRAW_DECLARE]
    assert -balances["mint"] == check(room.cardroom).minted == 2 * seats * STACK
    for t, table in enumerate(room.match(match).match.tables):
        assert balances[account_book(bank_id(match, t))] == seats * STACK
        for seat in range(1, seats + 1):
            assert balances.get(seat_book(str(table), seat), 0) == 0
        assert balances.get(f"pot:{table}", 0) == 0
    assert list(unbalanced(view, "table_id, hand")) == []
