"""The hand index matches the stored hands one for one, the house's take
adds up to what the tables took, and a rebuild from zero gives the same
rows as the views built while bots played."""

from __future__ import annotations

import json

from feltline.engine.events import HandEnded, HandStarted
from feltline.projections.follow import Follower
from feltline.projections.hands import HandIndex, HandIndexView
from feltline.projections.ledger import Ledger, LedgerView
from feltline.projections.pots import Pots, PotsView
from feltline.projections.reports import house_take, indexed_hands, results
from feltline.projections.view import open_view
from feltline.store.config import StoreConfig
from tests.projections.bots import play, rows
from tests.projections.conftest import Store


def test_the_hand_index_matches_the_stored_hands_and_a_rebuild_matches_the_live_views(
    store: Store,
) -> None:
    room = store.room()
    env = StoreConfig.from_env(store.env).env
    index, ledger = open_view(HandIndexView, env), open_view(LedgerView, env)
    pots = open_view(PotsView, env)
    follower = Follower(room.cardroom, [HandIndex(index), Ledger(ledger), Pots(pots)])
    tables = play(room, 4, 60)
    follower.catch_up()  # built while the bots play: the rest comes later
    more = play(room, 4, 100, seed=8)
    assert more == tables
    follower.catch_up()

    listed = {h.hand_id: h for h in indexed_hands(index, limit=10**6)}
    stored = 0
    for table_id in tables:
        table = room.table(table_id).table
        for number in range(1, table.hands + 1):
            stream = room.hand(table_id, number)
            events = [e for _, made in stream.commands.values() for e in made]
            started, ended = events[0], events[-1]
            assert isinstance(started, HandStarted)
            found = listed[str(stream.id)]
            assert (found.table_id, found.number, found.button) == (
                str(table_id),
                number,
                started.button,
            )
            assert [(s.seat, s.player, s.start) for s in found.seats] == [
                (s.seat, s.player, s.stack) for s in started.seats
            ]
            assert found.ended == isinstance(ended, HandEnded)
            if isinstance(ended, HandEnded):
                assert {s.seat: s.final for s in found.seats} == dict(ended.stacks)
                assert found.rake == ended.rake
            stored += 1
    assert stored == len(listed) > 20

    took = house_take(index, 3600)
    assert sum(t.rake + t.time_charges for t in took) == sum(
        room.table(t).table.house for t in tables
    )
    assert all(r.hands > 0 for r in results(index))
    first = indexed_hands(index, limit=5)
    page = indexed_hands(index, after=(first[-1].at, first[-1].hand_id), limit=5)
    assert [h.hand_id for h in first + page] == [h.hand_id for h in indexed_hands(index, limit=10)]
    player = first[0].seats[0].player
    assert all(player in {s.player for s in h.seats} for h in indexed_hands(index, player=player))
    assert all(json.dumps(h.stakes) for h in first)

    live = [rows(index), rows(ledger), rows(pots)]
    for view in (index, ledger, pots):
        view.drop()
    Follower(room.cardroom, [HandIndex(index), Ledger(ledger), Pots(pots)]).catch_up()
    assert [rows(index), rows(ledger), rows(pots)] == live
