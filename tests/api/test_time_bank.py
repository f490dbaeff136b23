"""The time bank on a real server: a silent player's action clock runs out,
their bank goes on the clock (an event every watcher and auditor sees, the
deadline moved on by it), and once that runs out too the clock acts for
them; the table shows each seat's bank left, as a restart finds it. Bad
settings are refused naming the field."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from uuid import UUID

import grpc
import pytest

from feltline.api import convert
from feltline.audit.keys import Signer
from feltline.cardroom.errors import ClockRunning
from feltline.engine.errors import NotYourTurn
from feltline.engine.games.variant import Game
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.events import TimeBankUsed
from feltline.engine.table.house import TableConfig, TimeBank
from feltline.store.check import check
from feltline_client import FeltlineError
from feltline_protos.v1 import auth_pb2, common_pb2, watch_pb2
from tests.tables import TABLES

from .conftest import ON_BOTH_STORES, Live, open_room

ADMIN, PLAYER = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER
CLOCK, BANK, REFILL = 20, 15, 5
pytestmark = pytest.mark.usefixtures("no_error_logs")


def _until(done: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 10
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@ON_BOTH_STORES
def test_a_silent_player_spends_the_bank_and_then_the_clock_acts(live: Live) -> None:
    admin = live.client(ADMIN)
    config = TableConfig(
        TABLES[Game.HOLDEM], 2, action_clock=CLOCK, time_bank=TimeBank(BANK, REFILL)
    )
    table = admin.create_table(convert.table_config(config), "banked").table_id
    assert admin.get_table(table).config.time_bank.time.seconds == BANK
    for n in (1, 2):
        admin.mint_chips(f"p{n}", 1000)
        live.client(PLAYER, f"p{n}").sit_down(table, n, 500)
    key = UUID(table)
    _until(lambda: live.room.table(key).table.dealt is not None, "the dealer never dealt")
    stop = threading.Event()
    seen: list[watch_pb2.WatchTableResponse] = []
    spectator = live.client(auth_pb2.ROLE_SPECTATOR)
    watching = threading.Thread(
        target=lambda: seen.extend(spectator.watch(table, reconnect=False, stop=stop))
    )
    watching.start()

    shown = admin.get_table(table)
    assert [s.time_bank.seconds for s in shown.seats] == [BANK, BANK]
    turn = shown.current_hand.turn
    silent, since = turn.seat, live.room.hand(key, 1).since
    assert (turn.deadline.seconds, turn.time_bank) == (since + CLOCK, False)
    before = live.room.hand(key, 1).version

    live.clock.now = since + CLOCK  # the action clock runs out: the bank goes on
    _until(lambda: live.room.table(key).table.banked is not None, "the bank never went on")
    shown = admin.get_table(table)
    turn = shown.current_hand.turn
    assert (turn.seat, turn.time_bank) == (silent, True)
    assert turn.deadline.seconds == since + CLOCK + BANK
    banks = {s.seat: s.time_bank.seconds for s in shown.seats}
    assert banks == {silent: 0, 3 - silent: BANK}
    assert live.room.hand(key, 1).version == before  # nobody was acted for

    live.clock.now = since + CLOCK + BANK - 1
    assert live.server.table_clock.tick() == 0  # the bank has a second left
    live.clock.now += 1
    _until(lambda: live.room.hand(key, 1).version != before, "the clock never acted")
    made = live.server.rail.hand_records(key, 1, before)
    acted = [s.event for s in made if s is not None]
    assert getattr(acted[0], "seat", None) == silent
    assert getattr(acted[0], "timed_out", False)

    _until(lambda: any(_turn_on_bank(i) for i in seen), "the watch never showed the bank on")
    stop.set()
    watching.join()
    used = [i.event.time_bank_used for i in seen if i.event.WhichOneof("kind") == "time_bank_used"]
    assert [(u.seat, u.seconds, u.turn) for u in used] == [(silent, BANK, before)]
    on_bank = next(i.turn for i in seen if _turn_on_bank(i))
    assert (on_bank.seat, on_bank.deadline.seconds) == (silent, since + CLOCK + BANK)

    state = live.room.table(key).table
    live.restart()  # the replay from the store spends the bank the same
    assert live.room.table(key).table == state
    assert check(live.room.streams).problems == []


def _turn_on_bank(item: watch_pb2.WatchTableResponse) -> bool:
    return item.HasField("turn") and item.turn.time_bank


def _banked(time: int, refill: int | None = None, nanos: int = 0) -> common_pb2.TableConfig:
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 6))
    config.time_bank.time.seconds = time
    config.time_bank.time.nanos = nanos
    if refill is not None:
        config.time_bank.refill_per_hand.seconds = refill
    return config


@pytest.mark.parametrize(
    ("config", "reason", "field"),
    [
        (_banked(30, 31), "INVALID_CONFIG", "config.time_bank.refill_per_hand"),
        (_banked(30, nanos=500_000_000), "INVALID_CONFIG", "config.time_bank.time"),
        (_banked(0), "INVALID_REQUEST", "config.time_bank.time"),
        (_banked(3601), "INVALID_REQUEST", "config.time_bank.time"),
        (_banked(30, 3601), "INVALID_REQUEST", "config.time_bank.refill_per_hand"),
    ],
)
def test_a_time_bank_out_of_bounds_is_refused_naming_the_field(
    live: Live, config: common_pb2.TableConfig, reason: str, field: str
) -> None:
    admin = live.client(ADMIN)
    with pytest.raises(FeltlineError) as refused:
        admin.create_table(config, "bad")
    error = refused.value
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.reason == reason
    assert field in [v.field for v in error.violations]
    assert list(admin.list_tables()) == []


def test_a_table_without_a_bank_shows_none(live: Live) -> None:
    admin = live.client(ADMIN)
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 2))
    table = admin.create_table(config, "plain").table_id
    admin.mint_chips("p1", 1000)
    live.client(PLAYER, "p1").sit_down(table, 1, 500)
    shown = admin.get_table(table)
    assert not shown.config.HasField("time_bank")
    assert not shown.seats[0].HasField("time_bank")


def test_the_room_refuses_a_bank_or_a_time_out_before_its_time(tmp_path: Path) -> None:
    room = open_room(tmp_path / "bank.db", Signer.generate())
    try:
        config = TableConfig(
            TABLES[Game.HOLDEM], 2, action_clock=CLOCK, time_bank=TimeBank(BANK, REFILL)
        )
        key = room.open_table("banked", config, at=0)
        for n in (1, 2):
            room.mint(f"mint-{n}", f"p{n}", 1000, by="admin")
            room.sit_down(key, f"sit-{n}", n, f"p{n}", 500, at=0)
        room.deal(key, "deal-1", at=0)
        hand = room.hand(key, 1)
        seat = waiting_on(hand.hand)[0]
        with pytest.raises(ClockRunning, match=f"has until {CLOCK} to act"):
            room.use_time_bank(key, 1, seat, at=CLOCK - 1)
        with pytest.raises(NotYourTurn, match="not on the clock"):
            room.use_time_bank(key, 1, 3 - seat, at=CLOCK)
        assert room.table(key).table.banked is None
        used = room.use_time_bank(key, 1, seat, at=CLOCK)
        assert used.table == (TimeBankUsed(seat, BANK, hand.version),)
        assert room.use_time_bank(key, 1, seat, at=CLOCK).repeated  # filed under its turn
        with pytest.raises(ClockRunning, match=f"has until {CLOCK + BANK} to act"):
            room.time_out(key, 1, "clock-early", seat, at=CLOCK + BANK - 1)
        room.time_out(key, 1, "clock-late", seat, at=CLOCK + BANK)
        assert room.hand(key, 1).version > hand.version
    finally:
        room.close()
