"""CloseTable on a live loopback server: admin only, a hand in progress is
cancelled with every chip back, watchers' streams end after TableClosed,
and the table refuses everything after."""

from __future__ import annotations

import threading
import time
from uuid import UUID

import grpc
import pytest

from feltline.api import convert
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline.store.check import check
from feltline_client import FeltlineError
from feltline_protos.v1 import auth_pb2, tables_pb2, watch_pb2
from tests.tables import TABLES

from .conftest import Live

ADMIN, PLAYER, SPECTATOR = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER, auth_pb2.ROLE_SPECTATOR


def _table_with_a_hand(live: Live) -> str:
    admin = live.client(ADMIN)
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 6, action_clock=600))
    table = admin.create_table(config, "closing").table_id
    for n in (1, 2):
        admin.mint_chips(f"p{n}", 5_000)
        live.client(PLAYER, f"p{n}").sit_down(table, n, 500)
    deadline = time.monotonic() + 15
    while live.room.table(UUID(table)).table.dealt is None:
        assert time.monotonic() < deadline, "no hand was dealt"
        time.sleep(0.05)
    return table


def test_only_an_admin_closes_a_table(live: Live) -> None:
    table = _table_with_a_hand(live)
    for role, player in [(PLAYER, "p1"), (SPECTATOR, ""), (auth_pb2.ROLE_AUDITOR, "")]:
        with pytest.raises(FeltlineError) as refused:
            live.client(role, player).close_table(table)
        assert refused.value.code is grpc.StatusCode.PERMISSION_DENIED
    assert not live.room.table(UUID(table)).table.closed


def test_closing_mid_hand_returns_every_chip_and_ends_the_watch(live: Live) -> None:
    table = _table_with_a_hand(live)
    items: list[watch_pb2.WatchTableResponse] = []
    spectator = live.client(SPECTATOR)
    stream = spectator.watch(table, reconnect=False)
    first = next(iter(stream))
    ended = threading.Event()

    def watch() -> None:
        items.extend(stream)
        ended.set()

    threading.Thread(target=watch, daemon=True).start()
    closed = live.client(ADMIN).close_table(table, "maintenance")
    assert closed.state == tables_pb2.TABLE_STATE_CLOSED
    assert ended.wait(10), "the watch did not end after TableClosed"
    assert first.HasField("snapshot")
    kinds = [i.event.WhichOneof("kind") for i in items if i.HasField("event")]
    assert kinds[-1] == "table_closed"
    assert "hand_ended" in kinds
    assert items[-1].event.table_closed.reason == "maintenance"
    assert [live.room.balance(f"p{n}") for n in (1, 2)] == [5_000, 5_000]
    ledger = check(live.room.streams)
    assert ledger.problems == []
    assert ledger.seats == 0
    # Watching a closed table gives its snapshot and ends.
    again = list(spectator.watch(table, reconnect=False))
    assert len(again) == 1
    assert again[0].HasField("snapshot")
    # Everything after is refused.
    with pytest.raises(FeltlineError) as refused:
        live.client(PLAYER, "p1").sit_down(table, 1, 500)
    assert refused.value.code is grpc.StatusCode.FAILED_PRECONDITION
    assert refused.value.reason == "TABLE_CLOSED"
    with pytest.raises(FeltlineError) as twice:
        live.client(ADMIN).close_table(table)
    assert twice.value.reason == "TABLE_CLOSED"
    listed = live.client(ADMIN).list_tables(state=tables_pb2.TABLE_STATE_CLOSED)
    assert [t.table_id for t in listed] == [table]
