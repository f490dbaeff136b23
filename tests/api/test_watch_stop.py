"""A server that stops ends its watches UNAVAILABLE, not as if the table had
closed: a client that took a clean end for the last word would stop
following a table that plays on after the restart."""

from __future__ import annotations

import threading

import grpc
import pytest

from feltline.api import convert
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline_client import FeltlineError
from feltline_protos.v1 import auth_pb2
from tests.tables import TABLES

from .conftest import Live


def test_a_stopping_server_ends_a_watch_with_try_again(live: Live) -> None:
    admin = live.client(auth_pb2.ROLE_ADMIN)
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 6))
    table = admin.create_table(config, "stopping").table_id
    stream = live.client(auth_pb2.ROLE_SPECTATOR).watch(table, reconnect=False)
    assert next(stream).HasField("snapshot")
    restarting = threading.Timer(0.3, live.restart)
    restarting.start()
    with pytest.raises(FeltlineError) as caught:
        next(stream)
    restarting.join(15)
    assert (caught.value.code, caught.value.reason) == (grpc.StatusCode.UNAVAILABLE, "TRY_AGAIN")
    assert caught.value.retry_after == 0.5
