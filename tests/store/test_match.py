"""Duplicate matches through the Room on both stores: every seat gets the
same cards at every table whatever anyone does, draws included; scores are
zero-sum; a deal's seed is revealed only once every table has ended it;
tables run in step; a match survives a restart; chips stay conserved."""

from __future__ import annotations

import random
import threading
from uuid import UUID

import pytest

from feltline.cardroom.errors import MatchTable
from feltline.cardroom.room import Room
from feltline.domain.hand import HandStream
from feltline.domain.ids import bank_id
from feltline.domain.match import DealRevealed, SeatError, WaitingForTables
from feltline.engine.cards.card import Card
from feltline.engine.cards.deck import commitment
from feltline.engine.errors import ConfigError, RuleError
from feltline.engine.hand.commands import Act, Declare, Draw, TimeOut
from feltline.engine.hand.events import BoardDealt, CardDealt, Event, HandEnded, HandStarted
from feltline.engine.hand.rules import Game
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.house import TableConfig
from feltline.store.check import check
from tests.engine.players import choose
from tests.tables import TABLES

from .conftest import Store
from .players import cid

SEATS = {Game.HOLDEM: 4, Game.STUD_HI_LO: 4, Game.DRAW_DECLARE: 4}
STACK = 300


def create(room: Room, game: Game, *, deals: int = 3, ahead: int = 0, command_id: str = "") -> UUID:
    config = TableConfig(TABLES[game], SEATS[game])
    return room.create_match(
        command_id or cid(),
        f"duplicate {game}",
        config,
        tables=2,
        deals=deals,
        stack=STACK,
        ahead=ahead,
        by="admin",
        at=0,
    )


def seat_everyone(room: Room, match: UUID) -> None:
    setup = room.match(match).match.setup
    for t in range(len(setup.tables)):
        for seat in range(1, setup.config.seats + 1):
            room.join_match(match, cid(), t, seat, f"t{t}s{seat}")


def events(hand: HandStream) -> list[Event]:
    return [e for _, made in hand.commands.values() for e in made]


def step(room: Room, match: UUID, t: int, rng: random.Random, at: int = 0) -> bool:
    """One request at table ``t``: a deal when it may, else a random move
    (now and then letting the clock act); whether anything happened."""
    table_id = room.match(match).match.tables[t]
    table = room.table(table_id).table
    if table.dealt is None:
        try:
            room.deal_match(match, t, at=at)
        except WaitingForTables:
            return False
        return True
    number = table.hands
    hand = room.hand(table_id, number).hand
    move = choose(hand, rng)
    if rng.random() < 0.05:  # the player is away: the clock acts
        move = TimeOut(waiting_on(hand)[0])
    try:
        if isinstance(move, Act):
            room.act(table_id, number, cid(), move.seat, move.action, amount=move.amount, at=at)
        elif isinstance(move, Draw):
            room.draw(table_id, number, cid(), move.seat, move.discards, at=at)
        elif isinstance(move, Declare):
            room.declare(table_id, number, cid(), move.seat, move.choice, at=at)
        elif isinstance(move, TimeOut):
            room.time_out(table_id, number, cid(), move.seat, at=at + 10_000)
    except RuleError:
        pass
    return True


def play(room: Room, match: UUID, rngs: list[random.Random], *, until: int | None = None) -> None:
    """Step every table in turn until the match ends (or ``until`` deals are revealed)."""
    for _ in range(20_000):
        state = room.match(match).match
        if state.finished or (until is not None and len(state.revealed) >= until):
            return
        for t, rng in enumerate(rngs):
            step(room, match, t, rng)
    raise AssertionError("the match did not end")


def seat_cards(hand: HandStream) -> tuple[dict[int, list[Card]], list[Card]]:
    """Every card dealt to each seat, in order, and the board."""
    cards: dict[int, list[Card]] = {}
    board: list[Card] = []
    for e in events(hand):
        if isinstance(e, CardDealt):
            assert e.card is not None
            cards.setdefault(e.seat, []).append(e.card)
        elif isinstance(e, BoardDealt):
            board += e.cards
    return cards, board


def agree(first: list[Card], second: list[Card]) -> bool:
    """Whether two sequences dealt from fixed positions agree as far as both go."""
    n = min(len(first), len(second))
    return first[:n] == second[:n]


@pytest.mark.parametrize("game", sorted(SEATS))
def test_every_seat_gets_the_same_cards_at_both_tables_on_every_deal(
    store: Store, game: Game
) -> None:
    room = store.room()
    match = create(room, game)
    seat_everyone(room, match)
    play(room, match, [random.Random(1), random.Random(2)])
    state = room.match(match).match
    a, b = state.tables
    differed = False
    for deal in range(1, 4):
        first, second = room.hand(a, deal), room.hand(b, deal)
        cards_a, board_a = seat_cards(first)
        cards_b, board_b = seat_cards(second)
        for seat in range(1, SEATS[game] + 1):
            assert agree(cards_a[seat], cards_b[seat]), (deal, seat)
            assert len(cards_a[seat]) >= 2
        assert agree(board_a, board_b)
        started, other = events(first)[0], events(second)[0]
        assert isinstance(started, HandStarted)
        assert isinstance(other, HandStarted)
        assert started.commitment == state.setup.commitments[deal - 1] == other.commitment
        assert commitment(state.revealed[deal - 1]) == started.commitment
        differed = differed or [type(e) for e in events(first)] != [type(e) for e in events(second)]
    assert differed, "the bots should have played differently somewhere"
    if game is Game.DRAW_DECLARE:  # replacements are dealt too, and were compared above
        assert any(
            len(cards) > 5 for d in range(1, 4) for cards in seat_cards(room.hand(a, d))[0].values()
        )
    standings = state.standings()
    assert sum(s.score for s in standings) == 0
    assert sum(s.chips for s in standings) == 0
    assert {(s.table, s.seat) for s in standings} == {
        (t, s) for t in range(2) for s in range(1, SEATS[game] + 1)
    }
    ledger = check(room.streams)
    assert ledger.problems == []
    assert ledger.minted == 2 * SEATS[game] * STACK
    for t in range(2):  # between deals every chip is back in the table's bank
        assert room.account(bank_id(match, t)).balance == SEATS[game] * STACK


def test_a_seed_is_revealed_only_when_the_last_table_ends_the_deal(store: Store) -> None:
    room = store.room()
    match = create(room, Game.HOLDEM)
    seat_everyone(room, match)
    rng = random.Random(3)
    room.deal_match(match, 0, at=0)
    room.deal_match(match, 1, at=0)
    state = room.match(match).match
    first = state.tables[0]
    while room.table(first).table.dealt is not None:
        step(room, match, 0, rng)
    state = room.match(match).match
    assert state.dealt_to(0) == 1
    assert state.revealed == ()
    with pytest.raises(WaitingForTables, match="waits at deal 2"):
        room.deal_match(match, 0, at=0)
    # The hand at table 0 has ended and holds the seed, which the match has
    # not revealed: only a reader of the secret stream could know it.
    ended = events(room.hand(first, 1))[-1]
    assert isinstance(ended, HandEnded)
    assert commitment(ended.seed) == state.setup.commitments[0]
    while room.match(match).match.dealt_to(1) < 1:
        step(room, match, 1, rng)
    state = room.match(match).match
    assert state.revealed == (ended.seed,)
    assert len(state.standings()) == 8
    room.deal_match(match, 0, at=0)  # table 0 resumes as the slowest caught up


def test_a_table_may_run_ahead_as_far_as_the_match_allows(store: Store) -> None:
    room = store.room()
    match = create(room, Game.STUD_HI_LO, deals=4, ahead=1)
    seat_everyone(room, match)
    rng = random.Random(4)
    for deal in (1, 2):
        while room.match(match).match.dealt_to(0) < deal:
            step(room, match, 0, rng)
    with pytest.raises(WaitingForTables, match="may run 1 ahead"):
        room.deal_match(match, 0, at=0)
    assert room.match(match).match.revealed == ()
    play(room, match, [rng, random.Random(5)], until=1)
    room.deal_match(match, 0, at=0)  # deal 3, one ahead of table 1
    play(room, match, [rng, random.Random(5)])
    assert sum(s.score for s in room.match(match).match.standings()) == 0


def test_a_match_survives_a_restart_between_deals_and_mid_deal(store: Store) -> None:
    room = store.room()
    match = create(room, Game.DRAW_DECLARE)
    seat_everyone(room, match)
    rngs = [random.Random(6), random.Random(7)]
    play(room, match, rngs, until=1)
    room = store.room()  # between deals (a table may have dealt deal 2 already)
    for t, table in enumerate(room.match(match).match.tables):
        if room.table(table).table.dealt is None:
            room.deal_match(match, t, at=0)
        assert room.table(table).table.hands == 2
    for _ in range(5):
        step(room, match, 0, rngs[0])
    room = store.room()  # mid-deal
    play(room, match, rngs)
    state = room.match(match).match
    assert len(state.revealed) == 3
    assert check(room.streams).problems == []


def test_the_match_seats_its_tables_and_refuses_bad_requests(store: Store) -> None:
    room = store.room()
    match = create(room, Game.HOLDEM, command_id="m1")
    version = room.match(match).version
    assert create(room, Game.HOLDEM, command_id="m1") == match  # a repeat finds it
    assert room.match(match).version == version
    with pytest.raises(WaitingForTables, match="8 more players"):
        room.deal_match(match, 0, at=0)
    assert room.join_match(match, "j1", 0, 1, "ann")
    assert not room.join_match(match, "j1", 0, 1, "ann")  # a repeat stores nothing
    with pytest.raises(SeatError, match="taken by ann"):
        room.join_match(match, "j2", 0, 1, "bob")
    with pytest.raises(SeatError, match="already plays seat 1 at table 0"):
        room.join_match(match, "j3", 1, 1, "ann")
    with pytest.raises(SeatError, match="seats 1 to 4, not 5"):
        room.join_match(match, "j4", 1, 5, "bob")
    table = room.match(match).match.tables[0]
    with pytest.raises(MatchTable):
        room.sit_down(table, cid(), 2, "bob", STACK, at=0)
    with pytest.raises(MatchTable):
        room.deal(table, cid(), at=0)
    config = room.table(table).table.config
    assert config is not None
    with pytest.raises(ConfigError, match="opened by its match"):
        room.open_table(cid(), config, at=0)
    with pytest.raises(ConfigError, match="2 to 16 tables"):
        room.create_match(
            cid(),
            "x",
            TableConfig(TABLES[Game.HOLDEM], 4),
            tables=1,
            deals=2,
            stack=STACK,
            by="admin",
            at=0,
        )
    with pytest.raises(ConfigError, match="jackpots is not offered"):
        room.create_match(
            cid(),
            "x",
            TableConfig(TABLES[Game.JACKPOTS], 4),
            tables=2,
            deals=2,
            stack=STACK,
            by="admin",
            at=0,
        )


def test_tables_played_at_once_reveal_every_deal_once(store: Store) -> None:
    """Two writers on one store, one per table, end deals at the same
    moments: their writes to the match's stream collide and are decided
    again, and every deal is recorded once per table and revealed once."""
    room = store.room()
    match = create(room, Game.HOLDEM, deals=4, ahead=1)
    seat_everyone(room, match)
    errors: list[BaseException] = []

    rooms = [store.room(), store.room()]  # opened one after the other: each creates the tables

    def run(t: int) -> None:
        rng = random.Random(10 + t)
        room = rooms[t]
        try:
            for _ in range(20_000):
                state = room.match(match).match
                if state.dealt_to(t) == 4:
                    return
                step(room, match, t, rng)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    stream = room.match(match)
    state = stream.match
    assert len(state.revealed) == 4
    assert sorted((d, t) for d, by in state.played.items() for t in by) == [
        (d, t) for d in range(1, 5) for t in range(2)
    ]
    reveals = [
        e for _, made in stream.commands.values() for e in made if isinstance(e, DealRevealed)
    ]
    assert [e.deal for e in sorted(reveals, key=lambda e: e.deal)] == [1, 2, 3, 4]
    assert check(room.streams).problems == []
