"""MatchService end to end on both stores: an admin creates a duplicate
match, players join and play each deal at their own table through the
ordinary API, and a deal's seed (and every card of it) reaches no role, in
no reply or stream, while any table still plays it."""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Callable
from uuid import UUID

import grpc
import pytest

from feltline.api import convert
from feltline.domain.ids import hand_id
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline.store.check import check
from feltline_client import Client, FeltlineError, Seen
from feltline_protos.v1 import auth_pb2, common_pb2, matches_pb2, replay_pb2, watch_pb2
from tests.tables import TABLES

from .conftest import ON_BOTH_STORES, Live

ADMIN, PLAYER = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER
AUDITOR, SPECTATOR = auth_pb2.ROLE_AUDITOR, auth_pb2.ROLE_SPECTATOR
K = common_pb2.ActionKind
STACK = 200


def create(live: Live, deals: int = 2, ahead: int = 0) -> matches_pb2.Match:
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 2))
    return live.client(ADMIN).create_match(
        config, "heads-up", tables=2, deals=deals, stack=STACK, ahead=ahead
    )


def join(live: Live, match: matches_pb2.Match) -> dict[tuple[int, int], Client]:
    players = {}
    for t in range(2):
        for seat in (1, 2):
            client = live.client(PLAYER, f"t{t}s{seat}")
            client.join_match(match.match_id, t, seat)
            players[t, seat] = client
    return players


def calls(actions: list[int]) -> str:
    return "call" if K.ACTION_KIND_CALL in actions else "check"


def folds(actions: list[int]) -> str:
    return "fold" if K.ACTION_KIND_FOLD in actions else "check"


def move(
    players: dict[tuple[int, int], Client], t: int, table: str, policy: Callable[[list[int]], str]
) -> list[bytes]:
    """One move at table ``t`` by the seat whose turn it is, if any; the
    replies' bytes."""
    client = players[t, 1]
    seen = client.get_table(table)
    if not seen.HasField("current_hand") or not seen.current_hand.HasField("turn"):
        return [seen.SerializeToString()]
    turn = seen.current_hand.turn
    actor = players[t, turn.seat]
    hand = actor.get_table(table).current_hand
    try:
        reply = getattr(actor, policy(list(hand.turn.options.actions)))(table, Seen.of(hand))
    except FeltlineError:  # the hand moved on meanwhile
        return [seen.SerializeToString()]
    return [seen.SerializeToString(), reply.SerializeToString()]


def play_deal(
    live: Live,
    players: dict[tuple[int, int], Client],
    match_id: str,
    *,
    t: int,
    deal: int,
    policy: Callable[[list[int]], str],
) -> list[bytes]:
    """Play table ``t`` until it has ended ``deal``; the replies' bytes."""
    key = UUID(match_id)
    table = str(live.room.match(key).match.tables[t])
    sent: list[bytes] = []
    deadline = time.monotonic() + 30
    while live.room.match(key).match.dealt_to(t) < deal:
        assert time.monotonic() < deadline, f"table {t} did not end deal {deal}"
        sent += move(players, t, table, policy)
    return sent


def watched(
    client: Client, table: str, *, after: str = "", seconds: float = 0.7
) -> list[watch_pb2.WatchTableResponse]:
    """Everything a watch of ``table`` (from ``after``) sends within ``seconds``."""
    request = watch_pb2.WatchTableRequest(table_id=table, after=after)
    items = []
    try:
        for item in client.watcher.WatchTable(request, metadata=client.metadata(), timeout=seconds):
            items.append(item)
    except grpc.RpcError as e:
        if e.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
            raise
    return items


def hands_in(items: list[watch_pb2.WatchTableResponse]) -> set[int]:
    return {i.event.hand_number for i in items if i.HasField("event") and i.event.hand_number}


@ON_BOTH_STORES
def test_a_match_plays_through_the_api_and_no_seed_shows_before_its_deal_ends(
    live: Live,
) -> None:
    match = create(live)
    assert match.state == matches_pb2.MATCH_STATE_SEATING
    assert len(match.seed_commitments) == 2
    players = join(live, match)
    key = UUID(match.match_id)
    tables = list(match.table_ids)
    seed = live.room.match(key).match.seed(1)  # the test reads the secret, to look for it
    # Table 1 folds its way through deal 1; table 0 has not acted yet.
    sent = play_deal(live, players, match.match_id, t=1, deal=1, policy=folds)
    assert live.room.match(key).match.revealed == ()
    readers = {
        "admin": live.client(ADMIN),
        "auditor": live.client(AUDITOR),
        "spectator": live.client(SPECTATOR),
        "player at table 0": players[0, 1],
        "player at table 1": players[1, 1],
    }
    for name, reader in readers.items():
        got = [reader.get_match(match.match_id)]
        for table in tables:
            got.append(reader.get_table(table))
        got += list(reader.list_tables())
        items = {table: watched(reader, table) for table in tables}
        payloads = [m.SerializeToString() for m in got] + [
            i.SerializeToString() for table in tables for i in items[table]
        ]
        assert not any(seed in p for p in payloads), f"{name} was shown deal 1's seed"
        # Deal 1 at table 1 has ended, but table 0 plays it: nobody outside
        # table 1's hand sees any of it (its cards are table 0's too), and at
        # table 0 only its players see the hand in progress.
        if name != "player at table 1":
            assert 1 not in hands_in(items[tables[1]]), name
        if name != "player at table 0":
            assert 1 not in hands_in(items[tables[0]]), name
            assert not got[1].HasField("current_hand"), name
        assert not got[0].revealed
        assert not got[0].standings[0].score
    # Nor does the Replay service serve it: to every role it is still in play.
    ended_early = str(hand_id(UUID(tables[1]), 1))
    for name, reader in readers.items():
        assert ended_early not in {h.hand_id for h in reader.list_hands()}, name
        with pytest.raises(FeltlineError) as refused:
            reader.get_hand(ended_early)
        assert refused.value.reason == "HAND_IN_PROGRESS", name
        history = io.StringIO()
        reader.export_history(replay_pb2.EXPORT_FORMAT_OHH, history)
        assert ended_early not in history.getvalue(), name
    log = "\n".join(readers["auditor"].export_hands())
    assert seed.hex() not in log
    assert ended_early not in log
    assert json.loads(log.splitlines()[0])["complete"] is False  # a hand was withheld
    assert players[0, 1].get_table(tables[0]).HasField("current_hand")
    sent += play_deal(live, players, match.match_id, t=0, deal=1, policy=calls)
    assert not any(seed in p for p in sent)  # the players' own replies never carry it
    state = readers["auditor"].get_match(match.match_id)
    assert [d.seed for d in state.revealed] == [seed]
    assert ended_early in {h.hand_id for h in readers["auditor"].list_hands()}
    assert readers["auditor"].get_hand(ended_early).events[-1].hand_ended.seed == seed
    # Revealed, both tables' hands of the deal are the transparency log's leaves.
    live.room.register.catch_up()
    assert {ended_early, str(hand_id(UUID(tables[0]), 1))} <= set(live.room.register.log.hands)
    assert ended_early in "\n".join(readers["auditor"].export_hands())
    assert sum(r.score for r in state.revealed[0].results) == 0
    # Now the auditor's watch of table 1 goes on to deal 1, seed included.
    items = watched(readers["auditor"], tables[1], after="0.0.0.0")
    assert 1 in hands_in(items)
    ended = [i.event.hand_ended for i in items if i.event.HasField("hand_ended")]
    assert ended
    assert ended[0].seed == seed
    with pytest.raises(FeltlineError) as refused:
        readers["auditor"].match_results(match.match_id)
    assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
    play_deal(live, players, match.match_id, t=1, deal=2, policy=folds)
    play_deal(live, players, match.match_id, t=0, deal=2, policy=calls)
    results = readers["spectator"].match_results(match.match_id)
    assert results.state == matches_pb2.MATCH_STATE_ENDED
    assert len(results.revealed) == 2
    assert sum(s.score for s in results.standings) == 0
    # folding and calling scored differently on every deal (over both they may cancel out)
    assert all(any(r.score for r in deal.results) for deal in results.revealed)
    assert results.standings[0].rank == 1
    assert check(live.room.streams).problems == []


@ON_BOTH_STORES
def test_watch_match_sends_the_standings_as_they_change(live: Live) -> None:
    match = create(live, deals=1)
    watcher = live.client(SPECTATOR)
    seen: list[matches_pb2.Match] = []
    done = threading.Event()

    def follow() -> None:
        for state in watcher.watch_match(match.match_id):
            seen.append(state)
        done.set()

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    players = join(live, match)
    play_deal(live, players, match.match_id, t=0, deal=1, policy=calls)
    play_deal(live, players, match.match_id, t=1, deal=1, policy=folds)
    assert done.wait(20), "the watch did not end with the match"
    assert seen[0].state == matches_pb2.MATCH_STATE_SEATING
    assert seen[-1].state == matches_pb2.MATCH_STATE_ENDED
    assert len(seen[-1].revealed) == 1
    assert any(
        list(s.deals_ended) == [1, 0] for s in seen
    )  # one table's end, seen before the other's


def test_match_requests_are_refused_precisely(live: Live) -> None:
    admin, player = live.client(ADMIN), live.client(PLAYER, "ann")
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 2))
    with pytest.raises(FeltlineError) as e:
        player.create_match(config, "x", tables=2, deals=2, stack=STACK)
    assert e.value.code == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(FeltlineError) as e:
        admin.create_match(config, "x", tables=1, deals=2, stack=STACK)
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(FeltlineError) as e:
        admin.create_match(config, "x", tables=2, deals=2, stack=STACK, ahead=2)
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT
    jackpots = convert.table_config(TableConfig(TABLES[Game.JACKPOTS], 2))
    with pytest.raises(FeltlineError) as e:
        admin.create_match(jackpots, "x", tables=2, deals=2, stack=STACK)
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(FeltlineError) as e:
        player.get_match(str(UUID(int=7)))
    assert e.value.code == grpc.StatusCode.NOT_FOUND
    assert e.value.reason == "MATCH_NOT_FOUND"
    match = create(live)
    player.join_match(match.match_id, 0, 1)
    with pytest.raises(FeltlineError) as e:
        live.client(PLAYER, "bob").join_match(match.match_id, 0, 1)
    assert e.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert e.value.reason == "SEAT_UNAVAILABLE"
    with pytest.raises(FeltlineError) as e:
        live.client(PLAYER, "bob").sit_down(match.table_ids[0], 2, 200)
    assert e.value.reason == "MATCH_TABLE"
    assert len(live.room.match(UUID(match.match_id)).match.players) == 1  # nothing changed


@ON_BOTH_STORES
def test_absent_players_are_timed_out_and_a_match_survives_restarts(live: Live) -> None:
    """Nobody acts: the action clock plays the whole match, through a
    restart in the middle of a deal and another between deals."""
    match = create(live, deals=3)
    join(live, match)
    key = UUID(match.match_id)

    def clock_until(done: Callable[[], bool]) -> None:
        deadline = time.monotonic() + 30
        while not done():
            assert time.monotonic() < deadline, "the clock did not move the match on"
            live.clock.now += 31  # past every action clock
            time.sleep(0.15)

    tables = live.room.match(key).match.tables
    deadline = time.monotonic() + 10
    while any(live.room.table(t).table.dealt is None for t in tables):
        assert time.monotonic() < deadline, "deal 1 was not dealt"
        time.sleep(0.05)
    live.restart()  # mid-deal at both tables
    assert all(live.room.table(t).table.hands == 1 for t in tables)
    clock_until(lambda: len(live.room.match(key).match.revealed) >= 1)
    live.restart()  # between deals at one table at least
    clock_until(lambda: live.room.match(key).match.finished)
    results = live.client(AUDITOR).match_results(match.match_id)
    assert len(results.revealed) == 3
    assert all(sum(r.score for r in d.results) == 0 for d in results.revealed)
    assert check(live.room.streams).problems == []


def test_a_table_ahead_waits_for_the_slowest_and_resumes(live: Live) -> None:
    match = create(live, deals=3, ahead=1)
    players = join(live, match)
    key = UUID(match.match_id)
    ahead = live.room.match(key).match.tables[1]
    play_deal(
        live, players, match.match_id, t=1, deal=2, policy=folds
    )  # one deal ahead of table 0, then waiting
    time.sleep(0.5)  # the clock ticks: table 1 may not deal 3 while table 0 plays deal 1
    assert live.room.table(ahead).table.hands == 2
    assert live.room.table(ahead).table.dealt is None
    play_deal(live, players, match.match_id, t=0, deal=1, policy=calls)
    deadline = time.monotonic() + 10
    while live.room.table(ahead).table.dealt is None:  # deal 3, now one ahead
        assert time.monotonic() < deadline, "the table ahead did not resume"
        time.sleep(0.05)
    assert live.room.table(ahead).table.hands == 3
