"""The ledger after bots play hundreds of hands of every game with rake, time charges, jackpots
carried pots and a table closed mid-hand: every book holds what the
cardroom's streams say it does, every hand's pot comes back to zero, and
the pots view holds the hands being played only, with the ledger's chips."""

from __future__ import annotations

import random

from feltline.domain.ids import account_id
from feltline.engine.hand.events import Action
from feltline.engine.hand.turn import waiting_on
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
from tests.store.players import PLAYERS, Players, cid, open_tables

# Each kind of entry and the event that writes it.
WRITTEN_BY = {
    "mint": {"Minted"},
    "buy-in": {"BoughtIn"},
    "cash-out": {"CashedOut", "Returned"},
    "forced-bet": {"Posted"},
    "bet": {"Acted"},
    "uncalled-bet": {"BetsCollected"},
    "pot-award": {"PotAwarded"},
    "rake": {"PotAwarded"},
    "time-charge": {"TimeCharged"},
    "carried-pot": {
        "HandStarted",
        "PassedOut",
        "JoinedPot",
        "StoodUp",
        "CarriedPotWon",
        "TableClosed",
    },
    "cancelled": {"HandEnded"},
}


def test_every_entry_names_the_table_hand_seat_and_player_it_moves_chips_for(
    store: Store,
) -> None:
    """What an auditor reads an entry by: its event, its table and hand, and
    the seat and player, each checked against the books the entry moves chips
    between (a book names its table and seat, an account its player's id)."""
    room = store.room()
    tables = play(room, 4, 150)
    sitting = room.table(tables[0]).table.seats[0].player
    room.mint("last", sitting, 5, by="admin")  # the last event an account's, named
    view = open_view(LedgerView, StoreConfig.from_env(store.env).env)
    Follower(room.streams, [Ledger(view)]).catch_up()
    entries = view.rows(
        "SELECT notification_id, line, kind, debit, credit, table_id, hand, seat, player, event "
        "FROM ledger_entries ORDER BY notification_id, line"
    )
    # An entry with the mint or the cashier names no player as stored: its
    # account's player is read from ledger_players (as projections.books does).
    players = {f"account:{a}": str(p) for a, p in view.rows("SELECT * FROM ledger_players")}
    lines: dict[int, list[int]] = {}
    seated, named = set(), set()  # (table, seat, player) of every buy-in, of every other entry
    minted = set()
    for notification, line, kind, debit, credit, table, hand, seat, stored, event in entries:
        player = stored or players.get(str(debit)) or players.get(str(credit)) or ""
        if kind == "mint":
            minted.add(player)
        lines.setdefault(int(notification), []).append(int(line))
        assert event in WRITTEN_BY[kind]
        books = (str(debit), str(credit))
        accounts = [b for b in books if b.startswith("account:")]
        if player:
            assert all(b == account_book(account_id(str(player))) for b in accounts)
        seats = [b.split(":") for b in books if b.startswith("seat:")]
        assert [(t, int(n)) for _, t, n in seats] == [(table, seat)] * len(seats)
        if not seats:
            assert seat is None
        tabled = [b.split(":")[1] for b in books if b.split(":")[0] in ("pot", "carried", "house")]
        assert tabled == [table] * len(tabled)
        if kind in ("mint", "cash-out") and not seats:  # the mint or the cashier
            assert (table, hand, player) == ("", 0, player)
        elif kind == "buy-in":
            assert hand == 0
            assert player
            seated.add((table, seat, player))
        elif event in ("HandStarted", "Posted", "Acted", "BetsCollected", "PotAwarded"):
            assert hand > 0
        if seats and kind != "buy-in":
            named.add((table, seat, player))
    assert all(numbers == list(range(1, len(numbers) + 1)) for numbers in lines.values())
    assert any(len(numbers) > 1 for numbers in lines.values())
    assert named <= seated  # a seat's chips are its player's, who bought in there
    assert sitting in minted  # the mint's entries name the account's player
    assert "" not in minted
    for table_id in tables:
        t, dealt = str(table_id), room.table(table_id).table.hands
        started = {int(e[6]) for e in entries if e[9] in ("Posted", "HandStarted") and e[5] == t}
        assert started == set(range(1, dealt + 1))  # every hand's chips go in under its number
    # Caught up: every event applied is tracked, an account's as a table's or a hand's.
    assert view.position(room.streams.name) == room.streams.recorder.max_notification_id()


def test_a_closed_jackpots_table_s_dead_money_goes_to_its_house_naming_the_table_alone(
    store: Store,
) -> None:
    """Players who leave together after a passed-out deal forfeit the whole
    carried pot, which nobody is then entitled to; with nobody seated the
    house keeps it when the table closes (``pot_refunds``): one entry,
    naming its table and no hand, seat or player (it is nobody's chips)."""
    room = store.room()
    (table_id,) = open_tables(room, 3, 2)  # the store's players' third table: jackpots
    players = Players(room, table_id, random.Random(3))
    while (table := room.table(table_id).table).dealt is not None or len(table.seats) < 3:
        players.step()
    at = players.now + 1
    room.deal(table_id, cid(), at=at)
    number, dealt = room.table(table_id).table.hands, room.table(table_id).table.dealt or ()
    for _ in dealt[1:]:  # all check but the last to act, who leaves last
        (seat, *_) = waiting_on(room.hand(table_id, number).hand)
        room.act(table_id, number, cid(), seat, Action.CHECK, at=at)
    (last, *_) = waiting_on(room.hand(table_id, number).hand)
    for seat in sorted(dealt, key=lambda s: s == last):
        room.stand_up(table_id, cid(), seat, at=at)
    for left in room.table(table_id).table.seats:  # not dealt in: entitled to nothing
        room.stand_up(table_id, cid(), left.number, at=at)
    pot = room.table(table_id).table.pot
    assert (pot.shares, room.table(table_id).table.seats) == ((), ())
    assert pot.dead > 0
    room.close_table(table_id, "closing", at=at)
    view = open_view(LedgerView, StoreConfig.from_env(store.env).env)
    Follower(room.streams, [Ledger(view)]).catch_up()
    t = str(table_id)
    closing = view.rows(
        "SELECT line, kind, debit, credit, amount, table_id, hand, seat, player "
        "FROM ledger_entries WHERE event = 'TableClosed'"
    )
    assert closing == [(1, "carried-pot", f"house:{t}", f"carried:{t}", pot.dead, t, 0, None, "")]
    assert books(view).get(f"carried:{t}", 0) == 0
    assert books(view)[f"house:{t}"] == room.table(table_id).table.house


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
