"""The hand index matches the stored hands one for one, the house's take
adds up to what the tables took, and a rebuild from zero gives the same
rows as the views built while bots played."""

from __future__ import annotations

import json

from feltline.engine.hand.events import HandEnded, HandStarted, PotAwarded, Share
from feltline.projections.follow import Follower
from feltline.projections.hands import HandIndex, HandIndexView, rake_paid
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
    follower = Follower(room.streams, [HandIndex(index), Ledger(ledger), Pots(pots)])
    tables = play(room, 4, 60)
    follower.catch_up()  # built while the bots play: the rest comes later
    more = play(room, 4, 100, seed=8)
    assert more == tables
    follower.catch_up()

    listed = {h.hand_id: h for h in indexed_hands(index, limit=10**6)}
    stored = winners = 0
    raked: dict[str, int] = {}
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
                started.deal.button,
            )
            assert [(s.seat, s.player, s.start) for s in found.seats] == [
                (s.seat, s.player, s.stack) for s in started.deal.seats
            ]
            assert found.ended == isinstance(ended, HandEnded)
            if isinstance(ended, HandEnded):
                assert {s.seat: s.final for s in found.seats} == dict(ended.stacks)
                assert found.rake == ended.rake
                won: dict[int, int] = {}
                for event in events:
                    if isinstance(event, PotAwarded):
                        for share in event.shares:
                            won[share.seat] = won.get(share.seat, 0) + share.amount
                assert {s.seat: s.won for s in found.seats} == {
                    s.seat: won.get(s.seat, 0) for s in started.deal.seats
                }
                assert found.winners == [
                    s.player
                    for s in sorted(started.deal.seats, key=lambda s: s.seat)
                    if won.get(s.seat, 0) > 0
                ]
                winners += bool(found.winners)
                raked[str(table_id)] = raked.get(str(table_id), 0) + ended.rake
            stored += 1
    assert stored == len(listed) > 20
    assert winners > 20

    took = house_take(index, 3600)
    assert sum(t.rake + t.time_charges for t in took) == sum(
        room.table(t).table.house for t in tables
    )
    assert all(r.hands > 0 for r in results(index))
    paid: dict[str, int] = {}
    won: dict[tuple[str, str], int] = {}
    for hand in listed.values():
        for seat in hand.seats:
            key = (seat.player, hand.table_id)
            won[key] = won.get(key, 0) + seat.won
    for r in results(index):
        paid[r.table_id] = paid.get(r.table_id, 0) + r.rake
        assert r.rake >= 0
        if won.get((r.player, r.table_id), 0) == 0:
            assert r.rake == 0, r  # the rake falls on the pots' winners only
        assert results(index, player=r.player) == [
            x for x in results(index) if x.player == r.player
        ]
    assert {t: a for t, a in paid.items() if a} == {t: a for t, a in raked.items() if a}
    assert sum(paid.values()) > 0
    first = indexed_hands(index, limit=5)
    page = indexed_hands(index, after=(first[-1].at, first[-1].hand_id), limit=5)
    assert [h.hand_id for h in first + page] == [h.hand_id for h in indexed_hands(index, limit=10)]
    player = first[0].seats[0].player
    assert all(player in {s.player for s in h.seats} for h in indexed_hands(index, player=player))
    assert all(json.dumps(h.stakes) for h in first)

    live = [rows(index), rows(ledger), rows(pots)]
    for view in (index, ledger, pots):
        view.drop()
    Follower(room.streams, [HandIndex(index), Ledger(ledger), Pots(pots)]).catch_up()
    assert [rows(index), rows(ledger), rows(pots)] == live


def test_a_pots_rake_falls_on_its_winners_in_proportion_odd_chips_to_the_larger_share() -> None:
    assert rake_paid(5, (Share(1, 60, "", ""), Share(3, 30, "", ""))) == {1: 4, 3: 1}
    # one seat with both halves of a split pot counts once, with both; a tie
    # for the odd chip goes to the lower seat
    halves = (Share(4, 40, "high", ""), Share(2, 20, "high", ""), Share(2, 20, "low", ""))
    assert rake_paid(3, halves) == {2: 2, 4: 1}
    assert rake_paid(1, (Share(1, 50, "", ""), Share(2, 50, "", ""))) == {1: 1}
    assert rake_paid(0, (Share(1, 50, "", ""),)) == {}
