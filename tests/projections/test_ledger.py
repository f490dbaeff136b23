"""The ledger after bots play hundreds of hands of every game with rake, time charges, jackpots
carried pots and a table closed mid-hand: every book holds what the
cardroom's streams say it does, every hand's pot comes back to zero, and
the pots view holds the hands being played only, with the ledger's chips."""

from __future__ import annotations

import random

from feltline.domain.ids import account_id
from feltline.projections.follow import Follower
from feltline.projections.ledger import (
    Ledger,
    LedgerView,
    account_book,
    books,
    seat_book,
    unbalanced,
)
from feltline.projections.pots import Pots, PotsView, table_pots
from feltline.projections.view import open_view
from feltline.store.check import check
from feltline.store.config import StoreConfig
from tests.projections.bots import play
from tests.projections.conftest import Store
from tests.store.players import PLAYERS, Players


def test_the_ledger_balances_everywhere_and_matches_the_streams(store: Store) -> None:
    room = store.room()
    tables = play(room, 4, 700)
    closing = Players(room, tables[0], random.Random(1))
    while room.table(tables[0]).table.dealt is None:
        closing.step()
    room.close_table(tables[0], "closing", at=10**6)
    env = StoreConfig.from_env(store.env).env
    view, pots = open_view(LedgerView, env), open_view(PotsView, env)
    follower = Follower(room.streams, [Ledger(view), Pots(pots)])
    follower.catch_up()
    balances = books(view)
    minted = check(room.streams)
    assert minted.balanced, minted.problems
    assert -balances["mint"] == minted.minted
    assert sum(b for k, b in balances.items() if k != "mint") == minted.minted
    assert balances.get("cashier", 0) == minted.cashed_out
    for player in PLAYERS:
        assert balances.get(account_book(account_id(player)), 0) == room.balance(player)
    for table_id in tables:
        table = room.table(table_id).table
        t = str(table_id)
        assert balances.get(f"house:{t}", 0) == table.house
        live = table_pots(pots, t)
        if table.dealt is None:
            assert live is None
            assert balances.get(f"pot:{t}", 0) == 0
            for seat in table.seats:
                assert balances.get(seat_book(t, seat.number), 0) == seat.stack
            assert balances.get(f"carried:{t}", 0) == table.pot.total
        else:  # the table keeps the stacks as dealt until the hand ends
            dealt = [s for s in table.seats if s.number in table.dealt]
            in_play = sum(balances.get(seat_book(t, s.number), 0) for s in dealt)
            in_play += balances.get(f"pot:{t}", 0) + balances.get(f"carried:{t}", 0)
            assert in_play == sum(s.stack for s in dealt) + table.pot.total
            assert live is not None
            assert (live.hand, live.total) == (table.hands, balances.get(f"pot:{t}", 0))
    open_hands = {(str(t), room.table(t).table.hands) for t in tables if room.table(t).table.dealt}
    assert {(str(t), int(h)) for t, h, _ in unbalanced(view, "table_id, hand")} <= open_hands
    dealt = {str(t): room.table(t).table.hands for t in tables}
    assert min(dealt.values()) >= 20, dealt  # every game, many hands of each (their length varies)
    assert sum(dealt.values()) >= 160, dealt  # 198 to over 200: the seeds are the OS's
    events = {e for (e,) in view.rows("SELECT DISTINCT event FROM ledger_entries")}
    assert {"PassedOut", "TimeCharged", "PotAwarded", "HandEnded"} <= events, events
    kinds = {k for (k,) in view.rows("SELECT DISTINCT kind FROM ledger_entries")}
    assert {"mint", "buy-in", "forced-bet", "bet", "pot-award", "rake", "time-charge"} <= kinds
    assert {"uncalled-bet", "carried-pot", "cancelled", "cash-out"} <= kinds, kinds
