"""TournamentService end to end on both stores: an admin creates a
sit-and-go, players register through the API and the SDK's bots play it at
the table its director seats them at, to the end; the results list every
place and prizes that add up to the pool. Every refusal has its status and
reason, and changes nothing."""

from __future__ import annotations

import contextlib
import hashlib
import io
import random
import re
import threading
import time
from pathlib import Path
from uuid import UUID, uuid4

import grpc
import pytest
from google.protobuf.descriptor import Descriptor

from feltline.api import convert
from feltline.api.tournaments import tournament_message
from feltline.audit.keys import Signer
from feltline.domain.ids import tournament_table_id
from feltline.engine.errors import RuleError
from feltline.engine.hand.rules import Game, Rules, Stakes, Structure
from feltline.engine.table.house import TableConfig
from feltline.store.check import check
from feltline_client import Client, FeltlineError
from feltline_client.bots import Casual, Player, TournamentPlayer
from feltline_client.terminal import Tournament
from feltline_protos.v1 import auth_pb2, tournaments_pb2
from tests.store import test_tournament as store
from tests.store.players import cid

from .conftest import ON_BOTH_STORES, Live, open_room

ADMIN, PLAYER, SPECTATOR = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER, auth_pb2.ROLE_SPECTATOR
T = tournaments_pb2
BUY_IN, FEE, STACK, MINTED = 100, 10, 300, 1_000


def _blinds(level: int) -> Stakes:
    big = 20 * 2**level
    return Stakes(Structure.NO_LIMIT, big, small_blind=big // 2, big_blind=big)


# The blinds double every two hands, so that a sit-and-go ends in a few dozen.
LEVELS = [T.TournamentLevel(stakes=convert.stakes(_blinds(n), None), hands=2) for n in range(8)]


def create(admin: Client, entrants: int = 3, size: int = 6, **changes: object) -> T.Tournament:
    config = TableConfig(Rules(Game.HOLDEM, _blinds(0)), size)
    fields: dict[str, object] = {
        "levels": LEVELS,
        "buy_in": BUY_IN,
        "fee": FEE,
        "stack": STACK,
        "payouts": [T.PayoutBand(entrants=entrants, shares=[7000, 3000])],
        "entrants": entrants,
    } | changes
    return admin.create_tournament(convert.table_config(config), "Turbo", **fields)  # type: ignore[arg-type]


def players(live: Live, n: int) -> list[Client]:
    admin = live.client(ADMIN)
    made = []
    for i in range(n):
        name = f"p{i}"
        admin.mint_chips(name, MINTED)
        made.append(live.client(PLAYER, name))
    return made


def refused(call: object, *args: object, **kwargs: object) -> FeltlineError:
    with pytest.raises(FeltlineError) as e:
        call(*args, **kwargs)  # type: ignore[operator]
    return e.value


@ON_BOTH_STORES
def test_a_sit_and_go_is_played_through_the_api_by_bots_to_its_prizes(live: Live) -> None:
    admin = live.client(ADMIN)
    tournament = create(admin)
    assert tournament.state == T.TOURNAMENT_STATE_REGISTERING
    assert len(tournament.seed_commitment) == 64
    key = tournament.tournament_id
    entrants = players(live, 3)
    for client in entrants[:2]:
        assert client.register_tournament(key).state == T.TOURNAMENT_STATE_REGISTERING
    assert not admin.get_tournament(key).tables
    started = entrants[2].register_tournament(key)  # the last place: it starts
    assert started.state == T.TOURNAMENT_STATE_RUNNING
    assert list(started.player_ids) == ["p0", "p1", "p2"]
    assert started.prize_pool == 3 * BUY_IN
    [table] = started.tables
    assert table.players == 3
    seats = {s.player_id: s.seat for s in started.standings}
    assert {s.chips for s in started.standings} == {STACK}
    for client in entrants:
        assert client.get_account().balance == MINTED - BUY_IN - FEE
    bots = []
    for i, client in enumerate(entrants):
        bot = Player(
            client, table.table_id, Casual(random.Random(i)), seat=seats[f"p{i}"], buy_in=0
        )
        bot.seated = True  # the director seated it
        bots.append(bot)
    threads = [threading.Thread(target=b.play, daemon=True) for b in bots]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 90
    while admin.get_tournament(key).state == T.TOURNAMENT_STATE_RUNNING:
        assert time.monotonic() < deadline, "the tournament did not finish"
        time.sleep(0.5)
        live.clock.now += 31  # a bot slow to act is timed out
    for thread in threads:
        thread.join(10)
    assert sum(b.moves for b in bots) > 0  # the bots played, not only the clock
    results = live.client(SPECTATOR).tournament_results(key)
    assert results.state == T.TOURNAMENT_STATE_FINISHED
    assert [s.place for s in results.standings] == [1, 2, 3]
    assert sum(s.prize for s in results.standings) == results.prize_pool == 3 * BUY_IN
    assert [s.prize for s in results.standings] == [210, 90, 0]
    assert not results.tables
    balances = {c: c.get_account().balance for c in entrants}
    for standing in results.standings:
        client = entrants[int(standing.player_id[1:])]
        assert balances[client] == MINTED - BUY_IN - FEE + standing.prize
    assert [t.tournament_id for t in admin.list_tournaments()] == [key]
    assert not list(admin.list_tournaments(state=T.TOURNAMENT_STATE_RUNNING))
    assert check(live.room.streams).problems == []


@ON_BOTH_STORES
def test_tournament_requests_are_refused_precisely_and_change_nothing(live: Live) -> None:
    admin, spectator = live.client(ADMIN), live.client(SPECTATOR)
    ann, bob = players(live, 2)
    admin.mint_chips("p2", BUY_IN)  # the buy-in but not the fee
    poor = live.client(PLAYER, "p2")
    nobody = live.client(PLAYER, "nobody")  # no account

    e = refused(create, ann)
    assert (e.code, e.reason) == (grpc.StatusCode.PERMISSION_DENIED, "ROLE_FORBIDDEN")
    e = refused(create, admin, payouts=[])
    assert e.code == grpc.StatusCode.INVALID_ARGUMENT  # protovalidate: payouts has an item
    e = refused(create, admin, levels=LEVELS[1:])
    assert (e.code, e.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_CONFIG")
    assert "the tables' stakes are the first level's" in e.message
    request = T.CreateTournamentRequest(
        display_name="x",
        config=convert.table_config(TableConfig(Rules(Game.HOLDEM, _blinds(0)), 6)),
        levels=LEVELS,
        stack=STACK,
        payouts=[T.PayoutBand(entrants=2, shares=[10_000])],
        start=T.TOURNAMENT_START_SIT_AND_GO,
        entrants=2,
        request_id=str(uuid4()),
    )
    request.start_time.seconds = live.clock.now + 600  # a start time for a sit-and-go
    with pytest.raises(grpc.RpcError) as raw:
        admin.tournaments.CreateTournament(request, metadata=admin.metadata())
    assert raw.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert raw.value.details() == (
        "a scheduled tournament has a start_time and a sit-and-go has none"
    )
    assert not list(admin.list_tournaments())  # nothing was created

    unknown = str(UUID(int=7))
    for call in (spectator.get_tournament, spectator.tournament_results, ann.register_tournament):
        e = refused(call, unknown)
        assert (e.code, e.reason) == (grpc.StatusCode.NOT_FOUND, "TOURNAMENT_NOT_FOUND")
        assert e.message == f"there is no tournament {unknown}"
    e = refused(admin.cancel_tournament, unknown, "rain")
    assert (e.code, e.reason) == (grpc.StatusCode.NOT_FOUND, "TOURNAMENT_NOT_FOUND")
    e = refused(spectator.list_tournaments_page, page_token=str(uuid4()))
    assert (e.code, e.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
    for after in ("x", "-1", "1.0"):
        e = refused(lambda a: list(spectator.watch_tournament(unknown, after=a)), after)
        assert (e.code, e.reason) == (grpc.StatusCode.NOT_FOUND, "TOURNAMENT_NOT_FOUND")
    e = refused(lambda: list(spectator.watch_tournament("not-an-id")))
    assert e.code == grpc.StatusCode.INVALID_ARGUMENT

    key = create(admin).tournament_id
    for after in ("x", "-1", "1.0", "\u00b2", "3", "99999999999999999999"):  # it has 2 events
        e = refused(lambda a: list(spectator.watch_tournament(key, after=a)), after)
        assert (e.code, e.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_CURSOR")
        assert e.message == (
            "after is not a cursor of this tournament: send the last cursor received, or none"
        )
    e = refused(admin.register_tournament, key)
    assert (e.code, e.reason) == (grpc.StatusCode.PERMISSION_DENIED, "ROLE_FORBIDDEN")
    e = refused(ann.cancel_tournament, key, "mine")
    assert (e.code, e.reason) == (grpc.StatusCode.PERMISSION_DENIED, "ROLE_FORBIDDEN")
    e = refused(nobody.register_tournament, key)
    assert (e.code, e.reason) == (grpc.StatusCode.NOT_FOUND, "ACCOUNT_NOT_FOUND")
    e = refused(poor.register_tournament, key)
    assert (e.code, e.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INSUFFICIENT_BALANCE")
    assert e.message == "p2 has 100 chips off the table, not the 110 the buy-in and fee take"
    assert poor.get_account().balance == BUY_IN
    ann.register_tournament(key)
    e = refused(ann.register_tournament, key)
    assert (e.code, e.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REGISTRATION_REFUSED")
    assert e.message == "p0 is registered already"
    e = refused(bob.unregister_tournament, key)
    assert (e.code, e.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REGISTRATION_REFUSED")
    assert e.message == "p1 is not registered"
    assert list(admin.get_tournament(key).player_ids) == ["p0"]
    assert ann.get_account().balance == MINTED - BUY_IN - FEE
    e = refused(spectator.tournament_results, key)
    assert (e.code, e.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "WRONG_PHASE")
    unregistered = ann.unregister_tournament(key)
    assert list(unregistered.player_ids) == []
    assert ann.get_account().balance == MINTED

    # Heads up, played out by the clock alone; then nothing more is taken.
    key = create(admin, entrants=2, payouts=[T.PayoutBand(entrants=2, shares=[10_000])])
    key = key.tournament_id
    ann.register_tournament(key)
    table = bob.register_tournament(key).tables[0].table_id
    e = refused(bob.stand_up, table)
    assert (e.code, e.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "TOURNAMENT_TABLE")
    e = refused(ann.unregister_tournament, key)
    assert (e.code, e.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REGISTRATION_REFUSED")
    assert e.message == "entries are withdrawn only before the start"
    deadline = time.monotonic() + 10
    while not bob.get_table(table).HasField("current_hand"):
        assert time.monotonic() < deadline, "the clock did not deal"
        time.sleep(0.05)
    e = refused(admin.cancel_tournament, key, "mid-hand")
    assert (e.code, e.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "WRONG_PHASE")
    assert e.message == "tables [1] are playing a hand: a tournament is cancelled between hands"
    assert admin.get_tournament(key).state == T.TOURNAMENT_STATE_RUNNING
    deadline = time.monotonic() + 60
    while admin.get_tournament(key).state == T.TOURNAMENT_STATE_RUNNING:
        assert time.monotonic() < deadline, "the clock did not finish the tournament"
        live.clock.now += 31
        time.sleep(0.15)
    finished = admin.get_tournament(key)
    assert finished.state == T.TOURNAMENT_STATE_FINISHED
    e = refused(admin.cancel_tournament, key, "too late")
    assert (e.code, e.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "WRONG_PHASE")
    assert e.message == "the tournament is over"
    assert admin.get_tournament(key) == finished
    e = refused(live.client(PLAYER, "p2").register_tournament, key)
    assert (e.code, e.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REGISTRATION_REFUSED")
    assert e.message == "the tournament is over"
    assert check(live.room.streams).problems == []


def test_a_cancelled_tournament_refunds_every_entry(live: Live) -> None:
    admin = live.client(ADMIN)
    ann, bob = players(live, 2)
    key = create(admin).tournament_id
    ann.register_tournament(key)
    bob.register_tournament(key)
    cancelled = admin.cancel_tournament(key, "rain")
    assert cancelled.state == T.TOURNAMENT_STATE_CANCELLED
    assert cancelled.cancel_reason == "rain"
    assert [c.get_account().balance for c in (ann, bob)] == [MINTED, MINTED]
    assert cancelled.prize_pool == 0  # the buy-ins went back
    [listed] = admin.list_tournaments(state=T.TOURNAMENT_STATE_CANCELLED)
    assert (listed.tournament_id, listed.prize_pool) == (key, 0)


def test_tournaments_are_listed_newest_first_a_page_at_a_time(live: Live) -> None:
    admin = live.client(ADMIN)
    made = [create(admin).tournament_id for _ in range(3)]
    first = admin.list_tournaments_page(page_size=2)
    assert [t.tournament_id for t in first.tournaments] == made[:0:-1]
    second = admin.list_tournaments_page(page_size=2, page_token=first.next_page_token)
    assert [t.tournament_id for t in second.tournaments] == made[:1]
    assert second.next_page_token == ""
    assert [t.tournament_id for t in admin.list_tournaments(page_size=1)] == made[::-1]
    admin.cancel_tournament(made[0], "rain")
    admin.cancel_tournament(made[1], "rain")
    registering = admin.list_tournaments_page(page_size=1, state=T.TOURNAMENT_STATE_REGISTERING)
    assert [t.tournament_id for t in registering.tournaments] == made[2:]
    assert registering.next_page_token == ""
    cancelled = admin.list_tournaments_page(page_size=1, state=T.TOURNAMENT_STATE_CANCELLED)
    assert [t.tournament_id for t in cancelled.tournaments] == made[1:2]
    e = refused(  # a token given for one state, sent with another
        admin.list_tournaments_page,
        page_size=1,
        page_token=cancelled.next_page_token,
        state=T.TOURNAMENT_STATE_REGISTERING,
    )
    assert (e.code, e.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
    assert e.message.startswith("page_token is not one this server gave out for this request")
    rest = admin.list_tournaments_page(
        page_size=1, page_token=cancelled.next_page_token, state=T.TOURNAMENT_STATE_CANCELLED
    )
    assert [t.tournament_id for t in rest.tournaments] == made[:1]


def test_a_tournament_message_lists_the_open_tables_and_every_player(tmp_path: Path) -> None:
    """Through a multi-table tournament's moves and its broken table, the
    message lists only open tables, and every player once: those still in
    by chips, then those out by place."""
    room = open_room(tmp_path / "broken.db", Signer.generate())
    key = store.create(room, entrants=7, size=4)
    for name in store.players(room, 7):
        room.register_tournament(key, cid(), name, at=0)
    rng = random.Random(3)
    tables = set()
    for _ in range(50_000):
        state = room.tournament(key).tournament
        if state.over:
            break
        message = tournament_message(room.tournament(key))
        tables.add(len(message.tables))
        assert all(not room.table(UUID(t.table_id)).table.closed for t in message.tables)
        assert len(message.standings) == 7
        assert sum(not s.place for s in message.standings) == state.players_left
        order = [(bool(s.place), s.place or -s.chips) for s in message.standings]
        assert order == sorted(order)
        for number in sorted(state.tables):
            table = tournament_table_id(key, number)
            if room.table(table).table.dealt is None:
                with contextlib.suppress(RuleError):
                    room.deal_tournament(table, at=0)
            else:
                store.move(room, table, rng)
    assert room.tournament(key).tournament.finished is not None
    assert tables == {1, 2}  # two tables, then the final one
    room.close()


def _watched(client: Client, key: str, **kwargs: object) -> list[T.WatchTournamentResponse]:
    return list(client.watch_tournament(key, **kwargs))  # type: ignore[arg-type]


def _card_fields(descriptor: Descriptor, seen: set[str] | None = None) -> list[str]:
    """Every field reachable from a message type that could hold a card."""
    seen = set() if seen is None else seen
    if descriptor.full_name in seen:
        return []
    seen.add(descriptor.full_name)
    found = []
    for field in descriptor.fields:
        if "card" in field.name or (
            field.message_type is not None and "Card" in field.message_type.name
        ):
            found.append(f"{descriptor.full_name}.{field.name}")
        if field.message_type is not None:
            found += _card_fields(field.message_type, seen)
    return found


@ON_BOTH_STORES
def test_a_tournament_watch_sends_each_event_once_and_resumes_from_any_cursor(
    live: Live,
) -> None:
    """A spectator watches a sit-and-go from before its first entry to its
    end: every event once, in order, each with its cursor; a watch resumed
    from any cursor sends exactly what came after it; nothing in it is a
    card or, before the end, the seat draws' seed."""
    admin, spectator = live.client(ADMIN), live.client(SPECTATOR)
    key = create(admin).tournament_id
    live_watch: list[T.WatchTournamentResponse] = []
    watching = threading.Thread(
        target=lambda: live_watch.extend(spectator.watch_tournament(key)), daemon=True
    )
    watching.start()
    entrants = players(live, 3)
    for client in entrants:
        client.register_tournament(key)
    deadline = time.monotonic() + 90
    while admin.get_tournament(key).state == T.TOURNAMENT_STATE_RUNNING:
        assert time.monotonic() < deadline, "the clock did not finish the tournament"
        live.clock.now += 31
        time.sleep(0.1)
    watching.join(20)
    assert not watching.is_alive(), "the watch did not end with the tournament"

    snapshot, *events = live_watch
    assert snapshot.HasField("snapshot")
    assert snapshot.cursor == "2"
    assert snapshot.snapshot.state == T.TOURNAMENT_STATE_REGISTERING
    sequences = [m.event.sequence for m in events]
    assert sequences == sorted(set(sequences))
    assert sequences[0] == 3
    assert [m.cursor for m in events] == [str(n) for n in sequences]
    kinds = [m.event.WhichOneof("kind") for m in events]
    assert kinds[:3] == ["registered"] * 3
    assert kinds[3:5] == ["started", "seats_drawn"]
    for kind in ("hand_begun", "hand_played", "eliminated", "placed", "paid", "finished"):
        assert kind in kinds
    assert kinds[-2:] == ["finished", "seed_revealed"]
    drawn = events[4].event.seats_drawn
    assert {c.player_id for c in drawn.chairs} == {"p0", "p1", "p2"}
    [table] = {c.table_id for c in drawn.chairs}
    assert table == str(tournament_table_id(UUID(key), 1))
    results = admin.tournament_results(key)
    paid = {m.event.paid.player_id: m.event.paid.amount for m in events if m.event.HasField("paid")}
    assert paid == {s.player_id: s.prize for s in results.standings if s.prize}
    seed = events[-1].event.seed_revealed.seed
    assert hashlib.sha256(seed).hexdigest() == results.seed_commitment
    assert all(seed not in m.SerializeToString() for m in live_watch[:-1])
    assert _card_fields(T.WatchTournamentResponse.DESCRIPTOR) == []

    # From the start ("0"), and resumed after every cursor: what came after it.
    replayed = _watched(spectator, key, after="0")
    created = replayed[0].event
    assert created.sequence == 1
    assert created.created.display_name == "Turbo"
    assert replayed[1:] == events  # the seed's draw (2) is never sent
    for at in ["1", "2", *(m.cursor for m in events)]:
        after = [m for m in replayed if int(m.cursor) > int(at)]
        assert _watched(spectator, key, after=at) == after
    # A fresh watch of a finished tournament is its snapshot alone.
    [done] = _watched(spectator, key)
    assert done.snapshot.state == T.TOURNAMENT_STATE_FINISHED
    assert done.cursor == events[-1].cursor


@ON_BOTH_STORES
def test_bots_follow_their_moves_through_a_multi_table_tournament_to_its_end(
    live: Live,
) -> None:
    """Eight bots enter a sit-and-go of four-handed tables through the SDK;
    each plays wherever the director draws or moves it, until it is out or
    has won: every place and prize the bots end with is the results'."""
    admin = live.client(ADMIN)
    payouts = [T.PayoutBand(entrants=8, shares=[5000, 3000, 2000])]
    key = create(admin, entrants=8, size=4, payouts=payouts).tournament_id
    bots = [
        TournamentPlayer(client, key, Casual(random.Random(i)))
        for i, client in enumerate(players(live, 8))
    ]
    threads = [threading.Thread(target=b.play, daemon=True) for b in bots]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 150
    while admin.get_tournament(key).state != T.TOURNAMENT_STATE_FINISHED:
        assert time.monotonic() < deadline, "the tournament did not finish"
        time.sleep(0.5)
        live.clock.now += 31  # a bot slow to act is timed out
    for thread in threads:
        thread.join(20)
        assert not thread.is_alive(), "a bot played on after the end"
    results = admin.tournament_results(key)
    places = [s.place for s in results.standings]  # equal stacks out in one hand share
    assert len(places) == 8
    assert places[0] == 1
    assert places == sorted(places)
    finish = {s.player_id: (s.place, s.prize) for s in results.standings}
    assert {b.me: (b.place, b.prize) for b in bots} == finish
    assert sum(prize for _, prize in finish.values()) == results.prize_pool == 8 * BUY_IN
    assert all(not b.errors for b in bots)
    assert all(b.moves > 0 for b in bots)  # each played, not only the clock
    moved = [b for b in bots if len(b.tables) > 1]
    assert moved, "nobody was moved: the test did not follow a move"
    events = [m.event for m in _watched(admin, key, after="0")]
    for bot in moved:  # each table it played at is where the director sent it
        sent = [
            c.table_id
            for e in events
            for c in (
                [c for c in e.seats_drawn.chairs if c.player_id == bot.me]
                + ([e.player_moved.to_chair] if e.player_moved.player_id == bot.me else [])
            )
        ]
        assert bot.tables == sent
    assert check(live.room.streams).problems == []


def test_the_terminal_takes_its_player_to_each_table_the_director_sends_it_to(
    live: Live,
) -> None:
    """``feltline-play --tournament``: six people (scripts of calls and
    checks) play a tournament of four-handed tables, each taken to every
    table it is drawn or moved to, until it finishes."""
    admin = live.client(ADMIN)
    payouts = [T.PayoutBand(entrants=6, shares=[7000, 3000])]
    key = create(admin, entrants=6, size=4, payouts=payouts).tournament_id
    people = players(live, 6)
    for person in people[:-1]:
        person.register_tournament(key)
    outs = [io.StringIO() for _ in people]
    terminals = [
        Tournament(person, key, io.StringIO("call\ncheck\n" * 5000), out, None)
        for person, out in zip(people, outs, strict=True)
    ]
    threads = [threading.Thread(target=t.run, daemon=True) for t in terminals]
    for thread in threads:
        thread.start()
    # Every terminal has its watch's snapshot before the draw, so that each
    # hears the draw itself (one opened later is told its seat by the snapshot).
    deadline = time.monotonic() + 30
    while not all(out.getvalue() for out in outs):
        assert time.monotonic() < deadline, "a terminal never heard its tournament"
        time.sleep(0.05)
    people[-1].register_tournament(key)  # the last place: it starts
    deadline = time.monotonic() + 150
    while admin.get_tournament(key).state != T.TOURNAMENT_STATE_FINISHED:
        assert time.monotonic() < deadline, "the tournament did not finish"
        time.sleep(0.5)
        live.clock.now += 31
    for thread in threads:
        thread.join(20)
        assert not thread.is_alive(), "a terminal played on after the end"
    events = [m.event for m in _watched(admin, key, after="0")]
    places = {s.player_id: s.place for s in admin.tournament_results(key).standings}
    moved = 0
    for n, out in enumerate(outs):
        me = f"p{n}"
        sent = [
            f"table {c.table}, seat {c.seat}"
            for e in events
            for c in (
                [c for c in e.seats_drawn.chairs if c.player_id == me]
                + ([e.player_moved.to_chair] if e.player_moved.player_id == me else [])
            )
        ]
        said = re.findall(r"== you (?:are drawn|move) to (table \d+, seat \d+)", out.getvalue())
        assert said == sent
        moved += len(sent) > 1
        assert f"== you finish in place {places[me]}" in out.getvalue()
        assert re.search(r"seat \d (calls|checks)", out.getvalue())  # its tables were shown
    assert moved, "nobody was moved: the test did not follow a move"


def test_a_tournament_watch_resumes_from_its_cursor_after_a_restart(live: Live) -> None:
    """Cursors are positions in the stored stream: a watch cut off by a
    restart resumes on the new server with what came after, once each."""
    admin = live.client(ADMIN)
    ann = players(live, 2)[0]
    key = create(admin).tournament_id
    ann.register_tournament(key)
    watch = live.client(SPECTATOR).watch_tournament(key)
    first = next(watch)
    watch.close()  # cut off
    assert first.snapshot.player_ids == ["p0"]
    live.restart()
    admin = live.client(ADMIN)
    live.client(PLAYER, "p1").register_tournament(key)
    admin.cancel_tournament(key, "rain")
    resumed = _watched(live.client(SPECTATOR), key, after=first.cursor)
    kinds = [m.event.WhichOneof("kind") for m in resumed]
    assert kinds == ["registered", "cancelled", "seed_revealed"]
    assert resumed[0].event.registered.player_id == "p1"
    assert [int(m.cursor) for m in resumed] == list(
        range(int(first.cursor) + 1, int(first.cursor) + 4)
    )
