"""Sitting out through the API and the SDK: the next hand is dealt in the
request that ends the current one, so a player who wants to miss it says
so during this hand; they play it out, are dealt nothing after it, and can
stand up without having paid for the next hand, or sit in again."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from uuid import UUID

import grpc
import pytest

from feltline.api import convert
from feltline.engine.hand.rules import Game
from feltline.engine.table.events import (
    HandDealt,
    HandFinished,
    LeavingAfterHand,
    SatIn,
    SatOut,
    StoodUp,
    TableEvent,
)
from feltline.engine.table.house import TableConfig
from feltline.engine.table.state import Entry
from feltline_client import FeltlineError
from feltline_client.bots import CallingStation, Player
from feltline_protos.v1 import auth_pb2, common_pb2, tables_pb2
from tests.tables import TABLES

from .conftest import Live

ADMIN, PLAYER, SPECTATOR = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER, auth_pb2.ROLE_SPECTATOR
MINTED, BUY_IN = 10_000, 500


def _table(live: Live) -> str:
    admin = live.client(ADMIN)
    config = convert.table_config(TableConfig(TABLES[Game.DRAW_DECLARE], 6, action_clock=30))
    table = admin.create_table(config, "sitting out").table_id
    for n in (1, 2, 3):
        admin.mint_chips(f"p{n}", MINTED)
    return table


def _events(live: Live, table: str) -> list[TableEvent]:
    return [r.event for r in live.server.rail.table_records(UUID(table))]  # type: ignore[misc]


def _until(done: Callable[[], bool], within: float = 30) -> None:
    deadline = time.monotonic() + within
    while not done():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _status(table: tables_pb2.Table, seat: int) -> int:
    return next(s.status for s in table.seats if s.seat == seat)


@dataclass
class Seated:
    """Three calling stations seated at a draw-declare table, each playing
    once started, all stopped and joined when the test ends."""

    table: str
    players: list[Player]
    threads: list[threading.Thread] = field(default_factory=list)

    def start(self, *seats: int) -> None:
        for seat in seats:
            thread = threading.Thread(target=self.players[seat - 1].play, daemon=True)
            thread.start()
            self.threads.append(thread)


@pytest.fixture
def seated(live: Live) -> Iterator[Seated]:
    table = _table(live)
    players = [
        Player(live.client(PLAYER, f"p{n}"), table, CallingStation(), seat=n, buy_in=BUY_IN)
        for n in (1, 2, 3)
    ]
    for p in players:
        p.sit()
    made = Seated(table, players)
    yield made
    for p in players:
        p.stop()
    for thread in made.threads:
        thread.join(10)


def test_a_player_sits_out_the_next_hand_and_leaves_without_paying_for_it(
    live: Live, seated: Seated
) -> None:
    table, three = seated.table, seated.players[2]
    seated.start(1, 2)  # seat 3 holds hand 1 up until it plays
    _until(lambda: live.room.table(UUID(table)).table.dealt == (1, 2, 3))
    seen = three.client.sit_out(table)
    assert _status(seen, 3) == common_pb2.SEAT_STATUS_SITTING_OUT
    assert seen.current_hand.hand_number == 1  # still in it: plays it out
    seated.start(3)
    _until(lambda: live.room.table(UUID(table)).table.hands >= 2)
    events = _events(live, table)
    first = next(e for e in events if isinstance(e, HandFinished))
    second = [e for e in events if isinstance(e, HandDealt)][1]
    assert [s.seat for s in second.deal.seats] == [1, 2]
    three.stop()  # stands up: in no hand, so at once
    stood = next(e for e in _events(live, table) if isinstance(e, StoodUp))
    assert stood.stack == dict(first.stacks)[3]  # no ante paid for hand 2
    assert three.client.get_account().balance == MINTED - BUY_IN + stood.stack


def test_a_player_sitting_out_sits_in_again(live: Live, seated: Seated) -> None:
    table, three = seated.table, seated.players[2]
    three.client.sit_out(table)  # before the first deal
    seated.start(1, 2, 3)
    _until(lambda: live.room.table(UUID(table)).table.hands >= 2)
    seen = three.client.sit_in(table)
    assert _status(seen, 3) == common_pb2.SEAT_STATUS_PLAYING
    number = seen.hands_dealt
    _until(lambda: live.room.table(UUID(table)).table.hands > number)
    dealt = [e for e in _events(live, table) if isinstance(e, HandDealt)]
    assert [s.seat for s in dealt[0].deal.seats] == [1, 2]
    assert [s.seat for s in dealt[-1].deal.seats] == [1, 2, 3]
    assert all(t.is_alive() for t in seated.threads)


def _refused(call: Callable[[], object]) -> FeltlineError:
    with pytest.raises(FeltlineError) as caught:
        call()
    return caught.value


def test_sitting_out_or_in_wrongly_is_refused_precisely_and_changes_nothing(live: Live) -> None:
    table = _table(live)
    player = live.client(PLAYER, "p1")
    player.sit_down(table, 1, BUY_IN)
    version = live.room.table(UUID(table)).version
    cases: list[tuple[Callable[[], object], grpc.StatusCode, str]] = [
        (lambda: player.sit_in(table), grpc.StatusCode.FAILED_PRECONDITION, "SEAT_UNAVAILABLE"),
        (
            lambda: live.client(PLAYER, "p2").sit_out(table),
            grpc.StatusCode.FAILED_PRECONDITION,
            "NOT_SEATED",
        ),
        (
            lambda: live.client(SPECTATOR).sit_out(table),
            grpc.StatusCode.PERMISSION_DENIED,
            "ROLE_FORBIDDEN",
        ),
        (
            lambda: player.sit_out("not-a-table"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_REQUEST",
        ),
        (
            lambda: player.sit_out(table, request_id="not-a-uuid"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_REQUEST",
        ),
    ]
    for call, code, reason in cases:
        error = _refused(call)
        assert (error.code, error.reason) == (code, reason), error
    assert live.room.table(UUID(table)).version == version
    request = "0b6f3c52-8e0f-4f4e-9d0e-0b9a2f3c4d5e"
    player.sit_out(table, request_id=request)
    player.sit_out(table, request_id=request)  # a retry: answered, not applied again
    assert [e for e in _events(live, table) if isinstance(e, SatOut)] == [SatOut(1)]
    version = live.room.table(UUID(table)).version
    error = _refused(lambda: player.sit_out(table))
    assert (error.reason, error.message) == ("SEAT_UNAVAILABLE", "seat 1 is sitting out already")
    error = _refused(lambda: player.sit_in(table, post_now=True))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OPTION")
    assert live.room.table(UUID(table)).version == version
    player.sit_in(table)
    assert [e for e in _events(live, table) if isinstance(e, SatIn)] == [SatIn(1, Entry.PLAYING)]


def test_a_bot_leaving_after_its_last_hand_is_not_dealt_the_next(live: Live) -> None:
    table = _table(live)
    players = [
        Player(live.client(PLAYER, f"p{n}"), table, CallingStation(), seat=n, buy_in=BUY_IN)
        for n in (1, 2)
    ]
    last = Player(
        live.client(PLAYER, "p3"), table, CallingStation(), seat=3, buy_in=BUY_IN, hands=2
    )
    seated = Seated(table, [*players, last])
    for p in seated.players:
        p.sit()
    seated.start(1, 2, 3)
    try:
        _until(lambda: not seated.threads[2].is_alive())
        _until(lambda: live.room.table(UUID(table)).table.hands >= 3)
    finally:
        for p in seated.players:
            p.stop()
        for t in seated.threads:
            t.join(10)
    events = _events(live, table)
    finished = [e for e in events if isinstance(e, HandFinished)]
    stood = next(e for e in events if isinstance(e, StoodUp) and e.seat == 3)
    assert stood.stack == dict(finished[1].stacks)[3]  # left with hand 2's stack
    assert [e for e in events if isinstance(e, SatOut)] == [SatOut(3)]
    assert not any(isinstance(e, LeavingAfterHand) and e.seat == 3 for e in events)
    third = [e for e in events if isinstance(e, HandDealt)][2]
    assert [s.seat for s in third.deal.seats] == [1, 2]
