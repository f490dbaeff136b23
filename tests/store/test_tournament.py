"""Tournaments through the Room on both stores: entries paid from the
players' accounts into the prize pool and to the house, the seats drawn
and the tables opened when a sit-and-go fills, every hand dealt as its
director lets it and ended through it (eliminations, moves, broken
tables, places and prizes), refunds when one is cancelled; tournament
chips never leave the tournament, and the store's ledger balances."""

from __future__ import annotations

import random
from collections.abc import Iterable
from uuid import UUID

import pytest

from feltline.cardroom.clock import Clock
from feltline.cardroom.errors import TournamentNotFound, TournamentTable
from feltline.cardroom.room import CreateTournament, Room
from feltline.cardroom.work import Outcome
from feltline.domain.account import InsufficientChips
from feltline.domain.ids import account_id, chips_id, house_id, pool_id, tournament_table_id
from feltline.engine.errors import ConfigError, RuleError
from feltline.engine.hand import betting
from feltline.engine.hand.events import Action
from feltline.engine.hand.rules import Game, Rules, Stakes, Structure
from feltline.engine.table.events import HandFinished
from feltline.engine.table.house import TableConfig, TimeBank
from feltline.engine.tournament import (
    Band,
    Level,
    PlayerMoved,
    RegistrationError,
    Start,
    TableBroken,
)
from feltline.projections.follow import Follower
from feltline.projections.ledger import Ledger, LedgerView, account_book, books
from feltline.projections.view import open_view
from feltline.store.check import check
from feltline.store.config import StoreConfig
from feltline_replay.cli import main as replay

from .conftest import Store
from .players import cid

BUY_IN, FEE, STACK = 100, 10, 500


def _blinds(small: int, big: int) -> Stakes:
    return Stakes(Structure.NO_LIMIT, big, small_blind=small, big_blind=big)


LEVELS = tuple(Level(_blinds(5 * 2**n, 10 * 2**n), hands=4) for n in range(12))
HOLDEM = TableConfig(Rules(Game.HOLDEM, LEVELS[0].stakes or _blinds(5, 10)), 6)


def assert_ranked(placed: Iterable[int], entrants: int) -> None:
    """Every entrant placed, one winner, and each place one more than the
    players above it: players out in one hand with equal stacks share a
    place (the rules), so [1, 2, 3, 3, 5] is right and [1, 2, 3, 4, 4] is
    not."""
    places = sorted(placed)
    assert len(places) == entrants, places
    assert places.count(1) == 1, places
    assert all(p == 1 + sum(q < p for q in places) for p in places), places


def create(room: Room, *, entrants: int, size: int = 6, command_id: str = "") -> UUID:
    shares = (7000, 3000) if entrants >= 3 else (10_000,)
    payouts = (Band(max(entrants, 2), shares),)
    setup = CreateTournament(
        "Turbo",
        TableConfig(HOLDEM.rules, size),
        LEVELS,
        buy_in=BUY_IN,
        fee=FEE,
        stack=STACK,
        payouts=payouts,
        start=Start.SIT_AND_GO,
        entrants=entrants,
        by="admin",
    )
    return room.create_tournament(command_id or cid(), setup, at=0)


def players(room: Room, n: int) -> list[str]:
    names = [f"p{i:02}" for i in range(n)]
    for name in names:
        room.mint(cid(), name, 1_000, by="admin")
    return names


def move(room: Room, table: UUID, rng: random.Random) -> Outcome:
    """One random move at a table's hand: mostly calls and checks, a fold
    a bet in five, a raise of the least now and then, all in rarely (and
    not in the first three hands, so that a tournament lasts a few)."""
    number = room.table(table).table.hands
    o = betting.options(room.hand(table, number).hand)
    roll = rng.random()
    action, amount = (Action.CALL if o.to_call else Action.CHECK), 0
    if o.bring_in:
        action = Action.BRING_IN
    elif o.raise_action is not None and roll < 0.1:  # all in from the fourth hand on
        action, amount = o.raise_action, o.most if roll < 0.02 and number > 3 else o.least
    elif o.to_call and roll > 0.8:
        action = Action.FOLD
    return room.act(table, number, cid(), o.seat, action, amount=amount, at=0)


def play(room: Room, key: UUID, rng: random.Random, on_step: object = None) -> int:
    """Deal and play every table until the tournament ends; the hands dealt.
    After every request, the tournament's chips are all at its tables."""
    dealt = 0
    for _ in range(50_000):
        state = room.tournament(key).tournament
        if state.over:
            return dealt
        for number in sorted(state.tables):
            table = tournament_table_id(key, number)
            if room.table(table).table.dealt is None:
                try:
                    dealt += bool(room.deal_tournament(table, at=0).number)
                except RuleError:
                    continue
            else:
                move(room, table, rng)
            chips = sum(
                s.stack
                for n in room.tournament(key).tournament.tables
                for s in room.table(tournament_table_id(key, n)).table.seats
            )
            assert chips in {0, len(state.registered) * STACK}
    raise AssertionError("the tournament did not end")


def verified(store: Store, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether ``feltline-replay verify`` passes the whole store: the
    tournament's chain, its tables (stakes changed, players seated and
    moved) and hands, and the accounts' moves."""
    for name, value in store.env.items():
        monkeypatch.setenv(name, value)
    where = store.env.get("SQLITE_DBNAME") or "postgres"
    return replay(["verify", "--store", where, "--public-key", store.signer.public_hex]) == 0


def test_a_sit_and_go_pays_its_entries_and_prizes_and_balances(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    room = store.room()
    key = create(room, entrants=6)
    names = players(room, 6)
    for name in names[:5]:
        assert room.register_tournament(key, cid(), name, at=0)
        assert room.balance(name) == 1_000 - BUY_IN - FEE
    assert not room.tournament(key).tournament.tables  # not full yet: no table
    assert room.account(pool_id(key)).balance == 5 * BUY_IN
    assert room.account(house_id()).balance == 5 * FEE
    last = cid()
    assert room.register_tournament(key, last, names[5], at=0)
    assert not room.register_tournament(key, last, names[5], at=0)  # a repeat stores nothing
    state = room.tournament(key).tournament
    assert state.running
    assert room.account(chips_id(key)).balance == 0  # every chip minted is at the table
    seated = room.table(tournament_table_id(key, 1)).table.seats
    assert sorted(s.player for s in seated) == names
    assert {s.stack for s in seated} == {STACK}
    dealt = play(room, key, random.Random(7))
    state = room.tournament(key).tournament
    assert state.finished is not None
    assert dealt > 3
    pool = 6 * BUY_IN
    assert sum(state.paid.values()) == pool
    assert room.account(pool_id(key)).balance == 0
    assert sum(room.balance(n) for n in names) == 6 * (1_000 - BUY_IN - FEE) + pool
    assert room.account(chips_id(key)).balance == 6 * STACK  # back from the closed table
    assert room.table(tournament_table_id(key, 1)).table.closed
    assert_ranked(state.placed.values(), 6)
    ledger = check(store.streams())
    assert ledger.problems == []
    assert ledger.balanced
    assert verified(store, monkeypatch)


def test_a_multi_table_tournament_balances_and_breaks_its_tables(store: Store) -> None:
    room = store.room()
    key = create(room, entrants=14, size=5)
    for name in players(room, 14):
        room.register_tournament(key, cid(), name, at=0)
    assert sorted(room.tournament(key).tournament.tables) == [1, 2, 3]
    play(room, key, random.Random(3))
    stream = room.tournament(key)
    events = [e for _, made in stream.commands.values() for e in made]
    assert any(isinstance(e, PlayerMoved) for e in events)
    broken = [e.table for e in events if isinstance(e, TableBroken)]
    assert broken
    for number in (1, 2, 3):
        assert room.table(tournament_table_id(key, number)).table.closed
    assert stream.tournament.finished is not None
    assert sum(stream.tournament.paid.values()) == 14 * BUY_IN
    assert check(store.streams()).problems == []


def test_a_cancelled_tournament_refunds_its_entries(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    room = store.room()
    key = create(room, entrants=6)
    names = players(room, 3)
    for name in names:
        room.register_tournament(key, cid(), name, at=0)
    room.unregister_tournament(key, cid(), names[0], at=0)
    assert room.balance(names[0]) == 1_000
    assert room.cancel_tournament(key, cid(), reason="rain", by="admin", at=0)
    assert [room.balance(n) for n in names] == [1_000] * 3
    assert room.account(pool_id(key)).balance == 0
    assert room.account(house_id()).balance == 0
    with pytest.raises(RegistrationError):
        room.register_tournament(key, cid(), names[0], at=0)
    assert check(store.streams()).problems == []
    assert verified(store, monkeypatch)


def test_bad_requests_change_nothing(store: Store) -> None:
    room = store.room()
    with pytest.raises(TournamentNotFound):
        room.register_tournament(UUID(int=1), cid(), "nobody", at=0)
    with pytest.raises(ConfigError):
        create(room, entrants=1)
    key = create(room, entrants=2)
    room.mint(cid(), "poor", BUY_IN, by="admin")
    with pytest.raises(InsufficientChips):
        room.register_tournament(key, cid(), "poor", at=0)
    assert room.balance("poor") == BUY_IN
    assert room.tournament(key).tournament.registered == ()
    for name in players(room, 2):
        room.register_tournament(key, cid(), name, at=0)
    table = tournament_table_id(key, 1)
    with pytest.raises(TournamentTable):
        room.sit_down(table, cid(), 3, "poor", 10, at=0)
    with pytest.raises(TournamentTable):
        room.deal(table, cid(), at=0)
    assert account_id("poor") not in {s.player for s in room.table(table).table.seats}


def test_the_clock_deals_a_tournament_s_tables_as_its_director_lets_it(store: Store) -> None:
    """No request deals here: the clock does, at every table between hands
    that its director lets deal, and the time-outs of players who never
    act move the tournament on too, to its end."""
    room = store.room()
    now = [1_000]
    clock = Clock(room, lambda: now[0], logged=lambda name, /, **fields: None)
    key = create(room, entrants=3)
    names = players(room, 3)
    for name in names:
        room.register_tournament(key, cid(), name, at=now[0])
    rng = random.Random(5)
    for _ in range(5_000):
        if room.tournament(key).tournament.over:
            break
        clock.tick()
        table = tournament_table_id(key, 1)
        if room.table(table).table.dealt is not None and rng.random() < 0.9:
            move(room, table, rng)
        else:
            now[0] += 31  # nobody acts: the action clock does
    state = room.tournament(key).tournament
    assert state.finished is not None
    assert room.table(tournament_table_id(key, 1)).table.hands > 1
    assert sum(state.paid.values()) == 3 * BUY_IN
    assert check(store.streams()).problems == []


def test_a_tournament_s_tables_give_a_silent_player_the_time_bank_first(store: Store) -> None:
    """The tournament's table settings carry its time bank to every table:
    a player who does not act has the bank put on their clock, and is acted
    for once that runs out too."""
    room = store.room()
    now = [1_000]
    clock = Clock(room, lambda: now[0], logged=lambda name, /, **fields: None)
    config = TableConfig(HOLDEM.rules, 6, action_clock=30, time_bank=TimeBank(20, 5))
    setup = CreateTournament(
        "Banked",
        config,
        LEVELS,
        buy_in=BUY_IN,
        fee=FEE,
        stack=STACK,
        payouts=(Band(2, (10_000,)),),
        start=Start.SIT_AND_GO,
        entrants=2,
        by="admin",
    )
    key = room.create_tournament(cid(), setup, at=0)
    for name in players(room, 2):
        room.register_tournament(key, cid(), name, at=now[0])
    table = tournament_table_id(key, 1)
    clock.tick()
    assert room.table(table).table.dealt is not None
    assert [s.bank for s in room.table(table).table.seats] == [20, 20]
    clock.tick()  # the hand's deadline
    before = room.hand(table, 1).version
    now[0] += 30
    assert clock.tick() == 0  # the bank went on: nobody is acted for
    assert room.table(table).table.banked == (before, 20)
    now[0] += 19
    assert clock.tick() == 0
    assert room.hand(table, 1).version == before
    now[0] += 1
    assert clock.tick() == 1
    assert room.hand(table, 1).version > before
    assert check(store.streams()).problems == []


BANK = TimeBank(20, 5)


def banked(room: Room) -> UUID:
    """A 14-player tournament at tables of 5 with a time bank, its seats
    drawn."""
    config = TableConfig(HOLDEM.rules, 5, action_clock=30, time_bank=BANK)
    setup = CreateTournament(
        "Banked",
        config,
        LEVELS,
        buy_in=BUY_IN,
        fee=FEE,
        stack=STACK,
        payouts=(Band(14, (7000, 3000)),),
        start=Start.SIT_AND_GO,
        entrants=14,
        by="admin",
    )
    key = room.create_tournament(cid(), setup, at=0)
    for name in players(room, 14):
        room.register_tournament(key, cid(), name, at=0)
    return key


def _banks(room: Room, key: UUID) -> dict[str, tuple[int, int, int]]:
    """Each seated player's table, seat and time bank left."""
    return {
        s.player: (number, s.number, s.bank)
        for number in room.tournament(key).tournament.tables
        for s in room.table(tournament_table_id(key, number)).table.seats
    }


def play_spending_banks(room: Room, key: UUID, rng: random.Random) -> list[tuple[str, int, int]]:
    """Play the tournament to its end, a player on the clock putting their
    time bank on it three times in ten; each move, as the player, the bank
    they had left at the table they left and the one they sat down with."""
    moves: list[tuple[str, int, int]] = []
    for _ in range(50_000):
        state = room.tournament(key).tournament
        if state.over:
            return moves
        for number in sorted(state.tables):
            table = tournament_table_id(key, number)
            before = _banks(room, key)
            at_table = room.table(table).table
            try:
                if at_table.dealt is None:
                    outcome = room.deal_tournament(table, at=0)
                else:
                    hand = room.hand(table, at_table.hands).hand
                    seat = at_table.seat(betting.options(hand).seat)
                    assert seat is not None
                    if seat.bank and at_table.banked is None and rng.random() < 0.3:
                        outcome = room.use_time_bank(table, at_table.hands, seat.number, at=10**9)
                    else:
                        outcome = move(room, table, rng)
            except RuleError:
                continue
            ended = next((e for e in outcome.table if isinstance(e, HandFinished)), None)
            for player, (where, _, bank) in _banks(room, key).items():
                origin, seat_number, left = before[player]
                if where == origin:
                    continue
                if origin == number and ended is not None and seat_number in dict(ended.stacks):
                    left = min(BANK.seconds, left + BANK.refill)  # the hand just ended there
                moves.append((player, left, bank))
    raise AssertionError("the tournament did not end")


def test_a_moved_player_brings_the_time_bank_they_had_left(store: Store) -> None:
    """Issue #28: a player the director moves, to balance or break tables,
    sits down at the new table with the time bank they had left at the old
    one, never a full one. Players here put their bank on the clock often,
    and it refills 5 s after each hand they were dealt into, so banks of
    all sizes move."""
    room = store.room()
    key = banked(room)
    moves = play_spending_banks(room, key, random.Random(3))
    assert [m for m in moves if m[1] != m[2]] == []
    assert any(left < BANK.seconds for _, left, _ in moves), moves  # spent banks moved
    assert room.tournament(key).tournament.finished is not None
    assert check(store.streams()).problems == []


def test_the_clock_starts_a_scheduled_tournament_at_its_time_or_cancels_it(store: Store) -> None:
    room = store.room()
    now = [1_000]
    clock = Clock(room, lambda: now[0], logged=lambda name, /, **fields: None)

    def scheduled(minimum: int) -> UUID:
        setup = CreateTournament(
            "Nightly",
            HOLDEM,
            LEVELS,
            buy_in=BUY_IN,
            fee=FEE,
            stack=STACK,
            payouts=(Band(8, (10_000,)),),
            start=Start.SCHEDULED,
            entrants=8,
            by="admin",
            minimum=minimum,
            starts_at=now[0] + 600,
        )
        return room.create_tournament(cid(), setup, at=now[0])

    full, empty = scheduled(3), scheduled(4)
    names = players(room, 3)
    for name in names:
        room.register_tournament(full, cid(), name, at=now[0])
        room.register_tournament(empty, cid(), name, at=now[0])
    clock.tick()
    assert room.tournament(full).tournament.started_at is None
    now[0] += 600
    clock.tick()
    assert room.tournament(full).tournament.started_at == now[0]
    clock.tick()
    assert room.table(tournament_table_id(full, 1)).table.dealt is not None  # the clock dealt
    cancelled = room.tournament(empty).tournament.cancelled
    assert cancelled is not None
    assert [r.amount for r in cancelled.refunds] == [BUY_IN + FEE] * 3
    assert [room.balance(n) for n in names] == [1_000 - BUY_IN - FEE] * 3


def test_a_new_room_carries_a_tournament_on_mid_hand(store: Store) -> None:
    """Everything a tournament is lives in the store: a room opened afresh
    (a restarted server) finishes the hand another left, and the
    tournament, paying nothing twice."""
    first = store.room()
    key = create(first, entrants=3)
    names = players(first, 3)
    for name in names:
        first.register_tournament(key, cid(), name, at=0)
    table = tournament_table_id(key, 1)

    def call(room: Room) -> None:  # checks and calls only: nobody is knocked out yet
        number = room.table(table).table.hands
        o = betting.options(room.hand(table, number).hand)
        action = Action.CALL if o.to_call else Action.CHECK
        room.act(table, number, cid(), o.seat, action, at=0)

    for _ in range(3):
        first.deal_tournament(table, at=0)
        while first.table(table).table.dealt is not None:
            call(first)
    first.deal_tournament(table, at=0)
    call(first)
    assert first.table(table).table.dealt is not None  # mid-hand
    first.close()
    again = store.room()
    play(again, key, random.Random(11))
    state = again.tournament(key).tournament
    assert state.finished is not None
    assert sum(state.paid.values()) == 3 * BUY_IN
    assert sum(again.balance(n) for n in names) == 3 * (1_000 - BUY_IN - FEE) + 3 * BUY_IN
    assert check(store.streams()).problems == []


def test_the_ledger_books_every_entry_prize_and_refund_once(store: Store) -> None:
    """The ledger view books each move between accounts once (from its
    Transferred): the pool and the house hold what their accounts hold."""
    room = store.room()
    paid_out = create(room, entrants=3)
    refunded = create(room, entrants=6)
    names = players(room, 3)
    for name in names:
        room.register_tournament(paid_out, cid(), name, at=0)
        room.register_tournament(refunded, cid(), name, at=0)
    room.cancel_tournament(refunded, cid(), reason="rain", by="admin", at=0)
    play(room, paid_out, random.Random(2))
    env = StoreConfig.from_env(store.env).env
    view = open_view(LedgerView, env)
    Follower(room.streams, [Ledger(view)]).catch_up()
    balances = books(view)
    for key in (pool_id(paid_out), pool_id(refunded), house_id(), chips_id(paid_out)):
        assert balances.get(account_book(key), 0) == room.account(key).balance
    for name in names:
        assert balances.get(account_book(account_id(name)), 0) == room.balance(name)
    assert balances.get(account_book(house_id()), 0) == 3 * FEE
    assert sum(balances.values()) == 0
