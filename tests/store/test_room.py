"""The Room against both stores: chips between accounts and seats, deals
from the table's commitment, a hand's end settled with the table in one
transaction, leavers folded, the action clock, repeated requests,
concurrent tables and racing writers."""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from uuid import UUID

import pytest

from feltline.cardroom.errors import ClockRunning, NotFound
from feltline.cardroom.room import Room
from feltline.cardroom.work import Committed
from feltline.domain.account import InsufficientChips
from feltline.domain.hand import CommandIdReused, Sealed
from feltline.domain.ids import CommandIdError, hand_id, table_id
from feltline.domain.table import TableRecord
from feltline.engine.errors import NotYourTurn
from feltline.engine.hand.events import Acted, Action, HandEnded, HandStarted
from feltline.engine.hand.rules import Game
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.errors import HandInProgressError, SeatUnavailableError, TableClosedError
from feltline.engine.table.events import (
    HandDealt,
    HandFinished,
    LeavingAfterHand,
    StoodUp,
    TableClosed,
    TimeCharged,
)
from feltline.engine.table.house import TableConfig, TimeCharge
from feltline.store.check import check
from feltline.store.streams import Conflict
from tests.tables import TABLES

from .conftest import Store
from .play import play_out
from .players import Players, cid, finished, open_tables

HOLDEM = TableConfig(TABLES[Game.HOLDEM], 6)  # no limit 5/10: buy-ins 400 to 1000


def seated(room: Room, players: int, config: TableConfig = HOLDEM) -> UUID:
    """A table with ``players`` players of 1,000 chips each, 500 of them in play."""
    table = room.open_table(cid(), config, at=0)
    for seat in range(1, players + 1):
        room.mint(cid(), f"p{seat}", 1000, by="admin")
        room.sit_down(table, cid(), seat, f"p{seat}", 500, at=0)
    return table


def test_a_request_retried_a_second_later_is_a_repeat(store: Store) -> None:
    """The time is the server's, stamped on every attempt: a client whose
    first attempt was stored late retries with the same id at a later
    second, and must get the first answer, not REQUEST_ID_REUSED."""
    room = store.room()
    assert room.open_table("t", HOLDEM, at=1) == room.open_table("t", HOLDEM, at=9)
    table = table_id("t")
    room.mint(cid(), "ann", 1000, by="admin")
    sat = room.sit_down(table, "s1", 1, "ann", 500, at=2)
    version = room.table(table).version
    assert room.sit_down(table, "s1", 1, "ann", 500, at=7) == sat
    assert room.table(table).version == version
    assert room.balance("ann") == 500
    with pytest.raises(CommandIdReused):
        room.sit_down(table, "s1", 2, "ann", 500, at=7)
    closed = room.close_table(table, "c1", at=3)
    assert room.close_table(table, "c1", at=8) == closed


def test_chips_move_between_accounts_and_seats(store: Store) -> None:
    room = store.room()
    table = room.open_table("t", HOLDEM, at=0)
    with pytest.raises(InsufficientChips, match="ann has 0 chips off the table, not the 500"):
        room.sit_down(table, "s1", 1, "ann", 500, at=0)
    assert room.mint("m1", "ann", 1200, by="admin") == 1200
    room.sit_down(table, "s1", 1, "ann", 500, at=0)
    assert room.balance("ann") == 700
    room.add_chips(table, "a1", 1, 300)
    assert room.balance("ann") == 400
    outcome = room.stand_up(table, "u1", 1, at=0)
    assert outcome.table == (StoodUp(1, "ann", 800),)
    assert room.balance("ann") == 1200
    assert room.cash_out("c1", "ann", 200) == 1000
    with pytest.raises(InsufficientChips):
        room.cash_out("c2", "ann", 1001)
    ledger = check(room.streams)
    assert (ledger.minted, ledger.cashed_out, ledger.accounts, ledger.problems) == (
        1200,
        200,
        1000,
        [],
    )


def test_a_deal_starts_the_hand_from_the_tables_commitment(store: Store) -> None:
    room = store.room()
    table = seated(room, 3)
    outcome = room.deal(table, "d1", at=10)
    dealt, started = outcome.table[-1], outcome.hand[0]
    assert isinstance(dealt, HandDealt)
    assert isinstance(started, HandStarted)
    assert outcome.number == dealt.hand == 1
    assert started.commitment == dealt.commitment
    assert started.rules == HOLDEM.rules
    assert started.deal == dealt.deal
    play_out(room, table, 1, random.Random(1))
    hand = store.room().hand(table, 1)
    ended = hand.commands[next(reversed(hand.commands))][1][-1]
    assert isinstance(ended, HandEnded)
    assert hashlib.sha256(ended.seed).hexdigest() == dealt.commitment
    assert hand.seal is not None


def test_a_hands_end_and_the_tables_new_stacks_are_saved_together(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    room, other = store.room(), store.room()
    table = seated(room, 2)
    room.deal(table, "d1", at=0)
    hand = room.hand(table, 1)
    seat = waiting_on(hand.hand)[0]
    with monkeypatch.context() as m:
        m.setattr(room, "look", lambda: None)  # the other writes after room's look
        other.stand_up(table, "leave", 3 - seat, at=0)  # the table moves on behind room's back
        room.retries = 1
        with pytest.raises(Conflict):
            room.act(table, 1, "fold", seat, Action.FOLD, at=0)
    fresh = store.room()
    assert fresh.hand(table, 1).version == hand.version  # the hand's end was not stored alone
    assert fresh.table(table).table.dealt is not None
    room.retries = 5
    outcome = room.act(table, 1, "fold", seat, Action.FOLD, at=0)  # decided again on the new state
    assert isinstance(outcome.hand[-1], HandEnded)
    assert [type(e) for e in outcome.table] == [HandFinished, StoodUp]
    assert store.room().table(table).table.seats == room.table(table).table.seats
    assert check(room.streams).problems == []


def test_a_player_who_stands_up_during_a_hand_is_folded_at_their_turn(store: Store) -> None:
    room = store.room()
    table = seated(room, 4)
    room.deal(table, "d1", at=0)
    hand = room.hand(table, 1).hand
    first = waiting_on(hand)[0]
    later = hand.clockwise(first)[0].seat  # acts after first
    leaving = room.stand_up(table, "up", later, at=5)
    assert leaving.table == (LeavingAfterHand(later),)
    assert leaving.hand == ()
    moved = room.act(table, 1, "call", first, Action.CALL, at=6)
    assert Acted(later, Action.FOLD, 0, 0) in moved.hand  # the button, who had put in nothing
    assert room.stand_up(table, "up", later, at=5) == leaving  # a repeat, not a second stand-up
    now = waiting_on(room.hand(table, 1).hand)[0]
    at_once = room.stand_up(table, "now", now, at=7)
    assert at_once.table[0] == LeavingAfterHand(now)
    assert any(isinstance(e, Acted) and e.seat == now for e in at_once.hand)
    play_out(room, table, 1, random.Random(2))
    assert {s.number for s in room.table(table).table.seats} == {1, 2, 3, 4} - {later, now}
    assert room.balance(f"p{later}") == 1000
    assert check(room.streams).problems == []


def test_a_time_out_waits_for_the_action_clock(store: Store) -> None:
    room = store.room()
    table = seated(room, 3)
    room.deal(table, "d1", at=100)
    seat = waiting_on(room.hand(table, 1).hand)[0]
    with pytest.raises(ClockRunning, match="has until 130 to act, and it is only 129"):
        room.time_out(table, 1, "late", seat, at=129)
    outcome = room.time_out(table, 1, "late", seat, at=130)
    acted = outcome.hand[0]
    assert isinstance(acted, Acted)
    assert (acted.seat, acted.action, acted.timed_out) == (seat, Action.FOLD, True)
    assert store.room().hand(table, 1).since == 130


def test_a_repeated_request_answers_as_before_and_stores_nothing(store: Store) -> None:
    room = store.room()
    table = seated(room, 3)
    dealt = room.deal(table, "d1", at=0)
    versions = room.table(table).version, room.hand(table, 1).version
    again = store.room()
    assert again.deal(table, "d1", at=0) == dealt
    seat = waiting_on(room.hand(table, 1).hand)[0]
    called = room.act(table, 1, "c1", seat, Action.CALL, at=1)
    assert again.act(table, 1, "c1", seat, Action.CALL, at=1) == called
    assert room.act(table, 1, "c1", seat, Action.CALL, at=1) == called
    assert again.table(table).version == versions[0]
    assert again.hand(table, 1).version == versions[1] + len(called.hand)
    with pytest.raises(CommandIdReused):
        room.act(table, 1, "c1", seat, Action.FOLD, at=1)
    assert room.deal(table, "d1", at=5) == dealt  # the server's clock is not the request
    assert room.mint("m", "zed", 10, by="admin") == room.mint("m", "zed", 10, by="admin") == 10
    with pytest.raises(CommandIdReused):
        room.mint("m", "zed", 11, by="admin")
    assert room.open_table("t", HOLDEM, at=0) == room.open_table("t", HOLDEM, at=0)


def test_unknown_tables_and_hands_and_bad_ids_are_refused(store: Store) -> None:
    room = store.room()
    table = seated(room, 2)
    with pytest.raises(NotFound, match="there is no table"):
        room.deal(UUID(int=1), "d", at=0)
    with pytest.raises(NotFound, match="hands 1 to 0, not 1"):
        room.act(table, 1, "a", 1, Action.CALL, at=0)
    with pytest.raises(CommandIdError):
        room.deal(table, "a/b", at=0)
    with pytest.raises(CommandIdError):
        room.mint("", "p1", 5, by="admin")


def test_many_threads_play_many_tables_at_once(store: Store) -> None:
    room = store.room()
    tables = open_tables(room, 8)
    errors: list[BaseException] = []

    def play(n: int) -> None:
        players = Players(room, tables[n], random.Random(n))
        try:
            while room.table(tables[n]).table.hands < 4:
                players.step()
        except BaseException as e:
            errors.append(e)
            raise

    with ThreadPoolExecutor(len(tables)) as pool:
        list(pool.map(play, range(len(tables))))
    assert errors == []
    assert finished(room, tables) >= 3 * len(tables)
    commit = room.streams.group_commits[0]
    assert commit.transactions < commit.requests  # concurrent tables' saves went together
    ledger = check(store.streams())
    assert ledger.problems == []
    assert ledger.tables == len(tables)


def race(rooms: list[Room], request: Callable[[Room], object]) -> list[str]:
    barrier = threading.Barrier(len(rooms))

    def run(room: Room) -> str:
        barrier.wait()
        try:
            request(room)
        except (SeatUnavailableError, HandInProgressError, NotYourTurn) as e:
            return type(e).__name__
        return "stored"

    with ThreadPoolExecutor(len(rooms)) as pool:
        return list(pool.map(run, rooms))


def test_two_writers_racing_on_one_table_or_hand_cannot_both_succeed(store: Store) -> None:
    one, two = store.room(), store.room()
    table = seated(one, 2)
    two.table(table)  # both have the table in memory
    for player in ("ann", "bob"):
        one.mint(cid(), player, 500, by="admin")
    outcomes = race(
        [one, two],
        lambda room: room.sit_down(table, cid(), 3, "ann" if room is one else "bob", 400, at=0),
    )
    assert sorted(outcomes) == ["SeatUnavailableError", "stored"]
    assert sorted([one.balance("ann"), one.balance("bob")]) == [100, 500]
    outcomes = race([one, two], lambda room: room.deal(table, cid(), at=0))
    assert sorted(outcomes) == ["HandInProgressError", "stored"]
    assert store.room().table(table).table.hands == 1
    seat = waiting_on(store.room().hand(table, 1).hand)[0]
    outcomes = race([one, two], lambda room: room.act(table, 1, cid(), seat, Action.CALL, at=0))
    assert sorted(outcomes) == ["NotYourTurn", "stored"]
    events = [e for _, made in store.room().hand(table, 1).commands.values() for e in made]
    assert [(e.seat, e.action) for e in events if isinstance(e, Acted)] == [(seat, Action.CALL)]
    assert check(one.streams).problems == []


def test_a_passed_jackpots_deal_carries_its_pot_and_time_charges_go_to_the_house(
    store: Store,
) -> None:
    room = store.room()
    config = TableConfig(TABLES[Game.JACKPOTS], 6, time_charge=TimeCharge(3, window=600))
    table = seated(room, 3, config)  # antes of 5, buy-ins of 500
    first = room.deal(table, "d1", at=10)
    assert [type(e) for e in first.table] == [TimeCharged] * 3 + [HandDealt]
    while room.table(table).table.dealt is not None:
        seat = waiting_on(room.hand(table, 1).hand)[0]
        room.act(table, 1, cid(), seat, Action.CHECK, at=11)
    after = room.table(table).table
    assert after.pot.shares == ((1, 5), (2, 5), (3, 5))
    assert [s.stack for s in after.seats] == [492] * 3
    assert after.house == 9
    second = room.deal(table, "d2", at=20)  # the same window: no second charge
    dealt = second.table[-1]
    assert isinstance(dealt, HandDealt)
    assert [type(e) for e in second.table] == [HandDealt]
    assert [s.carried for s in dealt.deal.seats] == [5, 5, 5]
    started = second.hand[0]
    assert isinstance(started, HandStarted)
    assert started.deal == dealt.deal
    assert check(room.streams).problems == []


# ---- closing a table


def test_closing_a_table_mid_hand_gives_every_chip_back(store: Store) -> None:
    room = store.room()
    table = seated(room, 3)
    before = {p: room.balance(p) for p in ("p1", "p2", "p3")}
    seated_with = {s.player: s.stack for s in room.table(table).table.seats}
    room.deal(table, "d1", at=0)
    hand = room.hand(table, 1)
    seat = waiting_on(hand.hand)[0]
    room.act(table, 1, "raise", seat, Action.RAISE, amount=20, at=0)
    outcome = room.close_table(table, "close", at=5, reason="done")
    ended = outcome.hand[-1]
    assert isinstance(ended, HandEnded)
    assert ended.cancelled
    assert type(outcome.table[0]) is HandFinished
    assert outcome.table[-1] == TableClosed(5, "done")
    assert outcome.number == 1
    after = {p: room.balance(p) for p in before}
    assert after == {p: before[p] + seated_with[p] for p in before}
    fresh = store.room()
    assert fresh.table(table).table.closed
    assert fresh.table(table).table.seats == ()
    assert fresh.hand(table, 1).seal is not None
    ledger = check(fresh.streams)
    assert ledger.problems == []
    assert ledger.seats == 0
    assert room.close_table(table, "close", at=5, reason="done") == outcome  # a repeat


def test_a_closed_table_refuses_everything(store: Store) -> None:
    room = store.room()
    table = seated(room, 2)
    room.close_table(table, "close", at=1)
    with pytest.raises(TableClosedError, match="closed"):
        room.sit_down(table, "s9", 1, "p1", 100, at=2)
    with pytest.raises(TableClosedError, match="closed"):
        room.deal(table, "d1", at=2)
    with pytest.raises(TableClosedError, match="closed"):
        room.close_table(table, "close again", at=2)
    with pytest.raises(CommandIdReused):
        room.close_table(table, "close", at=3, reason="another")
    assert check(room.streams).problems == []


def test_closing_a_jackpots_table_mid_deal_returns_the_antes(store: Store) -> None:
    room = store.room()
    table = seated(room, 3, TableConfig(TABLES[Game.JACKPOTS], 6))
    room.deal(table, "d1", at=0)
    assert room.table(table).table.dealt is not None
    room.close_table(table, "close", at=1)
    assert [room.balance(f"p{n}") for n in (1, 2, 3)] == [1000, 1000, 1000]
    ledger = check(room.streams)
    assert ledger.problems == []
    assert ledger.seats == ledger.carried == ledger.house == 0


def test_closing_gives_a_carried_jackpots_pot_back(store: Store) -> None:
    room = store.room()
    table = seated(room, 3, TableConfig(TABLES[Game.JACKPOTS], 6))
    room.deal(table, "d1", at=0)
    while room.table(table).table.dealt is not None:  # everybody passes: the pot carries
        seat = waiting_on(room.hand(table, 1).hand)[0]
        room.act(table, 1, cid(), seat, Action.CHECK, at=0)
    carried = room.table(table).table.pot
    assert carried.total > 0
    assert len(carried.shares) == 3
    room.close_table(table, "close", at=1)
    assert [room.balance(f"p{n}") for n in (1, 2, 3)] == [1000, 1000, 1000]
    ledger = check(room.streams)
    assert ledger.problems == []
    assert ledger.seats == ledger.carried == ledger.house == 0


def test_listeners_hear_every_commit_at_a_table_as_stored(store: Store) -> None:
    room = store.room()
    heard: list[Committed] = []
    room.listen(heard.append)
    table = seated(room, 3)
    room.deal(table, "d1", at=0)
    play_out(room, table, 1, random.Random(7))
    room.deal(table, "d1", at=0)  # a repeat: nothing stored, nobody told
    stored = store.room()
    events = stored.streams.events
    table_records = [r for c in heard for r, _ in c.records if isinstance(r, TableRecord)]
    assert [r.originator_version for r in table_records] == list(
        range(1, stored.table(table).version + 1)
    )
    hand_records = [(r, e) for c in heard for r, e in c.records if not isinstance(r, TableRecord)]
    with_hand = [c for c in heard if any(not isinstance(r, TableRecord) for r, _ in c.records)]
    assert {c.hand for c in with_hand} == {1}
    assert [r.originator_version for r, _ in hand_records] == list(
        range(1, stored.hand(table, 1).version + 1)
    )
    assert [r for r, _ in hand_records] == list(events.get(hand_id(table, 1)))
    assert [e for r, e in hand_records if isinstance(r, Sealed)] == [None]
    assert [e for r, e in hand_records if e is not None] == [
        e for _, made in stored.hand(table, 1).commands.values() for e in made
    ]
