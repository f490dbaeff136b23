"""Other processes' writes are heard at once on PostgreSQL: the store's
notification of every append wakes the watches of every server, without
waiting for the next look (docs/store.md, "Several processes")."""

from __future__ import annotations

import threading
import time

import pytest

from feltline.api import convert
from feltline.api.app import Feltline
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from tests.tables import TABLES

from .conftest import Live, open_store
from .test_live import ADMIN, PLAYER, SPECTATOR
from .test_two_servers import _client


@pytest.mark.parametrize("live", ["postgres"], indirect=True)  # one process serves SQLite
def test_a_watch_hears_another_server_s_write_at_once(live: Live) -> None:
    """PostgreSQL's notification of an append wakes the watches of every
    server at once: here the other server never looks on its own (its clock
    ticks once an hour), so without the notification its watch would wait."""
    room = open_store(live.env, live.signer, server="other")
    other = Feltline(room, live.signer.public_key, clock=live.clock, tick=3600).start()
    try:
        admin = _client(live, live.server.target, ADMIN)
        config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 4, action_clock=30))
        table = admin.create_table(config, "heard at once").table_id
        watch = iter(
            _client(live, other.target, SPECTATOR).watch(
                table, reconnect=False, stop=threading.Event()
            )
        )
        snapshot = next(watch)
        admin.mint_chips("p1", 10_000)
        _client(live, live.server.target, PLAYER, "p1").sit_down(table, 1, 500)
        sat = time.monotonic()
        heard = next(watch)
        assert time.monotonic() - sat < 2.0
        assert heard.cursor != snapshot.cursor
    finally:
        other.stop()
