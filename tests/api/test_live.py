"""End to end, on a real server on a loopback port: bots play every game
through the API, hands replay from the store, watches resume, every role
sees what it may, and the action clock acts, also after a restart."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from uuid import UUID

import grpc
import pytest

from feltline import demo
from feltline.api import convert
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline.store.check import check
from feltline_client import Client, FeltlineError, Seen
from feltline_client.bots import Casual, Player
from feltline_protos.v1 import auth_pb2, watch_pb2
from tests.tables import TABLES

from .conftest import ON_BOTH_STORES, Live

ADMIN, PLAYER = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER
SPECTATOR, AUDITOR = auth_pb2.ROLE_SPECTATOR, auth_pb2.ROLE_AUDITOR
# A game played as it should be, restarts included, logs no error. The tests
# on a live server run on SQLite and on PostgreSQL.
pytestmark = pytest.mark.usefixtures("no_error_logs")


def test_bots_play_a_hundred_hands_of_every_game_and_each_replays() -> None:
    lines: list[str] = []
    summary = demo.run(26, seed=3, out=lines.append)
    assert set(summary.hands) == {*map(str, Game), "mixed"}
    assert all(count >= 26 for count in summary.hands.values()), summary.hands
    assert sum(summary.hands.values()) >= 100
    assert summary.failed == []
    assert summary.replayed == sum(summary.hands.values())
    assert summary.ledger is not None
    assert summary.ledger.balanced, summary.ledger
    assert summary.ledger.problems == []


def _table(live: Live, game: Game, seats: int = 4, clock: int = 30) -> str:
    admin = live.client(ADMIN)
    config = convert.table_config(TableConfig(TABLES[game], seats, action_clock=clock))
    return admin.create_table(config, f"test {game}").table_id


def _seat(live: Live, table: str, players: int, rng: random.Random) -> list[Player]:
    admin = live.client(ADMIN)
    bots = []
    for n in range(1, players + 1):
        admin.mint_chips(f"p{n}", 10_000)
        client, strategy = live.client(PLAYER, f"p{n}"), Casual(random.Random(rng.random()))
        bot = Player(client, table, strategy, seat=n, buy_in=500, rebuy=True)
        bot.sit()
        bots.append(bot)
    return bots


class Threads:
    """Background threads whose failures the test sees: each thread's
    exception is kept, and :meth:`join` raises them and fails on a thread
    still running, where a bare thread would only warn, or say nothing."""

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []
        self.failures: list[BaseException] = []
        self._lock = threading.Lock()

    def start(self, name: str, target: Callable[[], object]) -> None:
        def run() -> None:
            try:
                target()
            except BaseException as e:
                with self._lock:
                    self.failures.append(e)

        thread = threading.Thread(target=run, name=name, daemon=True)
        self.threads.append(thread)
        thread.start()

    def join(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for thread in self.threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        if self.failures:
            raise ExceptionGroup("background threads failed", self.failures)
        running = [t.name for t in self.threads if t.is_alive()]
        assert not running, f"still running after {timeout} s: {running}"


def _play(bots: list[Player], hands: int) -> set[int]:
    """Let ``bots`` play until ``hands`` hands have finished; the numbers of
    those finished. A bot's failure fails the test."""
    done: set[int] = set()
    lock = threading.Lock()

    def finished(number: int) -> None:
        with lock:
            done.add(number)
            if len(done) >= hands:
                for bot in bots:
                    bot.stop()

    threads = Threads()
    for bot in bots:
        threads.start(f"seat {bot.seat}", partial(bot.play, finished))
    threads.join(timeout=90)
    assert len(done) >= hands, f"{len(done)} hands finished, not {hands}"
    return done


def _events(client: Client, table: str, after: str = "") -> Iterator[watch_pb2.WatchTableResponse]:
    return client.watch(table, after=after, reconnect=False)


def _until_quiet(
    stream: Iterator[watch_pb2.WatchTableResponse], live: Live, table: str
) -> list[watch_pb2.WatchTableResponse]:
    """Items until the table has no hand in progress and the stream caught up."""
    items = []
    version = live.room.table(UUID(table)).version
    for item in stream:
        items.append(item)
        event = item.event
        if item.HasField("event") and event.hand_number == 0 and event.sequence >= version:
            break
    return items


def _key(item: watch_pb2.WatchTableResponse) -> tuple[str, int, int]:
    e = item.event
    return (e.hand_id, e.hand_number, e.sequence)


@ON_BOTH_STORES
def test_a_watch_resumes_from_its_cursor_with_nothing_missed_or_repeated(live: Live) -> None:
    spectator = live.client(SPECTATOR)
    # Watch from the snapshot of an empty table; play; resume, cutting often.
    table2 = _table(live, Game.STUD_HI_LO)
    first = next(iter(_events(spectator, table2)))
    assert first.HasField("snapshot")
    _play(_seat(live, table2, 3, random.Random(2)), 3)
    seen: list[watch_pb2.WatchTableResponse] = []
    cursor = first.cursor
    version = live.room.table(UUID(table2)).version
    rng = random.Random(5)
    done = False
    while not done:
        stream = _events(spectator, table2, cursor)
        for _, item in zip(range(rng.randint(1, 15)), stream, strict=False):
            assert not item.HasField("snapshot")
            seen.append(item)
            cursor = item.cursor
            done = item.event.hand_number == 0 and item.event.sequence == version
            if done:
                break
        stream.close()  # type: ignore[attr-defined]
    events = [_key(i) for i in seen if i.HasField("event")]
    assert len(events) == len(set(events))
    stored = live.room.table(UUID(table2))
    assert stored.table.hands >= 3
    assert {n for _, n, _ in events} >= {1, 2, 3}, "the watch saw no hands played"
    table_events = sorted(s for h, n, s in events if n == 0)
    assert table_events == list(range(2, stored.version + 1))  # 1, the opening, came before
    for number in range(1, stored.table.hands + 1):
        hand = live.room.hand(UUID(table2), number)
        got = sorted(s for h, n, s in events if n == number)
        assert got == list(range(1, hand.version))  # all but the seal


@ON_BOTH_STORES
def test_batches_hold_the_same_messages_as_the_plain_watch(live: Live) -> None:
    spectator = live.client(SPECTATOR)
    table = _table(live, Game.DRAW_DECLARE)
    first = next(iter(_events(spectator, table)))
    _play(_seat(live, table, 3, random.Random(4)), 2)
    stub = spectator.watcher
    metadata = spectator.metadata()
    version = live.room.table(UUID(table)).version

    def done(item: watch_pb2.WatchTableResponse) -> bool:
        return item.event.hand_number == 0 and item.event.sequence >= version

    plain = []
    call = stub.WatchTable(
        watch_pb2.WatchTableRequest(table_id=table, after=first.cursor), metadata=metadata
    )
    for item in call:
        plain.append(item)
        if done(item):
            break
    call.cancel()
    batches = []
    call = stub.WatchTableBatches(
        watch_pb2.WatchTableBatchesRequest(table_id=table, after=first.cursor), metadata=metadata
    )
    for batch in call:
        batches.append(list(batch.messages))
        if done(batch.messages[-1]):
            break
    call.cancel()
    assert {m.event.hand_number for m in plain} >= {1, 2}, "no hands were played"
    assert [m for batch in batches for m in batch] == plain
    assert all(batches)
    assert len(batches) < len(plain)


@ON_BOTH_STORES
def test_every_role_sees_only_what_it_may(live: Live) -> None:
    table = _table(live, Game.HOLDEM)
    watchers = {
        "p1": live.client(PLAYER, "p1"),
        "spectator": live.client(SPECTATOR),
        "auditor": live.client(AUDITOR),
        "admin": live.client(ADMIN),
    }
    streams = {name: _events(c, table) for name, c in watchers.items()}
    firsts = {name: next(iter(s)) for name, s in streams.items()}
    bots = _seat(live, table, 3, random.Random(3))
    _play(bots, 2)
    for name, stream in streams.items():
        items = _until_quiet(stream, live, table)
        stream.close()  # type: ignore[attr-defined]
        assert firsts[name].HasField("snapshot")
        dealt = [i.event.card_dealt for i in items if i.event.WhichOneof("kind") == "card_dealt"]
        down = [c for c in dealt if not c.face_up]
        assert down
        for card in down:
            mine = name == "p1" and card.seat == 1
            assert card.HasField("card") == mine, (name, card)
        shuffled = [i.event for i in items if i.event.WhichOneof("kind") == "deck_shuffled"]
        assert all(not e.deck_shuffled.HasField("seed") and e.redacted for e in shuffled)
        ended = [i.event.hand_ended for i in items if i.event.WhichOneof("kind") == "hand_ended"]
        assert ended
        assert all(e.HasField("seed") == (name == "auditor") for e in ended), name


@ON_BOTH_STORES
def test_the_action_clock_acts_as_a_stored_event_also_after_a_restart(live: Live) -> None:
    table = _table(live, Game.HOLDEM, clock=20)
    admin = live.client(ADMIN)
    for n in (1, 2):
        admin.mint_chips(f"p{n}", 1000)
        live.client(PLAYER, f"p{n}").sit_down(table, n, 500)
    key = UUID(table)
    deadline = time.monotonic() + 10
    while live.room.table(key).table.dealt is None:
        assert time.monotonic() < deadline, "the dealer never dealt"
        time.sleep(0.05)
    before = live.room.hand(key, 1).version
    live.restart()
    assert live.server.table_clock.tick() == 0  # time is not up yet
    live.clock.now += 20
    deadline = time.monotonic() + 10
    while live.room.hand(key, 1).version == before:
        assert time.monotonic() < deadline, "the clock never acted"
        time.sleep(0.05)
    made = live.server.rail.hand_records(key, 1, before)
    acted = [s.event for s in made if s is not None]
    assert getattr(acted[0], "timed_out", False)
    assert check(live.room.streams).problems == []


@ON_BOTH_STORES
def test_a_retried_action_is_answered_as_the_first_time_and_a_stale_one_refused(
    live: Live,
) -> None:
    table = _table(live, Game.HOLDEM)
    admin = live.client(ADMIN)
    players = {}
    for n in (1, 2):
        admin.mint_chips(f"p{n}", 1000)
        players[n] = live.client(PLAYER, f"p{n}")
        players[n].sit_down(table, n, 500)
    key = UUID(table)
    deadline = time.monotonic() + 10
    while live.room.table(key).table.dealt is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    view = players[1].get_table(table).current_hand
    seat = view.turn.seat
    client = players[seat]
    seen = Seen.of(view)
    first = client.call(table, seen, request_id="0b5ee5a4-1c5e-4f57-8a43-3c1d2a8e9f10")
    again = client.call(table, seen, request_id="0b5ee5a4-1c5e-4f57-8a43-3c1d2a8e9f10")
    assert first == again
    with pytest.raises(FeltlineError) as stale:
        client.call(table, seen)
    assert stale.value.code is grpc.StatusCode.FAILED_PRECONDITION
    assert stale.value.reason == "STALE_STATE"
    assert stale.value.metadata["hand_number"] == "1"
    with pytest.raises(FeltlineError) as reused:
        client.fold(table, seen, request_id="0b5ee5a4-1c5e-4f57-8a43-3c1d2a8e9f10")
    assert reused.value.code is grpc.StatusCode.ALREADY_EXISTS
