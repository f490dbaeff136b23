"""The tournament aggregate without a database: random tournaments played
to the end through its decisions (chips and the pool conserved, tables
balanced and broken by the rules, every big blind posted once), the
places and prizes of eliminations that come together, cancellations, and
its chain."""

from __future__ import annotations

import contextlib
import os
import random
from dataclasses import replace
from uuid import uuid4

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feltline.domain.chained import TamperedError
from feltline.domain.tournament import TournamentRecord, TournamentStream, project, requests
from feltline.engine import director
from feltline.engine.cards.deck import commitment
from feltline.engine.director import Felt, without
from feltline.engine.errors import ConfigError
from feltline.engine.hand.events import Event
from feltline.engine.hand.rules import Game, Rules
from feltline.engine.hand.stakes import Stakes
from feltline.engine.table.button import blind_lineup
from feltline.engine.table.house import TableConfig
from feltline.engine.tournament import (
    Band,
    Cancelled,
    Eliminated,
    Finished,
    HandBegun,
    HandForHandBegun,
    HandPlayed,
    Level,
    LevelChanged,
    Paid,
    Placed,
    PlayerMoved,
    RegistrationError,
    RerunError,
    RoundPlayed,
    SeatsDrawn,
    SeedRevealed,
    Start,
    TableBroken,
    Tournament,
    WaitingToDeal,
    rerun,
)
from tests.tables import TABLES

# FELTLINE_EXAMPLES=10 runs ten times as many random tournaments, to hunt for bugs.
SCALE = int(os.environ.get("FELTLINE_EXAMPLES", "1"))
SEED = bytes(range(32))  # fixed, so that a failing example replays
STACK = 1000


def levels(rules: Rules) -> tuple[Level, ...]:
    base = rules.stakes
    return (
        (
            Level(base, minutes=10),
            Level(
                replace(base, small_blind=base.small_blind * 2, big_blind=base.big_blind * 2),
                hands=3,
            ),
            Level(None, minutes=5),
            Level(
                replace(
                    base, small_blind=base.small_blind * 4, big_blind=base.big_blind * 4, ante=2
                ),
                minutes=10,
            ),
        )
        if rules.variant.blinds
        else (Level(base, minutes=10),)
    )


def create(
    entrants: int,
    size: int,
    *,
    start: Start = Start.SCHEDULED,
    game: Game = Game.HOLDEM,
    buy_in: int = 100,
    fee: int = 10,
    bands: tuple[Band, ...] | None = None,
    late_until: int = 0,
    capacity: int | None = None,
    minimum: int = 2,
) -> Floor:
    rules = TABLES[game]
    config = TableConfig(rules, size)
    if bands is None:
        bands = (Band(2, (10_000,)), Band(9, (7000, 3000)), Band(10_000, (5000, 3000, 2000)))
    scheduled = start is Start.SCHEDULED
    events = Tournament.create(
        "t",
        config,
        levels(rules),
        buy_in=buy_in,
        fee=fee,
        stack=STACK,
        payouts=bands,
        start=start,
        entrants=capacity or entrants,
        minimum=min(minimum, entrants) if scheduled else 0,
        starts_at=100 if scheduled else 0,
        late_until=late_until,
        seed=SEED,
        by="admin",
        at=0,
    )
    floor = Floor(TournamentStream.new(uuid4()))
    floor.do(events)
    for i in range(entrants):
        floor.do(floor.state.register(f"p{i:02}", i))
    return floor


class Floor:
    """Applies decisions to a stream, keeping its records."""

    def __init__(self, stream: TournamentStream) -> None:
        self.stream = stream
        self.records: list[TournamentRecord] = []
        self.events: list[Event] = []
        self.batches: list[list[Event]] = []
        self.checks: Checks | None = None

    @property
    def state(self) -> Tournament:
        return self.stream.tournament

    def do(self, events: list[Event]) -> list[Event]:
        before = self.state
        records, self.stream = self.stream.record(f"c{len(self.records)}", "fp", events)
        self.records += records
        self.events += events
        if events:
            self.batches.append(events)
        if self.checks is not None:
            self.checks.step(before, events)
        return events


def outcome(rng: random.Random, stacks: dict[int, int], bust: float = 0.3) -> dict[int, int]:
    """A hand's random result: one winner takes what the others lose, some
    (each with the chance ``bust``) all."""
    winner = rng.choice(sorted(stacks))
    end = {}
    for seat, stack in stacks.items():
        if seat != winner:
            end[seat] = 0 if rng.random() < bust else rng.randint(0, stack)
    end[winner] = sum(stacks.values()) - sum(end.values())
    return end


def takes_button_or_small_blind(felt: Felt, seat: int) -> bool:
    lineup = blind_lineup(set(felt.seats) | {seat}, (), (), felt.button, felt.big_blind)
    return seat in (lineup.button, lineup.small_blind)


def hands_to_big_blind(felt: Felt, seat: int) -> int:
    """Brute force: deal hands with the engine's lineup until ``seat`` posts."""
    seats = set(felt.seats) | {seat}
    button, big = felt.button, felt.big_blind
    n = 0
    while True:
        lineup = blind_lineup(seats, (), (), button, big)
        if lineup.big_blind == seat:
            return n
        button, big, n = lineup.button, lineup.big_blind, n + 1


class Checks:
    """What every step of a random tournament must keep."""

    def __init__(self, floor: Floor) -> None:
        self.floor = floor
        floor.checks = self
        self.posted_last: dict[str, bool] = {}
        self.forced: set[str] = set()
        # A moved player's table companions then: if one of them has gone
        # since, the blinds have moved for a bust, not for the move.
        self.arrived: dict[str, frozenset[str]] = {}
        self.big_blinds = 0
        self.reckoned = 0
        # A moved player's table, hands to go before their big blind, and the
        # table's players then: the reckoning holds while nobody comes or goes.
        self.due: dict[str, tuple[int, int, frozenset[str]]] = {}

    def step(self, before: Tournament, events: list[Event]) -> None:
        state = before
        entrants = len(self.floor.state.registered)
        breaking = False
        for event in events:
            if isinstance(event, TableBroken):
                breaking = True
            if isinstance(event, PlayerMoved) and not breaking and before.blinds:
                self.move(state, event)
            if isinstance(event, PlayerMoved) and before.blinds:
                # Forced: no seat free at the table both leaves the blinds
                # where they are and does not post the big blind next.
                target = state.tables[event.to_table]
                free = [s for s in range(1, state.size + 1) if s not in target.seats]
                if all(
                    takes_button_or_small_blind(target, s) or hands_to_big_blind(target, s) == 0
                    for s in free
                ):
                    self.forced.add(event.player)
            if isinstance(event, HandBegun):
                self.hand(state.tables[event.table], event)
            state = state.then([event])
            if isinstance(event, PlayerMoved) and event.big_blind_in >= 0:
                players = frozenset(s.player for s in state.tables[event.to_table].seats.values())
                self.due[event.player] = (event.to_table, event.big_blind_in, players)
                self.arrived[event.player] = players
        after = self.floor.state
        # The director reads the tables by their number of players from an
        # index the events keep: it must say what the tables do.
        for n, numbers in enumerate(after.by_players):
            assert numbers == {t.number for t in after.tables.values() if t.players == n}, n
        out = [e for e in self.floor.events if isinstance(e, Eliminated)]
        assert after.eliminated == len(out)
        assert list(after.unplaced) == [e for e in out if e.player not in after.placed]
        if after.running:
            assert after.chips == entrants * STACK
            ended = any(isinstance(e, HandPlayed) for e in events)
            if ended and not any(t.playing for t in after.tables.values()):
                counts = [t.players for t in after.tables.values()]
                assert max(counts) - min(counts) <= 1, counts

    def hand(self, felt: Felt, event: HandBegun) -> None:
        players = frozenset(s.player for s in felt.seats.values())
        for seat, sitter in felt.seats.items():
            player = sitter.player
            posts = seat == event.big_blind
            self.big_blinds += posts
            if posts and self.posted_last.get(player):
                excused = player in self.forced or not self.arrived.get(player, players) <= players
                assert excused, f"{player} posts the big blind twice in a row"
            self.posted_last[player] = posts
            self.forced.discard(player)
            self.arrived.pop(player, None)
            if player in self.due:
                table, hands, then = self.due.pop(player)
                if table != felt.number or then != players:
                    continue  # someone came or went: the reckoning no longer applies
                assert posts == (hands == 0), f"{player} was to post the big blind in {hands}"
                self.reckoned += 1
                if hands:
                    self.due[player] = (table, hands - 1, then)

    def move(self, state: Tournament, event: PlayerMoved) -> None:
        source = state.tables[event.from_table]
        target = state.tables[event.to_table]
        moved = state.moves.get(event.player, 0)
        assert all(state.moves.get(s.player, 0) >= moved for s in source.seats.values()), (
            f"{event.player} moved again while another at the table could be"
        )
        assert source.players - target.players >= 2
        # The first of the fewest-moved players to post the big blind next goes ...
        due = hands_to_big_blind(source, event.from_seat)
        assert all(
            hands_to_big_blind(source, s) > due or state.moves.get(p.player, 0) > moved
            for s, p in source.seats.items()
            if s != event.from_seat
        )
        # ... to the empty seat that posts it soonest, not taking the button
        # or the small blind, not posting it twice in a row.
        free = [s for s in range(1, state.size + 1) if s not in target.seats]
        fair = [s for s in free if not takes_button_or_small_blind(target, s)] or free
        soonest = sorted((hands_to_big_blind(target, s), s) for s in fair)
        if self.posted_last.get(event.player):
            soonest = [r for r in soonest if r[0] > 0] or soonest
        assert (event.big_blind_in, event.to_seat) == soonest[0]


def play(floor: Floor, rng: random.Random, bust: float = 0.3) -> None:
    now = 100
    if floor.state.started_at is None:
        floor.do(floor.state.start(now))
    for _ in range(5000):
        if floor.state.over:
            return
        now += 20
        floor.do(floor.state.tick(now))
        for number in sorted(floor.state.tables):
            with contextlib.suppress(WaitingToDeal):
                floor.do(floor.state.begin_hand(number, now))
        playing = [t for t in floor.state.tables.values() if t.playing]
        for number in rng.sample(
            [t.number for t in playing], k=rng.randint(min(1, len(playing)), len(playing))
        ):
            state = floor.state
            felt = state.tables[number]
            assert felt.dealt is not None
            result = outcome(rng, {s: felt.seats[s].stack for s in felt.dealt}, bust)
            floor.do(state.end_hand(number, felt.hands, result, now))
    raise AssertionError("the tournament did not end")


def finished_checks(floor: Floor) -> None:
    state = floor.state
    entrants = len(state.registered)
    assert state.pool == entrants * 100
    assert state.fees == entrants * 10
    assert sum(e.amount for e in floor.events if isinstance(e, Paid)) == state.pool
    spans = sorted(
        place
        for e in floor.events
        if isinstance(e, Placed)
        for place in range(e.place, e.place + len(e.players))
    )
    assert spans == list(range(1, entrants + 1))
    (done,) = [e for e in floor.events if isinstance(e, Finished)]
    assert state.placed[done.winner] == 1
    assert floor.events[-1] == SeedRevealed(SEED)
    assert commitment(state.revealed) == state.setup.commitment
    (first, *_late) = [e for e in floor.events if isinstance(e, SeatsDrawn)]
    redrawn = director.first_seating(
        state.revealed, first.draw, state.registered[: len(first.chairs)], state.size
    )
    assert tuple((c.player, c.table, c.seat) for c in first.chairs) == redrawn
    assert project(None, floor.records) == floor.stream
    assert requests(floor.records) == floor.batches
    assert rerun(requests(floor.records), state.revealed) == state


@settings(max_examples=25 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entrants=st.integers(2, 120),
    size=st.integers(2, 10),
    bust=st.sampled_from([0.03, 0.1, 0.3]),
    game=st.sampled_from([Game.HOLDEM, Game.HOLDEM, Game.STUD_HI_LO]),
    rng=st.randoms(use_true_random=False),
)
def test_random_tournaments_balance_conserve_and_pay_the_pool(
    entrants: int, size: int, bust: float, game: Game, rng: random.Random
) -> None:
    floor = create(entrants, min(size, TABLES[game].variant.max_seats), game=game)
    checks = Checks(floor)
    play(floor, rng, bust)
    finished_checks(floor)
    assert checks.big_blinds > 0 or game is not Game.HOLDEM


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entrants=st.integers(5, 30), rng=st.randoms(use_true_random=False))
def test_late_registrants_are_seated_and_counted_in_the_pool(
    entrants: int, rng: random.Random
) -> None:
    floor = create(entrants, 6, late_until=2, capacity=entrants + 10)
    floor.do(floor.state.start(100))
    for i in range(5):
        events = floor.do(floor.state.register(f"late{i}", 200))
        (drawn,) = [e for e in events if isinstance(e, SeatsDrawn)]
        counts = {t.number: t.players for t in floor.state.tables.values()}
        chair = drawn.chairs[0]
        assert counts[chair.table] - 1 <= min(counts.values())
    Checks(floor)
    play(floor, rng)
    finished_checks(floor)
    assert len(floor.state.registered) == entrants + 5


def test_a_late_registrant_s_new_table_is_never_a_broken_table_s_number() -> None:
    # Three tables of three; one out at each: table 3, the highest, breaks
    # and fills the other two. A late registrant then needs a new table,
    # numbered past table 3, whose id (the tournament's id and the number)
    # names the broken table's hands.
    floor = create(9, 3, late_until=2, capacity=12)
    floor.do(floor.state.start(100))
    assert sorted(floor.state.tables) == [1, 2, 3]
    for number in (1, 2, 3):
        floor.do(floor.state.begin_hand(number, 101))
    for number in (1, 2, 3):
        felt = floor.state.tables[number]
        out, *rest = sorted(felt.seats)
        floor.do(floor.state.end_hand(number, 1, {out: 0, rest[0]: 2 * STACK, rest[1]: STACK}, 102))
    assert [e.table for e in floor.events if isinstance(e, TableBroken)] == [3]
    assert sorted(floor.state.tables) == [1, 2]
    events = floor.do(floor.state.register("late", 103))
    (drawn,) = [e for e in events if isinstance(e, SeatsDrawn)]
    assert [c.table for c in drawn.chairs] == [4]
    assert sorted(floor.state.tables) == [1, 2, 4]


def test_an_antes_game_balances_by_the_button() -> None:
    floor = create(20, 7, game=Game.STUD_HI_LO)
    Checks(floor)
    play(floor, random.Random(7))
    finished_checks(floor)
    moves = [e for e in floor.events if isinstance(e, PlayerMoved)]
    assert moves
    assert all(m.big_blind_in == -1 for m in moves)


def test_a_sit_and_go_starts_when_it_fills_and_ends_heads_up() -> None:
    floor = create(1, 2, start=Start.SIT_AND_GO, capacity=2)
    assert floor.state.started_at is None
    floor.do(floor.state.register("p99", 5))
    state = floor.state
    assert state.started_at == 5
    assert len(state.tables) == 1
    assert state.closed is not None
    with pytest.raises(RegistrationError, match="full"):
        state.register("late", 6)
    floor.do(state.begin_hand(1, 6))
    felt = floor.state.tables[1]
    loser, winner = sorted(felt.seats)
    events = floor.do(floor.state.end_hand(1, 1, {loser: 0, winner: 2 * STACK}, 7))
    winner_name = felt.seats[winner].player
    assert [e for e in events if isinstance(e, (Placed, Paid, Finished))] == [
        Placed(2, (felt.seats[loser].player,)),
        Placed(1, (winner_name,)),
        Paid(winner_name, 1, 200),
        Finished(winner_name, 7),
    ]
    assert events[-1] == SeedRevealed(SEED)
    with pytest.raises(Exception, match="not running"):
        floor.state.begin_hand(1, 8)


def test_players_out_in_one_hand_share_places_by_their_starting_stacks() -> None:
    # 3 entrants, 2 paid: 6700 and 3300 basis points of 300 are 201 and 99.
    floor = create(3, 3, start=Start.SIT_AND_GO, bands=(Band(3, (6700, 3300)),))
    state = floor.state
    floor.do(state.begin_hand(1, 1))
    seats = floor.state.tables[1].seats
    first, *rest = sorted(seats)
    floor.do(floor.state.end_hand(1, 1, {first: 3 * STACK, **dict.fromkeys(rest, 0)}, 2))
    tied = tuple(sorted(seats[s].player for s in rest))
    assert [e for e in floor.events if isinstance(e, (Placed, Paid))] == [
        Placed(2, tied),
        Paid(tied[0], 2, 50),  # 99 shared by places 2 and 3: the odd chip to the first registered
        Paid(tied[1], 2, 49),
        Placed(1, (seats[first].player,)),
        Paid(seats[first].player, 1, 201),
    ]


def test_hand_for_hand_waits_for_every_table_and_ranks_the_round_together() -> None:
    # 6 players at two tables of 3, 3 paid: the bubble is at 4 players.
    floor = create(6, 3, bands=(Band(6, (5000, 3000, 2000)),), minimum=6)
    floor.do(floor.state.start(100))

    def begin(table: int) -> None:
        floor.do(floor.state.begin_hand(table, 200))

    def end(table: int, bust: int | None = None) -> list[Event]:
        felt = floor.state.tables[table]
        stacks = {s: felt.seats[s].stack for s in felt.seats}
        if bust is None:
            bust = min(stacks)
        elif bust == STACK:  # the seat with this stack
            bust = next(s for s in stacks if stacks[s] == STACK)
        else:
            return floor.do(floor.state.end_hand(table, felt.hands, stacks, 200))
        taker = next(s for s in stacks if s != bust)
        end = {**stacks, bust: 0, taker: stacks[taker] + stacks[bust]}
        return floor.do(floor.state.end_hand(table, felt.hands, end, 200))

    nobody = 0
    begin(1)
    end(1)
    begin(2)
    assert HandForHandBegun(4) in end(2)  # 4 left, 3 paid
    begin(1)
    end(1, nobody)
    with pytest.raises(WaitingToDeal, match="waits for the others to end round 1"):
        floor.state.begin_hand(1, 201)
    begin(2)
    assert RoundPlayed(1) in end(2, nobody)
    # Round 2: a player of 1,000 chips out at each table, table 1's first.
    begin(1)
    begin(2)
    events = end(1, STACK)
    assert not [e for e in events if isinstance(e, Placed)]  # the round is not over
    events = end(2, STACK)
    out = [e for e in floor.events if isinstance(e, Eliminated) and e.round == 2]
    assert {e.stack for e in out} == {STACK}
    assert len(out) == 2
    placed = [e for e in events if isinstance(e, Placed)]
    assert placed == [Placed(3, tuple(sorted(e.player for e in out)))]
    paid = [e.amount for e in events if isinstance(e, Paid)]
    assert paid == [60, 60]  # 2000 basis points of 600, shared with the unpaid 4th place
    assert any(isinstance(e, TableBroken) for e in events)
    assert len(floor.state.tables) == 1
    assert not floor.state.hand_for_hand


def test_cancelled_before_the_start_everyone_gets_buy_in_and_fee_back() -> None:
    floor = create(4, 6)
    floor.do(floor.state.unregister("p03", 50))
    (cancelled, revealed) = floor.state.cancel(60, "the room closes")
    assert isinstance(cancelled, Cancelled)
    assert {(r.player, r.amount) for r in cancelled.refunds} == {(f"p0{i}", 110) for i in range(3)}
    assert revealed == SeedRevealed(SEED)
    before = floor.state
    assert before.prize_pool == 3 * 100
    floor.do([cancelled, revealed])
    assert floor.state.prize_pool == 0  # every buy-in went back


def test_cancelled_after_the_start_the_unpaid_pool_goes_by_chips() -> None:
    floor = create(7, 4)
    play_a_while = random.Random(3)
    floor.do(floor.state.start(100))
    for _ in range(6):
        for number in sorted(floor.state.tables):
            try:
                floor.do(floor.state.begin_hand(number, 200))
            except WaitingToDeal:
                continue
            felt = floor.state.tables[number]
            assert felt.dealt is not None
            result = outcome(play_a_while, {s: felt.seats[s].stack for s in felt.dealt})
            floor.do(floor.state.end_hand(number, felt.hands, result, 200))
        if floor.state.over:
            break
    state = floor.state
    assert state.running
    (cancelled, _) = floor.do(state.cancel(300, "a fire"))
    assert isinstance(cancelled, Cancelled)
    refunds = {r.player: r.amount for r in cancelled.refunds}
    assert sum(refunds.values()) + sum(state.paid.values()) == state.pool
    stacks = {s.player: s.stack for t in state.tables.values() for s in t.seats.values()}
    biggest = max(stacks, key=stacks.__getitem__)
    assert refunds[biggest] >= state.pool * stacks[biggest] // state.chips - sum(
        state.paid.values()
    )
    # What the pool holds, and so shows, is the prizes it paid: the rest went back.
    assert floor.state.prize_pool == sum(state.paid.values()) == state.pool - sum(refunds.values())


def test_a_rewritten_record_does_not_load() -> None:
    floor = create(9, 4)
    play(floor, random.Random(11))
    stored = floor.records
    assert project(None, stored) == floor.stream
    at = next(i for i, r in enumerate(stored) if r.type == "Paid")
    changed = replace(stored[at], data={**stored[at].data, "amount": 10_000})
    with pytest.raises(TamperedError, match="does not match its chain link"):
        project(None, [*stored[:at], changed, *stored[at + 1 :]])


def test_a_tournament_is_refused_unless_it_can_be_played() -> None:
    rules = TABLES[Game.HOLDEM]
    config = TableConfig(rules, 6)
    base = {
        "buy_in": 10,
        "fee": 1,
        "stack": 100,
        "payouts": (Band(10, (10_000,)),),
        "start": Start.SCHEDULED,
        "entrants": 10,
        "minimum": 2,
        "starts_at": 5,
        "seed": SEED,
        "by": "a",
        "at": 0,
    }
    good = (Level(rules.stakes, minutes=10),)
    cases = [
        ({}, (Level(None, minutes=5),), "not breaks"),
        ({}, (Level(rules.stakes, minutes=10, hands=5),), "minutes or of hands"),
        ({}, (Level(Stakes(rules.stakes.structure, 10), minutes=1),), "level 1:"),
        ({"payouts": (Band(10, (6000, 5000)),)}, good, "10,000 basis points"),
        ({"payouts": (Band(10, (4000, 6000)),)}, good, "never paid less"),
        ({"payouts": (Band(5, (10_000,)),)}, good, "stop at 5"),
        ({"payouts": (Band(10, (5000, 3000, 2000)),), "minimum": 3}, good, "at most 2 places"),
        ({"late_until": 1}, good, "levels 0 to 0"),
        ({"stack": 0}, good, "at least 1 chip"),
    ]
    for changes, lv, refusal in cases:
        with pytest.raises(ConfigError, match=refusal):
            Tournament.create("t", config, lv, **{**base, **changes})  # type: ignore[arg-type]


def test_the_smaller_stack_finishes_lower_and_equal_stacks_share() -> None:
    # 4 entrants, 3 paid: 6000, 3000 and 1000 basis points of 400.
    floor = create(4, 4, start=Start.SIT_AND_GO, bands=(Band(4, (6000, 3000, 1000)),))
    floor.do(floor.state.begin_hand(1, 1))
    seats = floor.state.tables[1].seats
    a, b, c, d = sorted(seats)
    floor.do(floor.state.end_hand(1, 1, {a: 1500, b: 500, c: STACK, d: STACK}, 2))
    floor.do(floor.state.begin_hand(1, 3))
    events = floor.do(floor.state.end_hand(1, 2, {a: 4 * STACK, b: 0, c: 0, d: 0}, 4))
    name = {s: seats[s].player for s in seats}
    first, second = sorted((name[c], name[d]))  # in the order they registered
    assert [e for e in events if isinstance(e, (Placed, Paid))] == [
        Placed(4, (name[b],)),
        Placed(2, (first, second)),
        Paid(first, 2, 80),  # places 2 and 3, 120 and 40, shared
        Paid(second, 2, 80),
        Placed(1, (name[a],)),
        Paid(name[a], 1, 240),
    ]


def test_a_player_who_just_posted_the_big_blind_is_not_seated_to_post_it_again() -> None:
    # Seats 1, 2, 3 and 5 of 6 taken; the last hand's button 1, big blind 3:
    # the next hand's big blind is seat 4 if taken, else 5, then 6.
    felt = Felt(
        1,
        {s: director.Seated(f"p{s}", 100) for s in (1, 2, 3, 5)},
        button=1,
        big_blind=3,
    )
    assert [director.big_blind_in(felt, s) for s in (4, 6)] == [0, 1]
    assert director.worst_seat(felt, 6, blinds=True, posted_last=False) == (4, 0)
    assert director.worst_seat(felt, 6, blinds=True, posted_last=True) == (6, 1)
    full = replace(felt, seats={**felt.seats, 6: director.Seated("p6", 100)})
    assert director.worst_seat(full, 6, blinds=True, posted_last=True) == (4, 0)  # no other
    # Seat 2's player gone, the next hand's button is seat 3: a player
    # seated at 2 would take it, at 4 the small blind, either moving the
    # blinds onto the others a hand early; at 6 they post the big blind.
    short = replace(felt, seats=without(felt.seats, 2))
    assert [director.ahead_of_the_blinds(short, s) for s in (2, 4, 6)] == [True, True, False]


def test_the_level_clock_catches_up_and_hands_levels_count_the_busiest_table() -> None:
    floor = create(4, 2)  # levels: 10 minutes, 3 hands, a 5-minute break, 10 minutes
    floor.do(floor.state.start(100))
    assert floor.state.tick(100 + 599) == []
    assert floor.do(floor.state.tick(100 + 3600)) == [LevelChanged(2, 700)]  # due at 700
    for hand in (1, 2, 3):
        floor.do(floor.state.begin_hand(1, 800))
        felt = floor.state.tables[1]
        stacks = {s: felt.seats[s].stack for s in felt.seats}
        floor.do(floor.state.end_hand(1, hand, stacks, 800))
    with pytest.raises(WaitingToDeal, match="level 2 has played its 3 hands"):
        floor.state.begin_hand(2, 800)
    assert floor.do(floor.state.tick(900)) == [LevelChanged(3, 900)]
    with pytest.raises(WaitingToDeal, match="level 3 is a break"):
        floor.state.begin_hand(2, 901)
    assert floor.do(floor.state.tick(900 + 300)) == [LevelChanged(4, 1200)]
    floor.do(floor.state.begin_hand(2, 1201))
    assert floor.events[-1] == HandBegun(2, 1, 4, 1, 2, 1201)
    assert floor.state.tick(10**9) == []  # the last level lasts until the end
    with pytest.raises(RegistrationError, match="only before the start"):
        floor.state.unregister("p00", 1300)


def test_a_tournament_rewritten_against_its_rules_fails_the_rerun() -> None:
    """A forger with the key could chain and sign anything: the rerun
    catches what the rules would not have decided."""
    floor = create(30, 6)
    play(floor, random.Random(5))
    batches = floor.batches
    seed = floor.state.revealed
    assert rerun(batches, seed) == floor.state

    def forged(kind: type[Event], change: dict[str, object]) -> list[list[Event]]:
        at = next(i for i, b in enumerate(batches) if any(isinstance(e, kind) for e in b))
        batch = [replace(e, **change) if isinstance(e, kind) else e for e in batches[at]]  # type: ignore[arg-type]
        return [*batches[:at], batch, *batches[at + 1 :]]

    for kind, change, refusal in [
        (PlayerMoved, {"to_seat": 99}, "PlayerMoved"),
        (Paid, {"amount": 1}, "Paid"),
        (SeatsDrawn, {"draw": 7}, "SeatsDrawn"),
        (Placed, {"place": 1}, "Placed"),
    ]:
        with pytest.raises(RerunError, match=refusal):
            rerun(forged(kind, change), seed)
    with pytest.raises(RerunError, match="does not hash"):
        rerun(batches, bytes(32))
